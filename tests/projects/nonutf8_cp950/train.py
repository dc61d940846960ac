# -*- coding: cp950 -*-
"""線性回歸：用 cp950 編碼存檔的訓練腳本（Big5 的 Windows 版本）。"""
import torch

from model import Regressor

標籤 = "損失"


def 訓練(步數):
    torch.manual_seed(2)
    模型 = Regressor()
    最佳化器 = torch.optim.SGD(模型.parameters(), lr=0.1)
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = torch.tensor([1.0, 0.0, -1.0])
    for 步 in range(步數):
        最佳化器.zero_grad()
        損失 = ((模型(x) - y) ** 2).mean()
        損失.backward()
        最佳化器.step()
        print(f"第 {步} 步 {標籤} = {損失.item():.6f}")


if __name__ == "__main__":
    訓練(2)
