# The same program at top level, in one file (what gradexplorer saw before scripts ran as scripts).
import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self, n_in, hidden, n_out):
        super().__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.act = nn.Tanh()
        self.fc2 = nn.Linear(hidden, n_out)
        self.temperature = torch.tensor(1.5)

    def forward(self, x):
        h = self.act(self.fc1(x))
        logits = self.fc2(h) / self.temperature
        return logits


def make_batches(n_batches, batch_size, n_in, n_classes, seed):
    generator = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n_batches):
        x = torch.randn(batch_size, n_in, generator=generator)
        y = torch.randint(0, n_classes, (batch_size,), generator=generator)
        batches.append((x, y))
    return batches


torch.manual_seed(0)
model = MLP(4, 8, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step, (x, y) in enumerate(make_batches(3, 6, 4, 3, 0)):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.6f}")
