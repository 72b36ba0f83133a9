"""Composite rules of the embedding ops, whose sparse gradient is a SelectedRows (issue #10) (see eager/composite/__init__.py)."""
from __future__ import annotations
