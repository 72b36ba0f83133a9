"""Paddle's ``paddle.io.dataloader.collate`` path: default_collate_fn, default_convert_fn of :mod:`eager.io`
(the same objects)."""
from ..collate import default_collate_fn, default_convert_fn

__all__ = ["default_collate_fn", "default_convert_fn"]
