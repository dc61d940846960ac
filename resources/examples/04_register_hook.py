# From the notes, "register_hook": an intermediate tensor (d) has no .grad, but a
# hook sees its gradient. grads['d'] is 1.3, and gradexplorer shows the same 1.3
# on d's node (MulBackward0) without any hook of yours.
import torch

a = torch.tensor(1.1, requires_grad=True)
b = torch.tensor(1.2, requires_grad=True)
c = torch.tensor(1.3, requires_grad=True)
d = a * b
e = d * c

grads = {}
def save_grad(name):
    def hook(grad):
        grads[name] = grad
    return hook
d.register_hook(save_grad('d'))

e.backward()
print("grads['d'] =", grads['d'])
