"""Binary elementwise kernels, their gradients and comparisons."""
from ..common.data_type import DataType
from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, ALL_TYPES, INEXACT, INTS, NUMERIC, REAL
from .funcs import check_integer_divisor, conj, paddle_float_equal, reduce_to_shape, want


@register_kernel("add", ALL_BACKENDS, NUMERIC)
def add(ctx, x, y, *, into=None):  # into: see KernelFactory.writes_into
    return ctx.xp.add(x, y, out=into)


# The gradients below test ``out_mask`` and whether a gradient needs reducing in line
# (a want() and a reduce_to_shape() frame per output cost ~250 ns at small sizes).

@register_kernel("add_grad", ALL_BACKENDS, NUMERIC)
def add_grad(ctx, x, y, out_grad, *, out_mask=None):
    shape = out_grad.shape
    x_grad = y_grad = None
    if out_mask is None or out_mask[0]:
        x_grad = out_grad if x.shape == shape else reduce_to_shape(out_grad, x.shape)
    if out_mask is None or out_mask[1]:
        y_grad = out_grad if y.shape == shape else reduce_to_shape(out_grad, y.shape)
    return x_grad, y_grad


@register_kernel("subtract", ALL_BACKENDS, NUMERIC)
def subtract(ctx, x, y, *, into=None):  # into: see KernelFactory.writes_into
    return ctx.xp.subtract(x, y, out=into)


@register_kernel("subtract_grad", ALL_BACKENDS, NUMERIC)
def subtract_grad(ctx, x, y, out_grad, *, out_mask=None):
    shape = out_grad.shape
    x_grad = y_grad = None
    if out_mask is None or out_mask[0]:
        x_grad = out_grad if x.shape == shape else reduce_to_shape(out_grad, x.shape)
    if out_mask is None or out_mask[1]:
        y_grad = ctx.xp.negative(out_grad if y.shape == shape else reduce_to_shape(out_grad, y.shape))
    return x_grad, y_grad


@register_kernel("multiply", ALL_BACKENDS, ALL_TYPES)  # bool too, as Paddle registers it (logical and)
def multiply(ctx, x, y, *, into=None):  # into: see KernelFactory.writes_into
    return ctx.xp.multiply(x, y, out=into)


@register_kernel("multiply_grad", ALL_BACKENDS, NUMERIC)
def multiply_grad(ctx, x, y, out_grad, *, out_mask=None):
    xp = ctx.xp
    if x.dtype.kind == "c" or y.dtype.kind == "c":
        x, y = conj(x), conj(y)
    x_grad = y_grad = None
    if out_mask is None or out_mask[0]:
        x_grad = xp.multiply(out_grad, y)
        if x_grad.shape != x.shape:
            x_grad = reduce_to_shape(x_grad, x.shape)
    if out_mask is None or out_mask[1]:
        y_grad = xp.multiply(out_grad, x)
        if y_grad.shape != y.shape:
            y_grad = reduce_to_shape(y_grad, y.shape)
    return x_grad, y_grad


@register_kernel("divide", ALL_BACKENDS, INEXACT)
def divide(ctx, x, y, *, into=None):  # into: see KernelFactory.writes_into
    return ctx.xp.divide(x, y, out=into)


@register_kernel("divide", ALL_BACKENDS, INTS)
def divide_int(ctx, x, y, *, into=None):
    """Paddle's integer DivideFunctor: C's ``a / b``, truncating toward zero, and a zero
    divisor is an error (the ``/`` operator casts integers to float32 before it gets here)."""
    xp = ctx.xp
    check_integer_divisor(xp, y)
    # x - fmod(x, y) is an exact multiple of y, so flooring it is truncating x / y.
    return xp.floor_divide(xp.subtract(x, xp.fmod(x, y)), y, out=into)


@register_kernel("divide_grad", ALL_BACKENDS, INEXACT)
def divide_grad(ctx, x, y, out, out_grad, *, out_mask=None):
    xp = ctx.xp
    scaled = xp.divide(out_grad, conj(y))
    x_grad = reduce_to_shape(scaled, x.shape) if want(out_mask, 0) else None
    y_grad = (reduce_to_shape(xp.negative(xp.multiply(scaled, conj(out))), y.shape)
              if want(out_mask, 1) else None)
    return x_grad, y_grad


