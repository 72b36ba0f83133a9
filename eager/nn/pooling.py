"""Pooling layers (Paddle's ``paddle.nn``): MaxPool1D/2D/3D, AvgPool1D/2D/3D,
their adaptive forms, MaxUnPool1D/2D/3D, LPPool1D/2D, FractionalMaxPool2D/3D,
Unfold and Fold. Each keeps its arguments and calls the functional of
eager.nn.functional.pooling, which checks them."""
from __future__ import annotations

from ..tensor import Tensor
from .functional import pooling as P
from .layer import Layer


class _Pool(Layer):
    """A layer holding a functional's keyword arguments."""

    _function = None
    # Paddle's extra_repr: (label, argument) pairs printed as ``label=value`` with str();
    # None shows every argument with repr() (layers Paddle 2.6 does not have).
    _repr_fields = None

    def __init__(self, **kwargs):
        super().__init__()
        self._kwargs = kwargs

    def forward(self, x: Tensor):
        """The pooling of x."""
        return type(self)._function(x, **self._kwargs)

    def extra_repr(self) -> str:
        """The arguments, shown by repr: the ones Paddle's layer shows, as it shows them."""
        if self._repr_fields is None:
            return ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return ", ".join(f"{label}={self._kwargs[key]}" for label, key in self._repr_fields)


class MaxPool1D(_Pool):
    """max_pool1d as a layer.

    >>> eager.nn.MaxPool1D(2)(eager.ones([1, 3, 8])).shape
    [1, 3, 4]
    """

    _function = staticmethod(P.max_pool1d)
    _repr_fields = (("kernel_size", "kernel_size"), ("stride", "stride"), ("padding", "padding"))

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCL",
                 name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                         ceil_mode=ceil_mode, data_format=data_format)


class MaxPool2D(_Pool):
    """max_pool2d as a layer.

    >>> eager.nn.MaxPool2D(kernel_size=2, stride=2)(eager.ones([1, 3, 28, 28])).shape
    [1, 3, 14, 14]
    """

    _function = staticmethod(P.max_pool2d)
    _repr_fields = (("kernel_size", "kernel_size"), ("stride", "stride"), ("padding", "padding"))

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                         ceil_mode=ceil_mode, data_format=data_format)


class MaxPool3D(_Pool):
    """max_pool3d as a layer.

    >>> eager.nn.MaxPool3D(2)(eager.ones([1, 2, 4, 4, 4])).shape
    [1, 2, 2, 2, 2]
    """

    _function = staticmethod(P.max_pool3d)
    _repr_fields = (("kernel_size", "kernel_size"), ("stride", "stride"), ("padding", "padding"))

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                         ceil_mode=ceil_mode, data_format=data_format)


class _Unpool(Layer):
    """A max-unpooling layer: forward(x, indices) calls its functional with the kept arguments."""

    _function = None

    def __init__(self, kernel_size, stride, padding, data_format, output_size):
        super().__init__()
        self._kwargs = dict(kernel_size=kernel_size, stride=stride, padding=padding, data_format=data_format,
                            output_size=output_size)

    def forward(self, x: Tensor, indices: Tensor):
        """x written at indices (the mask of the matching max pooling) into zeros."""
        return type(self)._function(x, indices, **self._kwargs)

    def extra_repr(self) -> str:
        """``output_size=...``, as Paddle's."""
        return f"output_size={self._kwargs['output_size']}"


