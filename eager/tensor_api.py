"""The Tensor methods that run ops or the autograd engine, attached to
:class:`eager.tensor.Tensor` when eager loads.

They cannot sit in the Tensor core: the engine, the hooks and the generated op
functions all import Tensor, so Tensor importing them would be a cycle.
``install`` puts them on the class in one place, together with every
generated op method (``x.matmul(y)`` is ``eager.matmul(x, y)``), as Paddle's
``monkey_patch_tensor`` does.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from phi import api as phi_api
from phi.common import DataType
from phi.common.tensor_kind import TensorKind
from phi.core.dense_tensor import DenseTensor
from phi.core.errors import ElementIndexError, InvalidArgumentError, PhiError, TensorArgumentError, UnimplementedError
from phi.infermeta.checks import check_representable

from .arguments import OPERATOR_FALLBACKS, as_called, bad_tensor, has_sparse, in_called, sparse_operation, to_bool
from .autograd import hooks
from .autograd.engine import run_backward
from .autograd.grad_mode import STATE as _grad_state
from .autograd.inplace import check_inplace_leaf
from .autograd.meta import is_flag_only_trainable
from . import signal as _signal
from .creation import to_tensor
from .errors import ArgumentKindError, AutogradError
from .composite import creation as _creation
from .composite import gather_scatter as _gather_scatter
from .composite import linalg as _linalg
from .composite import math_binary as _math_binary
from .composite import math_unary as _math_unary
from .composite import rearrange as _rearrange
from .composite import reduce_scan as _reduce_scan
from .composite import search_sort as _search_sort
from .generated import forward_api as _F
from .generated.tensor_methods import METHODS, OPERATORS
from .tensor import Tensor, _host_array
from .type_promotion import inplace_operator_operand, matmul_operands, operator_operands, promoted_dtype


def _comparison(dunder: str, op: str):
    """The Tensor operator ``dunder`` for the comparison ``op`` (``__eq__`` for 'equal'):
    a Tensor of another dtype is promoted as Paddle's operators do, a sparse operand is
    refused by name on the kernel's failure path, and a number goes through the scalar
    rules. One body for the six comparisons, which differ only in the op."""
    kernel = getattr(_F, op)

    def method(self, other):
        if isinstance(other, Tensor):
            if other.impl.dtype is not self.impl.dtype:
                self, other = operator_operands(self, other, op, promotes=False)
            try:
                return kernel(self, other)
            except UnimplementedError as error:
                return _refuse_sparse(op, error, self, other)
        try:
            return _binary(kernel, self, other, op)
        except TypeError:
            # Paddle 2.6's x == 'abc' is all False and x != 'abc' all True (a str is
            # never equal to a number); the other comparisons refuse it
            if isinstance(other, str) and op in ("equal", "not_equal"):
                return _F.full_like(self, op == "not_equal", dtype=DataType.BOOL)
            raise
    method.__name__, method.__qualname__ = dunder, f"TensorMethods.{dunder}"
    return method


class TensorMethods:
    """The methods :func:`install` copies onto Tensor (a class only to group them)."""

    def backward(self, grad_tensor=None, retain_graph: bool = False) -> None:
        """Accumulates d(self)/d(leaf) into ``leaf.grad`` for every leaf it depends on.

        ``grad_tensor`` seeds the gradient (default: ones of self's shape, as in
        Paddle); ``retain_graph`` keeps the saved tensors so backward can run
        again. On a tensor with ``stop_gradient=True`` it does nothing but warn,
        as in Paddle; likewise on an integer tensor (eager records no gradients
        through integers; Paddle would compute integer ones).
        """
        retain_graph = to_bool(retain_graph, "backward", "retain_graph")
        if self.stop_gradient:
            warnings.warn("backward: this tensor has stop_gradient=True, so no gradient flows "
                          "from it and nothing is computed", stacklevel=2)
            return
        if is_flag_only_trainable(self):
            warnings.warn(f"backward: this is an integer tensor ({self.dtype}); eager records no "
                          f"gradients through integer tensors (its stop_gradient=False is only a "
                          f"flag), so nothing is computed", stacklevel=2)
            return
        run_backward([self], [grad_tensor], retain_graph)

    def copy_(self, src, blocking: bool = True) -> None:
        """Copies ``src``'s values into this tensor's buffer, in place and unrecorded,
        as Paddle's ``Tensor.copy_(src, blocking)``: src must be a Tensor of this
        tensor's dtype and shape (Paddle would resize; eager keeps the buffer, so its
        views stay valid); it may lie on another place. A tensor that holds no data
        takes src's values, place, stop_gradient and persistable. ``blocking`` is
        accepted for Paddle's signature: copies here complete before the call returns.
        Returns None, as Paddle's.

        >>> x = eager.zeros([2])
        >>> x.copy_(eager.to_tensor([1.0, 2.0]), True)
        >>> x.numpy()
        array([1., 2.], dtype=float32)
        """
        if not isinstance(src, Tensor):
            raise TypeError(f"copy_: argument 'src' expected a Tensor, got {type(src).__name__}")
        to_bool(blocking, "copy_", "blocking")
        if not self.impl.initialized():
            if src.impl.initialized():
                self.impl.array = phi_api.assign(src.impl).array
                self.impl.bump_version()
            self.stop_gradient = src.stop_gradient
            self.persistable = src.persistable
            return None
        if src.dtype is not self.dtype:
            raise TypeError(f"copy_: argument 'src' expected dtype {self.dtype} (this tensor's), got {src.dtype}")
        if src.shape != self.shape:
            raise ValueError(f"copy_: argument 'src' expected shape {self.shape} (this tensor's), got {src.shape}")
        if src.impl.initialized():
            set_value(self, src if src.place == self.place else src._copy_to(self.place))
        return None

    @property
    def data(self):
        """This tensor itself, as Paddle's ``Tensor.data``; assigning a Tensor to it
        (``x.data = y``) makes x hold y's buffer (shape, dtype and values; x keeps
        its own autograd state), unrecorded, as Paddle's setter.

        >>> x = eager.zeros([2])
        >>> x.data = eager.to_tensor([1.0, 2.0, 3.0])
        >>> x.shape
        [3]
        """
        return self

    @data.setter
    def data(self, value) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data: expected a Tensor, got {type(value).__name__}")
        self.impl = value.impl

    @property
    def T(self):
        """This tensor with its axes reversed (Paddle 2.6's ``Tensor.T``): a 1-D
        tensor is returned as it is; differentiable.

        >>> eager.zeros([2, 3, 4]).T.shape
        [4, 3, 2]
        """
        if self.ndim == 1:
            return self
        return _F.transpose(self, list(range(self.ndim - 1, -1, -1)))

    def gradient(self):
        """The gradient as a NumPy array, or None (Paddle's ``Tensor.gradient()``).
        A sparse gradient (SelectedRows, from ``Embedding(sparse=True)``) comes as
        Paddle gives it: a tuple (values, rows), one value row per entry of rows.
        The arrays are snapshots, as Paddle's: unlike ``.grad.numpy()`` they do
        not share the gradient's buffer, which the next backward accumulates into
        and ``clear_grad()`` zeroes in place.

        >>> w = eager.create_parameter([5, 2], "float32")
        >>> eager.nn.functional.embedding(eager.to_tensor([3, 1]), w, sparse=True).sum().backward()
        >>> values, rows = w.gradient()
        >>> values.shape, rows
        ((2, 2), array([3, 1]))
        """
        grad = self.grad
        if grad is None:
            return None
        impl = grad.impl
        if impl.kind is TensorKind.SELECTED_ROWS:
            return np.array(_host_array(impl.value)), np.array(grad.rows(), dtype=np.int64)
        return np.array(grad.numpy())

    def register_hook(self, hook):
        """Calls ``hook(grad)`` when this tensor's gradient is computed; the hook may
        return a replacement (same shape, dtype and place). Returns a handle whose
        ``remove()`` unregisters it. Works on leaves and non-leaves.

        >>> h = y.register_hook(lambda g: g * 2)
        >>> h.remove()
        """
        return hooks.register_hook(self, hook)

    def retain_grads(self) -> None:
        """Keeps this non-leaf tensor's gradient in ``.grad`` after backward."""
        hooks.retain_grads(self)

    def register_post_accumulate_grad_hook(self, hook):
        """Calls ``hook(tensor)`` on this leaf after backward has updated its ``.grad``
        (where a data-parallel wrapper starts all-reducing it). Returns a handle."""
        return hooks.register_post_accumulate_grad_hook(self, hook)

    def _register_backward_hook(self, hook):
        """Paddle's name: ``hook()`` (no arguments) runs after this leaf's gradient is accumulated."""
        if not callable(hook):
            raise TypeError(f"_register_backward_hook: hook must be callable, got {type(hook).__name__}")
        return hooks.register_post_accumulate_grad_hook(self, lambda tensor: hook(), "_register_backward_hook")

    def __iter__(self):
        """Rows along the first axis, as ``for row in t`` and ``a, b = t`` expect."""
        if not self.impl.dims:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self.impl.dims[0]):
            yield self[i]

    def __format__(self, spec: str) -> str:
        """``f"{loss:.4f}"`` formats a one-element tensor as its number; with no
        format spec (``f"{x}"``) any tensor gives its repr, as ``str(x)`` and as
        Paddle's Tensor (which has no ``__format__`` of its own)."""
        if not spec:
            return str(self)
        if self.impl.numel == 1:
            return format(self.item(), spec)
        if spec:
            raise TypeError(f"unsupported format string {spec!r} for a tensor of shape {self.shape}; "
                            f"only one-element tensors format as numbers")
        return str(self)

    def item(self, *args):
        """One element as a Python number: the only one (no arguments), the one at a
        flat index ``x.item(i)``, or at a full index ``x.item(i, j, ...)``, as Paddle's
        ``Tensor.item(*args)``.

        >>> eager.to_tensor([[1, 2], [3, 4]]).item(1, 0)
        3
        """
        shape = self.shape
        if not args:
            if self.impl.numel != 1:
                raise ValueError(f"item(): only a tensor with one element converts to a Python number without "
                                 f"an index; this one has shape {shape}")
            return self.numpy().reshape(()).item()
        if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in args):
            # Paddle 2.6.2's argument parser raises ValueError ("must be long, but got float")
            raise ArgumentKindError(f"item(): expected int indices, got {args!r}")
        if len(args) == 1:
            count = self.impl.numel
            if not -count <= args[0] < count:
                raise ElementIndexError(f"item(): flat index {args[0]} is out of range for a tensor of "
                                        f"{count} element(s) (shape {shape})")
        elif len(args) != len(shape) or not all(-n <= i < n for i, n in zip(args, shape)):
            raise ElementIndexError(f"item(): index {list(args)} does not address one element of shape "
                                    f"{shape}")
        array = self.numpy()
        return array.item(int(args[0]) % max(array.size, 1)) if len(args) == 1 else array.item(tuple(args))

    def clone(self) -> "Tensor":
        """A copy of this tensor with its own buffer; gradients flow back through it."""
        return _F.assign(self)

    def astype(self, dtype) -> "Tensor":
        """This tensor converted to ``dtype`` (differentiable for floating types); a
        dtype that cannot be read is cast's error, naming the op and its argument."""
        return _F.cast(self, dtype)

    # -- Python operators ---------------------------------------------------
    # A Python scalar meets a tensor as in Paddle: a float scalar makes an
    # integer or bool tensor float32, a complex scalar makes any real tensor
    # complex, an int scalar makes a bool tensor int64; a scalar the result
    # dtype cannot hold is an error naming the operator.
    # Tensor's +, -, * (and reflected + and *) are the generated operators
    # (ops.yaml's operator, scalar_operator, reflected_operator): two tensors,
    # and a plain int or float on a floating tensor (scale), run in their one
    # frame; they hand every other operand to the methods below.
    def __add__(self, other):
        if isinstance(other, Tensor):
            return _F.add(*operator_operands(self, other, "add", promotes=True))
        return _binary(_F.add, self, other, "add")

    def __radd__(self, other):
        return self.__add__(other)

    def __sub__(self, other):
        if isinstance(other, Tensor):
            return _F.subtract(*operator_operands(self, other, "subtract", promotes=True))
        return _binary(_F.subtract, self, other, "subtract")

    def __rsub__(self, other):
        if type(other) in _PLAIN_REALS and self.impl.dtype in _FLOAT_DTYPES:
            try:
                return _F.scale(self, -1.0, other, True)
            except UnimplementedError as error:  # a sparse self (number - sparse: refused there)
                return sparse_operation("subtract", error, other, self)
        return _binary(_F.subtract, self, other, "subtract", reverse=True)

    def __mul__(self, other):
        if isinstance(other, Tensor):
            return _F.multiply(*operator_operands(self, other, "multiply", promotes=True))
        return _binary(_F.multiply, self, other, "multiply")

    def __rmul__(self, other):
        return self.__mul__(other)

    def __truediv__(self, other):
        if isinstance(other, Tensor):
            if self.impl.dtype is other.impl.dtype and self.impl.dtype in _FLOAT_DTYPES:
                return _F.divide(self, other)  # one floating dtype already: no _division_operands frame
            try:
                return _F.divide(*_division_operands(self, other))
            except UnimplementedError as error:  # an integer sparse operand, refused by cast
                return sparse_operation("divide", error, self, other)
        if not _is_number(other):  # an array: a Tensor of its own dtype, as Paddle makes it
            return self.__truediv__(_operand(self, other, "divide"))
        try:
            return _binary(_F.divide, _to_floating(self), other, "divide")
        except UnimplementedError as error:
            return sparse_operation("divide", error, self, other)

    def __rtruediv__(self, other):
        try:
            if not _is_number(other):  # an array: this tensor's dtype rules, the array on the left
                x, y = _division_operands(self, _operand(self, other, "divide"))
                return _F.divide(y, x)
            return _binary(_F.divide, _to_floating(self), other, "divide", reverse=True)
        except UnimplementedError as error:
            return sparse_operation("divide", error, other, self)

    # Python 2 names Paddle's Tensor still has (tests pass Tensor.__div__ as the dense divide).
    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __pow__(self, exponent):
        if _is_number(exponent):
            # Paddle: an integer tensor keeps its dtype under an integer exponent (the
            # pow op's integer kernel) and under a bool one (a tensor of x's dtype holding
            # 0 or 1); a float exponent makes it float32 first.
            try:
                if isinstance(exponent, (int, np.integer, np.bool_)) and self.impl.dtype.is_integer:
                    return _F.pow(self, int(exponent))
                return _F.pow(_to_floating(self), exponent)
            except UnimplementedError as error:
                return _refuse_sparse("pow", error, self, exponent)
        if not isinstance(exponent, Tensor):  # an array: a Tensor of its own dtype, as Paddle makes it
            exponent = _operand(self, exponent, "elementwise_pow")
        if exponent.impl.dtype is not self.impl.dtype:
            self, exponent = operator_operands(self, exponent, "elementwise_pow", promotes=False)
        return _F.elementwise_pow(self, exponent)

    def __rpow__(self, base):
        # base ** tensor: the number becomes a 0-d tensor (Paddle's promotion), so
        # the exponent's gradient is g * log(base) * base ** tensor.
        return _binary(_F.elementwise_pow, self, base, "elementwise_pow", reverse=True)

    def __floordiv__(self, other):
        if isinstance(other, Tensor) and other.impl.dtype is not self.impl.dtype:
            self, other = operator_operands(self, other, "floor_divide", promotes=False)
        return _binary(_F.floor_divide, self, other, "floor_divide")

    def __rfloordiv__(self, other):
        return _binary(_F.floor_divide, self, other, "floor_divide", reverse=True)

    def __mod__(self, other):
        if isinstance(other, Tensor) and other.impl.dtype is not self.impl.dtype:
            self, other = operator_operands(self, other, "remainder", promotes=False)
        return _binary(_F.remainder, self, other, "remainder")

    def __rmod__(self, other):
        return _binary(_F.remainder, self, other, "remainder", reverse=True)

    def __divmod__(self, other):
        return self.__floordiv__(other), self.__mod__(other)

    def __rdivmod__(self, other):
        return self.__rfloordiv__(other), self.__rmod__(other)

    def __and__(self, other):
        return _binary(_F.bitwise_and, self, other, "bitwise_and")

    def __rand__(self, other):
        return _binary(_F.bitwise_and, self, other, "bitwise_and", reverse=True)

    def __or__(self, other):
        return _binary(_F.bitwise_or, self, other, "bitwise_or")

    def __ror__(self, other):
        return _binary(_F.bitwise_or, self, other, "bitwise_or", reverse=True)

    def __xor__(self, other):
        return _binary(_F.bitwise_xor, self, other, "bitwise_xor")

    def __rxor__(self, other):
        return _binary(_F.bitwise_xor, self, other, "bitwise_xor", reverse=True)

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            other = _operand(self, other, "matmul")
        try:  # no cost unless matmul refuses the operands
            return _F.matmul(self, other, False, False)
        except InvalidArgumentError as error:  # two dtypes: Paddle's operator rule (eager.type_promotion)
            if has_sparse(self, other):
                return sparse_operation("matmul", error, self, other)
            return _F.matmul(*matmul_operands(self, other, error), False, False)
        except UnimplementedError as error:  # a sparse operand: eager.sparse.matmul
            return sparse_operation("matmul", error, self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, Tensor):
            other = _operand(self, other, "matmul")
        try:
            return _F.matmul(other, self, False, False)
        except InvalidArgumentError as error:
            if has_sparse(self, other):
                return sparse_operation("matmul", error, other, self)
            return _F.matmul(*matmul_operands(other, self, error), False, False)
        except UnimplementedError as error:
            return sparse_operation("matmul", error, other, self)

    def __neg__(self):
        try:
            return _F.scale(self, -1.0, 0.0, True)
        except UnimplementedError as error:  # a sparse self: eager.sparse.neg
            return sparse_operation("neg", error, self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _F.abs(self)

    def __invert__(self):
        """~x: bitwise not of an integer tensor, logical not of a bool one (Paddle)."""
        return _F.bitwise_not(self)

    def __getitem__(self, index):
        """Indexing by ints, slices, None, Ellipsis, bool masks and integer arrays (Paddle's rules:
        ints beside index arrays apply first); differentiable."""
        return _F.getitem(self, index)

    def __setitem__(self, index, value) -> None:
        """``x[index] = value`` in place (value broadcasts); differentiable for x's other
        elements and for value. Not allowed on a leaf that requires grad while recording."""
        try:
            if not isinstance(value, Tensor):
                if isinstance(value, (list, tuple)):
                    raise ArgumentKindError(
                        f"setitem: argument 'value' expected a Tensor, a NumPy array or a number, got "
                        f"{type(value).__name__} {value!r:.80}; as in Paddle, a list or tuple is not "
                        f"taken (convert it with numpy.array or to_tensor)")
                value = _operand(self, value, "setitem_")  # an array keeps its dtype here
            if value.dtype != self.dtype:  # a Tensor or NumPy array of another dtype: cast, as Paddle
                value = value.astype(self.dtype)
            _F.setitem_(self, value, index)
        except (PhiError, ArgumentKindError, AutogradError) as error:  # the user wrote x[index] = value
            raise as_called(error, "setitem_", "setitem", {"other": "value"}) from None

    def __iadd__(self, other):
        if _is_number(other):
            _inplace_scalar(self, other, "+=")
            if _fits_scale(self, other):
                return _F.scale_(self, 1.0, other, True)
        return _inplace_operator(self, other, _F.add_, "add_", "add", True)

    def __isub__(self, other):
        if _is_number(other):
            _inplace_scalar(self, other, "-=")
            if _fits_scale(self, other):
                return _F.scale_(self, 1.0, -other, True)
        return _inplace_operator(self, other, _F.subtract_, "subtract_", "subtract", True)

    def __imul__(self, other):
        if _is_number(other):
            _inplace_scalar(self, other, "*=")
            if _fits_scale(self, other):
                return _F.scale_(self, other, 0.0, True)
        return _inplace_operator(self, other, _F.multiply_, "multiply_", "multiply", True)

    def __itruediv__(self, other):
        if not _is_inexact(self.dtype):
            raise TypeError(f"/=: true division of a {self.dtype} tensor cannot be stored in place; "
                            f"use x = x / y")
        if _is_number(other):
            _inplace_scalar(self, other, "/=")
        return _inplace_operator(self, other, _F.divide_, "divide_", "divide", False)

    # Defining __eq__ in this class body sets its __hash__ to None, and install()
    # would copy that onto Tensor; a tensor hashes by identity, as Paddle's
    # (``hash(id(self))``): tensors are dict keys and set members (parameter groups).
    __hash__ = Tensor.__hash__

    __eq__, __ne__ = _comparison("__eq__", "equal"), _comparison("__ne__", "not_equal")
    __lt__, __le__ = _comparison("__lt__", "less_than"), _comparison("__le__", "less_equal")
    __gt__, __ge__ = _comparison("__gt__", "greater_than"), _comparison("__ge__", "greater_equal")


# -- functions that pick an op by their arguments' types (eager.pow, Tensor.pow, ...) --------

def pow(x, y, name=None):  # noqa: A001  (Paddle's name)
    """x ** y elementwise: a Python number y runs ``pow`` (its scalar attribute), a
    Tensor y runs ``elementwise_pow`` (broadcasting, differentiable in y too), as
    Paddle's ``paddle.pow`` dispatches.

    >>> eager.pow(x, 2.0)                      # pow
    >>> eager.pow(x, eager.to_tensor([1.0, 2.0]))   # elementwise_pow
    """
    if isinstance(y, Tensor):
        return _F.elementwise_pow(x, y)
    if isinstance(y, str):  # Paddle's paddle.pow takes a number or a tensor, not the string its op would parse
        raise TypeError(f"pow: argument 'y' expected a number or a Tensor, got str {y!r}")
    return _F.pow(x, y)


def equal(x, y, name=None):
    """x == y elementwise, a bool tensor. ``y`` may also be a Python int, float or
    bool, taken as a 0-d tensor of x's dtype (as Paddle 2.6's ``paddle.equal``
    fills one: against an integer x, 1.5 is compared as 1).

    >>> eager.equal(eager.to_tensor([1.0, 2.0]), 2.0)   # [False, True]
    """
    if isinstance(x, Tensor) and isinstance(y, (bool, int, float)):
        try:
            check_representable("y", y, x.impl.dtype)
        except PhiError as error:
            raise error.in_op("equal") from None
        y = Tensor(phi_api.full([], y, x.impl.dtype, x.place))
    return _F.equal(x, y)


def _lerp_weight(x, weight):
    """A number weight as a 0-d tensor of x's dtype and place (Paddle's ``paddle.lerp``)."""
    if isinstance(x, Tensor) and _is_number(weight) and not isinstance(weight, (bool, np.bool_, complex)):
        return Tensor(phi_api.full([], weight, x.impl.dtype, x.place))
    return weight


def lerp(x, y, weight, name=None):
    """x + weight * (y - x) elementwise; ``weight`` is a Tensor (broadcast with x and
    y, and differentiable) or a Python number."""
    return _F.lerp(x, y, _lerp_weight(x, weight))


def lerp_(x, y, weight, name=None):
    """Inplace :func:`lerp`: writes the result into x and returns it."""
    return _F.lerp_(x, y, _lerp_weight(x, weight))


def nonzero(x, as_tuple=False):
    """The coordinates of x's non-zero elements: an int64 tensor [count, x.ndim]
    in row-major order, or with ``as_tuple=True`` a tuple of x.ndim int64
    tensors of shape [count, 1], one per axis, as Paddle returns them (so a 0-d x,
    having no axis, gives an empty tuple).

    >>> eager.nonzero(eager.to_tensor([0.0, 1.0, 0.0, 3.0]), as_tuple=True)[0].numpy().ravel()
    array([1, 3])
    """
    if not isinstance(as_tuple, bool):
        raise TypeError(f"nonzero: argument 'as_tuple' expected a bool, got {as_tuple!r}")
    out = _F.nonzero(x)
    if not as_tuple:
        return out
    ndim = len(x.shape)
    if ndim == 0:
        return ()  # Paddle: one tensor per axis, and a 0-d x has none
    return tuple(_F.split(out, ndim, axis=1)) if ndim > 1 else (out,)


def index_add(x, index, axis, value, name=None):
    """x with the slices of ``value`` added at ``index`` along ``axis``, in
    Paddle's argument order ``(x, index, axis, value)`` (the op itself, as in
    Paddle's ops.yaml, takes ``(x, index, value, axis)``). Repeated indices add up.

    >>> eager.index_add(eager.zeros([3, 2]), eager.to_tensor([0, 0]), 0, eager.ones([2, 2]))
    """
    return _F.index_add(x, index, value, axis)


def index_add_(x, index, axis, value, name=None):
    """Inplace :func:`index_add`: writes the result into x and returns it."""
    return _F.index_add_(x, index, value, axis)


def meshgrid(*args, name=None):
    """Coordinate grids of 1-d tensors, in Paddle's form ``meshgrid(x, y, ...)`` or
    ``meshgrid([x, y, ...])``: a list of tensors of shape [len(x), len(y), ...]
    ("ij" indexing). Differentiable.

    >>> [g.shape for g in eager.meshgrid(eager.ones([2]), eager.ones([3]))]
    [[2, 3], [2, 3]]
    """
    if not args:
        raise TypeError("meshgrid: expected at least one Tensor (meshgrid(x, y, ...) or meshgrid([x, y, ...])), "
                        "got none")
    tensors = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    return _F.meshgrid(list(tensors))


def _where_operand(value, other):
    """A Python number x or y of :func:`where` as a 0-d tensor of the other operand's
    dtype and place (a shape-[1] tensor of its NumPy dtype when both are numbers)."""
    if not _is_number(value) or isinstance(value, complex):
        return value
    if isinstance(other, Tensor):
        return Tensor(phi_api.full([], value, other.impl.dtype, other.place))
    return to_tensor(np.array([value]))


def where(condition, x=None, y=None, name=None):
    """Elements of ``x`` where ``condition`` is true, of ``y`` elsewhere (the three
    broadcast together; differentiable in x and y). ``x`` or ``y`` may be a Python
    number (a 0-d tensor of the other one's dtype). With neither x nor y, Paddle's
    ``where(condition)``: ``nonzero(condition, as_tuple=True)``.

    >>> eager.where(eager.to_tensor([True, False]), eager.to_tensor([1.0, 2.0]), 0.0).numpy()
    array([1., 0.], dtype=float32)
    >>> eager.where(eager.to_tensor([False, True]))[0].numpy().ravel()
    array([1])
    """
    if x is None and y is None:
        if not isinstance(condition, Tensor):
            raise bad_tensor("where", "condition", condition)
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError(f"where: arguments 'x' and 'y' expected both or neither, got x={x!r} and y={y!r}")
    x, y = _where_operand(x, y), _where_operand(y, x)
    try:
        return _F.where(condition, x, y)
    except InvalidArgumentError:
        # Paddle 2.6.2 promotes x and y of two float dtypes (float32 with float64 gives
        # float64), as add does; checked only after the kernel refused the pair.
        if isinstance(x, Tensor) and isinstance(y, Tensor) and x.dtype is not y.dtype:
            target = promoted_dtype(x.dtype, y.dtype)
            if target is not None:
                return _F.where(condition, x.astype(target), y.astype(target))
        raise


def diag_embed(input, offset=0, dim1=-2, dim2=-1, name=None):  # noqa: A002  (Paddle's argument name)
    """The last axis of ``input`` placed on diagonal ``offset`` of the planes (dim1, dim2)
    of a result with one more dimension, zeros elsewhere (differentiable). As in Paddle
    2.6.2, an input that is a NumPy array or a list becomes a tensor as
    :func:`eager.assign` makes it (float64 data becomes float32).

    >>> eager.diag_embed([1.0, 2.0]).numpy()
    array([[1., 0.],
           [0., 2.]], dtype=float32)
    """
    if isinstance(input, (np.ndarray, list, tuple)):
        input = _creation.assign(input)
    return _F.diag_embed(input, offset, dim1, dim2)


def expand_as(x, y, name=None):
    """x broadcast to the shape of ``y`` (differentiable in x). Only y's shape is read,
    so, as in Paddle 2.6.2, y may also be a NumPy array.

    >>> eager.expand_as(eager.to_tensor([1.0, 2.0]), np.zeros((3, 2))).shape
    [3, 2]
    """
    if isinstance(y, np.ndarray):  # Paddle's expand_as passes y.shape on, whatever y is
        return _F.expand(x, list(y.shape))
    return _F.expand_as(x, y)


def unbind(input, axis=0):  # noqa: A002  (Paddle's argument name)
    """The slices of ``input`` along ``axis``, each without that axis (views of
    input), under Paddle's argument names ``unbind(input, axis=0)``.

    >>> [t.shape for t in eager.unbind(eager.ones([2, 3]), axis=1)]
    [[2], [2], [2]]
    """
    return _F.unbind(input, axis)


def gather(x, index, axis=None, name=None):
    """The slices of x at ``index`` (a 1-d int tensor) along ``axis``; Paddle's
    default ``axis=None`` means axis 0. Differentiable in x.

    >>> eager.gather(eager.to_tensor([[1, 2], [3, 4]]), eager.to_tensor([1])).numpy()
    array([[3, 4]])
    """
    return _F.gather(x, index, 0 if axis is None else axis)


def _activation(op: str, act, inplace: bool):
    """The op function named by ``scale``'s ``act`` (its inplace ``<act>_`` form when inplace)."""
    if not isinstance(act, str):
        raise TypeError(f"{op}: argument 'act' expected None or the name of an activation op "
                        f"(such as 'relu', 'tanh', 'sigmoid'), got {type(act).__name__} {act!r}")
    function = getattr(_F, act + "_" if inplace else act, None)
    if not callable(function):
        raise ValueError(f"{op}: argument 'act' expected None or the name of an activation op that has "
                         f"{'an inplace form ' if inplace else ''}(such as 'relu', 'tanh', 'sigmoid'), got {act!r}")
    return function


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):  # noqa: A002
    """x * scale + bias (or (x + bias) * scale when ``bias_after_scale`` is False),
    then the activation op named by ``act`` (such as ``'relu'``) if given, as Paddle's
    ``paddle.scale``. Differentiable.

    >>> eager.scale(eager.to_tensor([-1.0, 2.0]), 2.0, 1.0, True, "relu").numpy()
    array([0., 5.], dtype=float32)
    """
    activation = None if act is None else _activation("scale", act, inplace=False)
    out = _F.scale(x, scale, bias, bias_after_scale)
    return out if activation is None else activation(out)


