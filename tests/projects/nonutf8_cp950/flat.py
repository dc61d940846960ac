import torch
from torch import nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 1)

    def forward(self, x):
        return self.linear(x).squeeze(-1)


標籤 = "損失"
torch.manual_seed(2)
模型 = Regressor()
最佳化器 = torch.optim.SGD(模型.parameters(), lr=0.1)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = torch.tensor([1.0, 0.0, -1.0])
for 步 in range(2):
    最佳化器.zero_grad()
    損失 = ((模型(x) - y) ** 2).mean()
    損失.backward()
    最佳化器.step()
    print(f"第 {步} 步 {標籤} = {損失.item():.6f}")
