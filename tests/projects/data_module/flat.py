import torch
from torch import nn

vocab = ["a", "b", "c", "d", "e"]
g = torch.Generator().manual_seed(11)
all_tokens = torch.randint(0, 5, (12, 5), generator=g)
all_labels = ((all_tokens == 1).sum(1) > (all_tokens == 0).sum(1)).float()


class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, dim=6):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim)
        self.gru = nn.GRU(dim, dim, batch_first=True)
        self.classifier = nn.Linear(dim, 1)

    def forward(self, tokens):
        states, last = self.gru(self.embedding(tokens))
        return self.classifier(last[-1]).squeeze(-1)


torch.manual_seed(5)
model = GRUClassifier(vocab_size=5)
optimizer = torch.optim.RMSprop(model.parameters(), lr=0.01)
losses = []
for start in range(0, 12, 4):
    tokens, labels = all_tokens[start:start + 4], all_labels[start:start + 4]
    optimizer.zero_grad()
    logits = model(tokens)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
    optimizer.step()
    losses.append(loss.item())
print("losses", " ".join(f"{v:.6f}" for v in losses))
