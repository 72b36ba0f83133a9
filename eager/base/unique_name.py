"""Paddle's ``paddle.base.unique_name`` path: ``generate``, ``guard`` and ``switch`` of
:mod:`eager.utils.unique_name` (the same objects)."""
from ..utils.unique_name import UniqueNameGenerator, generate, guard, switch

__all__ = ["UniqueNameGenerator", "generate", "guard", "switch"]
