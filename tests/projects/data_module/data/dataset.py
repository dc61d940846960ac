from pathlib import Path

import torch
from torch.utils.data import DataLoader, Dataset

VOCAB_FILE = Path(__file__).with_name("vocab.txt")


class SequenceDataset(Dataset):
    """Token sequences whose label is whether token 'b' appears more than 'a'."""

    def __init__(self, n, length, seed):
        self.vocab = VOCAB_FILE.read_text(encoding="utf-8").split()
        g = torch.Generator().manual_seed(seed)
        self.tokens = torch.randint(0, len(self.vocab), (n, length), generator=g)
        a, b = self.vocab.index("a"), self.vocab.index("b")
        self.labels = ((self.tokens == b).sum(1) > (self.tokens == a).sum(1)).float()

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, i):
        return self.tokens[i], self.labels[i]


def make_loader(n, length, batch_size, seed):
    return DataLoader(SequenceDataset(n, length, seed), batch_size=batch_size, shuffle=False, num_workers=0)
