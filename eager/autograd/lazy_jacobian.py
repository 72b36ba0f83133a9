"""Paddle's ``paddle.autograd.jacobian(ys, xs, batch_axis)`` and ``hessian``:
Jacobians of tensors already computed, as lazy objects evaluated row by row.

``ys`` were computed from ``xs`` (which have ``stop_gradient=False``).
``jacobian`` returns a :class:`Jacobian` per (y, x) pair, nested ys-first as
the arguments are (a single Tensor drops its level). Nothing is differentiated
until the object is indexed: ``J[:]`` is the whole matrix, ``J[1:3]`` or
``J[:, 2]`` a part of it, and only the rows that part needs are computed
(one backward pass each) and cached, so a second index reuses them.

- ``batch_axis=None``: ``xs`` and ``ys`` are 0-d or 1-d; for x of shape [N]
  and y of shape [M] the Jacobian has shape [M, N]. A 0-d side contributes no
  axis (a 0-d y gives the gradient, shape [N]).
- ``batch_axis=0``: ``xs`` and ``ys`` are 1-d or 2-d with the batch first;
  for x of shape [B, N] and y of shape [B, M] the Jacobian has shape
  [B, M, N], each sample differentiated against its own inputs (samples must
  not interact: row m is the gradient of ``y[:, m].sum()``). A 1-d side
  contributes no axis.

Rows are computed with ``create_graph=True``, as Paddle does, so the results
can be differentiated again: :func:`hessian` is the Jacobian of the gradient.

>>> x = eager.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
>>> J = eager.autograd.jacobian(x * x, x)
>>> J.shape
[3, 3]
>>> J[:].numpy()        # diag(2x), all three rows computed
>>> J[1].numpy()        # [0, 4, 0], from the cache
"""
from __future__ import annotations

import numpy as np

from ..generated.forward_api import full, reshape, stack
from ..tensor import Tensor
from . import functional
from .backward_api import _as_differentiable, grad
from .grad_mode import enable_grad
from .meta import records_gradient


