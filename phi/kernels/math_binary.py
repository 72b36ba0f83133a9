"""Binary and ternary elementwise kernels (pow with a tensor exponent, fmax/fmin, remainder, atan2, lerp, logic and bitwise ops, clip, isclose) and their gradients.

Where Paddle and NumPy disagree these follow Paddle: floor_divide of floats is
floor(x / y) (NumPy's floor_divide rounds the exact quotient, so 1 // 0.1 is 9
there and 10 here), fmax/fmin give a tie's gradient to x; clip's gradient passes at its edges
(Paddle's stops there: a documented difference).
"""
from ..common.data_type import DataType
from ..core.errors import InvalidArgumentError
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, ALL_TYPES, COMPLEX, FLOATS, INTS, REAL
from .funcs import check_integer_divisor, conj, copied_into, paddle_float_equal, reduce_to_shape, want

def _zero(xp, dtype):
    return xp.zeros((), dtype=dtype)


# -- pow with a tensor exponent ----------------------------------------------------------

@register_kernel("elementwise_pow", ALL_BACKENDS, REAL + COMPLEX)
def elementwise_pow(ctx, x, y):
    xp = ctx.xp
    if y.dtype.kind in "iu" and y.size and bool(xp.any(y < 0)):
        # An integer to a negative power is a fraction; NumPy refuses it deep inside.
        raise InvalidArgumentError("argument 'y' holds a negative exponent for an integer tensor; "
                                   "integers to negative powers are not integers: cast x and y to a "
                                   "floating dtype first")
    return xp.power(x, y)


@register_kernel("elementwise_pow_grad", ALL_BACKENDS, FLOATS + COMPLEX)
def elementwise_pow_grad(ctx, x, y, out_grad, *, out_mask=None):
    # Paddle's rule as written, with no special case: dy = g * log(x) * x**y is NaN where x <= 0.
    # Complex x: out_grad times the conjugate derivative (Paddle's convention, as multiply's).
    xp = ctx.xp
    x_grad = (reduce_to_shape(xp.multiply(out_grad, conj(xp.multiply(y, xp.power(x, y - 1)))), x.shape)
              if want(out_mask, 0) else None)
    y_grad = (reduce_to_shape(xp.multiply(out_grad, conj(xp.multiply(xp.log(x), xp.power(x, y)))), y.shape)
              if want(out_mask, 1) else None)
    return x_grad, y_grad


# -- clip ---------------------------------------------------------------------------------

@register_kernel("clip", ALL_BACKENDS, REAL)
def clip(ctx, x, min, max, *, into=None):  # noqa: A002  (Paddle's argument names)
    # into (KernelFactory.writes_into): each bound is applied there in turn.
    xp = ctx.xp
    if min is not None and max is not None:
        # Both bounds: the clip ufunc, min(max(x, min), max) in one pass. NumPy's maximum
        # and minimum against a 0-d bound take ~3.5x as long as clip (256x256 float32: 70
        # against 19 us), as they miss the vectorised loops that same-shape operands get.
        return xp.clip(x, xp.asarray(min, dtype=x.dtype), xp.asarray(max, dtype=x.dtype), out=into)
    out = x if min is None else xp.maximum(x, xp.asarray(min, dtype=x.dtype), out=into)
    out = out if max is None else xp.minimum(out, xp.asarray(max, dtype=x.dtype), out=into)
    if out is not x:
        return out
    if into is None:
        return x.copy()
    into[...] = x
    return into


@register_kernel("clip_grad", ALL_BACKENDS, REAL)
def clip_grad(ctx, x, out_grad, min, max):  # noqa: A002
    # The gradient passes where min <= x <= max, the edges included (on purpose: Paddle
    # 2.6's ClipGradFunctor gives zero on the bounds; docs/autograd.md lists it).
    xp = ctx.xp
    zero = _zero(xp, out_grad.dtype)
    grad = out_grad
    if min is not None:
        grad = xp.where(x < xp.asarray(min, dtype=x.dtype), zero, grad)
    if max is not None:
        grad = xp.where(x > xp.asarray(max, dtype=x.dtype), zero, grad)
    return grad.copy() if grad is out_grad else grad


# -- remainder and floor division -----------------------------------------------------------

