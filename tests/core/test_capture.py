"""Capture engine behaviour beyond the seed lessons."""

import textwrap
import sys
import threading

import pytest
import torch

from gradexplorer import DeviceUnavailableError, capture
from gradexplorer.core.graph.build import MAX_PATH_HOPS, path_expression

from .conftest import node


def test_syntax_error_executes_nothing(tmp_path, run):
    marker = tmp_path / "ran.txt"
    cap = run(f"""
        open({str(marker)!r}, "w").write("executed")
        x = (
    """)
    assert not marker.exists()
    assert cap.executed is False
    assert cap.error.kind == "syntax"
    assert cap.error.line == 3
    assert cap.error.column is not None
    assert cap.graph.number_of_nodes() == 0


@pytest.mark.parametrize("device", ["cuda:3", "mps", "tpu", "cuda:x"])
def test_unknown_device_is_refused_before_running(tmp_path, device):
    marker = tmp_path / "ran.txt"
    if device == "cuda:3" and torch.cuda.device_count() > 3:
        pytest.skip("this machine has a fourth GPU")
    with pytest.raises(DeviceUnavailableError) as info:
        capture(f"open({str(marker)!r}, 'w')", device=device)
    assert "Devices present: cpu" in str(info.value)
    assert not marker.exists()


def test_exception_inside_function_shows_user_frames_and_keeps_partial(run):
    cap = run("""
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 3).sum()

        def broken(t):
            return t.reshape(5)

        z = broken(x)
    """)
    assert cap.error.kind == "exception"
    assert cap.error.line == 6
    assert [frame[0] for frame in cap.error.frames] == [8, 6]
    assert "torch" not in cap.error.traceback.split("RuntimeError")[0]  # no library frames
    assert "line 6, in broken" in cap.error.traceback
    assert node(cap, "y")["value"].item() == pytest.approx(9.0)
    assert cap.tensor("x") is not None


def test_forward_value_is_recorded_at_op_time(run):
    cap = run("""
        w = torch.ones(3, requires_grad=True)
        h = w * 2
        h.add_(100)
        out = h.sum()
    """)
    mul = [a for _, a in cap.graph.nodes(data=True) if a["op"] == "MulBackward0"]
    assert len(mul) == 1
    assert mul[0]["value"].values() == [2.0, 2.0, 2.0]
    assert node(cap, "h")["value"].values() == [102.0, 102.0, 102.0]


def test_large_tensor_keeps_summary_only(run):
    cap = run("""
        x = torch.zeros(200, 100, requires_grad=True)
        y = x.exp()
        y.sum().backward()
    """, value_elements=1000)
    value = node(cap, "y")["value"]
    assert value.data is None
    assert value.shape == (200, 100)
    assert value.stats.min == 1.0 and value.stats.max == 1.0 and value.stats.mean == pytest.approx(1.0)
    assert "cap" in value.note


def test_nan_and_inf_are_counted(run):
    cap = run("""
        x = torch.tensor([1.0, -1.0, 0.0], requires_grad=True)
        y = torch.log(x)
    """)
    stats = node(cap, "y")["value"].stats
    assert stats.nan_count == 1 and stats.inf_count == 1
    assert stats.min == stats.max == 0.0


def test_hook_changing_gradient_shows_before_and_after(run):
    cap = run("""
        x = torch.tensor(2.0, requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: g * 10)
        y.backward()
    """)
    (hook,) = node(cap, "y")["hooks"]
    (call,) = hook.calls
    assert call.before[0].item() == pytest.approx(1.0)
    assert call.changed and call.after[0].item() == pytest.approx(10.0)
    assert node(cap, "x")["grad"].item() == pytest.approx(30.0)


def test_node_hooks_and_retain_grad_are_recorded(run):
    cap = run("""
        x = torch.tensor(2.0, requires_grad=True)
        y = x * 3
        y.retain_grad()
        z = y * y

        def post(grad_inputs, grad_outputs):
            return None

        def pre(grad_outputs):
            return (grad_outputs[0] * 2,)

        z.grad_fn.register_hook(post)
        z.grad_fn.register_prehook(pre)
        z.backward()
    """)
    kinds = {h.kind: h for h in node(cap, "y")["hooks"]}
    assert set(kinds) == {"retain_grad"}
    z_hooks = {h.kind: h for h in node(cap, "z")["hooks"]}
    assert z_hooks["node_post"].qualname == "post"
    assert z_hooks["node_pre"].qualname == "pre"
    (pre_call,) = z_hooks["node_pre"].calls
    assert pre_call.before[0].item() == pytest.approx(1.0)
    assert pre_call.after[0].item() == pytest.approx(2.0)
    assert cap.tensor("y").grad.item() == pytest.approx(2 * 2 * 6.0)


