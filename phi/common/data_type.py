"""DataType: the element types phi kernels are registered for.

A DenseTensor keeps its buffer as a NumPy (or CuPy) array, so the array's own
dtype is the source of truth; DataType is the name phi uses for it in kernel
keys, InferMeta and error messages, and the bridge from the strings users type.

BFLOAT16 is NumPy's array dtype from the optional ``ml_dtypes`` package: it is
imported the first time a bfloat16 is asked for (never at start-up), and
without it every bfloat16 request raises :class:`BFloat16Unavailable`, which
says how to install it.
"""
from __future__ import annotations

import enum

import numpy as np


class DataType(enum.Enum):
    BOOL = "bool"
    INT8 = "int8"
    UINT8 = "uint8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT16 = "float16"
    BFLOAT16 = "bfloat16"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    COMPLEX64 = "complex64"
    COMPLEX128 = "complex128"

    # Members are singletons compared by identity, so the identity hash is a valid
    # one; Enum's own __hash__ (a Python method hashing the name) cost ~160 ns, and
    # the hot path hashes a DataType in kernel keys and dtype-set lookups.
    __hash__ = object.__hash__

    def __str__(self) -> str:
        """``paddle.float32``, as Paddle prints its dtypes (``print(x.dtype)``);
        ``.value`` is the short name (``float32``) for conversions and file formats."""
        return _PRINTED[self]

    __repr__ = __str__

    @property
    def numpy_dtype(self) -> np.dtype:
        try:
            return _TO_NUMPY[self]
        except KeyError:  # BFLOAT16 before its first use
            return bfloat16_numpy_dtype()

    @property
    def is_floating_point(self) -> bool:
        return self in FLOATING_TYPES

    @property
    def is_complex(self) -> bool:
        return self in COMPLEX_TYPES

    @property
    def is_integer(self) -> bool:
        return self in INTEGER_TYPES

    @property
    def itemsize(self) -> int:
        return self.numpy_dtype.itemsize

    @classmethod
    def from_numpy(cls, dtype) -> "DataType":
        """The DataType of a NumPy dtype; raises TypeError for one phi has no kernels for.

        Byte order does not matter: ``>f4`` (big-endian, as read from some
        files) is FLOAT32 like ``<f4``; NumPy computes on either.
        """
        try:
            return _FROM_NUMPY[dtype]
        except (KeyError, TypeError):
            pass
        try:
            return _FROM_NUMPY[np.dtype(dtype).newbyteorder("=")]
        except (KeyError, TypeError):
            pass
        if _is_ml_dtypes_bfloat16(dtype):  # an array made with ml_dtypes before phi asked for it
            bfloat16_numpy_dtype()
            return DataType.BFLOAT16
        raise TypeError(
            f"unsupported data type {dtype!r}; phi supports "
            f"{', '.join(t.value for t in cls)}"
        ) from None


# Printed names, computed once (str() of a dtype sits in error paths and reprs).
_PRINTED = {t: f"paddle.{t.value}" for t in DataType}

# BFLOAT16 joins both maps when ml_dtypes is first imported (bfloat16_numpy_dtype).
_TO_NUMPY = {t: np.dtype(t.value) for t in DataType if t is not DataType.BFLOAT16}
_FROM_NUMPY = {np.dtype(t.value): t for t in DataType if t is not DataType.BFLOAT16}

BFLOAT16_INSTALL_HINT = "pip install ml_dtypes (or pip install 'eager-phi[bf16]')"


class BFloat16Unavailable(TypeError):
    """A bfloat16 was asked for, and the ``ml_dtypes`` package that gives NumPy
    its bfloat16 dtype is not installed."""


def bfloat16_numpy_dtype() -> np.dtype:
    """NumPy's bfloat16 dtype (``ml_dtypes.bfloat16``), importing ml_dtypes on
    first use; BFloat16Unavailable (a TypeError) when it is not installed."""
    try:
        return _TO_NUMPY[DataType.BFLOAT16]
    except KeyError:
        pass
    try:
        import ml_dtypes  # optional: only bfloat16 needs it, and importing it costs ~0.1 s
    except ImportError:
        raise BFloat16Unavailable(
            f"bfloat16 needs the ml_dtypes package, which gives NumPy a bfloat16 dtype; {BFLOAT16_INSTALL_HINT}"
        ) from None
    dtype = np.dtype(ml_dtypes.bfloat16)
    _FROM_NUMPY[dtype] = DataType.BFLOAT16
    _TO_NUMPY[DataType.BFLOAT16] = dtype
    return dtype


