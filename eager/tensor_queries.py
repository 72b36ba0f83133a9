"""Paddle's questions about a tensor (``paddle.is_floating_point``, ``numel``,
``shape``, ``rank``, ``is_tensor``, ``broadcast_shape``, ``Tensor.is_contiguous``, ...) and the inplace fills of its
Tensor class (``uniform_``, ``normal_``, ``exponential_``, ``bernoulli_``,
``fill_diagonal_``, ``increment``, ``index_fill_``, ``detach_``).

The fills write through ``x[...] = value`` (the recorded ``setitem_``), so they
follow the project's inplace rules: the version counter moves, a view's base
sees the write, and a leaf that requires grad cannot be filled while gradients
are recorded (wrap the fill in ``eager.no_grad()``, as initializers do).
"""
from __future__ import annotations

import numbers

import numpy as np

from phi.core.errors import PhiError
from phi.infermeta.checks import broadcast_dims

from .arguments import as_called
from .autograd.meta import AutogradMeta
from .composite import _paddle_api as _check
from .composite.gather_scatter import index_fill
from .creation import to_tensor
from .generated import forward_api as _F
from .tensor import Tensor

__all__ = ["is_tensor", "is_floating_point", "is_complex", "is_integer", "is_empty", "numel", "shape", "rank",
           "broadcast_shape", "tolist", "increment", "index_fill_"]


def is_tensor(x) -> bool:
    """True when x is a Tensor (a Parameter included), Paddle's ``paddle.is_tensor``.

    >>> eager.is_tensor(eager.to_tensor([1.0])), eager.is_tensor([1.0])
    (True, False)
    """
    return isinstance(x, Tensor)


def is_floating_point(x) -> bool:
    """True when x's dtype is a floating-point one (float16, float32, float64).

    >>> eager.is_floating_point(eager.ones([2]))
    True
    """
    return _check.tensor("is_floating_point", "x", x).dtype.is_floating_point


def is_complex(x) -> bool:
    """True when x's dtype is complex64 or complex128.

    >>> eager.is_complex(eager.to_tensor([1j]))
    True
    """
    return _check.tensor("is_complex", "x", x).dtype.is_complex


def is_integer(x) -> bool:
    """True when x's dtype is an integer one (uint8, int8 ... int64; not bool).

    >>> eager.is_integer(eager.to_tensor([1]))
    True
    """
    return _check.tensor("is_integer", "x", x).dtype.is_integer


def is_empty(x, name=None) -> Tensor:
    """Whether x holds no element, as a 0-d bool tensor (Paddle returns a Tensor).

    >>> bool(eager.is_empty(eager.zeros([0, 3])))
    True
    """
    _check.tensor("is_empty", "x", x)
    return _F.full([], x.size == 0, "bool", x.place)


def numel(x, name=None) -> Tensor:
    """The number of elements of x as a 0-d int64 tensor (``Tensor.numel()`` gives an int).

    >>> int(eager.numel(eager.zeros([2, 3])))
    6
    """
    _check.tensor("numel", "x", x)
    return _F.full([], x.size, "int64", x.place)


def shape(input) -> Tensor:  # noqa: A002  (Paddle's argument name)
    """x's shape as a 1-d int32 tensor (``Tensor.shape`` gives a list).

    >>> eager.shape(eager.zeros([2, 3])).numpy()
    array([2, 3], dtype=int32)
    """
    _check.tensor("shape", "input", input)
    return to_tensor(np.array(input.shape, dtype=np.int32), place=input.place)


def rank(input) -> Tensor:  # noqa: A002
    """The number of dimensions of x as a 0-d int32 tensor (``Tensor.ndim`` gives an int).

    >>> int(eager.rank(eager.zeros([2, 3])))
    2
    """
    _check.tensor("rank", "input", input)
    return _F.full([], len(input.shape), "int32", input.place)


def broadcast_shape(x_shape, y_shape) -> list:
    """The shape that tensors of shapes x_shape and y_shape broadcast to (lists of ints).

    >>> eager.broadcast_shape([2, 1, 3], [4, 3])
    [2, 4, 3]
    """
    for arg, value in (("x_shape", x_shape), ("y_shape", y_shape)):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"broadcast_shape: argument '{arg}' expected a list or tuple of ints, got "
                            f"{type(value).__name__} {value!r}")
        for size in value:
            _check.integer("broadcast_shape", arg, size, minimum=0)
    try:
        return list(broadcast_dims("x_shape", tuple(x_shape), "y_shape", tuple(y_shape)))
    except PhiError as error:
        raise ValueError(f"broadcast_shape: {error}") from None


