"""Search and sort kernels (argmax/argmin, topk, sort, argsort, kthvalue, mode, cummax/cummin, unique, bincount) and their gradients."""
from ..core.kernel_registry import register_kernel  # noqa: F401
from .dtypes import ALL_BACKENDS  # noqa: F401