def test_our_hooks_are_removed_and_never_change_gradients(run, monkeypatch):
    import sys
    import types

    box = types.ModuleType("gx_test_box")  # how the test gets the program's tensors out (builtins are put back)
    monkeypatch.setitem(sys.modules, "gx_test_box", box)
    cap = run("""
        import gx_test_box
        x = torch.tensor(3.0, requires_grad=True)
        y = (x * x).sin()
        y.backward(retain_graph=True)
        gx_test_box.kept = (x, y)
    """)
    x, y = box.kept
    expected = 2 * 3.0 * torch.cos(torch.tensor(9.0))
    assert x.grad.item() == pytest.approx(expected.item())
    assert cap.tensor("x").grad.item() == pytest.approx(expected.item())
    from gradexplorer.core.capture import backward_passes

    calls = []
    for tap in (backward_passes._GradTap, backward_passes._LeafTap):
        monkeypatch.setattr(tap, "__call__", lambda self, *grads: calls.append(self))
    y.backward()  # outside the capture: no tap of ours may fire (their handles were removed)
    assert calls == []


def test_saved_tensors_freed_or_readable(run):
    cap = run("""
        a = torch.tensor(2.0, requires_grad=True)
        kept = a * a
        freed = a * 3
        freed.backward()
        kept.backward(retain_graph=True)
    """)
    kept = {s.name: s for s in node(cap, "kept")["saved"]}
    assert kept["_saved_self"].state == "tensor" and kept["_saved_self"].tensor.item() == 2.0
    freed = {s.name: s for s in node(cap, "freed")["saved"]}
    assert freed["_saved_self"].state == "freed"


def test_passes_autograd_grad_and_double_backward(example):
    cap = example("08_double_backward")
    assert cap.ok, cap.error
    first, second = cap.passes
    assert first.kind == "grad" and first.create_graph and first.retain_graph
    assert first.results[0].item() == pytest.approx(12.0)
    assert second.results[0].item() == pytest.approx(12.0)
    assert first.inputs[0][0] == cap.node_named("x")
    assert node(cap, "x")["grads"][0].outputs[0].item() == pytest.approx(12.0)


def test_several_passes_have_separate_gradients(example):
    cap = example("06_mlp_training_step")
    assert cap.ok, cap.error
    assert len(cap.passes) == 3
    weight = node(cap, "model.0.weight")
    assert set(weight["grads"]) == {0, 1, 2}
    assert weight["grads"][0].outputs[0].values() != weight["grads"][2].outputs[0].values()


def test_multi_output_op_records_each_output(run):
    cap = run("""
        x = torch.arange(4.0, requires_grad=True)
        left, right = x.split(2)
    """)
    outputs = node(cap, "left")["outputs"]
    assert [o.values() for o in outputs] == [[0.0, 1.0], [2.0, 3.0]]
    assert cap.tensor("right").output_nr == 1


def test_names_inside_containers_and_modules(run):
    cap = run("""
        layer = nn.Linear(2, 1)
        out = {"pred": layer(torch.ones(1, 2))}
        history = [out["pred"] * 2]
    """)
    assert node(cap, "layer.weight")["kind"] == "leaf"
    assert node(cap, "out['pred']")["op"] == "AddmmBackward0"
    assert node(cap, "history[0]")["path"] == "history[0].grad_fn"


def test_device_variable_and_default_device(run):
    cap = run("""
        here = device
        t = torch.zeros(1)
        print(type(here).__name__, here, t.device)
    """)
    assert cap.stdout.strip() == "device cpu cpu"


