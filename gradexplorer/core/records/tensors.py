"""Frozen summaries of tensors, taken at the moment they matter.

A :class:`TensorRecord` is what gradexplorer shows for a forward value, a
gradient or a saved tensor: shape, dtype, device, summary statistics and, for
small tensors, the values as a CPU tensor.

Records describe a tensor *at one moment*, and taking one happens once per
torch op inside the user's program, so it must be cheap. It works like
copy-on-write:

1. :meth:`SnapshotBuffer.take` only keeps a reference to the op's output and
   notes its version counter; it returns a :class:`PendingRecord`.
2. Before any in-place op (``x.add_(1)``, ``out=``, an optimizer's
   ``_foreach_*_``) the recorder calls :meth:`SnapshotBuffer.before_inplace`,
   which copies every pending tensor sharing that storage first (views and
   ``.data`` aliases included). So a later in-place change never alters what
   was recorded, and tensors nobody modifies are never copied.
3. :meth:`PendingRecord.resolve` (after the run) makes the record. CPU tensors
   are kept as detached aliases (after the run nothing else holds them);
   CUDA/MPS tensors are copied to the CPU, so records never hold device
   memory and can cross threads. Statistics are computed the first time
   :attr:`TensorRecord.stats` is read.

Tensors beyond the memory ``budget_bytes`` of pending references are
summarised at once instead (slower per op, but bounded memory).
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import torch

from .notes import (CAPPED, CHANGED_LATER, DENSE, DEQUANTIZED, LAYOUT_NOT_CAPTURED, LAYOUT_UNREADABLE, META,
                    QUANTIZED_UNREADABLE, UNREADABLE)
from .notes import joined, note_text

__all__ = [
    "DEFAULT_VALUE_ELEMENTS",
    "STREAM_CHUNK",
    "STREAM_ELEMENTS",
    "LateStats",
    "PendingRecord",
    "RecordMaker",
    "SnapshotBuffer",
    "TensorRecord",
    "TensorStats",
    "fill_stats",
    "finite_norm",
    "format_number",
    "resolve_all",
    "summarize_tensor",
]

#: Tensors with at most this many elements keep a full CPU copy of their
#: values; larger ones keep only :class:`TensorStats`. Ten thousand floats is
#: what a table view can show and what a session file can afford per tensor.
DEFAULT_VALUE_ELEMENTS = 10_000

#: Total bytes of pending tensors (kept alive for their records) before new
#: tensors are summarised at once instead.
DEFAULT_BUDGET_BYTES = 2 << 30

#: How many leading and trailing values a summary keeps.
EDGE_VALUES = 5

_STRIDED = torch.strided


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


class TensorRecord:
    """A read-only description of one tensor at one moment.

    Not a frozen dataclass, unlike the other records: a capture makes one per
    op output and gradient, and a ``__slots__`` class is five times cheaper to
    construct (0.35 us against 1.75 us, measured here), which is most of the
    per-node budget of the graph build. Treat instances as immutable; the only
    attribute that changes is the lazily computed statistics cache.

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
        keep ``data`` (computed lazily from a kept CPU tensor, or at once on
        other devices); for the others they are computed from ``data`` the
        first time :attr:`stats` is read (most records are never looked at,
        so a capture does not pay for them). Read :attr:`stats`, not this.
    data : torch.Tensor or None
        The values as a detached CPU tensor when the tensor had at most
        ``value_elements`` elements, else ``None``. Read-only. For a
        quantized tensor, its dequantized values (float32; ``dtype`` still
        says ``quint8``, and ``note`` says so).
    note : str
        Why values are missing or partial, in words for the user.
    known_norm : float or None
        The L2 norm of values known to be all finite, for a record whose
        statistics arrive later (the isolated engine: :class:`LateStats`).
    """

    __slots__ = ("shape", "dtype", "device", "requires_grad", "summary", "data", "note", "_stats_source", "known_norm")

    def __init__(self, shape: tuple[int, ...], dtype: str, device: str, requires_grad: bool,
                 summary: TensorStats | None = None, data: torch.Tensor | None = None, note: str = "",
                 _stats_source: torch.Tensor | None = None, known_norm: float | None = None) -> None:
        self.shape = shape
        self.dtype = dtype
        self.device = device
        self.requires_grad = requires_grad
        self.summary = summary
        self.data = data
        self.note = note
        # A CPU tensor over the value cap, kept only until its stats are computed.
        self._stats_source = _stats_source
        # Sent ahead of statistics that come later: the overview's gradient norms and NaN marks need no more.
        self.known_norm = known_norm

    def __repr__(self) -> str:
        return f"TensorRecord({self.short()!r}, device={self.device!r}, requires_grad={self.requires_grad})"

    def __eq__(self, other: object) -> bool:
        """Same metadata and note, and the same values (or the same statistics when values are capped)."""
        if not isinstance(other, TensorRecord):
            return NotImplemented
        if (self.shape, self.dtype, self.device, self.requires_grad, self.note) != (
                other.shape, other.dtype, other.device, other.requires_grad, other.note):
            return False
        if (self.data is None) != (other.data is None):
            return False
        if self.data is not None:
            return bool(torch.equal(self.data, other.data)) or (
                self.data.is_floating_point() and bool(torch.allclose(self.data, other.data, equal_nan=True, rtol=0, atol=0)))
        return self.stats == other.stats

    __hash__ = None  # mutable-looking equality; records are not dict keys

    @property
    def stats(self) -> TensorStats | None:
        """Summary statistics; ``None`` when the values cannot be read (meta, sparse).

        A record of the isolated engine may wait here for its statistics to
        arrive (:class:`LateStats`: at most a second or so after the picture).
        """
        if self.summary is None:
            source = self.data if self.data is not None else self._stats_source
            if type(source) is LateStats:
                # The sender fills ``summary`` before it says they have arrived; it gives up on a child
                # that sends nothing within a minute, so this wait ends.
                source.wait(LATE_STATS_WAIT)
                return self.summary
            if source is not None:
                # Idempotent cache fill: safe from any thread.
                self.summary = _stats_for(source)
                self._stats_source = None
        return self.summary

    @property
    def stats_pending(self) -> bool:
        """Whether reading :attr:`stats` would wait for statistics still on their way (:class:`LateStats`).

        Display code asks first, so that the GUI thread never waits: it shows
        the record without them and looks again a moment later.
        """
        source = self._stats_source
        return self.summary is None and type(source) is LateStats and not source.has_arrived

    def stats_source(self) -> torch.Tensor | None:
        """The tensor statistics and norms are computed from: the values, or a CPU tensor over the cap; else None."""
        source = self.data if self.data is not None else self._stats_source
        return None if type(source) is LateStats else source

    def await_stats(self, late: LateStats) -> None:
        """Mark this record's statistics as arriving later (``late``): one sent with its norm only."""
        if self.data is None and self.summary is None and self.known_norm is not None:
            self._stats_source = late

    def norm_and_nonfinite(self) -> tuple[float | None, bool]:
        """L2 norm of the finite values, and whether any value is NaN/Inf, in one pass when possible.

        One BLAS dot product over the kept CPU values (a few microseconds): a
        finite sum of squares proves there is no NaN/Inf; otherwise (or on
        other devices) the statistics decide, which skip non-finite values.
        """
        if self.known_norm is not None:
            return self.known_norm, False
        if self.summary is None:
            source = self.data if self.data is not None else self._stats_source
            if source is None:
                return None, False
            if type(source) is not LateStats:
                norm = finite_norm(source)
                if norm is not None:
                    return norm, False
        stats = self.stats
        if stats is None or stats.mean is None:
            return None, bool(stats is not None and stats.has_nonfinite)
        finite = self.numel - stats.nan_count - stats.inf_count
        if finite <= 0:
            return None, stats.has_nonfinite
        return norm_from_stats(finite, stats.mean, stats.std), stats.has_nonfinite

    def has_nonfinite(self) -> bool:
        """Whether any value is NaN or Inf (see :meth:`norm_and_nonfinite`)."""
        return self.norm_and_nonfinite()[1]

    def finite_norm(self) -> float | None:
        """L2 norm of the finite values (see :meth:`norm_and_nonfinite`)."""
        return self.norm_and_nonfinite()[0]

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
        if self.stats_pending:  # a label never waits; the numbers follow when the statistics have arrived
            return text
        quick = self._finite_range()
        if quick is not None:
            return f"{text} {format_number(quick[0])}..{format_number(quick[1])}"
        if self.stats is not None and self.stats.min is not None:
            text += f" {format_number(self.stats.min)}..{format_number(self.stats.max)}"
        if self.stats is not None and self.stats.has_nonfinite:
            text += f" NaN:{self.stats.nan_count} Inf:{self.stats.inf_count}"
        return text

    def _finite_range(self) -> tuple[float, float] | None:
        """``(min, max)`` of values proven all finite, without computing the statistics; else None.

        One dot product proves a float32/float64 CPU tensor finite (see
        :func:`finite_norm`), then two reductions give what a label shows:
        about half the cost of the statistics, which a capture's explanations
        used to compute for every parameter's gradient only to print its range.
        The numbers are the statistics' own (their ``min``/``max`` of the
        same values).
        """
        if self.summary is not None:
            return None
        source = self.stats_source()
        if source is None or source.numel() == 0 or finite_norm(source) is None:
            return None
        values = source.detach().numpy()
        return float(values.min()), float(values.max())


