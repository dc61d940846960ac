# 一個小型、類似 ResNet 的 CNN（主幹、三個殘差區塊階段、輸出頭），一步 SGD。
# 它開啟時每個階段是一個方塊；打開階段可看到它的區塊，打開區塊可看到
# 殘差連接：跳接的邊在相加處與區塊的輸出會合。
# 把「顏色」切換成梯度範數，比較每個階段得到多少梯度。
import torch
from torch import nn

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, channels_in, channels_out, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(channels_in, channels_out, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels_out)
        self.conv2 = nn.Conv2d(channels_out, channels_out, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels_out)
        self.shortcut = nn.Sequential()
        if stride != 1 or channels_in != channels_out:
            self.shortcut = nn.Sequential(nn.Conv2d(channels_in, channels_out, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(channels_out))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.stage1 = nn.Sequential(Block(8, 8, 1), Block(8, 8, 1))
        self.stage2 = nn.Sequential(Block(8, 16, 2), Block(16, 16, 1))
        self.stage3 = nn.Sequential(Block(16, 32, 2), Block(32, 32, 1))
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        x = self.stage3(self.stage2(self.stage1(self.stem(x))))
        return self.head(x.mean(dim=(2, 3)))


model = ResNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
images = torch.randn(4, 3, 16, 16)
labels = torch.tensor([0, 3, 5, 9])

optimizer.zero_grad()
loss = nn.functional.cross_entropy(model(images), labels)
loss.backward()
optimizer.step()
print(f"loss {loss.item():.4f}")
