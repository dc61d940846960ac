import torch

from model import SEEN, Critic


def gradient_penalty(critic, points):
    mixed = points.clone().requires_grad_(True)
    scores = critic(mixed)
    (grads,) = torch.autograd.grad(scores.sum(), mixed, create_graph=True)
    return ((grads.norm(dim=1) - 1) ** 2).mean()


def main():
    torch.manual_seed(6)
    critic = Critic()
    opt = torch.optim.SGD(critic.parameters(), lr=0.1)
    points = torch.randn(5, 2)
    for step in range(2):
        opt.zero_grad()
        penalty = gradient_penalty(critic, points)
        loss = critic(points).mean() + 10 * penalty
        loss.backward()
        opt.step()
        print(f"step {step}: penalty {penalty.item():.6f} loss {loss.item():.6f}")
    print("node hook calls:", len(SEEN))


if __name__ == "__main__":
    main()
