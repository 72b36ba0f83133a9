"""Paddle's sparse Tensor methods (x.to_dense(), x.to_sparse_coo(sparse_dim),
x.to_sparse_csr(), x.is_dense(), x.is_sparse(), x.is_sparse_coo(), x.is_sparse_csr(),
x.indices(), x.values(), x.crows(), x.cols(), x.nnz(), x.coalesce()).

Attached to Tensor here, when eager.sparse loads (as eager.linalg attaches its
own): eager.tensor_api, which attaches the others, is loaded by the generated
code this package imports, before this package is.

>>> x = eager.to_tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_csr()
>>> x.is_sparse_csr(), x.nnz(), x.cols().numpy()
(True, 2, array([1, 0]))
"""
from __future__ import annotations

from ..tensor import Tensor
from . import creation

METHODS = {
    "to_dense": creation.dense_of,
    "to_sparse_coo": creation.to_sparse_coo,
    "to_sparse_csr": creation.to_sparse_csr,
    "is_dense": creation.is_dense,
    "is_sparse": creation.is_sparse,
    "is_sparse_coo": creation.is_sparse_coo,
    "is_sparse_csr": creation.is_sparse_csr,
    "indices": creation.indices,
    "values": creation.values,
    "crows": creation.crows,
    "cols": creation.cols,
    "nnz": creation.nnz,
    "coalesce": creation.coalesce,
}

for _name, _function in METHODS.items():
    setattr(Tensor, _name, _function)

__all__ = ["METHODS"]
