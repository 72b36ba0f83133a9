"""Transforms of random variables: Paddle's ``paddle.distribution.transform``.

A ``Transform`` maps ``x`` to ``y = forward(x)``, with ``inverse`` and the log
absolute determinant of the Jacobian (``forward_log_det_jacobian``,
``inverse_log_det_jacobian``), all with differentiable ops. ``event_rank``
of the domain and codomain says how many rightmost dimensions one event
spans (0 for elementwise maps, 1 for softmax and stick-breaking), which
``ChainTransform`` and ``TransformedDistribution`` use to sum log
determinants over the right axes.
"""
from __future__ import annotations

import enum
import math
import numbers

import numpy as np

from ..generated import forward_api as _F
from ..tensor import Tensor
from .distribution import Distribution
from ._params import as_params
from . import constraint, variable


# {"class": TransformedDistribution}, filled when transformed_distribution.py loads
_TRANSFORMED: dict = {}


class Type(enum.Enum):
    """What a transform is as a map: Paddle's ``transform.Type``."""

    BIJECTION = "bijection"    # one to one and onto
    INJECTION = "injection"    # one to one
    SURJECTION = "surjection"  # onto
    OTHER = "other"

    @classmethod
    def is_injective(cls, t) -> bool:
        """Whether maps of type ``t`` are one to one."""
        return t in (cls.BIJECTION, cls.INJECTION)


def sum_rightmost(value: Tensor, n: int) -> Tensor:
    """``value`` summed over its ``n`` rightmost axes (unchanged when n <= 0)."""
    if n <= 0:
        return value
    return _F.sum(value, axis=list(range(-n, 0)))


