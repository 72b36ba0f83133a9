"""Gradient clipping (Paddle's ``paddle.nn.ClipGradByValue``, ``ClipGradByNorm``,
``ClipGradByGlobalNorm``), passed to an optimizer as ``grad_clip``.

Each is called with ``[(param, grad), ...]`` and returns the list with clipped
gradients. They are computed with ops under no_grad and never read a value on
the host, so a GPU step does not wait; ``param.grad`` itself is left as it is.
A parameter whose ``need_clip`` is False is passed through unchanged.

>>> clip = eager.nn.ClipGradByGlobalNorm(clip_norm=1.0)
>>> opt = eager.optimizer.SGD(0.1, parameters=net.parameters(), grad_clip=clip)
"""
from __future__ import annotations

import abc
import math
import numbers

from phi import api as phi_api
from phi.common import DataType, TensorKind

from ..autograd.grad_mode import no_grad
from ..arguments import describe
from ..errors import static_graph_missing
from ..generated import forward_api as _F
from ..tensor import Tensor
from .functional.checks import check_float


def _check_positive(who: str, arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            value > 0 and math.isfinite(value)):
        raise ValueError(f"{who}: argument '{arg}' expected a positive finite float, got {value!r}")
    return float(value)


def _clippable(param) -> bool:
    return getattr(param, "need_clip", True)


def _squared_norm(grad, dtype=None):
    """sum(grad ** 2) as a 0-d tensor, computed in ``dtype`` when given (float32
    for a float16 gradient, whose squares overflow from 256 on)."""
    if dtype is not None and grad.dtype is not dtype:
        grad = _F.cast(grad, dtype)
    return _F.sum(_F.multiply(grad, grad), [], None, False)


def clip_by_norm(x, max_norm: float, name=None):
    """``x`` scaled down so that its L2 norm (over all elements) is at most
    ``max_norm``: ``x * max_norm / max(norm(x), max_norm)``; a tensor already
    within the bound comes back with the same values. As Paddle's
    ``paddle.nn.clip.clip_by_norm``, but differentiable (composed of ops). A
    float16 or bfloat16 tensor's norm is summed in float32.

    >>> x = eager.to_tensor([[3.0, 0.0], [0.0, 4.0]])
    >>> eager.nn.clip.clip_by_norm(x, max_norm=1.0).numpy().tolist()
    [[0.6000000238418579, 0.0], [0.0, 0.800000011920929]]
    """
    check_float("clip_by_norm", "x", x)
    max_norm = _check_positive("clip_by_norm", "max_norm", max_norm)
    wide = DataType.FLOAT32 if x.dtype in (DataType.FLOAT16, DataType.BFLOAT16) else None
    norm = _F.pow(_squared_norm(x, wide), 0.5)
    limit = _F.full_like(norm, max_norm, None)
    scale = _F.divide(limit, _F.maximum(norm, limit))
    return _F.multiply(x, scale if wide is None else _F.cast(scale, x.dtype))


def _check_selected_rows(who: str, x) -> None:
    if not isinstance(x, Tensor) or x.impl.kind is not TensorKind.SELECTED_ROWS:
        got = f"a {x.impl.kind.name} tensor" if isinstance(x, Tensor) else describe(x)
        raise TypeError(f"{who}: argument 'x' expected a SelectedRows tensor (such as the gradient of "
                        f"Embedding(sparse=True)'s weight), got {got}")


def merge_selected_rows(x, name=None):
    """A SelectedRows tensor (a sparse gradient: rows, their values, a height)
    with each row stored once, in increasing order, repeated rows summed (Paddle's
    ``paddle.nn.clip.merge_selected_rows``). The dense values it stands for are
    unchanged. Not differentiable.

    >>> emb = eager.nn.Embedding(10, 2, sparse=True)
    >>> emb(eager.to_tensor([3, 1, 3])).sum().backward()
    >>> eager.nn.clip.merge_selected_rows(emb.weight.grad).impl.rows.tolist()
    [1, 3]
    """
    _check_selected_rows("merge_selected_rows", x)
    return Tensor(phi_api.merge_selected_rows(x.impl))


