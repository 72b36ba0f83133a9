"""Paddle's inplace shape changes: ``reshape_``, ``squeeze_``, ``unsqueeze_``,
``flatten_``, ``transpose_`` and ``t_`` (functions and Tensor methods).

The tensor itself takes the new shape and keeps its buffer and version counter:
its ``impl`` becomes the out-of-place op's view of the same buffer, and while
gradients are recorded its history becomes that op's (the gradient flows back
through the reshape to the tensor's old history). As every inplace op, it moves
the version counter: a graph that saved the tensor in its old shape refuses to
run backward through it (as Paddle's inplace check does), rather than read it
in the new shape.

Refused while recording, with a clear error: a leaf that requires grad (as
every inplace op refuses it), and a tensor that is a tracked view of another or
has tracked views (their replays assume the old shape); use ``x = x.reshape(...)``.

>>> x = eager.zeros([2, 3])
>>> x.reshape_([3, 2]) is x, x.shape
(True, [3, 2])
"""
from __future__ import annotations

from .autograd.grad_mode import STATE as _grad_state
from .autograd.inplace import check_inplace_leaf
from .autograd.meta import AutogradMeta
from .composite import _paddle_api as _check
from .generated import forward_api as _F
from .tensor import Tensor

__all__ = ["reshape_", "squeeze_", "unsqueeze_", "flatten_", "transpose_", "t_"]


def _take_shape(op: str, x, out_of_place, *args):
    _check.tensor(op, "x", x)
    meta = x._meta
    recording = _grad_state.enabled and meta is not None and not meta.stop_gradient
    if recording:
        check_inplace_leaf(op, x)
        if meta.view is not None or any(ref() is not None for ref in meta.views or ()):
            raise RuntimeError(f"{op}: x is a view of another tensor's buffer or has views tracked for "
                               f"autograd, whose histories assume its current shape {x.shape}; use the "
                               f"out-of-place x = x.{op[:-1]}(...) instead")
    try:
        out = out_of_place(x, *args)
    except (TypeError, ValueError, IndexError) as error:
        text = str(error)
        stem = op[:-1] + ": "
        raise type(error)(op + ": " + text[len(stem):] if text.startswith(stem) else f"{op}: {text}") from None
    out.impl.replaces(x.impl)  # a copy (t_ of a 2-d x) continues x's version count
    x.impl = out.impl
    if recording:
        x._meta = AutogradMeta(out._meta.node, out._meta.slot)
    return x


def reshape_(x, shape, name=None):
    """Gives x the shape ``shape`` in place (as :func:`eager.reshape`: one entry may
    be -1, a 0 copies x's size there) and returns x.

    >>> eager.reshape_(eager.zeros([6]), [2, -1]).shape
    [2, 3]
    """
    return _take_shape("reshape_", x, _F.reshape, shape)


def squeeze_(x, axis=None, name=None):
    """Removes x's size-1 axes (all, or those in ``axis``) in place and returns x.

    >>> eager.zeros([1, 3, 1]).squeeze_().shape
    [3]
    """
    return _take_shape("squeeze_", x, _F.squeeze, axis)


def unsqueeze_(x, axis, name=None):
    """Inserts size-1 axes at ``axis`` (an int or a list) in place and returns x.

    >>> eager.zeros([3]).unsqueeze_(0).shape
    [1, 3]
    """
    return _take_shape("unsqueeze_", x, _F.unsqueeze, axis)


def flatten_(x, start_axis=0, stop_axis=-1, name=None):
    """Merges axes start_axis..stop_axis into one in place and returns x.

    >>> eager.zeros([2, 3, 4]).flatten_(1).shape
    [2, 12]
    """
    return _take_shape("flatten_", x, _F.flatten, start_axis, stop_axis)


def transpose_(x, perm, name=None):
    """Permutes x's axes by ``perm`` in place (as :func:`eager.transpose`) and returns x.

    >>> eager.zeros([2, 3, 4]).transpose_([2, 0, 1]).shape
    [4, 2, 3]
    """
    return _take_shape("transpose_", x, _F.transpose, perm)


def t_(input, name=None):  # noqa: A002  (Paddle's argument name)
    """Transposes a 2-d tensor in place (a 0-d or 1-d one stays as it is, as
    :func:`eager.t`) and returns it.

    >>> eager.zeros([2, 3]).t_().shape
    [3, 2]
    """
    return _take_shape("t_", input, _F.t)


def install() -> None:
    """Attaches the functions above as Tensor methods (idempotent). The module attaches
    its own so that eager.tensor_api need not import it: importing either first must work."""
    for name in __all__:
        setattr(Tensor, name, globals()[name])


install()
