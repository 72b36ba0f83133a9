"""Composite rules of the pooling ops: max/avg/adaptive pooling, unfold and fold (issue #10) (see eager/composite/__init__.py)."""
from __future__ import annotations
