"""InferMeta of the reduce scan ops (group reduce_scan of phi/kernels).

An ``axis`` of None (Paddle's default) or an empty list reduces every axis.
"""
from __future__ import annotations

import math
import numbers

from ..common.data_type import DataType, convert_dtype
from ..core.errors import InvalidArgumentError, UnsupportedInputDtypeError
from ..core.meta_tensor import MetaTensor
from .checks import normalize_axes, normalize_axis
from .unary import reduce_infer_meta

__all__ = [
    "reduce_axes_infer_meta", "extreme_infer_meta", "float_reduce_infer_meta", "prod_infer_meta",
    "var_infer_meta", "norm_infer_meta", "logical_reduce_infer_meta", "count_nonzero_infer_meta",
    "nansum_infer_meta", "median_infer_meta", "scan_infer_meta", "cumprod_infer_meta", "float_scan_infer_meta",
    "extreme_grad_infer_meta", "prod_grad_infer_meta", "scan_grad_infer_meta", "cumprod_grad_infer_meta",
    "logcumsumexp_grad_infer_meta", "float_reduce_grad_infer_meta", "nanmean_grad_infer_meta",
    "var_grad_infer_meta", "std_grad_infer_meta", "norm_grad_infer_meta", "nansum_grad_infer_meta",
    "median_grad_infer_meta",
]


def _expect_real(x, what: str = "an integer or floating-point tensor") -> None:
    # Paddle has no kernel for a bool x (nor a complex one for max/min): its RuntimeError
    if not (x.dtype.is_integer or x.dtype.is_floating_point):
        raise UnsupportedInputDtypeError(f"argument 'x' expected {what}, got dtype {x.dtype}")


def _expect_numeric(x) -> None:
    """prod, cumsum, cumprod: Paddle 2.6 registers them for complex64/complex128 too."""
    if not x.dtype.is_complex:
        _expect_real(x, "an integer, floating-point or complex tensor")


def _cast_target(x, dtype):
    """The dtype argument of prod, cumsum, cumprod (x is cast to it first) as a DataType."""
    target = convert_dtype(dtype)
    if x.dtype.is_complex and not target.is_complex:
        raise InvalidArgumentError(f"argument 'dtype' expected a complex dtype for complex x ({x.dtype}), got "
                                   f"{target}: casting would drop the imaginary part; take .real() first")
    if not (target.is_integer or target.is_floating_point or target.is_complex):
        raise InvalidArgumentError(f"argument 'dtype' expected an integer, floating-point or complex dtype, "
                                   f"got {target}")
    return target


def _expect_floating(x) -> None:
    # Paddle has no kernel for the other dtypes: its RuntimeError, so UnsupportedInputDtypeError
    if not x.dtype.is_floating_point:
        raise UnsupportedInputDtypeError(
            f"argument 'x' expected a floating-point tensor (float16, float32, float64), got dtype "
            f"{x.dtype}; cast it with .astype('float32')")


def reduce_axes_infer_meta(x, axis, keepdim, out) -> None:
    """reduce_infer_meta with Paddle's axis=None (every axis)."""
    reduce_infer_meta(x, () if axis is None else axis, keepdim, out)


def extreme_infer_meta(x, axis, keepdim, out) -> None:
    """max/min/amax/amin: real dtypes, and every reduced group must have an element
    (the maximum of nothing is undefined, as NumPy says)."""
    _expect_real(x)
    reduce_axes_infer_meta(x, axis, keepdim, out)
    dims = tuple(x.dims)
    axes = normalize_axes("axis", () if axis is None else axis, len(dims))
    if any(dims[a] == 0 for a in axes):
        raise InvalidArgumentError(
            f"argument 'x' of shape {list(dims)} has no elements along the reduced axes "
            f"{list(axes)}; the extreme of an empty set is undefined")


def float_reduce_infer_meta(x, axis, keepdim, out) -> None:
    """A reduction of floating-point tensors (logsumexp, nanmean)."""
    _expect_floating(x)
    reduce_axes_infer_meta(x, axis, keepdim, out)


def prod_infer_meta(x, axis, keepdim, dtype, out) -> None:
    """prod keeps x's dtype (Paddle: integers do not widen); dtype casts x first (so a
    bool x is taken with a numeric dtype, as Paddle casts before its kernel)."""
    if dtype is None:
        _expect_numeric(x)
    reduce_axes_infer_meta(x, axis, keepdim, out)
    if dtype is not None:
        out.dtype = _cast_target(x, dtype)


