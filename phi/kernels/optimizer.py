"""Fused optimizer updates (Paddle's sgd_, momentum_, adam_ kernels): each writes
the new parameter (and its state) into the existing buffers, allocating at most
one parameter-sized scratch array, and never modifies the gradient."""
import math

from ..core.kernel_registry import register_kernel
from .dtypes import ALL_BACKENDS, FLOATS


def _decayed(xp, param, grad, weight_decay):
    """grad + weight_decay * param (L2 decay) in a new array, or grad itself."""
    if not weight_decay:
        return grad
    return xp.add(grad, xp.multiply(param, weight_decay))


@register_kernel("sgd_", ALL_BACKENDS, FLOATS)
def sgd_(ctx, param, grad, learning_rate, weight_decay):
    xp = ctx.xp
    xp.subtract(param, xp.multiply(_decayed(xp, param, grad, weight_decay), learning_rate), out=param)
    return param


@register_kernel("momentum_", ALL_BACKENDS, FLOATS)
def momentum_(ctx, param, grad, velocity, learning_rate, momentum, use_nesterov, rescale_grad,
              weight_decay):
    """velocity = momentum * velocity + g; param -= lr * velocity (Nesterov:
    lr * (g + momentum * velocity)), with g the rescaled, decayed gradient."""
    xp = ctx.xp
    g = _decayed(xp, param, grad, weight_decay)
    if rescale_grad != 1.0:
        g = xp.multiply(g, rescale_grad)
    xp.multiply(velocity, momentum, out=velocity)
    xp.add(velocity, g, out=velocity)
    if use_nesterov:
        step = xp.multiply(velocity, momentum)
        xp.add(step, g, out=step)
        xp.multiply(step, learning_rate, out=step)
    else:
        step = xp.multiply(velocity, learning_rate)
    xp.subtract(param, step, out=param)
    return param, velocity


@register_kernel("adam_", ALL_BACKENDS, FLOATS)
def adam_(ctx, param, grad, moment1, moment2, learning_rate, beta1, beta2, epsilon, step,
          weight_decay, decoupled):
    """Adam with Paddle's epsilon (scaled by the bias correction); ``decoupled``
    applies weight decay as AdamW does (param *= 1 - lr * coeff) instead of L2."""
    xp = ctx.xp
    if decoupled and weight_decay:
        xp.multiply(param, 1.0 - learning_rate * weight_decay, out=param)
        g = grad
    else:
        g = _decayed(xp, param, grad, weight_decay)
    scratch = xp.multiply(g, 1.0 - beta1)
    xp.multiply(moment1, beta1, out=moment1)
    xp.add(moment1, scratch, out=moment1)
    xp.multiply(g, g, out=scratch)
    xp.multiply(scratch, 1.0 - beta2, out=scratch)
    xp.multiply(moment2, beta2, out=moment2)
    xp.add(moment2, scratch, out=moment2)
    correction2 = math.sqrt(1.0 - beta2 ** step)
    lr_t = learning_rate * correction2 / (1.0 - beta1 ** step)
    xp.sqrt(moment2, out=scratch)
    xp.add(scratch, epsilon * correction2, out=scratch)
    xp.divide(moment1, scratch, out=scratch)
    xp.multiply(scratch, lr_t, out=scratch)
    xp.subtract(param, scratch, out=param)
    return param, moment1, moment2
