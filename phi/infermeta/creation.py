"""InferMeta of the creation ops (group creation of phi/kernels) and of the
random ops (phi/kernels/sampling)."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..common.data_type import DataType, convert_dtype, default_float_dtype, float_info
from ..core.errors import (ArgumentKindError, InvalidArgumentError, NegativeCountError, UnsupportedDtypeArgumentError,
                           UnsupportedInputDtypeError)
from ..core.meta_tensor import MetaTensor
from .checks import broadcast_dims, check_representable, check_result_shape, normalize_axis
from .nullary import create_infer_meta

_FLOAT_TYPES = (DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64)
_INDEX_TYPES = (DataType.INT32, DataType.INT64)


def _real(arg: str, value) -> None:
    """A finite real attribute (no complex, nan or inf). A complex one is of the
    wrong kind: a TypeError as Paddle's ``float(value)`` raises, and a ValueError."""
    if isinstance(value, complex) or not isinstance(value, numbers.Real):
        raise ArgumentKindError(f"argument '{arg}' expected a real number, got {value!r}")
    if not math.isfinite(value):
        raise InvalidArgumentError(f"argument '{arg}' expected a finite number, got {value!r}")


def _dtype_or(dtype, default: DataType) -> DataType:
    return default if dtype is None else convert_dtype(dtype)


def _dtype_in(arg: str, dtype: DataType, allowed) -> None:
    if dtype not in allowed:
        raise UnsupportedDtypeArgumentError(
            f"argument '{arg}' expected one of {', '.join(str(d) for d in allowed)}, got {dtype}")


def _count(arg: str, value) -> None:
    if value < 0:
        raise InvalidArgumentError(f"argument '{arg}' expected a count >= 0, got {value}")


# -- ranges ---------------------------------------------------------------------------

def arange_dtype(start, end, step) -> DataType:
    """Paddle's default: int64 when start, end and step are all integers, else the
    default float dtype (float32 unless changed)."""
    if all(isinstance(v, numbers.Integral) for v in (start, end, step)):
        return DataType.INT64
    return default_float_dtype()


def _arange_direction(start, end, step, shown: tuple) -> None:
    """Paddle's rule: a step whose sign disagrees with end - start is an error
    (NumPy would return an empty range); start == end gives an empty range.
    ``shown``: the (start, end, step) the caller passed, for the message."""
    if (start < end and step < 0) or (start > end and step > 0):
        raise InvalidArgumentError(
            f"argument 'step' expected a {'positive' if start < end else 'negative'} step when start "
            f"{'<' if start < end else '>'} end (start {shown[0]!r}, end {shown[1]!r}), got {shown[2]!r}")


def scalar_type(dtype: DataType):
    """The NumPy scalar type of dtype: the arithmetic Paddle's arange kernel does
    for it, and how linspace and logspace read their ends (filled into dtype)."""
    try:
        return np.dtype(dtype.numpy_dtype).type
    except (TypeError, ImportError):  # bfloat16 without ml_dtypes
        return np.float32


