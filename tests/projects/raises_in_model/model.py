import torch
from torch import nn


class Reshaper(nn.Module):
    """Works for batches of 4 only: the reshape below assumes it."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    def forward(self, x):
        h = self.lin(x)
        flat = h.reshape(4 * 2)
        return flat.sum()