def scale_(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):  # noqa: A002
    """Inplace :func:`scale`: writes the result into x and returns it; ``act`` runs the
    activation (``relu`` for ``'relu'``) on it too."""
    if act is None:
        return _F.scale_(x, scale, bias, bias_after_scale)
    activation = _activation("scale_", act, inplace=False)
    # The activation may refuse what scale_ would already have written (tanh of an integer
    # x): the result is computed first, then written over x once, so a refused call leaves x.
    try:
        out = activation(_F.scale(x, scale, bias, bias_after_scale))
    except (TypeError, ValueError, IndexError, PhiError) as error:
        renamed = as_called(error, "scale", "scale_")
        raise (renamed if renamed is not error else in_called(error, "scale_")) from None
    if _grad_state.enabled:
        check_inplace_leaf("scale_", x)
    if out.dtype != x.dtype:
        raise TypeError(f"scale_: the result of act={act!r} is {out.dtype} but x, written in place, is {x.dtype}")
    x[...] = out
    return x


def _check_out(op: str, out) -> None:
    """``out`` of the logical and bitwise functions: Paddle's dynamic mode takes it and
    neither writes nor checks it (only its static graph writes ``out``; the tensor guide
    calls ``x.logical_not(y)``, passing ``y`` there), so it is ignored here too; only a
    non-Tensor is refused, before any work."""
    if out is not None and not isinstance(out, Tensor):
        raise TypeError(f"{op}: argument 'out' expected None or a Tensor, got {type(out).__name__}")


