"""Paddle's paddle.nn.quant.Stub: a placeholder that QAT/PTQ replace by a
QuanterStub, which quantizes (or observes) the input of a functional call."""
from __future__ import annotations

from ..layer import Layer


class Stub(Layer):
    """An identity layer marking where an observer/quanter goes: ``observer`` (a
    quanter factory such as FakeQuanterWithAbsMaxObserver) or, when None, the
    config's activation quanter. QAT/PTQ replace it by a :class:`QuanterStub`.

    >>> class Model(eager.nn.Layer):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.quant = Stub()
    ...     def forward(self, x):
    ...         return eager.nn.functional.relu(self.quant(x))
    """

    def __init__(self, observer=None):
        super().__init__()
        self._observer = observer

    def forward(self, input):
        """input unchanged."""
        return input


class QuanterStub(Layer):
    """What QAT/PTQ put in place of a :class:`Stub`: applies the stub's own
    observer, else the config's activation quanter, to its input."""

    def __init__(self, layer: Stub, q_config):
        super().__init__()
        self._observer = None
        if layer._observer is not None:
            self._observer = layer._observer._instance(layer)
        elif q_config.activation is not None:
            self._observer = q_config.activation._instance(layer)

    def forward(self, input):
        """input through the observer (unchanged when there is none)."""
        return self._observer(input) if self._observer is not None else input
