"""InferMeta of the math unary ops (group math_unary of phi/kernels).

Each checks the input's dtype family before any kernel runs, so an integer
tensor given to sqrt says what it should have been rather than that no kernel
was found.
"""
from __future__ import annotations

from ..common.data_type import COMPLEX_TYPES, FLOATING_TYPES, INTEGER_TYPES, DataType
from ..core.errors import InvalidArgumentError, InvalidDtypeError, UnsupportedInputDtypeError

__all__ = [
    "inexact_unary_infer_meta", "exp_log_infer_meta", "real_floating_unary_infer_meta", "numeric_unary_infer_meta",
    "real_valued_infer_meta", "angle_infer_meta", "complex_part_infer_meta", "predicate_infer_meta", "bitwise_not_infer_meta",
    "truncating_infer_meta", "trunc_infer_meta", "nan_to_num_infer_meta", "polygamma_infer_meta", "unary_grad_infer_meta",
    "real_valued_grad_infer_meta", "polygamma_grad_infer_meta",
]

_REAL_OF = {DataType.COMPLEX64: DataType.FLOAT32, DataType.COMPLEX128: DataType.FLOAT64}
_WIDE_INTS = (DataType.INT32, DataType.INT64)


def _expect(x, allowed, what: str, hint: str = "", arg: str = "x", error=UnsupportedInputDtypeError) -> None:
    if x.dtype not in allowed:
        raise error(f"argument '{arg}' expected {what} tensor, got {x.dtype}{hint}")


def _same_meta(x, out) -> None:
    out.dims = x.dims
    out.dtype = x.dtype
    out.layout = x.layout


def inexact_unary_infer_meta(x, out) -> None:
    """A floating-point or complex x; out like x (sqrt, sin, log1p, ...)."""
    _expect(x, FLOATING_TYPES | COMPLEX_TYPES, "a floating-point or complex",
            "; cast it first, e.g. x.astype('float32')")
    _same_meta(x, out)


def exp_log_infer_meta(x, out) -> None:
    """out like x, but float32 for an int32 or int64 x (exp, expm1 and the logarithms:
    Paddle 2.6 computes them for those integers and returns float32). Other dtypes
    are left to the kernel lookup, whose error names the dtypes the op takes."""
    _same_meta(x, out)
    if x.dtype in _WIDE_INTS:
        out.dtype = DataType.FLOAT32


def real_floating_unary_infer_meta(x, out) -> None:
    """A real floating-point x; out like x (erf, floor, lgamma, ...)."""
    _expect(x, FLOATING_TYPES, "a real floating-point (float16, float32 or float64)")
    _same_meta(x, out)


def truncating_infer_meta(x, out) -> None:
    """A float32, float64, int32 or int64 x (frac, as Paddle); out like x. Another dtype
    (float16 and bfloat16 too) is also a TypeError, as Paddle's frac checks it in dynamic
    mode ("must be one of ['int32', 'int64', 'float32', 'float64']"; test_frac_op)."""
    _expect(x, {DataType.FLOAT32, DataType.FLOAT64, *_WIDE_INTS}, "a float32, float64, int32 or int64",
            error=InvalidDtypeError)
    _same_meta(x, out)


def trunc_infer_meta(input, out) -> None:  # noqa: A002  (Paddle names trunc's argument input)
    """As truncating_infer_meta, for trunc's argument ``input``."""
    _expect(input, FLOATING_TYPES | set(_WIDE_INTS), "a floating-point, int32 or int64", arg="input")
    _same_meta(input, out)


def numeric_unary_infer_meta(x, out) -> None:
    """Any number type but bool; out like x (neg, square, conj)."""
    _expect(x, FLOATING_TYPES | COMPLEX_TYPES | INTEGER_TYPES, "a numeric (not bool)")
    _same_meta(x, out)


def real_valued_infer_meta(x, out) -> None:
    """A numeric x; out is real: float32 for complex64, float64 for complex128, else
    x's dtype (abs; Paddle's RealAndImagInferMeta)."""
    _expect(x, FLOATING_TYPES | COMPLEX_TYPES | INTEGER_TYPES, "a numeric (not bool)")
    _same_meta(x, out)
    out.dtype = _REAL_OF.get(x.dtype, x.dtype)


def angle_infer_meta(x, out) -> None:
    """A floating-point or complex x; out is real (float32 for complex64, float64 for complex128)."""
    inexact_unary_infer_meta(x, out)
    out.dtype = _REAL_OF.get(x.dtype, x.dtype)


def complex_part_infer_meta(x, out) -> None:
    """A complex x; out is its real counterpart (real, imag)."""
    _expect(x, COMPLEX_TYPES, "a complex (complex64 or complex128)")
    _same_meta(x, out)
    out.dtype = _REAL_OF[x.dtype]


def predicate_infer_meta(x, out) -> None:
    """out is a bool tensor shaped like x (isnan, isinf, isfinite, logical_not)."""
    _same_meta(x, out)
    out.dtype = DataType.BOOL


def bitwise_not_infer_meta(x, out) -> None:
    """A bool or integer x; out like x."""
    _expect(x, INTEGER_TYPES | {DataType.BOOL}, "a bool or integer")
    _same_meta(x, out)


def nan_to_num_infer_meta(x, nan, posinf, neginf, out) -> None:
    """A real floating-point x; out like x. The replacement values are any floats."""
    real_floating_unary_infer_meta(x, out)


def polygamma_infer_meta(x, n, out) -> None:
    """A real floating-point x and an order n >= 0; out like x."""
    if n < 0:
        raise InvalidArgumentError(f"argument 'n' expected an order >= 0, got {n}")
    real_floating_unary_infer_meta(x, out)


def _check_out_grad(out_grad, dims, dtype) -> None:
    if tuple(out_grad.dims) != tuple(dims) or out_grad.dtype is not dtype:
        raise InvalidArgumentError(
            f"argument 'out_grad' expected {dtype}{list(dims)} (the forward op's result), "
            f"got {out_grad.dtype}{list(out_grad.dims)}")


def unary_grad_infer_meta(x, out_grad, x_grad) -> None:
    """The gradient of an elementwise op whose result is like its input: out_grad
    must be shaped and typed like x (or like out, which is the same); x_grad is too."""
    _check_out_grad(out_grad, x.dims, x.dtype)
    _same_meta(x, x_grad)


def real_valued_grad_infer_meta(x, out_grad, x_grad) -> None:
    """The gradient of abs or angle: out_grad has the real dtype of x; x_grad is like x."""
    _check_out_grad(out_grad, x.dims, _REAL_OF.get(x.dtype, x.dtype))
    _same_meta(x, x_grad)


def polygamma_grad_infer_meta(x, out_grad, n, x_grad) -> None:
    if n < 0:
        raise InvalidArgumentError(f"argument 'n' expected an order >= 0, got {n}")
    unary_grad_infer_meta(x, out_grad, x_grad)