def tolist(x) -> list:
    """x's values as nested Python lists (a 0-d tensor gives a number).

    >>> eager.tolist(eager.to_tensor([[1, 2], [3, 4]]))
    [[1, 2], [3, 4]]
    """
    return _check.tensor("tolist", "x", x).tolist()


# -- inplace fills ---------------------------------------------------------------------------

def _fill(op: str, x, value):
    """Writes ``value`` (a tensor of x's shape or broadcastable to it) over x, recorded."""
    _check.tensor(op, "x", x)
    if value.dtype != x.dtype:
        value = _F.cast(value, x.dtype)
    x[...] = value
    return x


def _float_tensor(op: str, x):
    _check.tensor(op, "x", x)
    if not x.dtype.is_floating_point:
        raise TypeError(f"{op}: expected a floating-point tensor, got {x.dtype}")
    return x


def increment(x, value=1.0, name=None):
    """Adds ``value`` to a one-element tensor in place and returns it (Paddle's dynamic
    mode writes into x: ``paddle.increment`` is inplace there).

    >>> step = eager.to_tensor([0])
    >>> eager.increment(step).numpy()
    array([1])
    """
    _check.tensor("increment", "x", x)
    if x.size != 1:
        raise ValueError(f"increment: argument 'x' expected a tensor of one element, got shape {x.shape}")
    value = _check.number("increment", "value", value)
    if not (x.dtype.is_floating_point or x.dtype.is_complex) and value != int(value):
        raise TypeError(f"increment: a {x.dtype} tensor cannot be incremented by the fraction {value}")
    return _F.scale_(x, 1.0, value, True)


def index_fill_(x, index, axis, value, name=None):
    """Inplace :func:`eager.index_fill`: writes ``value`` into x's slices at ``index``
    along ``axis`` and returns x.

    >>> x = eager.zeros([2, 3])
    >>> eager.index_fill_(x, eager.to_tensor([1]), 1, 7.0).numpy()
    array([[0., 7., 0.],
           [0., 7., 0.]], dtype=float32)
    """
    try:
        filled = index_fill(x, index, axis, value)
    except (TypeError, ValueError, IndexError) as error:
        raise as_called(error, "index_fill", "index_fill_") from None
    return _fill("index_fill_", x, filled)


