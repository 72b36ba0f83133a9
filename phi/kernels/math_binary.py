"""Binary and ternary elementwise kernels (pow with a tensor exponent, fmax/fmin, remainder, atan2, lerp, logic and bitwise ops, clip, isclose) and their gradients."""
from ..core.kernel_registry import register_kernel  # noqa: F401
from .dtypes import ALL_BACKENDS  # noqa: F401