def _with_out_binary(op: str):
    generated = getattr(_F, op)

    def function(x, y, out=None, name=None):
        _check_out(op, out)
        return generated(x, y)
    function.__name__ = function.__qualname__ = op
    function.__doc__ = (f"{generated.__doc__ or op}\n\nPaddle's ``{op}(x, y, out=None, name=None)``: as in "
                        f"Paddle's dynamic mode, ``out`` is accepted and left untouched; the result is a new "
                        f"Tensor.\n\n>>> eager.{op}(x, y)\n")
    return function


def _with_out_unary(op: str):
    generated = getattr(_F, op)

    def function(x, out=None, name=None):
        _check_out(op, out)
        return generated(x)
    function.__name__ = function.__qualname__ = op
    function.__doc__ = (f"{generated.__doc__ or op}\n\nPaddle's ``{op}(x, out=None, name=None)``: as in "
                        f"Paddle's dynamic mode, ``out`` is accepted and left untouched; the result is a new "
                        f"Tensor.\n\n>>> eager.{op}(x)\n")
    return function


logical_and, logical_or, logical_xor = (_with_out_binary(op) for op in ("logical_and", "logical_or", "logical_xor"))
bitwise_and, bitwise_or, bitwise_xor = (_with_out_binary(op) for op in ("bitwise_and", "bitwise_or", "bitwise_xor"))
logical_not, bitwise_not = _with_out_unary("logical_not"), _with_out_unary("bitwise_not")


