"""Kernels that make new tensors: filled, ranges, identity, triangles and diagonals, grids."""
import numpy as np

from ..core.kernel_registry import register_kernel
from ..infermeta.creation import arange_bounds, diagonal_length, scalar_type
from ..common.data_type import DataType as T
from .dtypes import ALL_BACKENDS, ALL_TYPES, COMPLEX, FLOATS, INTS
from .funcs import copied_into, reduce_to_shape, want


@register_kernel("full", ALL_BACKENDS, ALL_TYPES)
def full(ctx, shape, fill_value, dtype):
    return ctx.xp.full(shape, fill_value, dtype=dtype.numpy_dtype)


@register_kernel("full_like", ALL_BACKENDS, ALL_TYPES)
def full_like(ctx, x, fill_value, dtype):
    return ctx.xp.full(x.shape, fill_value, dtype=x.dtype if dtype is None else dtype.numpy_dtype)


# -- ranges -------------------------------------------------------------------------
# arange: computed in float64 (or exactly, for integers) and then cast, so float32
# results are the correctly rounded values; InferMeta and kernel share the length
# (arange_bounds, which sizes the range as Paddle's kernel does).

@register_kernel("arange", ALL_BACKENDS, INTS + FLOATS)
def arange(ctx, start, end, step, dtype):
    start, step, length = arange_bounds(start, end, step, dtype)
    if dtype.is_integer:
        return (ctx.xp.arange(length, dtype=np.int64) * step + start).astype(dtype.numpy_dtype)
    return (ctx.xp.arange(length, dtype=np.float64) * float(step) + float(start)).astype(dtype.numpy_dtype)


def _in_dtype(value, dtype):
    """value as Paddle's linspace and logspace read it: filled into a tensor of
    dtype first (an integer dtype truncates it), back as a Python float."""
    return float(scalar_type(dtype)(value))


