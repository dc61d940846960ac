# 自訂的 torch.autograd.Function：它的節點畫成「自訂」(ClampedExpBackward)。
# 它的 backward 由你撰寫：檢視器會顯示它產生的梯度，以及它用
# ctx.save_for_backward 保存的張量。
import torch


class ClampedExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.clamp(max=5.0).exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = ClampedExp.apply(x)
total = y.sum()
total.backward()
print("x.grad =", x.grad)  # 等於 exp(x)
