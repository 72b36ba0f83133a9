"""Paddle's paddle.sparse.multiary module path: ``addmm`` (defined in eager/sparse/matmul.py),
so ``from paddle.sparse.multiary import addmm`` keeps working under ``import eager as paddle``."""
from .matmul import addmm

__all__ = ["addmm"]
