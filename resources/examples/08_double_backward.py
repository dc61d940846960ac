# Double backward: torch.autograd.grad with create_graph=True makes the first
# derivative a tensor with its own graph, which is differentiated again.
# For y = x**3 at x = 2: dy/dx = 3x^2 = 12, d2y/dx2 = 6x = 12.
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)
print("dy/dx =", dy_dx.item(), " d2y/dx2 =", d2y_dx2.item())
