"""Pattern kernels: where the entries of a sparse tensor sit, computed from the
coordinates alone (dense int64 arrays in, int64 arrays out).

- ``sparse_coalesce_pattern(indices, shape)``: the distinct coordinates of
  ``indices`` ``[sparse_dim, nnz]`` in row-major order, and for each entry the
  position of its coordinate among them (so repeated entries add up there).
- ``sparse_coo_to_csr_pattern(indices, shape)``: ``(crows, cols)`` of coalesced
  coordinates of a 2-d ``[M, N]`` or 3-d ``[B, M, N]`` tensor.
- ``sparse_csr_to_coo_pattern(crows, cols, shape)``: the coordinates
  ``[2 or 3, nnz]`` of a CSR tensor's entries, in its order.
"""
import numpy as np

from ...core.kernel_registry import register_kernel
from ..dtypes import ALL_BACKENDS, INTS


def linear_index(xp, indices, shape):
    """Row-major position of each coordinate column of ``indices`` in ``shape``."""
    linear = xp.zeros(indices.shape[1], dtype=np.int64)
    for axis, size in enumerate(shape):
        linear = linear * int(size) + indices[axis]
    return linear


def unravel(xp, linear, shape):
    """The coordinates ``[len(shape), n]`` of row-major positions ``linear``."""
    rows = []
    for size in reversed(shape):
        rows.append(linear % int(size))
        linear = linear // int(size)
    return xp.stack(rows[::-1]).astype(np.int64, copy=False)


@register_kernel("sparse_coalesce_pattern", ALL_BACKENDS, INTS)
def sparse_coalesce_pattern(ctx, indices, shape):
    xp = ctx.xp
    shape = tuple(shape)
    linear = linear_index(xp, indices.astype(np.int64, copy=False), shape)
    unique, inverse = xp.unique(linear, return_inverse=True)
    return unravel(xp, unique, shape), inverse.reshape(-1).astype(np.int64, copy=False)


def _batches_rows(shape):
    shape = tuple(shape)
    return (shape[0] if len(shape) == 3 else 1), shape[-2]


@register_kernel("sparse_coo_to_csr_pattern", ALL_BACKENDS, INTS)
def sparse_coo_to_csr_pattern(ctx, indices, shape):
    xp = ctx.xp
    batches, rows = _batches_rows(shape)
    indices = indices.astype(np.int64, copy=False)
    flat_row = indices[0] * rows + indices[1] if len(shape) == 3 else indices[0]
    counts = xp.bincount(flat_row, minlength=batches * rows).reshape(batches, rows)
    crows = xp.zeros((batches, rows + 1), dtype=np.int64)
    crows[:, 1:] = xp.cumsum(counts, axis=1)
    return crows.reshape(-1), indices[-1].copy()


@register_kernel("sparse_csr_to_coo_pattern", ALL_BACKENDS, INTS)
def sparse_csr_to_coo_pattern(ctx, crows, cols, shape):
    xp = ctx.xp
    batches, rows = _batches_rows(shape)
    offsets = crows.astype(np.int64, copy=False).reshape(batches, rows + 1)
    base = xp.zeros(batches, dtype=np.int64)
    if batches > 1:
        base[1:] = xp.cumsum(offsets[:, -1])[:-1]
    ends = (offsets[:, 1:] + base[:, None]).reshape(-1)   # global end of each (batch, row)
    flat_row = xp.searchsorted(ends, xp.arange(cols.shape[0], dtype=np.int64), side="right")
    coords = [flat_row % rows, cols.astype(np.int64, copy=False)]
    if len(tuple(shape)) == 3:
        coords.insert(0, flat_row // rows)
    return xp.stack(coords)


@register_kernel("sparse_reshape_pattern", ALL_BACKENDS, INTS)
def sparse_reshape_pattern(ctx, indices, shape, new_shape):
    """The coordinates in ``new_shape`` of the same row-major positions (a reshape
    keeps the entries' order, so coalesced stays coalesced)."""
    return unravel(ctx.xp, linear_index(ctx.xp, indices.astype(np.int64, copy=False), tuple(shape)), tuple(new_shape))
