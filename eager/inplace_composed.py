"""Paddle's inplace functions that are compositions of other ops (``logit_``,
``sinc_``, ``gcd_``, ``lcm_``, ``ldexp_``, ``where_``, ``addmm_``, ``renorm_``,
``mod_``, ``floor_mod_``, ``copysign_``)
or that change the dtype of the tensor they write (``cast_``, the comparisons
``equal_`` ... ``greater_equal_`` and ``logical_and_`` / ``_or_`` / ``_xor_`` /
``_not_``),
as functions and Tensor methods.

Each follows the project's inplace rules (docs/autograd.md):

- The result is computed out of place by the recorded ops, from a snapshot of
  the target when gradients are recorded (the ops may save its old values for
  their backward), then written over the target with ``x[...] = result`` (the
  recorded ``setitem_``): the buffer is kept, its version counter moves once, a
  view's base sees the write, and the gradient flows through the ops to the
  target's old history and to the other inputs.
- A leaf that requires grad is refused while gradients are recorded, before
  anything runs; a result that does not have the target's shape (an inplace op
  cannot broadcast its target) or dtype is refused and leaves the target as it was.

A comparison or logical op writes a bool result; as in Paddle (whose inplace
compare kernels set the output's type to BOOL), the target becomes a bool
tensor. A bool target is written in place like any other; a target of another
dtype takes a new bool buffer, keeping its version counter (moved once), and
``cast_`` does the same with the result of ``cast`` (recorded: the gradient
flows back through the cast). Earlier views of the target keep the old buffer,
and while gradients are recorded a target that is, or has, a tracked view is
refused (their histories assume its dtype).

>>> x = eager.to_tensor([1.0, 2.0, 3.0])
>>> x.equal_(eager.to_tensor([1.0, 0.0, 3.0])) is x, x.dtype
(True, paddle.bool)
"""
from __future__ import annotations

import numbers

from phi.common import DataType

from .arguments import as_called, in_called
from .autograd.grad_mode import STATE as _grad_state
from .autograd.inplace import check_inplace_leaf, snapshot
from .autograd.meta import AutogradMeta
from .composite import _paddle_api as _check
from .composite.linalg import addmm, baddbmm, renorm
from .composite.math_binary import copysign, gcd, lcm, ldexp
from .composite.math_unary import logit, multigammaln, sinc
from .generated import forward_api as _F
from .tensor import Tensor

__all__ = ["logit_", "sinc_", "renorm_", "multigammaln_", "baddbmm_", "gcd_", "lcm_", "ldexp_", "copysign_", "mod_",
           "floor_mod_",
           "where_", "addmm_", "cast_",
           "equal_", "not_equal_", "less_than_", "less_equal_", "greater_than_", "greater_equal_",
           "logical_and_", "logical_or_", "logical_xor_", "logical_not_"]

_CAUGHT = (TypeError, ValueError, IndexError)


def _renamed(error: Exception, target: str, op: str) -> Exception:
    """An error of ``target`` (the out-of-place function) reworded to name ``op``."""
    renamed = as_called(error, target, op)
    return renamed if renamed is not error else in_called(error, op)


def _requires_grad(value) -> bool:
    meta = getattr(value, "_meta", None)
    return isinstance(value, Tensor) and meta is not None and not meta.stop_gradient


def _check_shape(op: str, x, out) -> None:
    if out.shape != x.shape:
        raise ValueError(f"{op}: the result has shape {out.shape} but x, written in place, has shape "
                         f"{x.shape}; an inplace op cannot broadcast its target")


def _write(op: str, target: str, x, compute, *others):
    """``compute(x)`` (the out-of-place function ``target``) written over x, recorded."""
    recording = _grad_state.enabled and (_requires_grad(x) or any(map(_requires_grad, others)))
    if recording:
        check_inplace_leaf(op, x)
    try:
        out = compute(snapshot(x) if recording else x)
    except _CAUGHT as error:
        raise _renamed(error, target, op) from None
    _check_shape(op, x, out)
    if out.dtype != x.dtype:
        raise TypeError(f"{op}: the result is {out.dtype} but x, written in place, is {x.dtype}; use the "
                        f"out-of-place {target}")
    x[...] = out
    return x


