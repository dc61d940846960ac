"""Module boxes are matched by exact path: opening ``model.1`` never touches ``model.10`` (issue 11)."""

from gradexplorer.core.analysis.grouping import GROUP_PREFIX

from .conftest import run_and_wait

TWELVE_BLOCKS = """
model = nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(12)])
loss = model(torch.ones(2, 4)).sum()
loss.backward()
"""


def _module(window, display_id: str) -> str:
    if display_id.startswith(GROUP_PREFIX):
        return display_id[len(GROUP_PREFIX):]
    return window.result.capture.graph.nodes[display_id]["module"]


def test_expanding_model_1_opens_only_that_box_and_selects_inside_it(qtbot, window):
    window.editor.setPlainText(TWELVE_BLOCKS)
    run_and_wait(qtbot, window)
    window.picture.redisplay(frozenset(f"model.{i}" for i in range(12)))
    assert {d for d in window.result.display.nodes if d.startswith(GROUP_PREFIX)} == \
        {f"{GROUP_PREFIX}model.{i}" for i in range(12)}
    window.picture.expand_group("model.10")  # one level: its two children become boxes, drawn before model.1's
    window.picture.expand_group("model.1")
    boxes = {d for d in window.result.display.nodes if d.startswith(GROUP_PREFIX)}
    assert boxes == {f"{GROUP_PREFIX}model.{i}" for i in range(12) if i not in (1, 10)} | \
        {f"{GROUP_PREFIX}model.{i}.{j}" for i in (1, 10) for j in (0, 1)}
    selected = window.graph_view.selected_node()
    assert selected is not None
    module = _module(window, selected)
    assert module == "model.1" or module.startswith("model.1."), module


NAME_PREFIXES = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block_pre = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
        self.block = nn.Sequential(nn.Linear(4, 4), nn.Tanh())

    def forward(self, x):
        return self.block(self.block_pre(x))

model = Net()
loss = model(torch.ones(2, 4)).sum()
loss.backward()
"""


def test_what_an_expanded_box_held_is_selected_not_a_module_whose_name_starts_alike(qtbot, window):
    window.editor.setPlainText(NAME_PREFIXES)
    run_and_wait(qtbot, window)
    window.picture.redisplay(frozenset({"model.block_pre", "model.block"}))
    window.picture.expand_group("model.block_pre")  # drawn first: its boxes come before model.block's
    window.picture.expand_group("model.block")
    module = _module(window, window.graph_view.selected_node())
    assert module == "model.block" or module.startswith("model.block."), module
