"""Composite rules of the convolution ops (see eager/composite/__init__.py)."""
from __future__ import annotations
