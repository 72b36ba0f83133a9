"""Paddle's questions about a tensor (``paddle.is_floating_point``, ``numel``,
``shape``, ``rank``, ``is_tensor``, ``broadcast_shape``, ``Tensor.is_contiguous``, ...) and the inplace fills of its
Tensor class (``uniform_``, ``normal_``, ``exponential_``, ``bernoulli_``,
``fill_diagonal_``, ``increment``, ``index_fill_``, ``gaussian_``, ``detach_``).

The fills write through ``x[...] = value`` (the recorded ``setitem_``), so they
follow the project's inplace rules: the version counter moves, a view's base
sees the write, and a leaf that requires grad cannot be filled while gradients
are recorded (wrap the fill in ``eager.no_grad()``, as initializers do).
"""
from __future__ import annotations

import enum
import hashlib
import math
import numbers

import numpy as np

from phi.common import TensorKind
from phi.common.data_type import dtype_name
from phi.common.scalar import to_scalar
from phi.core import ArraySpec, DenseTensor
from phi.core.errors import ArgumentKindError, PhiError, UnsupportedDtypeError
from phi.infermeta.checks import broadcast_dims

from .arguments import as_called, bad_tensor, to_bool, to_int
from .autograd.grad_mode import STATE as _grad_state
from .autograd.inplace import check_inplace_leaf
from .autograd.meta import AutogradMeta
from .composite import _paddle_api as _check
from .composite import creation as _creation
from .composite.gather_scatter import fill_diagonal_tensor, index_fill
from .creation import to_tensor
from .generated import forward_api as _F
from .tensor import Tensor

__all__ = ["is_tensor", "is_floating_point", "is_complex", "is_integer", "is_empty", "numel", "shape", "rank",
           "broadcast_shape", "tolist", "increment", "index_fill_", "gaussian_", "fill_diagonal_tensor_"]


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
    # Made by phi kernels (a full per size, stacked), so a to_static trace keeps it (the
    # sizes are part of its signature); a tensor made from a host array would make the
    # call run eagerly for good.
    place = input.place
    if not input.shape:
        return _F.full([0], 0, "int32", place)
    return _F.stack([_F.full([], size, "int32", place) for size in input.shape])


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

def _writable(op: str, x):
    """Refuses, naming ``op`` (the op the user called, not the setitem_ that writes),
    an inplace write into a leaf that requires a gradient, or a view of one, while
    gradients are recorded: checked before anything is drawn or written."""
    if _grad_state.enabled:
        check_inplace_leaf(op, x)


def _fill(op: str, x, value):
    """Writes ``value`` (a tensor of x's shape or broadcastable to it) over x, recorded."""
    _check.tensor(op, "x", x)
    _writable(op, x)
    if value.dtype != x.dtype:
        value = _F.cast(value, x.dtype)
    x[...] = value
    return x


def _float_tensor(op: str, x):
    """x, the floating-point target of the inplace fill ``op``, checked before any
    sample is drawn: a tensor, floating, and writable (:func:`_writable`). Another
    dtype is an UnsupportedDtypeError: a TypeError, and the RuntimeError Paddle raises
    when no kernel of the fill takes the dtype."""
    _check.tensor(op, "x", x)
    if not x.dtype.is_floating_point:
        raise UnsupportedDtypeError(f"{op}: expected a floating-point tensor, got {x.dtype}")
    _writable(op, x)
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


def gaussian_(x, mean=0.0, std=1.0, seed=0, name=None):
    """Paddle's ``paddle.tensor.random.gaussian_``: fills floating x in place with samples
    from N(mean, std^2) and returns it; a non-zero ``seed`` draws from a generator of
    its own seeded with it (the same numbers each call), 0 from the global one.

    >>> eager.tensor.random.gaussian_(eager.zeros([2, 3]), seed=7).shape
    [2, 3]
    """
    _float_tensor("gaussian_", x)
    mean, std = _check.number("gaussian_", "mean", mean), _check.number("gaussian_", "std", std)
    if std < 0:
        raise ValueError(f"gaussian_: argument 'std' expected a number >= 0, got {std}")
    seed = _check.integer("gaussian_", "seed", seed)
    return _fill("gaussian_", x, _F.gaussian(x.shape, mean, std, seed, x.dtype, x.place))


