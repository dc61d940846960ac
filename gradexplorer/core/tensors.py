"""Frozen summaries of tensors, taken at the moment they matter.

A :class:`TensorRecord` is what gradexplorer shows for a forward value, a
gradient or a saved tensor: shape, dtype, device, summary statistics and, for
small tensors, a full CPU copy of the values. Records are immutable and never
hold a reference to the user's tensor, so

* a later in-place change (``x.add_(1)``, an optimizer step) cannot alter what
  was recorded, and
* a record can cross threads and be saved without keeping GPU memory alive.

Taking a record happens in two steps, because the first one runs once per
torch op inside the user's program and must be cheap:

1. :meth:`SnapshotBuffer.take` copies the tensor on its own device
   (``detach().clone()``, an asynchronous device copy on CUDA) and returns a
   :class:`PendingRecord`. Tensors larger than ``clone_elements`` or beyond the
   memory ``budget_bytes`` are summarised immediately instead of copied.
2. :meth:`PendingRecord.resolve` (after the run) moves the copy to the CPU and
   computes statistics. Copies larger than ``value_elements`` keep only their
   summary (see :data:`DEFAULT_VALUE_ELEMENTS`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

__all__ = [
    "DEFAULT_VALUE_ELEMENTS",
    "PendingRecord",
    "SnapshotBuffer",
    "TensorRecord",
    "TensorStats",
    "format_number",
    "summarize_tensor",
]

#: Tensors with at most this many elements keep a full CPU copy of their
#: values; larger ones keep only :class:`TensorStats`. Ten thousand floats is
#: what a table view can show and what a session file can afford per tensor.
DEFAULT_VALUE_ELEMENTS = 10_000

#: Tensors up to this many elements are copied at op time and summarised after
#: the run; larger ones are summarised at op time (slower, but bounded memory).
DEFAULT_CLONE_ELEMENTS = 1_000_000

#: Total bytes of pending copies before new tensors are summarised at once.
DEFAULT_BUDGET_BYTES = 1 << 30

#: How many leading and trailing values a summary keeps.
EDGE_VALUES = 5


@dataclass(frozen=True)
class TensorStats:
    """Summary statistics of a tensor's values.

    ``min``/``max``/``mean``/``std`` ignore NaN and Inf (they describe the
    finite values) and are ``None`` when no finite value exists. For complex
    tensors they describe the absolute values. ``head``/``tail`` are the first
    and last :data:`EDGE_VALUES` values in memory order (flattened).
    """

    min: float | None
    max: float | None
    mean: float | None
    std: float | None
    nan_count: int
    inf_count: int
    head: tuple[float, ...]
    tail: tuple[float, ...]

    @property
    def has_nonfinite(self) -> bool:
        """True when at least one value is NaN or +/-Inf."""
        return self.nan_count > 0 or self.inf_count > 0


@dataclass(frozen=True)
class TensorRecord:
    """A frozen description of one tensor at one moment.

    Attributes
    ----------
    shape : tuple of int
    dtype : str
        ``str(dtype)`` without the ``torch.`` prefix, e.g. ``"float32"``.
    device : str
        Where the tensor lived, e.g. ``"cpu"``, ``"cuda:0"``, ``"meta"``.
    requires_grad : bool
    summary : TensorStats or None
        Statistics stored with the record: always for tensors too large to
        keep ``data``; for the others they are computed from ``data`` the
        first time :attr:`stats` is read (most records are never looked at,
        so a capture does not pay for them). Read :attr:`stats`, not this.
    data : torch.Tensor or None
        A detached, contiguous CPU copy when the tensor had at most
        ``value_elements`` elements, else ``None``. Treat it as read-only.
    note : str
        Why values are missing or partial, in words for the user.
    """

    shape: tuple[int, ...]
    dtype: str
    device: str
    requires_grad: bool
    summary: TensorStats | None = field(default=None, compare=False, repr=False)
    data: torch.Tensor | None = field(default=None, compare=False, repr=False)
    note: str = ""

    @property
    def stats(self) -> TensorStats | None:
        """Summary statistics; ``None`` when the values cannot be read (meta, sparse)."""
        if self.summary is None and self.data is not None:
            # Caching into a frozen record: idempotent, so safe from any thread.
            object.__setattr__(self, "summary", _stats_for(self.data))
        return self.summary

    @property
    def numel(self) -> int:
        """Number of elements (1 for a 0-d tensor)."""
        return math.prod(self.shape)

    def values(self) -> list | float | int | bool | None:
        """The full values as nested Python lists (a number for 0-d), or None."""
        return None if self.data is None else self.data.tolist()

    def item(self) -> float | int | bool | None:
        """The single value of a one-element tensor, else ``None``."""
        if self.data is None or self.data.numel() != 1:
            return None
        return self.data.reshape(()).item()

    def short(self, *, width: int = 48) -> str:
        """A one-line rendering for tables: ``1.3`` or ``[3, 4] float32 -0.2..1.1``."""
        scalar = self.item()
        if scalar is not None and not self.shape:
            return format_number(scalar)
        if self.data is not None and self.numel <= 6:
            text = "[" + ", ".join(format_number(v) for v in self.data.flatten().tolist()) + "]"
            if len(text) <= width:
                return text
        dims = "x".join(str(s) for s in self.shape) or "scalar"
        text = f"{dims} {self.dtype}"
        if self.stats is not None and self.stats.min is not None:
            text += f" {format_number(self.stats.min)}..{format_number(self.stats.max)}"
        if self.stats is not None and self.stats.has_nonfinite:
            text += f" NaN:{self.stats.nan_count} Inf:{self.stats.inf_count}"
        return text


def format_number(value: float | int | bool) -> str:
    """Render a number compactly (4 significant digits) for tables and labels."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, complex):
        return f"{value.real:.4g}{value.imag:+.4g}j"
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.4g}"


