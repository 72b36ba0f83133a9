"""InferMeta of backward ops: each gradient has its forward input's meta, and
the incoming gradient must be what the forward op returned (shape and dtype),
so a backward op called directly with a wrong ``out_grad`` says so, naming it."""
from __future__ import annotations

from ..common.shape_rules import inverse_permutation
from ..core.errors import InvalidArgumentError
from ..core.meta_tensor import MetaTensor
from .binary import elementwise_infer_meta, matmul_infer_meta, where_infer_meta
from .unary import transpose_infer_meta


def _check_out_grad(out_grad, forward) -> None:
    if tuple(out_grad.dims) != tuple(forward.dims) or out_grad.dtype is not forward.dtype:
        raise InvalidArgumentError(
            f"argument 'out_grad' expected {forward.dtype}{list(forward.dims)} (the forward op's "
            f"result), got {out_grad.dtype}{list(out_grad.dims)}")


def elementwise_grad_infer_meta(x, y, out_grad, x_grad, y_grad) -> None:
    """The gradients of a broadcasting binary op: shaped like x and y."""
    dims, dtype = out_grad.dims, out_grad.dtype
    xd, yd = x.dims, y.dims
    # The engine's calls: no broadcasting, one dtype. Anything else is checked in full.
    if not (xd == dims and yd == dims and x.dtype is dtype and y.dtype is dtype):
        forward = MetaTensor()
        elementwise_infer_meta(x, y, forward)
        _check_out_grad(out_grad, forward)
    x_grad.dims, x_grad.dtype, x_grad.layout = xd, x.dtype, x.layout
    y_grad.dims, y_grad.dtype, y_grad.layout = yd, y.dtype, y.layout


def where_grad_infer_meta(condition, x, y, out_grad, x_grad, y_grad) -> None:
    forward = MetaTensor()
    where_infer_meta(condition, x, y, forward)
    _check_out_grad(out_grad, forward)
    x_grad.share_meta(x)
    y_grad.share_meta(y)


def matmul_grad_infer_meta(x, y, out_grad, transpose_x, transpose_y, x_grad, y_grad) -> None:
    forward = MetaTensor()
    matmul_infer_meta(x, y, transpose_x, transpose_y, forward)
    _check_out_grad(out_grad, forward)
    x_grad.share_meta(x)
    y_grad.share_meta(y)


def transpose_grad_infer_meta(out_grad, perm, x_grad) -> None:
    transpose_infer_meta(out_grad, inverse_permutation(perm), x_grad)
