"""Common types of the operator library: DataType, Backend, DataLayout, Place, Scalar,
IntArray, TensorKind."""
from .backend import Backend, DataLayout
from .data_type import DataType, convert_dtype
from .place import CPUPlace, CUDAPinnedPlace, GPUPlace, Place, convert_place
from .scalar import IntArray, Scalar, to_int_array, to_scalar
from .tensor_kind import TensorKind

__all__ = [
    "Backend", "DataLayout", "DataType", "convert_dtype", "CPUPlace", "CUDAPinnedPlace", "GPUPlace", "Place",
    "convert_place", "IntArray", "Scalar", "TensorKind", "to_int_array", "to_scalar",
]
