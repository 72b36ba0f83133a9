"""Composite rules of the dropout and attention ops (issue #10) (see eager/composite/__init__.py)."""
from __future__ import annotations
