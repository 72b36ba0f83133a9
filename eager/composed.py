"""Paddle tensor functions written as compositions of differentiable ops.

``bucketize``, ``index_sample``, ``diff``, ``trapezoid``,
``cumulative_trapezoid`` and ``cdist`` need no kernel of their own: each is a
few generated ops (searchsorted, take_along_axis, slice and subtract, cumsum,
norm), so its gradient, double gradient and GPU path are those ops', and the
checks here only turn a wrong argument into an error naming the function.
``is_tensor`` sits here too, the one Tensor method of this kind that is not
arithmetic. :data:`METHODS` lists the ones Paddle also has as Tensor methods
(:func:`install` attaches them when this module loads), with those of eager.linalg's
compositions (cov, corrcoef, cond, lstsq, multi_dot, triangular_solve, eigvals,
and lu over the generated Tensor.lu: Paddle's returns infos only when asked).

>>> import eager
>>> eager.diff(eager.to_tensor([1, 4, 5, 2])).numpy()
array([ 3,  1, -3])
>>> float(eager.trapezoid(eager.to_tensor([1.0, 2.0, 3.0])))
4.0
"""
from __future__ import annotations

import numbers

from phi.common import DataType
from phi.core.errors import PhiError

from . import linalg as _linalg
from .generated import forward_api as _F
from .tensor import Tensor

__all__ = ["is_tensor", "bucketize", "index_sample", "diff", "trapezoid", "cumulative_trapezoid", "cdist"]

_INDEX_TYPES = (DataType.INT32, DataType.INT64)


def _tensor(fn: str, arg: str, value) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}: argument '{arg}' expected a Tensor, got {type(value).__name__}")
    return value


def _axis(fn: str, axis, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"{fn}: argument 'axis' expected an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{fn}: argument 'axis' expected a value in [{-ndim}, {ndim}) for a {ndim}-d tensor, "
                         f"got {axis}")
    return int(axis) % ndim


def _floating(fn: str, arg: str, value: Tensor) -> None:
    if not value.dtype.is_floating_point:
        raise TypeError(f"{fn}: argument '{arg}' expected a float16, float32 or float64 tensor, got {value.dtype}")


def _take(x: Tensor, axis: int, start: int, stop: int) -> Tensor:
    return _F.slice(x, [axis], [start], [stop])


def is_tensor(x) -> bool:
    """True when x is a Tensor (a Parameter included), Paddle's ``paddle.is_tensor``.

    >>> import eager
    >>> eager.is_tensor(eager.to_tensor([1.0])), eager.is_tensor([1.0])
    (True, False)
    """
    return isinstance(x, Tensor)


def bucketize(x, sorted_sequence, out_int32: bool = False, right: bool = False, name=None) -> Tensor:
    """The bucket of each element of x among the boundaries of the 1-D ascending
    ``sorted_sequence``: its insertion index, the first place (or, with ``right``,
    the last) that keeps the sequence sorted. int64, or int32 when ``out_int32``.
    Not differentiable (an index).

    >>> import eager
    >>> edges = eager.to_tensor([2, 4, 6, 8])
    >>> eager.bucketize(eager.to_tensor([[1, 4], [8, 9]]), edges).numpy()
    array([[0, 1],
           [3, 4]])
    """
    _tensor("bucketize", "x", x)
    _tensor("bucketize", "sorted_sequence", sorted_sequence)
    if sorted_sequence.ndim != 1:
        raise ValueError(f"bucketize: argument 'sorted_sequence' expected a 1-D tensor, got shape "
                         f"{sorted_sequence.shape}")
    return _F.searchsorted(sorted_sequence, x, out_int32, right)


