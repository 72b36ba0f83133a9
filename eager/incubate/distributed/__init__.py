"""``eager.incubate.distributed``: Paddle's ``paddle.incubate.distributed``; here its
``fleet`` (``recompute_sequential``, ``recompute_hybrid``)."""
from . import fleet  # noqa: F401

__all__ = ["fleet"]
