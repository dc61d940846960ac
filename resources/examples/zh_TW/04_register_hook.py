# 出自筆記〈register_hook〉：中間張量 (d) 沒有 .grad，但鉤子
# 看得到它的梯度。grads['d'] 是 1.3，而 gradexplorer 不需要你的鉤子
# 也會在 d 的節點 (MulBackward0) 上顯示同樣的 1.3。
import torch

a = torch.tensor(1.1, requires_grad=True)
b = torch.tensor(1.2, requires_grad=True)
c = torch.tensor(1.3, requires_grad=True)
d = a * b
e = d * c

grads = {}
def save_grad(name):
    def hook(grad):
        grads[name] = grad
    return hook
d.register_hook(save_grad('d'))

e.backward()
print("grads['d'] =", grads['d'])
