"""Data loading (Paddle's ``paddle.io``): datasets, samplers and DataLoader."""
from .dataset import Dataset, IterableDataset

__all__ = ["Dataset", "IterableDataset"]
