"""ObserveWrapper: runs an observer/quanter on a layer's input (or output)."""
from __future__ import annotations

from ..nn.layer import Layer


class ObserveWrapper(Layer):
    """Wraps ``observed`` (a layer without quantized weights, e.g. ReLU) so that
    ``observer`` sees its input (``observe_input=True``) or its output."""

    def __init__(self, observer, observed, observe_input=True):
        super().__init__()
        self._observer = observer
        self._observed = observed
        self._observe_input = observe_input

    def forward(self, *inputs, **kwargs):
        """observed(observer(input)) or observer(observed(input))."""
        if self._observe_input:
            return self._observed(self._observer(*inputs, **kwargs))
        return self._observer(self._observed(*inputs, **kwargs))