@register_kernel("remainder", ALL_BACKENDS, REAL)
def remainder(ctx, x, y, *, into=None):
    # The sign of the divisor, as Python's %; floats divided by zero give NaN. The
    # divisors are checked before anything is written into ``into``.
    check_integer_divisor(ctx.xp, y)
    return ctx.xp.remainder(x, y, out=into)


@register_kernel("floor_divide", ALL_BACKENDS, REAL)
def floor_divide(ctx, x, y, *, into=None):
    xp = ctx.xp
    check_integer_divisor(xp, y)
    # Floats too: NumPy's floor_divide is Python's ``//`` (the quotient of x - fmod(x, y),
    # as Paddle's float functor computes it), where floor(x / y) is not: 1.0 // 0.1 is 9
    # (x / y rounds up to 10), -1.5 // inf is -1 and inf // 1.5 is NaN.
    return xp.floor_divide(x, y, out=into)


# -- logical and bitwise ---------------------------------------------------------------------

def _register_ufunc(name, ufunc_name, dtypes):
    def kernel(ctx, x, y):
        return getattr(ctx.xp, ufunc_name)(x, y)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"Elementwise numpy.{ufunc_name}(x, y)."
    return register_kernel(name, ALL_BACKENDS, dtypes)(kernel)


logical_and = _register_ufunc("logical_and", "logical_and", ALL_TYPES)
logical_or = _register_ufunc("logical_or", "logical_or", ALL_TYPES)
logical_xor = _register_ufunc("logical_xor", "logical_xor", ALL_TYPES)
_BITWISE = (DataType.BOOL,) + INTS


# The bitwise ops have inplace twins: written out, each can write into its target
# (into=, KernelFactory.writes_into) and is bound as the ufunc itself otherwise.

@register_kernel("bitwise_and", ALL_BACKENDS, _BITWISE)
def bitwise_and(ctx, x, y, *, into=None):
    return ctx.xp.bitwise_and(x, y, out=into)


@register_kernel("bitwise_or", ALL_BACKENDS, _BITWISE)
def bitwise_or(ctx, x, y, *, into=None):
    return ctx.xp.bitwise_or(x, y, out=into)


@register_kernel("bitwise_xor", ALL_BACKENDS, _BITWISE)
def bitwise_xor(ctx, x, y, *, into=None):
    return ctx.xp.bitwise_xor(x, y, out=into)


# Paddle's shift functors (phi/kernels/funcs/bitwise_functors.h) define every shift:
# one below 0 or of the bit width or more gives 0, except an arithmetic right shift
# of a signed x, which fills with x's sign. NumPy leaves those shifts to the C
# compiler, so they are taken out before shifting. A logical right shift shifts x's
# bits as the unsigned integer of its width.

def _shift_in_range(xp, x, y):
    """(where y is a defined shift, y with the others replaced by 0)."""
    inside = (y >= 0) & (y < x.dtype.itemsize * 8)
    return inside, xp.where(inside, y, _zero(xp, y.dtype))


@register_kernel("bitwise_left_shift", ALL_BACKENDS, INTS)
def bitwise_left_shift(ctx, x, y, is_arithmetic, *, into=None):
    # Arithmetic and logical left shifts are the same bits.
    xp = ctx.xp
    inside, shift = _shift_in_range(xp, x, y)
    return copied_into(xp.where(inside, xp.left_shift(x, shift), _zero(xp, x.dtype)), into)


@register_kernel("bitwise_right_shift", ALL_BACKENDS, INTS)
def bitwise_right_shift(ctx, x, y, is_arithmetic, *, into=None):
    xp = ctx.xp
    inside, shift = _shift_in_range(xp, x, y)
    signed = x.dtype.kind == "i"
    if is_arithmetic or not signed:
        shifted = xp.right_shift(x, shift)
        # x >> (width - 1) is -1 for a negative x and 0 otherwise: the sign fill.
        fill = xp.right_shift(x, x.dtype.itemsize * 8 - 1) if is_arithmetic and signed else _zero(xp, x.dtype)
    else:
        unsigned = xp.dtype(f"uint{x.dtype.itemsize * 8}")
        shifted = xp.right_shift(x.view(unsigned), shift.view(unsigned)).view(x.dtype)
        fill = _zero(xp, x.dtype)
    return copied_into(xp.where(inside, shifted, fill), into)


# -- closeness and equality --------------------------------------------------------------------

