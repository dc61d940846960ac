import torch
from torch import nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 2)
        self.frozen = nn.Linear(2, 2)
        self.frozen.requires_grad_(False)

    def forward(self, x):
        return self.frozen(torch.relu(self.proj(x))).sum(dim=1)


torch.manual_seed(9)
model = Scorer()
opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.2)
x, y = torch.randn(6, 4), torch.randn(6)
for step in range(2):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print(f"loss {loss.item():.6f}")