def get_tensor_from_selected_rows(x, name=None):
    """A copy of the value block a SelectedRows tensor stores: one row per stored
    row index, in stored order (Paddle's
    ``paddle.nn.clip.get_tensor_from_selected_rows``); the dense tensor it stands
    for is what ``x.numpy()`` gives. Not differentiable.

    >>> emb = eager.nn.Embedding(10, 2, sparse=True)
    >>> emb(eager.to_tensor([3, 1, 3])).sum().backward()
    >>> eager.nn.clip.get_tensor_from_selected_rows(emb.weight.grad).shape
    [3, 2]
    """
    _check_selected_rows("get_tensor_from_selected_rows", x)
    return Tensor(phi_api.assign(x.impl.value))


def _checked_pairs(who: str, params_grads) -> list:
    """params_grads as a list of (param, grad) pairs, grad None or a floating-point Tensor,
    or a TypeError naming the clip. Only a direct call checks: the optimizer's pairs
    (ClipGradBase._one_by_one) are well formed by construction."""
    try:
        pairs = [tuple(pair) for pair in params_grads]
    except TypeError:
        raise TypeError(f"{who}: argument 'params_grads' expected a list of (param, grad) pairs, got "
                        f"{describe(params_grads)}") from None
    for pair in pairs:
        if len(pair) != 2:
            raise TypeError(f"{who}: argument 'params_grads' expected (param, grad) pairs, got one of "
                            f"{len(pair)} items")
        grad = pair[1]
        if grad is not None and not (isinstance(grad, Tensor) and grad.dtype.is_floating_point):
            got = f"{grad.dtype} Tensor" if isinstance(grad, Tensor) else describe(grad)
            raise TypeError(f"{who}: argument 'params_grads' expected gradients that are None or "
                            f"floating-point Tensors, got {got}")
    return pairs


def _lists_each(method):
    """Marks a built-in ``_dygraph_clip`` that is ``list(self._each(...))``, so
    the optimizer may take the pairs one at a time (see ClipGradBase._one_by_one)."""
    method.lists_each = True
    return method


class ClipGradBase(abc.ABC):
    """Base class of the gradient clips an optimizer accepts as ``grad_clip``:
    called with ``[(param, grad), ...]``, returns the list with the clipped
    gradients (new tensors; parameters with ``need_clip=False`` pass through,
    pairs whose gradient is None are left out, as Paddle's clips do)."""

    def __call__(self, params_grads):
        pairs = _checked_pairs(type(self).__name__, params_grads)
        return self._dygraph_clip([pair for pair in pairs if pair[1] is not None])

    def _one_by_one(self, params_grads):
        """The clipped pairs as an iterator. For the built-in clips each clipped
        gradient is made when the optimizer asks for it, after the previous
        parameter's update, so a step holds one clipped gradient at a time
        instead of all of them (the same values: a clip reads only gradients,
        and the global norm is summed before the first pair is given). A clip
        that overrides ``__call__`` or ``_dygraph_clip`` is called as it is."""
        cls = type(self)
        if cls.__call__ is ClipGradBase.__call__ and getattr(cls._dygraph_clip, "lists_each", False):
            return self._each(params_grads)
        return iter(self(params_grads))

    @abc.abstractmethod
    def _dygraph_clip(self, params_grads):
        """The clipped list (see the class doc)."""


class ClipGradByValue(ClipGradBase):
    """Clips every gradient element into [min, max] (min defaults to -max)."""

    def __init__(self, max: float, min: float | None = None):
        if max is None:
            raise TypeError("ClipGradByValue: argument 'max' expected a finite float, got None")
        for arg, value in (("max", max), ("min", min)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                                      or not math.isfinite(value)):
                raise ValueError(f"ClipGradByValue: argument '{arg}' expected a finite float, got {value!r}")
        low = -float(max) if min is None else float(min)
        if low > float(max):
            raise ValueError(f"ClipGradByValue: min {low} is greater than max {float(max)}")
        self.max, self.min = float(max), low

    @_lists_each
    def _dygraph_clip(self, params_grads):
        return list(self._each(params_grads))

    def _each(self, params_grads):
        for param, grad in params_grads:
            if grad is not None and _clippable(param):
                with no_grad():  # one clip op, as Paddle's ClipGradByValue (not four)
                    grad = _F.clip(grad, self.min, self.max)
            yield param, grad

    def __repr__(self):
        return f"ClipGradByValue(max={self.max}, min={self.min})"


