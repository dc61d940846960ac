"""Small programs shared by the core and the GUI tests."""

import textwrap

#: The seed notes' next_functions lesson: a=1.1, b=1.2, c=1.3 get 1.56, 1.43, 1.32; d's hook prints "d 1.3".
SEED_LESSON = """\
a = torch.tensor(1.1, requires_grad=True)
b = torch.tensor(1.2, requires_grad=True)
c = torch.tensor(1.3, requires_grad=True)
d = a * b
d.register_hook(lambda g: print("d", g.item()))
e = d * c
e.backward()
"""

#: Nested modules (model.2 is a Sequential inside the Sequential), one backward.
#: The seed notes' first no_grad program: ``b = a`` is only a second name (a.grad is 1.0 after b.backward()).
ALIAS_LESSON = "a = torch.tensor(1.0, requires_grad=True)\nwith torch.no_grad():\n    b = a\nb.backward()\n"

#: The register_buffer lesson's pitfall: a plain tensor attribute stays behind when the module moves.
PLAIN_ATTRIBUTE = textwrap.dedent("""\
    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(2))
            self.a = torch.tensor(0.1)


    layer = Layer().to("meta")
""")

MODEL = textwrap.dedent("""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Sequential(nn.Linear(8, 8), nn.ReLU()), nn.Linear(8, 1))
    x = torch.randn(5, 4)
    loss = model(x).pow(2).mean()
    loss.backward()
""")


#: A leaf whose .grad is set before the first pass, clipped between passes,
#: and a third pass that raises (an in-place change of a saved tensor) at line 8.
EDITED_LOOP = textwrap.dedent("""\
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    w.grad = torch.tensor([1.0, 1.0])
    (w * w).sum().backward()
    torch.nn.utils.clip_grad_norm_([w], 1.0)
    (w * 2).sum().backward()
    y = w.sigmoid()
    y.add_(1)
    y.sum().backward()
""")


#: A 3-step CNN training loop (the pass view's tests, docs/pass-view-cnn.png and torchviz's picture of it).
CNN_LOOP = """\
torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
images, labels = torch.randn(4, 1, 6, 6), torch.tensor([0, 1, 2, 1])
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    opt.step()
"""


def write_project(tmp_path, files: dict[str, str], script: str = "train.py"):
    """A project folder of ``files`` (name -> text) and an empty folder elsewhere to run it from.

    Returns ``(the script's path, the other folder)``: the script runs as ``python SCRIPT`` would from a
    folder that is not its own (its imports are found beside it, not in the working folder).
    """
    project = tmp_path / "proj"
    project.mkdir()
    for name, text in files.items():
        (project / name).write_text(text, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return project / script, elsewhere
