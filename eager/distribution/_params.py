"""Turning a distribution's parameters into tensors, as Paddle's distributions do.

Every parameter may be a Python number, a list or tuple, a NumPy array or a
Tensor. Numbers and lists become float32 tensors; a float32 or float64 NumPy
array keeps its dtype (other arrays become float32); a Tensor is used as it
is, so gradients flow back to it. Non-Tensor parameters take the dtype and
place of the Tensor parameters when there are some. All parameters are then
broadcast to one shape, the distribution's batch shape.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from ..autograd import no_grad
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor

_FLOATS = ("float32", "float64")


def _describe(value) -> str:
    if isinstance(value, Tensor):
        return f"a Tensor of dtype {value.dtype}"
    if isinstance(value, np.ndarray):
        return f"a NumPy array of dtype {value.dtype}"
    return type(value).__name__


def _check_kind(owner: str, name: str, value) -> None:
    if isinstance(value, bool) or isinstance(value, np.bool_):
        raise TypeError(f"{owner}: argument '{name}' expected a number, list, NumPy array or "
                        f"floating Tensor, got bool")
    if isinstance(value, Tensor):
        if not value.dtype.is_floating_point:
            raise TypeError(f"{owner}: argument '{name}' expected a float32 or float64 Tensor, "
                            f"got {_describe(value)}")
        return
    if isinstance(value, numbers.Real) or isinstance(value, (list, tuple)):
        return
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "fiu":
            raise TypeError(f"{owner}: argument '{name}' expected a numeric NumPy array, "
                            f"got {_describe(value)}")
        return
    raise TypeError(f"{owner}: argument '{name}' expected a number, list, tuple, NumPy array or "
                    f"Tensor, got {_describe(value)}")


def _as_array(owner: str, name: str, value) -> np.ndarray:
    try:
        array = np.asarray(value)
    except ValueError as error:
        raise ValueError(f"{owner}: argument '{name}' is not a rectangular array: {error}") from None
    if array.dtype.kind not in "fiu":
        raise TypeError(f"{owner}: argument '{name}' expected numbers, got elements of dtype "
                        f"{array.dtype}")
    return array


def as_params(owner: str, **params) -> list[Tensor]:
    """The parameters as tensors of one floating dtype, broadcast to one shape.

    ``owner`` names the distribution in error messages. Returns the tensors in
    the order the keywords came.
    """
    for name, value in params.items():
        _check_kind(owner, name, value)
    tensors = {name: v for name, v in params.items() if isinstance(v, Tensor)}
    dtypes = {t.dtype.value for t in tensors.values()}
    if len(dtypes) > 1:
        raise TypeError(f"{owner}: the Tensor parameters expected one dtype, got "
                        + ", ".join(f"{n}: {t.dtype}" for n, t in tensors.items()))
    arrays = {name: _as_array(owner, name, v) for name, v in params.items() if name not in tensors}
    if tensors:
        dtype = dtypes.pop()
        place = next(iter(tensors.values())).place
    else:
        given = [v.dtype.name for v in params.values()
                 if isinstance(v, np.ndarray) and v.dtype.name in _FLOATS]
        dtype = given[0] if given else "float32"
        place = None
    shapes = {n: tuple(t.shape) for n, t in tensors.items()}
    shapes.update({n: a.shape for n, a in arrays.items()})
    try:
        shape = list(np.broadcast_shapes(*shapes.values()))
    except ValueError:
        raise ValueError(f"{owner}: the parameters' shapes cannot be broadcast together: "
                         + ", ".join(f"{n} {list(s)}" for n, s in shapes.items())) from None
    out = []
    for name in params:
        if name in tensors:
            t = tensors[name]
        else:
            t = to_tensor(arrays[name].astype(dtype), place=place)
        if list(t.shape) != shape:
            t = _F.broadcast_to(t, shape)
        out.append(t)
    return out


def as_value(owner: str, value, like: Tensor) -> Tensor:
    """A value to evaluate (log_prob, prob, cdf) as a tensor of ``like``'s dtype.

    A floating Tensor of another dtype is cast with a UserWarning, as Paddle's
    ``_check_values_dtype_in_probs`` does (the result takes the parameters' dtype).
    """
    if isinstance(value, Tensor):
        if value.dtype != like.dtype:
            if value.dtype.is_floating_point:
                warnings.warn(f"{owner}: argument 'value' of dtype {value.dtype} is cast to the "
                              f"parameters' dtype {like.dtype}", UserWarning, stacklevel=3)
            value = _F.cast(value, like.dtype)
        return value
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, list, tuple, np.ndarray)):
        raise TypeError(f"{owner}: argument 'value' expected a number, list, NumPy array or Tensor, "
                        f"got {_describe(value)}")
    return to_tensor(_as_array(owner, "value", value).astype(like.dtype.value), place=like.place)


def check_event(owner: str, value: Tensor, event_shape: tuple) -> None:
    """Raises ValueError unless ``value``'s trailing dimensions are ``event_shape``
    (broadcasting a size-1 event axis would silently give a wrong answer)."""
    n = len(event_shape)
    trailing = tuple(value.shape[len(value.shape) - n:]) if len(value.shape) >= n else None
    if trailing != tuple(event_shape):
        raise ValueError(f"{owner}: argument 'value' expected trailing dimensions {list(event_shape)} "
                         f"(the event shape), got shape {list(value.shape)}")


def check_positive(owner: str, name: str, tensor: Tensor, strict: bool = True) -> None:
    """Raises ValueError unless every element is > 0 (>= 0 when not strict)."""
    with no_grad():
        values = tensor.numpy()
    bad = ~(values > 0) if strict else ~(values >= 0)
    if bad.any():
        raise ValueError(f"{owner}: argument '{name}' expected values {'>' if strict else '>='} 0, "
                         f"got {float(values[bad].ravel()[0])}")


def check_unit(owner: str, name: str, tensor: Tensor, low_open: bool = False) -> None:
    """Raises ValueError unless every element lies in [0, 1] (or (0, 1] when low_open)."""
    with no_grad():
        values = tensor.numpy()
    bad = ~((values > 0) if low_open else (values >= 0)) | ~(values <= 1)
    if bad.any():
        interval = "(0, 1]" if low_open else "[0, 1]"
        raise ValueError(f"{owner}: argument '{name}' expected probabilities in {interval}, "
                         f"got {float(values[bad].ravel()[0])}")


def xlogy(x: Tensor, y: Tensor) -> Tensor:
    """``x log(y)``, 0 where ``x`` is 0 (0 log 0 is 0, with no NaN in the value or the
    gradient: y is read as 1 there)."""
    zero = x == 0.0
    safe_y = _F.where(zero, _F.ones_like(y * x), y)
    return _F.where(zero, _F.zeros_like(safe_y), x * _F.log(safe_y))


def sample_shape(owner: str, shape) -> tuple:
    """A sample shape as a tuple of non-negative ints."""
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{owner}.sample: argument 'shape' expected a list or tuple of ints, "
                        f"got {type(shape).__name__}")
    for size in shape:
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 0:
            raise TypeError(f"{owner}.sample: argument 'shape' expected non-negative ints, "
                            f"got {list(shape)}")
    return tuple(int(s) for s in shape)
