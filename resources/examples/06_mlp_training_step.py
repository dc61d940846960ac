# A small MLP trained for three steps with SGD: three backward passes.
# Each pass has its own gradients on every node (pick the pass in the inspector);
# parameters' .grad is zeroed between steps by optimizer.zero_grad().
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
