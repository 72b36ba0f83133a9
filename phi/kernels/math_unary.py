"""Unary elementwise math kernels (abs, sqrt, trigonometry, rounding, special functions, predicates) and their gradients."""
from ..core.kernel_registry import register_kernel  # noqa: F401
from .dtypes import ALL_BACKENDS  # noqa: F401
