"""Paddle's ``paddle.distributed.utils``: helpers for launcher scripts (``launch_utils``)."""
from . import launch_utils  # noqa: F401

__all__ = ["launch_utils"]
