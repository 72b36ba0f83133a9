"""Argument checks shared by the Paddle API functions that eager.composite's
modules compose from the generated ops (``eager.hstack``, ``eager.addmm``, ...).

Those functions check what they are given before running any op, so an error
names the function the user called, the argument, what was expected and what
came; an error raised by one of the ops they are built from is reworded to name
the function too (:func:`composed`). A private module: it holds no rule.
"""
from __future__ import annotations

import functools
import numbers

from phi.core.errors import ArgumentKindError, AxisError, UnsupportedDtypeError

from ..arguments import bad_tensor, in_called
from ..tensor import Tensor


def composed(function, namespace: str = ""):
    """Runs ``function``; a TypeError/ValueError/IndexError from an op it is built
    of comes back prefixed with the function's name (``hstack: concat: ...``), or
    ``<namespace>.<name>`` for a function of a Paddle namespace (``signal.stft``:
    :func:`composed_in`)."""
    name = f"{namespace}.{function.__name__}" if namespace else function.__name__

    @functools.wraps(function)
    def run(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except (TypeError, ValueError, IndexError) as error:
            raise in_called(error, name) from None

    run.paddle_api = True  # an API function, not a backward rule (eager.composite skips it)
    return run


def composed_in(namespace: str):
    """:func:`composed` for the functions of a Paddle namespace: errors name
    ``<namespace>.<function>`` (``@composed_in("signal")`` on eager.signal's stft)."""
    return functools.partial(composed, namespace=namespace)


def tensor(op: str, arg: str, value) -> Tensor:
    """``value`` if it is a Tensor, else TypeError naming op and argument."""
    if not isinstance(value, Tensor):
        raise bad_tensor(op, arg, value)
    return value


def tensor_list(op: str, arg: str, value, allow_one: bool = False) -> list:
    """A non-empty list or tuple of Tensors as a list (one Tensor too when allow_one)."""
    if allow_one and isinstance(value, Tensor):
        return [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(f"{op}: argument '{arg}' expected a non-empty list or tuple of Tensors, got "
                        f"{type(value).__name__} {value!r:.60}")
    for i, item in enumerate(value):
        if not isinstance(item, Tensor):
            raise TypeError(f"{op}: argument '{arg}' expected Tensors, element {i} is "
                            f"{type(item).__name__} {item!r:.60}")
    return list(value)


def floating(op: str, arg: str, value, complex_ok: bool = False) -> Tensor:
    """A floating-point Tensor (or a complex one, where ``complex_ok``), else TypeError
    (an UnsupportedDtypeError: also the RuntimeError Paddle's dynamic mode raises when
    no kernel takes the dtype)."""
    tensor(op, arg, value)
    if not value.dtype.is_floating_point and not (complex_ok and value.dtype.is_complex):
        kinds = "floating-point or complex Tensor" if complex_ok else \
            "floating-point Tensor (float16, float32 or float64)"
        raise UnsupportedDtypeError(f"{op}: argument '{arg}' expected a {kinds}, got {value.dtype}")
    return value


def integral(op: str, arg: str, value) -> Tensor:
    """An integer Tensor (int8 ... int64, uint8), else TypeError."""
    tensor(op, arg, value)
    if not value.dtype.is_integer:
        raise TypeError(f"{op}: argument '{arg}' expected an integer Tensor, got {value.dtype}")
    return value


def integer(op: str, arg: str, value, minimum=None) -> int:
    """A Python int (not a bool) of at least ``minimum``, else an ArgumentKindError (a
    TypeError, and the ValueError Paddle's argument parser raises) or a ValueError."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise ArgumentKindError(f"{op}: argument '{arg}' expected an int, got {type(value).__name__} {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{op}: argument '{arg}' expected an int >= {minimum}, got {value}")
    return int(value)


def number(op: str, arg: str, value) -> float:
    """A real Python/NumPy number (not a bool) as a float, else TypeError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{op}: argument '{arg}' expected a number, got {type(value).__name__} {value!r}")
    return float(value)


def axis(op: str, arg: str, value, ndim: int) -> int:
    """An axis of a tensor with ``ndim`` dimensions, negative counted from the end."""
    value = integer(op, arg, value)
    size = max(ndim, 1)
    if not -size <= value < size:
        raise AxisError(f"{op}: argument '{arg}' expected an axis in [{-size}, {size - 1}] for a "
                         f"{ndim}-d tensor, got {value}")
    return value % size


def choice(op: str, arg: str, value, options: tuple) -> str:
    """One of the strings in ``options``, else ValueError listing them (an array
    too: it is refused before ``in`` would compare it elementwise)."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{op}: argument '{arg}' expected one of {', '.join(map(repr, options))}, "
                         f"got {value!r}")
    return value


def index_dtype(op: str, value) -> str:
    """'int32' or 'int64' from a name or an eager dtype, else TypeError (UnsupportedDtypeError:
    Paddle's kernels of tril_indices / triu_indices miss other dtypes, a RuntimeError)."""
    name = getattr(value, "value", value)
    name = name.lower() if isinstance(name, str) else name
    if not isinstance(name, str) or name not in ("int32", "int64"):
        raise UnsupportedDtypeError(f"{op}: argument 'dtype' expected 'int32' or 'int64', got {value!r}")
    return name
