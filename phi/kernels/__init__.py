"""phi kernels. Importing this package registers every kernel with phi.core.KERNELS."""
from . import (  # noqa: F401
    accumulation, activation, buffers, creation, elementwise, indexing, joining, loss, manipulation,
    matmul, optimizer, reduction, selected_rows,
)
