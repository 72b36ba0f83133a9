"""Kernels for sparse tensors (SparseCooTensor, SparseCsrTensor), registered with
``kind=SPARSE_COO`` / ``SPARSE_CSR`` under the names phi/api/sparse.py calls,
and the pattern kernels (coordinates only, over dense int64 arrays) that the
sparse ops of eager.sparse compose with differentiable dense ops on the values.
Written once over ``ctx.xp``."""
from . import conversion, matmul, pattern  # noqa: F401  (importing registers the kernels)
