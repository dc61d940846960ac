# A 2-layer TransformerEncoder, one training step with Adam.
# It opens as an overview: each encoder layer is one box (double-click to open it,
# or use the depth slider); the stray box "layer" is the prototype layer that
# nn.TransformerEncoder copies, whose parameters never take part.
# With NUM_LAYERS = 3 or more, identical layers fold into one "×N" pattern box.
import torch
from torch import nn

NUM_LAYERS = 2
torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True, dropout=0.0)
model = nn.TransformerEncoder(layer, num_layers=NUM_LAYERS, enable_nested_tensor=False)
head = nn.Linear(32, 1)
optimizer = torch.optim.Adam([*model.parameters(), *head.parameters()], lr=1e-3)
x = torch.randn(4, 10, 32)
target = torch.randn(4, 1)

optimizer.zero_grad()
prediction = head(model(x).mean(dim=1))
loss = nn.functional.mse_loss(prediction, target)
loss.backward()
optimizer.step()
print(f"loss {loss.item():.4f}")
