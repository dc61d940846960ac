# 以 SGD 訓練三步的小型 MLP：三次反向傳播。
# 每次反向傳播在每個節點上都有自己的梯度（在檢視器中選擇第幾次）；
# 參數的 .grad 在每一步之間由 optimizer.zero_grad() 歸零。
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 4)
y = torch.randn(16, 1)

for step in range(3):
    optimizer.zero_grad()
    prediction = model(x)
    loss = nn.functional.mse_loss(prediction, y)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}")
