# An LSTM language model unrolled by hand: one nn.LSTMCell called for 12 time steps.
# It opens as three boxes (embedding, cell, head). Every call of the cell records into
# the same box "model.cell": double-click it to see the 12 steps chained through h and c,
# and the head's box to see the 12 calls of one nn.Linear sharing its weight.
import torch
from torch import nn

torch.manual_seed(0)


class CharModel(nn.Module):
    def __init__(self, vocabulary=30, width=24):
        super().__init__()
        self.width = width
        self.embed = nn.Embedding(vocabulary, 16)
        self.cell = nn.LSTMCell(16, width)
        self.head = nn.Linear(width, vocabulary)

    def forward(self, tokens):
        h = torch.zeros(tokens.shape[0], self.width)
        c = torch.zeros(tokens.shape[0], self.width)
        logits = []
        for t in range(tokens.shape[1]):
            h, c = self.cell(self.embed(tokens[:, t]), (h, c))
            logits.append(self.head(h))
        return torch.stack(logits, dim=1)


model = CharModel()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
tokens = torch.randint(0, 30, (4, 13))

optimizer.zero_grad()
logits = model(tokens[:, :-1])
loss = nn.functional.cross_entropy(logits.reshape(-1, 30), tokens[:, 1:].reshape(-1))
loss.backward()
optimizer.step()
print(f"loss {loss.item():.4f}")
