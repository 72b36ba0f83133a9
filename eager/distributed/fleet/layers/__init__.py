"""``fleet.layers``: the tensor-parallel building blocks (Paddle's ``fleet.layers.mpu``)."""
from . import mpu  # noqa: F401

__all__ = ["mpu"]
