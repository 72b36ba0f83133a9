"""The API Tensor: a phi TensorBase (``impl``) plus autograd metadata.

This is the Tensor core, at the bottom of eager: what a tensor is (shape,
dtype, place through the TensorBase interface), its autograd fields and its
conversions. It imports only phi and the autograd metadata, so the autograd
engine, the generated op functions and nn can all import it at the top of
their files. The methods that run ops or the engine (``x.matmul(y)``,
``x + y``, ``backward()``, ``register_hook``, ...) live in the layers above and
are attached to this class by :mod:`eager.tensor_api`, as Paddle's
``monkey_patch_tensor`` does: they need modules that themselves need Tensor.
"""
from __future__ import annotations

import importlib
import importlib.machinery
import sys

import numpy as np

from phi import api as phi_api
from phi.common import CPUPlace, CUDAPinnedPlace, DataType, GPUPlace, Place, TensorKind, convert_dtype
from phi.core.errors import ArgumentKindError

from .arguments import to_bool
from .autograd.meta import AutogradMeta, is_owned_grad, own_grad
from .framework import current_place, parse_device, print_options


class Tensor:
    """An n-d array that can record the operations made on it for autograd.

    Made by :func:`eager.to_tensor` or by ops. ``stop_gradient`` is True by
    default, as in Paddle: set it to False on the tensors you want gradients for.

    >>> w = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> (w * w).sum().backward()
    >>> w.grad.numpy()
    array([2., 4.], dtype=float32)
    """

    __slots__ = ("impl", "_meta", "_name", "_persistable", "__weakref__")  # _persistable: only once set
    __array_priority__ = 100  # numpy defers to our reflected operators

    def __init__(self, impl, meta=None):
        self.impl = impl
        self._meta = meta
        self._name = None

    # -- what it is ---------------------------------------------------------
    @property
    def shape(self) -> list:
        return list(self.impl.dims)

    @property
    def ndim(self) -> int:
        return len(self.impl.dims)

    dim = ndim

    @property
    def size(self) -> int:
        return int(self.impl.numel)

    def numel(self, name=None) -> int:
        """The element count as a Python int (``name`` is taken for Paddle's signature)."""
        return int(self.impl.numel)

    @property
    def dtype(self) -> DataType:
        return self.impl.dtype

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
        if not isinstance(value, str):
            raise ArgumentKindError(f"name: expected a str, got {type(value).__name__} {value!r}")
        self._name = value

    @property
    def inplace_version(self) -> int:
        """How many times this tensor's buffer was modified in place."""
        return self.impl.version

    # -- autograd -----------------------------------------------------------
    @property
    def stop_gradient(self) -> bool:
        """Whether gradients stop at this tensor (True by default, as in Paddle).

        An integer or bool tensor may be set to False, as Paddle allows (an id
        tensor passed to an embedding, a layer cast to int8), and reads back
        False; but eager never differentiates through integers: no op records an
        edge to such a tensor, its ``.grad`` stays None and ops on it give
        tensors with ``stop_gradient=True``.

        >>> ids = eager.to_tensor([1, 2], stop_gradient=False)
        >>> ids.stop_gradient, (ids * 2).stop_gradient
        (False, True)
        """
        meta = self._meta
        return meta is None or (meta.stop_gradient and not meta.flag_only_trainable)

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise ArgumentKindError(f"stop_gradient: expected a bool, got {type(value).__name__} {value!r}")
        value = bool(value)
        meta = self._meta
        if meta is None:
            if value:
                return
            self._meta = meta = AutogradMeta(stop_gradient=True)
        dtype = self.impl.dtype
        if dtype.is_floating_point or dtype.is_complex:
            meta.stop_gradient = value
            if meta.flag_only_trainable:  # was an integer tensor (cast in place since)
                meta.flag_only_trainable = False
        else:
            meta.stop_gradient = True  # what the recording ops read: never record into integers
            meta.flag_only_trainable = not value

    @property
    def grad(self):
        """The gradient accumulated by backward(), or None."""
        meta = self._meta
        return None if meta is None else meta.grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise ArgumentKindError(f"grad: expected a Tensor or None, got {type(value).__name__}")
            if value.shape != self.shape or value.dtype != self.dtype and not self._is_master_grad(value):
                raise ValueError(
                    f"grad: expected a tensor of {self.dtype}{self.shape}, got "
                    f"{value.dtype}{value.shape}"
                )
            if value._meta is None:
                # the caller's tensor, not a buffer accumulation made: give it a meta so
                # that backward adds into a new buffer (Paddle leaves the tensor set as
                # .grad unchanged) instead of writing into it in place
                value._meta = AutogradMeta(stop_gradient=True)
        if self._meta is None:
            self._meta = AutogradMeta(stop_gradient=True)
        self._meta.grad = value

    grad_ = grad  # Paddle 2.6.2's other public name for the same read/write property

    def reconstruct_from_(self, other) -> None:
        """Make this tensor another handle of ``other``, as Paddle 2.6.2 does: it
        shares ``other``'s storage and autograd state (data, shape, dtype,
        ``stop_gradient``, ``grad``; later writes to either show in both) and keeps
        its own name. Returns None."""
        if not isinstance(other, Tensor):
            # ValueError, not TypeError: Paddle's binding raises InvalidArgument here
            raise ValueError(f"Tensor.reconstruct_from_: argument 'other' expected a Tensor, got "
                             f"{type(other).__name__}")
        self.impl = other.impl
        self._meta = other._meta

    def _is_master_grad(self, value) -> bool:
        """Whether ``value`` may replace this float16/bfloat16 tensor's float32
        ``.grad`` (amp's master_grad made it so): it has that gradient's dtype."""
        meta = self._meta
        current = None if meta is None else meta.grad
        return current is not None and current.dtype == value.dtype and current.dtype != self.dtype

    def _grad_ivar(self):
        """The gradient, or None: Paddle's private ``Tensor._grad_ivar()``, which
        its recompute guide and fleet utilities read instead of ``.grad``.

        >>> x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> (x * 3).sum().backward()
        >>> x._grad_ivar().numpy()
        array([3., 3.], dtype=float32)
        """
        return self.grad

    def _set_grad_ivar(self, value) -> None:
        """Sets the gradient: Paddle's private ``Tensor._set_grad_ivar(value)``,
        which its own Layer tests use; the same checks as assigning ``.grad``
        (a tensor of this tensor's shape and dtype).

        >>> w = eager.to_tensor([1.0, 2.0])
        >>> w._set_grad_ivar(eager.to_tensor([0.5, 0.5]))
        >>> w.grad.numpy()
        array([0.5, 0.5], dtype=float32)
        """
        self.grad = value

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

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Resets ``.grad``: to zeros in place (Paddle's default), or to None with
        set_to_zero=False.

        Zeroing in place keeps the gradient's buffer from step to step, so the next
        backward accumulates into it without allocating, and whatever holds the
        buffer (a data-parallel bucket) keeps seeing it. A gradient that is itself
        part of a graph (from ``create_graph=True``) is replaced by plain zeros.
        """
        set_to_zero = to_bool(set_to_zero, "clear_grad", "set_to_zero")
        meta = self._meta
        grad = None if meta is None else meta.grad
        if grad is None:
            return
        if not set_to_zero or grad.impl.kind is not TensorKind.DENSE:
            meta.grad = None  # sparse rows have no buffer to keep: the next backward makes one
        else:
            if is_owned_grad(grad):
                phi_api.zero_(grad.impl)
            else:
                meta.grad = grad = own_grad(Tensor(phi_api.full_like(grad.impl, 0, None)))
            # Known zero until its version moves: the next backward may write its gradient
            # straight into it (eager.autograd.accumulation.mark_zeroed, LEAF_WRITERS).
            own_grad(grad)._meta.zero_mark = (grad.impl, grad.impl.version)

    clear_gradient = clear_grad

    def _zero_grads(self) -> None:
        """Zeroes ``.grad`` in place, leaving None as None (Paddle's private
        ``Tensor._zero_grads``, which its tests call after a backward)."""
        self.clear_grad(True)

    # -- places ---------------------------------------------------------------
    def _copy_to(self, place: Place, blocking: bool = True) -> "Tensor":
        """A copy of this tensor on ``place`` in a new buffer, also when it is there
        already, as Paddle's private ``_copy_to(place, blocking)``: a new leaf with
        stop_gradient=True that keeps ``persistable`` (copies here complete before
        the call returns). ``cpu``/``cuda``/``to`` are the moves that keep
        stop_gradient and return the tensor itself when nothing moves.

        >>> x = eager.to_tensor([1.0], stop_gradient=False)
        >>> y = x._copy_to(eager.CPUPlace(), True)
        >>> y is x, y.stop_gradient
        (False, True)
        """
        _check_blocking("_copy_to", blocking)
        copy = self._placed_copy(place)
        if getattr(self, "_persistable", False):
            copy._persistable = True
        return copy

    def _placed_copy(self, place: Place) -> "Tensor":
        """A new leaf tensor holding a copy of the values on ``place`` (dense for
        selected rows, sparse COO/CSR staying of its kind)."""
        impl = self.impl
        if impl.kind is TensorKind.SELECTED_ROWS:
            impl = phi_api.selected_rows_to_dense(impl)
        if impl.kind is not TensorKind.DENSE:  # a sparse COO/CSR tensor moves as one of its kind
            return Tensor(phi_api.sparse_copy_to(impl, place))
        return Tensor(phi_api.copy_to(impl, place))

    def _moved_to(self, place: Place) -> "Tensor":
        """This tensor on ``place``: itself when it is there, else a copy that is a
        new leaf keeping stop_gradient and persistable (Paddle's ``cpu``/``cuda``/``to``)."""
        if self.place == place:
            return self
        copy = self._placed_copy(place)
        copy.stop_gradient = self.stop_gradient
        if getattr(self, "_persistable", False):
            copy._persistable = True
        return copy

    def cuda(self, device_id=None, blocking: bool = True) -> "Tensor":
        """This tensor on GPU ``device_id`` (None: the default device if it is a
        GPU, else GPU 0); itself when it is there already, else a copy (a new
        leaf, keeping stop_gradient). ``blocking`` is accepted for Paddle's
        signature: copies here complete before the call returns.

        >>> x = eager.to_tensor([1.0]).cuda()   # doctest: +SKIP (needs a GPU)
        >>> x.place.is_gpu_place()              # doctest: +SKIP
        True
        """
        _check_blocking("cuda", blocking)
        if device_id is None:
            default = current_place()
            place = default if default.is_gpu_place() else GPUPlace(0)
        elif isinstance(device_id, int) and not isinstance(device_id, bool) and device_id >= 0:
            place = GPUPlace(device_id)
        else:
            raise ValueError(f"cuda: argument 'device_id' expected None or a non-negative int, got {device_id!r}")
        return self._moved_to(parse_device("cuda", place))

    def cpu(self) -> "Tensor":
        """This tensor in (pageable) host memory: itself when it is there, else a
        copy (a new leaf, keeping stop_gradient); a pinned tensor is copied too.

        >>> eager.to_tensor([1.0]).cpu().place
        Place(cpu)
        """
        return self._moved_to(CPUPlace())

    def pin_memory(self, blocking: bool = True) -> "Tensor":
        """This tensor in pinned (page-locked) host memory, from which a GPU copies
        directly: itself when it is there already, else a copy (a new leaf keeping
        stop_gradient; gradients do not flow back through it), as Paddle's
        ``pin_memory``. Its place is ``Place(gpu_pinned)``. Needs CuPy and a GPU
        (ValueError otherwise, as Paddle's CPU-only build refuses). ``blocking``
        is accepted for Paddle's signature: copies here complete before the call
        returns.

        >>> x = eager.to_tensor([1.0, 2.0]).pin_memory()   # doctest: +SKIP (needs a GPU)
        >>> x.place, x.place.is_cuda_pinned_place()       # doctest: +SKIP
        (Place(gpu_pinned), True)
        """
        _check_blocking("pin_memory", blocking)
        if self.place.is_cuda_pinned_place():
            return self
        return self._moved_to(parse_device("pin_memory", CUDAPinnedPlace()))

    def to(self, *args, **kwargs) -> "Tensor":
        """This tensor on another device and/or of another dtype (Paddle's
        ``Tensor.to``): ``x.to("gpu")``, ``x.to("float64")``, ``x.to("cpu",
        "float32")``, ``x.to(other)`` (other's place and dtype), or by keyword
        ``device=``, ``dtype=``, ``blocking=``. The device copy is a new leaf
        (as :meth:`cuda`); the cast is recorded like ``astype``. Returns self
        when nothing changes.

        >>> eager.to_tensor([1, 2]).to("float32").dtype
        paddle.float32
        """
        device, dtype, blocking = _to_arguments(args, kwargs)
        _check_blocking("to", blocking)
        out = self if device is None else self._moved_to(parse_device("to", device))
        if dtype is not None and out.dtype is not dtype:
            out = out.astype(dtype)
        return out

    def _to(self, device=None, dtype=None, blocking=None) -> "Tensor":
        """Paddle's ``Tensor._to(device, dtype, blocking)``, the method its ``to``
        calls: private, but Paddle's AMP guide calls it directly
        (``label._to(place)``), so it is here with the same positional order.

        >>> eager.to_tensor([1, 2])._to(None, "float32").dtype
        paddle.float32
        """
        return self.to(device=device, dtype=dtype, blocking=blocking)

    def detach(self) -> "Tensor":
        """A tensor sharing this one's buffer, outside the graph (stop_gradient=True);
        a persistable tensor's detached one is persistable too, as Paddle's."""
        out = Tensor(self.impl)
        if getattr(self, "_persistable", False):
            out._persistable = True
        return out

    # -- conversion ---------------------------------------------------------
    def numpy(self, *_ignored) -> np.ndarray:
        """The values as a NumPy array (sharing memory on the CPU, copied from a GPU).
        Positional arguments are taken and ignored, as Paddle's method does (its own
        ``__array__`` calls ``numpy(False)``)."""
        impl = self.impl
        if impl.kind is TensorKind.SELECTED_ROWS:  # sparse rows: the dense values they stand for
            impl = phi_api.selected_rows_to_dense(impl)
        elif impl.kind is not TensorKind.DENSE:  # a sparse COO/CSR tensor (eager.sparse): likewise
            impl = phi_api.sparse_to_dense(impl)
        return _host_array(impl)

    def item(self):
        """The single value as a Python number."""
        if self.impl.numel != 1:
            raise ValueError(
                f"item(): only a tensor with one element converts to a Python number; this "
                f"one has shape {self.shape}"
            )
        return self.numpy().reshape(()).item()

    def tolist(self):
        return self.numpy().tolist()

    def __array__(self, dtype=None, copy=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.impl.dims[0]

    def __bool__(self) -> bool:
        if self.impl.numel != 1:
            raise ValueError(
                f"the truth value of a tensor with {self.size} elements is ambiguous; "
                f"use .any() or .all() on its numpy() values"
            )
        return bool(self.item())

    def __float__(self) -> float:
        """The one element as a Python float (a complex tensor refuses: use complex())."""
        return float(self._real_item("float"))

    def __int__(self) -> int:
        """The one element as a Python int, truncated toward zero (a complex tensor refuses)."""
        return int(self._real_item("int"))

    # Python 2's names, which Paddle's Tensor still has (__div__ and __rdiv__: in tensor_api)
    __nonzero__ = __bool__
    __long__ = __int__

    def __complex__(self) -> complex:
        """The one element as a Python complex (of any numeric dtype)."""
        return complex(self.item())

    def _real_item(self, conversion: str):
        value = self.item()
        if self.dtype.is_complex:
            raise TypeError(f"{conversion}(): a {self.dtype} tensor does not convert to a real number; "
                            f"use complex(x), or x.real() / x.imag()")
        return value

    def __index__(self) -> int:
        if self.dtype.is_integer and self.size == 1:
            return int(self.item())
        raise TypeError(f"only an integer tensor with one element can be an index, not {self.dtype}{self.shape}")

    __hash__ = object.__hash__

    def __getstate__(self):
        """What ``copy.deepcopy`` and ``pickle`` copy: the values and attributes, with
        autograd state of a new leaf (stop_gradient and ``.grad`` kept; no grad node,
        hooks or view links), as Paddle's deepcopy makes a new tensor with the
        values and stop_gradient: a copy is outside the original's graph."""
        state = {}
        for klass in type(self).__mro__:
            for slot in vars(klass).get("__slots__", ()):
                if slot != "__weakref__" and slot not in state and hasattr(self, slot):
                    state[slot] = getattr(self, slot)
        meta = self._meta
        if meta is not None:
            fresh = AutogradMeta(stop_gradient=meta.stop_gradient)
            if meta.flag_only_trainable:
                fresh.flag_only_trainable = True
            if meta.grad is not None:
                fresh.grad = meta.grad
            state["_meta"] = fresh
        return None, state

    def __repr__(self) -> str:
        kind = self.impl.kind
        if kind is TensorKind.SPARSE_COO or kind is TensorKind.SPARSE_CSR:
            return _sparse_repr(self)
        if not self.impl.initialized():  # no data yet (tensor.create_tensor's placeholder), as Paddle prints it
            return "Tensor(Not initialized)"
        body = format_values(self.numpy(), print_options())
        return (f"Tensor(shape={self.shape}, dtype={self.dtype.value}, place={self.place}, "
                f"stop_gradient={self.stop_gradient},\n       {body})")


def _check_blocking(op: str, blocking) -> None:
    if blocking is not None and not isinstance(blocking, bool):
        raise TypeError(f"{op}: argument 'blocking' expected a bool, got {blocking!r}")


def _is_device(value) -> bool:
    if isinstance(value, Place):
        return True
    if not isinstance(value, str):
        return False
    text = value.strip().lower()
    return text in ("cpu", "gpu", "cuda") or text.startswith(("gpu:", "cuda:"))


def _to_arguments(args, kwargs) -> tuple:
    """(device, dtype, blocking) from Tensor.to's flexible arguments."""
    unknown = set(kwargs) - {"device", "dtype", "blocking", "other"}
    if unknown:
        raise TypeError(f"to: unexpected keyword argument(s) {sorted(unknown)}; expected device, dtype, "
                        f"blocking, other")
    if not args and not kwargs:
        raise TypeError("to: expected a device, a dtype or a Tensor (other), got no arguments")
    device, dtype, blocking = kwargs.get("device"), kwargs.get("dtype"), kwargs.get("blocking")
    other = kwargs.get("other")
    if other is not None:  # to(other=y), as Paddle: y's place and dtype
        if not isinstance(other, Tensor):
            raise TypeError(f"to: argument 'other' expected a Tensor, got {type(other).__name__}")
        device, dtype = other.place, other.dtype
    if len(args) > 3:
        raise TypeError(f"to: expected at most 3 positional arguments, got {len(args)}")
    for value in args:
        if isinstance(value, Tensor):
            device, dtype = value.place, value.dtype
        elif isinstance(value, bool):
            blocking = value
        elif _is_device(value):
            device = value
        else:
            try:
                dtype = convert_dtype(value)
            except (TypeError, ValueError):
                # a string naming no device or dtype is a wrong value (Paddle's ValueError)
                error = ValueError if isinstance(value, str) else TypeError
                raise error(f"to: argument {value!r} is neither a device ('cpu', 'gpu:N', a Place), a "
                            f"dtype, a Tensor nor a bool (blocking)") from None
    if dtype is not None:
        dtype = convert_dtype(dtype)
    return device, dtype, blocking


def _host_array(impl) -> np.ndarray:
    """A dense impl's values as a NumPy array (a conversion point: where eager reads a buffer)."""
    array = impl.array
    if type(array) is np.ndarray:
        return array
    if not impl.initialized():
        raise ValueError("numpy(): the tensor holds no data (it is not initialized, as a placeholder from "
                         "eager.tensor.create_tensor before eager.assign(x, output=placeholder) fills it)")
    return array.get()


def _sparse_repr(x) -> str:
    """A sparse tensor printed as Paddle prints one: its stored parts (COO: indices
    and values; CSR: crows, cols and values), each formatted like a dense tensor's
    values, and the dtype written ``paddle.float32``; a space ends each line but
    the last, as in Paddle's string."""
    impl, options = x.impl, print_options()
    if impl.kind is TensorKind.SPARSE_COO:
        parts = (("indices", impl.indices), ("values", impl.values))
    else:
        parts = (("crows", impl.crows), ("cols", impl.cols), ("values", impl.values))
    indent = " " * len("Tensor(")
    texts = [f"{name}=" + format_values(_host_array(part), options, prefix=indent + " " * len(name + "="))
             for name, part in parts]
    # ", \n" with its space before each part, as Paddle 2.6's template writes it
    return (f"Tensor(shape={x.shape}, dtype={x.dtype}, place={x.place}, stop_gradient={x.stop_gradient}, \n"
            + ", \n".join(indent + text for text in texts) + ")")


def _float_text(value, options) -> str:
    """One float as Paddle prints it: ``precision`` digits, ``1.`` for a whole number,
    scientific notation under ``sci_mode``."""
    if options.sci_mode:
        return f"{value:.{options.precision}e}"
    if value == np.ceil(value):  # inf too: Paddle 2.6 prints 'inf.' and '-inf.' (NaN stays 'nan')
        return f"{value:.0f}."
    return f"{value:.{options.precision}f}"


def format_values(array: np.ndarray, options, prefix: str = "       ") -> str:
    """The values part of a Tensor's repr under the print options (set by
    eager.set_printoptions), laid out by Paddle 2.6's rules: floats with
    ``precision`` digits (``1.`` for a whole number, scientific under
    ``sci_mode``); every item padded to the width of the widest printed one, a
    non-negative item that is narrower getting a space where a sign would go
    when some item is negative, the widest and the negative ones looked for
    among the ``edgeitems`` at the edges of each axis only (Paddle's rule, even
    when nothing is left out); once there are more than ``threshold`` items,
    only ``edgeitems`` at each edge of an axis and ``...`` between them; a row
    holds as many items as fit ``linewidth`` after its indent, ``...``
    counting as one; an empty axis still shows its brackets (``[[], []]``).
    ``prefix`` is the indent of the lines after the first (the width of the
    text that precedes the values). bfloat16 values print as the float32 values
    they are exactly."""
    if array.dtype.kind == "V" and array.dtype.name == "bfloat16":  # ml_dtypes' dtype, not kind "f"
        array = array.astype(np.float32)
    kind = array.dtype.kind
    if kind == "f":
        def text_of(value):
            return _float_text(float(value), options)
    elif kind == "b":
        def text_of(value):
            return str(bool(value))
    elif kind in "iu":
        def text_of(value):
            return str(int(value))
    elif kind == "c":
        def text_of(value):  # as Python writes the complex number: (1.5-2j), 3j
            return str(complex(value))
    else:
        text_of = str
    summary = array.ndim > 0 and array.size > options.threshold
    # The width and the sign column come from the edge items only, summarized or not, as in
    # Paddle 2.6 (whose strings eager reproduces): below the threshold a wider middle item
    # prints unpadded, past the column ([1., 2., 3., -4., 5., 6., 7.] with the default options).
    shown = _summarized(array, options)
    texts = [text_of(v) for v in shown.ravel()]
    if kind == "c":
        signed = any(_negative(t) for t in texts)
    else:
        # value < 0, as Paddle's: -0.0 is not negative (it prints [-0., 0. ]), NaN neither
        signed = kind in "iuf" and bool(np.any(shown < 0))
    width = max((len(t) for t in texts), default=0)
    below_zero = (lambda value: value < 0) if kind in "iuf" else (lambda value: _negative(text_of(value)))

    def item(value) -> str:
        text = text_of(value)
        if signed and not below_zero(value) and len(text) < width:
            return " " + text.ljust(width - 1)
        return text.ljust(width)

    edge = options.edgeitems

    def rows(values, indent: int) -> list:
        """The parts of one axis: its items (or sub-blocks), '...' standing for the middle."""
        inner = item if values.ndim == 1 else (lambda sub: block(sub, indent + 1))
        count = values.shape[0]
        if summary and count > 2 * edge:
            return [inner(v) for v in values[:edge]] + ["..."] + [inner(v) for v in values[count - edge:]]
        return [inner(v) for v in values]

    def block(values, indent: int) -> str:
        parts = rows(values, indent)
        if values.ndim == 1:
            per_line = max(1, (options.linewidth - indent) // (width + 2))
            lines = [", ".join(parts[i:i + per_line]) for i in range(0, len(parts), per_line)]
            return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
        return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"

    if array.ndim == 0:
        return item(array.reshape(-1)[0])
    return block(array, len(prefix))


def _negative(text: str) -> bool:
    """Whether a printed item reads as negative (``-1.5``, ``(-2+1j)``, ``-3j``)."""
    return text.startswith(("-", "(-"))


def _summarized(array: np.ndarray, options) -> np.ndarray:
    """The items that print once a tensor is summarized: the edges of each longer axis."""
    k = options.edgeitems
    for axis in range(array.ndim):
        if array.shape[axis] > 2 * k:
            index = np.r_[0:k, array.shape[axis] - k:array.shape[axis]]
            array = np.take(array, index, axis=axis)
    return array


_name_counter = [0]


def _next_name() -> str:
    _name_counter[0] += 1
    return f"generated_tensor_{_name_counter[0]}"


def __getattr__(name):
    # Paddle's paddle.tensor namespace (paddle.tensor.triu, paddle.tensor.math.frexp,
    # paddle.tensor.create_array, ...) is built of the layers above this module, so it is
    # loaded on first use, as eager/__init__.py loads the API: eager.tensor_namespace.
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(".tensor_namespace", __package__), name)


# `import eager.tensor.math` (a Paddle file name under paddle.tensor, as
# eager.tensor_namespace.PADDLE_FILES lists them) gives the same namespace module as
# attribute access: a module with a __path__ lets the import system look for its
# submodules, and the finder below answers for those names only.
__path__: list = []


class _PaddleFileFinder:
    """Import finder and loader of ``eager.tensor.<Paddle file>``: the module is
    eager.tensor_namespace itself, under a second name."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        parent, _, child = fullname.rpartition(".")
        if parent != __name__:
            return None
        namespace = importlib.import_module(".tensor_namespace", __package__)
        if child not in namespace.PADDLE_FILES:
            return None
        return importlib.machinery.ModuleSpec(fullname, cls, loader_state=namespace.__spec__)

    @staticmethod
    def create_module(spec):
        return importlib.import_module(".tensor_namespace", __package__)

    @staticmethod
    def exec_module(module):
        # The import system gave the module this alias's spec: keep its own.
        module.__spec__ = module.__spec__.loader_state


if not any(getattr(finder, "__qualname__", None) == "_PaddleFileFinder" for finder in sys.meta_path):
    sys.meta_path.append(_PaddleFileFinder)