class MaxUnPool1D(_Unpool):
    """max_unpool1d as a layer.

    >>> out, mask = eager.nn.MaxPool1D(2, return_mask=True)(eager.ones([1, 1, 4]))
    >>> eager.nn.MaxUnPool1D(2)(out, mask).tolist()
    [[[1.0, 0.0, 1.0, 0.0]]]
    """

    _function = staticmethod(P.max_unpool1d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class MaxUnPool2D(_Unpool):
    """max_unpool2d as a layer.

    >>> out, mask = eager.nn.MaxPool2D(2, return_mask=True)(eager.ones([1, 3, 4, 4]))
    >>> eager.nn.MaxUnPool2D(2)(out, mask).shape
    [1, 3, 4, 4]
    """

    _function = staticmethod(P.max_unpool2d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class MaxUnPool3D(_Unpool):
    """max_unpool3d as a layer.

    >>> out, mask = eager.nn.MaxPool3D(2, return_mask=True)(eager.ones([1, 1, 4, 4, 4]))
    >>> eager.nn.MaxUnPool3D(2)(out, mask).shape
    [1, 1, 4, 4, 4]
    """

    _function = staticmethod(P.max_unpool3d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class AvgPool1D(_Pool):
    """avg_pool1d as a layer.

    >>> eager.nn.AvgPool1D(3, stride=1, padding=1)(eager.ones([1, 2, 5])).shape
    [1, 2, 5]
    """

    _function = staticmethod(P.avg_pool1d)
    _repr_fields = (("kernel_size", "kernel_size"), ("stride", "stride"), ("padding", "padding"))

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, data_format="NCL",
                 name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, exclusive=exclusive,
                         ceil_mode=ceil_mode, data_format=data_format)


class AvgPool2D(_Pool):
    """avg_pool2d as a layer.

    >>> eager.nn.AvgPool2D(2)(eager.ones([1, 3, 6, 6])).shape
    [1, 3, 3, 3]
    """

    _function = staticmethod(P.avg_pool2d)
    _repr_fields = (("kernel_size", "kernel_size"), ("stride", "stride"), ("padding", "padding"))

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         exclusive=exclusive, divisor_override=divisor_override, data_format=data_format)


class AvgPool3D(_Pool):
    """avg_pool3d as a layer.

    >>> eager.nn.AvgPool3D(2)(eager.ones([1, 1, 4, 4, 4])).shape
    [1, 1, 2, 2, 2]
    """

    _function = staticmethod(P.avg_pool3d)
    _repr_fields = (("kernel_size", "kernel_size"), ("stride", "stride"), ("padding", "padding"))

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         exclusive=exclusive, divisor_override=divisor_override, data_format=data_format)


class AdaptiveAvgPool1D(_Pool):
    """adaptive_avg_pool1d as a layer.

    >>> eager.nn.AdaptiveAvgPool1D(4)(eager.ones([1, 2, 10])).shape
    [1, 2, 4]
    """

    _function = staticmethod(P.adaptive_avg_pool1d)
    _repr_fields = (("output_size", "output_size"),)

    def __init__(self, output_size, data_format="NCL", name=None):
        super().__init__(output_size=output_size, data_format=data_format)


class AdaptiveAvgPool2D(_Pool):
    """adaptive_avg_pool2d as a layer; AdaptiveAvgPool2D(1) is a global average.

    >>> eager.nn.AdaptiveAvgPool2D(1)(eager.ones([2, 8, 7, 7])).shape
    [2, 8, 1, 1]
    """

    _function = staticmethod(P.adaptive_avg_pool2d)
    _repr_fields = (("output_size", "output_size"),)

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size=output_size, data_format=data_format)


class AdaptiveAvgPool3D(_Pool):
    """adaptive_avg_pool3d as a layer.

    >>> eager.nn.AdaptiveAvgPool3D([1, 2, 2])(eager.ones([1, 2, 3, 4, 5])).shape
    [1, 2, 1, 2, 2]
    """

    _function = staticmethod(P.adaptive_avg_pool3d)
    _repr_fields = (("output_size", "output_size"),)

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size=output_size, data_format=data_format)


class AdaptiveMaxPool1D(_Pool):
    """adaptive_max_pool1d as a layer.

    >>> eager.nn.AdaptiveMaxPool1D(3)(eager.ones([1, 2, 10])).shape
    [1, 2, 3]
    """

    _function = staticmethod(P.adaptive_max_pool1d)
    _repr_fields = (("output_size", "output_size"), ("return_mask", "return_mask"))

    def __init__(self, output_size, return_mask=False, data_format="NCL", name=None):
        super().__init__(output_size=output_size, return_mask=return_mask, data_format=data_format)


class AdaptiveMaxPool2D(_Pool):
    """adaptive_max_pool2d as a layer.

    >>> eager.nn.AdaptiveMaxPool2D([2, 3])(eager.ones([1, 2, 7, 7])).shape
    [1, 2, 2, 3]
    """

    _function = staticmethod(P.adaptive_max_pool2d)
    _repr_fields = (("output_size", "output_size"), ("return_mask", "return_mask"))

    def __init__(self, output_size, return_mask=False, data_format="NCHW", name=None):
        super().__init__(output_size=output_size, return_mask=return_mask, data_format=data_format)