def fill_diagonal_tensor_(x, y, offset=0, dim1=0, dim2=1, name=None):
    """Inplace :func:`eager.fill_diagonal_tensor`: writes y over x's diagonal between
    ``dim1`` and ``dim2`` (shifted by ``offset``) and returns x.

    >>> eager.zeros([2, 2]).fill_diagonal_tensor_(eager.ones([2])).numpy().tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    try:
        filled = fill_diagonal_tensor(x, y, offset, dim1, dim2)
    except (TypeError, ValueError, IndexError) as error:
        raise as_called(error, "fill_diagonal_tensor", "fill_diagonal_tensor_") from None
    return _fill("fill_diagonal_tensor_", x, filled)


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
    """Tensor methods that fill a tensor in place (copied onto Tensor by :func:`install`)."""

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
            try:
                fits = broadcast_dims("p", p.shape, "x", self.shape) == tuple(self.shape)
            except PhiError:
                fits = False
            if not fits:
                raise ValueError(f"bernoulli_: argument 'p' of shape {p.shape} does not broadcast to the "
                                 f"shape {self.shape} of the tensor filled in place")
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
        if isinstance(value, Tensor):  # a one-element tensor is its number, as Paddle reads a 0-d one
            value = to_scalar(value, "fill_diagonal_", "value")
        value = int(value) if isinstance(value, numbers.Integral) else \
            _check.number("fill_diagonal_", "value", value)  # a bool is 0 or 1, as Paddle's float
        offset = _check.integer("fill_diagonal_", "offset", offset)
        if not isinstance(wrap, bool):
            raise TypeError(f"fill_diagonal_: argument 'wrap' expected a bool, got {wrap!r}")
        _writable("fill_diagonal_", self)
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
        else:
            self.impl.bump_version()  # still an inplace op, as Paddle's kernel (nothing to write)
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



class VarType(enum.Enum):
    """What ``Tensor.type`` answers, as Paddle's ``core.VarDesc.VarType``: a dense
    tensor is a LOD_TENSOR, an embedding's sparse gradient SELECTED_ROWS."""

    LOD_TENSOR = 7
    SELECTED_ROWS = 8


class DenseTensorHandle:
    """What ``Tensor.get_tensor()`` returns: Paddle's ``core.LoDTensor`` handle on a
    tensor's buffer. ``np.array(handle)`` reads the values, ``shape()`` and
    ``_dtype()`` answer as Paddle's, and ``set(array, place=None)`` overwrites the
    values in place (the tensor keeps its buffer and its version counter moves,
    as ``Tensor.set_value``).

    >>> w = eager.zeros([2])
    >>> w.get_tensor().set(np.array([1.0, 2.0], "float32"), eager.CPUPlace())
    >>> w.numpy()
    array([1., 2.], dtype=float32)
    """

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    def shape(self) -> list:
        """The tensor's shape (a method, as Paddle's LoDTensor)."""
        return self._tensor.shape

    def _dtype(self):
        return self._tensor.dtype

    def _place(self):
        return self._tensor.place

    def _is_initialized(self) -> bool:
        return bool(self._tensor.impl.initialized())

    def lod(self) -> list:
        """Level-of-detail offsets: always empty (eager has no LoD)."""
        return []

    def set(self, array, place=None) -> None:
        """Overwrites the values with ``array`` (a NumPy array or Tensor of the same
        shape and dtype); ``place`` must be None or the tensor's place."""
        if place is not None and place != self._tensor.place:
            raise ValueError(f"get_tensor().set: argument 'place' expected the tensor's place "
                             f"{self._tensor.place} (eager never moves a buffer in place), got {place!r}")
        self._tensor.set_value(array)

    def __array__(self, dtype=None, copy=None):
        return self._tensor.__array__(dtype)

    def __repr__(self):
        return f"DenseTensorHandle(shape={self.shape()}, dtype={dtype_name(self._dtype())}, place={self._place()})"


