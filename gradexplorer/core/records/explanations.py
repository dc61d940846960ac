"""Why a name gets a gradient or not: the reason codes and the :class:`Explanation` record.

The codes are the vocabulary of :mod:`gradexplorer.core.analysis.explain`,
which decides them; sessions store the records.
"""

from __future__ import annotations

from dataclasses import dataclass

from .phrases import Phrase

__all__ = ["Explanation", "REASONS", "Reason"]


@dataclass(frozen=True)
class Reason:
    """One reason code: its severity and a one-line meaning."""

    severity: str
    meaning: str


#: Every reason code an :class:`Explanation` can carry.
REASONS: dict[str, Reason] = {
    "alias": Reason("note", "a second name for the same tensor object (`b = a`)"),
    "no_grad": Reason("problem", "made by an op with grad mode off (torch.no_grad(), set_grad_enabled(False)): no grad_fn"),
    "inference_mode": Reason("problem", "made under torch.inference_mode(): can never require grad"),
    "detached": Reason("problem", "made by .detach(): cut from the graph"),
    "data": Reason("problem", "made by .data: cut from the graph, in-place changes untracked"),
    "view_no_grad": Reason("problem", "a view made with grad mode off: no grad_fn; in-place edits with grad mode on raise"),
    "view": Reason("ok", "a view of another tensor; gradients reach the base through it"),
    "integer_dtype": Reason("note", "an integer or bool tensor: cannot require grad"),
    "graph_cut": Reason("problem", "computed from a tensor that requires grad through a step with no derivative "
                                   "(argmax, a comparison, sampling, .item(), NumPy): no graph leads back"),
    "no_requires_grad": Reason("note", "a tensor that never asked for gradients: a constant to autograd (input data)"),
    "buffer": Reason("note", "a module buffer (running statistics): updated outside autograd"),
    "gradient_tensor": Reason("note", "a gradient a hook kept: gradients need no gradient"),
    "grad_switched_off": Reason("problem", "requires_grad was turned off by the code (requires_grad_(False))"),
    "leaf_no_backward": Reason("problem", "a leaf that requires grad, but no backward pass ran"),
    "leaf_unreachable": Reason("problem", "a leaf that requires grad, but no pass delivered a gradient: .grad is None"),
    "leaf_excluded": Reason("problem", "on a pass's graph, but the pass was limited by inputs= to other tensors"),
    "pass_raised": Reason("problem", "on a pass's graph, but the pass raised before reaching it"),
    "grad_returned": Reason("ok", "torch.autograd.grad returned its gradient instead of accumulating into .grad"),
    "grad_set_by_code": Reason("note", "no pass delivered a gradient; the code assigned .grad itself"),
    "leaf_grad": Reason("ok", "a leaf whose .grad holds what exactly one pass delivered"),
    "grad_accumulated": Reason("ok", "a leaf whose .grad is the sum of several passes (or added to an existing .grad)"),
    "grad_reset": Reason("ok", "a leaf whose .grad was reset between passes: it holds only the later one(s)"),
    "grad_edited": Reason("note", "a leaf whose .grad was changed by code or a hook (clipped, scaled, assigned)"),
    "grad_reduced": Reason("ok", "a DistributedDataParallel reducer wrote .grad: the mean over the processes"),
    "grad_consumed": Reason("note", "a hook took the gradient during the pass (.grad set to None, optimizer in backward)"),
    "hook_raised": Reason("problem", "a hook on this tensor raised: the pass stopped there"),
    "hook_modified": Reason("ok", "a hook replaced or changed in place the gradient flowing to this tensor"),
    "retains_grad": Reason("ok", "an intermediate that keeps .grad thanks to retain_grad()"),
    "intermediate": Reason("ok", "an intermediate result: gradient seen on its node, no .grad"),
}


@dataclass(frozen=True)
class Explanation:
    """Why one name's tensor does or does not get a gradient.

    Attributes
    ----------
    name : str
        The name this is about (``"b"``).
    code : str
        A reason code from the module docstring.
    phrase : Phrase
        The explanation as a template and its facts (what a session keeps);
        :attr:`sentence` is it in English, ``phrase.render(translate)`` in
        the reader's language.
    line : int or None
        The line that caused it (where the tensor was made, the hook was
        registered, ...), when known.
    node : str or None
        Graph node id of the tensor, if it is in the graph.
    severity : str
        ``"problem"``, ``"note"`` or ``"ok"`` (see :data:`REASONS`).
    file : str or None
        The file of ``line``: None for the program, else the path relative to
        the project folder (``"pkg/model.py"``).
    """

    name: str
    code: str
    phrase: Phrase
    line: int | None = None
    node: str | None = None
    severity: str = "ok"
    file: str | None = None

    @property
    def sentence(self) -> str:
        """The explanation in English (the CLI, reports, tests)."""
        return self.phrase.render()