def _with_out_shift(op: str):
    generated = getattr(_F, op)

    def function(x, y, is_arithmetic=True, out=None, name=None):
        _check_out(op, out)
        return generated(x, y, is_arithmetic)
    function.__name__ = function.__qualname__ = op
    function.__doc__ = (f"{generated.__doc__ or op}\n\nPaddle's ``{op}(x, y, is_arithmetic=True, out=None, "
                        f"name=None)``: as in Paddle's dynamic mode, ``out`` is accepted and left untouched; "
                        f"the result is {'x' if op.endswith('_') else 'a new Tensor'}.\n\n>>> eager.{op}(x, y)\n")
    return function


bitwise_left_shift, bitwise_right_shift, bitwise_left_shift_, bitwise_right_shift_ = (
    _with_out_shift(op) for op in ("bitwise_left_shift", "bitwise_right_shift", "bitwise_left_shift_",
                                   "bitwise_right_shift_"))


def set_value(self, value) -> "Tensor":
    """Overwrites this tensor's data with ``value`` (a Tensor or NumPy array of
    the same shape and dtype), in place and unrecorded, as Paddle's
    ``Tensor.set_value``: the tensor keeps its buffer, so an optimizer or a layer
    holding it sees the new value; saved copies of the old value in a graph are
    invalidated (the version counter moves). A tensor that holds no data
    (``eager.tensor.create_tensor``, ``Layer.create_variable``) takes a copy of
    ``value``, which must have the shape and dtype it was made with (shape [],
    as Paddle checks). Returns the tensor.

    >>> w.set_value(np.zeros(w.shape, dtype="float32"))
    """
    if isinstance(value, Tensor):
        if not value.impl.initialized():
            raise TypeError("set_value: argument 'value' expected a Tensor with data, got one that holds no "
                            "data (not initialized)")
        dims, dtype = list(value.impl.dims), value.impl.dtype
    elif isinstance(value, np.ndarray):
        dims = list(value.shape)
        try:
            dtype = DataType.from_numpy(value.dtype)
        except TypeError:
            raise TypeError(f"set_value: argument 'value' has a dtype eager cannot hold: {value.dtype}") from None
    else:
        raise TypeError(f"set_value: argument 'value' expected a Tensor or numpy.ndarray, got "
                        f"{type(value).__name__}")
    empty = not self.impl.initialized()
    if dims != self.shape:
        hint = (" (this tensor holds no data: its shape is the one it was made with, as Paddle's; "
                "eager.assign(value, tensor) gives it value's shape)" if empty else "")
        raise ValueError(f"set_value: argument 'value' expected shape {self.shape}, got {dims}{hint}")
    if dtype is not self.impl.dtype:
        raise TypeError(f"set_value: argument 'value' expected dtype {self.impl.dtype}, got {dtype}")
    if empty:
        # No buffer to write into (eager.tensor.create_tensor, Layer.create_variable): this
        # DenseTensor takes a copy of the value (Paddle's get_tensor().set()), so whoever
        # holds the tensor or its get_tensor() sees the data.
        source = (value.impl if isinstance(value, Tensor) and value.place == self.place
                  else to_tensor(value, place=self.place).impl)  # a conversion point: data to a tensor
        self.impl.array = phi_api.assign(source).array
        self.impl.bump_version()
        return self
    if isinstance(value, Tensor) and value.place == self.place:
        source = value.impl
    elif type(value) is np.ndarray and type(self.impl.array) is np.ndarray:
        # A host array into a host buffer: read in place, one copy (to_tensor would make
        # a second); NumPy's assignment copies first a value that overlaps the buffer.
        source = DenseTensor(value)
    else:
        source = to_tensor(value, place=self.place).impl  # a conversion point: data to a tensor
    phi_api.assign_out_(source, self.impl)
    return self


