"""InputSpec: the shape and dtype of a saved program's input (Paddle's
``paddle.static.InputSpec``), used by :func:`eager.jit.save`."""
from __future__ import annotations

import numbers

import numpy as np

from ..arguments import to_bool, to_required_dtype
from ..errors import ArgumentKindError
from ..tensor import Tensor


class InputSpec:
    """Describes one input of a program: ``shape`` (a list or tuple of ints,
    None or -1 for a size given only at run time, such as the batch), ``dtype``
    and an optional ``name``.

    >>> spec = InputSpec([None, 784], "float32", name="image")
    >>> spec.shape, spec.dtype
    ((None, 784), paddle.float32)
    """

    def __init__(self, shape, dtype="float32", name=None, stop_gradient: bool = False):
        if not isinstance(shape, (list, tuple)):
            # a bare int is refused too, as Paddle's (a TypeError: write [n])
            raise TypeError(f"InputSpec: argument 'shape' expected a list or tuple of ints, got "
                            f"{type(shape).__name__}")
        dims = []
        for size in shape:
            if size is None or (isinstance(size, numbers.Integral) and not isinstance(size, bool) and size == -1):
                dims.append(None)
            elif isinstance(size, numbers.Integral) and not isinstance(size, bool) and size >= 0:
                dims.append(int(size))
            else:
                raise ValueError(f"InputSpec: argument 'shape' expected sizes >= 0, or None or -1 for a size "
                                 f"known at run time, got {list(shape)!r}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"InputSpec: argument 'name' expected a str or None, got {type(name).__name__}")
        self.shape = tuple(dims)
        self.dtype = to_required_dtype(dtype, "InputSpec", "dtype")
        self.name = name
        self.stop_gradient = to_bool(stop_gradient, "InputSpec", "stop_gradient")

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of ``tensor``'s shape and dtype, named ``name`` or else the
        tensor's name (as Paddle's ``name or tensor.name``)."""
        if not isinstance(tensor, Tensor):
            raise ArgumentKindError(f"InputSpec.from_tensor: argument 'tensor' expected a Tensor, got "
                            f"{type(tensor).__name__}")
        return cls(tuple(tensor.shape), tensor.dtype, name or tensor.name)

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        """The spec of a NumPy array's shape and dtype (Paddle's ``InputSpec.from_numpy``).

        >>> InputSpec.from_numpy(np.ones([2, 3], np.int64), name="ids")
        InputSpec(shape=(2, 3), dtype=paddle.int64, name=ids, stop_gradient=False)
        """
        if not isinstance(ndarray, np.ndarray):
            raise TypeError(f"InputSpec.from_numpy: argument 'ndarray' expected a numpy.ndarray, got "
                            f"{type(ndarray).__name__}")
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size):
        """Puts ``batch_size`` (an int, or a list or tuple of one int; None or -1 for a size known at
        run time) in front of the shape, in place, and returns this spec, as Paddle.

        >>> InputSpec([64], "float32").batch(4)
        InputSpec(shape=(4, 64), dtype=paddle.float32, name=None, stop_gradient=False)
        """
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"InputSpec.batch: argument 'batch_size' as a list or tuple must hold one "
                                 f"size, got {list(batch_size)!r}")
            batch_size = batch_size[0]
        if batch_size is not None and (not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool)):
            raise TypeError(f"InputSpec.batch: argument 'batch_size' expected an int, got "
                            f"{type(batch_size).__name__}")
        if batch_size is not None and batch_size < -1:
            raise ValueError(f"InputSpec.batch: argument 'batch_size' expected a size >= 0, or None or -1 for a "
                             f"size known at run time, got {batch_size}")
        self.shape = (None if batch_size is None or batch_size == -1 else int(batch_size),) + self.shape
        return self

    def unbatch(self):
        """Drops the first size of the shape, in place, and returns this spec, as Paddle.

        >>> InputSpec([4, 64], "float32").unbatch()
        InputSpec(shape=(64,), dtype=paddle.float32, name=None, stop_gradient=False)
        """
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the spec's shape is () (a 0-D input): there is no batch "
                             "size to remove")
        self.shape = self.shape[1:]
        return self

    def __repr__(self):
        # Paddle's form, but a free size stays None (Paddle prints -1)
        return (f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, "
                f"stop_gradient={self.stop_gradient})")

    # Paddle's rules: equal specs agree on shape, dtype, name and stop_gradient; the hash
    # leaves the name out, so specs differing only by name share a to_static program.
    def __eq__(self, other):
        return (type(other) is InputSpec and self.shape == other.shape and self.dtype == other.dtype
                and self.name == other.name and self.stop_gradient == other.stop_gradient)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.stop_gradient))


__all__ = ["InputSpec"]