def finite_norm(t: torch.Tensor) -> float | None:
    """L2 norm of a CPU float32/float64 tensor in one BLAS dot product, or None (other tensors, or NaN/Inf in it).

    A finite sum of squares proves there is no NaN/Inf: a few microseconds
    where the statistics take five passes.
    """
    if not t.is_cpu or t.layout is not _STRIDED or (t.dtype is not torch.float32 and t.dtype is not torch.float64):
        return None
    values = t.detach().numpy()
    # vdot flattens as reshape(-1) does (the same BLAS dot over the same order), without a Python-level reshape.
    # A sum of squares past the float range is the answer "not finite" here, never a RuntimeWarning on the
    # user's stderr (values near 1e160 printed one) nor an error under their warnings.simplefilter("error").
    with np.errstate(over="ignore", invalid="ignore"):
        squares = float(np.dot(values, values) if values.ndim == 1 else np.vdot(values, values))
    return math.sqrt(squares) if math.isfinite(squares) else None


#: Longest a record waits for statistics that arrive late (seconds): the sender's own limit and a margin.
LATE_STATS_WAIT = 75.0


class LateStats:
    """Statistics that reach their records after the records themselves (the isolated engine's hand-over).

    The child process sends the capture first and computes the statistics of
    the records it sent without values afterwards, once the app has made its
    first picture (:func:`gradexplorer.core.isolated.engine.capture_isolated`).
    Such a record holds this object instead of values to compute from;
    reading its :attr:`TensorRecord.stats` waits until :meth:`arrived` has been
    called, by which time the sender has set ``summary`` (or left it ``None``
    when the statistics could not be had: the process died).
    """

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = threading.Event()

    def arrived(self) -> None:
        """Every record waiting on this has its statistics (or never will): wake the readers."""
        self._event.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until :meth:`arrived` (True), or ``timeout`` seconds (False)."""
        return self._event.wait(timeout)

    @property
    def has_arrived(self) -> bool:
        return self._event.is_set()


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


def norm_from_stats(count: int, mean: float, std: float) -> float:
    """The L2 norm of ``count`` finite values with this mean and std: ``sqrt((n-1) std^2 + n mean^2)``.

    Without squaring: values near 1e160 (a session of float64 values) made
    ``std ** 2`` raise OverflowError on open. A norm beyond the float range is inf.
    """
    try:
        return math.hypot(math.sqrt(max(count - 1, 0)) * std, math.sqrt(count) * mean)
    except OverflowError:
        return math.inf


#: Above this magnitude, squares of float64 values can overflow: statistics are computed on values divided
#: by the largest magnitude, then scaled back.
_SQUARE_SAFE = 1e150


def _scaled_mean_std(values64, n: int) -> tuple[float, float]:
    """Mean and sample std of float64 numpy values of any finite magnitude (no overflow, no warning)."""
    scale = float(np.abs(values64).max()) or 1.0
    unit = values64 / scale
    unit_mean = float(unit.sum()) / n
    centred = unit - unit_mean
    std = math.sqrt(float(np.dot(centred, centred)) / (n - 1)) if n > 1 else 0.0
    return unit_mean * scale, std * scale


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
    low, high = float(min(finite)), float(max(finite))
    if max(abs(low), abs(high)) > _SQUARE_SAFE:  # squares (and sums) would overflow: divide first
        mean, std = _scaled_mean_std(np.asarray(finite, dtype=np.float64), n)
        return TensorStats(low, high, mean, std, nan_count, inf_count, head, tail)
    mean = math.fsum(finite) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in finite) / (n - 1)) if n > 1 else 0.0
    return TensorStats(low, high, mean, std, nan_count, inf_count, head, tail)


def fill_stats(records: list[TensorRecord], *, should_stop: Callable[[], bool] | None = None) -> bool:
    """Compute the statistics of many records at once, once per distinct tensor view; False if stopped.

    A session being saved needs thousands of them (records written without
    their values carry statistics, and most were never asked for during the
    run): one by one they were two thirds of the time to write a fresh
    10,000-node capture. Half of those records look at the same memory as
    another one (a gradient is the output gradient of one node and the input
    gradient of the next, in records made at different moments), so records
    whose values are the same view (same address, shape, strides and dtype,
    all alive at once) share one computation: the numbers are the ones each
    would compute alone.

    ``should_stop`` is asked every :data:`STOP_POLL_RECORDS` records: once it
    says so the rest is left as it was (statistics stay lazy, computed when
    asked) and False is returned. The app's autosave of a capture that a new
    Run supersedes stops here: at 50,000 nodes this is 1.8 s of work that
    shared the interpreter with the new run.
    """
    done: dict[tuple, TensorStats | None] = {}
    for index, record in enumerate(records):
        if should_stop is not None and index % STOP_POLL_RECORDS == 0 and should_stop():
            return False
        if record.summary is not None:
            continue
        source = record.data if record.data is not None else record._stats_source
        if source is None or type(source) is LateStats or source.layout != torch.strided or source.device.type == "meta":
            record.stats  # noqa: B018 - fills the cache (None where values cannot be read)
            continue
        view = (source.device, source.data_ptr(), tuple(source.shape), source.stride(), source.dtype)
        stats = done.get(view)
        if stats is None:
            stats = done[view] = record.stats
        else:
            record.summary = stats
            record._stats_source = None
    return True


#: How many records :func:`fill_stats` (and a session's encoder) handles between two questions to ``should_stop``.
STOP_POLL_RECORDS = 256

#: Tensors with more elements than this get their statistics a chunk at a time (:func:`_streamed_stats`).
STREAM_ELEMENTS = 1 << 24
#: Elements per chunk of the streamed statistics (32 MiB of float64 per temporary).
STREAM_CHUNK = 1 << 22


def _stats_for(t: torch.Tensor) -> TensorStats:
    if t.numel() > STREAM_ELEMENTS:
        return _streamed_stats(t)
    if t.numel() <= _PYTHON_STATS_ELEMENTS:
        return _python_stats(t.reshape(-1).tolist())
    if t.device.type == "cpu" and not t.is_complex():
        return _numpy_stats(t)
    return _torch_stats(t)


def _numpy_stats(t: torch.Tensor) -> TensorStats:
    """Statistics of a CPU tensor with numpy, single-threaded and without large temporaries.

    Measured here on 16,384 float32 values: about 20 us, against about 200 us
    for the torch reductions (``std_mean`` alone costs 100 us on CPU).
    """
    t = t.detach()
    if t.dtype in (torch.bfloat16, torch.float16, torch.bool):
        t = t.float()
    return _array_stats(t.numpy())


def _array_stats(array: np.ndarray, *, any_order: bool = False) -> TensorStats:
    """:class:`TensorStats` of a numpy array, in four passes over values that are all finite.

    The smallest and largest value come first: a NaN or Inf anywhere shows
    in them, which spares a pass looking for one. Values are summed in the
    array's flattened order, so that statistics computed again from the
    same values (a session reopened, whose values are stored in that order)
    agree to the last bit. With ``any_order`` a transposed or permuted array
    is read in memory order instead, without the copy flattening makes (the
    sums may differ in the last bits): for records whose values are not
    kept (:class:`GradientSummaries`, tens of thousands per backward pass).
    """
    values = _memory_order(array) if any_order else None
    if values is None:
        values = array.reshape(-1)
        head = tuple(values[:EDGE_VALUES].tolist())
        tail = tuple(values[-EDGE_VALUES:].tolist()) if values.size > EDGE_VALUES else ()
    else:
        head, tail = _edges(array)
    nan_count = inf_count = 0
    if values.size == 0:
        return TensorStats(None, None, None, None, 0, 0, head, tail)
    low, high = values.min(), values.max()
    if values.dtype.kind == "f" and not (math.isfinite(low) and math.isfinite(high)):  # NaN/Inf among them
        finite_mask = np.isfinite(values)
        nan_count = int(np.isnan(values).sum())
        inf_count = int(values.size - finite_mask.sum() - nan_count)
        values = values[finite_mask]
        if values.size == 0:
            return TensorStats(None, None, None, None, nan_count, inf_count, head, tail)
        low, high = values.min(), values.max()
    n = values.size
    low, high = float(low), float(high)
    if max(abs(low), abs(high)) > _SQUARE_SAFE:  # float64 values whose squares overflow
        mean, std = _scaled_mean_std(values.astype(np.float64), n)
        return TensorStats(low, high, mean, std, nan_count, inf_count, head, tail)
    mean = float(values.sum(dtype=np.float64)) / n
    std = 0.0
    if n > 1:
        # Sum of squares through BLAS (no temporary array: a 128 KB float64
        # copy costs a fresh mmap per call). Its float32 rounding, about
        # 1e-7 of the sum, is amplified by mean^2 / variance when the mean is
        # subtracted: where that exceeds 20 (std off by more than ~1e-5
        # relative; 1e-6 * mean^2 let 0.0566776 pass for 0.0566769), redo
        # exactly in float64. Gradients, centred on zero, stay on the fast path.
        # float32 squares overflow above about 1.8e19 (torch.finfo(float32).min, every Hugging Face
        # attention mask, gave std = inf and a numpy warning on stderr): those go to float64.
        wide = values.dtype.kind != "f" or (values.dtype == np.float32 and max(abs(low), abs(high)) > 1e18)
        squares = float(np.dot(values.astype(np.float64), values.astype(np.float64)) if wide else np.dot(values, values))
        variance = (squares - n * mean * mean) / (n - 1)
        if variance <= 0.05 * mean * mean:
            centred = values.astype(np.float64) - mean
            variance = float(np.dot(centred, centred)) / (n - 1)
        std = math.sqrt(max(variance, 0.0))
    return TensorStats(low, high, mean, std, nan_count, inf_count, head, tail)


def _memory_order(array: np.ndarray) -> np.ndarray | None:
    """A 1-d view of ``array``'s values in memory order, when they fill their memory without gaps; else None.

    A transposed or permuted tensor (most gradients a ``transpose`` or
    ``permute`` sends back) is contiguous once its axes are put in
    decreasing stride order: its values can be read without the copy
    ``reshape(-1)`` makes. Statistics other than the first and last values
    do not depend on the order.
    """
    if array.flags.c_contiguous:
        return array.reshape(-1)
    permuted = array.transpose(sorted(range(array.ndim), key=lambda axis: -array.strides[axis]))
    return permuted.reshape(-1) if permuted.flags.c_contiguous else None


def _edges(array: np.ndarray) -> tuple[tuple, tuple]:
    """The first and last :data:`EDGE_VALUES` values of ``array`` in flattened (C) order, without flattening it."""
    size = array.size
    head = tuple(array.flat[:EDGE_VALUES].tolist())
    tail = tuple(array.flat[size - EDGE_VALUES:].tolist()) if size > EDGE_VALUES else ()
    return head, tail


def _chunks(t: torch.Tensor, chunk: int):
    """The elements of ``t`` in flattened (``reshape(-1)``) order, as 1-d pieces of at most ``chunk`` elements.

    A piece is a view where ``t``'s layout allows it and a copy of at most
    ``chunk`` elements where it does not: a non-contiguous 2 GiB tensor is
    never flattened into a second 2 GiB copy. Iterative (blocks along the
    leading dimension, split again while too big).
    """
    stack = [t]
    while stack:
        block = stack.pop()
        if block.numel() <= chunk:
            if block.numel():
                yield block.reshape(-1)
        elif block.dim() <= 1:
            flat = block.reshape(-1)  # a 1-d tensor: a view
            for start in range(0, flat.numel(), chunk):
                yield flat[start:start + chunk]
        else:
            rows = max(1, chunk // max(1, block[0].numel()))
            stack.extend(block[start:start + rows] for start in reversed(range(0, block.shape[0], rows)))


class _Finite(NamedTuple):
    tensor: torch.Tensor
    nans: int
    infs: int


def _finite_float64(piece: torch.Tensor) -> _Finite:
    """A piece's finite values as float64 (complex: magnitudes), with its NaN and Inf counts."""
    if piece.is_complex():
        piece = piece.abs()
    values = piece.to(torch.float64)
    if not piece.is_floating_point():
        return _Finite(values, 0, 0)
    nan_mask = torch.isnan(values)
    inf_mask = torch.isinf(values)
    nans, infs = torch.stack([nan_mask.sum(), inf_mask.sum()]).tolist()
    return _Finite(values[~(nan_mask | inf_mask)] if nans or infs else values, int(nans), int(infs))