def test_output_from_other_threads_is_not_captured(run, capsys):
    ready = threading.Event()
    done = threading.Event()

    def chatter():
        ready.wait(5)
        print("from another thread")
        done.set()

    thread = threading.Thread(target=chatter)
    thread.start()
    # The user's code lets the other thread print while the capture runs.
    import builtins

    def release():
        ready.set()
        done.wait(5)

    builtins._gx_release = release
    try:
        cap = run("""
            print("from the user")
            _gx_release()
            import sys
            print("to stderr", file=sys.stderr)
        """)
    finally:
        del builtins._gx_release
        thread.join(5)
    assert cap.stdout == "from the user\n"
    assert cap.stderr == "to stderr\n"
    assert "from another thread" in capsys.readouterr().out


def test_output_flood_is_capped(run):
    cap = run("""
        for i in range(10000):
            print("x" * 100)
    """, max_output_chars=5000)
    assert len(cap.stdout) < 6000
    assert "characters of stdout were not kept here" in cap.stdout
    assert cap.stdout.endswith("x" * 100 + "\n")  # the tail is kept too


def test_capture_is_deterministic(example):
    first = example("06_mlp_training_step")
    second = example("06_mlp_training_step")
    describe = lambda cap: [(n, a["op"], a["names"], a["path"]) for n, a in cap.graph.nodes(data=True)]  # noqa: E731
    assert describe(first) == describe(second)
    assert list(first.graph.edges(data="slot")) == list(second.graph.edges(data="slot"))


def test_long_chain_has_no_recursion_error(run):
    limit = sys.getrecursionlimit()
    cap = run("""
        x = torch.tensor(1.0, requires_grad=True)
        y = x
        for i in range(100_000):
            y = y * 1.0
        y.backward()
    """)
    assert sys.getrecursionlimit() == limit
    assert cap.ok, cap.error
    assert cap.graph.number_of_nodes() == 100_001
    x_id = cap.node_named("x")
    assert cap.graph.nodes[x_id]["grad"].item() == 1.0
    # Deep nodes have no precomputed text (it would be gigabytes) but the
    # expression can still be built.
    assert cap.graph.nodes[x_id]["path"] is None
    expr = path_expression(cap.graph, x_id)
    assert expr.startswith("y.grad_fn.next_functions[0][0]")
    assert expr.count("next_functions") == 100_000
    shallow = [n for n, a in cap.graph.nodes(data=True) if a["path_via"] and a["path_via"][2] == MAX_PATH_HOPS]
    assert shallow and cap.graph.nodes[shallow[0]]["path"] == path_expression(cap.graph, shallow[0])


def test_stop_request_is_recorded_as_stopped(run):
    import ctypes

    from gradexplorer import CaptureStopped

    result = {}

    def worker():
        result["cap"] = run("""
            import builtins
            builtins._gx_started.set()
            while True:
                pass
        """)

    import builtins

    builtins._gx_started = threading.Event()
    thread = threading.Thread(target=worker)
    thread.start()
    try:
        assert builtins._gx_started.wait(10)
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(CaptureStopped))
        thread.join(10)
    finally:
        del builtins._gx_started
    assert not thread.is_alive()
    assert result["cap"].error.kind == "stopped"
    assert result["cap"].error.line in (4, 5)  # the loop header or its body


def test_a_parameters_source_is_where_it_was_made_not_the_optimizer_step():
    """nn.Parameter(...) in user code, and the deep copies nn.TransformerEncoder makes of its layer (issue 27)."""
    cap = capture(textwrap.dedent("""
        w = nn.Parameter(torch.zeros(3))
        layer = nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)
        enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        opt = torch.optim.SGD([w, *enc.parameters()], lr=0.1)
        loss = (w * 2).sum() + enc(torch.randn(1, 3, 4)).sum()
        loss.backward()
        opt.step()
    """))
    source = lambda name: cap.graph.nodes[cap.node_named(name)]["source"]  # noqa: E731
    assert source("w").text == "w = nn.Parameter(torch.zeros(3))"
    assert source("enc.layers.1.linear1.weight").text.startswith("enc = nn.TransformerEncoder(layer, 2")
    assert cap.tensor("layer.linear1.weight").origin.source.text.startswith("layer = nn.TransformerEncoderLayer(")
    assert torch.nn.Parameter.__dict__["__new__"].__func__.__module__ == "torch.nn.parameter"  # given back
