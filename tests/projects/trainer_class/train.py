import sys

import torch

from model import ConvNet
from trainer import Trainer


def batches(n, seed):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(4, 1, 6, 6, generator=g), torch.randint(0, 3, (4,), generator=g)) for _ in range(n)]


def main(argv):
    freeze = "--freeze" in argv
    torch.manual_seed(1)
    trainer = Trainer(ConvNet(), lr=0.01, freeze_first=freeze)
    trainer.fit(batches(2, 7))
    print("frozen:", freeze, "history:", [round(v, 6) for v in trainer.history])


if __name__ == "__main__":
    main(sys.argv[1:])
