import torch
from torch import nn


class ConvNet(nn.Module):
    """A tiny CNN. ``aux_head`` is built but never used in forward: its parameters get no gradient."""

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