def index_sample(x, index) -> Tensor:
    """``out[i, j] = x[i, index[i, j]]`` for x [N, M] and an int32/int64 index
    [N, K] (Paddle's ``paddle.index_sample``); differentiable in x (the gradient
    adds up where an index repeats). It is take_along_axis over axis 1.

    >>> import eager
    >>> x = eager.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> eager.index_sample(x, eager.to_tensor([[2, 0], [1, 1]])).numpy()
    array([[3., 1.],
           [5., 5.]], dtype=float32)
    """
    _tensor("index_sample", "x", x)
    _tensor("index_sample", "index", index)
    if x.ndim != 2:
        raise ValueError(f"index_sample: argument 'x' expected a 2-D tensor, got shape {x.shape}")
    if index.ndim != 2:
        raise ValueError(f"index_sample: argument 'index' expected a 2-D tensor, got shape {index.shape}")
    if index.dtype not in _INDEX_TYPES:
        raise TypeError(f"index_sample: argument 'index' expected an int32 or int64 tensor, got {index.dtype}")
    if index.shape[0] != x.shape[0]:
        raise ValueError(f"index_sample: argument 'index' expected {x.shape[0]} rows (as x {x.shape}), "
                         f"got shape {index.shape}")
    try:
        return _F.take_along_axis(x, index, 1, False)
    except PhiError as error:
        raise type(error)(f"index_sample: {error}") from None


def diff(x, n: int = 1, axis: int = -1, prepend=None, append=None, name=None) -> Tensor:
    """The n-th forward difference along axis, ``out[i] = x[i + 1] - x[i]``
    applied n times, after ``prepend`` and ``append`` (tensors shaped as x off the
    axis) are joined to x along it. A bool x gives ``x[i + 1] != x[i]``.
    Differentiable for floating x.

    >>> import eager
    >>> eager.diff(eager.to_tensor([1, 4, 5, 2]), n=2).numpy()
    array([-2, -4])
    """
    _tensor("diff", "x", x)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"diff: argument 'n' expected a positive int, got {n!r}")
    if x.ndim == 0:
        raise ValueError("diff: argument 'x' expected at least 1 dimension, got a 0-d tensor")
    axis = _axis("diff", axis, x.ndim)
    parts = []
    for arg, extra in (("prepend", prepend), (None, x), ("append", append)):
        if extra is None:
            continue
        if arg is not None:
            _tensor("diff", arg, extra)
            off_axis = [d for i, d in enumerate(extra.shape) if i != axis]
            if extra.ndim != x.ndim or off_axis != [d for i, d in enumerate(x.shape) if i != axis]:
                raise ValueError(f"diff: argument '{arg}' expected the shape of x {x.shape} off axis {axis}, "
                                 f"got {extra.shape}")
            if extra.dtype != x.dtype:
                raise TypeError(f"diff: argument '{arg}' expected the dtype of x ({x.dtype}), got {extra.dtype}")
        parts.append(extra)
    out = _F.concat(parts, axis) if len(parts) > 1 else x
    for _ in range(int(n)):
        length = out.shape[axis]
        if length == 0:
            break
        later, earlier = _take(out, axis, 1, length), _take(out, axis, 0, length - 1)
        out = _F.not_equal(later, earlier) if out.dtype == DataType.BOOL else _F.subtract(later, earlier)
    return out


def _spacing(fn: str, y: Tensor, x, dx, axis: int):
    """The widths of the trapezoids along axis: a number, or a tensor that
    broadcasts against y's pairs (diff of x; a 1-D x lies along axis)."""
    if x is not None and dx is not None:
        raise ValueError(f"{fn}: give x or dx, not both")
    if x is None:
        if dx is None:
            return 1.0
        if isinstance(dx, bool) or not isinstance(dx, numbers.Real):
            raise TypeError(f"{fn}: argument 'dx' expected a float, got {dx!r}")
        return float(dx)
    _tensor(fn, "x", x)
    _floating(fn, "x", x)
    if x.dtype != y.dtype:
        raise TypeError(f"{fn}: argument 'x' expected the dtype of y ({y.dtype}), got {x.dtype}")
    if x.ndim == 1:
        if x.shape[0] != y.shape[axis]:
            raise ValueError(f"{fn}: argument 'x' (1-D) expected y's length along axis {axis} "
                             f"({y.shape[axis]}), got {x.shape[0]}")
        widths = diff(x)
        return _F.reshape(widths, [-1 if i == axis else 1 for i in range(y.ndim)])
    if x.shape != y.shape:
        raise ValueError(f"{fn}: argument 'x' expected a 1-D tensor or the shape of y {y.shape}, got {x.shape}")
    return diff(x, axis=axis)


