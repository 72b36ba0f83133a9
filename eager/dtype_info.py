"""Paddle's ``paddle.finfo`` and ``paddle.iinfo``: the numeric limits of a dtype.

The numbers come from NumPy's ``finfo``/``iinfo`` for the dtype's array type, as
plain Python floats and ints (Paddle returns doubles and ints too).

>>> eager.iinfo(eager.uint8)
paddle.iinfo(min=0, max=255, bits=8, dtype=uint8)
>>> eager.finfo("float16").max
65504.0
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from phi.common import DataType
from phi.common.data_type import COMPLEX_TYPES, FLOATING_TYPES, INTEGER_TYPES, float_info

from .arguments import to_required_dtype

__all__ = ["finfo", "iinfo"]

# A complex dtype's limits are those of its real and imaginary parts (NumPy's rule too).
_REAL_PART = {DataType.COMPLEX64: DataType.FLOAT32, DataType.COMPLEX128: DataType.FLOAT64}


@dataclass(frozen=True)
class IntegerInfo:
    """The limits of an integer dtype: ``min``, ``max``, ``bits`` and ``dtype`` (its name)."""
    min: int
    max: int
    bits: int
    dtype: str

    def __repr__(self) -> str:
        """Paddle's text, ``paddle.iinfo(min=..., max=..., bits=..., dtype=...)``."""
        return f"paddle.iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"


@dataclass(frozen=True)
class FloatInfo:
    """The limits of a floating dtype: ``min``/``max`` (the finite extremes), ``eps`` (the gap
    between 1.0 and the next number), ``resolution`` (``10 ** -precision`` decimal digits),
    ``smallest_normal`` and its alias ``tiny``, ``bits`` and ``dtype`` (its name)."""
    min: float
    max: float
    eps: float
    resolution: float
    smallest_normal: float
    tiny: float
    bits: int
    dtype: str

    def __repr__(self) -> str:
        """Paddle's text: ``paddle.finfo(...)`` with each number as C++ streams a double
        (six significant digits, ``%g``), e.g. ``eps=1.19209e-07`` for float32."""
        return (f"paddle.finfo(min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"resolution={self.resolution:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, bits={self.bits}, dtype={self.dtype})")


def iinfo(dtype) -> IntegerInfo:
    """The numeric limits of an integer dtype (uint8, int8, int16, int32, int64), given as a
    dtype, its name or a NumPy type.

    >>> eager.iinfo("int16").min, eager.iinfo("int16").max
    (-32768, 32767)
    """
    kind = to_required_dtype(dtype, "iinfo", "dtype")
    if kind not in INTEGER_TYPES:
        raise ValueError(f"iinfo: argument 'dtype' expected an integer dtype "
                         f"({', '.join(sorted(t.value for t in INTEGER_TYPES))}), got {kind.value}")
    limits = np.iinfo(kind.numpy_dtype)
    return IntegerInfo(min=int(limits.min), max=int(limits.max), bits=int(limits.bits), dtype=kind.value)


def finfo(dtype) -> FloatInfo:
    """The numeric limits of a floating dtype (float16, bfloat16, float32, float64; complex64 and
    complex128 give those of their float parts), given as a dtype, its name or a NumPy type.

    >>> info = eager.finfo(eager.float32)
    >>> info.eps, info.bits, info.dtype
    (1.1920928955078125e-07, 32, 'float32')
    """
    kind = to_required_dtype(dtype, "finfo", "dtype")
    if kind not in FLOATING_TYPES and kind not in COMPLEX_TYPES:
        allowed = sorted(t.value for t in FLOATING_TYPES | COMPLEX_TYPES)
        raise ValueError(f"finfo: argument 'dtype' expected a floating or complex dtype ({', '.join(allowed)}), "
                         f"got {kind.value}")
    real = _REAL_PART.get(kind, kind)
    # NumPy's own finfo refuses bfloat16 (ml_dtypes' type is not a NumPy inexact type).
    limits = float_info(real)
    return FloatInfo(min=float(limits.min), max=float(limits.max), eps=float(limits.eps),
                     resolution=10.0 ** -int(limits.precision), smallest_normal=float(limits.smallest_normal),
                     tiny=float(limits.tiny), bits=int(limits.bits), dtype=real.value)
