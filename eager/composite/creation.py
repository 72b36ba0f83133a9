"""Composite rules of the creation ops (see eager/composite/__init__.py).

The differentiable creation ops are linear maps that select or place elements,
so each gradient is the adjoint selection written with forward ops, and every
higher order comes from those ops' own rules.
"""
from __future__ import annotations

import numbers

import numpy as np

from phi.common import DataType
from phi.core.errors import ArgumentKindError, InvalidArgumentError, NegativeCountError, UnsupportedDtypeError
from phi.infermeta.checks import check_result_shape

from ..arguments import to_bool
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor
from . import _paddle_api as _check
from .spine import reshape_exactly  # reshape that also reaches shapes holding zeros


def tril_grad(out_grad, diagonal):
    return _F.tril(out_grad, diagonal)


def triu_grad(out_grad, diagonal):
    return _F.triu(out_grad, diagonal)


def _diagonal_indices(length, offset):
    """(rows, columns) of the ``length`` elements of diagonal ``offset``, as index arrays."""
    steps = np.arange(length)
    return steps + max(-offset, 0), steps + max(offset, 0)


def diag_grad(x, out_grad, offset):
    if len(x.shape) <= 1:
        # out placed x on a diagonal: x's gradient is that diagonal of out_grad (a 0-d x
        # was one element on it, as Paddle reads it).
        if not x.shape:
            return reshape_exactly(_F.getitem(out_grad, _diagonal_indices(1, offset)), [])
        return _F.getitem(out_grad, _diagonal_indices(x.shape[0], offset))
    # out was x's diagonal: scatter out_grad back onto it (padding got no gradient).
    zeros = _F.full(x.shape, 0, out_grad.dtype, out_grad.place)
    return _F.setitem(zeros, out_grad, _diagonal_indices(out_grad.shape[0], offset))


def diagflat_grad(x, out_grad, offset):
    size = 1
    for d in x.shape:
        size *= d
    return reshape_exactly(_F.getitem(out_grad, _diagonal_indices(size, offset)), x.shape)


def diag_embed_grad(input, out_grad, offset, dim1, dim2):
    ndim = len(out_grad.shape)
    first, second = dim1 % ndim, dim2 % ndim
    rest = [a for a in range(ndim) if a not in (first, second)]
    planes = _F.transpose(out_grad, rest + [first, second])
    return _F.getitem(planes, (Ellipsis,) + _diagonal_indices(input.shape[-1], offset))


def meshgrid_grad(x, out_grad):
    # Output k is x[k] broadcast along every other axis: sum those axes away.
    grads = []
    for axis, (t, g) in enumerate(zip(x, out_grad)):
        others = [a for a in range(len(x)) if a != axis]
        summed = _F.sum(g, others, None, False) if others else g
        grads.append(summed if summed.shape == list(t.shape) else reshape_exactly(summed, t.shape))
    return grads


def fill_grad(out_grad):
    return _F.full_like(out_grad, 0, None)


def zero_grad(out_grad):
    return _F.full_like(out_grad, 0, None)


def complex_double_grad(real, imag, grad_real_grad, grad_imag_grad):
    # complex_grad takes (Re g, Im g): its adjoint builds complex(a, b) again; a
    # gradient that did not come is zero.
    if grad_real_grad is None and grad_imag_grad is None:
        return None
    present = grad_real_grad if grad_real_grad is not None else grad_imag_grad
    if grad_real_grad is None:
        grad_real_grad = _F.full(real.shape, 0, real.dtype, present.place)
    if grad_imag_grad is None:
        grad_imag_grad = _F.full(imag.shape, 0, imag.dtype, present.place)
    return _F.complex(grad_real_grad, grad_imag_grad)


# -- Paddle API functions composed of the ops above (eager.tril_indices, eager.polar, ...) --

def _triangle_indices(op: str, pick, row, col, offset, dtype):
    row, col = _check.integer(op, "row", row), _check.integer(op, "col", col)
    for arg, value in (("row", row), ("col", col)):
        if value < 0:  # Paddle: TypeError "row should be a non-negative int" (test_tril_indices_op)
            raise NegativeCountError(f"{op}: argument '{arg}' expected an int >= 0, got {value}")
    offset = _check.integer(op, "offset", offset)
    index_dtype = _check.index_dtype(op, dtype)
    try:  # NumPy picks the coordinates from a row x col mask
        check_result_shape("row", (row, col), DataType.BOOL)
    except InvalidArgumentError as error:
        raise ValueError(f"{op}: {error} (with col={col})") from None
    rows, cols = pick(row, offset, col)
    return to_tensor(np.stack([rows, cols]).astype(index_dtype))


