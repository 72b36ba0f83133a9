"""The dtype groups kernels register for."""
from ..common.backend import Backend
from ..common.data_type import DataType as T

ALL_BACKENDS = (Backend.ALL_BACKEND,)
FLOATS = (T.FLOAT16, T.FLOAT32, T.FLOAT64)
COMPLEX = (T.COMPLEX64, T.COMPLEX128)
INTS = (T.INT8, T.UINT8, T.INT16, T.INT32, T.INT64)
INEXACT = FLOATS + COMPLEX
NUMERIC = INTS + FLOATS + COMPLEX
REAL = INTS + FLOATS  # ordered: max, min, sign
ALL_TYPES = (T.BOOL,) + NUMERIC
# Kernels that only move, view or reinterpret elements (and cast) serve bfloat16
# as it is; every other kernel registered for float32 gets a bfloat16 twin that
# computes in float32 (phi.core.bfloat16_kernels).
ALL_TYPES_AND_BFLOAT16 = ALL_TYPES + (T.BFLOAT16,)
