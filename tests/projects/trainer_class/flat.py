import torch
import torch.nn.functional as F
from torch import nn


class ConvNet(nn.Module):
    def __init__(self, channels=4, classes=3):
        super().__init__()
        self.conv1 = nn.Conv2d(1, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(channels, classes)
        self.aux_head = nn.Linear(channels, classes)

    def forward(self, x):
        x = torch.relu(self.bn(self.conv1(x)))
        x = torch.relu(self.conv2(x))
        return self.head(self.pool(x).flatten(1))


class Trainer:
    def __init__(self, model, lr, freeze_first=False):
        self.model = model
        if freeze_first:
            self.model.conv1.requires_grad_(False)
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.Adam(params, lr=lr)
        self.history = []


g = torch.Generator().manual_seed(7)
data = [(torch.randn(4, 1, 6, 6, generator=g), torch.randint(0, 3, (4,), generator=g)) for _ in range(2)]
torch.manual_seed(1)
trainer = Trainer(ConvNet(), lr=0.01, freeze_first=True)
for i, (x, y) in enumerate(data):
    trainer.optimizer.zero_grad()
    logits = trainer.model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    trainer.optimizer.step()
    trainer.history.append(loss.item())
    print(f"batch {i} loss={loss.item():.6f}")
