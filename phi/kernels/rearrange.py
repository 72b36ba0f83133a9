"""Kernels that rearrange elements without arithmetic (tile, repeat_interleave, flip, roll, rot90, slice, strided_slice, tensor_split, moveaxis, ...) and their gradients."""
from ..core.kernel_registry import register_kernel  # noqa: F401
from .dtypes import ALL_BACKENDS  # noqa: F401
