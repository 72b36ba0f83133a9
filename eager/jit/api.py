"""Paddle's ``paddle.jit.api`` path: the functions Paddle defines in that file that
eager has (to_static, not_to_static, ignore_module, save, load), the same objects
as ``eager.jit``'s, and Paddle's older tracing API, :class:`TracedLayer`."""
from . import ignore_module, not_to_static, to_static
from .save import save
from .traced_layer import TracedLayer
from .translated_layer import load

__all__ = ["TracedLayer", "ignore_module", "load", "not_to_static", "save", "to_static"]
