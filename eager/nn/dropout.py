"""Dropout layers (Paddle's ``paddle.nn``)."""
from __future__ import annotations

__all__: list = []
