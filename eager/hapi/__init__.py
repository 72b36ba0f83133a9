"""The high-level API (Paddle's ``paddle.hapi``): ``Model`` (fit/evaluate/predict),
model summaries and FLOPs counting."""
from .model import Model  # noqa: F401
from .summary import flops  # noqa: F401
from .summary import summary  # noqa: F401

__all__ = ["Model", "flops", "summary"]