class Jacobian:
    """The Jacobian of one ``y`` with respect to one ``x``, computed lazily.

    ``shape`` is known at once; indexing (ints, slices, integer lists or
    arrays, bool masks, None, Ellipsis) returns a Tensor and evaluates only
    the rows the index selects. As in Paddle, arithmetic and comparison
    operators (``J + 1``, ``J @ J``, ``J == J``) and any other Tensor attribute
    (``J.numpy()``) act on the whole matrix.
    """

    def __init__(self, y: Tensor, x: Tensor, batch_axis, op: str = "jacobian"):
        self._op = op
        self._y, self._x = y, x
        self._batched = batch_axis == 0
        lowest = 1 if self._batched else 0
        for name, t in (("ys", y), ("xs", x)):
            if not lowest <= t.ndim <= lowest + 1:
                want = "1-d or 2-d ([B] or [B, N])" if self._batched else "0-d or 1-d"
                raise ValueError(f"{op}: with batch_axis={batch_axis} every tensor of {name} must be "
                                 f"{want}, got shape {t.shape}")
        if self._batched and y.shape[0] != x.shape[0]:
            raise ValueError(f"{op}: with batch_axis=0 ys and xs must have the same batch size, got "
                             f"ys of shape {y.shape} and xs of shape {x.shape}")
        self._rows_of_y = y.shape[-1] if y.ndim > lowest else None   # None: y has no row axis
        self._cols_of_x = x.shape[-1] if x.ndim > lowest else None
        self._cache: dict = {}                                        # row -> Tensor

    @property
    def shape(self) -> list:
        """[M, N] ([B, M, N] with batch_axis=0), without the axes of 0-d (1-d) sides."""
        batch = [self._x.shape[0]] if self._batched else []
        rows = [] if self._rows_of_y is None else [self._rows_of_y]
        cols = [] if self._cols_of_x is None else [self._cols_of_x]
        return batch + rows + cols

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError(f"{self._op}: len() of a 0-d Jacobian")
        return shape[0]

    def __repr__(self) -> str:
        return f"Jacobian(shape={self.shape}, rows evaluated={len(self._cache)})"

    def __getitem__(self, index):
        matrix = self._assemble(self._rows_selected(index))
        if matrix.ndim == 0 and (index == slice(None) or index is Ellipsis):
            return matrix  # J[:] of a 0-d Jacobian (0-d y and x) is the whole of it
        return matrix[index]

    # -- the whole matrix, as Paddle's objects give it ---------------------------
    def _evaluate_all(self) -> Tensor:
        """The whole Jacobian as a Tensor (``J[:]``; the value of a 0-d one)."""
        return self[:]

    def __getattr__(self, name: str):
        # Paddle's objects hand every other attribute to the evaluated matrix
        # (J.numpy(), J.sum(), J.T ...); private names stay this object's own
        if name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self._evaluate_all(), name)

    def __array__(self, dtype=None, copy=None):
        return self._evaluate_all().__array__(dtype)

    # -- evaluation -----------------------------------------------------------
    def _rows_selected(self, index) -> list:
        """The rows of y that ``index`` reads (all of them when unsure)."""
        count = self._rows_of_y
        if count is None:
            return [0]
        position = 1 if self._batched else 0
        parts = index if isinstance(index, tuple) else (index,)
        if any(p is Ellipsis or p is None for p in parts[:position + 1]) or len(parts) <= position:
            return list(range(count))
        part = parts[position]
        if isinstance(part, Tensor):
            part = part.numpy()
        try:
            picked = np.arange(count)[part]
        except (IndexError, TypeError, ValueError) as error:
            raise IndexError(f"{self._op}: index {index!r} does not fit a Jacobian of shape "
                             f"{self.shape}: {error}") from None
        return sorted({int(r) for r in np.ravel(picked)})  # an index array of any shape

    def _assemble(self, wanted: list) -> Tensor:
        """The Jacobian with the wanted rows evaluated (others zeros, never read)."""
        for row in wanted:
            if row not in self._cache:
                self._cache[row] = self._evaluate_row(row)
        if self._rows_of_y is None:
            return self._cache[0]
        if self._rows_of_y == 0:  # an empty y: nothing to stack
            return full(self.shape, 0, self._x.dtype, self._x.place)
        zeros = None
        rows = []
        for row in range(self._rows_of_y):
            value = self._cache.get(row)
            if value is None:
                if zeros is None:
                    zeros = full(self._x.shape, 0, self._x.dtype, self._x.place)
                value = zeros
            rows.append(value)
        return stack(rows, 1 if self._batched else 0)

    def _evaluate_row(self, row: int) -> Tensor:
        """d y[row] / d x (d y[:, row] / d x[b] per sample b when batched)."""
        y = self._y
        with enable_grad():
            if self._rows_of_y is not None:
                y = y[:, row] if self._batched else y[row]
            if not records_gradient(y):
                # A constant y (the gradient of a function linear in x, or a y that no
                # recorded op links to x): its rows are zeros, and grad() would refuse it.
                # Differentiable zeros, as grad(create_graph=True) gives (Paddle 2.6.2 too).
                return _as_differentiable(full(self._x.shape, 0, self._x.dtype, self._x.place))
            seed = full(y.shape, 1, y.dtype, y.place)
            (g,) = grad([y], [self._x], [seed], retain_graph=True, create_graph=True, allow_unused=True)
        if g is None:
            return _as_differentiable(full(self._x.shape, 0, self._x.dtype, self._x.place))
        return g


def _evaluated_operator(name: str):
    """Jacobian.<name>: the operator applied to the whole matrix (and to the other
    side's whole matrix when that is a Jacobian too), as Paddle's objects do."""
    def operator(self, other):
        rhs = other._evaluate_all() if isinstance(other, Jacobian) else other
        return getattr(self._evaluate_all(), name)(rhs)
    operator.__name__ = name
    return operator


