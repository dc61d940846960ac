a = torch.tensor(1.0, requires_grad=True)
with torch.no_grad():
    b = a
b.backward()
print("a.grad =", a.grad)

# ---- What to look at ------------------------------------------------------
# From the notes "PyTorch no_grad", first program (the code keeps the notes'
# line numbers; `torch` is predefined in the editor, as in the notes).
# `b = a` only gives the tensor a second name: the graph has ONE node named
# "a, b", and a.grad is 1.0. no_grad affects only tensors that operations
# inside it create, and `b = a` creates nothing.
