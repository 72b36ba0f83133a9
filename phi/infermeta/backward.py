"""InferMeta of backward ops: each gradient has its forward input's meta."""
from __future__ import annotations

from ..common.shape_rules import inverse_permutation
from .unary import transpose_infer_meta


def general_binary_grad_infer_meta(x, y, x_grad, y_grad) -> None:
    x_grad.share_meta(x)
    y_grad.share_meta(y)


def transpose_grad_infer_meta(out_grad, perm, x_grad) -> None:
    transpose_infer_meta(out_grad, inverse_permutation(perm), x_grad)