def _streamed_stats(t: torch.Tensor, chunk: int | None = None) -> TensorStats:
    """:class:`TensorStats` of a huge tensor (any device, any dtype) with memory bounded by ``chunk`` elements.

    The whole-tensor paths make float64 copies and masks of the whole
    tensor: for one 2 GiB float32 tensor, 8 GiB more (a float64 copy, then
    its centred copy). Here one pass over the chunks: counts, min, max, the
    first and last values, and mean and variance in float64 (each chunk's
    exact centred sum of squares merged with Chan et al.'s pairwise update).
    Values whose squares overflow (near 1e160) take a second pass, divided
    by the largest magnitude.
    """
    chunk = max(STREAM_CHUNK if chunk is None else chunk, EDGE_VALUES)
    source = t.detach()
    head: tuple = ()
    last: list = []  # the flattened order's last values so far
    nan_count = inf_count = 0
    low = high = None
    moments = (0, 0.0, 0.0)  # count, mean, sum of squared deviations
    for piece in _chunks(source, chunk):
        if not head:
            head = tuple(piece[:EDGE_VALUES].tolist())
        last = (last + piece[-EDGE_VALUES:].tolist())[-EDGE_VALUES:]
        values = _finite_float64(piece)
        nan_count += values.nans
        inf_count += values.infs
        if values.tensor.numel():
            lo, hi = (v.item() for v in torch.aminmax(values.tensor))
            low = lo if low is None else min(low, lo)
            high = hi if high is None else max(high, hi)
            moments = _merged(moments, values.tensor)
    tail = tuple(last) if t.numel() > EDGE_VALUES else ()
    if low is None:
        return TensorStats(None, None, None, None, nan_count, inf_count, head, tail)
    scale = max(abs(low), abs(high))
    if scale > _SQUARE_SAFE:  # the squares above overflowed
        moments = (0, 0.0, 0.0)
        for piece in _chunks(source, chunk):
            values = _finite_float64(piece).tensor
            if values.numel():
                moments = _merged(moments, values / scale)
    else:
        scale = 1.0
    n, mean, m2 = moments
    std = math.sqrt(max(m2, 0.0) / (n - 1)) if n > 1 else 0.0
    return TensorStats(float(low), float(high), mean * scale, std * scale, nan_count, inf_count, head, tail)


