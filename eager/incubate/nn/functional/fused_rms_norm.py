"""Paddle's ``paddle.incubate.nn.functional.fused_rms_norm`` path (the same
function), which scripts import from."""
from .norm import fused_rms_norm

__all__ = ["fused_rms_norm"]