# Tensor methods that dispatch on an argument's type or reorder arguments as
# Paddle's Python API does, installed over the generated ones.
_DISPATCHING_METHODS = {"pow": pow, "equal": equal, "lerp": lerp, "lerp_": lerp_, "nonzero": nonzero, "index_add": index_add,
                        "index_add_": index_add_, "set_value": set_value,
                        # Paddle's argument lists over the generated ones (x.where(...), x.scale(..., act)):
                        "where": where, "gather": gather, "scale": scale, "scale_": scale_,
                        "expand_as": expand_as,  # y may be a NumPy array (only its shape is read)
                        "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor,
                        "logical_not": logical_not, "bitwise_and": bitwise_and, "bitwise_or": bitwise_or,
                        "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not,
                        "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
                        "bitwise_left_shift_": bitwise_left_shift_, "bitwise_right_shift_": bitwise_right_shift_}


def _is_inexact(dtype: DataType) -> bool:
    return dtype.is_floating_point or dtype.is_complex


def _is_number(value) -> bool:
    # np.bool_ is no numbers.Number, but Paddle's operators take it as the Python bool it holds
    return isinstance(value, (numbers.Number, np.bool_)) and not isinstance(value, np.ndarray)


def _scalar_result_dtype(dtype: DataType, scalar) -> DataType:
    """The dtype of ``tensor (op) scalar`` under Paddle's promotion rules."""
    if isinstance(scalar, (bool, np.bool_)):
        return dtype
    if isinstance(scalar, (int, np.integer)):
        return DataType.INT64 if dtype is DataType.BOOL else dtype
    if isinstance(scalar, (float, np.floating)):
        return dtype if _is_inexact(dtype) else DataType.FLOAT32
    if dtype.is_complex:
        return dtype
    return DataType.COMPLEX128 if dtype is DataType.FLOAT64 else DataType.COMPLEX64


