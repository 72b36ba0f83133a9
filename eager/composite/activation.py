"""Composite rules of the activation ops beyond the spine's relu/sigmoid/tanh/softmax (issue #10) (see eager/composite/__init__.py)."""
from __future__ import annotations
