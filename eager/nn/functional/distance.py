"""Paddle's ``paddle.nn.functional.distance`` path: ``pairwise_distance`` of
:mod:`eager.nn.functional.common` and ``pdist`` of :mod:`eager.composite.linalg`
(the same functions as ``F.pairwise_distance`` and ``eager.pdist``)."""
from ...composite.linalg import pdist
from .common import pairwise_distance

# Paddle's nn.functional imports pdist from this file without listing it in its __all__.
__all__ = ["pairwise_distance"]