def arange_bounds(start, end, step, dtype: DataType) -> tuple:
    """(start, step, length) of arange, as Paddle's kernel sizes it: start, end and
    step are first cast to the dtype (an integer dtype truncates them), a step
    whose sign disagrees with end - start raises, and the length is
    ceil(|end - start| / |step|) computed in the dtype's own arithmetic, so a
    float32 range has the length Paddle's float32 kernel gives it (arange(0.8,
    1.1, 0.1) has 3 values, not NumPy's 4). The length is None when the step is 0
    once cast."""
    if end is None:
        start, end = 0, start
    if dtype.is_integer:
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            return start, step, None
        _arange_direction(start, end, step, (start, end, step))
        return start, step, (abs(end - start) + abs(step) - 1) // abs(step)
    kind = scalar_type(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        first, last, stride = kind(start), kind(end), kind(step)
        if stride == 0:
            return start, step, None
        _arange_direction(first, last, stride, (start, end, step))
        count = np.ceil(np.abs((last - first) / stride))
    if not np.isfinite(count):  # the dtype's arithmetic overflowed: count in float64
        count = math.ceil(abs((float(end) - float(start)) / float(step)))
    return start, step, int(count)


def arange_infer_meta(start, end, step, dtype, out) -> None:
    """1-D of ceil((end - start) / step) values; step must not be 0."""
    for arg, value in (("start", start), ("end", end), ("step", step)):
        if value is not None:
            _real(arg, value)
    dtype = _dtype_or(dtype, arange_dtype(start, 0 if end is None else end, step))
    _dtype_in("dtype", dtype, _INDEX_TYPES + _FLOAT_TYPES)
    for arg, value in (("start", start), ("end", end), ("step", step)):
        if value is not None:
            check_representable(arg, value, dtype)
    _, _, length = arange_bounds(start, end, step, dtype)
    if length is None:
        raise InvalidArgumentError(
            f"argument 'step' expected a non-zero step{' once cast to ' + str(dtype) if step else ''}, got {step!r}")
    create_infer_meta((length,), dtype, out)


def linspace_infer_meta(start, stop, num, dtype, out) -> None:
    """1-D of num values, num >= 1 (Paddle's kernel refuses 0); dtype defaults to
    float32, and start and stop must fit it (the kernel casts them to it first)."""
    _real("start", start)
    _real("stop", stop)
    if num < 1:
        raise InvalidArgumentError(f"argument 'num' expected a count >= 1 (Paddle refuses 0), got {num}")
    dtype = _dtype_or(dtype, default_float_dtype())
    _dtype_in("dtype", dtype, _INDEX_TYPES + _FLOAT_TYPES)
    check_representable("start", start, dtype)
    check_representable("stop", stop, dtype)
    create_infer_meta((num,), dtype, out)


def logspace_infer_meta(start, stop, num, base, dtype, out) -> None:
    """1-D of num values; base must be a finite real that fits dtype."""
    _real("base", base)
    linspace_infer_meta(start, stop, num, dtype, out)
    check_representable("base", base, out.dtype)


# -- filled and uninitialized tensors -------------------------------------------------

def empty_infer_meta(shape, dtype, out) -> None:
    """shape, dtype defaulting to float32."""
    create_infer_meta(shape, _dtype_or(dtype, default_float_dtype()), out)


def eye_infer_meta(num_rows, num_columns, dtype, out) -> None:
    """[num_rows, num_columns or num_rows]; dtype defaults to float32."""
    for arg, value in (("num_rows", num_rows), ("num_columns", num_columns)):
        if value is not None and value < 0:
            raise NegativeCountError(f"argument '{arg}' expected a count >= 0, got {value}")
    columns = num_rows if num_columns is None else num_columns
    create_infer_meta((num_rows, columns), _dtype_or(dtype, default_float_dtype()), out)


def fill_infer_meta(x, value, out) -> None:
    """x's meta; value must fit x's dtype."""
    check_representable("value", value, x.dtype)
    out.share_meta(x)


# -- triangles and diagonals ----------------------------------------------------------

def tril_triu_infer_meta(x, diagonal, out) -> None:
    """x's meta; x needs at least two dimensions (the matrix is the last two)."""
    if len(x.dims) < 2:
        raise InvalidArgumentError(
            f"argument 'x' expected a tensor of at least 2 dimensions, got shape {list(x.dims)}")
    out.share_meta(x)


def diag_infer_meta(x, offset, padding_value, out) -> None:
    """1-D x (or 0-d, one element, as Paddle): the square matrix with x on diagonal
    ``offset``; 2-D x: that diagonal."""
    dims = tuple(x.dims)
    check_representable("padding_value", padding_value, x.dtype)
    if len(dims) <= 1:
        size = (dims[0] if dims else 1) + abs(offset)
        out.dims = (size, size)
    elif len(dims) == 2:
        out.dims = (diagonal_length(dims[0], dims[1], offset),)
    else:
        raise InvalidArgumentError(f"argument 'x' expected a 0-D, 1-D or 2-D tensor, got shape {list(dims)}")
    out.dtype = x.dtype
    check_result_shape("offset", out.dims, out.dtype)


def diagonal_length(rows: int, columns: int, offset: int) -> int:
    """How many elements diagonal ``offset`` of a rows x columns matrix has (0 when it misses)."""
    if offset >= 0:
        return max(0, min(rows, columns - offset))
    return max(0, min(rows + offset, columns))


def diagflat_infer_meta(x, offset, out) -> None:
    """The square matrix with x's elements (flattened) on diagonal ``offset``."""
    size = math.prod(x.dims) + abs(offset)
    out.dims = (size, size)
    out.dtype = x.dtype
    check_result_shape("offset", out.dims, out.dtype)


def diag_embed_infer_meta(input, offset, dim1, dim2, out) -> None:
    """input's last axis on diagonal ``offset`` of the planes (dim1, dim2) of a
    result with one more dimension."""
    dims = tuple(input.dims)
    if not dims:
        raise InvalidArgumentError("argument 'input' expected a tensor of at least 1 dimension, got a 0-d tensor")
    ndim = len(dims) + 1
    first = normalize_axis("dim1", dim1, ndim)
    second = normalize_axis("dim2", dim2, ndim)
    if first == second:
        raise InvalidArgumentError(
            f"arguments 'dim1' and 'dim2' expected two different axes, got {dim1} and {dim2} "
            f"(both axis {first} of the {ndim}-d result)")
    size = dims[-1] + abs(offset)
    batch = list(dims[:-1])
    for axis in sorted((first, second)):
        batch.insert(axis, size)
    out.dims = tuple(batch)
    out.dtype = input.dtype
    check_result_shape("offset", out.dims, out.dtype)


def meshgrid_infer_meta(x, out) -> None:
    """One output per input, each of shape [len(x[0]), len(x[1]), ...]; inputs are
    0-d (length 1) or 1-D and of one dtype."""
    if not x:
        raise InvalidArgumentError("argument 'x' expected at least one tensor, got an empty list")
    for i, t in enumerate(x):
        if len(t.dims) > 1:
            raise InvalidArgumentError(f"argument 'x': x[{i}] expected a 0-d or 1-D tensor, got shape {list(t.dims)}")
        if t.dtype is not x[0].dtype:
            raise InvalidArgumentError(
                f"argument 'x': x[{i}] has dtype {t.dtype} but x[0] has {x[0].dtype}; meshgrid needs one dtype")
    shape = tuple(t.dims[0] if t.dims else 1 for t in x)
    check_result_shape("x", shape, x[0].dtype)
    for t in x:
        out.append(MetaTensor(shape, t.dtype, t.layout))


# -- random ops (phi/kernels/sampling) --------------------------------------------------

def _seed(seed) -> None:
    if seed < 0:
        raise InvalidArgumentError(f"argument 'seed' expected an int >= 0 (0: the global generator), got {seed}")


def uniform_infer_meta(shape, dtype, min, max, seed, out) -> None:
    """shape, a floating dtype (default float32); min < max."""
    _real("min", min)
    _real("max", max)
    if not min < max:
        raise InvalidArgumentError(f"arguments 'min' and 'max' expected min < max, got min={min}, max={max}")
    _seed(seed)
    dtype = _dtype_or(dtype, default_float_dtype())
    _dtype_in("dtype", dtype, _FLOAT_TYPES)
    create_infer_meta(shape, dtype, out)


def gaussian_infer_meta(shape, mean, std, seed, dtype, out) -> None:
    """shape, a floating dtype (default float32); std >= 0."""
    _real("mean", mean)
    _real("std", std)
    if std < 0:
        raise InvalidArgumentError(f"argument 'std' expected a standard deviation >= 0, got {std}")
    _seed(seed)
    dtype = _dtype_or(dtype, default_float_dtype())
    _dtype_in("dtype", dtype, _FLOAT_TYPES)
    create_infer_meta(shape, dtype, out)


def _int_range(low, high, dtype: DataType) -> None:
    """[low, high) is not empty and its values fit ``dtype``; high None means [0, low).
    bool takes any range: the int64 draw's truth (nonzero is True), as Paddle casts it."""
    if high is None:
        low, high = 0, low
        if not low < high:
            raise InvalidArgumentError(
                f"argument 'low' is the exclusive upper bound when high is None, and must be > 0, got {high}")
    if not low < high:
        raise InvalidArgumentError(f"arguments 'low' and 'high' expected low < high, got low={low}, high={high}")
    if dtype.is_integer:  # not bool, which takes the int64 draw's range
        info = np.iinfo(dtype.numpy_dtype)
        least, most = int(info.min), int(info.max)
    else:
        least, most = -(2 ** 63), 2 ** 63 - 1
    if low < least or high - 1 > most:
        raise InvalidArgumentError(
            f"arguments 'low' and 'high': [{low}, {high}) holds values a {dtype} cannot, which are [{least}, {most}]")


def randint_infer_meta(low, high, shape, dtype, out) -> None:
    """shape, int32 or int64 (default int64); values in [low, high)."""
    dtype = _dtype_or(dtype, DataType.INT64)
    _dtype_in("dtype", dtype, _INDEX_TYPES)
    _int_range(low, high, dtype)
    create_infer_meta(shape, dtype, out)


def randint_like_infer_meta(x, low, high, dtype, out) -> None:
    """x's shape; dtype defaults to x's (bool, int32, int64 or floating)."""
    dtype = _dtype_or(dtype, x.dtype)
    _dtype_in("dtype", dtype, (DataType.BOOL,) + _INDEX_TYPES + _FLOAT_TYPES)
    _int_range(low, high, dtype)
    create_infer_meta(tuple(x.dims), dtype, out)


def randperm_infer_meta(n, dtype, out) -> None:
    """[n]; dtype int32, int64 (default), float32 or float64."""
    _count("n", n)
    dtype = _dtype_or(dtype, DataType.INT64)
    _dtype_in("dtype", dtype, _INDEX_TYPES + (DataType.FLOAT32, DataType.FLOAT64))
    if n and n - 1 > _largest_exact(dtype):
        raise InvalidArgumentError(f"argument 'n' is {n}, but a {dtype} cannot hold every value below it")
    create_infer_meta((n,), dtype, out)


def _largest_exact(dtype: DataType) -> int:
    if dtype.is_integer:
        return int(np.iinfo(dtype.numpy_dtype).max)
    return 2 ** (float_info(dtype).nmant + 1)


def probabilities_infer_meta(x, out) -> None:
    """x's meta; x holds probabilities or rates, so it must be floating."""
    _dtype_in("x", x.dtype, _FLOAT_TYPES)
    out.share_meta(x)


def binomial_infer_meta(count, prob, out) -> None:
    """int64 counts of count and prob's broadcast shape; prob floating, count any real dtype."""
    _dtype_in("prob", prob.dtype, _FLOAT_TYPES)
    if not (count.dtype.is_integer or count.dtype.is_floating_point):
        raise InvalidArgumentError(f"argument 'count' expected an integer or floating tensor, got {count.dtype}")
    dims = broadcast_dims("count", count.dims, "prob", prob.dims)
    out.set_dims(dims)
    out.set_dtype(DataType.INT64)
    out.layout = prob.layout


def multinomial_infer_meta(x, num_samples, replacement, out) -> None:
    """[num_samples] or [rows, num_samples] of int64 category indices, from 1-D or
    2-D weights; without replacement num_samples may not exceed the categories."""
    _dtype_in("x", x.dtype, _FLOAT_TYPES)
    dims = tuple(x.dims)
    if len(dims) not in (1, 2):
        raise InvalidArgumentError(f"argument 'x' expected a 1-D or 2-D tensor of weights, got shape {list(dims)}")
    if dims[-1] == 0:
        raise InvalidArgumentError(f"argument 'x' expected at least one category, got shape {list(dims)}")
    if num_samples < 1:
        raise InvalidArgumentError(f"argument 'num_samples' expected an int >= 1, got {num_samples}")
    if not replacement and num_samples > dims[-1]:
        raise InvalidArgumentError(
            f"argument 'num_samples' is {num_samples}, more than the {dims[-1]} categories of x; "
            f"without replacement each category is drawn at most once (pass replacement=True)")
    create_infer_meta(dims[:-1] + (num_samples,), DataType.INT64, out)


# -- complex ------------------------------------------------------------------------

_COMPLEX_OF = {DataType.FLOAT32: DataType.COMPLEX64, DataType.FLOAT64: DataType.COMPLEX128}


def complex_infer_meta(real, imag, out) -> None:
    """The broadcast of real and imag (float32 or float64, one dtype), as complex64 or complex128.
    A dtype outside those is also a RuntimeError (Paddle's kernel lookup fails there)."""
    for arg, part in (("real", real), ("imag", imag)):
        if part.dtype not in _COMPLEX_OF:
            raise UnsupportedInputDtypeError(
                f"argument '{arg}' expected one of paddle.float32, paddle.float64, got {part.dtype}")
    if real.dtype is not imag.dtype:
        raise InvalidArgumentError(
            f"arguments 'real' and 'imag' expected the same dtype, got {real.dtype} and {imag.dtype}")
    out.dims = tuple(broadcast_dims("real", tuple(real.dims), "imag", tuple(imag.dims)))
    out.dtype = _COMPLEX_OF[real.dtype]
    check_result_shape("imag", out.dims, out.dtype)


def complex_grad_infer_meta(real, imag, out_grad, real_grad, imag_grad) -> None:
    """Gradients shaped like real and imag; out_grad must be the forward result's meta."""
    forward = MetaTensor()
    complex_infer_meta(real, imag, forward)
    if tuple(out_grad.dims) != tuple(forward.dims) or out_grad.dtype is not forward.dtype:
        raise InvalidArgumentError(
            f"argument 'out_grad' expected {forward.dtype}{list(forward.dims)} (the forward op's result), "
            f"got {out_grad.dtype}{list(out_grad.dims)}")
    real_grad.share_meta(real)
    imag_grad.share_meta(imag)


__all__ = [
    "arange_bounds", "arange_dtype", "arange_infer_meta", "diag_embed_infer_meta", "diag_infer_meta",
    "diagflat_infer_meta", "diagonal_length", "empty_infer_meta", "eye_infer_meta", "fill_infer_meta",
    "linspace_infer_meta", "logspace_infer_meta", "meshgrid_infer_meta", "scalar_type", "tril_triu_infer_meta",
    "gaussian_infer_meta", "binomial_infer_meta", "multinomial_infer_meta", "probabilities_infer_meta", "randint_infer_meta",
    "randint_like_infer_meta", "randperm_infer_meta", "uniform_infer_meta", "complex_grad_infer_meta",
    "complex_infer_meta",
]
