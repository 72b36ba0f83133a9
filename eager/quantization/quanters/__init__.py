"""Paddle's paddle.quantization.quanters."""
from .abs_max import FakeQuanterWithAbsMaxObserver, FakeQuanterWithAbsMaxObserverLayer

__all__ = ["FakeQuanterWithAbsMaxObserver"]
