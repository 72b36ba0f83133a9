"""Linear-algebra kernels (bmm, dot, mv, outer, cross, kron, einsum, trace, diagonal, inv, det, solve, cholesky, qr, svd, eigh, ...) and their gradients."""
from ..core.kernel_registry import register_kernel  # noqa: F401
from .dtypes import ALL_BACKENDS  # noqa: F401
