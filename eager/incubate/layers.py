"""Paddle's ``paddle.incubate.layers``: the two of its functions that run in a
dynamic graph, ``partial_concat`` and ``partial_sum`` (the rest are static-graph
layers). Both take the same column window of several 2-D tensors and join the
windows; composed of slicing, concat and add, so they differentiate as those do.
"""
from __future__ import annotations

from ..composite import _paddle_api as _check
from ..composite._paddle_api import composed_in
from ..generated import forward_api as _F

_composed = composed_in("incubate.layers")


def _windows(op: str, input, start_index, length) -> list:
    """Each input's columns ``[start, start + length)`` (length -1: to the end)."""
    tensors = _check.tensor_list(op, "input", input)
    shape = tensors[0].shape
    for k, t in enumerate(tensors):
        if t.ndim != 2:
            raise ValueError(f"{op}: argument 'input' expected 2-D Tensors, got shape {t.shape} at position {k}")
        if t.shape != shape or t.dtype != tensors[0].dtype:
            raise ValueError(f"{op}: argument 'input' expected Tensors of one shape and dtype, got "
                             f"{[(x.shape, str(x.dtype)) for x in tensors]}")
    columns = shape[1]
    start = _check.integer(op, "start_index", start_index)
    length = _check.integer(op, "length", length, minimum=-1)
    if not -columns <= start < columns:
        raise ValueError(f"{op}: argument 'start_index' expected an int in [{-columns}, {columns}) (the inputs "
                         f"have {columns} columns), got {start}")
    start = start + columns if start < 0 else start
    end = columns if length == -1 else start + length
    if end > columns:
        raise ValueError(f"{op}: arguments 'start_index' + 'length' expected at most {columns} (the inputs' "
                         f"columns), got {start} + {length}")
    return [t[:, start:end] for t in tensors]


@_composed
def partial_concat(input, start_index=0, length=-1):
    """Concatenates, along axis 1, columns ``[start_index, start_index + length)``
    of every 2-D tensor in ``input`` (all of one shape); ``length=-1`` takes the
    columns to the end, a negative ``start_index`` counts from the end.

    >>> x = eager.to_tensor([[1.0, 2.0, 3.0]])
    >>> y = eager.to_tensor([[4.0, 5.0, 6.0]])
    >>> eager.incubate.layers.partial_concat([x, y], start_index=0, length=2).numpy()
    array([[1., 2., 4., 5.]], dtype=float32)
    """
    return _F.concat(_windows("incubate.layers.partial_concat", input, start_index, length), 1)


@_composed
def partial_sum(input, start_index=0, length=-1):
    """Adds up columns ``[start_index, start_index + length)`` of every 2-D tensor
    in ``input`` (all of one shape): the window's shape, ``[N, length]``.

    >>> x = eager.to_tensor([[1.0, 2.0, 3.0]])
    >>> y = eager.to_tensor([[4.0, 5.0, 6.0]])
    >>> eager.incubate.layers.partial_sum([x, y], start_index=1, length=2).numpy()
    array([[7., 9.]], dtype=float32)
    """
    windows = _windows("incubate.layers.partial_sum", input, start_index, length)
    total = windows[0]
    for window in windows[1:]:
        total = _F.add(total, window)
    return total


__all__ = ["partial_concat", "partial_sum"]
