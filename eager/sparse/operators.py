"""The Tensor operators on sparse tensors: ``x + y``, ``x - y``, ``x * y``,
``x / y``, ``-x`` and ``x @ y`` (and ``x.add(y)``, ``eager.add(x, y)``, ...
for the four elementwise ones), each running the paddle.sparse function of its
op with that function's rules:

- ``+``: two sparse tensors of one kind and shape, or a hybrid COO x and a
  dense 1-D bias y (sparse.add);
- ``-``: two sparse tensors (sparse.subtract);
- ``*``: two sparse tensors, or a sparse tensor and a number, either side
  (sparse.multiply);
- ``/``: two sparse tensors, or a sparse x and a number (sparse.divide);
- ``-x``: sparse.neg; ``x @ y``: a sparse x with a dense or sparse y
  (sparse.matmul).

A right operand of another dtype is cast to x's, as paddle.sparse does. Any
other pairing (a dense tensor on the left, a number added to a sparse tensor,
sparse with dense in ``*``) is a TypeError that names the op and both operands.
Registered in eager.arguments.SPARSE_OPERATIONS, which the dense ops' except
paths consult when their kernels refuse a sparse operand.

>>> x = eager.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
>>> (x * 2 + x).to_dense().numpy()
array([[0., 6.],
       [9., 0.]], dtype=float32)
"""
from __future__ import annotations

import numbers

from ..arguments import SPARSE_OPERATIONS
from ..tensor import Tensor
from . import binary, matmul as _matmul, unary
from ._core import COO, is_sparse, kind_name


def _is_sparse(value) -> bool:
    return isinstance(value, Tensor) and is_sparse(value)


def _describe(value) -> str:
    if isinstance(value, Tensor):
        return f"a {kind_name(value.impl.kind)} tensor of shape {value.shape}"
    return f"the {type(value).__name__} {value!r:.40}"


def _refuse(op: str, symbol: str, x, y, takes: str) -> TypeError:
    return TypeError(f"{op}: {_describe(x)} {symbol} {_describe(y)} is not supported: with a sparse operand, "
                     f"'{symbol}' takes {takes} (Paddle's paddle.sparse.{op}); convert with to_dense() for "
                     f"dense arithmetic")


def _number(value):
    """A real number (not bool, not a Tensor) as a Python int or float; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return value if isinstance(value, (int, float)) else float(value)


def add(x, y):
    """x + y with a sparse operand (see the module doc)."""
    if _is_sparse(x) and isinstance(y, Tensor) and (_is_sparse(y) or x.impl.kind is COO):
        return binary.add(x, y)
    raise _refuse("add", "+", x, y, "two sparse tensors of one kind and shape, or a hybrid sparse COO x and a "
                                    "dense 1-D y (a bias over x's last dimension)")


def subtract(x, y):
    """x - y with a sparse operand: two sparse tensors."""
    if _is_sparse(x) and _is_sparse(y):
        return binary.subtract(x, y)
    raise _refuse("subtract", "-", x, y, "two sparse tensors of one kind and shape")


def multiply(x, y):
    """x * y with a sparse operand: two sparse tensors, or a sparse tensor and a number."""
    if _is_sparse(x) and (_is_sparse(y) or _number(y) is not None):
        return binary.multiply(x, y if _is_sparse(y) else _number(y))
    if _is_sparse(y) and _number(x) is not None:
        return binary.multiply(y, _number(x))
    raise _refuse("multiply", "*", x, y, "two sparse tensors of one kind and shape, or a sparse tensor and a number")


def divide(x, y):
    """x / y with a sparse operand: two sparse tensors, or a sparse x and a number."""
    if _is_sparse(x) and (_is_sparse(y) or _number(y) is not None):
        return binary.divide(x, y if _is_sparse(y) else _number(y))
    raise _refuse("divide", "/", x, y, "two sparse tensors of one kind and shape, or a sparse x and a number y")


def matmul(x, y):
    """x @ y with a sparse operand: a sparse x and a dense or sparse y."""
    if _is_sparse(x) and isinstance(y, Tensor):
        return _matmul.matmul(x, y)
    raise _refuse("matmul", "@", x, y, "a sparse x and a dense or sparse y")


def neg(x):
    """-x of a sparse tensor."""
    return unary.neg(x)


SPARSE_OPERATIONS.update(add=add, subtract=subtract, multiply=multiply, divide=divide, matmul=matmul, neg=neg)

__all__ = ["add", "divide", "matmul", "multiply", "neg", "subtract"]
