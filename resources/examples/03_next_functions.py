# From the notes "PyTorch 如何追蹤 backward 路徑" (how PyTorch tracks the backward path).
# Click the leaves: a, b, c show values 1.1, 1.2, 1.3 and gradients 1.56, 1.43,
# 1.32. Each node's "path" is the expression that reaches it, e.g. a is
# e.grad_fn.next_functions[0][0].next_functions[0][0].
import torch

a = torch.tensor(1.1, requires_grad=True)
b = torch.tensor(1.2, requires_grad=True)
c = torch.tensor(1.3, requires_grad=True)
d = a * b
e = d * c
e.backward()

# The manual way from the notes, for comparison:
print("c:", e.grad_fn.next_functions[1][0].variable, e.grad_fn.next_functions[1][0].variable.grad)
leaf_a = e.grad_fn.next_functions[0][0].next_functions[0][0]
print("a:", leaf_a.variable, leaf_a.variable.grad, "has variable:", hasattr(leaf_a, "variable"))
