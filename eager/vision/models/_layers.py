"""What the MobileNets share: Paddle's ``_make_divisible`` channel rounding."""
from __future__ import annotations


def make_divisible(value, divisor=8, min_value=None) -> int:
    """``value`` rounded to the nearest multiple of ``divisor`` (at least
    ``min_value``, default ``divisor``), never more than 10% below ``value``.

    >>> make_divisible(32 * 0.35), make_divisible(10)
    (16, 16)
    """
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded
