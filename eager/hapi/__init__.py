"""The high-level API (Paddle's ``paddle.hapi``): model summaries and FLOPs counting."""
from .summary import flops  # noqa: F401
from .summary import summary  # noqa: F401
