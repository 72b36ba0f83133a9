"""The op table of the embedding ops, whose sparse gradient is a SelectedRows (issue #10).

The forward reference picks rows one id at a time; the gradients come from
linear_vjp of that reference (the lookup is linear in the table), so nothing
here shares the kernels' take / add.at code. The sparse gradient's rows show
through Tensor.numpy() as the dense table they stand for.
"""
from __future__ import annotations

import numpy as np

from eager.generated import forward_api as F

from .core import Case, OpSpec, linear_vjp


def _ints(raw, high):
    raw = np.asarray(raw, dtype=np.float64)
    return (np.floor(np.abs(raw) * 1000).astype(np.int64) % max(high, 1))


def ref_embedding(x, weight, padding_idx=-1, sparse=False):
    ids = np.asarray(x).reshape(-1)
    out = np.zeros((ids.size, weight.shape[1]), dtype=weight.dtype)
    for k, i in enumerate(ids):
        if i != padding_idx:
            out[k] = weight[i]
    return out.reshape(tuple(np.shape(x)) + (weight.shape[1],))


def ref_embedding_grad(x, weight, out_grad, padding_idx=-1, sparse=False):
    return linear_vjp(lambda w: ref_embedding(x, w, padding_idx), weight.shape, out_grad, out_grad.dtype)


def ref_embedding_double_grad(x, grad_weight_grad, padding_idx=-1):
    return ref_embedding(x, grad_weight_grad, padding_idx)


def _prepare(arrays, attrs):
    x, table, *rest = arrays
    return [_ints(x, table.shape[0]), table, *rest]


def _prepare32(arrays, attrs):
    x, table, *rest = arrays
    return [_ints(x, table.shape[0]).astype(np.int32), table, *rest]


# (ids shape, table shape, attributes)
_CASES = (
    ((4,), (5, 3), {}),
    ((2, 3), (6, 2), {"padding_idx": 1}),
    ((2, 2, 3), (4, 3), {"padding_idx": 0}),
    ((), (3, 4), {}),                        # a 0-d id: one row
    ((0,), (3, 2), {}),                      # no ids
    ((6,), (2, 1), {"padding_idx": 1}),      # every id repeats
    # Rows of 32 or more take the host's sorted path (not add.at): ids repeated
    # more than 8 times are summed as one run, fewer times round by round.
    ((48,), (3, 32), {}),
    ((4, 5), (9, 33), {"padding_idx": 2}),
)

SPECS: list = [
    OpSpec("embedding", F.embedding, ref_embedding, ("real", "real"),
           tuple(Case((x, w), a) for x, w, a in _CASES), prepare=_prepare, wrt=(1,)),
    OpSpec("embedding_grad", F.embedding_grad, ref_embedding_grad, ("real", "real", "real"),
           tuple(Case((x, w, x + (w[1],)), {"padding_idx": -1, "sparse": False, **a}) for x, w, a in _CASES)
           + tuple(Case((x, w, x + (w[1],)), {"padding_idx": -1, "sparse": True, **a}, grad=False)
                   for x, w, a in _CASES),
           prepare=_prepare32, wrt=(2,)),
    OpSpec("embedding_double_grad", F.embedding_double_grad, ref_embedding_double_grad, ("real", "real"),
           tuple(Case((x, w), {"padding_idx": a.get("padding_idx", -1)}) for x, w, a in _CASES),
           prepare=_prepare, wrt=(1,)),
]
