"""Paddle's paddle.quantization.observers."""
from .abs_max import AbsmaxObserver, AbsmaxObserverLayer
from .groupwise import GroupWiseWeightObserver, GroupWiseWeightObserverLayer

__all__ = ["AbsmaxObserver", "GroupWiseWeightObserver"]
