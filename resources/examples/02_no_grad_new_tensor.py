a = torch.tensor(1.0, requires_grad=True)
with torch.no_grad():
    b = a + 0
b.backward()

# ---- What to look at ------------------------------------------------------
# From the notes "PyTorch no_grad", second program (same line numbers).
# `b = a + 0` is a NEW tensor made by an operation under no_grad (line 3): it
# has no grad_fn and does not require grad, so b.backward() on line 4 fails.
# The error is shown with its line, and the capture keeps what existed before
# it: `a` is still there, and the Tensors pane says why b gets no gradient.
