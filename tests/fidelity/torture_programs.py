"""The torture suite: real training-loop patterns, each checked against a plain PyTorch run.

Every :class:`Program` is run twice: by gradexplorer (``capture``) in the test
process, and by ``reference_run.py`` in a separate plain-PyTorch process. The
numbers compared (per-pass ``.grad`` before/after and the delivered gradient,
final ``.grad``, values, ``autograd.grad`` results, passes, errors) come from
the reference; what is written here by hand is only the reason code a person
expects and words the sentence must (not) contain.

``in_pass_edits``: a hook changes ``.grad`` inside a pass (an optimizer step in
a post-accumulate hook), so "delivered" is not ``after - before`` there; the
before/after copies are still compared.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Program:
    name: str
    code: str
    codes: dict[str, str] = field(default_factory=dict)
    says: dict[str, tuple[str, ...]] = field(default_factory=dict)
    never_says: dict[str, tuple[str, ...]] = field(default_factory=dict)
    in_pass_edits: bool = False


def _p(name, code, codes=None, says=None, never_says=None, **kw) -> Program:
    return Program(name, textwrap.dedent(code).strip() + "\n", codes or {}, says or {}, never_says or {}, **kw)


PROGRAMS: list[Program] = [
    # -- per-pass accounting -------------------------------------------------------------
    _p("three_passes_no_zero_grad", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        for i in range(3):
            loss = (w * (i + 1)).sum()
            loss.backward()
    """, {"w": "grad_accumulated"}, {"w": ("sum over 3 backward passes",)}),
    _p("backward_on_leaf_itself_twice", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        w.backward(torch.tensor([1.0, 1.0]))
        w.backward(torch.tensor([2.0, 3.0]))
    """, {"w": "grad_accumulated"}),
    _p("sum_of_leaf_twice", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        w.sum().backward()
        w.sum().backward()
        w.sum().backward()
    """, {"w": "grad_accumulated"}),
    _p("retain_grad_intermediate_two_passes", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        for i in range(2):
            h = w * 3
            h.retain_grad()
            (h * h).sum().backward()
    """, {"w": "grad_accumulated", "h": "retains_grad"}),
    _p("retain_grad_one_pass", """
        w = torch.tensor(2.0, requires_grad=True)
        h = w.exp()
        h.retain_grad()
        (h * 2).backward()
    """, {"w": "leaf_grad", "h": "retains_grad"}),
    _p("preexisting_grad", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        w.grad = torch.tensor([10.0, 10.0])
        (w * 2).sum().backward()
    """, {"w": "grad_accumulated"}, {"w": ("already held [10, 10]",)}, {"w": ("filled",)}),
    _p("clip_between_passes", """
        w = torch.tensor([3.0, 4.0], requires_grad=True)
        (w * w).sum().backward()
        torch.nn.utils.clip_grad_norm_([w], 1.0)
        (w * 2).sum().backward()
    """, {"w": "grad_edited"}, {"w": ("changed by your code between passes",)}, {"w": ("reset",)}),
    _p("scale_grad_between_passes", """
        w = torch.tensor([1.0, 1.0], requires_grad=True)
        (w * 4).sum().backward()
        w.grad.mul_(0.5)
        (w * 4).sum().backward()
    """, {"w": "grad_edited"}),
    _p("scale_after_last_pass", """
        w = torch.tensor([1.0, 1.0], requires_grad=True)
        (w * 4).sum().backward()
        w.grad *= 0.25
    """, {"w": "grad_edited"}),
    _p("grad_none_between_passes", """
        w = torch.tensor(1.0, requires_grad=True)
        (w * 2).backward()
        w.grad = None
        (w * 3).backward()
    """, {"w": "grad_reset"}, {"w": ("holds only pass(es) 2",)}),
    _p("zero_grad_set_to_none_false", """
        torch.manual_seed(0)
        lin = nn.Linear(3, 2)
        opt = torch.optim.SGD(lin.parameters(), lr=0.1)
        x = torch.randn(4, 3)
        for step in range(3):
            opt.zero_grad(set_to_none=False)
            lin(x).pow(2).mean().backward()
            opt.step()
    """, {"lin.weight": "grad_reset", "lin.bias": "grad_reset"}),
    _p("sgd_training_loop", """
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        x, y = torch.randn(16, 4), torch.randn(16, 1)
        for step in range(4):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
    """, {"model.0.weight": "grad_reset", "x": "no_requires_grad"}),
    _p("adam_training_loop", """
        torch.manual_seed(1)
        model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        x = torch.randn(8, 3)
        target = torch.randint(0, 2, (8,))
        for step in range(3):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(x), target)
            loss.backward()
            opt.step()
    """, {"model.2.bias": "grad_reset", "target": "integer_dtype"}),
    _p("gradient_accumulation_microbatches", """
        torch.manual_seed(2)
        lin = nn.Linear(2, 1)
        opt = torch.optim.SGD(lin.parameters(), lr=0.1)
        data = torch.randn(6, 2)
        opt.zero_grad()
        for chunk in data.split(2):
            (lin(chunk).sum() / 3).backward()
        opt.step()
    """, {"lin.weight": "grad_accumulated"}, {"lin.weight": ("sum over 3 backward passes",)}),
    _p("leaf_used_twice_in_one_graph", """
        x = torch.tensor([1.0, -2.0], requires_grad=True)
        (x * x + x).sum().backward()
    """, {"x": "leaf_grad"}),
    _p("retain_graph_two_passes", """
        x = torch.tensor(2.0, requires_grad=True)
        y = x ** 3
        y.backward(retain_graph=True)
        y.backward()
    """, {"x": "grad_accumulated"}),
    _p("grad_tensors_argument", """
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        torch.autograd.backward([y], [torch.tensor([1.0, 0.5, 0.25])])
    """, {"x": "leaf_grad"}),
    _p("two_losses_one_backward", """
        a = torch.tensor(1.5, requires_grad=True)
        l1, l2 = a * 2, a ** 2
        torch.autograd.backward([l1, l2])
    """, {"a": "leaf_grad"}),
    # -- passes that raise ---------------------------------------------------------------
    _p("inplace_on_saved_tensor", """
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.mul_(2)
        z = (y * x).sum()
        z.backward()
    """, {"x": "pass_raised"}, {"x": ("raised before reaching it",)}),
    _p("backward_twice_freed_graph", """
        x = torch.tensor(3.0, requires_grad=True)
        y = x * x
        y.backward()
        y.backward()
    """, {"x": "leaf_grad"}, {"x": ("filled its .grad with 6",)}),
    _p("hook_raises_after_partial_delivery", """
        a = torch.tensor(1.0, requires_grad=True)
        b = torch.tensor(2.0, requires_grad=True)
        hb = b * 3
        def broken(g):
            raise ValueError("hook failed")
        hb.register_hook(broken)
        loss = a * 5 + hb.exp()
        try:
            loss.backward()
        except ValueError:
            pass
    """, {"b": "pass_raised"}),
    _p("detect_anomaly_nan", """
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        w = torch.tensor(2.0, requires_grad=True)
        with torch.autograd.detect_anomaly():
            y = torch.sqrt(x)
            loss = (y * 0).sum() + w * 3
            loss.backward()
    """, {"x": "pass_raised"}),
    _p("once_differentiable_twice", """
        from torch.autograd.function import once_differentiable
        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x
            @staticmethod
            @once_differentiable
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x = torch.tensor(3.0, requires_grad=True)
        y = Square.apply(x)
        (gx,) = torch.autograd.grad(y, x, create_graph=True)
        gx.backward()
    """, {"gx": "gradient_tensor", "x": "grad_returned"}, {"gx": ("@once_differentiable", "raised at line 15")}),
    _p("custom_backward_raises", """
        class Bad(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, g):
                raise RuntimeError("no backward for you")
        w = torch.tensor(1.0, requires_grad=True)
        v = torch.tensor(1.0, requires_grad=True)
        out = Bad.apply(w) + v * 4
        out.backward()
    """, {"w": "pass_raised"}),
    _p("second_pass_raises_after_first_ok", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (w * 2).sum().backward()
        y = w.sigmoid()
        y.add_(1)
        try:
            y.sum().backward()
        except RuntimeError:
            pass
    """, {"w": "leaf_grad"}, {"w": ("raised before reaching it",)}),
    _p("backward_on_no_grad_result", """
        a = torch.tensor(1.0, requires_grad=True)
        with torch.no_grad():
            b = a + 0
        b.backward()
    """, {"b": "no_grad", "a": "leaf_unreachable"}),
    # -- autograd.grad and inputs= --------------------------------------------------------
    _p("autograd_grad_returns", """
        x = torch.tensor(3.0, requires_grad=True)
        (g,) = torch.autograd.grad(x * x, [x])
    """, {"x": "grad_returned"}, {"x": ("instead of adding it to .grad",)}, {"x": ("not on the backward path",)}),
    _p("backward_inputs_excludes", """
        a = torch.tensor(1.0, requires_grad=True)
        b = torch.tensor(2.0, requires_grad=True)
        (a * b).backward(inputs=[a])
    """, {"a": "leaf_grad", "b": "leaf_excluded"}, {"b": ("inputs=[a]",)}),
    _p("autograd_grad_allow_unused", """
        a = torch.tensor(1.0, requires_grad=True)
        b = torch.tensor(2.0, requires_grad=True)
        ga, gb = torch.autograd.grad(a * 3, [a, b], allow_unused=True)
    """, {"a": "grad_returned"}),
    _p("double_backward", """
        x = torch.tensor(2.0, requires_grad=True)
        y = x ** 3
        (dx,) = torch.autograd.grad(y, x, create_graph=True)
        dx.backward()
    """, {"x": "leaf_grad"}, {"x": ("filled its .grad with 12",)}),
    _p("autograd_grad_then_backward", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (g,) = torch.autograd.grad((w ** 2).sum(), w)
        (w * 5).sum().backward()
    """, {"w": "leaf_grad"}),
    _p("gradient_penalty", """
        torch.manual_seed(3)
        lin = nn.Linear(2, 1)
        x = torch.randn(4, 2, requires_grad=True)
        out = lin(x).sum()
        (gx,) = torch.autograd.grad(out, x, create_graph=True)
        penalty = (gx.norm(dim=1) - 1).pow(2).mean()
        (out + penalty).backward()
    """),
    # -- threads -------------------------------------------------------------------------
    _p("backward_in_thread", """
        import threading
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        def work():
            (w * 3).sum().backward()
        t = threading.Thread(target=work)
        t.start(); t.join()
    """, {"w": "leaf_grad"}, {"w": ("in thread",)}),
    _p("forward_and_backward_in_thread", """
        import threading
        torch.manual_seed(4)
        model = nn.Linear(3, 1)
        x = torch.randn(5, 3)
        def train():
            model(x).pow(2).sum().backward()
        th = threading.Thread(target=train)
        th.start(); th.join()
    """, {"model.weight": "leaf_grad"}),
    _p("thread_pool_backward", """
        from concurrent.futures import ThreadPoolExecutor
        ws = [torch.tensor(float(i), requires_grad=True) for i in range(3)]
        def job(w):
            (w * w).backward()
            return w.grad.item()
        with ThreadPoolExecutor(1) as pool:  # one worker: per-pass .grad copies are well defined
            out = list(pool.map(job, ws))
    """, {"ws[0]": "leaf_grad", "ws[2]": "leaf_grad"}),
    _p("two_threads_two_leaves", """
        import threading
        a = torch.tensor(1.0, requires_grad=True)
        b = torch.tensor(2.0, requires_grad=True)
        ta = threading.Thread(target=lambda: (a * 7).backward())
        tb = threading.Thread(target=lambda: (b * 11).backward())
        ta.start(); ta.join(); tb.start(); tb.join()
    """, {"a": "leaf_grad", "b": "leaf_grad"}),
    # -- hooks ---------------------------------------------------------------------------
    _p("module_full_backward_hook_scales", """
        torch.manual_seed(5)
        lin = nn.Linear(3, 2)
        lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 10,))
        x = torch.randn(4, 3, requires_grad=True)
        lin(x).sum().backward()
    """, {"x": "leaf_grad"}),
    _p("module_forward_hook_scales_output", """
        torch.manual_seed(6)
        lin = nn.Linear(2, 2)
        lin.register_forward_hook(lambda m, inp, out: out * 2)
        x = torch.randn(3, 2)
        lin(x).sum().backward()
    """, {"lin.weight": "leaf_grad"}),
    _p("module_full_backward_pre_hook", """
        torch.manual_seed(7)
        lin = nn.Linear(2, 2)
        lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 0.5,))
        lin(torch.randn(3, 2)).sum().backward()
    """, {"lin.bias": "leaf_grad"}),
    _p("optimizer_in_backward_post_accumulate", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        def step(p):
            seen.append(p.grad.clone())
            with torch.no_grad():
                p -= 0.1 * p.grad
            p.grad = None
        w.register_post_accumulate_grad_hook(step)
        for i in range(2):
            (w * w).sum().backward()
    """, {"w": "grad_consumed"}, in_pass_edits=True),
    _p("post_accumulate_hook_scales_grad", """
        w = torch.tensor([1.0, 3.0], requires_grad=True)
        def halve(p):
            p.grad.mul_(0.5)
        w.register_post_accumulate_grad_hook(halve)
        (w * 4).sum().backward()
    """, {"w": "grad_edited"}, in_pass_edits=True),
    _p("tensor_hook_inplace", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        h = w * 3
        def double_in_place(g):
            g.mul_(2)
        h.register_hook(double_in_place)
        (h * 1.0).sum().backward()
    """, {"h": "hook_modified"}, {"h": ("changed in place",)}, {"h": ("unchanged",)}),
    _p("tensor_hook_returns_new", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        h = w * 3
        h.register_hook(lambda g: g * 100)
        h.sum().backward()
    """, {"h": "hook_modified", "w": "leaf_grad"}),
    _p("leaf_hook_zeroes", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        w.register_hook(lambda g: torch.zeros_like(g))
        (w * 5).sum().backward()
    """, {"w": "hook_modified"}),
    _p("node_prehook", """
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.grad_fn.register_prehook(lambda go: (go[0] * 3,))
        y.sum().backward()
    """, {"x": "leaf_grad"}),
    _p("hook_keeps_gradient", """
        grads = {}
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        d = w * 2
        d.register_hook(lambda g: grads.__setitem__("d", g))
        (d * 1.3).sum().backward()
    """, {"grads['d']": "gradient_tensor"}, never_says={"grads['d']": ("requires_grad=True",)}),
    # -- library-internal autograd --------------------------------------------------------
    _p("torch_func_grad", """
        from torch.func import grad
        x = torch.tensor([1.0, 2.0, 3.0])
        g = grad(lambda t: (t ** 3).sum())(x)
        w = torch.tensor(2.0, requires_grad=True)
        (w * g).sum().backward()
    """, {"w": "leaf_grad"}),
    _p("torch_func_vmap_grad", """
        from torch.func import grad, vmap
        x = torch.tensor([0.1, 0.2, 0.3])
        gs = vmap(grad(torch.sin))(x)
        w = torch.tensor(1.0, requires_grad=True)
        (w * gs).sum().backward()
    """, {"w": "leaf_grad"}),
    _p("checkpoint_reentrant", """
        from torch.utils.checkpoint import checkpoint
        torch.manual_seed(8)
        lin = nn.Linear(3, 3)
        x = torch.randn(2, 3, requires_grad=True)
        y = checkpoint(lambda t: lin(t).tanh(), x, use_reentrant=True)
        y.sum().backward()
    """, {"lin.weight": "leaf_grad", "x": "leaf_grad"}),
    _p("checkpoint_non_reentrant", """
        from torch.utils.checkpoint import checkpoint
        torch.manual_seed(9)
        lin = nn.Linear(3, 3)
        x = torch.randn(2, 3, requires_grad=True)
        y = checkpoint(lambda t: lin(t).tanh(), x, use_reentrant=False)
        y.sum().backward()
    """, {"lin.weight": "leaf_grad", "x": "leaf_grad"}),
    _p("torch_compile_eager_backend", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        def f(x):
            return (x.sin() * w).sum()
        cf = torch.compile(f, backend="aot_eager")
        x = torch.tensor([0.5, 1.5], requires_grad=True)
        loss = cf(x)
        loss.backward()
    """, {"w": "leaf_grad", "x": "leaf_grad"}),
    # -- snapshots of unusual tensors -----------------------------------------------------
    _p("conjugate_view_as_real", """
        z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        c = z.conj()
        r = torch.view_as_real(c.resolve_conj())
        r.sum().backward()
        zc = torch.tensor([1 + 1j, 2 + 0j]).conj()
    """),
    _p("complex_gradients", """
        z = torch.tensor([1 + 1j, 2 - 3j], requires_grad=True)
        loss = (z * z.conj()).real.sum()
        loss.backward()
    """, {"z": "leaf_grad"}),
    # -- names ---------------------------------------------------------------------------
    _p("names_on_objects_and_dicts", """
        from types import SimpleNamespace
        from dataclasses import dataclass
        class State:
            pass
        @dataclass
        class Box:
            t: torch.Tensor
        state = State()
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        state.hidden = w * 2
        ns = SimpleNamespace(c=w * 3)
        box = Box(w * 5)
        results = {}
        results['y'] = w * 4
        loss = (state.hidden + ns.c + results['y'] + box.t).sum()
        loss.backward()
    """, {"state.hidden": "intermediate", "ns.c": "intermediate", "results['y']": "intermediate",
          "box.t": "intermediate"}),
    _p("requires_grad_off_after_use", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (w * 2).sum().backward()
        w.requires_grad_(False)
    """, {"w": "grad_switched_off"}, never_says={"w": ("the default",)}),
    # -- sentences -----------------------------------------------------------------------
    _p("set_grad_enabled_false", """
        a = torch.tensor(1.0, requires_grad=True)
        with torch.set_grad_enabled(False):
            b = a * 2
    """, {"b": "no_grad"}, {"b": ("torch.set_grad_enabled(False)",)}, {"b": ("under torch.no_grad()",)}),
    _p("mark_dirty_output", """
        class AddOneInPlace(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x
            @staticmethod
            def backward(ctx, g):
                return g
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        y = a.clone()
        z = AddOneInPlace.apply(y)
        z.sum().backward()
    """, {"z": "alias"}, {"z": ("mark_dirty",)}, {"z": ("`z = y`",)}),
    _p("inplace_changes_grad_fn_line", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        h = w * 2
        h.pow_(2)
        h.sum().backward()
    """, {"h": "intermediate"}, {"h": ("line 3",)}, {"h": ("line 2",)}),
    _p("last_pass_never_reached", """
        a = torch.tensor(1.0, requires_grad=True)
        b = torch.tensor(2.0, requires_grad=True)
        h = a * 3
        (h * 2).backward()
        (b * 4).backward()
    """, {"h": "intermediate"}, {"h": ("pass 1, the last one that reached it",)}, {"h": ("in the last pass",)}),
    _p("batchnorm_running_stats", """
        torch.manual_seed(10)
        bn = nn.BatchNorm1d(3)
        x = torch.randn(8, 3)
        bn(x).pow(2).sum().backward()
    """, {"bn.running_mean": "buffer", "bn.weight": "leaf_grad", "x": "no_requires_grad"},
       never_says={"bn.running_mean": ("Pass requires_grad=True",)}),
    _p("leaf_line_is_where_made", """
        w = torch.tensor(2.0, requires_grad=True)
        y = w * w

        y.backward()
    """, {"w": "leaf_grad"}),
    # -- real models ---------------------------------------------------------------------
    _p("transformer_encoder_step", """
        torch.manual_seed(11)
        layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
        model = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        x = torch.randn(2, 5, 8)
        for step in range(2):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
    """, {"model.layers.0.linear1.weight": "grad_reset"}),
    _p("resnet_block_step", """
        torch.manual_seed(12)
        class Block(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
                self.bn1 = nn.BatchNorm2d(c)
                self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
                self.bn2 = nn.BatchNorm2d(c)
            def forward(self, x):
                out = torch.relu(self.bn1(self.conv1(x)))
                return torch.relu(x + self.bn2(self.conv2(out)))
        net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), Block(4), Block(4), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                            nn.Linear(4, 3))
        x = torch.randn(2, 1, 6, 6)
        loss = nn.functional.cross_entropy(net(x), torch.tensor([0, 2]))
        loss.backward()
    """, {"net.1.conv1.weight": "leaf_grad", "net.1.bn1.running_var": "buffer"}),
    _p("unrolled_lstm_step", """
        torch.manual_seed(13)
        cell = nn.LSTMCell(3, 4)
        head = nn.Linear(4, 1)
        xs = torch.randn(5, 2, 3)
        h = torch.zeros(2, 4)
        c = torch.zeros(2, 4)
        for t in range(5):
            h, c = cell(xs[t], (h, c))
        loss = head(h).pow(2).mean()
        loss.backward()
    """, {"cell.weight_ih": "leaf_grad", "head.bias": "leaf_grad"}),
    _p("frozen_layer", """
        torch.manual_seed(14)
        model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
        model[0].requires_grad_(False)
        model(torch.randn(3, 2)).sum().backward()
    """, {"model.0.weight": "grad_switched_off", "model.1.weight": "leaf_grad"}),
    _p("detached_target", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        target = (w * 2).detach()
        ((w - target) ** 2).sum().backward()
    """, {"target": "detached", "w": "leaf_grad"}),
    # -- optimizers, scalers, closures and edits of .grad -----------------------------------
    _p("gradscaler_unscale_then_clip", """
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
        x = torch.randn(16, 4)
        y = torch.randn(16, 1)
        for step in range(2):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            scaler.step(opt)
            scaler.update()
    """, {"model.0.weight": "grad_edited", "model.2.bias": "grad_edited"},
       {"model.0.weight": ("your code then changed it",)}),
    _p("lbfgs_closure_runs_several_passes", """
        torch.manual_seed(0)
        w = torch.randn(3, requires_grad=True)
        x = torch.randn(10, 3)
        y = x @ torch.tensor([1.0, -2.0, 0.5])
        opt = torch.optim.LBFGS([w], lr=0.5, max_iter=4)
        def closure():
            opt.zero_grad()
            loss = ((x @ w - y) ** 2).mean()
            loss.backward()
            return loss
        opt.step(closure)
    """, {"w": "grad_reset"}),
    _p("zero_grad_keeps_tensors_then_two_micro_batches", """
        torch.manual_seed(0)
        lin = nn.Linear(3, 2)
        opt = torch.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9)
        x = torch.randn(5, 3)
        for step in range(3):
            opt.zero_grad(set_to_none=False)
            for micro in range(2):
                lin(x[micro:micro + 3]).pow(2).sum().backward()
            opt.step()
    """, {"lin.weight": "grad_reset", "lin.bias": "grad_reset"}, {"lin.weight": ("holds only pass(es) 5, 6",)}),
    _p("adam_foreach_maximize_weight_decay", """
        torch.manual_seed(0)
        lin = nn.Linear(3, 3)
        opt = torch.optim.Adam(lin.parameters(), lr=0.01, weight_decay=0.1, maximize=True, foreach=True)
        x = torch.randn(4, 3)
        for step in range(2):
            opt.zero_grad()
            (-lin(x).pow(2).mean()).backward()
            opt.step()
    """, {"lin.weight": "grad_reset"}),
    _p("gradient_penalty_create_graph", """
        torch.manual_seed(0)
        d = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
        x = torch.randn(6, 2, requires_grad=True)
        out = d(x).sum()
        g, = torch.autograd.grad(out, x, create_graph=True)
        penalty = ((g.norm(dim=1) - 1) ** 2).mean()
        loss = out + 10 * penalty
        loss.backward()
    """, {"d.0.weight": "leaf_grad", "x": "leaf_grad", "g": "intermediate"}),
    _p("grad_data_scaled_in_place_between_passes", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (w * 3).sum().backward()
        w.grad.data.mul_(0.5)
        (w * w).sum().backward()
    """, {"w": "grad_edited"}, {"w": ("before pass 2 it was [1.5, 1.5]",)}),
    _p("weight_norm_parametrization", """
        torch.manual_seed(0)
        lin = torch.nn.utils.parametrizations.weight_norm(nn.Linear(3, 2))
        x = torch.randn(4, 3)
        for _ in range(2):
            lin.zero_grad()
            lin(x).sum().backward()
    """, {"lin.parametrizations.weight.original0": "grad_reset", "lin.bias": "grad_reset"}),
    _p("ema_copy_updated_under_no_grad", """
        torch.manual_seed(0)
        net = nn.Linear(2, 2)
        ema = nn.Linear(2, 2)
        ema.load_state_dict(net.state_dict())
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        x = torch.randn(3, 2)
        for _ in range(2):
            opt.zero_grad()
            net(x).pow(2).sum().backward()
            opt.step()
            with torch.no_grad():
                for pe, p in zip(ema.parameters(), net.parameters()):
                    pe.mul_(0.9).add_(p, alpha=0.1)
    """, {"net.weight": "grad_reset", "ema.weight": "leaf_unreachable", "p": "alias", "pe": "alias"},
       {"ema.weight": ("a SumBackward0 result at line 9",), "p": ("the loop at line 12", "still gets a gradient"),
        "pe": ("the loop at line 12", "shares what is said of ema.bias")},
       {"p": ("an op", "in-place"), "pe": ("gets a gradient",)}),
    _p("optimizer_step_in_post_accumulate_hooks", """
        torch.manual_seed(0)
        model = nn.Linear(3, 2)
        opts = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters()}
        def step(p):
            opts[p].step()
            opts[p].zero_grad()
        for p in model.parameters():
            p.register_post_accumulate_grad_hook(step)
        x = torch.randn(4, 3)
        for _ in range(2):
            model(x).sum().backward()
    """, {"model.weight": "grad_consumed", "model.bias": "grad_consumed"}, in_pass_edits=True),
    _p("grad_replaced_by_a_scaled_copy", """
        w = torch.tensor([1.0, -1.0], requires_grad=True)
        (w * 2).sum().backward()
        saved = w.grad
        w.grad = w.grad.clone() * 10
        (w * 4).sum().backward()
    """, {"w": "grad_edited"}, {"w": ("before pass 2 it was [20, 20]",)}),
    _p("grad_edited_then_zeroed_holds_only_the_later_pass", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (w * 2).sum().backward()
        w.grad += 1
        (w * 3).sum().backward()
        w.grad.zero_()
        (w * 5).sum().backward()
    """, {"w": "grad_reset"}, {"w": ("holds only pass(es) 3",)}, {"w": ("not a plain sum",)}),
    _p("grad_edited_after_a_reset_is_the_one_told", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (w * 2).sum().backward()
        w.grad += 1
        (w * 3).sum().backward()
        w.grad.zero_()
        (w * 5).sum().backward()
        w.grad.mul_(2)
        (w * 7).sum().backward()
    """, {"w": "grad_edited"}, {"w": ("before pass 4 it was [10, 10]",)}, {"w": ("before pass 2",)}),
    _p("sparse_embedding_accumulates", """
        torch.manual_seed(0)
        emb = nn.Embedding(6, 3, sparse=True)
        idx = torch.tensor([0, 2, 2, 5])
        for _ in range(2):
            emb(idx).pow(2).sum().backward()
    """, {"emb.weight": "grad_accumulated"}),
    _p("sparse_embedding_sgd", """
        torch.manual_seed(0)
        emb = nn.Embedding(6, 3, sparse=True)
        opt = torch.optim.SGD(emb.parameters(), lr=0.1)
        for i in range(2):
            opt.zero_grad()
            emb(torch.tensor([i, 3])).sum().backward()
            opt.step()
    """, {"emb.weight": "grad_reset"}),
    _p("autocast_bfloat16_on_cpu", """
        torch.manual_seed(0)
        lin = nn.Linear(4, 4)
        x = torch.randn(3, 4)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = lin(x)
        loss = out.float().pow(2).mean()
        loss.backward()
    """, {"lin.weight": "leaf_grad", "out": "intermediate"}, {"out": ("bfloat16",)}),
    _p("clip_grad_value_then_another_pass", """
        torch.manual_seed(0)
        lin = nn.Linear(3, 2)
        x = torch.randn(4, 3)
        lin(x).pow(2).sum().backward()
        torch.nn.utils.clip_grad_value_(lin.parameters(), 0.5)
        lin(x).sum().backward()
    """, {"lin.weight": "grad_edited", "lin.bias": "grad_edited"}, {"lin.bias": ("before pass 2 it was [-0.5, 0.5]",)}),
    _p("mixed_dtype_leaves_two_passes", """
        w = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        v = torch.tensor([0.5, 0.25], dtype=torch.float32, requires_grad=True)
        (w * v).sum().backward()
        (w * v * 2).sum().backward()
    """, {"w": "grad_accumulated", "v": "grad_accumulated"}),
    _p("first_grad_kept_by_name_then_accumulated", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (w * 2).sum().backward()
        first = w.grad
        (w * 3).sum().backward()
    """, {"w": "grad_accumulated"}),
    _p("tied_embedding_and_head_weights", """
        torch.manual_seed(0)
        emb = nn.Embedding(5, 3)
        head = nn.Linear(3, 5, bias=False)
        head.weight = emb.weight
        x = torch.tensor([1, 2])
        for _ in range(2):
            head(emb(x)).logsumexp(-1).sum().backward()
    """, {"emb.weight": "grad_accumulated", "head.weight": "alias"}),
    _p("manual_sgd_under_no_grad_then_zero_", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        for _ in range(3):
            loss = (w ** 2).sum()
            loss.backward()
            with torch.no_grad():
                w -= 0.1 * w.grad
                w.grad.zero_()
    """, {"w": "grad_reset"}, {"w": ("reset after the last one",)}),
    # -- views made under no_grad, library hooks, failing and threaded passes -------------------
    _p("leaf_slice_scaled_under_no_grad_between_passes", """
        w = torch.ones(4, requires_grad=True)
        (w * torch.arange(4.0)).sum().backward()
        with torch.no_grad():
            w[:2].mul_(10)
        (w * w).sum().backward()
    """, {"w": "grad_accumulated"}),
    _p("named_no_grad_view_changed_in_place", """
        w = torch.ones(4, requires_grad=True)
        with torch.no_grad():
            v = w[:2]
            v.mul_(10)
        loss = (w * 3).sum()
        loss.backward()
    """, {"w": "leaf_grad", "v": "view_no_grad"}),
    _p("prune_recomputes_weight_in_a_pre_hook", """
        torch.manual_seed(0)
        import torch.nn.utils.prune as prune
        lin = nn.Linear(4, 2)
        prune.l1_unstructured(lin, name="weight", amount=0.5)
        lin(torch.randn(3, 4)).sum().backward()
    """, {"lin.weight_orig": "leaf_grad", "lin.weight_mask": "buffer", "lin.weight": "intermediate"}),
    _p("retain_grad_on_a_view_changed_in_place", """
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 2
        v = b[1:]
        v.retain_grad()
        v.mul_(3)
        b.sum().backward()
    """, {"a": "leaf_grad", "b": "intermediate"}, {"b": ("its grad_fn is now CopySlices",)},
       {"b": ("CopySlices at line",)}),
    _p("hook_raises_in_the_second_of_three_steps", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        calls = []
        def hook(g):
            calls.append(1)
            if len(calls) == 2:
                raise ValueError("bad grad")
            return g
        for i in range(3):
            y = w * (i + 1)
            y.register_hook(hook)
            try:
                y.sum().backward()
            except ValueError:
                pass
    """, {"w": "grad_accumulated"}, {"w": ("passes 1, 3", "raised before reaching it")}),
    _p("inplace_on_a_saved_tensor_raises_in_backward", """
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = a.sigmoid()
        c = b * 2
        b.mul_(3)
        c.sum().backward()
    """, {"a": "pass_raised"}),
    _p("thread_pool_training_steps", """
        import concurrent.futures
        torch.manual_seed(0)
        lin = nn.Linear(2, 1)
        x = torch.randn(4, 2)
        def step(k):
            (lin(x) * k).sum().backward()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            list(pool.map(step, [1.0, 2.0]))
    """, {"lin.weight": "grad_accumulated"}),
    _p("spectral_norm_parametrization", """
        torch.manual_seed(0)
        lin = torch.nn.utils.parametrizations.spectral_norm(nn.Linear(3, 3))
        x = torch.randn(2, 3)
        for _ in range(2):
            lin.zero_grad()
            lin(x).pow(2).sum().backward()
    """, {"lin.parametrizations.weight.original": "grad_reset", "lin.parametrizations.weight.0._u": "buffer"}),
    _p("full_backward_hook_halves_grad_input", """
        torch.manual_seed(0)
        lin = nn.Linear(2, 2)
        def halve(module, grad_input, grad_output):
            return tuple(None if g is None else g * 0.5 for g in grad_input)
        lin.register_full_backward_hook(halve)
        x = torch.randn(3, 2, requires_grad=True)
        lin(x).sum().backward()
    """, {"lin.weight": "leaf_grad", "x": "leaf_grad"}),
    _p("checkpoint_sequential_non_reentrant", """
        torch.manual_seed(0)
        from torch.utils.checkpoint import checkpoint_sequential
        model = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3), nn.Tanh())
        x = torch.randn(2, 3, requires_grad=True)
        out = checkpoint_sequential(model, 2, x, use_reentrant=False)
        out.sum().backward()
    """, {"model.0.weight": "leaf_grad", "x": "leaf_grad"}),
    _p("leaf_hook_clamps_one_pass_of_two", """
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        w.register_hook(lambda g: g.clamp(-1, 1))
        for k in (3.0, 0.5):
            (w * k).sum().backward()
    """, {"w": "hook_modified"}, {"w": ("in pass 1", "Over all passes: w's .grad", "sum over 2 backward passes")}),
    _p("two_roots_with_grad_tensors", """
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        l1 = (x * 2).sum()
        l2 = (x ** 2).sum()
        torch.autograd.backward([l1, l2], [torch.tensor(1.0), torch.tensor(0.5)])
    """, {"x": "leaf_grad", "l2": "intermediate"}, {"l2": ("was 0.5",)}),
    _p("second_order_through_grad_of_create_graph", """
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        (w ** 3).sum().backward(create_graph=True)
        g = w.grad
        w.grad = None
        g.sum().backward()
    """, {"w": "grad_reset"}),
    _p("functional_call_with_a_params_dict", """
        torch.manual_seed(0)
        from torch.func import functional_call
        lin = nn.Linear(2, 1)
        params = {k: v.detach().clone().requires_grad_() for k, v in lin.named_parameters()}
        out = functional_call(lin, params, (torch.randn(3, 2),))
        out.sum().backward()
    """, {"lin.weight": "leaf_unreachable", "params['weight']": "leaf_grad"}),
    _p("batchnorm_train_then_eval_passes", """
        torch.manual_seed(0)
        bn = nn.BatchNorm1d(3)
        x = torch.randn(5, 3)
        bn(x).sum().backward()
        bn.eval()
        bn(x).pow(2).sum().backward()
    """, {"bn.weight": "grad_accumulated", "bn.running_mean": "buffer"}),
    # -- issue 28: values and sentences around the gradients --------------------------------------
    _p("resnet_pattern_batchnorm_then_inplace_relu", """
        torch.manual_seed(0)
        block = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(inplace=True))
        bn_out = block[1](block[0](torch.randn(2, 1, 5, 5)))
        out = block[2](bn_out)
        out.mean().backward()
    """, {"block.0.weight": "leaf_grad", "bn_out": "intermediate", "out": "alias"},
       {"out": ("an in-place op",)}),
    _p("argmax_accuracy_as_a_loss", """
        torch.manual_seed(0)
        head = nn.Linear(4, 3)
        scores = head(torch.randn(5, 4))
        labels = torch.tensor([0, 1, 2, 1, 0])
        accuracy = (scores.argmax(dim=1) == labels).float().mean()
        try:
            accuracy.backward()
        except RuntimeError:
            pass
    """, {"accuracy": "graph_cut", "head.weight": "graph_cut"},
       {"accuracy": ("`argmax`", "would only hide the error"), "head.weight": ("accuracy was computed from it",)},
       {"head.weight": ("Check that it is used",)}),
    _p("a_loss_rebuilt_from_item", """
        w = torch.tensor([0.5, 1.5], requires_grad=True)
        value = (w ** 2).sum().item()
        loss = torch.tensor(value, requires_grad=False) * 3
        try:
            loss.backward()
        except RuntimeError:
            pass
    """, {"loss": "graph_cut", "w": "graph_cut"}, {"loss": (".item()",)}),
    _p("a_raising_pass_is_blamed_not_the_layer", """
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(3, 4), nn.Sigmoid(), nn.Linear(4, 1))
        h = net[1](net[0](torch.randn(2, 3)))
        h.mul_(2)
        try:
            net[2](h).sum().backward()
        except RuntimeError:
            pass
    """, {"net.0.weight": "pass_raised", "net.2.weight": "leaf_grad"}),
    _p("allow_unused_returns_none", """
        x = torch.tensor(2.0, requires_grad=True)
        unused = torch.tensor(3.0, requires_grad=True)
        gx, gu = torch.autograd.grad(x * x, [x, unused], allow_unused=True)
    """, {"unused": "grad_returned"}, {"unused": ("returned None",)},
       {"unused": ("if you want it accumulated",)}),
]
