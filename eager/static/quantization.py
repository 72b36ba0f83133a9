"""``paddle.static.quantization`` as far as a dygraph script reaches it: the
dynamic-graph :class:`~eager.quantization.ImperativeQuantAware` (Paddle exports
it here too). The static-graph passes are not offered: eager has no Program."""
from ..quantization.imperative import ImperativeQuantAware

__all__ = ["ImperativeQuantAware"]