def _become(op: str, x, out):
    """x takes ``out`` (a result of another dtype) as its value: a new buffer under x's
    version counter (moved once), and while recording ``out``'s history."""
    meta = x._meta
    recording = _grad_state.enabled and meta is not None and not meta.stop_gradient
    if recording and (meta.view is not None or any(ref() is not None for ref in meta.views or ())):
        raise RuntimeError(f"{op}: x is a view of another tensor's buffer or has views tracked for autograd, "
                           f"whose histories assume its dtype {x.dtype}; use the out-of-place op instead")
    impl = x.impl.share_buffer_with(out.impl.array)  # x's version counter over the new buffer
    impl.bump_version()
    x.impl = impl
    if recording:
        out_meta = out._meta
        differentiable = out_meta is not None and not out_meta.stop_gradient
        x._meta = AutogradMeta(out_meta.node, out_meta.slot) if differentiable else None
    return x


# -- compositions written over their target ---------------------------------------------------------

def logit_(x, eps=None, name=None):
    """Inplace :func:`eager.logit`: writes log(x / (1 - x)) into x (clipped to
    [eps, 1 - eps] first when ``eps`` is given) and returns x.

    >>> eager.to_tensor([0.5, 0.75]).logit_().numpy()
    array([0.       , 1.0986123], dtype=float32)
    """
    _check.tensor("logit_", "x", x)
    return _write("logit_", "logit", x, lambda source: logit(source, eps))


def sinc_(x, name=None):
    """Inplace :func:`eager.sinc`: writes sin(pi x) / (pi x) (1 at 0) into x and returns x.

    >>> eager.to_tensor([0.0, 0.5]).sinc_().numpy().round(4)
    array([1.    , 0.6366], dtype=float32)
    """
    _check.tensor("sinc_", "x", x)
    return _write("sinc_", "sinc", x, sinc)


def renorm_(x, p, axis, max_norm, name=None):
    """Inplace :func:`eager.renorm`: each slice of x along ``axis`` whose p-norm
    exceeds ``max_norm`` is scaled down to that norm, in x; returns x.

    >>> eager.to_tensor([[3.0, 4.0], [0.3, 0.4]]).renorm_(2.0, 0, 1.0).numpy().round(4)
    array([[0.6, 0.8],
           [0.3, 0.4]], dtype=float32)
    """
    _check.tensor("renorm_", "x", x)
    return _write("renorm_", "renorm", x, lambda source: renorm(source, p, axis, max_norm))


def multigammaln_(x, p, name=None):
    """Inplace :func:`eager.multigammaln`: writes the log multivariate gamma of x (of
    dimension ``p``) into x and returns x.

    >>> eager.multigammaln_(eager.to_tensor([2.5]), 2).numpy().round(4)
    array([0.857], dtype=float32)
    """
    _check.tensor("multigammaln_", "x", x)
    return _write("multigammaln_", "multigammaln", x, lambda source: multigammaln(source, p))


