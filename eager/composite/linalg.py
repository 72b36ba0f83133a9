"""Composite rules of the linalg ops (see eager/composite/__init__.py)."""
from __future__ import annotations

from ..generated import forward_api as _F  # noqa: F401
from .spine import sum_to_shape  # noqa: F401