def _register_compare(name, ufunc_name, dtypes=ALL_TYPES):
    def compare(ctx, x, y):
        return getattr(ctx.xp, ufunc_name)(x, y)

    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = f"Elementwise numpy.{ufunc_name}(x, y)."
    return register_kernel(name, ALL_BACKENDS, dtypes)(compare)


_TOLERANT = (DataType.FLOAT32, DataType.FLOAT64)
# bfloat16 registers itself so that it compares exactly (Paddle's EqualFunctor is
# tolerant only for C++ floating-point types) rather than through a float32 twin.
_EXACT = tuple(t for t in ALL_TYPES if t not in _TOLERANT) + (DataType.BFLOAT16,)
equal = _register_compare("equal", "equal", _EXACT)
not_equal = _register_compare("not_equal", "not_equal", _EXACT)


@register_kernel("equal", ALL_BACKENDS, _TOLERANT)
def equal_float(ctx, x, y):
    """Paddle's float32/float64 equal: |x - y| < 1e-8 (funcs.paddle_float_equal)."""
    return paddle_float_equal(ctx.xp, x, y)


@register_kernel("not_equal", ALL_BACKENDS, _TOLERANT)
def not_equal_float(ctx, x, y):
    """Paddle's float32/float64 not_equal: the negation of its tolerant equal."""
    return ctx.xp.logical_not(paddle_float_equal(ctx.xp, x, y))


less_than = _register_compare("less_than", "less")
less_equal = _register_compare("less_equal", "less_equal")
greater_than = _register_compare("greater_than", "greater")
greater_equal = _register_compare("greater_equal", "greater_equal")


# -- selection: where, maximum, minimum, sign ------------------------------------------

@register_kernel("where", ALL_BACKENDS, ALL_TYPES)
def where(ctx, condition, x, y):
    return ctx.xp.where(condition, x, y)


@register_kernel("where_grad", ALL_BACKENDS, NUMERIC)
def where_grad(ctx, condition, x, y, out_grad, *, out_mask=None):
    zero = ctx.xp.zeros((), dtype=out_grad.dtype)
    x_grad = reduce_to_shape(ctx.xp.where(condition, out_grad, zero), x.shape) if want(out_mask, 0) else None
    y_grad = reduce_to_shape(ctx.xp.where(condition, zero, out_grad), y.shape) if want(out_mask, 1) else None
    return x_grad, y_grad


@register_kernel("maximum", ALL_BACKENDS, REAL)
def maximum(ctx, x, y):
    return ctx.xp.maximum(x, y)


@register_kernel("minimum", ALL_BACKENDS, REAL)
def minimum(ctx, x, y):
    return ctx.xp.minimum(x, y)


def _select_grad(xp, x_wins, x, y, out_grad, out_mask):
    """Paddle's rule for maximum/minimum: out_grad goes to x where x strictly wins,
    to y elsewhere (ties included)."""
    zero = xp.zeros((), dtype=out_grad.dtype)
    x_grad = reduce_to_shape(xp.where(x_wins, out_grad, zero), x.shape) if want(out_mask, 0) else None
    y_grad = reduce_to_shape(xp.where(x_wins, zero, out_grad), y.shape) if want(out_mask, 1) else None
    return x_grad, y_grad


@register_kernel("maximum_grad", ALL_BACKENDS, REAL)
def maximum_grad(ctx, x, y, out_grad, *, out_mask=None):
    return _select_grad(ctx.xp, x > y, x, y, out_grad, out_mask)


@register_kernel("minimum_grad", ALL_BACKENDS, REAL)
def minimum_grad(ctx, x, y, out_grad, *, out_mask=None):
    return _select_grad(ctx.xp, x < y, x, y, out_grad, out_mask)


@register_kernel("sign", ALL_BACKENDS, REAL)
def sign(ctx, x):
    return ctx.xp.sign(x)