def tril_indices(row, col, offset=0, dtype="int64"):
    """The (row, column) coordinates of the lower triangle (on and below diagonal
    ``offset``) of a row x col matrix (col None: row, as Paddle), as a [2, N] tensor in row-major order.

    >>> eager.tril_indices(3, 3).numpy()
    array([[0, 1, 1, 2, 2, 2],
           [0, 0, 1, 0, 1, 2]])
    """
    return _triangle_indices("tril_indices", np.tril_indices, row, row if col is None else col, offset, dtype)


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """The (row, column) coordinates of the upper triangle (on and above diagonal
    ``offset``) of a row x col matrix (col defaults to row), as a [2, N] tensor.

    >>> eager.triu_indices(2, 3, 1).numpy()
    array([[0, 0, 1],
           [1, 2, 2]])
    """
    return _triangle_indices("triu_indices", np.triu_indices, row, row if col is None else col, offset, dtype)


@_check.composed
def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of a 1-d x: column j holds x ** (n - 1 - j), or x ** j
    when ``increasing``; ``n`` columns (default len(x)). Built by repeated
    multiplication, so differentiable everywhere (also at x = 0).

    >>> eager.vander(eager.to_tensor([1.0, 2.0, 3.0])).numpy()
    array([[1., 1., 1.],
           [4., 2., 1.],
           [9., 3., 1.]], dtype=float32)
    """
    _check.tensor("vander", "x", x)
    if len(x.shape) != 1:
        raise ValueError(f"vander: argument 'x' expected a 1-d tensor, got shape {x.shape}")
    n = x.shape[0] if n is None else _check.integer("vander", "n", n, minimum=0)
    check_result_shape("n", (x.shape[0], n), x.dtype)  # before a loop of n multiplications
    if n == 0:
        return _F.full([x.shape[0], 0], 0, x.dtype, x.place)
    columns = [_F.ones_like(x)]
    for _ in range(n - 1):
        columns.append(_F.multiply(columns[-1], x))
    if not to_bool(increasing, "vander", "increasing"):
        columns.reverse()
    return _F.stack(columns, 1)


def _complex_part(op: str, arg: str, value) -> None:
    """TypeError unless value is a float32 or float64 Tensor: complex64 and complex128
    have float32 and float64 parts, and there is no complex float16 (as Paddle; its
    missing kernel is a RuntimeError, so UnsupportedDtypeError, both)."""
    _check.tensor(op, arg, value)
    if value.dtype not in (DataType.FLOAT32, DataType.FLOAT64):
        raise UnsupportedDtypeError(f"{op}: argument '{arg}' expected a float32 or float64 Tensor (the parts of complex64 "
                        f"or complex128), got {value.dtype}")


@_check.composed
def polar(abs, angle, name=None):  # noqa: A002  (Paddle's argument name)
    """The complex numbers abs * (cos(angle) + i sin(angle)) (float32 gives
    complex64, float64 complex128). Differentiable in both.

    >>> eager.polar(eager.to_tensor([2.0]), eager.to_tensor([0.0])).numpy()
    array([2.+0.j], dtype=complex64)
    """
    _complex_part("polar", "abs", abs)
    _complex_part("polar", "angle", angle)
    # abs and angle of two float dtypes give the wider one's complex type, as Paddle's
    # multiply promotes them (float32 with float64 is complex128)
    return _F.complex(_F.multiply(abs, _F.cos(angle)), _F.multiply(abs, _F.sin(angle)))


@_check.composed
def as_complex(x, name=None):
    """A real tensor whose last axis has size 2 (real, imaginary) as a complex tensor
    of the leading shape. Differentiable.

    >>> eager.as_complex(eager.to_tensor([[1.0, 2.0]])).numpy()
    array([1.+2.j], dtype=complex64)
    """
    _complex_part("as_complex", "x", x)
    if not x.shape or x.shape[-1] != 2:
        raise ValueError(f"as_complex: argument 'x' expected a last axis of size 2, got shape {x.shape}")
    return _F.complex(x[..., 0], x[..., 1])


@_check.composed
def as_real(x, name=None):
    """A complex tensor as a real one with a last axis of size 2 (real, imaginary).
    Differentiable.

    >>> eager.as_real(eager.to_tensor([1.0 + 2.0j])).numpy()
    array([[1., 2.]], dtype=float32)
    """
    _check.tensor("as_real", "x", x)
    if not x.dtype.is_complex:
        raise UnsupportedDtypeError(f"as_real: argument 'x' expected a complex Tensor, got {x.dtype}")
    return _F.stack([_F.real(x), _F.imag(x)], -1)


def write_into(op: str, arg: str, target, value, what: str):
    """``value`` written over ``target`` (a caller's Tensor, of the same shape and dtype:
    it is not resized) by the recorded in-place setitem; ``target`` returned. Paddle's
    ``assign(x, output)`` and the ``out=`` of the logical and bitwise functions.

    An empty target of value's dtype that no gradient reaches (a placeholder from
    ``Layer.create_variable``), or one that holds no data yet (from
    ``tensor.create_tensor``), takes value's shape: it becomes a copy of value,
    through which gradients reach value."""
    unfilled = not target.impl.initialized() or (target.size == 0 and value.size != 0)
    if unfilled and target.dtype == value.dtype and target.stop_gradient:
        copy = _F.assign(value)
        target.impl, target._meta = copy.impl, copy._meta
        return target
    if target.shape != value.shape or target.dtype != value.dtype:
        raise ValueError(f"{op}: argument '{arg}' expected {what} shape and dtype {value.shape} {value.dtype} "
                         f"(eager writes into {arg} in place, it does not resize it), got {target.shape} "
                         f"{target.dtype}")
    _F.setitem_(target, value, Ellipsis)
    return target


def _stacked(items):
    """Paddle's assign of a list holding Tensors (and numbers): NumPy's ``np.array`` of
    the list, as Paddle 2.6.2 builds it. The items (a number as a 0-d tensor) must
    share one shape and are stacked along a new first axis in NumPy's common dtype,
    float64 becoming float32 as for any list; here the stack is differentiable."""
    parts = [item if isinstance(item, Tensor) else to_tensor(item) for item in items]
    shapes = [part.shape for part in parts]
    if any(shape != shapes[0] for shape in shapes):
        raise ArgumentKindError(f"assign: argument 'x' is a list holding Tensors: they (and numbers, as 0-d) "
                                f"must have one shape to be stacked, got shapes {shapes}")
    dtype = np.result_type(*(part.dtype.numpy_dtype for part in parts))
    dtype = np.dtype(np.float32) if dtype == np.float64 else dtype  # Paddle 2.6's assign_value: float32 only
    return _F.stack([part if part.dtype.numpy_dtype == dtype else _F.cast(part, dtype) for part in parts], 0)


@_check.composed
def assign(x, output=None):
    """Paddle's ``paddle.assign``: a copy of ``x``, or, given ``output``, x's values
    written into ``output`` in place (and ``output`` returned).

    ``x`` is a Tensor (copied by the differentiable assign op), a NumPy array, a
    list or tuple (their NumPy dtype, but float64 becomes float32, as Paddle 2.6:
    Python floats give float32) or a number (a tensor of shape [1], as Paddle); a
    list holding Tensors of one shape (and numbers, with 0-d Tensors) is stacked
    along a new first axis, as NumPy's ``np.array`` of it in Paddle, and
    differentiably. Writing into an ``output`` of x's shape and dtype is the recorded
    in-place setitem: output's version counter moves and gradients reach a Tensor
    x. An ``output`` of another shape or dtype takes x's, as Paddle resizes it (it
    becomes a copy of x), unless gradients are recorded for it (then x must match).

    >>> out = eager.zeros([2])
    >>> eager.assign(eager.to_tensor([1.0, 2.0]), out).numpy()
    array([1., 2.], dtype=float32)
    >>> eager.assign(3).shape
    [1]
    """
    if output is not None:
        _check.tensor("assign", "output", output)
    if isinstance(x, (list, tuple)) and any(isinstance(item, Tensor) for item in x):
        value = _stacked(x)
    elif isinstance(x, Tensor):
        value = x
    else:
        if isinstance(x, (list, tuple, np.ndarray)):
            array = np.asarray(x)
        elif isinstance(x, (numbers.Number, np.generic)):
            array = np.array([x])
        else:
            raise TypeError(f"assign: argument 'x' expected a Tensor, NumPy array, list, tuple or number, "
                            f"got {type(x).__name__}")
        if array.dtype.kind not in "biufc":  # bool, int, uint, float, complex
            raise TypeError(f"assign: argument 'x' expected numbers, got an array of dtype {array.dtype} "
                            f"(a list holding Tensors or strings?)")
        if array.dtype == np.float64:  # Paddle 2.6's assign_value holds float32 values only
            array = array.astype(np.float32)
        value = to_tensor(array, place=None if output is None else output.place)
        if output is None:
            return value
    if output is None:
        return _F.assign(value)
    if (output.shape != value.shape or output.dtype != value.dtype) and output.stop_gradient:
        # Paddle's assign_out_ gives output x's shape and dtype (its buffer reallocated):
        # output becomes a copy of x, through which gradients reach a Tensor x
        copy = _F.assign(value)
        copy.impl.replaces(output.impl)  # output's version moves on, as for a write in place
        output.impl, output._meta = copy.impl, copy._meta
        return output
    return write_into("assign", "output", output, value, "x's")



def linspace(start, stop, num, dtype=None, place=None, name=None):
    """Paddle's ``paddle.linspace``: the linspace op, whose ``num`` may also be a float
    holding a whole number (``8000.0``; Paddle fills num into an int32), an int or a
    one-element integer Tensor.

    >>> eager.linspace(0, 1, 5.0).numpy().tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    if isinstance(num, (float, np.floating)):
        if not float(num).is_integer():
            raise TypeError(f"linspace: argument 'num' expected an int (or a float holding a whole number), "
                            f"got float {num!r}")
        num = int(num)
    return _F.linspace(start, stop, num, dtype, place)
