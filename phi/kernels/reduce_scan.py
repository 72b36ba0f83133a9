"""Reduction and scan kernels (max/min/amax/amin, prod, logsumexp, std/var, norm, all/any, nan-reductions, median, cumulative ops) and their gradients."""
from ..core.kernel_registry import register_kernel  # noqa: F401
from .dtypes import ALL_BACKENDS  # noqa: F401
