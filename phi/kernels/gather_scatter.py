"""Index-driven kernels (gather, gather_nd, scatter, scatter_nd(_add), index_select/add/put, take/put_along_axis, masked ops, nonzero) and their gradients."""
from ..core.kernel_registry import register_kernel  # noqa: F401
from .dtypes import ALL_BACKENDS  # noqa: F401
