# 出自筆記〈PyTorch register_buffer〉，修正成可以執行。
# 一般的張量屬性 (Layer.a) 不會跟著 module.to(...) 移動；緩衝區會。
# 模組先在 cpu 上建立，再移到你選的裝置。在 cpu 上沒有地方可移，
# 所以改為移到 "meta"（只有形狀、沒有資料）：陷阱會以同樣的方式
# 出現。請看「模組」面板：layer.a 仍留在 cpu，並附上 register_buffer
# 的提示；fixed.a 則跟著 fixed.w 移動了。
import torch
from torch import nn

target = device if device.type != "cpu" else torch.device("meta")


class Layer(nn.Module):
    def __init__(self, num_outputs, num_inputs):
        super().__init__()
        self.w = nn.Parameter(torch.randn(num_outputs, num_inputs))
        self.a = torch.tensor(0.1)  # 一般屬性：沒有註冊，不會移動


class FixedLayer(nn.Module):
    def __init__(self, num_outputs, num_inputs):
        super().__init__()
        self.w = nn.Parameter(torch.randn(num_outputs, num_inputs))
        self.register_buffer("a", torch.tensor(0.1))  # 緩衝區會跟著模組移動


with torch.device("cpu"):  # 和訓練腳本一樣，在 cpu 上建立
    layer = Layer(10, 100)
    fixed = FixedLayer(10, 100)
layer = layer.to(target)
fixed = fixed.to(target)
print("layer.w:", layer.w.device, " layer.a:", layer.a.device)
print("fixed.w:", fixed.w.device, " fixed.a:", fixed.a.device)