class ClipGradByNorm(ClipGradBase):
    """Scales each gradient whose L2 norm exceeds ``clip_norm`` down to that norm."""

    def __init__(self, clip_norm: float):
        self.clip_norm = _check_positive("ClipGradByNorm", "clip_norm", clip_norm)

    @_lists_each
    def _dygraph_clip(self, params_grads):
        return list(self._each(params_grads))

    def _each(self, params_grads):
        for param, grad in params_grads:
            if grad is not None and _clippable(param):
                with no_grad():
                    grad = clip_by_norm(grad, self.clip_norm)
            yield param, grad

    def __repr__(self):
        return f"ClipGradByNorm(clip_norm={self.clip_norm})"


class ClipGradByGlobalNorm(ClipGradBase):
    """Scales all gradients together so that their joint L2 norm is at most
    ``clip_norm``: each becomes grad * clip_norm / max(global_norm, clip_norm).

    The norm is summed in float64 when any gradient is float64, else in float32
    (float16 gradients included, as Paddle does). ``auto_skip_clip=True`` in
    Paddle skips the multiply when the norm is within bounds, which needs the
    norm on the host; the scale is then exactly 1, so here the multiply always
    runs and no step waits for the device.
    """

    def __init__(self, clip_norm: float, group_name: str = "default_group", auto_skip_clip: bool = False):
        self.clip_norm = _check_positive("ClipGradByGlobalNorm", "clip_norm", clip_norm)
        if not isinstance(group_name, str):
            raise TypeError(f"ClipGradByGlobalNorm: argument 'group_name' expected a str, got "
                            f"{group_name!r}")
        if not isinstance(auto_skip_clip, bool):
            raise TypeError(f"ClipGradByGlobalNorm: argument 'auto_skip_clip' expected a bool, got "
                            f"{auto_skip_clip!r}")
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    @_lists_each
    def _dygraph_clip(self, params_grads):
        return list(self._each(params_grads))

    # Whether a step with no gradient to clip skips the norm (a subclass whose norm is a
    # collective sets False: every rank must join it).
    _skip_when_empty = True

    def _each(self, params_grads):
        params_grads = list(params_grads)
        clipped = [(param, grad) for param, grad in params_grads if grad is not None and _clippable(param)]
        if not clipped and self._skip_when_empty:
            yield from params_grads
            return
        with no_grad():
            wide = DataType.FLOAT64 if any(g.dtype is DataType.FLOAT64 for _, g in clipped) else DataType.FLOAT32
            norm = _F.pow(self._squared_total(clipped, wide), 0.5)
            limit = _F.full_like(norm, self.clip_norm, None)
            scale = _F.divide(limit, _F.maximum(norm, limit))
        del clipped
        for param, grad in params_grads:
            if grad is not None and _clippable(param):
                with no_grad():
                    grad = _F.multiply(grad, _F.cast(scale, grad.dtype))
            yield param, grad

    @staticmethod
    def _squared_total(clipped, wide):
        """The sum of the squared norms of the (param, grad) pairs' gradients, in ``wide``."""
        total = _squared_norm(clipped[0][1], wide)
        for _, grad in clipped[1:]:
            total = _F.add(total, _squared_norm(grad, wide))
        return total

    def __repr__(self):
        return f"ClipGradByGlobalNorm(clip_norm={self.clip_norm})"


# clip_by_norm and the SelectedRows helpers stay out of __all__: Paddle offers them only in paddle.nn.clip.
__all__ = ["ClipGradBase", "ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]

# Paddle's static-graph clipping (a Program-wide clip set before minimize); its dygraph mode asserts.
_STATIC_ONLY = frozenset({"set_gradient_clip", "append_gradient_clip_ops", "error_clip_callback"})


def __getattr__(name):
    raise static_graph_missing(__name__, name, _STATIC_ONLY)
