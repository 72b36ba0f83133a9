"""InferMeta of the embedding ops, whose sparse gradient is a SelectedRows (issue #10).

``x`` holds int32/int64 ids of any shape, ``weight`` is the [V, D] table and
``padding_idx`` is -1 (no padding row) or a row in [0, V): the Python layer
has already turned Paddle's negative padding_idx into V + padding_idx. Whether
the ids are in [0, V) depends on the data, so the kernel checks that.
"""
from __future__ import annotations

from ..common.data_type import DataType
from ..core.errors import InvalidArgumentError

__all__ = ["embedding_infer_meta", "embedding_grad_infer_meta"]

_ID_TYPES = (DataType.INT32, DataType.INT64)
_TABLE_TYPES = (DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64, DataType.COMPLEX64, DataType.COMPLEX128)


def _check(x, weight, padding_idx) -> tuple:
    if x.dtype not in _ID_TYPES:
        raise InvalidArgumentError(f"argument 'x' expected an int32 or int64 tensor of ids, got {x.dtype}")
    dims = tuple(weight.dims)
    if len(dims) != 2:
        raise InvalidArgumentError(f"argument 'weight' expected a 2-D table [num_embeddings, embedding_dim], "
                                   f"got shape {list(dims)}")
    if weight.dtype not in _TABLE_TYPES:
        raise InvalidArgumentError(f"argument 'weight' expected a floating or complex tensor, got {weight.dtype}")
    if isinstance(padding_idx, bool) or not isinstance(padding_idx, int) or not -1 <= padding_idx < dims[0]:
        raise InvalidArgumentError(f"argument 'padding_idx' expected -1 (none) or a row in [0, {dims[0]}), "
                                   f"got {padding_idx!r}")
    return dims


def embedding_infer_meta(x, weight, padding_idx, sparse, out):
    """out = weight[x]: x.dims + [embedding_dim], weight's dtype."""
    dims = _check(x, weight, padding_idx)
    out.dims, out.dtype, out.layout = tuple(x.dims) + (dims[1],), weight.dtype, weight.layout


def embedding_grad_infer_meta(x, weight, out_grad, padding_idx, sparse, weight_grad):
    """weight_grad has weight's dims ([V, D]; a SelectedRows of that height when sparse)."""
    dims = _check(x, weight, padding_idx)
    want = tuple(x.dims) + (dims[1],)
    if tuple(out_grad.dims) != want:
        raise InvalidArgumentError(f"argument 'out_grad' expected shape {list(want)} (x's shape + [embedding_dim]), "
                                   f"got {list(out_grad.dims)}")
    if out_grad.dtype is not weight.dtype:
        raise InvalidArgumentError(f"argument 'out_grad' expected dtype {weight.dtype} (that of weight), "
                                   f"got {out_grad.dtype}")
    weight_grad.dims, weight_grad.dtype, weight_grad.layout = dims, weight.dtype, weight.layout