def dtype_name(dtype) -> str:
    """The short name of a dtype: ``float32`` for DataType.FLOAT32 (whose str()
    is Paddle's ``paddle.float32``), str() of anything else (None, a NumPy dtype).
    Tensor reprs (``dtype=float32``, as Paddle's) and graph labels use it.

    >>> dtype_name(DataType.FLOAT32), str(DataType.FLOAT32), dtype_name(None)
    ('float32', 'paddle.float32', 'None')
    """
    return dtype.value if isinstance(dtype, DataType) else str(dtype)

def float_info(dtype):
    """``numpy.finfo`` of a floating dtype (a DataType or a NumPy dtype),
    bfloat16 included (NumPy's own finfo refuses it; ml_dtypes has one).

    >>> float(float_info(DataType.BFLOAT16).eps)
    0.0078125
    """
    if isinstance(dtype, DataType):
        dtype = dtype.numpy_dtype
    if _is_ml_dtypes_bfloat16(dtype):
        import ml_dtypes  # present: a bfloat16 dtype exists
        return ml_dtypes.finfo(dtype)
    return np.finfo(dtype)


def _is_ml_dtypes_bfloat16(dtype) -> bool:
    scalar_type = getattr(dtype, "type", dtype)
    return getattr(scalar_type, "__name__", None) == "bfloat16" and \
        getattr(scalar_type, "__module__", "").startswith("ml_dtypes")


FLOATING_TYPES = frozenset({DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64})
# The half-precision floats, whose optimizer state, master weights and amp master gradients are float32.
HALF_TYPES = frozenset({DataType.FLOAT16, DataType.BFLOAT16})
COMPLEX_TYPES = frozenset({DataType.COMPLEX64, DataType.COMPLEX128})
INTEGER_TYPES = frozenset(
    {DataType.INT8, DataType.UINT8, DataType.INT16, DataType.INT32, DataType.INT64}
)
ALL_DTYPES = tuple(DataType)
FLOAT_AND_COMPLEX = (DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64,
                     DataType.COMPLEX64, DataType.COMPLEX128)

# The floating dtype that creation ops give when no dtype is passed (Paddle's
# default dtype). Process-global, as in Paddle; eager.set_default_dtype sets it,
# and phi only reads it, so phi stays independent of eager.
_default_float_dtype = [DataType.FLOAT32]


def default_float_dtype() -> DataType:
    """The floating dtype a creation op makes when none is given (float32 unless changed)."""
    return _default_float_dtype[0]


def set_default_float_dtype(dtype: DataType) -> None:
    """Sets :func:`default_float_dtype`: float16, bfloat16 (Paddle 2.5+; it needs
    ml_dtypes, BFloat16Unavailable otherwise), float32 or float64."""
    if dtype not in FLOATING_TYPES:
        raise TypeError(f"set_default_float_dtype: expected float16, bfloat16, float32 or float64, got {dtype!r}")
    if dtype is DataType.BFLOAT16:
        bfloat16_numpy_dtype()  # refuse before the default changes, not at the next creation op
    _default_float_dtype[0] = dtype


# Python's own scalar types, for users who write dtype=float: read as NumPy reads
# them (float is float64, complex complex128), as Paddle 2.6.2's astype, cast,
# zeros, full and arange do (they pass the type through np.dtype).
_PY_TYPES = {bool: DataType.BOOL, int: DataType.INT64, float: DataType.FLOAT64,
             complex: DataType.COMPLEX128}


def convert_dtype(value) -> DataType:
    """Turns what a user may pass as a dtype into a DataType.

    Accepts a DataType, its name (``"float32"``), a NumPy dtype or scalar type,
    or the Python types bool/int/float/complex (int64, float64, complex128, as NumPy and Paddle read them).
    Anything else raises TypeError: None too (NumPy would read it as float64;
    callers with an optional dtype test for None first), and a NumPy dtype phi
    has no kernels for (object, strings, datetimes).

    >>> convert_dtype("float32")
    paddle.float32
    """
    if isinstance(value, DataType):
        return value
    if isinstance(value, str):
        try:
            return DataType(value.lower())
        except ValueError:
            raise TypeError(
                f"unknown dtype string {value!r}; expected one of "
                f"{', '.join(t.value for t in DataType)}"
            ) from None
    if isinstance(value, type) and value in _PY_TYPES:
        return _PY_TYPES[value]
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return DataType.from_numpy(value)
    if isinstance(value, type) and _is_ml_dtypes_bfloat16(value):
        return DataType.from_numpy(value)
    raise TypeError(
        f"cannot interpret {value!r} as a dtype; expected a DataType, a string "
        f"such as 'float32', a NumPy dtype or one of bool, int, float, complex"
    )
