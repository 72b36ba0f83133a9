"""Kernels of the embedding ops, whose sparse gradient is a SelectedRows (issue #10).

``embedding`` reads rows of the table (``take`` along axis 0); the rows whose
id is ``padding_idx`` come out as zeros. ``embedding_grad`` adds each output
row's gradient into the row it was read from (repeated ids add up), except the
padding row, which gets none. With ``sparse`` it returns Paddle's
``embedding_sparse_grad`` instead: a SelectedRows of the table's height whose
rows are the ids (in order, repeats kept: they add up) and whose value is the
output gradient as [len(ids), D], the padding ids' blocks zero. Its memory is
that of the ids looked up, not of the table.

Ids out of [0, V): on the CPU the kernels raise ElementIndexError (an IndexError,
and the ValueError Paddle's kernel raises) before anything is computed. On a GPU, checking would read the ids' range back
to the host (a sync), so there an out-of-range id is clipped into the table for
the lookup and its output row is set to NaN, which makes the bad lookup visible
without waiting for the device.
"""
from __future__ import annotations

import numpy as np

from ..core.dense_tensor import DenseTensor
from ..core.errors import ElementIndexError
from ..core.kernel_registry import register_kernel
from ..core.selected_rows import SelectedRows
from .dtypes import ALL_BACKENDS, INEXACT
from .funcs import scatter_add


def _ids(ctx, x, height: int):
    """x flattened to int64 ids, and (GPU only) the mask of out-of-range ones.
    Ids out of range raise where ``ctx.check_values`` (always on the CPU; on a
    GPU only in anomaly mode, as reading them back waits for the device)."""
    xp = ctx.xp
    ids = x.reshape(-1).astype(xp.int64, copy=False)
    if ctx.check_values:
        if ids.size:
            low, high = int(ids.min()), int(ids.max())
            if low < 0 or high >= height:
                raise ElementIndexError(f"argument 'x' expected ids in [0, {height}) (rows of weight), "
                                        f"got {low if low < 0 else high}")
    if xp is np:
        return ids, None
    bad = (ids < 0) | (ids >= height)
    return xp.clip(ids, 0, max(height - 1, 0)), bad


@register_kernel("embedding", ALL_BACKENDS, INEXACT)
def embedding(ctx, x, weight, padding_idx, sparse):
    xp = ctx.xp
    ids, bad = _ids(ctx, x, weight.shape[0])
    out = xp.take(weight, ids, axis=0)
    if padding_idx >= 0:
        out[ids == padding_idx] = 0
    if bad is not None:
        out[bad] = xp.nan
    return out.reshape(tuple(x.shape) + (weight.shape[1],))


@register_kernel("embedding_grad", ALL_BACKENDS, INEXACT)
def embedding_grad(ctx, x, weight, out_grad, padding_idx, sparse):
    xp = ctx.xp
    height, width = weight.shape
    ids, bad = _ids(ctx, x, height)
    blocks = out_grad.reshape(ids.shape[0], width)  # not (-1, width): width may be 0
    drop = None
    if padding_idx >= 0:
        drop = ids == padding_idx
    if bad is not None:
        drop = bad if drop is None else drop | bad
    if sparse:
        value = xp.where(drop[:, None], 0, blocks) if drop is not None else blocks.copy()
        return SelectedRows(ids.copy(), DenseTensor(value.astype(out_grad.dtype, copy=False)), height)
    grad = xp.zeros((height, width), dtype=out_grad.dtype)
    if drop is not None:
        blocks = xp.where(drop[:, None], 0, blocks)
    scatter_add(xp, grad, ids, blocks)
    return grad
