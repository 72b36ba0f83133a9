"""The API Tensor: a phi TensorBase (``impl``) plus autograd metadata.

Op methods (``x.matmul(y)``, ``x.sum()``, ...) come from the generated
TensorMethods base; this file holds what is not an op: properties, autograd
entry points, conversion and Python operators (which map onto ops, with the
scalar handling Python users expect).
"""
from __future__ import annotations

import numbers

import numpy as np

from phi.common import DataType, convert_dtype
from phi.common.data_type import FLOATING_TYPES, COMPLEX_TYPES
from phi.core import DenseTensor

from .autograd.meta import AutogradMeta
from .generated.tensor_methods import TensorMethods


class Tensor(TensorMethods):
    """An n-d array that can record the operations made on it for autograd.

    Made by :func:`eager.to_tensor` or by ops. ``stop_gradient`` is True by
    default, as in Paddle: set it to False on the tensors you want gradients for.

    >>> w = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> (w * w).sum().backward()
    >>> w.grad.numpy()
    array([2., 4.], dtype=float32)
    """

    __slots__ = ("impl", "_meta", "_name", "__weakref__")
    __array_priority__ = 100  # numpy defers to our reflected operators

    def __init__(self, impl, meta=None):
        self.impl = impl
        self._meta = meta
        self._name = None

    # -- what it is ---------------------------------------------------------
    @property
    def shape(self) -> list:
        return list(self.impl.array.shape)

    @property
    def ndim(self) -> int:
        return self.impl.array.ndim

    dim = ndim

    @property
    def size(self) -> int:
        return int(self.impl.array.size)

    def numel(self) -> int:
        return int(self.impl.array.size)

    @property
    def dtype(self) -> DataType:
        return DataType.from_numpy(self.impl.array.dtype)

    @property
    def place(self):
        return self.impl.place

    @property
    def name(self) -> str:
        if self._name is None:
            self._name = _next_name()
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = str(value)

    @property
    def inplace_version(self) -> int:
        """How many times this tensor's buffer was modified in place."""
        return self.impl.version

    # -- autograd -----------------------------------------------------------
    @property
    def stop_gradient(self) -> bool:
        meta = self._meta
        return meta is None or meta.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        value = bool(value)
        meta = self._meta
        if meta is None:
            if value:
                return
            if not (self.dtype in FLOATING_TYPES or self.dtype in COMPLEX_TYPES):
                raise TypeError(
                    f"stop_gradient=False needs a floating-point or complex tensor; this one "
                    f"is {self.dtype}. Cast it first, e.g. x.astype('float32')"
                )
            self._meta = AutogradMeta()
        else:
            meta.stop_gradient = value

    @property
    def grad(self):
        """The gradient accumulated by backward(), or None."""
        meta = self._meta
        return None if meta is None else meta.grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"grad: expected a Tensor or None, got {type(value).__name__}")
            if value.shape != self.shape or value.dtype != self.dtype:
                raise ValueError(
                    f"grad: expected a tensor of {self.dtype}{self.shape}, got "
                    f"{value.dtype}{value.shape}"
                )
        if self._meta is None:
            self._meta = AutogradMeta(stop_gradient=True)
        self._meta.grad = value

    @property
    def is_leaf(self) -> bool:
        """True for tensors not made by a recorded op (the user's own tensors)."""
        meta = self._meta
        return meta is None or meta.node is None or meta.node.is_accumulation

    @property
    def grad_node(self):
        """The grad node that made this tensor (its accumulation node for a leaf), or None."""
        meta = self._meta
        return None if meta is None else meta.node

    grad_fn = grad_node

    def backward(self, grad_tensor=None, retain_graph: bool = False) -> None:
        """Accumulates d(self)/d(leaf) into ``leaf.grad`` for every leaf it depends on.

        ``grad_tensor`` seeds the gradient (required unless self has one element);
        ``retain_graph`` keeps the saved tensors so backward can run again.
        """
        from .autograd.engine import run_backward

        run_backward([self], [grad_tensor], retain_graph)

    def register_hook(self, hook):
        """Calls ``hook(grad)`` when this tensor's gradient is computed; the hook may
        return a replacement (same shape, dtype and place). Returns a handle whose
        ``remove()`` unregisters it. Works on leaves and non-leaves.

        >>> h = y.register_hook(lambda g: g * 2)
        >>> h.remove()
        """
        from .autograd.hooks import register_hook

        return register_hook(self, hook)

    def retain_grads(self) -> None:
        """Keeps this non-leaf tensor's gradient in ``.grad`` after backward."""
        from .autograd.hooks import retain_grads

        retain_grads(self)

    def register_post_accumulate_grad_hook(self, hook):
        """Calls ``hook(tensor)`` on this leaf after backward has updated its ``.grad``
        (where a data-parallel wrapper starts all-reducing it). Returns a handle."""
        from .autograd.hooks import register_post_accumulate_grad_hook

        return register_post_accumulate_grad_hook(self, hook)

    def _register_backward_hook(self, hook):
        """Paddle's name: ``hook()`` (no arguments) runs after this leaf's gradient is accumulated."""
        return self.register_post_accumulate_grad_hook(lambda tensor: hook())

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Resets ``.grad``: to zeros (Paddle's default), or to None with set_to_zero=False."""
        meta = self._meta
        if meta is None or meta.grad is None:
            return
        if set_to_zero:
            meta.grad = Tensor(DenseTensor(_xp(meta.grad).zeros_like(meta.grad.impl.array)))
        else:
            meta.grad = None

    clear_gradient = clear_grad

    def detach(self) -> "Tensor":
        """A tensor sharing this one's buffer, outside the graph (stop_gradient=True)."""
        return Tensor(self.impl)

    def clone(self) -> "Tensor":
        """A copy of this tensor with its own buffer; gradients flow back through it."""
        return _F.scale(self, 1.0, 0.0, True) if not self.stop_gradient else Tensor(
            DenseTensor(self.impl.array.copy()))

    # -- conversion ---------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """The values as a NumPy array (sharing memory on the CPU, copied from a GPU)."""
        array = self.impl.array
        return array if type(array) is np.ndarray else array.get()

    def item(self):
        """The single value as a Python number."""
        array = self.impl.array
        if array.size != 1:
            raise ValueError(
                f"item(): only a tensor with one element converts to a Python number; this "
                f"one has shape {self.shape}"
            )
        return self.numpy().reshape(()).item()

    def tolist(self):
        return self.numpy().tolist()

    def astype(self, dtype) -> "Tensor":
        """This tensor converted to ``dtype`` (differentiable for floating types)."""
        return _F.cast(self, convert_dtype(dtype))

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.impl.array.shape[0]

    def __bool__(self) -> bool:
        if self.impl.array.size != 1:
            raise ValueError(
                f"the truth value of a tensor with {self.size} elements is ambiguous; "
                f"use .any() or .all() on its numpy() values"
            )
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.is_integer and self.size == 1:
            return int(self.item())
        raise TypeError(f"only an integer tensor with one element can be an index, not {self.dtype}{self.shape}")

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        body = np.array2string(self.numpy(), separator=", ", prefix="       ",
                               threshold=1000, edgeitems=3)
        return (f"Tensor(shape={self.shape}, dtype={self.dtype}, place={self.place}, "
                f"stop_gradient={self.stop_gradient},\n       {body})")

    # -- Python operators ---------------------------------------------------
    def __add__(self, other):
        if isinstance(other, Tensor):
            return _F.add(self, other)
        if _is_number(other):
            x = _promote_for(self, other)
            return _F.scale(x, 1.0, other, True)
        return _F.add(self, _operand(self, other, "add"))

    def __radd__(self, other):
        return self.__add__(other)

    def __sub__(self, other):
        if isinstance(other, Tensor):
            return _F.subtract(self, other)
        if _is_number(other):
            x = _promote_for(self, other)
            return _F.scale(x, 1.0, -other, True)
        return _F.subtract(self, _operand(self, other, "subtract"))

    def __rsub__(self, other):
        if _is_number(other):
            x = _promote_for(self, other)
            return _F.scale(x, -1.0, other, True)
        return _F.subtract(_operand(self, other, "subtract"), self)

    def __mul__(self, other):
        if isinstance(other, Tensor):
            return _F.multiply(self, other)
        if _is_number(other):
            x = _promote_for(self, other)
            return _F.scale(x, other, 0.0, True)
        return _F.multiply(self, _operand(self, other, "multiply"))

    def __rmul__(self, other):
        return self.__mul__(other)

    def __truediv__(self, other):
        x = _to_floating(self)
        if isinstance(other, Tensor):
            return _F.divide(x, _to_floating(other))
        if _is_number(other):
            return _F.divide(x, _operand(x, other, "divide"))
        return _F.divide(x, _operand(x, other, "divide"))

    def __rtruediv__(self, other):
        x = _to_floating(self)
        return _F.divide(_operand(x, other, "divide"), x)

    def __pow__(self, exponent):
        if _is_number(exponent):
            return _F.pow(_to_floating(self), exponent)
        raise TypeError(
            f"pow: a tensor exponent is not supported (got {type(exponent).__name__}); "
            f"use a Python number, or eager.exp(y * eager.log(x)) for x > 0"
        )

    def __rpow__(self, base):
        if _is_number(base) and not isinstance(base, complex) and base > 0:
            x = _to_floating(self)
            return _F.exp(_F.scale(x, float(np.log(base)), 0.0, True))
        raise TypeError(f"pow: base ** tensor needs a positive Python number base, got {base!r}")

    def __matmul__(self, other):
        return _F.matmul(self, _operand(self, other, "matmul"), False, False)

    def __rmatmul__(self, other):
        return _F.matmul(_operand(self, other, "matmul"), self, False, False)

    def __neg__(self):
        return _F.scale(self, -1.0, 0.0, True)

    def __pos__(self):
        return self

    def __getitem__(self, index):
        """NumPy indexing (int, slice, None, Ellipsis, bool mask, integer array); differentiable."""
        return _F.getitem(self, index)

    def __setitem__(self, index, value) -> None:
        """``x[index] = value`` in place (value broadcasts); differentiable for x's other
        elements and for value. Not allowed on a leaf that requires grad while recording."""
        if not isinstance(value, Tensor):
            value = _operand(self, value, "setitem_")
        elif value.impl.array.dtype != self.impl.array.dtype:
            value = value.astype(self.dtype)
        _F.setitem_(self, value, index)

    def __iadd__(self, other):
        if _is_number(other):
            return _F.scale_(self, 1.0, _inplace_scalar(self, other, "+="), True)
        return _F.add_(self, _operand(self, other, "add_"))

    def __isub__(self, other):
        if _is_number(other):
            return _F.scale_(self, 1.0, -_inplace_scalar(self, other, "-="), True)
        return _F.subtract_(self, _operand(self, other, "subtract_"))

    def __imul__(self, other):
        if _is_number(other):
            return _F.scale_(self, _inplace_scalar(self, other, "*="), 0.0, True)
        return _F.multiply_(self, _operand(self, other, "multiply_"))

    def __itruediv__(self, other):
        if self.impl.array.dtype.kind not in "fc":
            raise TypeError(f"/=: true division of a {self.dtype} tensor cannot be stored in place; "
                            f"use x = x / y")
        return _F.divide_(self, _operand(self, other, "divide_"))

    def __eq__(self, other):
        return _F.equal(self, _operand(self, other, "equal"))

    def __ne__(self, other):
        return _F.not_equal(self, _operand(self, other, "not_equal"))

    def __lt__(self, other):
        return _F.less_than(self, _operand(self, other, "less_than"))

    def __le__(self, other):
        return _F.less_equal(self, _operand(self, other, "less_equal"))

    def __gt__(self, other):
        return _F.greater_than(self, _operand(self, other, "greater_than"))

    def __ge__(self, other):
        return _F.greater_equal(self, _operand(self, other, "greater_equal"))


_name_counter = [0]


def _next_name() -> str:
    _name_counter[0] += 1
    return f"generated_tensor_{_name_counter[0]}"


def _xp(tensor):
    array = tensor.impl.array
    if type(array) is np.ndarray:
        return np
    import cupy

    return cupy


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, np.ndarray)


