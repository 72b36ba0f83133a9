"""Paddle's ``paddle.io.dataloader.dataset`` path: the dataset classes and
``random_split`` of :mod:`eager.io` (the same objects)."""
from ..dataset import (ChainDataset, ComposeDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset,
                       random_split)

__all__ = ["ChainDataset", "ComposeDataset", "ConcatDataset", "Dataset", "IterableDataset", "Subset", "TensorDataset",
           "random_split"]
