"""Paddle's ``paddle.jit.api`` path: the functions Paddle defines in that file that
eager has (to_static, not_to_static, ignore_module, save, load), the same objects
as ``eager.jit``'s. Paddle's TracedLayer (its older tracing API) is not provided."""
from . import ignore_module, not_to_static, to_static
from .save import save
from .translated_layer import load

__all__ = ["ignore_module", "load", "not_to_static", "save", "to_static"]
