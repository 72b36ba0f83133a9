"""``fleet.base``: the hybrid-parallel topology (Paddle's ``paddle.distributed.fleet.base``)."""
from . import topology  # noqa: F401

__all__ = ["topology"]