class LoDTensor(DenseTensorHandle):
    """Paddle's ``paddle.base.Tensor()`` (its ``core.LoDTensor``) made on its own, as
    dynamic-graph code and Paddle's Tensor tests use it: empty until ``set(array,
    place)`` gives it the array's values, shape and dtype (a copy); ``np.array(t)``
    reads them and ``eager.to_tensor(t)`` makes a Tensor of them.

    >>> t = eager.base.Tensor()
    >>> t.set(np.arange(6.0).reshape(2, 3), eager.CPUPlace())
    >>> t.shape(), eager.to_tensor(t).dtype
    ([2, 3], paddle.float64)
    """

    __slots__ = ()

    def __init__(self):
        super().__init__(Tensor(DenseTensor(ArraySpec((), np.float32))))

    def set(self, array, place=None) -> None:
        """Holds a copy of ``array`` (a NumPy array or Tensor, any shape and dtype) on
        ``place`` (None: the default device)."""
        self._tensor.impl = to_tensor(array, place=place).impl


def _no_grad_tensor(op: str, x):
    if not x.stop_gradient:
        raise RuntimeError(f"{op}: Cannot apply function on a tensor that required gradient (stop_gradient "
                           f"is False); apply it to x.detach()")


class TensorInfo:
    """Tensor attributes and methods Paddle's Tensor has beside its ops: memory
    layout (``strides``, ``offset``, ``data_ptr()``, ``nbytes``), kind queries,
    ``persistable``, ``apply``/``apply_`` and the random fills ``cauchy_`` and
    ``geometric_`` (copied onto Tensor by :func:`install`)."""

    @property
    def nbytes(self) -> int:
        """Bytes the elements take: ``numel() * element_size()``.

        >>> eager.zeros([2, 3], dtype="float64").nbytes
        48
        """
        return int(self.impl.numel) * int(self.dtype.itemsize)

    @property
    def strides(self) -> list:
        """The step between neighbours along each axis, in elements.

        >>> x = eager.zeros([2, 3])
        >>> x.strides, x.transpose([1, 0]).strides
        ([3, 1], [1, 3])
        """
        return list(_dense("strides", self).strides)

    def get_strides(self) -> list:
        """The strides in elements (Paddle's method form of :attr:`strides`).

        >>> eager.zeros([2, 3]).transpose([1, 0]).get_strides()
        [1, 3]
        """
        return list(_dense("get_strides", self).strides)

    @property
    def layout(self) -> str:
        """The data layout name: ``'NCHW'``, what Paddle 2.6 reports for a dense
        tensor (its default layout; no op here reads a tensor's layout).

        >>> eager.zeros([2]).layout
        'NCHW'
        """
        return "NCHW"

    def is_same_shape(self, y) -> bool:
        """Whether y, a Tensor, has this tensor's shape.

        >>> eager.zeros([2, 3]).is_same_shape(eager.ones([2, 3]))
        True
        """
        if not isinstance(y, Tensor):
            raise bad_tensor("is_same_shape", "y", y)
        return self.shape == y.shape

    @property
    def offset(self) -> int:
        """Bytes from the start of the memory holding this tensor's buffer to its
        first element: 0 for a tensor that owns its buffer, a view's position in
        its base's.

        >>> x = eager.to_tensor([1, 2, 3])
        >>> x.offset, x[1:].offset
        (0, 8)
        """
        return _dense("offset", self).byte_offset

    def data_ptr(self) -> int:
        """The address of the first element (host or device memory).

        >>> x = eager.zeros([4])
        >>> x[1:].data_ptr() - x.data_ptr()
        4
        """
        return _dense("data_ptr", self).data_ptr

    def _is_initialized(self) -> bool:
        """Whether the tensor holds data (Paddle's private ``Tensor._is_initialized()``):
        False for one made without a buffer (``eager.tensor.create_tensor``).

        >>> eager.zeros([2])._is_initialized()
        True
        """
        return bool(self.impl.initialized())

    def _numel(self) -> int:
        """The element count of the tensor's shape, held or not (Paddle's private
        ``Tensor._numel()``, a Python int where ``numel()`` returns Paddle's Tensor:
        1 for ``create_tensor``'s 0-d placeholder, as in Paddle 2.6.2).

        >>> eager.zeros([2, 3])._numel()
        6
        """
        return int(self.impl.numel)

    def _bump_inplace_version(self) -> None:
        """Moves ``inplace_version`` on by one, as an inplace write does (Paddle's private
        ``Tensor._bump_inplace_version()``, for code that writes the buffer itself):
        a graph that saved the tensor's old value then refuses to run backward.

        >>> x = eager.zeros([2])
        >>> x._bump_inplace_version()
        >>> x.inplace_version
        1
        """
        self.impl.bump_version()

    # Paddle's private buffer-sharing methods (test_egr_python_api, sharding and
    # recompute code): eager has one DenseTensor per buffer view, so "sharing the
    # underlying tensor" is holding the same DenseTensor and "sharing the buffer"
    # is holding a view of the same allocation.
    def _share_buffer_to(self, dst) -> None:
        """Makes ``dst`` hold this tensor's buffer (and dtype), keeping dst's shape,
        as Paddle's private ``Tensor._share_buffer_to(dst)``: a write to either is
        seen by the other; each keeps its own version counter.

        >>> x, y = eager.ones([2, 3]), eager.zeros([3, 2])
        >>> x._share_buffer_to(y)
        >>> y._is_shared_buffer_with(x), y.shape
        (True, [3, 2])
        """
        if not isinstance(dst, Tensor):
            raise bad_tensor("_share_buffer_to", "dst", dst)
        src = _dense("_share_buffer_to", self)
        target = dst.impl
        if target.kind is not TensorKind.DENSE:
            _dense("_share_buffer_to", dst)  # its error for the other kinds
        shape = target.dims if target.initialized() else src.dims
        count = math.prod(shape)
        if count != src.numel:
            raise ValueError(f"_share_buffer_to: argument 'dst' has {count} elements (shape {list(shape)}), "
                             f"this tensor's buffer holds {src.numel} (shape {list(src.dims)})")
        array = src.array
        target.array = array if tuple(shape) == array.shape else array.reshape(shape)

    def _is_shared_buffer_with(self, other) -> bool:
        """Whether ``other`` holds memory of the same allocation as this tensor (after
        ``_share_buffer_to``, or a view of it), as Paddle's private method.

        >>> x = eager.ones([4])
        >>> x[1:]._is_shared_buffer_with(x), x._is_shared_buffer_with(eager.ones([4]))
        (True, False)
        """
        if not isinstance(other, Tensor):
            raise bad_tensor("_is_shared_buffer_with", "other", other)
        a, b = self.impl, other.impl
        if a.kind is not TensorKind.DENSE or b.kind is not TensorKind.DENSE or not (
                a.initialized() and b.initialized()):
            return False
        return a.buffer_id == b.buffer_id

    def _share_underline_tensor_to(self, dst) -> None:
        """Makes ``dst`` hold this tensor's underlying tensor itself (buffer, shape,
        dtype and version counter; not name, stop_gradient or persistable), as
        Paddle's private ``Tensor._share_underline_tensor_to(dst)``.

        >>> x, y = eager.ones([2, 3]), eager.zeros([1])
        >>> x._share_underline_tensor_to(y)
        >>> y.shape, y._is_shared_underline_tensor_with(x)
        ([2, 3], True)
        """
        if not isinstance(dst, Tensor):
            raise bad_tensor("_share_underline_tensor_to", "dst", dst)
        if not self.impl.initialized():
            raise ValueError("_share_underline_tensor_to: this tensor holds no buffer to share")
        dst.impl = self.impl

    def _is_shared_underline_tensor_with(self, other) -> bool:
        """Whether ``other`` holds the same underlying tensor (Paddle's private method)."""
        if not isinstance(other, Tensor):
            raise bad_tensor("_is_shared_underline_tensor_with", "other", other)
        return self.impl is other.impl

    def _clear(self) -> None:
        """Drops this tensor's underlying tensor (Paddle's private ``Tensor._clear()``):
        afterwards it is a 0-d tensor that holds no buffer (``_is_initialized()`` is
        False); tensors sharing the old buffer keep it.

        >>> x = eager.ones([2, 3])
        >>> x._clear()
        >>> x.shape, x._is_initialized()
        ([], False)
        """
        self.impl = DenseTensor(ArraySpec((), self.impl.dtype.numpy_dtype, self.place))

    def _clear_data(self) -> None:
        """Frees the buffer but keeps shape and dtype (Paddle's private
        ``Tensor._clear_data()``): ``_is_initialized()`` is False after it, for
        this tensor and those sharing its underlying tensor.

        >>> x = eager.ones([2, 3])
        >>> x._clear_data()
        >>> x.shape, x._is_initialized()
        ([2, 3], False)
        """
        impl = _dense("_clear_data", self) if self.impl.initialized() else self.impl
        impl.array = ArraySpec(tuple(impl.dims), impl.dtype.numpy_dtype, self.place)

    def _slice(self, begin_idx, end_idx) -> Tensor:
        """Rows ``begin_idx`` to ``end_idx`` (exclusive) of the first axis, sharing the
        buffer, outside the graph (Paddle's private ``Tensor._slice``, which sharding
        code uses): 0 <= begin_idx <= end_idx <= shape[0].

        >>> eager.arange(6).reshape([3, 2])._slice(1, 3).numpy()
        array([[2, 3],
               [4, 5]])
        """
        impl = _dense("_slice", self)
        begin = to_int(begin_idx, "_slice", "begin_idx")
        end = to_int(end_idx, "_slice", "end_idx")
        rows = impl.dims[0] if impl.dims else 0
        if not 0 <= begin <= rows or not 0 <= end <= rows:
            raise IndexError(f"_slice: begin_idx {begin} and end_idx {end} must lie in [0, {rows}] "
                             f"(the tensor's first dimension)")
        if begin > end:
            raise ValueError(f"_slice: begin_idx ({begin}) must not be greater than end_idx ({end})")
        return Tensor(impl.share_buffer_with(impl.array[begin:end]))

    def _offset(self) -> int:
        """The byte offset of the first element in its allocation (Paddle's private
        ``Tensor._offset()``; the same as :attr:`offset`)."""
        return _dense("_offset", self).byte_offset

    @property
    def _place_str(self) -> str:
        """The place as Paddle prints it, e.g. ``'Place(cpu)'`` (Paddle's private
        ``Tensor._place_str``)."""
        return str(self.place)

    def _md5sum(self) -> str:
        """The hex MD5 digest of the values' bytes in row-major order (Paddle's private
        ``Tensor._md5sum()``, which its tests use to compare tensors).

        >>> eager.to_tensor([1.0, 2.0])._md5sum() == eager.to_tensor([1.0, 2.0])._md5sum()
        True
        """
        return hashlib.md5(np.ascontiguousarray(self.numpy()).tobytes()).hexdigest()

    def _use_gpudnn(self, use_gpudnn=True) -> Tensor:
        """The same tensor (buffer, gradient and name shared) marked to use cuDNN or
        not (Paddle's private ``Tensor._use_gpudnn``): eager picks its kernels
        itself, so the flag is checked and has no effect."""
        to_bool(use_gpudnn, "_use_gpudnn", "use_gpudnn")
        alias = Tensor(self.impl, self._meta)
        alias._name = self.name  # Paddle's alias keeps the name (made now if not yet)
        return alias

    def _copy_gradient_from(self, src) -> None:
        """Sets this tensor's gradient to ``src``'s values, sharing src's buffer, as
        Paddle's private ``Tensor._copy_gradient_from(src)`` (the same dtype and shape
        as this tensor, as assigning ``.grad`` checks).

        >>> x = eager.ones([2])
        >>> x._copy_gradient_from(eager.to_tensor([0.5, 2.0]))
        >>> x.grad.numpy()
        array([0.5, 2. ], dtype=float32)
        """
        if not isinstance(src, Tensor):
            raise bad_tensor("_copy_gradient_from", "src", src)
        self.grad = Tensor(src.impl)

    def _grad_value(self):
        """The gradient's buffer as a :class:`DenseTensorHandle` (Paddle's private
        ``Tensor._grad_value()``, a LoDTensor there), or None before a backward.

        >>> x = eager.to_tensor([2.0, 3.0], stop_gradient=False)
        >>> (x * x).sum().backward()
        >>> np.array(x._grad_value())
        array([4., 6.], dtype=float32)
        """
        grad = self.grad
        return None if grad is None else grad.get_tensor()

    def _inplace_assign(self, y) -> None:
        """Paddle's private ``Tensor._inplace_assign(y)`` (its dygraph-to-static tests
        call it): y's values written into this tensor, as ``paddle.assign(y, self)``,
        so gradients reach y and not the values overwritten.

        >>> x = eager.zeros([2])
        >>> x._inplace_assign(eager.to_tensor([1.0, 2.0]))
        >>> x.numpy()
        array([1., 2.], dtype=float32)
        """
        _creation.assign(y, self)

    def value(self):
        """This tensor itself (Paddle's ``Tensor.value()`` in dynamic mode).

        >>> x = eager.zeros([2])
        >>> x.value() is x
        True
        """
        return self

    def get_tensor(self):
        """A :class:`DenseTensorHandle` on this tensor's buffer (Paddle's LoDTensor);
        also on one that holds no data yet, whose ``_is_initialized()`` is False.

        >>> np.array(eager.ones([2]).get_tensor())
        array([1., 1.], dtype=float32)
        """
        if self.impl.kind is not TensorKind.DENSE:
            _dense("get_tensor", self)  # its error for the other kinds
        return DenseTensorHandle(self)

    def is_dense(self) -> bool:
        """True for a dense tensor (False for an embedding's sparse rows).

        >>> eager.zeros([2]).is_dense()
        True
        """
        return self.impl.kind is TensorKind.DENSE

    def is_selected_rows(self) -> bool:
        """True for SelectedRows (an embedding's sparse gradient)."""
        return self.impl.kind is TensorKind.SELECTED_ROWS

    def rows(self) -> list:
        """The row indices of a SelectedRows tensor (an embedding's sparse gradient), as
        a list of ints with one entry per value block, duplicates kept (Paddle's
        ``Tensor.rows()``). A read of the indices (from the device on a GPU).

        >>> w = eager.create_parameter([5, 2], "float32")
        >>> eager.nn.functional.embedding(eager.to_tensor([[3, 1, 3]]), w, sparse=True).sum().backward()
        >>> w.grad.rows()
        [3, 1, 3]
        """
        if self.impl.kind is not TensorKind.SELECTED_ROWS:
            raise TypeError(f"rows: expected a SelectedRows tensor (an embedding's sparse gradient), got a "
                            f"{self.impl.kind.name.lower()} tensor")
        return [int(r) for r in self.impl.rows.tolist()]

    def is_dist(self) -> bool:
        """False: eager has no auto-parallel distributed tensors.

        >>> eager.zeros([2]).is_dist()
        False
        """
        return False

    @property
    def type(self) -> VarType:
        """:attr:`VarType.LOD_TENSOR` for a dense tensor, ``SELECTED_ROWS`` for sparse rows.

        >>> eager.zeros([2]).type
        <VarType.LOD_TENSOR: 7>
        """
        return VarType.LOD_TENSOR if self.impl.kind is TensorKind.DENSE else VarType.SELECTED_ROWS

    @property
    def persistable(self) -> bool:
        """Whether the tensor is kept across runs (saved with a program): True for a
        Parameter, False for other tensors, unless set.

        >>> eager.zeros([2]).persistable
        False
        """
        try:
            return self._persistable
        except AttributeError:  # never set: Parameters persist, other tensors do not
            return getattr(self, "optimize_attr", None) is not None

    @persistable.setter
    def persistable(self, value) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ArgumentKindError(f"persistable: expected a bool, got {type(value).__name__} {value!r}")
        self._persistable = bool(value)

    def apply(self, func):
        """``func(self)``: a new tensor from a function of this one, as Paddle's
        ``Tensor.apply``; only for a tensor with stop_gradient=True (RuntimeError
        otherwise).

        >>> eager.to_tensor([1.0, 2.0]).apply(lambda t: 3 * t + 2).numpy()
        array([5., 8.], dtype=float32)
        """
        _no_grad_tensor("apply", self)
        if not callable(func):
            raise TypeError(f"apply: argument 'func' expected a callable, got {type(func).__name__}")
        out = func(self)
        if not isinstance(out, Tensor):
            raise TypeError(f"apply: argument 'func' must return a Tensor, returned {type(out).__name__}")
        return out

    def apply_(self, func):
        """Overwrites this tensor with ``func(self)`` in place and returns it (Paddle's
        ``Tensor.apply_``); func must return a tensor of this shape (its values are
        cast to this dtype). Only for a tensor with stop_gradient=True.

        >>> x = eager.to_tensor([1.0, 2.0])
        >>> x.apply_(lambda t: t * t).numpy()
        array([1., 4.], dtype=float32)
        """
        _no_grad_tensor("apply_", self)
        if not callable(func):
            raise TypeError(f"apply_: argument 'func' expected a callable, got {type(func).__name__}")
        out = func(self)
        if not isinstance(out, Tensor):
            raise TypeError(f"apply_: argument 'func' must return a Tensor, returned {type(out).__name__}")
        if out.shape != self.shape:
            raise ValueError(f"apply_: argument 'func' must return a tensor of shape {self.shape}, returned "
                             f"shape {out.shape}")
        return _fill("apply_", self, out)

    def cauchy_(self, loc=0, scale=1, name=None):
        """Fills this tensor in place with samples of the Cauchy distribution of
        median ``loc`` and half-width ``scale`` (loc + scale * tan(pi * (u - 1/2)),
        u uniform, from the framework's generator); returns it. Not recorded.

        >>> x = eager.zeros([4]).cauchy_(0.0, 1.0)
        """
        _float_tensor("cauchy_", self)
        loc, scale = _check.number("cauchy_", "loc", loc), _check.number("cauchy_", "scale", scale)
        if not scale > 0:
            raise ValueError(f"cauchy_: argument 'scale' expected a number > 0, got {scale}")
        uniform = _F.uniform(self.shape, self.dtype, 0.0, 1.0, 0, self.place)
        sample = _F.scale(_F.tan(_F.scale(uniform, math.pi, -0.5 * math.pi, True)), scale, loc, True)
        return _fill("cauchy_", self, sample)

    def geometric_(self, probs, name=None):
        """Fills this tensor in place with samples of the geometric distribution of
        success probability ``probs`` (a number in (0, 1], or a tensor broadcastable
        to this one): the number of the first successful trial, 1, 2, ...
        (ceil(log(u) / log(1 - probs)), u uniform in (0, 1]); returns it. Not recorded.

        >>> x = eager.zeros([4]).geometric_(0.3)
        """
        _float_tensor("geometric_", self)
        if isinstance(probs, Tensor):
            if not probs.dtype.is_floating_point:
                raise TypeError(f"geometric_: argument 'probs' expected a floating-point tensor, got "
                                f"{probs.dtype}")
            try:
                broadcast_dims("probs", tuple(probs.shape), "x", tuple(self.shape))
            except PhiError as error:
                raise ValueError(f"geometric_: {error}") from None
            values = probs.numpy()  # a conversion point: the range check reads the values
            if values.size and not (np.all(values > 0) and np.all(values <= 1)):
                raise ValueError("geometric_: argument 'probs' expected probabilities in (0, 1]")
            p = _F.expand(_F.cast(probs, self.dtype), self.shape)
        else:
            value = _check.number("geometric_", "probs", probs)
            if not 0.0 < value <= 1.0:
                raise ValueError(f"geometric_: argument 'probs' expected a probability in (0, 1], got {value}")
            p = _F.full(self.shape, value, self.dtype, self.place)
        uniform = _F.uniform(self.shape, self.dtype, 0.0, 1.0, 0, self.place)  # in [0, 1)
        log_u = _F.log1p(_F.scale(uniform, -1.0, 0.0, True))  # log(1 - u): u' = 1 - u in (0, 1]
        log_q = _F.log1p(_F.scale(p, -1.0, 0.0, True))  # -inf where probs == 1: one trial
        sample = _F.maximum(_F.ceil(_F.divide(log_u, log_q)), _F.full([], 1.0, self.dtype, self.place))
        return _fill("geometric_", self, sample)


