import torch
from torch import nn

SEEN = []


class Critic(nn.Module):
    """A critic whose hidden gradient is halved by a hook, and whose output node is watched."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 4)
        self.fc2 = nn.Linear(4, 1)

    def forward(self, x):
        hidden = torch.tanh(self.fc1(x))
        if hidden.requires_grad:
            hidden.register_hook(lambda g: g * 0.5)
        out = self.fc2(hidden)
        if out.grad_fn is not None:
            out.grad_fn.register_hook(lambda grad_inputs, grad_outputs: SEEN.append(len(grad_inputs)))
        return out