def var_infer_meta(x, axis, unbiased, keepdim, out) -> None:
    """var/std of floating-point tensors."""
    float_reduce_infer_meta(x, axis, keepdim, out)


def norm_infer_meta(x, p, axis, keepdim, out) -> None:
    """paddle.norm's vector norms: p is 'fro' (2 over the axes), ±inf or a real number."""
    _expect_floating(x)
    if isinstance(p, str):
        if p != "fro":
            hint = " (the nuclear norm is a matrix norm, which norm does not compute)" if p == "nuc" else ""
            raise InvalidArgumentError(
                f"argument 'p' expected 'fro', inf, -inf or a real number, got {p!r}{hint}")
    elif isinstance(p, bool) or not isinstance(p, numbers.Real) or math.isnan(p):
        raise InvalidArgumentError(f"argument 'p' expected 'fro', inf, -inf or a real number, got {p!r}")
    if axis is not None and len(axis) > 2:
        raise InvalidArgumentError(
            f"argument 'axis' expected None, an int or a list of two ints, got {list(axis)}")
    if axis is not None and len(axis) == 2 and not isinstance(p, str) and p == 0:
        # Paddle counts nonzeros over all elements or one axis only.
        raise InvalidArgumentError(
            f"argument 'p' = 0 needs axis None or a single axis (as in Paddle), got axis {list(axis)}")
    reduce_axes_infer_meta(x, axis, keepdim, out)


def logical_reduce_infer_meta(x, axis, keepdim, out) -> None:
    """all/any: a bool result, whatever x's dtype (nonzero is True)."""
    reduce_axes_infer_meta(x, axis, keepdim, out)
    out.dtype = DataType.BOOL


def count_nonzero_infer_meta(x, axis, keepdim, out) -> None:
    reduce_axes_infer_meta(x, axis, keepdim, out)
    out.dtype = DataType.INT64


def nansum_infer_meta(x, axis, dtype, keepdim, out) -> None:
    """As sum: int32 widens to int64 (Paddle's nansum is a sum), other dtypes keep
    theirs; dtype, when given, is the result's dtype."""
    _expect_numeric(x)
    reduce_axes_infer_meta(x, axis, keepdim, out)
    if dtype is not None:
        out.dtype = _cast_target(x, dtype)
    elif x.dtype is DataType.INT32:
        out.dtype = DataType.INT64


def median_infer_meta(x, axis, keepdim, out) -> None:
    """median over one axis (or all): float64 for float64 input, float32 otherwise (Paddle)."""
    if x.dtype.is_complex:  # Paddle's topk has no complex kernel: its RuntimeError too
        raise UnsupportedInputDtypeError(f"argument 'x' expected a real or bool tensor, got dtype {x.dtype}")
    reduce_axes_infer_meta(x, None if axis is None else (axis,), keepdim, out)
    dims = list(x.dims)
    axes = list(range(len(dims))) if axis is None or not dims else [normalize_axis("axis", axis, len(dims))]
    if math.prod(dims[a] for a in axes) == 0:  # the median of nothing (Paddle refuses an empty x)
        raise InvalidArgumentError(f"the reduced axes {axes} of x's shape {dims} hold no element")
    out.dtype = DataType.FLOAT64 if x.dtype is DataType.FLOAT64 else DataType.FLOAT32


def scan_infer_meta(x, axis, dtype, out) -> None:
    """cumsum: x's shape (flattened when axis is None); dtype casts x first."""
    _scan("axis", x, axis, dtype, out)


def cumprod_infer_meta(x, dim, dtype, out) -> None:
    """cumprod: as cumsum, with Paddle's argument name dim."""
    _scan("dim", x, dim, dtype, out)


def _scan(axis_name, x, axis, dtype, out) -> None:
    if dtype is None:  # a dtype casts x first: a bool x is fine then, as in Paddle
        _expect_numeric(x)
    dims = tuple(x.dims)
    if axis is None:
        count = 1
        for d in dims:
            count *= d
        out.dims = (count,)
    else:
        normalize_axis(axis_name, axis, len(dims))
        out.dims = dims
    out.dtype = x.dtype if dtype is None else _cast_target(x, dtype)
    out.layout = x.layout


