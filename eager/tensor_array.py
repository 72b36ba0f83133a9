"""Paddle's tensor arrays in dynamic mode: ``create_array``, ``array_write``,
``array_read``, ``array_length`` and ``tensor_array_to_tensor`` (Paddle's
``paddle.tensor`` functions), and ``create_tensor``.

In Paddle's dynamic graph a tensor array is a plain Python list of Tensors, and
so it is here: the functions read and write the list, and an index is an int or
a one-element integer Tensor.

>>> arr = eager.tensor.create_array("float32")
>>> arr = eager.tensor.array_write(eager.ones([2]), 0, arr)
>>> eager.tensor.array_length(arr), eager.tensor.array_read(arr, 0).shape
(1, [2])
"""
from __future__ import annotations

import numbers

from phi.core import DenseTensor
from phi.core.dense_tensor import ArraySpec
from phi.core.errors import AssertedArgumentError

from .arguments import describe, to_dtype
from .composite import _paddle_api as _check
from .creation import to_tensor
from .framework import current_place
from .generated import forward_api as _F
from .tensor import Tensor

__all__ = ["create_array", "array_write", "array_read", "array_length", "tensor_array_to_tensor", "create_tensor"]


def _array(op: str, array) -> list:
    if not isinstance(array, list) or not all(isinstance(item, Tensor) for item in array):
        raise TypeError(f"{op}: argument 'array' expected a tensor array (a list of Tensors, from create_array), "
                        f"got {describe(array)}")
    return array


def _index(op: str, i) -> int:
    """An array position: a non-negative int, or an integer Tensor holding one."""
    if isinstance(i, Tensor):
        if not i.dtype.is_integer or i.size != 1:
            raise TypeError(f"{op}: argument 'i' expected an int or an integer Tensor of one element, got "
                            f"{i.dtype} Tensor of shape {i.shape}")
        i = int(i.numpy().reshape(()))
    elif not isinstance(i, numbers.Integral) or isinstance(i, bool):
        raise TypeError(f"{op}: argument 'i' expected an int or an integer Tensor of one element, got {describe(i)}")
    if i < 0:
        raise ValueError(f"{op}: argument 'i' expected a position >= 0, got {i}")
    return int(i)


def create_array(dtype, initialized_list=None) -> list:
    """A new tensor array: a list of Tensors, empty or a copy of ``initialized_list``
    (Tensors). ``dtype`` names the elements' dtype, as in Paddle; the list does not
    enforce it, since a dynamic-mode array is only a list.

    >>> len(eager.tensor.create_array("float32", [eager.ones([1])]))
    1
    """
    to_dtype(dtype, "create_array", "dtype")
    if initialized_list is None:
        return []
    if not isinstance(initialized_list, (list, tuple)):
        raise TypeError(f"create_array: argument 'initialized_list' expected a list or tuple of Tensors, got "
                        f"{describe(initialized_list)}")
    for k, item in enumerate(initialized_list):
        if not isinstance(item, Tensor):
            raise TypeError(f"create_array: argument 'initialized_list' expected Tensors, element {k} is "
                            f"{describe(item)}")
    return list(initialized_list)


def array_write(x, i, array=None) -> list:
    """Writes Tensor ``x`` at position ``i`` of ``array`` (a new array when None) and
    returns the array: ``i`` below the length replaces an element, ``i`` equal to
    the length appends one (larger is an error, as in Paddle's dynamic mode).

    >>> arr = eager.tensor.array_write(eager.zeros([1]), eager.zeros([1], "int64"))
    >>> len(eager.tensor.array_write(eager.ones([1]), 1, arr))
    2
    """
    _check.tensor("array_write", "x", x)
    position = _index("array_write", i)
    array = [] if array is None else _array("array_write", array)
    if position > len(array):  # Paddle asserts it: AssertedArgumentError, also a ValueError
        raise AssertedArgumentError(f"array_write: argument 'i' expected a position <= the array's length "
                                    f"{len(array)}, got {position}")
    if position == len(array):
        array.append(x)
    else:
        array[position] = x
    return array


def array_read(array, i) -> Tensor:
    """The Tensor at position ``i`` (an int or a one-element integer Tensor) of ``array``.

    >>> eager.tensor.array_read([eager.ones([3])], 0).shape
    [3]
    """
    array = _array("array_read", array)
    position = _index("array_read", i)
    if position >= len(array):
        raise IndexError(f"array_read: argument 'i' expected a position below the array's length {len(array)}, "
                         f"got {position}")
    return array[position]


def array_length(array) -> int:
    """The number of Tensors in ``array``: a Python int, as Paddle's dynamic mode returns.

    >>> eager.tensor.array_length([eager.ones([1]), eager.ones([1])])
    2
    """
    return len(_array("array_length", array))


@_check.composed
def tensor_array_to_tensor(input, axis=1, use_stack=False):  # noqa: A002  (Paddle's name)
    """The Tensors of a tensor array joined along ``axis`` (``concat``, or ``stack`` when
    ``use_stack``), and an int64 Tensor of how many entries along ``axis`` each
    contributed (its size along axis; 1 each when stacked). Differentiable.

    >>> out, sizes = eager.tensor.tensor_array_to_tensor([eager.ones([2, 1]), eager.ones([2, 3])], axis=1)
    >>> out.shape, sizes.numpy().tolist()
    ([2, 4], [1, 3])
    """
    parts = _check.tensor_list("tensor_array_to_tensor", "input", input)
    _check.integer("tensor_array_to_tensor", "axis", axis)
    if not isinstance(use_stack, bool):
        raise TypeError(f"tensor_array_to_tensor: argument 'use_stack' expected a bool, got {describe(use_stack)}")
    if use_stack:
        return _F.stack(parts, axis), to_tensor([1] * len(parts), dtype="int64")
    out = _F.concat(parts, axis)
    ndim = len(parts[0].shape)
    return out, to_tensor([part.shape[axis % ndim] for part in parts], dtype="int64")


def create_tensor(dtype, name=None, persistable=False) -> Tensor:
    """A Tensor of ``dtype`` that holds no data yet, Paddle's
    ``paddle.tensor.create_tensor``: a placeholder for ``eager.assign(x,
    output=placeholder)`` to fill (it then takes x's shape and values). Until
    then it has shape [] (as Paddle's), prints as ``Tensor(Not initialized)``,
    and reading its values (``numpy()``, an op) is an error.

    >>> t = eager.tensor.create_tensor("float32")
    >>> t
    Tensor(Not initialized)
    >>> eager.assign(eager.ones([2]), t).shape
    [2]
    """
    kind = to_dtype(dtype, "create_tensor", "dtype")
    if kind is None:
        raise TypeError("create_tensor: argument 'dtype' expected a dtype (a DataType or a name such as "
                        "'float32'), got None")
    if not isinstance(persistable, bool):
        raise TypeError(f"create_tensor: argument 'persistable' expected a bool, got {describe(persistable)}")
    out = Tensor(DenseTensor(ArraySpec((), kind.numpy_dtype, current_place())))
    out.persistable = persistable
    return out
