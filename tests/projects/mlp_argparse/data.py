import torch


def make_batches(n_batches, batch_size, n_in, n_classes, seed):
    generator = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n_batches):
        x = torch.randn(batch_size, n_in, generator=generator)
        y = torch.randint(0, n_classes, (batch_size,), generator=generator)
        batches.append((x, y))
    return batches
