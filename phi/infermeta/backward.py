"""InferMeta of backward ops: each gradient has its forward input's meta, and
the incoming gradient must be what the forward op returned (shape and dtype),
so a backward op called directly with a wrong ``out_grad`` says so, naming it."""
from __future__ import annotations

from ..common.shape_rules import inverse_permutation
from ..core.errors import InvalidArgumentError
from ..core.meta_tensor import MetaTensor
from .binary import elementwise_infer_meta, matmul_infer_meta, where_infer_meta
from .shape import getitem_infer_meta
from .unary import expand_infer_meta, reduce_infer_meta, transpose_infer_meta


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


def same_shape_grad_infer_meta(x, out_grad, x_grad) -> None:
    """The gradient of an op whose result is shaped like ``x`` (elementwise unary
    ops, softmax; ``x`` may be the saved input or the saved result)."""
    if out_grad.dims != x.dims or out_grad.dtype is not x.dtype:
        _check_out_grad(out_grad, x)
    x_grad.dims, x_grad.dtype, x_grad.layout = x.dims, x.dtype, x.layout


def reshape_grad_infer_meta(x, out_grad, x_grad) -> None:
    """The gradient of reshape, squeeze, unsqueeze, flatten: the forward result
    held x's elements, so out_grad must hold as many, of x's dtype."""
    if out_grad.numel != x.numel or out_grad.dtype is not x.dtype:
        raise InvalidArgumentError(
            f"argument 'out_grad' expected {x.dtype} with {x.numel} elements (the forward op's result "
            f"holds x's elements), got {out_grad.dtype}{list(out_grad.dims)}")
    x_grad.share_meta(x)


def reduce_grad_infer_meta(x, out_grad, axis, keepdim, x_grad) -> None:
    """The gradient of sum and mean: out_grad shaped as the reduction of x."""
    forward = MetaTensor()
    reduce_infer_meta(x, axis, keepdim, forward)
    if tuple(out_grad.dims) != tuple(forward.dims):
        raise InvalidArgumentError(
            f"argument 'out_grad' expected shape {list(forward.dims)} (x of shape {list(x.dims)} "
            f"reduced over axis={list(axis)}, keepdim={keepdim}), got {list(out_grad.dims)}")
    x_grad.share_meta(x)


def expand_grad_infer_meta(x, out_grad, shape, x_grad) -> None:
    forward = MetaTensor()
    expand_infer_meta(x, shape, forward)
    _check_out_grad(out_grad, forward)
    x_grad.share_meta(x)


def getitem_grad_infer_meta(x, out_grad, index, x_grad) -> None:
    forward = MetaTensor()
    getitem_infer_meta(x, index, forward)
    _check_out_grad(out_grad, forward)
    x_grad.share_meta(x)