# ``scale`` (x * a + b, real attributes) computes x (op) scalar exactly for a
# floating tensor and a plain Python int or float: the operators' fast path.
# A tuple, not a set: ``in`` finds a member by identity first, where a set would
# hash it, and an Enum's __hash__ is a Python-level call (~100 ns a lookup).
_PLAIN_REALS = frozenset({int, float})
_DENSE_KIND = TensorKind.DENSE
_FLOAT_DTYPES = tuple(sorted((dtype for dtype in DataType if dtype.is_floating_point),
                             key=lambda dtype: dtype is not DataType.FLOAT32))  # the common one first


def _fits_scale(x: Tensor, scalar) -> bool:
    return type(scalar) in _PLAIN_REALS and x.impl.dtype in _FLOAT_DTYPES


def _scalar_tensor(scalar, dtype: DataType, place, op: str) -> Tensor:
    try:
        check_representable("other", scalar, dtype)
    except PhiError as error:
        raise error.in_op(op) from None
    return Tensor(phi_api.full([], scalar, dtype, place))


def _refuse_sparse(op: str, error: UnimplementedError, *operands):
    """On the failure path of an operator paddle.sparse has no function for (``**``,
    comparisons): a sparse operand makes it the TypeError that names the operators
    sparse tensors take, as the operator's other paths give; ``error`` otherwise."""
    if has_sparse(*operands):
        return sparse_operation(op, None, *operands)
    raise error