def baddbmm_(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002  (Paddle's argument name)
    """Inplace :func:`eager.baddbmm`: writes beta * input + alpha * (x @ y) into
    ``input`` ([B, M, N]; x [B, M, K], y [B, K, N]) and returns it.

    >>> out = eager.ones([1, 2, 2])
    >>> eager.baddbmm_(out, eager.ones([1, 2, 3]), eager.ones([1, 3, 2]), 0.5, 2.0).numpy()[0]
    array([[6.5, 6.5],
           [6.5, 6.5]], dtype=float32)
    """
    _check.tensor("baddbmm_", "input", input)
    return _write("baddbmm_", "baddbmm", input, lambda source: baddbmm(source, x, y, beta, alpha), x, y)


def gcd_(x, y, name=None):
    """Inplace :func:`eager.gcd`: writes the greatest common divisor of |x| and |y|
    into x (integers; y broadcasts to x's shape) and returns x.

    >>> eager.to_tensor([12, 9]).gcd_(eager.to_tensor([18, 6])).numpy()
    array([6, 3])
    """
    _check.tensor("gcd_", "x", x)
    return _write("gcd_", "gcd", x, lambda source: gcd(source, y), y)


def lcm_(x, y, name=None):
    """Inplace :func:`eager.lcm`: writes the least common multiple of |x| and |y|
    into x (integers; y broadcasts to x's shape) and returns x.

    >>> eager.to_tensor([4, 6]).lcm_(eager.to_tensor([6, 4])).numpy()
    array([12, 12])
    """
    _check.tensor("lcm_", "x", x)
    return _write("lcm_", "lcm", x, lambda source: lcm(source, y), y)


def ldexp_(x, y, name=None):
    """Inplace :func:`eager.ldexp`: writes x * 2 ** y into x (a floating-point x of
    the result's dtype; y a real tensor broadcasting to x's shape) and returns x.

    >>> eager.to_tensor([1.0, 3.0]).ldexp_(eager.to_tensor([3, -1])).numpy()
    array([8. , 1.5], dtype=float32)
    """
    _check.tensor("ldexp_", "x", x)
    return _write("ldexp_", "ldexp", x, lambda source: ldexp(source, y), y)



def copysign_(x, y, name=None):
    """Inplace :func:`eager.copysign`: writes x's magnitude with y's sign into x
    (y broadcasts to x's shape) and returns x.

    >>> eager.to_tensor([1.5, -2.0]).copysign_(eager.to_tensor([-1.0, 1.0])).numpy()
    array([-1.5,  2. ], dtype=float32)
    """
    _check.tensor("copysign_", "x", x)
    return _write("copysign_", "copysign", x, lambda source: copysign(source, y), y)


def mod_(x, y, name=None):
    """Inplace :func:`eager.mod` (Paddle's alias of ``remainder_``): writes x mod y,
    with the sign of y, into x and returns x.

    >>> eager.to_tensor([5, -5]).mod_(eager.to_tensor([3, 3])).numpy()
    array([2, 1])
    """
    try:
        return _F.remainder_(x, y)
    except _CAUGHT as error:
        raise _renamed(error, "remainder_", "mod_") from None


def floor_mod_(x, y, name=None):
    """Inplace :func:`eager.floor_mod` (Paddle's alias of ``remainder_``): writes
    x mod y, with the sign of y, into x and returns x.

    >>> eager.to_tensor([5.5, -5.5]).floor_mod_(eager.to_tensor([2.0, 2.0])).numpy()
    array([1.5, 0.5], dtype=float32)
    """
    try:
        return _F.remainder_(x, y)
    except _CAUGHT as error:
        raise _renamed(error, "remainder_", "floor_mod_") from None


def where_(condition, x=None, y=None, name=None):
    """Inplace :func:`eager.where`: writes ``x`` where ``condition`` is True and ``y``
    elsewhere into x and returns x. ``condition`` and ``y`` (a Tensor or a Python
    number) broadcast to x's shape. As a Tensor method the tensor is the condition
    (``cond.where_(x, y)``), as in Paddle.

    >>> x = eager.to_tensor([1.0, 2.0, 3.0])
    >>> eager.where_(x > 1.5, x, 0.0).numpy()
    array([0., 2., 3.], dtype=float32)
    """
    _check.tensor("where_", "condition", condition)
    _check.tensor("where_", "x", x)
    if isinstance(y, numbers.Number) and not isinstance(y, Tensor):
        y = _F.full([], y, x.dtype, x.place)
    _check.tensor("where_", "y", y)
    return _write("where_", "where", x, lambda source: _F.where(condition, source, y), condition, y)


def addmm_(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002  (Paddle's argument name)
    """Inplace :func:`eager.addmm`: writes beta * input + alpha * (x @ y) into
    ``input`` ([M, N]; x [M, K], y [K, N]) and returns it.

    >>> eager.ones([2, 2]).addmm_(eager.ones([2, 3]), eager.ones([3, 2]), beta=0.5, alpha=2.0).numpy()
    array([[6.5, 6.5],
           [6.5, 6.5]], dtype=float32)
    """
    _check.tensor("addmm_", "input", input)
    return _write("addmm_", "addmm", input, lambda source: addmm(source, x, y, beta, alpha), x, y)


# -- results of another dtype: cast_, comparisons, logical ops ------------------------------------

def cast_(x, dtype):
    """Inplace :func:`eager.cast`: x takes dtype ``dtype`` (its values converted) and
    is returned. Differentiable between floating dtypes, as ``cast``.

    >>> x = eager.to_tensor([1.5, 2.5])
    >>> x.cast_("int32") is x, x.numpy()
    (True, array([1, 2], dtype=int32))
    """
    _check.tensor("cast_", "x", x)
    if _grad_state.enabled:
        check_inplace_leaf("cast_", x)
    try:
        out = _F.cast(x, dtype)
    except _CAUGHT as error:
        raise _renamed(error, "cast", "cast_") from None
    if out.dtype == x.dtype:
        return x  # nothing to convert
    return _become("cast_", x, out)


def _to_bool(op: str, target: str, function, x, *y):
    """A comparison's or logical op's bool result written into x (x becomes bool);
    ``y`` is the other operand, none for ``logical_not_``."""
    _check.tensor(op, "x", x)
    if y:
        _check.tensor(op, "y", y[0])
    if _grad_state.enabled:
        check_inplace_leaf(op, x)
    try:
        out = function(x, *y)
    except _CAUGHT as error:
        raise _renamed(error, target, op) from None
    _check_shape(op, x, out)
    if x.dtype == out.dtype:
        x[...] = out
        return x
    return _become(op, x, out)


def equal_(x, y, name=None):
    """Inplace :func:`eager.equal`: x becomes the bool tensor x == y (y broadcasts to
    x's shape) and is returned.

    >>> x = eager.to_tensor([1, 2, 3])
    >>> x.equal_(eager.to_tensor([1, 0, 3])).numpy()
    array([ True, False,  True])
    """
    return _to_bool("equal_", "equal", _F.equal, x, y)


def not_equal_(x, y, name=None):
    """Inplace :func:`eager.not_equal`: x becomes the bool tensor x != y and is returned.

    >>> eager.to_tensor([1, 2]).not_equal_(eager.to_tensor([1, 0])).numpy()
    array([False,  True])
    """
    return _to_bool("not_equal_", "not_equal", _F.not_equal, x, y)


def less_than_(x, y, name=None):
    """Inplace :func:`eager.less_than`: x becomes the bool tensor x < y and is returned.

    >>> eager.to_tensor([1, 2]).less_than_(eager.to_tensor([2, 2])).numpy()
    array([ True, False])
    """
    return _to_bool("less_than_", "less_than", _F.less_than, x, y)


def less_equal_(x, y, name=None):
    """Inplace :func:`eager.less_equal`: x becomes the bool tensor x <= y and is returned.

    >>> eager.to_tensor([1, 3]).less_equal_(eager.to_tensor([2, 2])).numpy()
    array([ True, False])
    """
    return _to_bool("less_equal_", "less_equal", _F.less_equal, x, y)


def greater_than_(x, y, name=None):
    """Inplace :func:`eager.greater_than`: x becomes the bool tensor x > y and is returned.

    >>> eager.to_tensor([1, 3]).greater_than_(eager.to_tensor([2, 2])).numpy()
    array([False,  True])
    """
    return _to_bool("greater_than_", "greater_than", _F.greater_than, x, y)


def greater_equal_(x, y, name=None):
    """Inplace :func:`eager.greater_equal`: x becomes the bool tensor x >= y and is returned.

    >>> eager.to_tensor([1, 2]).greater_equal_(eager.to_tensor([2, 2])).numpy()
    array([False,  True])
    """
    return _to_bool("greater_equal_", "greater_equal", _F.greater_equal, x, y)


def logical_and_(x, y, name=None):
    """Inplace :func:`eager.logical_and`: x becomes the bool tensor x AND y (non-zero
    is True) and is returned.

    >>> eager.to_tensor([True, False]).logical_and_(eager.to_tensor([True, True])).numpy()
    array([ True, False])
    """
    return _to_bool("logical_and_", "logical_and", _F.logical_and, x, y)


def logical_or_(x, y, name=None):
    """Inplace :func:`eager.logical_or`: x becomes the bool tensor x OR y and is returned.

    >>> eager.to_tensor([True, False]).logical_or_(eager.to_tensor([False, False])).numpy()
    array([ True, False])
    """
    return _to_bool("logical_or_", "logical_or", _F.logical_or, x, y)


def logical_xor_(x, y, name=None):
    """Inplace :func:`eager.logical_xor`: x becomes the bool tensor x XOR y and is returned.

    >>> eager.to_tensor([True, False]).logical_xor_(eager.to_tensor([True, True])).numpy()
    array([False,  True])
    """
    return _to_bool("logical_xor_", "logical_xor", _F.logical_xor, x, y)


def logical_not_(x, name=None):
    """Inplace :func:`eager.logical_not`: x becomes the bool tensor NOT x (non-zero
    is True) and is returned.

    >>> x = eager.to_tensor([0.0, 2.5])
    >>> x.logical_not_().numpy(), x.dtype
    (array([ True, False]), paddle.bool)
    """
    if isinstance(x, Tensor) and x.dtype is DataType.BOOL:
        return _F.logical_not_(x)  # the kernel writes into x's own buffer
    return _to_bool("logical_not_", "logical_not", _F.logical_not, x)


# Paddle's Tensor methods for all of these (x.equal_(y), cond.where_(x, y)). Attached here, as
# eager.linalg attaches its own, because eager.tensor_api, which attaches the others, is loaded
# by the generated code this module imports, before this module is (eager.api imports it).
for _name in __all__:
    setattr(Tensor, _name, globals()[_name])
del _name
