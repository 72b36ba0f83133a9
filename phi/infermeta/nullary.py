"""InferMeta of creation ops, which have no tensor input."""
from __future__ import annotations

from ..common.data_type import convert_dtype, default_float_dtype
from ..core.errors import InvalidArgumentError
from .checks import check_representable, check_result_shape


def create_infer_meta(shape, dtype, out) -> None:
    """A creation op's result: ``shape`` and ``dtype`` (when None, Paddle's default
    dtype: float32 unless eager.set_default_dtype changed it)."""
    if any(d < 0 for d in shape):
        raise InvalidArgumentError(f"argument 'shape' expected sizes >= 0, got {list(shape)}")
    out.dims = tuple(shape)
    out.dtype = default_float_dtype() if dtype is None else convert_dtype(dtype)
    check_result_shape("shape", out.dims, out.dtype)


def full_infer_meta(shape, fill_value, dtype, out) -> None:
    """A creation op filled with ``fill_value``, which must fit ``dtype``."""
    create_infer_meta(shape, dtype, out)
    check_representable("fill_value", fill_value, out.dtype)