# The operators whose Tensor operands of two dtypes are cast to one (promoted for
# + - * /, else the right one cast to the left one's dtype): the ops they run.
_PROMOTING_OPERATORS = frozenset({"add", "subtract", "multiply"})
_CASTING_OPERATORS = _PROMOTING_OPERATORS | frozenset({
    "floor_divide", "remainder", "elementwise_pow",
    "equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal"})


def _binary(fn, x: Tensor, other, op: str, reverse: bool = False):
    """fn(x, other) (or fn(other, x)) with other made a Tensor, scalars promoted."""
    if x.impl.kind is not _DENSE_KIND and has_sparse(x):  # eager.sparse's operator rules, on the operands as given
        return sparse_operation(op, None, *((other, x) if reverse else (x, other)))
    if isinstance(other, Tensor):
        y = other
    elif _is_number(other):
        dtype = _scalar_result_dtype(x.dtype, other)
        if dtype is not x.dtype:
            x = x.astype(dtype)
        y = _scalar_tensor(other, dtype, x.place, op)
    else:
        y = _operand(x, other, op)
        if y.impl.dtype is not x.impl.dtype and op in _CASTING_OPERATORS:
            # Paddle's operators make an array a Tensor of its own dtype, which then
            # meets x as a Tensor operand does (x keeps the left place when reflected)
            x, y = operator_operands(x, y, op, promotes=op in _PROMOTING_OPERATORS)
    return fn(y, x) if reverse else fn(x, y)


def _inplace_scalar(x: Tensor, scalar, op: str) -> None:
    """An inplace op keeps x's dtype: a scalar that would change it is refused."""
    if _scalar_result_dtype(x.dtype, scalar) is not x.dtype:
        kind = type(scalar).__name__
        raise TypeError(f"{op}: the result of a {x.dtype} tensor and the {kind} {scalar!r} is not "
                        f"{x.dtype}, so it cannot be stored in place; use x = x {op[0]} {scalar!r}")