def _merged(moments: tuple[int, float, float], values: torch.Tensor) -> tuple[int, float, float]:
    """``(count, mean, sum of squared deviations)`` with float64 ``values`` added (Chan et al.'s pairwise update)."""
    n, mean, m2 = moments
    k = values.numel()
    piece_mean = values.mean().item()
    centred = values - piece_mean
    piece_m2 = torch.dot(centred, centred).item()
    delta = piece_mean - mean
    total = n + k
    return total, mean + delta * k / total, m2 + piece_m2 + delta * delta * n * k / total


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
    wide = finite.double()
    # Values whose squares overflow float64 (near 1e160) are divided by the largest magnitude first.
    scale = wide.abs().max().clamp(min=1.0) if finite.dtype == torch.float64 else torch.ones((), dtype=torch.float64,
                                                                                               device=wide.device)
    unit = wide / scale
    std, mean = torch.std_mean(unit) if finite.numel() > 1 else (torch.zeros((), dtype=torch.float64,
                                                                             device=wide.device), unit.mean())
    lo, hi, mean, std = torch.stack([lo.double(), hi.double(), mean * scale, std * scale]).tolist()
    return TensorStats(lo, hi, mean, std, int(nan_count), int(inf_count), head, tail)


_dtype_names: dict[torch.dtype, str] = {}
_device_names: dict[torch.device, str] = {}


