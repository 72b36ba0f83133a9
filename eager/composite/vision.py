"""Composite rules of the vision ops: pad and interpolation (see eager/composite/__init__.py).

Each of their gradients is linear in the incoming gradient and ignores x's
values, so its derivative is the forward op again, applied to grad_x_grad.
"""
from __future__ import annotations

from ..generated import forward_api as _F


def pad_double_grad(grad_x_grad, paddings, pad_value):
    """pad_grad crops out_grad; its derivative pads with zeros."""
    return _F.pad(grad_x_grad, paddings, 0.0)


def nearest_interp_double_grad(grad_x_grad, out_size, scale, align_corners, align_mode, data_format):
    """nearest_interp_grad is the transpose of the resize; its derivative resizes again."""
    return _F.nearest_interp(grad_x_grad, out_size, scale, align_corners, align_mode, data_format)


def linear_interp_double_grad(grad_x_grad, out_size, scale, align_corners, align_mode, data_format):
    """linear_interp_grad is the transpose of the resize; its derivative resizes again."""
    return _F.linear_interp(grad_x_grad, out_size, scale, align_corners, align_mode, data_format)


def bilinear_interp_double_grad(grad_x_grad, out_size, scale, align_corners, align_mode, data_format):
    """bilinear_interp_grad is the transpose of the resize; its derivative resizes again."""
    return _F.bilinear_interp(grad_x_grad, out_size, scale, align_corners, align_mode, data_format)


def trilinear_interp_double_grad(grad_x_grad, out_size, scale, align_corners, align_mode, data_format):
    """trilinear_interp_grad is the transpose of the resize; its derivative resizes again."""
    return _F.trilinear_interp(grad_x_grad, out_size, scale, align_corners, align_mode, data_format)


def bicubic_interp_double_grad(grad_x_grad, out_size, scale, align_corners, align_mode, data_format):
    """bicubic_interp_grad is the transpose of the resize; its derivative resizes again."""
    return _F.bicubic_interp(grad_x_grad, out_size, scale, align_corners, align_mode, data_format)