def _check_tensor(owner: str, arg: str, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{owner}: argument '{arg}' expected a Tensor, got {type(value).__name__}")


class Transform:
    """The base class of transforms.

    Subclasses define ``_forward`` and ``_inverse`` and one of
    ``_forward_log_det_jacobian`` / ``_inverse_log_det_jacobian`` (the other
    follows). Calling a transform on a Tensor applies ``forward``; on a
    Distribution it returns ``TransformedDistribution(dist, [self])``; on
    another Transform it returns ``ChainTransform([self, other])``.

    >>> import eager
    >>> from eager.distribution import ExpTransform
    >>> t = ExpTransform()
    >>> x = eager.to_tensor([0.0, 1.0])
    >>> [round(v, 4) for v in t.inverse(t.forward(x)).numpy().tolist()]
    [0.0, 1.0]
    """

    _type = Type.BIJECTION

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.real

    @classmethod
    def _is_injective(cls) -> bool:
        return Type.is_injective(cls._type)

    def __call__(self, input):
        if isinstance(input, Distribution):
            # TransformedDistribution imports this module, so it registers itself here
            return _TRANSFORMED["class"](input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def forward(self, x):
        """``y = f(x)``."""
        _check_tensor(f"{type(self).__name__}.forward", "x", x)
        return self._forward(x)

    def inverse(self, y):
        """``x = f^-1(y)``."""
        _check_tensor(f"{type(self).__name__}.inverse", "y", y)
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        """``log |det J_f(x)|`` (elementwise for elementwise transforms)."""
        _check_tensor(f"{type(self).__name__}.forward_log_det_jacobian", "x", x)
        if type(self)._forward_log_det_jacobian is not Transform._forward_log_det_jacobian:
            return self._forward_log_det_jacobian(x)
        return -self._inverse_log_det_jacobian(self.forward(x))

    def inverse_log_det_jacobian(self, y):
        """``log |det J_{f^-1}(y)|`` = ``-forward_log_det_jacobian(inverse(y))``."""
        _check_tensor(f"{type(self).__name__}.inverse_log_det_jacobian", "y", y)
        if type(self)._inverse_log_det_jacobian is not Transform._inverse_log_det_jacobian:
            return self._inverse_log_det_jacobian(y)
        return -self._forward_log_det_jacobian(self.inverse(y))

    def forward_shape(self, shape):
        """The shape of ``forward(x)`` for ``x`` of ``shape``: ``shape`` itself (a list
        stays a list, as in Paddle) when the transform keeps shapes, else a tuple."""
        _as_shape(type(self).__name__, shape)
        return self._forward_shape(shape)

    def inverse_shape(self, shape):
        """The shape of ``inverse(y)`` for ``y`` of ``shape`` (``shape`` itself when kept)."""
        _as_shape(type(self).__name__, shape)
        return self._inverse_shape(shape)

    def _forward(self, x):
        raise NotImplementedError(f"{type(self).__name__} has no forward")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} has no inverse")

    def _forward_log_det_jacobian(self, x):
        raise NotImplementedError(f"{type(self).__name__} has no log det Jacobian")

    def _inverse_log_det_jacobian(self, y):
        raise NotImplementedError(f"{type(self).__name__} has no log det Jacobian")

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


def _like(param: Tensor, x: Tensor) -> Tensor:
    """A parameter in the dtype of the value it meets (parameters default to float32)."""
    return param if param.dtype == x.dtype else _F.cast(param, x.dtype)


def _as_shape(owner: str, shape) -> tuple:
    if not isinstance(shape, (list, tuple)) or any(
            isinstance(s, bool) or not isinstance(s, numbers.Integral) for s in shape):
        raise TypeError(f"{owner}: a shape must be a list or tuple of ints, got {shape!r}")
    return tuple(int(s) for s in shape)


class AbsTransform(Transform):
    """``y = |x|``; not one to one: ``inverse(y)`` is the pair ``(-y, y)``."""

    _type = Type.SURJECTION

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return _F.abs(x)

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = _F.zeros_like(y)
        return zero, zero

    def inverse_log_det_jacobian(self, y):
        """``(0, 0)``: both branches have unit slope."""
        _check_tensor("AbsTransform.inverse_log_det_jacobian", "y", y)
        return self._inverse_log_det_jacobian(y)

    def forward_log_det_jacobian(self, x):
        """Raises NotImplementedError, as Paddle: |x| is two to one, so no single
        Jacobian maps x's density to y's (``inverse_log_det_jacobian`` gives both branches')."""
        _check_tensor("AbsTransform.forward_log_det_jacobian", "x", x)
        raise NotImplementedError("AbsTransform.forward_log_det_jacobian: not defined for a transform that is not "
                                  "one to one (|x| maps x and -x to the same y); use inverse_log_det_jacobian")


class AffineTransform(Transform):
    """``y = loc + scale * x`` (``scale`` nonzero), broadcasting ``loc`` and ``scale``.

    >>> import eager
    >>> from eager.distribution import AffineTransform
    >>> t = AffineTransform(eager.to_tensor(1.0), eager.to_tensor(2.0))
    >>> t.forward(eager.to_tensor([0.0, 1.0])).numpy().tolist()
    [1.0, 3.0]
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = as_params("AffineTransform", loc=loc, scale=scale)

    def _forward(self, x):
        return _like(self.loc, x) + _like(self.scale, x) * x

    def _inverse(self, y):
        return (y - _like(self.loc, y)) / _like(self.scale, y)

    def _forward_log_det_jacobian(self, x):
        return _F.log(_F.abs(_like(self.scale, x))) + _F.zeros_like(x)

    def _forward_shape(self, shape):
        return tuple(np.broadcast_shapes(shape, tuple(self.loc.shape)))

    def _inverse_shape(self, shape):
        return tuple(np.broadcast_shapes(shape, tuple(self.loc.shape)))


class ExpTransform(Transform):
    """``y = exp(x)``."""

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return _F.exp(x)

    def _inverse(self, y):
        return _F.log(y)

    def _forward_log_det_jacobian(self, x):
        return x


class PowerTransform(Transform):
    """``y = x ** power`` on positive ``x``."""

    @property
    def _codomain(self):
        return variable.positive

    def __init__(self, power):
        (self.power,) = as_params("PowerTransform", power=power)

    def _forward(self, x):
        return _F.elementwise_pow(x, _like(self.power, x))

    def _inverse(self, y):
        return _F.elementwise_pow(y, 1.0 / _like(self.power, y))

    def _forward_log_det_jacobian(self, x):
        power = _like(self.power, x)
        return _F.log(_F.abs(power * _F.elementwise_pow(x, power - 1.0)))

    def _forward_shape(self, shape):
        return tuple(np.broadcast_shapes(shape, tuple(self.power.shape)))

    def _inverse_shape(self, shape):
        return tuple(np.broadcast_shapes(shape, tuple(self.power.shape)))


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``."""

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(0.0, 1.0))

    def _forward(self, x):
        return _F.sigmoid(x)

    def _inverse(self, y):
        return _F.log(y) - _F.log1p(-y)

    def _forward_log_det_jacobian(self, x):
        return -_F.softplus(-x) - _F.softplus(x)


