# 視圖與原地運算。`row` 是 `base` 的視圖（共用記憶體）。原地的
# mul_ 改寫了歷史：base 的 grad_fn 變成 CopySlices（它包住 mul_ 的
# MulBackward0），row 的則變成 AsStridedBackward0，也就是它的視圖。第一個
# MulBackward0 (w * 1.0) 保留它執行當時的值，全部是 1，
# 雖然 base 現在是 10：數值是在運算執行時記錄的。
import torch

w = torch.ones(2, 3, requires_grad=True)
base = w * 1.0          # 一個可以原地修改的非葉節點
row = base[0]           # base 的一個視圖
row.mul_(10)            # 原地修改：base 也跟著改變
total = base.sum()
total.backward()
print("w.grad =", w.grad)
