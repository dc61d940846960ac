# 手動展開的 LSTM 語言模型：同一個 nn.LSTMCell 呼叫 12 個時間步。
# 它開啟時是三個方塊（embedding、cell、head）。cell 的每次呼叫都記錄在
# 同一個方塊 "model.cell"：按兩下即可看到經由 h 與 c 串起來的 12 步，
# 打開 head 的方塊可看到共用同一個權重的 nn.Linear 的 12 次呼叫。
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