def _dense(op: str, x):
    """x's DenseTensor; sparse rows have no strides or address of their own."""
    impl = x.impl
    if impl.kind is not TensorKind.DENSE:
        raise TypeError(f"{op}: expected a dense tensor, got {impl.kind.name} (convert it with "
                        f"eager.ops.selected_rows_to_dense first)")
    if not impl.initialized():
        raise ValueError(f"{op}: the tensor holds no buffer")
    return impl


def normal_(x, mean=0.0, std=1.0, name=None):
    """Paddle's ``paddle.normal_(x, mean, std)``: ``x.normal_(mean, std)``, x filled in
    place with samples from N(mean, std^2) and returned.

    >>> eager.normal_(eager.zeros([2, 3]), 0.0, 0.02).shape
    [2, 3]
    """
    return TensorFills.normal_(x, mean, std)


def bernoulli_(x, p=0.5, name=None):
    """Paddle's ``paddle.bernoulli_(x, p)``: ``x.bernoulli_(p)``, x filled in place
    with 1 (probability p) or 0 and returned."""
    return TensorFills.bernoulli_(x, p)


def cauchy_(x, loc=0, scale=1, name=None):
    """Paddle's ``paddle.cauchy_(x, loc, scale)``: ``x.cauchy_(loc, scale)``, x filled in
    place with Cauchy samples of median ``loc`` and half-width ``scale`` and returned.

    >>> eager.cauchy_(eager.zeros([2, 3]), loc=1.0, scale=0.5).shape
    [2, 3]
    """
    return TensorInfo.cauchy_(x, loc, scale)


