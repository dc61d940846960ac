import argparse

import torch

from pkg.model import Net


def train(model, steps, lr):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    x = torch.linspace(-1, 1, 30).reshape(10, 3)
    target = x.sum(dim=1, keepdim=True)
    for step in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), target)
        loss.backward()
        opt.step()
        print(f"{step}\t{loss.item():.6f}")
    return loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args()
    torch.manual_seed(3)
    model = Net()
    train(model, args.steps, args.lr)


if __name__ == "__main__":
    main()
