import torch
from torch import nn


class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, dim=6):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.classifier = nn.Linear(dim, 1)

    def forward(self, tokens):
        states, last = self.gru(self.embedding(tokens))
        return self.classifier(last[-1]).squeeze(-1)
