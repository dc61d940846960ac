"""A small MLP classifier; its temperature is a plain tensor attribute (a common slip)."""

import torch
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
