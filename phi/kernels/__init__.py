"""phi kernels. Importing this package registers every kernel with phi.core.KERNELS."""
from . import activation, creation, elementwise, indexing, manipulation, matmul, reduction  # noqa: F401
