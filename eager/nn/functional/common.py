"""Linear maps and distances: linear, bilinear, cosine_similarity, pairwise_distance (Paddle's ``paddle.nn.functional``)."""
from __future__ import annotations

__all__: list = []
