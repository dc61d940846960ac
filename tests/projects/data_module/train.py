import torch

from data import make_loader
from models.rnn import GRUClassifier
from progress import progress


def run_epoch(model, loader, optimizer):
    losses = []
    for tokens, labels in progress(loader, len(loader), "train"):
        optimizer.zero_grad()
        logits = model(tokens)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
        optimizer.step()
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(5)
    loader = make_loader(n=12, length=5, batch_size=4, seed=11)
    model = GRUClassifier(vocab_size=5)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=0.01)
    losses = run_epoch(model, loader, optimizer)
    print("losses", " ".join(f"{v:.6f}" for v in losses))


if __name__ == "__main__":
    main()
