"""Block-sparse attention with a CSR layout (Paddle's
``paddle.nn.functional.sparse_attention``), computed over dense tensors.

The CSR pattern (per batch and head: ``sparse_csr_offset`` [L + 1] row
offsets, ``sparse_csr_columns`` [nnz] column indices) becomes a dense
[batch, heads, L, L] mask with ops (searchsorted gives each stored entry's
row, put_along_axis marks it), so nothing is read back from the device.
Scores outside the pattern, at a zero of ``key_padding_mask`` or of
``attn_mask``, are left out of the softmax. The score matrix is formed whole:
the result is exact, not memory-saving. Differentiable in query, key and
value through the ops.
"""
from __future__ import annotations


from phi.common.data_type import INTEGER_TYPES, DataType, float_info

from ...composite.spine import exactly_equal
from ...generated import forward_api as _F
from ...tensor import Tensor
from .checks import check_float, check_tensor, reads_values

__all__ = ["sparse_attention"]


def _check_int(fn: str, arg: str, value, shape) -> Tensor:
    check_tensor(fn, arg, value)
    if value.dtype not in INTEGER_TYPES or value.shape != shape:
        raise ValueError(f"{fn}: argument '{arg}' expected an int32 or int64 tensor of shape {shape}, got "
                         f"{value.dtype}{value.shape}")
    return value if value.dtype == DataType.INT64 else _F.cast(value, DataType.INT64)


def _keep_mask(fn: str, arg: str, mask, shape, dtype):
    """A bool tensor: True where the mask is non-zero (None stays None)."""
    if mask is None:
        return None
    check_tensor(fn, arg, mask)
    if mask.shape != shape:
        raise ValueError(f"{fn}: argument '{arg}' expected shape {shape}, got {mask.shape}")
    if mask.dtype == DataType.BOOL:
        return mask
    return _F.logical_not(exactly_equal(mask, _F.zeros_like(mask)))