def float_scan_infer_meta(x, axis, dtype, out) -> None:
    """logcumsumexp: as scan_infer_meta, for floating-point tensors and dtypes (a
    floating dtype casts an integer or bool x first, as in Paddle)."""
    if dtype is None:
        _expect_floating(x)
    scan_infer_meta(x, axis, dtype, out)
    if not out.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument 'dtype' expected a floating-point dtype, got {out.dtype}")


# -- backward ops: the incoming gradient (and saved result) must be what the forward returned --

def _forward_meta(infer, *args) -> MetaTensor:
    forward = MetaTensor()
    infer(*args, forward)
    return forward


def _check_result(arg: str, got, forward, check_dtype: bool = True) -> None:
    if tuple(got.dims) != tuple(forward.dims) or (check_dtype and got.dtype is not forward.dtype):
        raise InvalidArgumentError(
            f"argument '{arg}' expected {forward.dtype}{list(forward.dims)} (the forward op's result), "
            f"got {got.dtype}{list(got.dims)}")


def _gradient_of(x, out_grad, forward, x_grad, out=None, check_dtype=True) -> None:
    if not (out_grad.dtype.is_floating_point or out_grad.dtype.is_complex):  # complex: cumsum, cumprod
        raise InvalidArgumentError(f"argument 'out_grad' expected a floating-point or complex tensor, got dtype "
                                   f"{out_grad.dtype}")
    _check_result("out_grad", out_grad, forward, check_dtype)
    if out is not None:
        _check_result("out", out, forward, check_dtype)
    x_grad.dims, x_grad.dtype, x_grad.layout = x.dims, x.dtype, x.layout


def extreme_grad_infer_meta(x, out, out_grad, axis, keepdim, x_grad) -> None:
    """max_grad, min_grad, amax_grad, amin_grad."""
    _gradient_of(x, out_grad, _forward_meta(extreme_infer_meta, x, axis, keepdim), x_grad, out)


def prod_grad_infer_meta(x, out_grad, axis, keepdim, x_grad) -> None:
    """prod_grad: out_grad has prod's shape (its dtype is prod's dtype argument, not known here)."""
    _gradient_of(x, out_grad, _forward_meta(prod_infer_meta, x, axis, keepdim, None), x_grad, check_dtype=False)


def scan_grad_infer_meta(x, out_grad, axis, dtype, x_grad) -> None:
    """cumsum_grad."""
    _gradient_of(x, out_grad, _forward_meta(scan_infer_meta, x, axis, dtype), x_grad)


def cumprod_grad_infer_meta(x, out_grad, dim, dtype, x_grad) -> None:
    _gradient_of(x, out_grad, _forward_meta(cumprod_infer_meta, x, dim, dtype), x_grad)


def logcumsumexp_grad_infer_meta(x, out, out_grad, axis, dtype, x_grad) -> None:
    _gradient_of(x, out_grad, _forward_meta(float_scan_infer_meta, x, axis, dtype), x_grad, out)


def float_reduce_grad_infer_meta(x, out, out_grad, axis, keepdim, x_grad) -> None:
    """logsumexp_grad."""
    _gradient_of(x, out_grad, _forward_meta(float_reduce_infer_meta, x, axis, keepdim), x_grad, out)


def nanmean_grad_infer_meta(x, out_grad, axis, keepdim, x_grad) -> None:
    _gradient_of(x, out_grad, _forward_meta(float_reduce_infer_meta, x, axis, keepdim), x_grad)


def var_grad_infer_meta(x, out_grad, axis, unbiased, keepdim, x_grad) -> None:
    _gradient_of(x, out_grad, _forward_meta(var_infer_meta, x, axis, unbiased, keepdim), x_grad)


def std_grad_infer_meta(x, out, out_grad, axis, unbiased, keepdim, x_grad) -> None:
    _gradient_of(x, out_grad, _forward_meta(var_infer_meta, x, axis, unbiased, keepdim), x_grad, out)


def norm_grad_infer_meta(x, out, out_grad, p, axis, keepdim, x_grad) -> None:
    _gradient_of(x, out_grad, _forward_meta(norm_infer_meta, x, p, axis, keepdim), x_grad, out)


def nansum_grad_infer_meta(x, out_grad, axis, dtype, keepdim, x_grad) -> None:
    _gradient_of(x, out_grad, _forward_meta(nansum_infer_meta, x, axis, dtype, keepdim), x_grad)


def median_grad_infer_meta(x, out_grad, axis, keepdim, x_grad) -> None:
    _gradient_of(x, out_grad, _forward_meta(median_infer_meta, x, axis, keepdim), x_grad)
