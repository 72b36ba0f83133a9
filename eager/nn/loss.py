"""Loss layers (beyond MSELoss and CrossEntropyLoss in layers.py) (Paddle's ``paddle.nn``)."""
from __future__ import annotations

__all__: list = []
