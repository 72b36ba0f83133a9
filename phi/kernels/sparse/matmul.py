"""The product of a sparse matrix (its entries as rows, cols, values) and a
dense one: ``out[rows[k]] += values[k] * y[cols[k]]``.

On the CPU the contributions are summed per output row with a sort (skipped
when the rows are already sorted, as a coalesced COO's and a CSR's are) and
``add.reduceat``, many times faster than ``add.at``; on the GPU with the atomic
scatter-add.
"""
import numpy as np

from ...core.kernel_registry import register_kernel
from ..dtypes import ALL_BACKENDS, INEXACT
from ..funcs import scatter_add


@register_kernel("sparse_dense_matmul", ALL_BACKENDS, INEXACT)
def sparse_dense_matmul(ctx, values, rows, cols, y, out_rows):
    xp = ctx.xp
    contributions = y[cols] * values[:, None]
    out = xp.zeros((int(out_rows), y.shape[1]), dtype=contributions.dtype)
    if not rows.shape[0]:
        return out
    if xp is not np:
        scatter_add(xp, out, rows, contributions)
        return out
    if (rows[1:] < rows[:-1]).any():
        order = np.argsort(rows, kind="stable")
        rows, contributions = rows[order], contributions[order]
    starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
    out[rows[starts]] = np.add.reduceat(contributions, starts, axis=0)
    return out
