"""InferMeta of the fft ops (fft_c2c, fft_r2c, fft_c2r): the three primitives
eager.fft's transforms are composed on.

``axes`` are the transformed axes, distinct, at least one; the last of them is
the one a real transform halves (r2c keeps its first n//2+1 bins, c2r rebuilds
n points from them). ``normalization`` is the user's norm string, which with
``forward`` decides the scale, as in Paddle.
"""
from __future__ import annotations

from ..common.data_type import DataType
from ..core.errors import InvalidArgumentError
from .checks import check_result_shape, normalize_axis

__all__ = ["fft_c2c_infer_meta", "fft_c2r_infer_meta", "fft_r2c_infer_meta", "fft_axes", "fft_c2r_size"]

NORMS = ("backward", "forward", "ortho")
COMPLEX_OF = {DataType.FLOAT32: DataType.COMPLEX64, DataType.FLOAT64: DataType.COMPLEX128}
REAL_OF = {c: r for r, c in COMPLEX_OF.items()}


def _expect_dtype(x, allowed: dict, what: str) -> None:
    if x.dtype not in allowed:
        raise InvalidArgumentError(f"argument 'x' expected a {what} tensor, got {x.dtype}")


def _check_norm(normalization) -> None:
    if normalization not in NORMS:
        raise InvalidArgumentError(
            f"argument 'normalization' expected 'backward', 'forward' or 'ortho', got {normalization!r}")


def fft_axes(axes, dims) -> tuple:
    """The transformed axes of a tensor of shape ``dims``, non-negative and in the
    order given (the last one is the real transforms' halved axis); at least one,
    none twice, each of size >= 1."""
    ndim = len(dims)
    if ndim == 0:
        raise InvalidArgumentError("argument 'x' expected a tensor of at least 1 dimension, got a 0-d tensor")
    if not axes:
        raise InvalidArgumentError("argument 'axes' expected at least one axis, got []")
    out = []
    for axis in axes:
        a = normalize_axis("axes", axis, ndim)
        if a in out:
            raise InvalidArgumentError(f"argument 'axes' lists axis {axis} more than once: {list(axes)}")
        out.append(a)
    return tuple(out)


def _nonempty(dims, axes, what: str) -> None:
    for a in axes:
        if dims[a] < 1:
            raise InvalidArgumentError(
                f"argument 'x' has size {dims[a]} along transformed axis {a} ({what} shape {list(dims)}); "
                f"an FFT needs at least one point")


def fft_c2r_size(dims, axes, last_dim_size: int) -> int:
    """n, the length of c2r's output along the last transformed axis: last_dim_size, or
    2 * (m - 1) for 0, m the input's bins there; the input must hold n//2+1 bins."""
    m = dims[axes[-1]]
    if last_dim_size < 0:
        raise InvalidArgumentError(f"argument 'last_dim_size' expected a size >= 0, got {last_dim_size}")
    n = last_dim_size or 2 * (m - 1)
    if n < 1:
        raise InvalidArgumentError(
            f"argument 'x' has {m} bin(s) along axis {axes[-1]}, which gives an output of {n} points; "
            f"pass last_dim_size >= 1")
    if m != n // 2 + 1:
        raise InvalidArgumentError(
            f"argument 'x' expected {n // 2 + 1} bins (n//2+1 for last_dim_size n={n}) along axis {axes[-1]}, "
            f"got {m}")
    return n


def fft_c2c_infer_meta(x, axes, normalization, forward, out) -> None:
    """out: x's shape and complex dtype."""
    _expect_dtype(x, REAL_OF, "complex (complex64 or complex128)")
    _check_norm(normalization)
    dims = tuple(x.dims)
    _nonempty(dims, fft_axes(axes, dims), "input")
    out.dims, out.dtype = dims, x.dtype


def fft_r2c_infer_meta(x, axes, normalization, forward, onesided, out) -> None:
    """out: x's shape (n//2+1 along the last axis in axes when onesided), complex64 from
    float32, complex128 from float64."""
    _expect_dtype(x, COMPLEX_OF, "real floating-point (float32 or float64)")
    _check_norm(normalization)
    dims = tuple(x.dims)
    axes = fft_axes(axes, dims)
    _nonempty(dims, axes, "input")
    out_dims = list(dims)
    if onesided:
        out_dims[axes[-1]] = dims[axes[-1]] // 2 + 1
    out.dims, out.dtype = tuple(out_dims), COMPLEX_OF[x.dtype]
    check_result_shape("x", out.dims, out.dtype)


def fft_c2r_infer_meta(x, axes, normalization, forward, last_dim_size, out) -> None:
    """out: x's shape with n (last_dim_size, or 2 * (m - 1)) along the last axis in axes,
    float32 from complex64, float64 from complex128."""
    _expect_dtype(x, REAL_OF, "complex (complex64 or complex128)")
    _check_norm(normalization)
    dims = tuple(x.dims)
    axes = fft_axes(axes, dims)
    _nonempty(dims, axes, "input")
    out_dims = list(dims)
    out_dims[axes[-1]] = fft_c2r_size(dims, axes, last_dim_size)
    out.dims, out.dtype = tuple(out_dims), REAL_OF[x.dtype]
    check_result_shape("last_dim_size", out.dims, out.dtype)
