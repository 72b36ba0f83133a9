"""Parameter utilities (Paddle's ``paddle.nn.utils``): gradient clipping by norm and value,
parameters <-> one vector, weight and spectral normalization."""
from __future__ import annotations

__all__: list = []
