"""A user's own script that records one training step with gradexplorer's API.

python run.py OUT.gxsession     records the second step and saves it
python run.py --no-record       the same program, without gradexplorer
"""

import contextlib
import sys

import torch

from model import Scorer


def train_step(model, opt, x, y, recorder):
    with recorder as rec:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        print(f"loss {loss.item():.6f}")
    return rec


def main(argv):
    record = argv[0] != "--no-record"
    torch.manual_seed(9)
    model = Scorer()
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.2)
    x, y = torch.randn(6, 4), torch.randn(6)
    train_step(model, opt, x, y, contextlib.nullcontext())
    if record:
        import gradexplorer

        rec = train_step(model, opt, x, y, gradexplorer.record())
        rec.save(argv[0])
        print(rec.summary().splitlines()[0])
    else:
        train_step(model, opt, x, y, contextlib.nullcontext())


if __name__ == "__main__":
    main(sys.argv[1:])