def geometric_(x, probs, name=None):
    """Paddle's ``paddle.geometric_(x, probs)``: ``x.geometric_(probs)``, x filled in
    place with the trial number (1, 2, ...) of the first success and returned.

    >>> eager.geometric_(eager.zeros([3]), 1.0).numpy()
    array([1., 1., 1.], dtype=float32)
    """
    return TensorInfo.geometric_(x, probs)


def _broadcast_shape_with(self, y_shape) -> list:
    """``x.broadcast_shape(y_shape)``: the shape that x's shape and ``y_shape`` broadcast
    to (Paddle binds ``paddle.broadcast_shape`` as a method, where the tensor would be
    taken for ``x_shape``; here its shape is).

    >>> eager.zeros([2, 1, 3]).broadcast_shape([4, 3])
    [2, 4, 3]
    """
    return broadcast_shape(self.shape, y_shape)


# Class-body entries that are not methods.
_CLASS_MACHINERY = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                              "__firstlineno__", "__static_attributes__"})


def install() -> None:
    """Attaches this module's Tensor methods (idempotent). The module attaches its own
    so that eager.tensor_api need not import it: importing either first must work."""
    for group in (TensorFills, TensorInfo):
        for name, value in vars(group).items():
            if name not in _CLASS_MACHINERY:
                setattr(Tensor, name, value)
    Tensor.is_tensor = is_tensor
    Tensor.increment = increment
    Tensor.index_fill_ = index_fill_
    Tensor.fill_diagonal_tensor_ = fill_diagonal_tensor_
    Tensor.broadcast_shape = _broadcast_shape_with


install()
