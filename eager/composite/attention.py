"""Composite rules of the dropout and attention ops (issue #10) (see eager/composite/__init__.py)."""
from __future__ import annotations

from phi.infermeta.attention import dropout_factor as _dropout_factor

from ..generated import forward_api as _F


def dropout_grad(mask, out_grad, p, is_test, mode):
    """out_grad times the saved keep mask (broadcast along the axes it was shared
    over) and dropout's scale: linear in out_grad, so differentiable to any order."""
    kept = _F.multiply(out_grad, _F.cast(mask, out_grad.dtype))
    return _F.scale(kept, _dropout_factor(float(p), bool(is_test), mode), 0.0, True)
