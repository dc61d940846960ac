import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, lr, freeze_first=False):
        self.model = model
        if freeze_first:
            self.model.conv1.requires_grad_(False)
        params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.Adam(params, lr=lr)
        self.history = []

    def step(self, x, y):
        self.optimizer.zero_grad()
        logits = self.model(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        self.optimizer.step()
        self.history.append(loss.item())
        return loss

    def fit(self, batches):
        for i, (x, y) in enumerate(batches):
            loss = self.step(x, y)
            print(f"batch {i} loss={loss.item():.6f}")
