# Views and in-place ops. `row` is a view of `base` (it shares memory). The
# in-place mul_ rewrites history: base's grad_fn becomes CopySlices (it wraps the
# MulBackward0 of mul_) and row's becomes AsStridedBackward0, a view of it. The
# first MulBackward0 (w * 1.0) keeps the value it had when it ran, all ones,
# although base now holds 10s: values are recorded at op time.
import torch

w = torch.ones(2, 3, requires_grad=True)
base = w * 1.0          # a non-leaf we may modify in place
row = base[0]           # a view of base
row.mul_(10)            # in place: changes base too
total = base.sum()
total.backward()
print("w.grad =", w.grad)
