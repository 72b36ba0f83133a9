"""The op table of the dropout and attention ops (issue #10).

dropout is random: its row reseeds the global generator before every call, so
the finite differences of gradcheck see one mask, and its values are checked by
what they must satisfy (each element 0 or x times the mode's scale, one keep
pattern along the axes outside ``axis``). dropout_grad is deterministic given
the mask: its reference is the product written from the definition.
"""
from __future__ import annotations

import numpy as np

import eager

from .core import FLOATS, Case, OpSpec


def _scale_of(p, is_test, mode):
    """What a kept element of x becomes, as a multiple of x, from Paddle's definition."""
    if is_test:
        return (1.0 - p) if mode == "downscale_in_infer" else 1.0
    if mode == "downscale_in_infer":
        return 1.0
    return 0.0 if p == 1.0 else 1.0 / (1.0 - p)


def _dropout_reseeded(x, p=0.5, is_test=False, mode="upscale_in_train", axis=(), seed=0):
    eager.seed(2024)  # one mask for every call of the finite differences
    return eager.dropout(x, p, is_test, mode, axis, seed)


def check_dropout(got, x, p=0.5, is_test=False, mode="upscale_in_train", axis=(), seed=0):
    x64, got64 = x.astype(np.float64), got.astype(np.float64)
    scale = _scale_of(p, is_test, mode)
    kept = got64 != 0
    tol = 1e-3 if got.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got64[kept], (x64 * scale)[kept], rtol=tol, atol=tol)
    if is_test or p == 0.0:
        assert kept.all() or scale == 0.0
    if p == 1.0 and not is_test and got.size:
        assert not kept.any()
    if axis and got.ndim:
        chosen = [a % got.ndim for a in axis]
        first = kept[tuple(slice(None) if i in chosen else slice(0, 1) for i in range(got.ndim))]
        assert (kept == first).all(), "the mask differs along an axis outside 'axis'"
    if got.size >= 1000 and not is_test:
        assert abs(kept.mean() - (1.0 - p)) < 0.05


def ref_dropout_grad(mask, out_grad, p=0.5, is_test=False, mode="upscale_in_train"):
    return (out_grad.astype(np.float64) * mask * _scale_of(p, is_test, mode)).astype(out_grad.dtype)


def _mask_as_uint8(arrays, attrs):
    mask, out_grad = arrays
    return [(mask > 0).astype(np.uint8), out_grad]


_UP, _DOWN = "upscale_in_train", "downscale_in_infer"

SPECS: list = [
    OpSpec("dropout", _dropout_reseeded, lambda x, **attrs: np.empty(x.shape, x.dtype), ("nonzero",),
           (Case(((3, 4),), {"p": 0.5}),
            Case(((40, 50),), {"p": 0.3}),
            Case(((2, 3, 4),), {"p": 0.3, "axis": [0, 2]}),
            Case(((3, 5),), {"p": 0.5, "axis": [-1]}),
            Case(((5,),), {"p": 0.0}),
            Case(((5,),), {"p": 1.0}),
            Case(((3, 4),), {"p": 0.4, "mode": _DOWN}),
            Case(((3, 4),), {"p": 0.4, "is_test": True, "mode": _DOWN}),
            Case(((3, 4),), {"p": 0.4, "is_test": True}),
            Case(((2, 3),), {"p": 0.5, "seed": 7}),
            Case(((),), {"p": 0.5}),
            Case(((0, 3),), {"p": 0.5})),
           dtypes=FLOATS, check=check_dropout),
    OpSpec("dropout_grad", eager.ops.dropout_grad, ref_dropout_grad, ("real", "real"),
           (Case(((3, 4), (3, 4)), {"p": 0.5, "is_test": False, "mode": _UP}),
            Case(((3, 1), (3, 4)), {"p": 0.25, "is_test": False, "mode": _UP}),
            Case(((1, 4, 1), (2, 4, 3)), {"p": 0.25, "is_test": False, "mode": _DOWN}),
            Case(((2, 3), (2, 3)), {"p": 0.3, "is_test": True, "mode": _DOWN}),
            Case(((2, 3), (2, 3)), {"p": 1.0, "is_test": False, "mode": _UP}),
            Case(((), ()), {"p": 0.5, "is_test": False, "mode": _UP}),
            Case(((0, 3), (0, 3)), {"p": 0.5, "is_test": False, "mode": _UP})),
           dtypes=FLOATS, prepare=_mask_as_uint8, wrt=(1,)),
]
