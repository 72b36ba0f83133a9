"""Two framework helpers of Paddle's top level a training script may call:
``paddle.check_shape`` (the check creation functions run on a ``shape``
argument) and ``paddle.disable_signal_handler``.

>>> eager.check_shape([2, 3], "zeros")
>>> eager.disable_signal_handler()
"""
from __future__ import annotations

import numbers

from phi.common import convert_dtype

from .tensor import Tensor

__all__ = ["check_shape", "disable_signal_handler"]


def _type_names(types) -> str:
    types = types if isinstance(types, tuple) else (types,)
    return ", ".join(t.__name__ for t in types)


def check_shape(shape, op_name, expected_shape_type=(list, tuple, Tensor), expected_element_type=(int, Tensor),
                expected_tensor_dtype=("int32", "int64")) -> None:
    """Checks a ``shape`` argument of ``op_name`` as Paddle's ``paddle.check_shape``:
    ``shape`` must be one of ``expected_shape_type`` (a list, a tuple or a Tensor),
    each element (of a list or tuple) one of ``expected_element_type`` (an int or a
    one-element Tensor), and a Tensor's dtype one of ``expected_tensor_dtype``.
    Raises TypeError naming ``op_name`` otherwise; returns None. Paddle runs these
    checks only while building a static program; eager runs them whenever called.

    >>> eager.check_shape([2, eager.to_tensor(3)], "zeros")
    >>> eager.check_shape("2x3", "zeros")
    Traceback (most recent call last):
    TypeError: zeros: argument 'shape' expected list, tuple, Tensor, got str '2x3'
    """
    if not isinstance(op_name, str):
        raise TypeError(f"check_shape: argument 'op_name' expected a str, got {type(op_name).__name__}")
    dtypes = () if expected_tensor_dtype is None else tuple(convert_dtype(d) for d in expected_tensor_dtype)
    if not isinstance(shape, expected_shape_type):
        raise TypeError(f"{op_name}: argument 'shape' expected {_type_names(expected_shape_type)}, got "
                        f"{type(shape).__name__} {shape!r}")
    items = [shape] if isinstance(shape, Tensor) else list(shape)
    what = "shape" if isinstance(shape, Tensor) else "element of shape"
    for item in items:
        if isinstance(item, Tensor):
            if dtypes and item.dtype not in dtypes:
                raise TypeError(f"{op_name}: {what} expected a tensor of dtype "
                                f"{', '.join(str(d) for d in dtypes)}, got {item.dtype}")
            continue
        element_types = expected_element_type
        ok = isinstance(item, element_types) and not isinstance(item, bool)
        if not ok and int in (element_types if isinstance(element_types, tuple) else (element_types,)):
            ok = isinstance(item, numbers.Integral) and not isinstance(item, bool)  # NumPy ints too
        if not ok:
            raise TypeError(f"{op_name}: {what} expected {_type_names(element_types)}, got "
                            f"{type(item).__name__} {item!r}")


def disable_signal_handler() -> None:
    """Paddle's ``paddle.disable_signal_handler``: Paddle's C++ core installs handlers
    for SIGSEGV, SIGTERM, ... that print its own stack; this call removes them so
    another library's handlers (or Python's defaults) act. eager is pure Python
    and installs none, so Python's handlers are already the ones in place and the
    call changes nothing.

    >>> eager.disable_signal_handler()
    """