class AdaptiveMaxPool3D(_Pool):
    """adaptive_max_pool3d as a layer.

    >>> eager.nn.AdaptiveMaxPool3D(2)(eager.ones([1, 1, 4, 5, 6])).shape
    [1, 1, 2, 2, 2]
    """

    _function = staticmethod(P.adaptive_max_pool3d)
    _repr_fields = (("output_size", "output_size"), ("return_mask", "return_mask"))

    def __init__(self, output_size, return_mask=False, data_format="NCDHW", name=None):
        super().__init__(output_size=output_size, return_mask=return_mask, data_format=data_format)


class Unfold(_Pool):
    """unfold (im2col) as a layer; note Paddle's argument order (kernel_sizes,
    dilations, paddings, strides).

    >>> eager.nn.Unfold(kernel_sizes=[2, 2])(eager.ones([1, 3, 4, 4])).shape
    [1, 12, 9]
    """

    _function = staticmethod(P.unfold)
    _repr_fields = (("kernel_size", "kernel_sizes"), ("dilation", "dilations"), ("padding", "paddings"), ("stride", "strides"))

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__(kernel_sizes=kernel_sizes, strides=strides, paddings=paddings, dilations=dilations)


class Fold(_Pool):
    """fold (col2im) as a layer; Paddle's argument order (output_sizes,
    kernel_sizes, dilations, paddings, strides).

    >>> eager.nn.Fold([4, 4], 2)(eager.ones([1, 12, 9])).shape
    [1, 3, 4, 4]
    """

    _function = staticmethod(P.fold)
    _repr_fields = (("kernel_size", "kernel_sizes"), ("dilation", "dilations"), ("padding", "paddings"), ("stride", "strides"))

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__(output_sizes=output_sizes, kernel_sizes=kernel_sizes, strides=strides, paddings=paddings,
                         dilations=dilations)


class LPPool1D(_Pool):
    """lp_pool1d as a layer.

    >>> eager.nn.LPPool1D(2, 3)(eager.ones([1, 2, 9])).shape
    [1, 2, 3]
    """

    _function = staticmethod(P.lp_pool1d)

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCL",
                 name=None):
        super().__init__(norm_type=norm_type, kernel_size=kernel_size, stride=stride, padding=padding,
                         ceil_mode=ceil_mode, data_format=data_format)


class LPPool2D(_Pool):
    """lp_pool2d as a layer.

    >>> eager.nn.LPPool2D(2, 2)(eager.ones([1, 3, 8, 8])).shape
    [1, 3, 4, 4]
    """

    _function = staticmethod(P.lp_pool2d)

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__(norm_type=norm_type, kernel_size=kernel_size, stride=stride, padding=padding,
                         ceil_mode=ceil_mode, data_format=data_format)


class FractionalMaxPool2D(_Pool):
    """fractional_max_pool2d as a layer (``random_u`` None draws a new u per call).

    >>> eager.nn.FractionalMaxPool2D(3, random_u=0.4)(eager.ones([1, 2, 7, 7])).shape
    [1, 2, 3, 3]
    """

    _function = staticmethod(P.fractional_max_pool2d)

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
        super().__init__(output_size=output_size, kernel_size=kernel_size, random_u=random_u,
                         return_mask=return_mask)


class FractionalMaxPool3D(_Pool):
    """fractional_max_pool3d as a layer.

    >>> eager.nn.FractionalMaxPool3D(2, random_u=0.4)(eager.ones([1, 2, 5, 5, 5])).shape
    [1, 2, 2, 2, 2]
    """

    _function = staticmethod(P.fractional_max_pool3d)

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
        super().__init__(output_size=output_size, kernel_size=kernel_size, random_u=random_u,
                         return_mask=return_mask)


__all__ = ["AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D", "AdaptiveMaxPool2D",
           "AdaptiveMaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "Fold", "MaxPool1D", "MaxPool2D", "MaxPool3D",
           "Unfold"]
__all__ += ["MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D"]
__all__ += ["FractionalMaxPool2D", "FractionalMaxPool3D", "LPPool1D", "LPPool2D"]
