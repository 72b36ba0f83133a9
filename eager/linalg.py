"""``eager.linalg``: Paddle's ``paddle.linalg`` namespace (linear-algebra ops)."""
from __future__ import annotations

__all__: list = []
