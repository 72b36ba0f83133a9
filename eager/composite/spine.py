"""Composite rules of the first ops (arithmetic, activations, reductions, shape,
indexing, losses) and the helpers every group's rules share.

With ``create_graph=True`` a grad node calls these instead of its backward
kernel, so the gradient it returns is itself recorded and can be differentiated
again, to any order. Each rule is a few lines next to its name, as in JAX's
``lax.py``. A rule may be given ``None`` for a gradient that never came
(an ``optional`` argument) and returns None for an output it cannot reach.

Arguments listed in ``no_need_buffer`` arrive as shape-only tensors: only their
``shape`` and ``dtype`` may be read.
"""
from __future__ import annotations

from phi.common import DataType
from phi.common.shape_rules import broadcast_axes, inverse_permutation, reduced_axes

from ..generated import forward_api as _F


def conj_if_complex(t):
    """conj(t) for a complex t, and t itself when real (conj would copy it): the
    factor a complex gradient takes, out_grad times the conjugate derivative, which
    is Paddle's convention (and torch's)."""
    return _F.conj(t) if t.dtype.is_complex else t


def exactly_equal(x, y):
    """x == y elementwise compared exactly. The op ``equal`` follows Paddle's, which
    takes float32/float64 values less than 1e-8 apart as equal; the rules built on a
    comparison here (max's gradient, frexp, unique_consecutive) stand for Paddle C++
    kernels that compare exactly. NaN equals nothing, an infinity itself."""
    if x.dtype is DataType.FLOAT32 or x.dtype is DataType.FLOAT64:
        return _F.logical_and(_F.less_equal(x, y), _F.greater_equal(x, y))
    return _F.equal(x, y)


def sum_to_shape(grad, shape):
    """Sums grad over the axes it was broadcast along to reach ``shape`` (the same
    axes the kernels sum over: phi.common.shape_rules.broadcast_axes)."""
    shape = list(shape)
    if grad.shape == shape:
        return grad
    return reshape_exactly(_F.sum(grad, list(broadcast_axes(grad.shape, shape)), grad.dtype, False), shape)


def reshape_exactly(grad, shape):
    """grad reshaped to exactly ``shape``, which may hold zeros.

    _F.reshape reads a 0 in the shape as "copy the input's dimension here"
    (Paddle), so it cannot make an empty tensor whose zeros sit elsewhere; an
    empty result is the 0-d sum of grad broadcast to ``shape``, which keeps it
    connected to grad for higher derivatives. (The composite rules and the
    nn functions that reshape what may be empty share it.)
    """
    shape = list(shape)
    if 0 not in shape:
        return _F.reshape(grad, shape)
    return _broadcast_like(_F.sum(grad, [], grad.dtype, False), shape)


def _broadcast_like(grad, shape):
    """grad broadcast up to ``shape`` (differentiable in grad)."""
    if grad.shape == list(shape):
        return grad
    return _F.expand(grad, list(shape))


