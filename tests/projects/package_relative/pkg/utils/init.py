import torch
from torch import nn


@torch.no_grad()
def init_weights(module):
    for sub in module.modules():
        if isinstance(sub, nn.Linear):
            nn.init.normal_(sub.weight, std=0.3)
            nn.init.zeros_(sub.bias)
