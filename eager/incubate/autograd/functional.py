"""Paddle's ``paddle.incubate.autograd.functional`` path: vjp, jvp, Jacobian and Hessian
of :mod:`eager.incubate.autograd` (the same objects)."""
from . import Hessian, Jacobian, _separate, jvp, vjp  # noqa: F401  (_separate: Paddle's examples import it)

__all__ = ["Hessian", "Jacobian", "jvp", "vjp"]