class TanhTransform(Transform):
    """``y = tanh(x)``; its log det Jacobian ``2 (log 2 - x - softplus(-2x))`` is stable."""

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(-1.0, 1.0))

    def _forward(self, x):
        return _F.tanh(x)

    def _inverse(self, y):
        return _F.atanh(y)

    def _forward_log_det_jacobian(self, x):
        return (math.log(2.0) - x - _F.softplus(x * -2.0)) * 2.0


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last axis; ``inverse`` is ``log(y)`` (one of the
    preimages), so it is not a bijection and has no log det Jacobian, as Paddle."""

    _type = Type.OTHER

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)

    def _forward(self, x):
        return _F.softmax(x, -1)

    def _inverse(self, y):
        return _F.log(y)

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"SoftmaxTransform: a shape needs at least 1 dimension, got {list(shape)}")
        return shape

    _inverse_shape = _forward_shape


class StickBreakingTransform(Transform):
    """Maps ``R^K`` onto the K-simplex in ``R^(K+1)`` by stick breaking (a bijection)."""

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)

    def _offset(self, k, like):
        return _F.log(_F.arange(k, 0, -1, like.dtype, like.place))

    def _forward(self, x):
        k = x.shape[-1]
        z = _F.sigmoid(x - self._offset(k, x))
        rest = _F.cumprod(1.0 - z, -1)
        ones = _F.ones(list(x.shape[:-1]) + [1], x.dtype)
        return _F.concat([z, ones], -1) * _F.concat([ones, rest], -1)

    def _inverse(self, y):
        crop = y[..., :-1]
        k = crop.shape[-1]
        remaining = 1.0 - _F.cumsum(crop, -1)
        remaining = _F.concat([_F.ones(list(crop.shape[:-1]) + [1], y.dtype), remaining[..., :-1]], -1)
        return _F.log(crop) - _F.log(remaining - crop) + self._offset(k, y)

    def _forward_log_det_jacobian(self, x):
        y = self._forward(x)
        t = x - self._offset(x.shape[-1], x)
        return _F.sum(-t + _F.log_sigmoid(t) + _F.log(y[..., :-1]), axis=-1)

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"StickBreakingTransform: a shape needs at least 1 dimension, got {list(shape)}")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def _inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"StickBreakingTransform: a shape needs at least 1 dimension, got {list(shape)}")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class ReshapeTransform(Transform):
    """Reshapes the event from ``in_event_shape`` to ``out_event_shape`` (same size)."""

    def __init__(self, in_event_shape, out_event_shape):
        self.in_event_shape = _as_shape("ReshapeTransform", in_event_shape)
        self.out_event_shape = _as_shape("ReshapeTransform", out_event_shape)
        if math.prod(self.in_event_shape) != math.prod(self.out_event_shape):
            raise ValueError(f"ReshapeTransform: in_event_shape {list(self.in_event_shape)} and "
                             f"out_event_shape {list(self.out_event_shape)} expected the same number of elements")

    @property
    def _domain(self):
        return variable.Independent(variable.real, len(self.in_event_shape))

    @property
    def _codomain(self):
        return variable.Independent(variable.real, len(self.out_event_shape))

    def _batch(self, shape, event, owner):
        n = len(event)
        if tuple(shape[len(shape) - n:]) != event or len(shape) < n:
            raise ValueError(f"ReshapeTransform.{owner}: expected a shape ending in {list(event)}, got {list(shape)}")
        return list(shape[:len(shape) - n])

    def _forward(self, x):
        return _F.reshape(x, self._batch(x.shape, self.in_event_shape, "forward") + list(self.out_event_shape))

    def _inverse(self, y):
        return _F.reshape(y, self._batch(y.shape, self.out_event_shape, "inverse") + list(self.in_event_shape))

    def _forward_log_det_jacobian(self, x):
        return _F.zeros(self._batch(x.shape, self.in_event_shape, "forward_log_det_jacobian"), x.dtype)

    def _forward_shape(self, shape):
        return tuple(self._batch(shape, self.in_event_shape, "forward_shape")) + self.out_event_shape

    def _inverse_shape(self, shape):
        return tuple(self._batch(shape, self.out_event_shape, "inverse_shape")) + self.in_event_shape


class IndependentTransform(Transform):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch axes made event
    axes: the log det Jacobian sums over them."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"IndependentTransform: argument 'base' expected a Transform, got {type(base).__name__}")
        rank = reinterpreted_batch_rank
        if isinstance(rank, bool) or not isinstance(rank, numbers.Integral) or rank <= 0:
            raise ValueError(f"IndependentTransform: argument 'reinterpreted_batch_rank' expected an int > 0, got {rank!r}")
        self._base, self._reinterpreted_batch_rank = base, int(rank)
        self._type = base._type

    @property
    def _domain(self):
        return variable.Independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return variable.Independent(self._base._codomain, self._reinterpreted_batch_rank)

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return sum_rightmost(self._base.forward_log_det_jacobian(x), self._reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)


class ChainTransform(Transform):
    """The composition: ``transforms[0]`` first, then ``transforms[1]``, ...

    >>> import eager
    >>> from eager.distribution import AffineTransform, ChainTransform, ExpTransform
    >>> t = ChainTransform([AffineTransform(eager.to_tensor(0.0), eager.to_tensor(2.0)), ExpTransform()])
    >>> round(float(t.forward(eager.to_tensor(0.5))), 4)   # exp(2 * 0.5)
    2.7183
    """

    def __init__(self, transforms):
        if not isinstance(transforms, (list, tuple)) or not all(isinstance(t, Transform) for t in transforms):
            raise TypeError(f"ChainTransform: argument 'transforms' expected a list of Transforms, "
                            f"got {transforms!r}")
        self.transforms = list(transforms)
        injective = all(t._is_injective() for t in self.transforms)
        self._type = Type.BIJECTION if injective else Type.OTHER

    def _is_injective(self) -> bool:
        return all(t._is_injective() for t in self.transforms)

    @property
    def _domain(self):
        if not self.transforms:
            return variable.real
        domain = self.transforms[0]._domain
        rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            rank -= t._codomain.event_rank - t._domain.event_rank
            rank = max(rank, t._domain.event_rank)
        return variable.Independent(domain, rank - domain.event_rank)

    @property
    def _codomain(self):
        if not self.transforms:
            return variable.real
        codomain = self.transforms[-1]._codomain
        rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            rank += t._codomain.event_rank - t._domain.event_rank
            rank = max(rank, t._codomain.event_rank)
        return variable.Independent(codomain, rank - codomain.event_rank)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value = 0.0
        rank = self._domain.event_rank
        for t in self.transforms:
            value = value + sum_rightmost(t.forward_log_det_jacobian(x), rank - t._domain.event_rank)
            x = t.forward(x)
            rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape


class StackTransform(Transform):
    """Applies ``transforms[i]`` to slice ``i`` along ``axis`` (elementwise transforms)."""

    def __init__(self, transforms, axis=0):
        if not isinstance(transforms, (list, tuple)) or not transforms or \
                not all(isinstance(t, Transform) for t in transforms):
            raise TypeError(f"StackTransform: argument 'transforms' expected a non-empty list of Transforms, "
                            f"got {transforms!r}")
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"StackTransform: argument 'axis' expected an int, got {type(axis).__name__}")
        self.transforms, self.axis = list(transforms), int(axis)
        self._type = Type.BIJECTION if all(t._is_injective() for t in self.transforms) else Type.OTHER

    @property
    def _domain(self):
        return variable.Stack([t._domain for t in self.transforms], self.axis)

    @property
    def _codomain(self):
        return variable.Stack([t._codomain for t in self.transforms], self.axis)

    def _map(self, value, method):
        rank = len(value.shape)
        if not -rank <= self.axis < rank:
            raise ValueError(f"StackTransform: axis {self.axis} is out of range for an input of shape "
                             f"{list(value.shape)} (expected an axis in [{-rank}, {rank}))")
        if value.shape[self.axis] != len(self.transforms):
            raise ValueError(f"StackTransform: axis {self.axis} of the input has size {value.shape[self.axis]}, "
                             f"expected one slice per transform ({len(self.transforms)})")
        parts = _F.unstack(value, self.axis)
        return _F.stack([getattr(t, method)(p) for t, p in zip(self.transforms, parts)], self.axis)

    def _forward(self, x):
        return self._map(x, "forward")

    def _inverse(self, y):
        return self._map(y, "inverse")

    def _forward_log_det_jacobian(self, x):
        return self._map(x, "forward_log_det_jacobian")

    def _inverse_log_det_jacobian(self, y):
        return self._map(y, "inverse_log_det_jacobian")


__all__ = ["AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform", "IndependentTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "TanhTransform", "Transform", "Type"]
