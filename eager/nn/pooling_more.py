"""LP and fractional max pooling layers (Paddle's ``paddle.nn``): LPPool1D/2D,
FractionalMaxPool2D/3D. Each keeps its arguments and calls its functional in
eager.nn.functional.pooling_more, which checks them."""
from __future__ import annotations

from .functional import pooling_more as P
from .pooling import _Pool

__all__ = ["FractionalMaxPool2D", "FractionalMaxPool3D", "LPPool1D", "LPPool2D"]


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
