"""Paddle's ``paddle.base.dygraph``: ``guard``, ``to_variable`` and the grad-mode
helpers of :mod:`eager.base.dygraph.base` (Paddle's Tracer, an internal, is not
provided).

>>> eager.base.dygraph.enabled()
True
"""
from . import base
from .base import (disable_dygraph, enable_dygraph, enable_grad, enabled, grad, guard, is_grad_enabled, no_grad,
                   no_grad_, set_grad_enabled, to_variable)

__all__ = ["base", "disable_dygraph", "enable_dygraph", "enable_grad", "enabled", "grad", "guard", "is_grad_enabled",
           "no_grad", "no_grad_", "set_grad_enabled", "to_variable"]
