# A custom torch.autograd.Function: its node is drawn as "custom" (ClampedExpBackward).
# Its backward is yours: the inspector shows the gradient it produced and the
# tensor it saved with ctx.save_for_backward.
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
print("x.grad =", x.grad)  # equals exp(x)