def _promote_for(x: Tensor, scalar) -> Tensor:
    """An integer or bool tensor meets a float scalar: compute in float32, as Paddle does."""
    if type(scalar) is float and x.impl.array.dtype.kind not in "fc":
        return x.astype(DataType.FLOAT32)
    return x


def _inplace_scalar(x: Tensor, scalar, op: str):
    """An inplace op keeps x's dtype: a float scalar cannot go into an integer tensor."""
    if x.impl.array.dtype.kind not in "fc" and not isinstance(scalar, (bool, int, np.integer)):
        raise TypeError(f"{op}: the result of a {x.dtype} tensor and the float {scalar!r} is a float, "
                        f"which cannot be stored in place; use x = x {op[0]} {scalar!r}")
    return scalar


def _to_floating(x: Tensor) -> Tensor:
    dtype = x.dtype
    if dtype in FLOATING_TYPES or dtype in COMPLEX_TYPES:
        return x
    return x.astype(DataType.FLOAT32)


def _operand(x: Tensor, other, op: str) -> Tensor:
    """The other side of a binary operator as a Tensor: numbers take x's dtype and
    place, arrays keep their own dtype (a mismatch is then reported by the op)."""
    if isinstance(other, Tensor):
        return other
    xp = _xp(x)
    if _is_number(other):
        return Tensor(DenseTensor(xp.asarray(other, dtype=x.impl.array.dtype)))
    if isinstance(other, (np.ndarray, list, tuple)) or type(other).__module__.startswith("cupy"):
        return Tensor(DenseTensor(xp.asarray(other)))
    raise TypeError(
        f"{op}: cannot combine a Tensor with {type(other).__name__}; expected a Tensor, a "
        f"number or a numpy array"
    )


# Bound last: the generated functions are loaded (through TensorMethods) before
# Tensor exists, and the operators above call them through this name.
from .generated import forward_api as _F  # noqa: E402
