# From the notes "PyTorch register_buffer", fixed so it runs.
# A plain tensor attribute (Layer.a) does not follow module.to(...); a buffer does.
# The module is built on cpu and moved to the device you picked. On cpu there is
# nowhere to move, so it moves to "meta" instead (shape without data): the
# pitfall shows the same way. Look at the Modules pane: layer.a stays on cpu with
# a register_buffer hint; fixed.a moved with fixed.w.
import torch
from torch import nn

target = device if device.type != "cpu" else torch.device("meta")


class Layer(nn.Module):
    def __init__(self, num_outputs, num_inputs):
        super().__init__()
        self.w = nn.Parameter(torch.randn(num_outputs, num_inputs))
        self.a = torch.tensor(0.1)  # plain attribute: not registered, does not move


class FixedLayer(nn.Module):
    def __init__(self, num_outputs, num_inputs):
        super().__init__()
        self.w = nn.Parameter(torch.randn(num_outputs, num_inputs))
        self.register_buffer("a", torch.tensor(0.1))  # a buffer moves with the module


with torch.device("cpu"):  # build on cpu, as a training script does
    layer = Layer(10, 100)
    fixed = FixedLayer(10, 100)
layer = layer.to(target)
fixed = fixed.to(target)
print("layer.w:", layer.w.device, " layer.a:", layer.a.device)
print("fixed.w:", fixed.w.device, " fixed.a:", fixed.a.device)