def _to_floating(x: Tensor) -> Tensor:
    if _is_inexact(x.dtype):
        return x
    return x.astype(DataType.FLOAT32)


def _division_operands(x: Tensor, y: Tensor):
    """x and y of Paddle 2.6's ``x / y`` for two Tensors: a complex operand promotes
    both (as + - * do); any other pair of dtypes casts y to x's dtype, with a warning
    (float32 / float64 is float32, and an integer x truncates a float y), as its
    ``__div__`` does before integers become float32."""
    if y.impl.dtype is not x.impl.dtype:
        x, y = operator_operands(x, y, "divide", promotes=x.dtype.is_complex or y.dtype.is_complex)
    return _to_floating(x), _to_floating(y)


def _inplace_operator(x: Tensor, other, fn, op: str, operator: str, promotes: bool) -> Tensor:
    """``x += y`` (``-= *= /=``): the inplace op; where it refused y's dtype and the
    operator ``x + y`` would give x's dtype by casting y (float32 += int64, as
    Paddle's ``+=`` computes it), again with y cast. Checked only after a refusal."""
    operand = _operand(x, other, op)
    try:
        return fn(x, operand)
    except PhiError:
        cast = inplace_operator_operand(x, operand, operator, promotes)
        if cast is None:
            raise
    return fn(x, cast)


def _operand(x: Tensor, other, op: str) -> Tensor:
    """The other side of a binary operator as a Tensor: numbers take x's dtype and
    place, arrays keep their own dtype (a mismatch is then reported by the op)."""
    if isinstance(other, Tensor):
        return other
    if _is_number(other):
        return _scalar_tensor(other, x.dtype, x.place, op)
    if isinstance(other, np.ndarray):
        return to_tensor(other, place=x.place)
    if type(other).__module__.startswith("cupy"):
        return to_tensor(other, place=x.place)
    # A TypeError and the ValueError Paddle's operators raise ("argument (position 1) must be
    # int, float, bool or Tensor"); Paddle refuses a list or tuple too.
    hint = " (convert it with numpy.array or to_tensor)" if isinstance(other, (list, tuple)) else ""
    raise TensorArgumentError(
        f"{op}: cannot combine a Tensor with {type(other).__name__}; expected a Tensor, a "
        f"number or a numpy array{hint}"
    )


def _stft(self, *args, **kwargs):
    """Paddle's ``Tensor.stft``: :func:`eager.signal.stft` of this tensor."""
    return _signal.stft(self, *args, **kwargs)  # looked up at call time: eager.signal may still be loading here


def _istft(self, *args, **kwargs):
    """Paddle's ``Tensor.istft``: :func:`eager.signal.istft` of this tensor."""
    return _signal.istft(self, *args, **kwargs)


# Paddle's Tensor methods for the functions composed in eager.composite (x.mm(y) is
# eager.mm(x, y)), and the inplace fills and queries of eager.tensor_queries (eager.linalg
# attaches its own, x.cov(): it loads after this module, which the generated code it calls loads).
_COMPOSED_METHODS = {
    **{name: getattr(_math_unary, name) for name in (
        "logit", "sgn", "signbit", "sinc", "stanh", "deg2rad", "rad2deg", "frexp")},
    **{name: getattr(_math_unary, name) for name in (
        "gammaln", "gammaln_", "multigammaln", "isposinf", "isneginf", "isreal",
        "log_normal_")},
    **{name: getattr(_math_binary, name) for name in ("logaddexp", "heaviside", "gcd", "lcm", "ldexp", "copysign")},
    **{name: getattr(_linalg, name) for name in ("mm", "addmm", "tensordot", "dist", "renorm", "cdist")},
    **{name: getattr(_linalg, name) for name in ("baddbmm", "pdist")},
    "crop": _rearrange.crop,
    "multiplex": _gather_scatter.multiplex,
    "shard_index": _gather_scatter.shard_index,
    "bucketize": _search_sort.bucketize,
    "index_sample": _gather_scatter.index_sample,
    **{name: getattr(_gather_scatter, name) for name in (
        "take", "index_fill", "isin", "select_scatter", "slice_scatter", "diagonal_scatter",
        "fill_diagonal_tensor")},
    **{name: getattr(_reduce_scan, name) for name in (
        "quantile", "nanquantile", "nanmedian", "diff", "trapezoid", "cumulative_trapezoid")},
    **{name: getattr(_rearrange, name) for name in (
        "hsplit", "vsplit", "dsplit", "unflatten", "unfold", "view", "view_as", "unique_consecutive")},
    **{name: getattr(_creation, name) for name in ("as_complex", "as_real")},
    "stft": _stft,
    "istft": _istft,
    "add_n": _math_binary.add_n,
    **{name: getattr(_creation, name) for name in ("polar", "vander")},
    # Paddle 2.6 binds these as methods too (x.atleast_2d(), x.combinations(2), x.histogramdd()):
    **{name: getattr(_rearrange, name) for name in ("atleast_1d", "atleast_2d", "atleast_3d", "combinations")},
    "histogramdd": _search_sort.histogramdd,
    "reverse": _F.flip,  # Paddle's paddle.reverse is flip
}


# What every class body defines for itself: not methods to copy.
_CLASS_MACHINERY = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
                              "__firstlineno__", "__static_attributes__"})


def install() -> None:
    """Attaches the methods above and the generated op methods to Tensor (idempotent)."""
    for name, value in vars(TensorMethods).items():
        if name not in _CLASS_MACHINERY:
            setattr(Tensor, name, value)
    for name, function in METHODS.items():
        setattr(Tensor, name, function)
    for name, function in _DISPATCHING_METHODS.items():
        setattr(Tensor, name, function)
    for name, function in _COMPOSED_METHODS.items():
        setattr(Tensor, name, function)
    # x + y of two Tensors in one frame: the generated operator runs the op's body
    # itself and hands any other operand to the method above (its fallback).
    for name, function in OPERATORS.items():
        OPERATOR_FALLBACKS[name] = vars(TensorMethods)[name]
        setattr(Tensor, name, function)


install()