#: Tensors up to this many elements get their statistics computed in Python
#: from ``tolist()``: for tiny tensors that is ten times cheaper than a
#: handful of torch reductions, and most autograd graphs are full of them.
_PYTHON_STATS_ELEMENTS = 64


def _python_stats(values: list) -> TensorStats:
    head = tuple(values[:EDGE_VALUES])
    tail = tuple(values[-EDGE_VALUES:]) if len(values) > EDGE_VALUES else ()
    if values and isinstance(values[0], complex):
        values = [abs(v) for v in values]
    nan_count = inf_count = 0
    finite = values
    if values and isinstance(values[0], float):
        finite = [v for v in values if math.isfinite(v)]
        if len(finite) != len(values):
            nan_count = sum(1 for v in values if math.isnan(v))
            inf_count = len(values) - len(finite) - nan_count
    if not finite:
        return TensorStats(None, None, None, None, nan_count, inf_count, head, tail)
    n = len(finite)
    if n == 1:
        v = float(finite[0])
        return TensorStats(v, v, v, 0.0, nan_count, inf_count, head, tail)
    mean = math.fsum(finite) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in finite) / (n - 1)) if n > 1 else 0.0
    return TensorStats(float(min(finite)), float(max(finite)), mean, std, nan_count, inf_count, head, tail)


def _stats_for(t: torch.Tensor) -> TensorStats:
    if t.numel() <= _PYTHON_STATS_ELEMENTS:
        return _python_stats(t.reshape(-1).tolist())
    return _torch_stats(t)


