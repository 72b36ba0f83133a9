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


def _offsets(kernel_size):
    """Every kernel offset (kd, kh, kw), row-major, as an int64 array [K, 3]."""
    grids = np.meshgrid(*[np.arange(k) for k in kernel_size], indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1).astype(np.int64)


@register_kernel("sparse_conv3d_rulebook", ALL_BACKENDS, INTS)
def sparse_conv3d_rulebook(ctx, indices, dims, out_spatial, kernel_size, stride, padding, dilation, subm):
    """Which stored input feeds which output through which kernel offset, for a
    3-d convolution of a COO tensor ``[N, D, H, W, C]`` (coordinates ``[4, nnz]``,
    coalesced).

    Output o of input i through offset k along each spatial axis:
    ``o * stride = i + padding - k * dilation``. A submanifold convolution
    (``subm``) keeps the input's pattern as the output's and looks each
    neighbour up among the stored inputs. Returns ``(out_indices [4, n_out],
    in_pos [P], out_pos [P], counts [K])``, the pairs grouped by offset, counts
    per offset (a host array: it sizes the caller's slices).
    """
    xp = ctx.xp
    indices = indices.astype(np.int64, copy=False)
    nnz = indices.shape[1]
    spatial = indices[1:]
    stride, padding, dilation = (xp.asarray(np.asarray(v, np.int64))[:, None] for v in (stride, padding, dilation))
    out_size = xp.asarray(np.asarray(out_spatial, np.int64))[:, None]
    in_pos, out_keys, counts = [], [], []
    arange = xp.arange(nnz, dtype=np.int64)
    if subm:
        keys = linear_index(xp, indices, tuple(dims[:4]))  # sorted: the input is coalesced
    for offset in _offsets(kernel_size):
        shift = padding - xp.asarray(offset)[:, None] * dilation
        if subm:  # output o (an input coordinate) reads input o - shift
            source = spatial - shift
            inside = xp.all((source >= 0) & (source < xp.asarray(np.asarray(dims[1:4], np.int64))[:, None]), axis=0)
            key = linear_index(xp, xp.concatenate([indices[:1], source]), tuple(dims[:4]))
            where = xp.minimum(xp.searchsorted(keys, key), max(nnz - 1, 0))
            found = inside & (keys[where] == key) if nnz else inside
            in_pos.append(where[found])
            out_keys.append(arange[found])
        else:
            moved = spatial + shift
            reach = xp.all((moved >= 0) & (moved % stride == 0) & (moved // stride < out_size), axis=0)
            coords = xp.concatenate([indices[:1, reach], moved[:, reach] // stride])
            in_pos.append(arange[reach])
            out_keys.append(linear_index(xp, coords, (dims[0],) + tuple(out_spatial)))
        counts.append(int(in_pos[-1].shape[0]))
    in_pos = xp.concatenate(in_pos)
    out_keys = xp.concatenate(out_keys)
    if subm:
        return indices.copy(), in_pos, out_keys, np.asarray(counts, np.int64)
    unique, out_pos = xp.unique(out_keys, return_inverse=True)
    out_indices = unravel(xp, unique, (dims[0],) + tuple(out_spatial))
    return out_indices, in_pos, out_pos.reshape(-1).astype(np.int64, copy=False), np.asarray(counts, np.int64)
