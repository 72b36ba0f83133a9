"""InferMeta of the math binary ops (group math_binary of phi/kernels)."""
from __future__ import annotations

import math

from ..common.data_type import DataType
from ..core.errors import InvalidArgumentError, UnsupportedInputDtypeError
from ..core.meta_tensor import MetaTensor
from .binary import compare_infer_meta, elementwise_infer_meta
from .checks import broadcast_dims, check_representable, same_dtype

__all__ = [
    "real_elementwise_infer_meta", "elementwise_pow_infer_meta", "float_elementwise_infer_meta", "bitwise_infer_meta",
    "bitwise_shift_infer_meta",
    "atan2_infer_meta", "clip_infer_meta", "isclose_infer_meta", "allclose_infer_meta",
    "equal_all_infer_meta", "lerp_infer_meta", "lerp_grad_infer_meta",
]


def _expect_dtype(arg: str, tensor, accepted: str, ok: bool) -> None:
    # A dtype no kernel of the op takes: also the RuntimeError of Paddle's dynamic mode
    # ("kernel ... is not registered"; bitwise_and of floats, pow of bools), as math_unary's.
    if not ok:
        raise UnsupportedInputDtypeError(f"argument '{arg}' expected {accepted} tensor, got {tensor.dtype}")


def _is_real(dtype: DataType) -> bool:
    return dtype.is_floating_point or (dtype.is_integer and dtype is not DataType.BOOL)


def real_elementwise_infer_meta(x, y, out) -> None:
    """elementwise_infer_meta for ops defined on integers and real floats only."""
    _expect_dtype("x", x, "an integer or floating-point", _is_real(x.dtype))
    elementwise_infer_meta(x, y, out)


def elementwise_pow_infer_meta(x, y, out) -> None:
    """elementwise_infer_meta for integers, real floats and complex (x ** y of complex
    tensors: see docs/dtypes.md)."""
    _expect_dtype("x", x, "an integer, floating-point or complex", _is_real(x.dtype) or x.dtype.is_complex)
    elementwise_infer_meta(x, y, out)


def float_elementwise_infer_meta(x, y, out) -> None:
    """elementwise_infer_meta for ops defined on real floating-point tensors only."""
    _expect_dtype("x", x, "a floating-point", x.dtype.is_floating_point)
    elementwise_infer_meta(x, y, out)


def bitwise_infer_meta(x, y, out) -> None:
    """elementwise_infer_meta for bool and integer tensors."""
    _expect_dtype("x", x, "a bool or integer", x.dtype is DataType.BOOL or x.dtype.is_integer)
    elementwise_infer_meta(x, y, out)


def bitwise_shift_infer_meta(x, y, is_arithmetic, out) -> None:
    """elementwise_infer_meta for integer tensors only: Paddle registers no bool shift kernel."""
    _expect_dtype("x", x, "an integer (int8, uint8, int16, int32 or int64)",
                  x.dtype.is_integer and x.dtype is not DataType.BOOL)
    elementwise_infer_meta(x, y, out)


def atan2_infer_meta(x, y, out) -> None:
    """Broadcasting; integer inputs give a float64 result, as in Paddle."""
    real_elementwise_infer_meta(x, y, out)
    if not x.dtype.is_floating_point:
        out.dtype = DataType.FLOAT64


def _bound(arg: str, value, dtype: DataType):
    if value is None:
        return None
    check_representable(arg, value, dtype)
    if isinstance(value, complex):
        value = value.real
    return value


def clip_infer_meta(x, min, max, out) -> None:  # noqa: A002  (Paddle's argument names)
    """x's meta; min and max (either may be None) must fit x's dtype, and min <= max."""
    _expect_dtype("x", x, "an integer or floating-point", _is_real(x.dtype))
    low, high = _bound("min", min, x.dtype), _bound("max", max, x.dtype)
    for arg, bound in (("min", low), ("max", high)):
        if isinstance(bound, float) and math.isnan(bound):  # Paddle's max >= min check fails on NaN too
            raise InvalidArgumentError(f"argument '{arg}' expected a number to clip at, got nan")
    if low is not None and high is not None and low > high:
        raise InvalidArgumentError(f"argument 'max' expected a bound >= min = {min!r}, got {max!r}")
    out.dims, out.dtype, out.layout = x.dims, x.dtype, x.layout


def _tolerance(arg: str, value) -> None:
    if not (math.isfinite(value) and value >= 0):
        raise InvalidArgumentError(f"argument '{arg}' expected a finite tolerance >= 0, got {value!r}")


def isclose_infer_meta(x, y, rtol, atol, equal_nan, out) -> None:
    """Broadcasting floating-point or complex x and y of one dtype (Paddle's allclose kernel registers
    complex: |x - y| <= atol + rtol * |y| with complex moduli); non-negative tolerances; a bool result."""
    _expect_dtype("x", x, "a floating-point or complex", x.dtype.is_floating_point or x.dtype.is_complex)
    _tolerance("rtol", rtol)
    _tolerance("atol", atol)
    compare_infer_meta(x, y, out)


def allclose_infer_meta(x, y, rtol, atol, equal_nan, out) -> None:
    """As isclose_infer_meta, with a 0-d bool result."""
    isclose_infer_meta(x, y, rtol, atol, equal_nan, out)
    out.dims = ()


def equal_all_infer_meta(x, y, out) -> None:
    """x and y share a dtype (their shapes may differ: then they are not equal); a 0-d bool."""
    same_dtype("x", x, "y", y)
    out.dims, out.dtype, out.layout = (), DataType.BOOL, x.layout


def lerp_infer_meta(x, y, weight, out) -> None:
    """Floating-point x, y and weight of one dtype, broadcast together."""
    _expect_dtype("x", x, "a floating-point", x.dtype.is_floating_point)
    elementwise_infer_meta(x, y, out)
    same_dtype("x", x, "weight", weight)
    out.dims = broadcast_dims("x and y", out.dims, "weight", weight.dims)


def lerp_grad_infer_meta(x, y, weight, out_grad, x_grad, y_grad, weight_grad) -> None:
    """Each gradient shaped like its input; out_grad must be lerp's result's meta."""
    forward = MetaTensor()
    lerp_infer_meta(x, y, weight, forward)
    if tuple(out_grad.dims) != tuple(forward.dims) or out_grad.dtype is not forward.dtype:
        raise InvalidArgumentError(
            f"argument 'out_grad' expected {forward.dtype}{list(forward.dims)} (the forward op's "
            f"result), got {out_grad.dtype}{list(out_grad.dims)}")
    x_grad.share_meta(x)
    y_grad.share_meta(y)
    weight_grad.share_meta(weight)