def _linspace(xp, start, stop, num, dtype):
    """linspace in float64 from the ends cast to dtype first, as Paddle reads them
    (an integer dtype truncates them; InferMeta checked they fit). Integer dtypes
    take Paddle's formula exactly, since truncation turns an ulp into a whole unit:
    step = (stop - start) / (num - 1), the first num // 2 values counted up from
    start and the rest down from stop. Floats take NumPy's (the two agree to an
    ulp). Either way the last value is exactly stop."""
    first, last = _in_dtype(start, dtype), _in_dtype(stop, dtype)
    if not dtype.is_integer or num == 1:
        return xp.linspace(first, last, num, dtype=np.float64)
    step = (last - first) / (num - 1)
    steps = xp.arange(num, dtype=np.float64)
    return xp.where(steps < num // 2, first + step * steps, last - step * (num - 1 - steps))


def _cast_truncating(xp, values, dtype):
    # An integer dtype truncates toward zero (Paddle's cast), not floor as NumPy's linspace does.
    if dtype.is_integer:
        values = xp.trunc(values)
    return values.astype(dtype.numpy_dtype)


@register_kernel("linspace", ALL_BACKENDS, INTS + FLOATS)
def linspace(ctx, start, stop, num, dtype):
    return _cast_truncating(ctx.xp, _linspace(ctx.xp, start, stop, num, dtype), dtype)


@register_kernel("logspace", ALL_BACKENDS, INTS + FLOATS)
def logspace(ctx, start, stop, num, base, dtype):
    xp = ctx.xp
    # Paddle casts base to dtype as well (an integer dtype truncates 2.5 to 2).
    values = xp.power(_in_dtype(base, dtype), _linspace(xp, start, stop, num, dtype))
    if dtype.is_integer:
        # CUDA's pow may land an ulp below an exact integer power (3.0 ** 1.0 gave
        # 2.9999999999999996 on an H200), which truncation would turn into 2: values
        # within a few ulp of an integer are taken as that integer on every device.
        nearest = xp.rint(values)
        values = xp.where(xp.abs(values - nearest) <= 8 * np.finfo(np.float64).eps * xp.abs(nearest),
                          nearest, values)
    return _cast_truncating(xp, values, dtype)


# -- filled and uninitialized tensors ---------------------------------------------------

@register_kernel("empty", ALL_BACKENDS, ALL_TYPES)
def empty(ctx, shape, dtype):
    return ctx.xp.empty(shape, dtype=dtype.numpy_dtype)


@register_kernel("empty_like", ALL_BACKENDS, ALL_TYPES)
def empty_like(ctx, x, dtype):
    return ctx.xp.empty(x.shape, dtype=x.dtype if dtype is None else dtype.numpy_dtype)


@register_kernel("eye", ALL_BACKENDS, ALL_TYPES)
def eye(ctx, num_rows, num_columns, dtype):
    return ctx.xp.eye(num_rows, num_rows if num_columns is None else num_columns, dtype=dtype.numpy_dtype)


@register_kernel("fill", ALL_BACKENDS, ALL_TYPES)
def fill(ctx, x, value, *, into=None):
    """An array like x of value; with ``into`` (the inplace op's target,
    KernelFactory.writes_into) value is written there, cast as ``full`` casts it."""
    if into is None:
        return ctx.xp.full(x.shape, value, dtype=x.dtype)
    ctx.xp.copyto(into, value, casting="unsafe")
    return into


@register_kernel("zero", ALL_BACKENDS, ALL_TYPES)
def zero(ctx, x, *, into=None):
    """Zeros like x; with ``into`` (the inplace op's target) zeros written there."""
    if into is None:
        return ctx.xp.zeros(x.shape, dtype=x.dtype)
    into.fill(0)
    return into


# -- triangles and diagonals --------------------------------------------------------------

def _triangle_mask(xp, rows, columns, diagonal, lower):
    # True where column - row relates to diagonal as the triangle keeps, compared as
    # column against row + diagonal: one boolean (rows, columns) array, no int64 one.
    column, shifted_row = xp.arange(columns)[None, :], xp.arange(rows)[:, None] + diagonal
    return column <= shifted_row if lower else column >= shifted_row


def _triangle(xp, x, diagonal, lower, into):
    """x with the elements outside its triangle zeroed. With ``into`` x itself (the
    inplace op's target, KernelFactory.writes_into) only those elements are written,
    through the mask of the other triangle; another ``into`` gets the new result."""
    rows, columns = x.shape[-2], x.shape[-1]
    if into is not x:
        mask = _triangle_mask(xp, rows, columns, diagonal, lower)
        return copied_into(xp.where(mask, x, xp.zeros((), x.dtype)), into)
    # Outside the lower triangle of diagonal d lies the upper one of d + 1, and vice versa.
    outside = _triangle_mask(xp, rows, columns, diagonal + 1 if lower else diagonal - 1, not lower)
    xp.copyto(into, xp.zeros((), x.dtype), where=outside)
    return into


@register_kernel("tril", ALL_BACKENDS, ALL_TYPES)
def tril(ctx, x, diagonal, *, into=None):  # into: see _triangle
    return _triangle(ctx.xp, x, diagonal, True, into)


@register_kernel("triu", ALL_BACKENDS, ALL_TYPES)
def triu(ctx, x, diagonal, *, into=None):  # into: see _triangle
    return _triangle(ctx.xp, x, diagonal, False, into)


def diagonal_indices(xp, length, offset):
    """(rows, columns) of the ``length`` elements of diagonal ``offset``."""
    steps = xp.arange(length)
    return steps + max(-offset, 0), steps + max(offset, 0)


@register_kernel("diag", ALL_BACKENDS, ALL_TYPES)
def diag(ctx, x, offset, padding_value):
    xp = ctx.xp
    if x.ndim <= 1:
        x = x.reshape(-1)  # a 0-d x is one element (Paddle)
        size = x.shape[0] + abs(offset)
        out = xp.full((size, size), padding_value, dtype=x.dtype)
        out[diagonal_indices(xp, x.shape[0], offset)] = x
        return out
    length = diagonal_length(x.shape[0], x.shape[1], offset)
    return x[diagonal_indices(xp, length, offset)]


@register_kernel("diagflat", ALL_BACKENDS, ALL_TYPES)
def diagflat(ctx, x, offset):
    flat = x.reshape(-1)
    size = flat.shape[0] + abs(offset)
    out = ctx.xp.zeros((size, size), dtype=x.dtype)
    out[diagonal_indices(ctx.xp, flat.shape[0], offset)] = flat
    return out


@register_kernel("diag_embed", ALL_BACKENDS, ALL_TYPES)
def diag_embed(ctx, input, offset, dim1, dim2):
    xp = ctx.xp
    ndim = input.ndim + 1
    first, second = dim1 % ndim, dim2 % ndim
    n = input.shape[-1]
    size = n + abs(offset)
    # Built with the planes last (batch..., size, size), then moved to (dim1, dim2).
    planes = xp.zeros(input.shape[:-1] + (size, size), dtype=input.dtype)
    rows, columns = diagonal_indices(xp, n, offset)
    planes[..., rows, columns] = input
    return xp.moveaxis(planes, (-2, -1), (first, second))


@register_kernel("meshgrid", ALL_BACKENDS, ALL_TYPES)
def meshgrid(ctx, x):
    shape = tuple(t.shape[0] if t.ndim else 1 for t in x)
    outs = []
    for axis, t in enumerate(x):
        view = t.reshape((1,) * axis + (-1,) + (1,) * (len(x) - axis - 1))
        outs.append(ctx.xp.broadcast_to(view, shape).copy())
    return outs


# -- complex ---------------------------------------------------------------------------

@register_kernel("complex", ALL_BACKENDS, (T.FLOAT32, T.FLOAT64))
def make_complex(ctx, real, imag):
    xp = ctx.xp
    shape = np.broadcast_shapes(real.shape, imag.shape)
    out_dtype = np.result_type(real.dtype, np.complex64)
    out = xp.empty(shape, dtype=out_dtype)
    out.real[...] = real
    out.imag[...] = imag
    return out


@register_kernel("complex_grad", ALL_BACKENDS, COMPLEX)
def complex_grad(ctx, real, imag, out_grad, *, out_mask=None):
    # d/d real and d/d imag of a real loss: the real and imaginary parts of out_grad
    # (Paddle's and PyTorch's convention), summed over broadcast axes.
    real_grad = reduce_to_shape(out_grad.real, real.shape).astype(real.dtype) if want(out_mask, 0) else None
    imag_grad = reduce_to_shape(out_grad.imag, imag.shape).astype(imag.dtype) if want(out_mask, 1) else None
    return real_grad, imag_grad
