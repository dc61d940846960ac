import torch
from torch import nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 5)
        self.out = nn.Linear(5, 1)
        self.register_buffer("shift", torch.full((1,), 0.25))

    def forward(self, x):
        return self.out(torch.sigmoid(self.hidden(x))) + self.shift
