"""Dataset bases (Paddle's ``paddle.io.Dataset`` and ``IterableDataset``)."""
from __future__ import annotations


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(idx)`` returning one
    sample and ``__len__()``, as in Paddle.

    >>> class Squares(eager.io.Dataset):
    ...     def __getitem__(self, i):
    ...         return np.float32(i * i)
    ...     def __len__(self):
    ...         return 10
    """

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__ (a Dataset subclass's job)")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__ (a Dataset subclass's job)")


class IterableDataset(Dataset):
    """A stream-style dataset: subclasses define ``__iter__`` yielding samples."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__ (an IterableDataset subclass's job)")

    def __getitem__(self, idx):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: it is iterated, not indexed")

    def __len__(self):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: it has no len()")


__all__ = ["Dataset", "IterableDataset"]
