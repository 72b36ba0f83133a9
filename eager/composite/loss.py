"""Composite rules of the loss ops beyond the spine's cross-entropy pair (issue #10) (see eager/composite/__init__.py)."""
from __future__ import annotations
