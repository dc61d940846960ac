from .dataset import SequenceDataset, make_loader

__all__ = ["SequenceDataset", "make_loader"]
