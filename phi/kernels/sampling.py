"""Random kernels, each drawing from the generator of its place (phi/core/generator.py)."""
from ..core.kernel_registry import register_kernel  # noqa: F401
from .dtypes import ALL_BACKENDS  # noqa: F401
