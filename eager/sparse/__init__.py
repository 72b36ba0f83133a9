"""Paddle's paddle.sparse: sparse COO and CSR tensors and the ops on them.

A sparse tensor is an ``eager.Tensor`` whose ``impl`` is a phi SparseCooTensor
or SparseCsrTensor; ``to_dense()``, ``values()``, ``indices()`` / ``crows()``
/ ``cols()`` read it. Gradients flow through the stored values: a sparse tensor
that needs a gradient gets a sparse gradient of its own pattern.

>>> x = eager.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2], stop_gradient=False)
>>> w = eager.to_tensor([[1.0], [10.0]], stop_gradient=False)
>>> eager.sparse.matmul(x, w).sum().backward()
>>> x.grad.values().numpy(), w.grad.numpy().ravel()
(array([10.,  1.], dtype=float32), array([3., 2.], dtype=float32))
"""
# The ops first: eager.composite (which these modules use) needs them loaded.
from ..generated import forward_api as _F  # noqa: F401
from . import multiary, nn, operators, tensor_methods  # noqa: F401  (x.to_dense() & co., x + y & co.)
from .binary import add, divide, is_same_shape, multiply, subtract
from .creation import coalesce, sparse_coo_tensor, sparse_csr_tensor
from .manipulation import reshape, slice, sum, transpose  # noqa: A004
from .matmul import addmm, masked_matmul, matmul, mv
from .lowrank import pca_lowrank
from .unary import (abs, asin, asinh, atan, atanh, cast, deg2rad, expm1, isnan, log1p, neg, pow,  # noqa: A004
                    rad2deg, sin, sinh, sqrt, square, tan, tanh)

__all__ = ["abs", "add", "addmm", "asin", "asinh", "atan", "atanh", "cast", "coalesce", "deg2rad", "divide", "expm1",
           "is_same_shape", "isnan", "log1p", "masked_matmul", "matmul", "multiply", "mv", "neg", "nn", "pca_lowrank",
           "pow", "rad2deg", "reshape", "sin", "sinh", "slice", "sparse_coo_tensor", "sparse_csr_tensor", "sqrt",
           "square", "subtract", "sum", "tan", "tanh", "transpose"]