class TensorFills:
    """Tensor methods that fill a tensor in place (copied onto Tensor by tensor_api)."""

    def uniform_(self, min=-1.0, max=1.0, seed=0, name=None):  # noqa: A002  (Paddle's names)
        """Fills this tensor in place with samples from U[min, max); returns it.

        >>> w = eager.zeros([2, 3]).uniform_(0.0, 1.0)
        """
        _float_tensor("uniform_", self)
        low, high = _check.number("uniform_", "min", min), _check.number("uniform_", "max", max)
        if not low <= high:
            raise ValueError(f"uniform_: argument 'min' ({low}) must not exceed 'max' ({high})")
        return _fill("uniform_", self, _F.uniform(self.shape, self.dtype, low, high,
                                                  _check.integer("uniform_", "seed", seed), self.place))

    def normal_(self, mean=0.0, std=1.0, name=None):
        """Fills this tensor in place with samples from N(mean, std^2); returns it.

        >>> w = eager.zeros([2, 3]).normal_(0.0, 0.02)
        """
        _float_tensor("normal_", self)
        mean, std = _check.number("normal_", "mean", mean), _check.number("normal_", "std", std)
        if std < 0:
            raise ValueError(f"normal_: argument 'std' expected a number >= 0, got {std}")
        return _fill("normal_", self, _F.gaussian(self.shape, mean, std, 0, self.dtype, self.place))

    def exponential_(self, lam=1.0, name=None):
        """Fills this tensor in place with samples from the exponential distribution of
        rate ``lam`` (density lam * exp(-lam x)); returns it.

        >>> w = eager.zeros([4]).exponential_(2.0)
        """
        _float_tensor("exponential_", self)
        lam = _check.number("exponential_", "lam", lam)
        if not lam > 0:
            raise ValueError(f"exponential_: argument 'lam' expected a number > 0, got {lam}")
        uniform = _F.uniform(self.shape, self.dtype, 0.0, 1.0, 0, self.place)  # in [0, 1)
        return _fill("exponential_", self, _F.scale(_F.log1p(_F.scale(uniform, -1.0, 0.0, True)),
                                                    -1.0 / lam, 0.0, True))

    def bernoulli_(self, p=0.5, name=None):
        """Fills this tensor in place with 1 (probability ``p``, a number or a tensor
        broadcastable to it) or 0; returns it.

        >>> mask = eager.zeros([4]).bernoulli_(0.5)
        """
        _float_tensor("bernoulli_", self)
        if isinstance(p, Tensor):
            probability = _F.expand(_F.cast(p, self.dtype), self.shape)
        else:
            p = _check.number("bernoulli_", "p", p)
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"bernoulli_: argument 'p' expected a probability in [0, 1], got {p}")
            probability = _F.full(self.shape, p, self.dtype, self.place)
        return _fill("bernoulli_", self, _F.bernoulli(probability))

    def fill_diagonal_(self, value, offset=0, wrap=False, name=None):
        """Writes ``value`` on this tensor's diagonal in place and returns it: a 2-d
        tensor's diagonal ``offset`` (with ``wrap``, a tall matrix's diagonal starts
        again every cols + 1 rows, as NumPy's), or x[i, i, ..., i] of a tensor whose
        dimensions are all equal.

        >>> eager.zeros([2, 3]).fill_diagonal_(5.0).numpy()
        array([[5., 0., 0.],
               [0., 5., 0.]], dtype=float32)
        """
        _check.tensor("fill_diagonal_", "x", self)
        value = _check.number("fill_diagonal_", "value", value) if not isinstance(value, numbers.Integral) \
            or isinstance(value, bool) else int(value)
        offset = _check.integer("fill_diagonal_", "offset", offset)
        if not isinstance(wrap, bool):
            raise TypeError(f"fill_diagonal_: argument 'wrap' expected a bool, got {wrap!r}")
        dims = self.shape
        if len(dims) < 2:
            raise ValueError(f"fill_diagonal_: expected a tensor of at least 2 dimensions, got shape {dims}")
        if len(dims) == 2:
            rows, cols = dims
            if wrap:
                flat = np.arange(0, rows * cols, cols + 1)
                where_rows, where_cols = flat // cols, flat % cols + offset
            else:
                where_rows = np.arange(min(rows, cols))
                where_cols = where_rows + offset
            keep = (where_cols >= 0) & (where_cols < cols) & (where_rows < rows)
            index = (where_rows[keep], where_cols[keep])
        else:
            if len(set(dims)) != 1:
                raise ValueError(f"fill_diagonal_: a tensor of more than 2 dimensions must have them all "
                                 f"equal, got shape {dims}")
            if offset:
                raise ValueError(f"fill_diagonal_: argument 'offset' must be 0 for a tensor of more than 2 "
                                 f"dimensions, got {offset}")
            index = (np.arange(dims[0]),) * len(dims)
        if index[0].size:
            self[index] = _F.full([], value, self.dtype, self.place)
        return self

    def detach_(self):
        """Detaches this tensor from the graph in place (stop_gradient becomes True, its
        history is dropped) and returns it.

        >>> y = (eager.to_tensor([1.0, 2.0], stop_gradient=False) * 2).detach_()
        >>> y.stop_gradient
        True
        """
        meta = self._meta
        if meta is None:
            return self
        fresh = AutogradMeta(stop_gradient=True)
        fresh.views = meta.views  # views of this buffer stay tracked
        if meta.view is not None:  # no longer a view its base must refresh
            base_views = meta.view.base._meta.views or []
            base_views[:] = [ref for ref in base_views if ref() is not self]
        self._meta = fresh
        return self

    def is_contiguous(self) -> bool:
        """Whether this tensor's buffer is laid out row-major without gaps: False for a
        transposed or strided view of another tensor's buffer.

        >>> x = eager.ones([2, 3])
        >>> x.is_contiguous(), x.transpose([1, 0]).is_contiguous()
        (True, False)
        """
        return bool(getattr(self.impl, "is_contiguous", True))

    def contiguous(self):
        """This tensor if its buffer is row-major without gaps, else a row-major copy
        (differentiable, as ``clone``).

        >>> eager.ones([2, 3]).transpose([1, 0]).contiguous().is_contiguous()
        True
        """
        return self if self.is_contiguous() else _F.clone(self)

    def ndimension(self) -> int:
        """The number of dimensions (``Tensor.ndim``).

        >>> eager.zeros([2, 3]).ndimension()
        2
        """
        return len(self.shape)

    def dim(self) -> int:
        """The number of dimensions, as Paddle's ``Tensor.dim()`` (a method; ``ndim`` is
        the property).

        >>> eager.zeros([2, 3]).dim()
        2
        """
        return len(self.shape)

    def element_size(self) -> int:
        """Bytes per element of this tensor's dtype.

        >>> eager.zeros([2], dtype="float64").element_size()
        8
        """
        return int(self.dtype.itemsize)

    def is_floating_point(self) -> bool:
        """See :func:`is_floating_point`."""
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        """See :func:`is_complex`."""
        return self.dtype.is_complex

    def is_integer(self) -> bool:
        """See :func:`is_integer`."""
        return self.dtype.is_integer

    def is_empty(self, name=None):
        """See :func:`is_empty`."""
        return is_empty(self)

    def rank(self):
        """See :func:`rank`."""
        return rank(self)

