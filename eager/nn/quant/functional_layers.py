"""Paddle's paddle.nn.quant.functional_layers: elementwise and shape functions as
layers (``add()(x, y)``), so that quantization (ImperativePTQ's layer table, output
scale observers) sees them as layers of the model."""
from __future__ import annotations

from ...generated import forward_api as _F
from ..layer import Layer

__all__ = []


class FloatFunctionalLayer(Layer):
    """Base of the functional layers: a layer without parameters around one function."""


class add(FloatFunctionalLayer):  # noqa: N801 (Paddle's name)
    """``add()(x, y)`` is ``eager.add(x, y)``."""

    def forward(self, x, y, name=None):
        return _F.add(x, y)


class subtract(FloatFunctionalLayer):  # noqa: N801
    """``subtract()(x, y)`` is ``eager.subtract(x, y)``."""

    def forward(self, x, y, name=None):
        return _F.subtract(x, y)


class multiply(FloatFunctionalLayer):  # noqa: N801
    """``multiply()(x, y)`` is ``eager.multiply(x, y)``."""

    def forward(self, x, y, name=None):
        return _F.multiply(x, y)


class divide(FloatFunctionalLayer):  # noqa: N801
    """``divide()(x, y)`` is ``eager.divide(x, y)``."""

    def forward(self, x, y, name=None):
        return _F.divide(x, y)


class reshape(FloatFunctionalLayer):  # noqa: N801
    """``reshape()(x, shape)`` is ``eager.reshape(x, shape)``."""

    def forward(self, x, shape, name=None):
        return _F.reshape(x, shape)


class transpose(FloatFunctionalLayer):  # noqa: N801
    """``transpose()(x, perm)`` is ``eager.transpose(x, perm)``."""

    def forward(self, x, perm, name=None):
        return _F.transpose(x, perm)


class concat(FloatFunctionalLayer):  # noqa: N801
    """``concat()(x, axis=0)`` is ``eager.concat(x, axis)``."""

    def forward(self, x, axis=0, name=None):
        return _F.concat(x, axis)


class flatten(FloatFunctionalLayer):  # noqa: N801
    """``flatten()(x, start_axis=0, stop_axis=-1)`` is ``eager.flatten(x, start_axis, stop_axis)``."""

    def forward(self, x, start_axis=0, stop_axis=-1, name=None):
        return _F.flatten(x, start_axis, stop_axis)


class matmul(FloatFunctionalLayer):  # noqa: N801
    """``matmul()(x, y, transpose_x=False, transpose_y=False)`` is ``eager.matmul``."""

    def forward(self, x, y, transpose_x=False, transpose_y=False, name=None):
        return _F.matmul(x, y, transpose_x, transpose_y)
