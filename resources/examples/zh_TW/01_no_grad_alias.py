a = torch.tensor(1.0, requires_grad=True)
with torch.no_grad():
    b = a
b.backward()
print("a.grad =", a.grad)

# ---- 要看什麼 ---------------------------------------------------------------
# 出自筆記〈PyTorch no_grad〉的第一個程式（程式碼保留筆記中的
# 行號；和筆記一樣，編輯器已預先定義 `torch`）。
# `b = a` 只是替張量多取一個名字：圖中只有「一個」節點，名稱為
# "a, b"，而 a.grad 是 1.0。no_grad 只影響在它底下由運算「產生」的
# 張量，而 `b = a` 什麼也沒有產生。
