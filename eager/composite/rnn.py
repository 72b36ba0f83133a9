"""Composite rules of the recurrent-network ops (issue #10) (see eager/composite/__init__.py)."""
from __future__ import annotations
