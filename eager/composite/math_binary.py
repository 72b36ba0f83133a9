"""Composite rules of the math binary ops (see eager/composite/__init__.py)."""
from __future__ import annotations

import math

from phi.common import DataType
from phi.common.data_type import default_float_dtype
from phi.core.errors import InvalidDtypeError, UnsupportedDtypeError

from ..generated import forward_api as _F
from ..type_promotion import complex_list_operands
from . import _paddle_api as _check
from .math_unary import signbit
from .spine import conj_if_complex, exactly_equal, sum_to_shape, where_grad


def elementwise_pow_grad(x, y, out_grad):
    # d/dx x**y = y * x**(y-1); d/dy x**y = log(x) * x**y (Paddle's formulas, NaN where x <= 0),
    # conjugated for complex x: Paddle's convention, out_grad times the conjugate derivative.
    dx = _F.multiply(y, _F.elementwise_pow(x, _F.scale(y, 1.0, -1.0, True)))
    dy = _F.multiply(_F.log(x), _F.elementwise_pow(x, y))
    x_grad = _F.multiply(out_grad, conj_if_complex(dx))
    y_grad = _F.multiply(out_grad, conj_if_complex(dy))
    return sum_to_shape(x_grad, x.shape), sum_to_shape(y_grad, y.shape)


def clip_grad(x, out_grad, min, max):  # noqa: A002  (Paddle's argument names)
    # Zero strictly outside [min, max]; the edges pass the gradient, as in Paddle.
    zeros = _F.full_like(out_grad, 0, None)
    grad = out_grad
    if min is not None:
        grad = _F.where(_F.less_than(x, _F.full_like(x, min, None)), zeros, grad)
    if max is not None:
        grad = _F.where(_F.greater_than(x, _F.full_like(x, max, None)), zeros, grad)
    return grad if grad is not out_grad else _F.assign(out_grad)


def atan2_grad(x, y, out_grad):
    # atan2(x, y) = arctan(x / y): d/dx = y / (x^2 + y^2), d/dy = -x / (x^2 + y^2).
    scaled = _F.divide(out_grad, _F.add(_F.multiply(x, x), _F.multiply(y, y)))
    return (sum_to_shape(_F.multiply(scaled, y), x.shape),
            sum_to_shape(_F.scale(_F.multiply(scaled, x), -1.0, 0.0, True), y.shape))


def hypot_grad(x, y, out, out_grad):
    scaled = _F.divide(out_grad, out)
    return sum_to_shape(_F.multiply(scaled, x), x.shape), sum_to_shape(_F.multiply(scaled, y), y.shape)


def lerp_grad(x, y, weight, out_grad):
    # out = x + weight * (y - x)
    return (sum_to_shape(_F.multiply(out_grad, _F.scale(weight, -1.0, 1.0, True)), x.shape),
            sum_to_shape(_F.multiply(out_grad, weight), y.shape),
            sum_to_shape(_F.multiply(out_grad, _F.subtract(y, x)), weight.shape))


def fmax_grad(x, y, out_grad):
    # Paddle: to x where x >= y or y is NaN (ties go to x), to y elsewhere.
    return where_grad(_F.logical_or(_F.greater_equal(x, y), _F.not_equal(y, y)), x, y, out_grad)


def fmin_grad(x, y, out_grad):
    return where_grad(_F.logical_or(_F.less_equal(x, y), _F.not_equal(y, y)), x, y, out_grad)


# -- Paddle API functions composed of the ops above (eager.logaddexp, eager.gcd, ...) ------

_WIDE_INTS = (DataType.INT32, DataType.INT64)

def _same_dtype(op: str, x, y) -> None:
    if x.dtype != y.dtype:  # a TypeError, and the ValueError Paddle's kernels raise for mixed dtypes
        raise InvalidDtypeError(f"{op}: arguments 'x' and 'y' expected the same dtype, got {x.dtype} and {y.dtype}")


