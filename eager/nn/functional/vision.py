"""Padding, resizing and sampling grids (Paddle's ``paddle.nn.functional``)."""
from __future__ import annotations

__all__: list = []
