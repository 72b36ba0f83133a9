"""InferMeta of the vision ops: pad, interpolate, pixel_shuffle, affine_grid, grid_sample (issue #10)."""
from __future__ import annotations

__all__: list = []
