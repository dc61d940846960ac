import torch
from torch import nn


@torch.no_grad()
def init_weights(module):
    for sub in module.modules():
        if isinstance(sub, nn.Linear):
            nn.init.normal_(sub.weight, std=0.3)
            nn.init.zeros_(sub.bias)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.lin = nn.Linear(width, width)

    def forward(self, x):
        h = torch.relu(self.lin(self.norm(x)))
        return x + h


class Net(nn.Module):
    def __init__(self, width=6, depth=3):
        super().__init__()
        self.embed = nn.Linear(3, width)
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))
        self.out = nn.Linear(width, 1)
        self.offset = torch.zeros(1)
        init_weights(self)

    def forward(self, x):
        h = self.embed(x)
        for block in self.blocks:
            h = block(h)
        return self.out(h) + self.offset


torch.manual_seed(3)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.linspace(-1, 1, 30).reshape(10, 3)
target = x.sum(dim=1, keepdim=True)
for step in range(2):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), target)
    loss.backward()
    opt.step()
    print(f"{step}\t{loss.item():.6f}")