def _dtype_name(dtype: torch.dtype) -> str:
    name = _dtype_names.get(dtype)
    if name is None:
        name = _dtype_names[dtype] = str(dtype).removeprefix("torch.")
    return name


def _device_name(device: torch.device) -> str:
    name = _device_names.get(device)
    if name is None:
        name = _device_names[device] = str(device)
    return name


_capped_notes: dict[tuple[int, int], str] = {}


def _capped_note(numel: int, value_elements: int) -> str:
    """The note of a record over the value cap (made once per size: most tensors of a model share a few)."""
    key = (numel, value_elements)
    note = _capped_notes.get(key)
    if note is None:
        if len(_capped_notes) > 10_000:
            _capped_notes.clear()
        note = _capped_notes[key] = note_text(CAPPED, count=f"{numel:,}", cap=f"{value_elements:,}")
    return note


def summarize_tensor(
    t: torch.Tensor,
    *,
    value_elements: int = DEFAULT_VALUE_ELEMENTS,
    alias: bool = False,
    note: str = "",
) -> TensorRecord:
    """Describe ``t`` now, reading its values synchronously.

    Parameters
    ----------
    t : torch.Tensor
        Any tensor; it is not modified and no reference to it is kept.
    value_elements : int, keyword-only
        Keep a full CPU copy when ``t.numel() <= value_elements``.
    alias : bool, keyword-only
        Nothing will modify ``t`` any more (a private copy, or a tensor of a
        run that has ended, whose namespace is gone): a CPU ``t`` is kept as
        the record's data without copying, and statistics of a large one are
        computed lazily. Without it, values are copied and large tensors
        summarised at once.
    note : str, keyword-only
        Text for :attr:`TensorRecord.note`.

    Returns
    -------
    TensorRecord
    """
    if alias and t.is_cpu and t.layout is _STRIDED and not (t.is_quantized or t.is_conj() or t.is_neg()):
        # The common case after a run (a plain CPU tensor nothing will change): about half the cost of the
        # general path below, which describes the same tensor the same way. Taken for every op output and
        # gradient of a capture.
        numel = t.numel()
        if numel <= value_elements:
            return TensorRecord(tuple(t.shape), _dtype_name(t.dtype), "cpu", t.requires_grad, None, t.detach(), note)
        capped = _capped_note(numel, value_elements)
        return TensorRecord(tuple(t.shape), _dtype_name(t.dtype), "cpu", t.requires_grad, None, None,
                            joined(note, capped), t.detach())
    shape = tuple(t.shape)
    rg = t.requires_grad
    dtype = _dtype_name(t.dtype)
    dev = t.device
    device = _device_name(dev)
    if dev.type == "meta":
        return TensorRecord(shape, dtype, device, rg, None, None, note_text(META))
    if t.layout != torch.strided:
        layout = str(t.layout).removeprefix("torch.")
        if t.numel() > value_elements:
            return TensorRecord(shape, dtype, device, rg, None, None, note_text(LAYOUT_NOT_CAPTURED, layout=layout))
        try:
            # A small sparse tensor is shown with its dense values (what the user reads).
            t = t.detach().to_dense()
        except (RuntimeError, NotImplementedError) as exc:
            return TensorRecord(shape, dtype, device, rg, None, None,
                                note_text(LAYOUT_UNREADABLE, layout=layout, error=exc))
        dense = note_text(DENSE, layout=layout)
        note = joined(note, dense)
        alias = True
    if t.is_quantized:
        # What a quantized tensor stands for is its dequantized values (its integers read back as
        # nonsense, and .tolist() refuses them): those are kept, float32, and the dtype stays quint8.
        try:
            t = t.detach().dequantize()
        except (RuntimeError, NotImplementedError) as exc:
            return TensorRecord(shape, dtype, device, rg, None, None, note_text(QUANTIZED_UNREADABLE, error=exc))
        shown = note_text(DEQUANTIZED, dtype=dtype)
        note = joined(note, shown)
        alias = True
    numel = t.numel()
    on_cpu = dev.type == "cpu"
    if t.is_conj() or t.is_neg():
        # Lazy conjugate/negative views (x.conj()): materialise them, so that
        # numpy, view_as_real and session files read the values they show.
        t = t.resolve_conj().resolve_neg()
        alias = True
    try:
        if numel <= value_elements:
            if alias and on_cpu:
                data = t.detach()
            else:
                data = t.detach().to("cpu", copy=True)
            return TensorRecord(shape, dtype, device, rg, None, data, note)
        capped = _capped_note(numel, value_elements)
        note = joined(note, capped)
        if alias and on_cpu:
            return TensorRecord(shape, dtype, device, rg, None, None, note, t.detach())
        stats = _stats_for(t)  # numpy on cpu (ten times cheaper), torch reductions on devices
    except RuntimeError as exc:  # e.g. tensors whose storage is not accessible
        return TensorRecord(shape, dtype, device, rg, None, None, note_text(UNREADABLE, error=exc))
    return TensorRecord(shape, dtype, device, rg, stats, None, note)


