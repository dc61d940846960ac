import torch
from torch import nn

SEEN = []


class Critic(nn.Module):
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


torch.manual_seed(6)
critic = Critic()
opt = torch.optim.SGD(critic.parameters(), lr=0.1)
points = torch.randn(5, 2)
for step in range(2):
    opt.zero_grad()
    mixed = points.clone().requires_grad_(True)
    scores = critic(mixed)
    (grads,) = torch.autograd.grad(scores.sum(), mixed, create_graph=True)
    penalty = ((grads.norm(dim=1) - 1) ** 2).mean()
    loss = critic(points).mean() + 10 * penalty
    loss.backward()
    opt.step()
    print(f"step {step}: penalty {penalty.item():.6f} loss {loss.item():.6f}")
print("node hook calls:", len(SEEN))
