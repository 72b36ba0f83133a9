"""Composite rules of the pooling ops (see eager/composite/__init__.py).

Max pooling's gradient adds out_grad at the mask's indices, so its
derivative gathers at the same indices; average pooling's gradient is linear
and its transpose is average pooling again; unfold and fold are each other's
adjoints. Each rule is a forward op, so every order follows.
"""
from __future__ import annotations

import math

from ..generated import forward_api as _F

_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def max_pool_with_index_double_grad(mask, grad_x_grad, data_format):
    """grad_x_grad gathered at each output's argmax (the mask's flat index in its input plane)."""
    if data_format in _CHANNEL_LAST:
        mask = _F.moveaxis(mask, [-1], [1])
        grad_x_grad = _F.moveaxis(grad_x_grad, [-1], [1])
    n, c = grad_x_grad.shape[:2]
    planes = _F.reshape(grad_x_grad, [n, c, math.prod(grad_x_grad.shape[2:])])
    index = _F.cast(_F.reshape(mask, [n, c, math.prod(mask.shape[2:])]), "int64")
    picked = _F.reshape(_F.take_along_axis(planes, index, 2, True), mask.shape)
    return _F.moveaxis(picked, [1], [-1]) if data_format in _CHANNEL_LAST else picked


def avg_pool2d_double_grad(grad_x_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, exclusive,
                           adaptive, data_format):
    """avg_pool2d_grad is linear in out_grad; its transpose is avg_pool2d."""
    return _F.avg_pool2d(grad_x_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, exclusive,
                         adaptive, data_format)


def avg_pool3d_double_grad(grad_x_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, exclusive,
                           adaptive, data_format):
    """avg_pool3d_grad is linear in out_grad; its transpose is avg_pool3d."""
    return _F.avg_pool3d(grad_x_grad, kernel_size, strides, paddings, padding_algorithm, ceil_mode, exclusive,
                         adaptive, data_format)


def im2col_grad(x, out_grad, kernel_sizes, strides, paddings, dilations):
    """The columns' gradient folded back (col2im): fold is unfold's adjoint."""
    return _F.col2im(out_grad, list(x.shape[2:]), kernel_sizes, strides, paddings, dilations)


def col2im_grad(out_grad, kernel_sizes, strides, paddings, dilations):
    """The image's gradient unfolded into columns: unfold is fold's adjoint."""
    return _F.im2col(out_grad, kernel_sizes, strides, paddings, dilations)