class RecordMaker:
    """Records of a finished run's tensors: one per tensor object and version, shared by every place showing it.

    After a run the same tensor is described from several places: a
    parameter is a graph leaf (its value and ``.grad``), a named tensor and a
    module entry; a gradient is the output gradient of one node and the input
    gradient of the next. Each of those used to summarise it again (a
    transformer's 2,000 parameters were summarised five times each). Values
    cannot differ between those moments (the program has ended) unless the
    tensor's version counter moved, which is part of the key. Records are
    treated as immutable, so sharing one object is safe; one that needs its
    own ``note`` is made with :func:`summarize_tensor` directly.

    Parameters
    ----------
    value_elements : int
        See :data:`DEFAULT_VALUE_ELEMENTS`.
    """

    __slots__ = ("value_elements", "_made")

    def __init__(self, value_elements: int = DEFAULT_VALUE_ELEMENTS) -> None:
        self.value_elements = value_elements
        # id -> (tensor, version, record): the tensor is held so that its id cannot be reused meanwhile.
        self._made: dict[int, tuple[torch.Tensor, int, TensorRecord]] = {}

    def __call__(self, t: torch.Tensor | TensorRecord) -> TensorRecord:
        """The record of ``t`` as it is now (the one made before, when ``t`` has not changed since).

        A record is its own record: a gradient over the value cap was summarised while the pass ran
        (:class:`GradientSummaries`).
        """
        if type(t) is TensorRecord:
            return t
        try:
            version = t._version
        except RuntimeError:  # an inference tensor keeps no version counter: described each time
            return summarize_tensor(t, value_elements=self.value_elements, alias=True)
        made = self._made.get(id(t))
        if made is not None and made[0] is t and made[1] == version:
            return made[2]
        record = summarize_tensor(t, value_elements=self.value_elements, alias=True)
        self._made[id(t)] = (t, version, record)
        return record


