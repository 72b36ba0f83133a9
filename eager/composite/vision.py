"""Composite rules of the vision ops: pad, interpolate, pixel_shuffle, affine_grid, grid_sample (issue #10) (see eager/composite/__init__.py)."""
from __future__ import annotations
