# 兩層的 TransformerEncoder，使用 Adam 的一步訓練。
# 它以總覽開啟：每個編碼器層是一個方塊（按兩下打開，
# 或用深度滑桿）；多出來的方塊 "layer" 是 nn.TransformerEncoder
# 複製用的原型層，它的參數從不參與運算。
# 當 NUM_LAYERS = 3 或更多時，相同的層會收合成一個「×N」樣式方塊。
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