def _isclose(xp, x, y, rtol, atol, equal_nan):
    # |x - y| <= atol + rtol * |y|, infinities equal only to themselves (numpy.isclose's rule).
    return xp.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


@register_kernel("isclose", ALL_BACKENDS, FLOATS + COMPLEX)
def isclose(ctx, x, y, rtol, atol, equal_nan):
    return _isclose(ctx.xp, x, y, rtol, atol, equal_nan)


@register_kernel("allclose", ALL_BACKENDS, FLOATS + COMPLEX)
def allclose(ctx, x, y, rtol, atol, equal_nan):
    return ctx.xp.all(_isclose(ctx.xp, x, y, rtol, atol, equal_nan))


@register_kernel("equal_all", ALL_BACKENDS, ALL_TYPES)
def equal_all(ctx, x, y):
    # Paddle: tensors of different shapes are not equal (no broadcasting).
    xp = ctx.xp
    if x.shape != y.shape:
        return xp.zeros((), dtype=bool)
    if x.dtype.kind == "f" and x.dtype.itemsize >= 4:  # float32, float64: Paddle's tolerance
        return xp.all(paddle_float_equal(xp, x, y))
    return xp.all(xp.equal(x, y))


# -- atan2, hypot, lerp --------------------------------------------------------------------------

@register_kernel("atan2", ALL_BACKENDS, REAL)
def atan2(ctx, x, y):
    # Integer inputs give float64, as in Paddle.
    xp = ctx.xp
    if x.dtype.kind in "iu":
        x, y = x.astype("float64"), y.astype("float64")
    return xp.arctan2(x, y)


@register_kernel("hypot", ALL_BACKENDS, FLOATS)
def hypot(ctx, x, y, *, into=None):
    return ctx.xp.hypot(x, y, out=into)


@register_kernel("lerp", ALL_BACKENDS, FLOATS)
def lerp(ctx, x, y, weight, *, into=None):
    # x + weight * (y - x), the sum written into ``into`` (read after the product).
    xp = ctx.xp
    return xp.add(x, xp.multiply(weight, xp.subtract(y, x)), out=into)


@register_kernel("lerp_grad", ALL_BACKENDS, FLOATS)
def lerp_grad(ctx, x, y, weight, out_grad, *, out_mask=None):
    xp = ctx.xp
    x_grad = (reduce_to_shape(xp.multiply(out_grad, xp.subtract(1, weight)), x.shape)
              if want(out_mask, 0) else None)
    y_grad = reduce_to_shape(xp.multiply(out_grad, weight), y.shape) if want(out_mask, 1) else None
    weight_grad = (reduce_to_shape(xp.multiply(out_grad, xp.subtract(y, x)), weight.shape)
                   if want(out_mask, 2) else None)
    return x_grad, y_grad, weight_grad


# -- fmax, fmin ------------------------------------------------------------------------------------

@register_kernel("fmax", ALL_BACKENDS, REAL)
def fmax(ctx, x, y):
    return ctx.xp.fmax(x, y)


@register_kernel("fmin", ALL_BACKENDS, REAL)
def fmin(ctx, x, y):
    return ctx.xp.fmin(x, y)


def _x_wins_grad(xp, x_wins, x, y, out_grad, out_mask):
    zero = _zero(xp, out_grad.dtype)
    x_grad = reduce_to_shape(xp.where(x_wins, out_grad, zero), x.shape) if want(out_mask, 0) else None
    y_grad = reduce_to_shape(xp.where(x_wins, zero, out_grad), y.shape) if want(out_mask, 1) else None
    return x_grad, y_grad


@register_kernel("fmax_grad", ALL_BACKENDS, REAL)
def fmax_grad(ctx, x, y, out_grad, *, out_mask=None):
    # Paddle: to x where x >= y or y is NaN (ties go to x, unlike maximum), to y elsewhere.
    xp = ctx.xp
    return _x_wins_grad(xp, xp.logical_or(x >= y, y != y), x, y, out_grad, out_mask)


@register_kernel("fmin_grad", ALL_BACKENDS, REAL)
def fmin_grad(ctx, x, y, out_grad, *, out_mask=None):
    xp = ctx.xp
    return _x_wins_grad(xp, xp.logical_or(x <= y, y != y), x, y, out_grad, out_mask)
