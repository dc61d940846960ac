"""Tensor records after a run: one per tensor, the fast path describes like the general one, cheap comparisons.

Expected values come from the tensors themselves (plain PyTorch), never from
another record.
"""

from __future__ import annotations

import textwrap

import pytest
import torch

from gradexplorer import capture
from gradexplorer.core.analysis.accounting import same_value
from gradexplorer.core.records.tensors import RecordMaker, finite_norm, format_number, summarize_tensor

SMALL_CAP = 16


def _same_description(a, b) -> bool:
    """Same metadata, values and statistics, NaN equal to NaN (``TensorRecord.__eq__`` compares statistics
    with ``==``, where NaN among the first values never equals itself)."""
    def key(record):
        stats = record.stats
        return (record.shape, record.dtype, record.device, record.requires_grad, record.note,
                None if record.data is None else str(record.data.tolist()), str(stats))
    return key(a) == key(b)


def _general(t: torch.Tensor, *, value_elements: int, note: str = ""):
    """The same record through the general path (a copy, statistics at once when over the cap)."""
    return summarize_tensor(t, value_elements=value_elements, alias=False, note=note)


@pytest.mark.parametrize("make", [
    lambda: torch.tensor(1.5),
    lambda: torch.arange(6, dtype=torch.float64).reshape(2, 3),
    lambda: torch.randn(4, 5, generator=torch.Generator().manual_seed(0)).t(),  # not contiguous
    lambda: torch.randn(40, generator=torch.Generator().manual_seed(1)),  # over the cap: statistics only
    lambda: torch.ones(3, dtype=torch.int64),
    lambda: torch.tensor([True, False]),
    lambda: torch.zeros(3, requires_grad=True),
    lambda: torch.tensor([1.0, float("nan"), float("inf")] * 10),  # over the cap, with NaN/Inf
])
@pytest.mark.parametrize("note", ["", "made in a hook"])
def test_the_fast_path_describes_a_tensor_like_the_general_path(make, note):
    t = make()
    fast = summarize_tensor(t, value_elements=SMALL_CAP, alias=True, note=note)
    general = _general(t, value_elements=SMALL_CAP, note=note)
    assert (fast.shape, fast.dtype, fast.device, fast.requires_grad, fast.note) == (
        tuple(t.shape), str(t.dtype).removeprefix("torch."), "cpu", t.requires_grad, general.note)
    assert _same_description(fast, general)
    if t.numel() <= SMALL_CAP:
        assert fast.data is not None and torch.equal(fast.data, t.detach())
        assert fast.data.data_ptr() == t.data_ptr()  # an alias: no copy
    else:
        assert fast.data is None and "cap: summary only" in fast.note


def test_a_record_maker_describes_each_tensor_once_until_it_changes():
    make = RecordMaker(value_elements=SMALL_CAP)
    t = torch.arange(4.0)
    first = make(t)
    assert make(t) is first
    assert make(t.detach()) is not first  # another tensor object: its own record
    t.add_(1)  # the version counter moves: the record of the old value is not reused
    changed = make(t)
    assert changed is not first and changed.data.tolist() == [1.0, 2.0, 3.0, 4.0]
    with torch.inference_mode():
        frozen = torch.ones(2)
    assert make(frozen) == summarize_tensor(frozen, value_elements=SMALL_CAP, alias=True)  # no version counter


PROGRAM = textwrap.dedent("""\
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x = torch.randn(2, 3)
    loss = model(x).sum()
    loss.backward()
    weight = model[0].weight
""")


def test_a_parameter_has_one_record_wherever_the_capture_shows_it():
    cap = capture(PROGRAM)
    assert cap.ok, cap.error and cap.error.traceback
    namespace = {"torch": torch, "nn": torch.nn}
    exec(PROGRAM, namespace)  # plain PyTorch, for the expected values
    expected = namespace["model"][0].weight
    leaf = cap.graph.nodes[cap.node_named("model.0.weight")]
    info = cap.tensor("weight")
    entry = cap.modules[0].entry("model.0.weight")
    assert leaf["variable"] is info.value is entry.record
    assert leaf["grad"] is info.grad
    assert torch.equal(info.value.data, expected.detach())
    assert torch.allclose(info.grad.data, expected.grad)
    # The gradient the pass delivered is another tensor (AccumulateGrad copies what a hook still holds).
    assert torch.allclose(leaf["accumulation"][0].delivered.data, expected.grad)