@_check.composed
def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)) elementwise (broadcasting), computed without overflow:
    max(x, y) + log1p(exp(-|x - y|)). Ties split the gradient evenly. Floating x
    and y of one dtype, or two int32 (int64) tensors, which give float32 as in Paddle.

    >>> out = eager.logaddexp(eager.to_tensor([0.0, 1000.0]), eager.to_tensor([0.0, 1000.0]))
    >>> [round(v, 3) for v in out.tolist()]
    [0.693, 1000.693]
    """
    _check.tensor("logaddexp", "x", x)
    _check.tensor("logaddexp", "y", y)
    if x.dtype == y.dtype and x.dtype in _WIDE_INTS:
        # Paddle 2.6 composes it of exp, which reads int32 and int64 as float32
        x, y = _F.cast(x, DataType.FLOAT32), _F.cast(y, DataType.FLOAT32)
    _check.floating("logaddexp", "x", x)
    _check.floating("logaddexp", "y", y)
    _same_dtype("logaddexp", x, y)
    both_finite = _F.logical_and(_F.isfinite(x), _F.isfinite(y))
    zero = _F.zeros_like(x)
    # Finite: max = (x + y + |x - y|) / 2, whose gradient splits evenly at a tie;
    # an infinite operand goes through maximum, with an infinite spread (inf - inf is kept out).
    spread = _F.abs(_F.where(both_finite, _F.subtract(x, y), _F.full_like(x, math.inf, None)))
    finite_spread = _F.where(both_finite, spread, zero)
    halves = _F.scale(_F.add(_F.add(_F.where(both_finite, x, zero), _F.where(both_finite, y, zero)),
                             finite_spread), 0.5, 0.0, True)
    larger = _F.where(both_finite, halves, _F.maximum(x, y))
    return _F.add(larger, _F.log1p(_F.exp(_F.scale(spread, -1.0, 0.0, True))))


@_check.composed
def heaviside(x, y, name=None):
    """The Heaviside step of x (broadcasting): 0 where x < 0, y where x == 0, 1
    where x > 0. The gradient reaches y only where x == 0, x never (Paddle's).

    >>> eager.heaviside(eager.to_tensor([-1.0, 0.0, 2.0]), eager.to_tensor(0.5)).numpy()
    array([0. , 0.5, 1. ], dtype=float32)
    """
    _check.tensor("heaviside", "x", x)
    _check.tensor("heaviside", "y", y)
    _same_dtype("heaviside", x, y)
    if x.dtype.is_complex or x.dtype.name == "BOOL":  # no Paddle kernel: its RuntimeError too
        raise UnsupportedDtypeError(f"heaviside: arguments 'x' and 'y' expected a real numeric dtype, got {x.dtype}")
    step = _F.cast(_F.greater_than(x, _F.zeros_like(x)), x.dtype)
    shape = list(_F.add(_F.zeros_like(x), _F.zeros_like(y)).shape)  # the broadcast shape
    return _F.where(_F.expand(exactly_equal(x, _F.zeros_like(x)), shape), _F.expand(y, shape), _F.expand(step, shape))



@_check.composed
def copysign(x, y, name=None):
    """x's magnitude with y's sign, elementwise (broadcasting); -0.0 counts as
    negative, as IEEE copysign. Floating-point x and y of one dtype. The gradient
    reaches x (+-1 times x's sign, 0 where x == 0, as Paddle's copysign_grad), never y.

    >>> eager.copysign(eager.to_tensor([1.5, -2.0, 3.0]), eager.to_tensor([-1.0, 1.0, -0.0])).numpy()
    array([-1.5,  2. , -3. ], dtype=float32)
    """
    _check.tensor("copysign", "x", x)
    _check.tensor("copysign", "y", y)
    _same_dtype("copysign", x, y)
    if not x.dtype.is_floating_point:
        raise TypeError(f"copysign: arguments 'x' and 'y' expected a floating-point dtype, got {x.dtype}")
    magnitude = _F.abs(x)
    shape = list(_F.add(magnitude, _F.zeros_like(y)).shape)  # the broadcast shape
    magnitude = _F.expand(magnitude, shape)
    return _F.where(_F.expand(signbit(y), shape), _F.neg(magnitude), magnitude)


def _gcd_of(op: str, x, y):
    _check.integral(op, "x", x)
    _check.integral(op, "y", y)
    _same_dtype(op, x, y)
    a, b = _F.abs(x), _F.abs(y)
    shape = list(_F.add(a, b).shape)
    a, b = _F.expand(a, shape), _F.expand(b, shape)
    zero = _F.zeros_like(b)
    while bool(_F.any(_F.not_equal(b, zero))):  # Euclid, all elements at once
        nonzero = _F.not_equal(b, zero)
        safe = _F.where(nonzero, b, _F.ones_like(b))
        a, b = _F.where(nonzero, b, a), _F.where(nonzero, _F.remainder(a, safe), zero)
    return a


@_check.composed
def gcd(x, y, name=None):
    """The greatest common divisor of |x| and |y| elementwise (integers, broadcasting);
    gcd(0, 0) is 0.

    >>> eager.gcd(eager.to_tensor([12, 0, -9]), eager.to_tensor([18, 5, 6])).numpy()
    array([6, 5, 3])
    """
    return _gcd_of("gcd", x, y)


@_check.composed
def lcm(x, y, name=None):
    """The least common multiple of |x| and |y| elementwise (integers, broadcasting);
    0 where either is 0.

    >>> eager.lcm(eager.to_tensor([4, 0, -6]), eager.to_tensor([6, 5, 4])).numpy()
    array([12,  0, 12])
    """
    divisor = _gcd_of("lcm", x, y)
    zero = _F.equal(divisor, _F.zeros_like(divisor))
    safe = _F.where(zero, _F.ones_like(divisor), divisor)
    return _F.where(zero, divisor, _F.abs(_F.multiply(_F.floor_divide(x, safe), y)))


@_check.composed
def ldexp(x, y, name=None):
    """x * 2 ** y elementwise (broadcasting), real x and y of any dtypes. As Paddle
    2.6, both are cast to float64 when either is float64, else to the default dtype
    (float32: an integer or float16 x gives float32), and a fractional y is a real
    power of 2. Differentiable in x and in a floating y.

    >>> eager.ldexp(eager.to_tensor([1.0, 3.0]), eager.to_tensor([3, -1])).numpy()
    array([8. , 1.5], dtype=float32)
    """
    _check.tensor("ldexp", "x", x)
    _check.tensor("ldexp", "y", y)
    for arg, value in (("x", x), ("y", y)):
        if value.dtype.is_complex:  # Paddle's cast would drop the imaginary part
            raise TypeError(f"ldexp: argument '{arg}' expected a real Tensor, got {value.dtype}")
    dtype = DataType.FLOAT64 if DataType.FLOAT64 in (x.dtype, y.dtype) else default_float_dtype()
    x = x if x.dtype == dtype else _F.cast(x, dtype)
    exponent = y if y.dtype == dtype else _F.cast(y, dtype)
    return _F.multiply(x, _F.elementwise_pow(_F.full_like(exponent, 2.0, None), exponent))


@_check.composed
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype (or of one
    tensor, which comes back as a copy). Differentiable in every input.

    >>> eager.add_n([eager.ones([2]), eager.ones([2]), eager.ones([2])]).numpy()
    array([3., 3.], dtype=float32)
    """
    inputs = _check.tensor_list("add_n", "inputs", inputs, allow_one=True)
    first = inputs[0]
    mismatch = next((i for i, item in enumerate(inputs) if item.shape != first.shape or item.dtype != first.dtype), None)
    if mismatch is not None:
        item = inputs[mismatch]
        error = ValueError(f"add_n: argument 'inputs' expected tensors of one shape and dtype, element 0 "
                           f"is {first.dtype}{first.shape} and element {mismatch} is {item.dtype}{item.shape}")
        if any(t.shape != first.shape for t in inputs):
            raise error
        # a complex with real inputs: Paddle's kernel casts the real ones (any other mix raises error)
        inputs = complex_list_operands(inputs, error)
        first = inputs[0]
    total = _F.assign(first) if len(inputs) == 1 else _F.add(inputs[0], inputs[1])
    for item in inputs[2:]:
        total = _F.add(total, item)
    return total