def _trapezoids(fn: str, y, x, dx, axis) -> tuple:
    _tensor(fn, "y", y)
    _floating(fn, "y", y)
    if y.ndim == 0:
        raise ValueError(f"{fn}: argument 'y' expected at least 1 dimension, got a 0-d tensor")
    axis = _axis(fn, axis, y.ndim)
    widths = _spacing(fn, y, x, dx, axis)
    length = y.shape[axis]
    heights = _F.add(_take(y, axis, 1, max(length, 1)), _take(y, axis, 0, max(length - 1, 0)))
    if isinstance(widths, float):
        return _F.scale(heights, 0.5 * widths), axis
    return _F.scale(_F.multiply(heights, widths), 0.5), axis


def trapezoid(y, x=None, dx=None, axis: int = -1, name=None) -> Tensor:
    """The integral of y along axis by the trapezoidal rule (Paddle's
    ``paddle.trapezoid``): the sample points ``x`` (1-D along axis, or shaped as
    y), or the spacing ``dx`` (1.0 when both are None; not both). Differentiable
    in y and x.

    >>> import eager
    >>> float(eager.trapezoid(eager.to_tensor([1.0, 2.0, 3.0]), dx=2.0))
    8.0
    """
    areas, axis = _trapezoids("trapezoid", y, x, dx, axis)
    return _F.sum(areas, [axis])


def cumulative_trapezoid(y, x=None, dx=None, axis: int = -1, name=None) -> Tensor:
    """The running trapezoidal integral of y along axis: one less element along
    it than y (Paddle's ``paddle.cumulative_trapezoid``; x and dx as in
    :func:`trapezoid`). Differentiable in y and x.

    >>> import eager
    >>> eager.cumulative_trapezoid(eager.to_tensor([1.0, 2.0, 3.0])).numpy()
    array([1.5, 4. ], dtype=float32)
    """
    areas, axis = _trapezoids("cumulative_trapezoid", y, x, dx, axis)
    return _F.cumsum(areas, axis)


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def cdist(x, y, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary", name=None) -> Tensor:
    """The p-norm distance between each row of x [..., P, M] and each row of y
    [..., R, M]: out [..., P, R] (batch axes broadcast). p >= 0; p = 0 counts
    the differing coordinates, p = inf takes the largest. Differentiable (a zero
    distance has gradient 0). ``compute_mode`` is checked and kept for Paddle's
    signature: every mode computes the differences directly (exact, but
    P * R * M elements of scratch).

    >>> import eager
    >>> x = eager.to_tensor([[0.0, 0.0], [3.0, 4.0]])
    >>> eager.cdist(x, x).numpy()
    array([[0., 5.],
           [5., 0.]], dtype=float32)
    """
    _tensor("cdist", "x", x)
    _tensor("cdist", "y", y)
    for arg, value in (("x", x), ("y", y)):
        _floating("cdist", arg, value)
        if value.ndim < 2:
            raise ValueError(f"cdist: argument '{arg}' expected at least 2 dimensions, got shape {value.shape}")
    if x.dtype != y.dtype:
        raise TypeError(f"cdist: argument 'y' expected the dtype of x ({x.dtype}), got {y.dtype}")
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"cdist: x {x.shape} and y {y.shape} expected the same last axis (the coordinates)")
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not p >= 0:
        raise ValueError(f"cdist: argument 'p' expected a float >= 0, got {p!r}")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"cdist: argument 'compute_mode' expected one of {list(_CDIST_MODES)}, got {compute_mode!r}")
    try:
        differences = _F.subtract(_F.unsqueeze(x, [-2]), _F.unsqueeze(y, [-3]))
    except PhiError as error:
        raise type(error)(f"cdist: the batch axes of x {x.shape} and y {y.shape} do not broadcast "
                          f"({error})") from None
    return _F.norm(differences, float(p), [-1])


# Paddle's Tensor methods among these (searchsorted is not one), and those of eager.linalg's compositions.
METHODS = {name: globals()[name] for name in
           ("is_tensor", "bucketize", "index_sample", "diff", "trapezoid", "cumulative_trapezoid", "cdist")}
METHODS.update((name, getattr(_linalg, name)) for name in
               ("cond", "corrcoef", "cov", "lstsq", "multi_dot", "triangular_solve", "eigvals", "lu"))


def install() -> None:
    """Attaches :data:`METHODS` to Tensor (idempotent). Runs when this module
    loads, which ``import eager``'s API does; eager.tensor_api cannot import this
    module (it is loaded by the generated code this module calls)."""
    for name, function in METHODS.items():
        setattr(Tensor, name, function)


install()
