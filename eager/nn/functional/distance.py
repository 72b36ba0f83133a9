"""Paddle's ``paddle.nn.functional.distance`` path: ``pairwise_distance`` of
:mod:`eager.nn.functional.common` (the same function; Paddle's ``pdist`` is not provided)."""
from .common import pairwise_distance

__all__ = ["pairwise_distance"]
