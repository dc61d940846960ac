import torch
from torch import nn


class Reshaper(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    def forward(self, x):
        h = self.lin(x)
        flat = h.reshape(4 * 2)
        return flat.sum()


torch.manual_seed(4)
model = Reshaper()
for size in [4, 5]:
    x = torch.randn(size, 3)
    loss = model(x)
    loss.backward()
    print(f"batch of {size}: loss {loss.item():.6f}, grad norm {model.lin.weight.grad.norm():.6f}")
