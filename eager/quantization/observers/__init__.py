"""Paddle's paddle.quantization.observers."""
from .abs_max import AbsmaxObserver, AbsmaxObserverLayer

__all__ = ["AbsmaxObserver"]