def sparse_attention(query: Tensor, key: Tensor, value: Tensor, sparse_csr_offset: Tensor,
                     sparse_csr_columns: Tensor, key_padding_mask=None, attn_mask=None, name=None) -> Tensor:
    """softmax(Q K^T / sqrt(head_dim)) V with each query row attending only to
    the columns its CSR row lists.

    query, key, value: [batch, num_heads, seq_len, head_dim];
    ``sparse_csr_offset`` [batch, num_heads, seq_len + 1] and
    ``sparse_csr_columns`` [batch, num_heads, nnz] (int32 or int64) give, per
    row r, the columns columns[offset[r]:offset[r + 1]]. ``key_padding_mask``
    [batch, seq_len] and ``attn_mask`` [seq_len, seq_len] leave out the keys
    where they are 0. A row with no key left gives zeros.

    >>> q = eager.randn([1, 1, 3, 2])
    >>> offset = eager.to_tensor([[[0, 1, 3, 4]]], dtype="int32")   # row 0: col 0; row 1: cols 0, 1; row 2: col 2
    >>> columns = eager.to_tensor([[[0, 0, 1, 2]]], dtype="int32")
    >>> eager.nn.functional.sparse_attention(q, q, q, offset, columns).shape
    [1, 1, 3, 2]
    """
    fn = "sparse_attention"
    for arg, tensor in (("query", query), ("key", key), ("value", value)):
        check_float(fn, arg, tensor)
        if tensor.ndim != 4:
            raise ValueError(f"{fn}: argument '{arg}' expected a 4-d tensor [batch, num_heads, seq_len, head_dim], "
                             f"got shape {tensor.shape}")
        if tensor.dtype != query.dtype:
            raise TypeError(f"{fn}: argument '{arg}' expected the dtype of query ({query.dtype}), got {tensor.dtype}")
    if key.shape != query.shape or value.shape[:3] != query.shape[:3]:
        raise ValueError(f"{fn}: arguments 'key' and 'value' expected query's shape {query.shape}, got "
                         f"{key.shape} and {value.shape}")
    batch, heads, length, head_dim = query.shape
    offset = _check_int(fn, "sparse_csr_offset", sparse_csr_offset, [batch, heads, length + 1])
    check_tensor(fn, "sparse_csr_columns", sparse_csr_columns)
    if sparse_csr_columns.ndim != 3 or sparse_csr_columns.shape[:2] != [batch, heads]:
        raise ValueError(f"{fn}: argument 'sparse_csr_columns' expected shape [{batch}, {heads}, nnz], got "
                         f"{sparse_csr_columns.shape}")
    nnz = sparse_csr_columns.shape[2]
    columns = _check_int(fn, "sparse_csr_columns", sparse_csr_columns, [batch, heads, nnz])
    if reads_values(offset) and offset.numel():
        steps = _F.subtract(_F.slice(offset, [2], [1], [length + 1]), _F.slice(offset, [2], [0], [length]))
        first, last = _F.slice(offset, [2], [0], [1]), _F.slice(offset, [2], [length], [length + 1])
        if (int(_F.min(steps).numpy()) < 0 or int(_F.max(_F.abs(first)).numpy()) != 0
                or int(_F.max(last).numpy()) > nnz):
            raise ValueError(f"{fn}: argument 'sparse_csr_offset' expected non-decreasing row offsets from 0 to at "
                             f"most nnz = {nnz} in each [batch, head]")
        stored = _F.less_than(_F.expand(_F.reshape(_F.arange(0, nnz, 1, DataType.INT64, query.place), [1, 1, nnz]),
                                        [batch, heads, nnz]), last) if nnz else None
        used_columns = _F.masked_select(columns, stored) if nnz else None
        if used_columns is not None and used_columns.numel():
            low, high = int(_F.min(used_columns).numpy()), int(_F.max(used_columns).numpy())
            if low < 0 or high >= length:
                raise ValueError(f"{fn}: argument 'sparse_csr_columns' expected column indices in [0, {length}), "
                                 f"got values in [{low}, {high}]")
    padding = _keep_mask(fn, "key_padding_mask", key_padding_mask, [batch, length], query.dtype)
    extra = _keep_mask(fn, "attn_mask", attn_mask, [length, length], query.dtype)
    place = query.place
    if nnz:
        # stored entry j lies in row r when offset[r] <= j < offset[r + 1]
        entries = _F.expand(_F.reshape(_F.arange(0, nnz, 1, DataType.INT64, place), [1, 1, nnz]),
                            [batch, heads, nnz])
        rows = _F.searchsorted(_F.slice(offset, [2], [1], [length + 1]), entries, False, True)
        rows = _F.minimum(rows, _F.full([], length - 1, DataType.INT64, place))
        columns = _F.clip(columns, 0, length - 1)
        flat = _F.add(_F.multiply(rows, _F.full([], length, DataType.INT64, place)), columns)
        used = _F.less_than(entries, _F.slice(offset, [2], [length], [length + 1]))   # j < offset[L]
        marks = _F.cast(used, query.dtype)
        keep = _F.put_along_axis(_F.zeros([batch, heads, length * length], query.dtype, place), flat, marks, 2,
                                 "add", True, False)
        keep = _F.greater_than(_F.reshape(keep, [batch, heads, length, length]),
                               _F.zeros([], query.dtype, place))
    else:
        keep = _F.full([batch, heads, length, length], False, DataType.BOOL, place)
    if padding is not None:
        keep = _F.logical_and(keep, _F.reshape(padding, [batch, 1, 1, length]))
    if extra is not None:
        keep = _F.logical_and(keep, _F.reshape(extra, [1, 1, length, length]))
    scores = _F.scale(_F.matmul(query, key, False, True), head_dim ** -0.5 if head_dim else 1.0, 0.0, True)
    lowest = _F.full([], float(float_info(query.dtype).min), query.dtype, place)
    weights = _F.softmax(_F.where(keep, scores, lowest), -1)
    weights = _F.multiply(weights, _F.cast(keep, query.dtype))   # rows with no key: zeros
    return _F.matmul(weights, value)