class GradientSummaries:
    """Gradients over the value cap, summarised the moment autograd hands them over, then let go.

    A backward pass sends one gradient per edge, and autograd frees each as
    soon as the node it was sent to has run. A capture that kept them all for
    their statistics later held every gradient of the pass at once: at
    50,000 nodes, 1.8 GB of tensors the program itself never holds together
    (a ``select``'s gradient is its whole input, zeros but one row). Over the
    cap a record keeps statistics only, so they are made now, from the live
    tensor, and the tensor is not kept. Values under the cap are kept as
    they are (they are the record's data anyway).

    Made once per tensor and once per memory: a gradient one node sends is
    usually the very tensor the next node receives (one record, shared by
    both ends of the edge, as :class:`RecordMaker` does after the run), and
    what a ``view``, ``transpose`` or ``squeeze`` sends back is the gradient
    it got, in the same memory: the same values, whose statistics are not
    computed again (only the first and last values, in the new order). A
    weak reference to the tensor first summarised, alive and at the same
    version, proves the memory still holds those values.

    Parameters
    ----------
    value_elements : int
        See :data:`DEFAULT_VALUE_ELEMENTS`.
    """

    __slots__ = ("value_elements", "_made", "_memory")

    def __init__(self, value_elements: int = DEFAULT_VALUE_ELEMENTS) -> None:
        self.value_elements = value_elements
        self._made: dict[int, tuple[weakref.ref, int, TensorRecord]] = {}
        # (address, elements, dtype) of values filling their memory -> (the tensor, its version, its record,
        # whether it was contiguous)
        self._memory: dict[tuple, tuple[weakref.ref, int, TensorRecord, bool]] = {}

    def __call__(self, grads: tuple | None) -> tuple | None:
        """``grads`` with each tensor over the cap replaced by its record (the same tuple when there is none)."""
        if grads is None:
            return None
        cap = self.value_elements
        for g in grads:
            if g is not None and g.numel() > cap:
                break
        else:
            return grads
        return tuple(g if g is None or g.numel() <= cap else self.record(g) for g in grads)

    def record(self, t: torch.Tensor) -> TensorRecord:
        """The record of ``t``'s values now (the one made before for the same tensor and version)."""
        try:
            version = t._version
        except RuntimeError:  # an inference tensor keeps no version counter: described each time
            return summarize_tensor(t, value_elements=self.value_elements)
        made = self._made.get(id(t))
        if made is not None and made[0]() is t and made[1] == version:
            return made[2]
        dense = t.dtype in _SHARED_DTYPES and t.is_cpu and t.layout is _STRIDED and not t.is_neg()
        array = t.detach().numpy() if dense else None
        if array is not None and not array.flags.c_contiguous and _memory_order(array) is None:
            array = None  # gaps or repeats (a slice, an expand): its values are not its memory's
        key = (t.data_ptr(), t.numel(), t.dtype) if array is not None else None
        record = None if key is None else self._same_memory(t, key, array)
        ref = weakref.ref(t)
        if record is None and key is not None and _PYTHON_STATS_ELEMENTS < key[1] <= STREAM_ELEMENTS:
            # What summarize_tensor does for such a tensor, from the array already in hand.
            record = TensorRecord(tuple(t.shape), _dtype_name(t.dtype), "cpu", t.requires_grad,
                                  _array_stats(array, any_order=True), None, _capped_note(key[1], self.value_elements))
            self._memory[key] = (ref, version, record, array.flags.c_contiguous)
        elif record is None:
            record = summarize_tensor(t, value_elements=self.value_elements)
        self._made[id(t)] = (ref, version, record)
        return record

    def _same_memory(self, t: torch.Tensor, key: tuple, array: np.ndarray) -> TensorRecord | None:
        """A record of ``t`` from the statistics of the tensor summarised before in the same memory, if any."""
        seen = self._memory.get(key)
        if seen is None:
            return None
        ref, version, record, contiguous = seen
        first = ref()
        if first is None or first._version != version:
            return None  # freed (the address may hold other values now), or changed since
        return TensorRecord(tuple(t.shape), record.dtype, record.device, t.requires_grad,
                            _shared_stats(record.summary, contiguous, array), None, record.note)


def _shared_stats(stats: TensorStats, contiguous: bool, array: np.ndarray) -> TensorStats:
    """``stats`` of values in the same memory as ``array``'s (``contiguous``: theirs were), in ``array``'s order.

    Only the first and last values depend on the order.
    """
    if contiguous and array.flags.c_contiguous:
        return stats
    head, tail = _edges(array)
    return TensorStats(stats.min, stats.max, stats.mean, stats.std, stats.nan_count, stats.inf_count, head, tail)


