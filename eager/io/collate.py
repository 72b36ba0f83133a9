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
    are stacked on a new first axis, numbers become a 1-D array, strings stay as
    they come (a list; a tuple for a position of tuple/list samples, as Paddle),
    dicts collate per key and tuples/lists per position (into a list).
    The DataLoader then turns every array into a Tensor. Every sample must have
    the first one's structure (kinds, keys, lengths and array shapes), else a
    TypeError/ValueError names the field that differs.

    >>> default_collate_fn([(np.zeros(2), 1), (np.ones(2), 2)])[1]
    array([1, 2])
    """
    if not isinstance(batch, Sequence) or isinstance(batch, (str, bytes)) or len(batch) == 0:
        raise TypeError(f"default_collate_fn: argument 'batch' expected a non-empty list of samples, got {batch!r:.80}")
    return _collate(list(batch), "")


def _at(path: str) -> str:
    return f" at field {path}" if path else ""


def _refuse_mixed(batch, path: str, kinds, what: str):
    """Every sample of a field must be of the first sample's kind."""
    for i, s in enumerate(batch):
        if not isinstance(s, kinds):
            raise TypeError(f"default_collate_fn: the samples differ in kind{_at(path)}: sample 0 has {what}, sample {i} "
                            f"has {type(s).__name__}; every sample must have the same structure")


def _collate(batch, path: str):
    # A well-formed batch (every sample of one type, as from one Dataset) pays one set of
    # types per field; the per-sample checks that name a differing field run only when
    # the types differ or NumPy refuses to stack.
    sample = batch[0]
    uniform = len(set(map(type, batch))) == 1
    if isinstance(sample, (Tensor, np.ndarray)):
        if not uniform:
            _refuse_mixed(batch, path, (Tensor, np.ndarray), f"an array ({type(sample).__name__})")
        arrays = [s.numpy() if isinstance(s, Tensor) else s for s in batch] if not uniform or \
            type(sample) is not np.ndarray else batch
        try:
            return np.stack(arrays)
        except ValueError:
            shapes = {a.shape for a in arrays}
            if len(shapes) == 1:
                raise
            raise ValueError(f"default_collate_fn: the samples differ in shape{_at(path)}: "
                             f"{sorted(shapes, key=lambda t: (len(t), t))}; arrays are stacked, so every sample's "
                             f"must have one shape (pad them, or pass a collate_fn)") from None
    if isinstance(sample, (str, bytes)):
        return batch  # as Paddle: the list given, or a tuple for a field of tuple/list samples
    if isinstance(sample, (numbers.Number, np.generic)):
        if not uniform:
            _refuse_mixed(batch, path, (numbers.Number, np.generic), "a number")
        return np.array(batch)
    if isinstance(sample, Mapping):
        if not uniform:
            _refuse_mixed(batch, path, Mapping, "a dict")
        size = len(sample)
        try:  # samples of one size holding every key of the first have its keys
            if any(len(s) != size for s in batch):
                raise KeyError
            fields = {key: [s[key] for s in batch] for key in sample}
        except KeyError:
            i = next(i for i, s in enumerate(batch) if s.keys() != sample.keys())
            raise ValueError(f"default_collate_fn: the samples differ in keys{_at(path)}: sample 0 has "
                             f"{sorted(map(str, sample))}, sample {i} has {sorted(map(str, batch[i]))}; every "
                             f"sample must have the same structure") from None
        return {key: _collate(values, f"{path}[{key!r}]") for key, values in fields.items()}
    if isinstance(sample, Sequence):
        if not uniform:
            for i, s in enumerate(batch):
                if not isinstance(s, Sequence) or isinstance(s, (str, bytes)):
                    raise TypeError(f"default_collate_fn: the samples differ in kind{_at(path)}: sample 0 has a "
                                    f"{type(sample).__name__}, sample {i} has {type(s).__name__}; every sample "
                                    f"must have the same structure")
        length = len(sample)
        if any(len(s) != length for s in batch):
            raise ValueError(f"default_collate_fn: the samples differ in length{_at(path)}: "
                             f"{sorted({len(s) for s in batch})}; every sample must have the same structure")
        return [_collate(fields, f"{path}[{j}]") for j, fields in enumerate(zip(*batch))]
    raise TypeError(f"default_collate_fn: a sample field must be a Tensor, NumPy array, number, string, dict, "
                    f"list or tuple, got {type(sample).__name__}{_at(path)}")


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
    """A collated batch with every NumPy array turned into an eager Tensor and its
    tuples into lists, as Paddle's DataLoader gives them; NumPy scalars (from
    ``batch_size=None`` or a ``collate_fn``) stay NumPy scalars, as in Paddle."""
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "USOV":  # text or objects: no Tensor holds them
            return data
        return to_tensor(data, place=place)
    if isinstance(data, dict):
        return {key: to_tensors(value, place) for key, value in data.items()}
    if isinstance(data, (list, tuple)) and not hasattr(data, "_fields"):
        return [to_tensors(value, place) for value in data]
    return data


__all__ = ["default_collate_fn", "default_convert_fn"]