def _torch_stats(t: torch.Tensor) -> TensorStats:
    """Compute :class:`TensorStats` of a strided tensor with torch reductions on its device."""
    flat = t.detach().reshape(-1)
    head = tuple(flat[:EDGE_VALUES].tolist())
    tail = tuple(flat[-EDGE_VALUES:].tolist()) if flat.numel() > EDGE_VALUES else ()
    if flat.is_complex():
        flat = flat.abs()
    if flat.dtype == torch.bool or not flat.is_floating_point():
        finite = flat.to(torch.float64)
        nan_count = inf_count = 0
    else:
        values = flat if flat.dtype in (torch.float32, torch.float64) else flat.float()
        nan_mask = torch.isnan(values)
        inf_mask = torch.isinf(values)
        # One transfer for both counts instead of two synchronising .item() calls.
        nan_count, inf_count = torch.stack([nan_mask.sum(), inf_mask.sum()]).tolist()
        finite = values[~(nan_mask | inf_mask)] if nan_count or inf_count else values
    if finite.numel() == 0:
        return TensorStats(None, None, None, None, int(nan_count), int(inf_count), head, tail)
    lo, hi = torch.aminmax(finite)
    std, mean = torch.std_mean(finite.double()) if finite.numel() > 1 else (torch.zeros((), dtype=torch.float64), finite.double().mean())
    lo, hi, mean, std = torch.stack([lo.double(), hi.double(), mean, std]).tolist()
    return TensorStats(lo, hi, mean, std, int(nan_count), int(inf_count), head, tail)


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def summarize_tensor(
    t: torch.Tensor,
    *,
    value_elements: int = DEFAULT_VALUE_ELEMENTS,
    requires_grad: bool | None = None,
    owned: bool = False,
) -> TensorRecord:
    """Describe ``t`` now, reading its values synchronously.

    Parameters
    ----------
    t : torch.Tensor
        Any tensor; it is not modified and no reference to it is kept.
    value_elements : int, keyword-only
        Keep a full CPU copy when ``t.numel() <= value_elements``.
    requires_grad : bool, optional
        Override ``t.requires_grad`` (a detached copy has lost it).
    owned : bool, keyword-only
        ``t`` is already a private copy (from :class:`SnapshotBuffer`): a CPU
        one is kept as the record's data without copying it again.

    Returns
    -------
    TensorRecord
    """
    shape = tuple(t.shape)
    rg = t.requires_grad if requires_grad is None else requires_grad
    dtype = _dtype_name(t.dtype)
    device = str(t.device)
    if t.device.type == "meta":
        return TensorRecord(shape, dtype, device, rg, None, None, "meta tensor: it has a shape but no values")
    if t.layout != torch.strided:
        return TensorRecord(shape, dtype, device, rg, None, None, f"{t.layout} tensor: values are not captured")
    numel = t.numel()
    try:
        if numel <= value_elements:
            if owned and t.device.type == "cpu" and t.is_contiguous():
                data = t
            else:
                data = t.detach().to("cpu", copy=True).contiguous()
            return TensorRecord(shape, dtype, device, rg, None, data)
        stats = _torch_stats(t)
    except RuntimeError as exc:  # e.g. tensors whose storage is not accessible
        return TensorRecord(shape, dtype, device, rg, None, None, f"values could not be read: {exc}")
    note = f"{numel:,} elements is over the {value_elements:,}-element cap: summary only"
    return TensorRecord(shape, dtype, device, rg, stats, None, note)


class PendingRecord:
    """A tensor copied at op time, to be turned into a :class:`TensorRecord` later."""

    __slots__ = ("_copy", "_record", "_requires_grad", "_buffer")

    def __init__(self, buffer: SnapshotBuffer, copy: torch.Tensor | None,
                 record: TensorRecord | None, requires_grad: bool) -> None:
        self._buffer = buffer
        self._copy = copy
        self._record = record
        self._requires_grad = requires_grad

    def resolve(self) -> TensorRecord:
        """Return the record, computing it from the copy on first call."""
        if self._record is None:
            copy = self._copy
            self._copy = None
            self._record = summarize_tensor(
                copy, value_elements=self._buffer.value_elements, requires_grad=self._requires_grad, owned=True
            )
            self._buffer.release(copy)
            del copy
        return self._record


class SnapshotBuffer:
    """Takes cheap copies of tensors during a run, within a memory budget.

    Parameters
    ----------
    value_elements : int
        See :data:`DEFAULT_VALUE_ELEMENTS`.
    clone_elements : int
        Tensors with more elements are summarised at once instead of copied.
    budget_bytes : int
        Upper bound on the bytes held by unresolved copies.
    """

    def __init__(self, *, value_elements: int = DEFAULT_VALUE_ELEMENTS,
                 clone_elements: int = DEFAULT_CLONE_ELEMENTS,
                 budget_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        self.value_elements = value_elements
        self.clone_elements = clone_elements
        self.budget_bytes = budget_bytes
        self.held_bytes = 0

    def take(self, t: torch.Tensor) -> PendingRecord:
        """Freeze ``t``'s current value; cheap for small dense tensors."""
        n = t.numel()
        nbytes = n * t.element_size()
        if (t.layout == torch.strided and t.device.type != "meta" and n <= self.clone_elements
                and self.held_bytes + nbytes <= self.budget_bytes):
            self.held_bytes += nbytes
            return PendingRecord(self, t.detach().clone(), None, t.requires_grad)
        return PendingRecord(self, None, summarize_tensor(t, value_elements=self.value_elements), t.requires_grad)

    def release(self, copy: torch.Tensor) -> None:
        """Account for a copy that has been resolved and dropped."""
        self.held_bytes -= copy.numel() * copy.element_size()
