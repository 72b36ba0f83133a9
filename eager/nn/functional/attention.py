"""Attention (Paddle's ``paddle.nn.functional``)."""
from __future__ import annotations

__all__: list = []
