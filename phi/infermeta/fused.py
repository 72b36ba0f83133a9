"""InferMeta of the fused ops: several ops' work in one kernel (issue #14)."""
from __future__ import annotations

from ..core.errors import InvalidArgumentError
from ..core.meta_tensor import MetaTensor
from .backward import _check_out_grad

__all__ = ["linear_grad_infer_meta", "linear_infer_meta"]


def linear_infer_meta(x, weight, bias, out) -> None:
    """x [..., in], weight [in, out] (Paddle's layout), bias [out] or None, one
    floating dtype; out is [..., out]."""
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise InvalidArgumentError(f"argument 'x' expected a floating-point or complex tensor, got {x.dtype}")
    w_dims, x_dims = tuple(weight.dims), tuple(x.dims)
    if weight.dtype is not x.dtype:
        raise InvalidArgumentError(f"argument 'weight' expected the dtype of 'x' {x.dtype}, got {weight.dtype}")
    if len(w_dims) != 2:
        raise InvalidArgumentError(f"argument 'weight' expected a 2-d tensor [in_features, out_features], got "
                                   f"shape {list(w_dims)}")
    if not x_dims or x_dims[-1] != w_dims[0]:
        raise InvalidArgumentError(f"argument 'x' expected a last dimension of {w_dims[0]} (weight's "
                                   f"in_features), got shape {list(x_dims)}")
    if bias is not None and (tuple(bias.dims) != w_dims[1:] or bias.dtype is not x.dtype):
        raise InvalidArgumentError(f"argument 'bias' expected {x.dtype}[{w_dims[1]}] (out_features), got "
                                   f"{bias.dtype}{list(bias.dims)}")
    out.dims, out.dtype, out.layout = x_dims[:-1] + w_dims[1:], x.dtype, x.layout


def linear_grad_infer_meta(x, weight, out_grad, x_grad, weight_grad, bias_grad) -> None:
    """The gradients are shaped like x, weight and the bias [out_features]; out_grad
    like linear's result. The bias itself is not an argument: its gradient needs
    only out_grad, and whether it is wanted comes from the caller's out_mask."""
    x_dims, w_dims = tuple(x.dims), tuple(weight.dims)
    if (len(w_dims) != 2 or not x_dims or tuple(out_grad.dims) != x_dims[:-1] + w_dims[1:]
            or out_grad.dtype is not x.dtype):
        forward = MetaTensor()
        linear_infer_meta(x, weight, None, forward)
        _check_out_grad(out_grad, forward)
    x_grad.share_meta(x)
    weight_grad.share_meta(weight)
    bias_grad.dims, bias_grad.dtype, bias_grad.layout = w_dims[1:], x.dtype, x.layout
