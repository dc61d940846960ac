# 二階反向傳播：使用 create_graph=True 的 torch.autograd.grad 讓一階
# 導數成為有自己計算圖的張量，再對它微分一次。
# 對 y = x**3 在 x = 2：dy/dx = 3x^2 = 12，d2y/dx2 = 6x = 12。
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)
print("dy/dx =", dy_dx.item(), " d2y/dx2 =", d2y_dx2.item())
