"""phi API functions of the fused optimizer updates (hand-written: each updates
several tensors in place, which the generated API does not express).

Every function checks that the gradient and the states match the parameter
before anything is written, updates the buffers in place and bumps their
versions (a graph that saved the old parameter then refuses to run backward).
"""
from __future__ import annotations

from ..core import KERNELS
from ..core.errors import InvalidArgumentError, describe_tensor

_sgd = KERNELS.dispatch_table("sgd_")
_momentum = KERNELS.dispatch_table("momentum_")
_adam = KERNELS.dispatch_table("adam_")


def _check(op: str, param, **others) -> None:
    for name, tensor in others.items():
        # Array type and device instead of places, which are built on each read.
        a, b = tensor.array, param.array
        if (tensor.dims != param.dims or tensor.dtype is not param.dtype or type(a) is not type(b)
                or getattr(a, "device", None) != getattr(b, "device", None)):
            raise InvalidArgumentError(
                f"{op}: argument '{name}' expected {describe_tensor(param)} on {param.place} like "
                f"'param', got {describe_tensor(tensor)} on {tensor.place}")


def sgd_(param, grad, learning_rate: float, weight_decay: float = 0.0):
    """param -= learning_rate * (grad + weight_decay * param)."""
    _check("sgd_", param, grad=grad)
    p = param.array
    _sgd[type(p), p.dtype](p, grad.array, learning_rate, weight_decay)
    param.bump_version()
    return param


def momentum_(param, grad, velocity, learning_rate: float, momentum: float, use_nesterov: bool = False,
              rescale_grad: float = 1.0, weight_decay: float = 0.0):
    """Paddle's momentum update of param and velocity (see the kernel)."""
    _check("momentum_", param, grad=grad, velocity=velocity)
    p = param.array
    _momentum[type(p), p.dtype](p, grad.array, velocity.array, learning_rate, momentum, use_nesterov,
                                rescale_grad, weight_decay)
    param.bump_version()
    velocity.bump_version()
    return param, velocity


def adam_(param, grad, moment1, moment2, learning_rate: float, beta1: float, beta2: float,
          epsilon: float, step: int, weight_decay: float = 0.0, decoupled: bool = False):
    """Paddle's Adam (AdamW with ``decoupled``) update of param and both moments."""
    _check("adam_", param, grad=grad, moment1=moment1, moment2=moment2)
    p = param.array
    _adam[type(p), p.dtype](p, grad.array, moment1.array, moment2.array, learning_rate, beta1, beta2,
                            epsilon, step, weight_decay, decoupled)
    for tensor in (param, moment1, moment2):
        tensor.bump_version()
    return param, moment1, moment2


__all__ = ["adam_", "momentum_", "sgd_"]
