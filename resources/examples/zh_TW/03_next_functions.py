# 出自筆記〈PyTorch 如何追蹤 backward 路徑〉。
# 按一下葉節點：a、b、c 的值是 1.1、1.2、1.3，梯度是 1.56、1.43、
# 1.32。每個節點的「路徑」就是到達它的運算式，例如 a 是
# e.grad_fn.next_functions[0][0].next_functions[0][0]。
import torch

a = torch.tensor(1.1, requires_grad=True)
b = torch.tensor(1.2, requires_grad=True)
c = torch.tensor(1.3, requires_grad=True)
d = a * b
e = d * c
e.backward()

# 筆記中手動的做法，用來對照：
print("c:", e.grad_fn.next_functions[1][0].variable, e.grad_fn.next_functions[1][0].variable.grad)
leaf_a = e.grad_fn.next_functions[0][0].next_functions[0][0]
print("a:", leaf_a.variable, leaf_a.variable.grad, "has variable:", hasattr(leaf_a, "variable"))
