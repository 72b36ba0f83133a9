"""Paddle's ``swiglu`` and ``fused_dropout_add``, composed of silu, multiply,
split, dropout and add."""
from __future__ import annotations

from ....composite._paddle_api import composed_in
from ....generated import forward_api as _F
from ....nn import functional as F
from . import _checks

_composed = composed_in(_checks.NAMESPACE)


@_composed
def swiglu(x, y=None, name=None):
    """``silu(x) * y``; with y None, x's last axis is split in two halves
    ``(a, b)`` and the result is ``silu(a) * b``.

    >>> eager.incubate.nn.functional.swiglu(eager.to_tensor([0.0, 2.0])).numpy()
    array([0.], dtype=float32)
    """
    fn = "swiglu"
    _checks.floating(fn, "x", x)
    if y is None:
        if not x.ndim or x.shape[-1] % 2:
            raise ValueError(f"{_checks.who(fn)}: argument 'x' expected an even last dimension when y is None, "
                             f"got shape {x.shape}")
        x, y = _F.split(x, 2, -1)
    else:
        _checks.like(fn, "y", y, x, shape=x.shape, optional=False)
    return _F.multiply(F.silu(x), y)


@_composed
def fused_dropout_add(x, y, p=0.5, training=True, mode="upscale_in_train", name=None):
    """``dropout(x, p, training, mode) + y``.

    >>> x, y = eager.ones([2]), eager.ones([2])
    >>> eager.incubate.nn.functional.fused_dropout_add(x, y, p=0.5, training=False).numpy()
    array([2., 2.], dtype=float32)
    """
    fn = "fused_dropout_add"
    _checks.floating(fn, "x", x)
    _checks.like(fn, "y", y, x, shape=x.shape, optional=False)
    p = _checks.rate(fn, "p", p)
    _checks.flag(fn, "training", training)
    _checks.mode(fn, mode)
    return _F.add(F.dropout(x, p, training=training, mode=mode), y)


__all__ = ["fused_dropout_add", "swiglu"]
