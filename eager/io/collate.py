"""Collating samples into batches (Paddle's ``default_collate_fn`` and
``default_convert_fn``). Batches are built as NumPy (so a worker process can
send them) and become eager Tensors in the main process."""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from .. import generated as _generated  # noqa: F401  loads the ops and Tensor's methods first
from ..creation import to_tensor
from ..tensor import Tensor


def default_collate_fn(batch):
    """Stacks a list of samples field by field into NumPy: arrays and Tensors
    are stacked on a new first axis, numbers become a 1-D array, strings stay a
    list, dicts collate per key and tuples/lists per position (into a list).
    The DataLoader then turns every array into a Tensor.

    >>> default_collate_fn([(np.zeros(2), 1), (np.ones(2), 2)])[1]
    array([1, 2])
    """
    if not isinstance(batch, Sequence) or isinstance(batch, (str, bytes)) or len(batch) == 0:
        raise TypeError(f"default_collate_fn: argument 'batch' expected a non-empty list of samples, got {batch!r:.80}")
    sample = batch[0]
    if isinstance(sample, Tensor):
        return np.stack([s.numpy() for s in batch])
    if isinstance(sample, np.ndarray):
        return np.stack(batch)
    if isinstance(sample, (str, bytes)):
        return list(batch)
    if isinstance(sample, (numbers.Number, np.generic)):
        return np.array(batch)
    if isinstance(sample, Mapping):
        return {key: default_collate_fn([s[key] for s in batch]) for key in sample}
    if isinstance(sample, Sequence):
        length = len(sample)
        if any(len(s) != length for s in batch):
            raise ValueError(f"default_collate_fn: the samples of a batch have fields of different lengths "
                             f"{sorted({len(s) for s in batch})}; every sample must have the same structure")
        return [default_collate_fn(list(fields)) for fields in zip(*batch)]
    raise TypeError(f"default_collate_fn: a sample field must be a Tensor, NumPy array, number, string, dict, "
                    f"list or tuple, got {type(sample).__name__}")


def default_convert_fn(sample):
    """Without batching (``batch_size=None``): converts the Tensors in one
    already-batched sample to NumPy, keeping its structure.

    >>> default_convert_fn({"x": np.zeros(3)})["x"].shape
    (3,)
    """
    if isinstance(sample, Tensor):
        return sample.numpy()
    if isinstance(sample, Mapping):
        return {key: default_convert_fn(value) for key, value in sample.items()}
    if isinstance(sample, (list, tuple)) and not hasattr(sample, "_fields"):
        return [default_convert_fn(value) for value in sample]
    return sample


def to_host(data):
    """A collated batch with any Tensor in it turned into NumPy (what a worker sends)."""
    if isinstance(data, Tensor):
        return data.numpy()
    if isinstance(data, dict):
        return {key: to_host(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)) and not hasattr(data, "_fields"):
        return type(data)(to_host(value) for value in data)
    return data


def to_tensors(data, place=None):
    """A collated batch with every NumPy array (and NumPy scalar) turned into an eager Tensor."""
    if isinstance(data, (np.ndarray, np.generic)):
        if np.asarray(data).dtype.kind in "USOV":  # text or objects: no Tensor holds them
            return data
        return to_tensor(np.asarray(data), place=place)
    if isinstance(data, dict):
        return {key: to_tensors(value, place) for key, value in data.items()}
    if isinstance(data, (list, tuple)) and not hasattr(data, "_fields"):
        return type(data)(to_tensors(value, place) for value in data)
    return data


__all__ = ["default_collate_fn", "default_convert_fn"]
