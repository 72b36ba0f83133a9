"""Composite rules of the normalization ops: batch_norm, layer_norm, group_norm, instance_norm (issue #10) (see eager/composite/__init__.py)."""
from __future__ import annotations