def test_a_record_with_its_own_note_is_not_shared():
    """A reentrant checkpoint fills .grad from a backward inside the pass: the delivered record says so, and
    the record of .grad itself (the same tensor) does not."""
    cap = capture(textwrap.dedent("""\
        from torch.utils.checkpoint import checkpoint
        torch.manual_seed(8)
        lin = nn.Linear(3, 3)
        x = torch.randn(2, 3, requires_grad=True)
        y = checkpoint(lambda t: lin(t).tanh(), x, use_reentrant=True)
        y.sum().backward()
    """))
    assert cap.ok, cap.error and cap.error.traceback
    step = cap.graph.nodes[cap.node_named("lin.weight")]["accumulation"][0]
    assert "reentrant torch.utils.checkpoint" in step.delivered.note
    assert step.after is not step.delivered and "reentrant" not in step.after.note
    assert torch.equal(step.after.data, step.delivered.data)


def test_equal_values_over_the_cap_compare_without_statistics():
    t = torch.randn(50, generator=torch.Generator().manual_seed(2))
    a = summarize_tensor(t, value_elements=SMALL_CAP, alias=True)
    b = summarize_tensor(t.clone(), value_elements=SMALL_CAP, alias=True)
    assert same_value(a, b)
    assert a.summary is None and b.summary is None  # decided on the values: no statistics were computed
    changed = t.clone()
    changed[7] += 1.0  # same shape, different values
    assert not same_value(a, summarize_tensor(changed, value_elements=SMALL_CAP, alias=True))


@pytest.mark.parametrize("make", [
    lambda: torch.randn(50, generator=torch.Generator().manual_seed(3)),
    lambda: torch.randn(8, 9, dtype=torch.float64, generator=torch.Generator().manual_seed(4)).t(),
    lambda: torch.arange(40),  # integers: the statistics give the range
    lambda: torch.tensor([1.0, float("nan"), -2.0] * 10),  # NaN: the statistics count it
])
def test_a_label_shows_the_range_without_the_statistics(make):
    t = make()
    label = summarize_tensor(t, value_elements=SMALL_CAP, alias=True)
    text = label.short()
    with_stats = summarize_tensor(t, value_elements=SMALL_CAP, alias=True)
    assert with_stats.stats is not None
    assert text == with_stats.short()  # the same text as from the statistics
    finite = t[torch.isfinite(t)] if t.is_floating_point() else t
    assert f"{format_number(finite.min().item())}..{format_number(finite.max().item())}" in text  # PyTorch's range
    proven_finite = t.is_floating_point() and bool(torch.isfinite(t).all())
    assert (label.summary is None) == proven_finite  # float values proven finite: no statistics computed


@pytest.mark.parametrize("make", [
    lambda: torch.tensor(3.0),
    lambda: torch.zeros(0, 3),
    lambda: torch.randn(70, generator=torch.Generator().manual_seed(5)),
    lambda: torch.randn(6, 9, generator=torch.Generator().manual_seed(6)).t(),  # not contiguous
    lambda: torch.randn(2, 3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(7)),
    lambda: torch.randn(5, 5, generator=torch.Generator().manual_seed(8))[::2, 1:],  # a strided slice
])
def test_finite_norm_is_pytorchs_norm(make):
    t = make()
    assert finite_norm(t) == pytest.approx(t.double().norm().item(), rel=1e-6, abs=1e-12)


def test_finite_norm_refuses_what_it_cannot_prove_finite():
    assert finite_norm(torch.tensor([1.0, float("nan")])) is None
    assert finite_norm(torch.tensor([[float("inf")]])) is None
    assert finite_norm(torch.arange(3)) is None  # not float32/float64
    assert finite_norm(torch.ones(2, dtype=torch.float16)) is None