for _name in ("__add__", "__sub__", "__mul__", "__truediv__", "__div__", "__floordiv__", "__mod__", "__pow__",
              "__matmul__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
    setattr(Jacobian, _name, _evaluated_operator(_name))
Jacobian.__hash__ = object.__hash__  # __eq__ compares values; identity stays the hash, as Paddle's
del _name


class Hessian(Jacobian):
    """A block of :func:`hessian`: the lazy Jacobian of a gradient, indexed the
    same way."""

    def __repr__(self) -> str:
        return f"Hessian(shape={self.shape}, rows evaluated={len(self._cache)})"


def jacobian(ys, xs, batch_axis=None, **functional_options):
    """Paddle's ``paddle.autograd.jacobian``: the lazy Jacobians of ``ys`` with
    respect to ``xs`` (see the module docstring for shapes and laziness).

    Given a callable first (``jacobian(func, inputs, create_graph=...,
    allow_unused=...)``) it is the function form of
    :func:`eager.autograd.functional.jacobian` (PyTorch's
    ``torch.autograd.functional.jacobian``; Paddle's ``incubate`` API).

    ``ys`` and ``xs`` are Tensors or tuples of Tensors; the result nests
    Jacobians ys-first (``J[i][k]`` is d ys[i] / d xs[k]), a single Tensor
    dropping its level.

    >>> x1 = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> x2 = eager.to_tensor([3.0, 4.0], stop_gradient=False)
    >>> J = eager.autograd.jacobian(x1 * x2, (x1, x2))
    >>> J[0][:].numpy(), J[1][:].numpy()      # diag(x2), diag(x1)
    """
    if callable(ys):
        _check_function_form("jacobian", batch_axis)
        return functional.jacobian(ys, xs, **functional_options)
    _check_no_options("jacobian", functional_options)
    return _nested("jacobian", ys, xs, batch_axis, Jacobian)


def hessian(ys, xs, batch_axis=None, **functional_options):
    """Paddle's ``paddle.autograd.hessian``: lazy second derivatives of a scalar
    ``ys`` (0-d; with ``batch_axis=0`` shape [B] or [B, 1], one scalar per
    sample) with respect to ``xs``: ``H[j][k]`` has shape [N_j, N_k]
    ([B, N_j, N_k] batched). Given a callable first it is
    :func:`eager.autograd.functional.hessian`.

    >>> x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> H = eager.autograd.hessian((x ** 3).sum(), x)
    >>> H[:].numpy()                          # diag(6x)
    """
    if callable(ys):
        _check_function_form("hessian", batch_axis)
        return functional.hessian(ys, xs, **functional_options)
    _check_no_options("hessian", functional_options)
    ys_tuple, single_y = _as_tensors("hessian", "ys", ys)
    if not single_y:
        raise TypeError(f"hessian: ys must be a single Tensor, got a {type(ys).__name__} of "
                        f"{len(ys_tuple)} tensors")
    (y,) = ys_tuple
    _check_batch_axis("hessian", batch_axis)
    scalar = y.ndim == 0 if batch_axis is None else (y.ndim == 1 or (y.ndim == 2 and y.shape[1] == 1))
    if not scalar:
        want = "0-d" if batch_axis is None else "of shape [B] or [B, 1] (one scalar per sample)"
        raise ValueError(f"hessian: ys must be {want}, got shape {y.shape}")
    if batch_axis == 0 and y.ndim == 2:
        y = reshape(y, [y.shape[0]])
    xs_tuple, single_x = _as_tensors("hessian", "xs", xs)
    gradients = [Jacobian(y, x, batch_axis, "hessian")[:] for x in xs_tuple]
    blocks = tuple(tuple(Hessian(g, x, batch_axis, "hessian") for x in xs_tuple) for g in gradients)
    return blocks[0][0] if single_x else blocks


def _nested(op: str, ys, xs, batch_axis, make):
    _check_batch_axis(op, batch_axis)
    ys_tuple, single_y = _as_tensors(op, "ys", ys)
    xs_tuple, single_x = _as_tensors(op, "xs", xs)
    blocks = tuple(tuple(make(y, x, batch_axis, op) for x in xs_tuple) for y in ys_tuple)
    rows = [row[0] if single_x else row for row in blocks]
    return rows[0] if single_y else tuple(rows)


def _check_function_form(op: str, batch_axis) -> None:
    if batch_axis is not None:
        raise TypeError(f"{op}: batch_axis belongs to the tensor form {op}(ys, xs, batch_axis); the "
                        f"function form {op}(func, inputs) takes create_graph and allow_unused, got "
                        f"a third argument {batch_axis!r}")


def _check_no_options(op: str, options: dict) -> None:
    if options:
        raise TypeError(f"{op}: {sorted(options)} belong to the function form {op}(func, inputs); "
                        f"the tensor form {op}(ys, xs, batch_axis=None) takes none")


def _check_batch_axis(op: str, batch_axis) -> None:
    if batch_axis is not None and (isinstance(batch_axis, bool) or batch_axis != 0):
        raise ValueError(f"{op}: argument 'batch_axis' expected None or 0, got {batch_axis!r}")


def _as_tensors(op: str, arg: str, value) -> tuple:
    if isinstance(value, Tensor):
        items, single = (value,), True
    elif isinstance(value, (list, tuple)) and value:
        items, single = tuple(value), False
    else:
        form = " or a function (the function form)" if arg == "ys" else ""
        raise TypeError(f"{op}: argument '{arg}' expected a Tensor, a non-empty tuple of Tensors{form}, "
                        f"got {type(value).__name__}")
    for k, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: {arg}[{k}] is {type(t).__name__}, expected a Tensor")
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise TypeError(f"{op}: {arg}[{k}] has dtype {t.dtype}; only floating-point tensors "
                            f"can be differentiated")
    if arg == "xs":
        for k, t in enumerate(items):
            if t.stop_gradient:
                raise ValueError(f"{op}: xs[{k}] has stop_gradient=True, so ys cannot have been "
                                 f"differentiated with respect to it; set x.stop_gradient = False "
                                 f"before computing ys")
    return items, single


__all__ = ["Hessian", "Jacobian", "hessian", "jacobian"]