#: The dtypes whose records :class:`GradientSummaries` shares between tensors in the same memory (read by
#: numpy as they are).
_SHARED_DTYPES = frozenset((torch.float32, torch.float64))


class PendingRecord:
    """A tensor seen at op time, to be turned into a :class:`TensorRecord` later.

    Holds the tensor itself until :meth:`freeze` (a copy, before an in-place
    op) or :meth:`resolve`. Built with ``__new__`` in :meth:`SnapshotBuffer.take`,
    the hot path, to skip an ``__init__`` call.
    """

    __slots__ = ("_buffer", "_tensor", "_version", "_frozen", "_record", "_requires_grad")

    @classmethod
    def done(cls, record: TensorRecord) -> PendingRecord:
        """A pending record that is already resolved."""
        pending = cls.__new__(cls)
        pending._record = record
        pending._tensor = None
        return pending

    def freeze(self) -> None:
        """Copy the value now: the tensor is about to be changed in place."""
        if self._record is None and not self._frozen:
            self._requires_grad = self._tensor.requires_grad  # the copy loses it
            self._tensor = self._tensor.detach().clone()
            self._frozen = True

    def resolve(self) -> TensorRecord:
        """Return the record, making it on first call."""
        record = self._record
        if record is None:
            t = self._tensor
            note = ""
            if not self._frozen and t._version != self._version:
                note = note_text(CHANGED_LATER)
            buffer = self._buffer
            record = self._record = summarize_tensor(t, value_elements=buffer.value_elements, alias=True, note=note)
            if self._frozen:
                record.requires_grad = self._requires_grad
            buffer.held_bytes -= t.nbytes
            self._tensor = None
        return record


def _memory_key(t: torch.Tensor) -> int:
    """Identify the memory a tensor lives in, cheaply: its view base's id.

    Every view of a tensor has that tensor as ``_base``, so a view and its base
    share a key. (``untyped_storage()`` would be exact, but creating the
    storage object costs more than the op being recorded.) ``.data`` and
    ``detach()`` aliases are linked explicitly by :meth:`SnapshotBuffer.alias`.
    """
    base = t._base
    return id(t if base is None else base)


_new_pending = object.__new__


class SnapshotBuffer:
    """Keeps the tensors a capture will record, copying them only before in-place ops.

    Parameters
    ----------
    value_elements : int
        See :data:`DEFAULT_VALUE_ELEMENTS`.
    budget_bytes : int
        Upper bound on the bytes of tensors kept alive by pending records.
    """

    def __init__(self, *, value_elements: int = DEFAULT_VALUE_ELEMENTS,
                 budget_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        self.value_elements = value_elements
        self.budget_bytes = budget_bytes
        self.held_bytes = 0
        self._by_storage: dict[int, list[PendingRecord]] = {}
        self._aliases: dict[int, int] = {}
        self._alias_refs: list[tuple[torch.Tensor, torch.Tensor]] = []

    def take(self, t: torch.Tensor) -> PendingRecord:
        """Remember ``t``'s current value (no copy unless it is later changed in place)."""
        if self.held_bytes > self.budget_bytes or t.layout is not _STRIDED:
            return PendingRecord.done(summarize_tensor(t, value_elements=self.value_elements))
        pending = _new_pending(PendingRecord)
        pending._buffer = self
        pending._tensor = t
        pending._version = t._version
        pending._frozen = False
        pending._record = None
        self.held_bytes += t.nbytes
        base = t._base
        key = id(t if base is None else base)  # see _memory_key
        key = self._aliases.get(key, key)
        bucket = self._by_storage.get(key)
        if bucket is None:
            self._by_storage[key] = [pending]
        else:
            bucket.append(pending)
        return pending

    def before_inplace(self, t: torch.Tensor) -> None:
        """``t`` is about to be modified in place: freeze every pending record sharing its memory."""
        if not self._by_storage:
            return
        key = _memory_key(t)
        pendings = self._by_storage.pop(self._aliases.get(key, key), None)
        if pendings:
            for pending in pendings:
                pending.freeze()

    def alias(self, alias: torch.Tensor, of: torch.Tensor) -> None:
        """``alias`` shares ``of``'s memory without being its view (``.data``, ``detach()``).

        Keeps ``of`` alive in the map so that its id cannot be reused.
        """
        key = _memory_key(of)
        key = self._aliases.get(key, key)
        self._aliases[_memory_key(alias)] = key
        self._alias_refs.append((alias, of))

    def take_copy(self, t: torch.Tensor) -> PendingRecord:
        """Copy ``t`` now: for values the recorder cannot protect (inside a hook)."""
        pending = self.take(t)
        pending.freeze()
        return pending

    def end_run(self) -> None:
        """The user's code has finished: nothing can change a tensor in place any more."""
        self._by_storage.clear()
        self._aliases.clear()
        self._alias_refs.clear()


def resolve_all(pending: tuple[PendingRecord | None, ...] | None) -> tuple[TensorRecord | None, ...] | None:
    """Resolve a tuple of pending records (``None`` stays ``None``)."""
    if pending is None:
        return None
    return tuple(None if p is None else p.resolve() for p in pending)