def _plus(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return _F.add(a, b)


def add_grad(x, y, out_grad):
    return sum_to_shape(out_grad, x.shape), sum_to_shape(out_grad, y.shape)


def subtract_grad(x, y, out_grad):
    return sum_to_shape(out_grad, x.shape), sum_to_shape(_F.scale(out_grad, -1.0, 0.0, True), y.shape)


def divide_grad(x, y, out, out_grad):
    # out_grad / conj(y) and -out_grad * conj(x / y^2): the conjugates for complex
    # operands, as the kernel (Paddle's convention)
    y_conj = conj_if_complex(y)
    x_grad = sum_to_shape(_F.divide(out_grad, y_conj), x.shape)
    y_grad = sum_to_shape(_F.scale(_F.divide(_F.multiply(out_grad, conj_if_complex(x)), _F.multiply(y_conj, y_conj)),
                                   -1.0, 0.0, True), y.shape)
    return x_grad, y_grad


def pow_grad(x, out_grad, y):
    if y == 0:
        return _F.full_like(x, 0, None)
    return _F.multiply(out_grad, conj_if_complex(_F.scale(_F.pow(x, y - 1), y, 0.0, True)))


def scale_grad(out_grad, scale):
    if type(scale) is complex:  # out_grad times the conjugate derivative (Paddle's convention)
        scale = scale.conjugate()
    return _F.scale(out_grad, scale, 0.0, True)


def bilinear_double_grad(forward, grad_op, x, y, grad_out, grad_x_grad, grad_y_grad, *attrs):
    """The derivative of ``grad_op``, the gradient of a bilinear ``forward(x, y)``
    (backward.yaml ``bilinear``; JAX's ``defbilinear``).

    grad_op gives (d/dx, d/dy) of <grad_out, forward(x, y)>; each is linear in
    grad_out and in the other input, so its derivative is grad_op itself with an
    input swapped for the incoming gradient, plus forward for the grad_out term.
    Every call records, so the result differentiates again, to any order.
    """
    x_grad = y_grad = grad_out_grad = None
    if grad_y_grad is not None:
        x_grad = grad_op(x, grad_y_grad, grad_out, *attrs, out_mask=(True, False))[0]
        grad_out_grad = forward(x, grad_y_grad, *attrs)
    if grad_x_grad is not None:
        y_grad = grad_op(grad_x_grad, y, grad_out, *attrs, out_mask=(False, True))[1]
        grad_out_grad = _plus(grad_out_grad, forward(grad_x_grad, y, *attrs))
    return x_grad, y_grad, grad_out_grad


def relu_grad(out, out_grad):
    return _F.where(_F.greater_than(out, _F.full_like(out, 0, None)), out_grad, _F.full_like(out_grad, 0, None))


# The double grads below differentiate grad_x = grad_out * conj(h(out)) (h real-valued
# on real tensors, where every conj is the identity): grad_out_grad = grad_x_grad * h(out)
# and out_grad = conj(grad_x_grad) * grad_out * conj(h'(out)), Paddle's convention for
# complex tensors (the first-order kernels take the conjugate derivative).

def tanh_double_grad(out, grad_out, grad_x_grad):
    # grad_x = grad_out * conj(1 - out^2)
    out_grad = _F.scale(_F.multiply(_F.multiply(conj_if_complex(grad_x_grad), grad_out), conj_if_complex(out)),
                        -2.0, 0.0, True)
    grad_out_grad = _F.multiply(grad_x_grad, _F.scale(_F.multiply(out, out), -1.0, 1.0, True))
    return out_grad, grad_out_grad


def sigmoid_double_grad(out, grad_out, grad_x_grad):
    # grad_x = grad_out * conj(out * (1 - out))
    out_grad = _F.multiply(_F.multiply(conj_if_complex(grad_x_grad), grad_out),
                           conj_if_complex(_F.scale(out, -2.0, 1.0, True)))
    grad_out_grad = _F.multiply(grad_x_grad, _F.multiply(out, _F.scale(out, -1.0, 1.0, True)))
    return out_grad, grad_out_grad


def exp_double_grad(out, grad_out, grad_x_grad):
    # grad_x = grad_out * conj(out)
    return _F.multiply(conj_if_complex(grad_x_grad), grad_out), _F.multiply(grad_x_grad, out)


def log_grad(x, out_grad):
    return _F.divide(out_grad, conj_if_complex(x))


def sum_grad(x, out_grad, axis, keepdim):
    # A sum with a dtype (or an integer sum, which widens) hands back a gradient
    # of another dtype than x's.
    grad = out_grad if out_grad.dtype == x.dtype else _F.cast(out_grad, x.dtype)
    return _broadcast_like(_keep_reduced_dims(grad, x.shape, axis), x.shape)


def mean_grad(x, out_grad, axis, keepdim):
    count = 1
    for a in reduced_axes(len(x.shape), axis):
        count *= x.shape[a]
    scaled = _F.scale(out_grad, 1.0 / count if count else float("nan"), 0.0, True)
    return _broadcast_like(_keep_reduced_dims(scaled, x.shape, axis), x.shape)


def _keep_reduced_dims(grad, shape, axis):
    axes = reduced_axes(len(shape), axis)
    return reshape_exactly(grad, [1 if i in axes else d for i, d in enumerate(shape)])


def reshape_grad(x, out_grad):
    return reshape_exactly(out_grad, x.shape)


def transpose_grad(out_grad, perm):
    return _F.transpose(out_grad, inverse_permutation(perm))


def cast_grad(x, out_grad):
    return _F.cast(out_grad, x.dtype)


def getitem_double_grad(grad_x_grad, index):
    # getitem_grad scatters out_grad into zeros; its derivative gathers again.
    return _F.getitem(grad_x_grad, index)


def setitem_grad(value, out_grad, index):
    x_grad = _F.setitem(out_grad, _F.full(value.shape, 0, out_grad.dtype, out_grad.place), index)
    value_grad = sum_to_shape(_F.getitem(out_grad, index), value.shape)
    return x_grad, value_grad


def concat_grad(x, out_grad, axis):
    return _F.split(out_grad, [t.shape[axis] for t in x], axis)


def stack_grad(x, out_grad, axis):
    return _F.unbind(out_grad, axis)


def split_grad(out_grad, axis):
    return _F.concat(out_grad, axis)


def unbind_grad(out_grad, axis):
    return _F.stack(out_grad, axis)


def assign_grad(out_grad):
    return out_grad


def expand_grad(x, out_grad, shape):
    return sum_to_shape(out_grad, x.shape)


def where_grad(condition, x, y, out_grad):
    zeros = _F.full_like(out_grad, 0, None)
    return (sum_to_shape(_F.where(condition, out_grad, zeros), x.shape),
            sum_to_shape(_F.where(condition, zeros, out_grad), y.shape))


def sign_grad(x, out_grad):
    return _F.full_like(out_grad, 0, None)


def maximum_grad(x, y, out_grad):
    # Paddle's rule: to x where x > y, to y elsewhere (ties go to y).
    return where_grad(_F.greater_than(x, y), x, y, out_grad)


def minimum_grad(x, y, out_grad):
    return where_grad(_F.less_than(x, y), x, y, out_grad)


def softmax_grad(out, out_grad, axis):
    return softmax_grad_rule(out, out_grad, axis)


def softmax_grad_rule(out, out_grad, axis):
    """out * (g - sum(g * out)): the gradient through a softmax, given its output."""
    return _F.multiply(out, _F.subtract(out_grad, _F.sum(_F.multiply(out_grad, out), [axis], None, True)))


def log_softmax_grad(out, out_grad, axis):
    return _F.subtract(out_grad, _F.multiply(_F.exp(out), _F.sum(out_grad, [axis], None, True)))


def cross_entropy_with_softmax_grad(label, softmax, softmax_grad, loss_grad, soft_label, use_softmax,
                                    numeric_stable_mode, ignore_index, axis):
    grad = _cross_entropy_loss_grad(label, softmax, loss_grad, soft_label, use_softmax, ignore_index, axis)
    if softmax_grad is None:
        return grad
    if use_softmax:
        return _F.add(grad, softmax_grad_rule(softmax, softmax_grad, axis))
    return _F.add(grad, softmax_grad)


def _cross_entropy_loss_grad(label, softmax, loss_grad, soft_label, use_softmax, ignore_index, axis):
    if soft_label:
        target, weight = label, loss_grad
    else:
        valid = _F.not_equal(label, _F.full_like(label, ignore_index, None))
        safe = _F.where(valid, label, _F.full_like(label, 0, None))
        target = _one_hot_along(safe, softmax.shape[axis], axis, softmax.dtype)
        weight = _F.multiply(loss_grad, _F.cast(valid, loss_grad.dtype))
    if use_softmax:
        return _F.multiply(_F.subtract(softmax, target), weight)
    zeros = _F.full_like(softmax, 0, None)
    has_mass = _F.not_equal(target, zeros)
    ratio = _F.divide(target, _F.where(has_mass, softmax, _F.full_like(softmax, 1, None)))
    return _F.where(has_mass, _F.scale(_F.multiply(ratio, weight), -1.0, 0.0, True), zeros)


def _one_hot_along(label, classes, axis, dtype):
    """Integer labels with a size-1 class axis as one-hot vectors along that axis."""
    ndim = len(label.shape)
    axis %= ndim
    hot = _F.cast(_F.one_hot(_F.squeeze(label, [axis]), classes), dtype)  # classes last
    perm = list(range(axis)) + [ndim - 1] + list(range(axis, ndim - 1))
    return _F.transpose(hot, perm) if axis != ndim - 1 else hot


def sigmoid_cross_entropy_with_logits_grad(x, label, pos_weight, out_grad, normalize, ignore_index):
    # d loss / dx = (1 - z) - c * sigmoid(-x), c = 1 + (p - 1) z
    coeff = _F.full_like(x, 1, None) if pos_weight is None else _F.scale(
        _F.multiply(_F.scale(pos_weight, 1.0, -1.0, True), label), 1.0, 1.0, True)
    grad = _F.subtract(_F.scale(label, -1.0, 1.0, True), _F.multiply(coeff, _F.sigmoid(_F.scale(x, -1.0, 0.0, True))))
    valid = _F.not_equal(label, _F.full_like(label, ignore_index, None))
    grad = _F.where(valid, _F.multiply(grad, out_grad), _F.full_like(grad, 0, None))
    if normalize:
        count = _F.sum(_F.cast(valid, x.dtype), [], None, False)
        grad = _F.divide(grad, _F.maximum(count, _F.full_like(count, 1, None)))
    return grad

