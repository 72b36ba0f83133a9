"""Paddle's ``paddle.nn.functional.flash_attention`` module: flash_attention,
flash_attn_unpadded, scaled_dot_product_attention and the sdp_kernel context.

There is no flash kernel here: each function computes the same mathematics,
softmax(Q K^T * scale + causal mask) V, with the ops of
:func:`eager.nn.functional.scaled_dot_product_attention` (a batched matmul,
the fused softmax op, dropout on the weights, a second matmul), so the whole
score matrix is formed and gradients of every order come from those ops. The
layouts are Paddle's: [batch, seq_len, num_heads, head_dim] for
flash_attention, the sequences packed along the first axis [total_len,
num_heads, head_dim] for flash_attn_unpadded. A causal mask is aligned at the
top left (query i sees keys <= i) when the two lengths differ.
"""
from __future__ import annotations

import contextlib
import numbers

from phi.common.data_type import INTEGER_TYPES

from ...arguments import to_bool
from ...generated import forward_api as _F
from ...tensor import Tensor
from .attention import _attention_heads_first, _causal_mask, scaled_dot_product_attention
from .checks import check_float, check_tensor
from .dropout import _check_p, dropout

__all__ = ["flash_attention", "flash_attn_unpadded", "scaled_dot_product_attention", "sdp_kernel"]

# (enable_math, enable_flash, enable_mem_efficient) inside an sdp_kernel block, else None
_sdp_backends = None


@contextlib.contextmanager
def sdp_kernel(enable_math=False, enable_flash=True, enable_mem_efficient=True):
    """A block in which flash_attention may use only the enabled backends.

    Every backend computes the same mathematics here (there is no flash or
    memory-efficient kernel), so the choice changes no result; as in Paddle,
    flash_attention inside a block that enables none of the three raises
    AssertionError.

    >>> from eager.nn.functional.flash_attention import flash_attention, sdp_kernel
    >>> q = eager.ones([1, 2, 1, 4])
    >>> with sdp_kernel(enable_math=True, enable_flash=False, enable_mem_efficient=False):
    ...     out, _ = flash_attention(q, q, q)
    >>> out.shape
    [1, 2, 1, 4]
    """
    global _sdp_backends
    fn = "nn.functional.flash_attention.sdp_kernel"
    flags = (to_bool(enable_math, fn, "enable_math"), to_bool(enable_flash, fn, "enable_flash"),
             to_bool(enable_mem_efficient, fn, "enable_mem_efficient"))
    outer, _sdp_backends = _sdp_backends, flags
    try:
        yield
    finally:
        _sdp_backends = outer


def _flags(fn: str, **flags) -> None:
    for arg, flag in flags.items():
        if not isinstance(flag, bool):
            raise TypeError(f"{fn}: argument '{arg}' expected a bool, got {type(flag).__name__}")


def _no_fixed_seed(fn: str, fixed_seed_offset, rng_name) -> None:
    if fixed_seed_offset is not None:
        raise ValueError(f"{fn}: argument 'fixed_seed_offset' is not supported (dropout draws from eager's "
                         f"generator; set it with eager.seed), got {fixed_seed_offset!r}")
    if not isinstance(rng_name, str):
        raise TypeError(f"{fn}: argument 'rng_name' expected a str, got {type(rng_name).__name__}")


def _same_dtypes(fn: str, query: Tensor, key: Tensor, value: Tensor) -> None:
    for arg, tensor in (("query", query), ("key", key), ("value", value)):
        check_float(fn, arg, tensor)
        if tensor.dtype != query.dtype:
            raise TypeError(f"{fn}: argument '{arg}' expected the dtype of query ({query.dtype}), got {tensor.dtype}")


def flash_attention(query: Tensor, key: Tensor, value: Tensor, dropout: float = 0.0, causal: bool = False,
                    return_softmax: bool = False, *, fixed_seed_offset=None, rng_name: str = "",
                    training: bool = True, name=None):
    """softmax(Q K^T / sqrt(head_dim)) V per head, returned as (out, softmax).

    query [batch, seq_len, num_heads, head_dim]; key and value [batch, key_len,
    num_heads, head_dim] (value may have its own head_dim). ``causal`` lets
    query i attend to keys <= i; ``dropout`` drops attention weights when
    ``training``. softmax is None unless ``return_softmax``, then the weights
    [batch, num_heads, seq_len, key_len] (after dropout). Computed exactly,
    without a flash kernel (see the module docstring).

    >>> from eager.nn.functional.flash_attention import flash_attention
    >>> q = eager.randn([2, 6, 4, 8])
    >>> out, weights = flash_attention(q, q, q, causal=True, return_softmax=True)
    >>> out.shape, weights.shape
    ([2, 6, 4, 8], [2, 4, 6, 6])
    """
    fn = "flash_attention"
    if _sdp_backends is not None and not any(_sdp_backends):
        raise AssertionError(f"{fn}: no backend is enabled: the enclosing sdp_kernel(...) disables math, flash and "
                             f"mem_efficient")
    _same_dtypes(fn, query, key, value)
    for arg, tensor in (("query", query), ("key", key), ("value", value)):
        if tensor.ndim != 4:
            raise ValueError(f"{fn}: argument '{arg}' expected a 4-d tensor [batch, seq_len, num_heads, head_dim], "
                             f"got shape {tensor.shape}")
    if key.shape[0] != query.shape[0] or key.shape[2:] != query.shape[2:]:
        raise ValueError(f"{fn}: argument 'key' expected query's batch, num_heads and head_dim (query "
                         f"{query.shape}), got shape {key.shape}")
    if value.shape[:3] != key.shape[:3]:
        raise ValueError(f"{fn}: argument 'value' expected key's batch, seq_len and num_heads (key {key.shape}), "
                         f"got shape {value.shape}")
    p = _check_p(fn, dropout, "dropout")
    _flags(fn, causal=causal, return_softmax=return_softmax, training=training)
    _no_fixed_seed(fn, fixed_seed_offset, rng_name)
    heads_first = [0, 2, 1, 3]
    bias = _causal_mask(query.shape[1], key.shape[1], query.dtype, query.place) if causal else None
    out, weights = _attention_heads_first(_F.transpose(query, heads_first), _F.transpose(key, heads_first),
                                          _F.transpose(value, heads_first), bias, p, training)
    return _F.transpose(out, heads_first), (weights if return_softmax else None)


def _cu_seqlens(fn: str, arg: str, cu, total: int) -> list:
    check_tensor(fn, arg, cu)
    if cu.ndim != 1 or cu.shape[0] < 2 or cu.dtype not in INTEGER_TYPES:
        raise ValueError(f"{fn}: argument '{arg}' expected a 1-d int tensor [batch + 1], got {cu.dtype}{cu.shape}")
    offsets = [int(v) for v in cu.numpy().reshape(-1)]
    if offsets[0] != 0 or offsets[-1] != total or any(b < a for a, b in zip(offsets, offsets[1:])):
        raise ValueError(f"{fn}: argument '{arg}' expected non-decreasing offsets from 0 to {total} (the packed "
                         f"length), got {offsets}")
    return offsets


def flash_attn_unpadded(query: Tensor, key: Tensor, value: Tensor, cu_seqlens_q: Tensor, cu_seqlens_k: Tensor,
                        max_seqlen_q: int, max_seqlen_k: int, scale: float, dropout: float = 0.0,
                        causal: bool = False, return_softmax: bool = False, fixed_seed_offset=None,
                        rng_name: str = "", training: bool = True, name=None):
    """Attention over packed variable-length sequences, returned as (out, softmax).

    query [total_q, num_heads, head_dim], key/value [total_k, num_heads,
    head_dim]; sequence b's queries are rows cu_seqlens_q[b]:cu_seqlens_q[b + 1]
    (likewise for keys). Each sequence attends within itself:
    softmax(Q K^T * ``scale``) V. out is [total_q, num_heads, head_dim];
    softmax, when ``return_softmax``, the weights zero-padded to [batch,
    num_heads, max_seqlen_q, max_seqlen_k], else None. Reads the offsets (a
    wait on a GPU).

    >>> from eager.nn.functional.flash_attention import flash_attn_unpadded
    >>> q = eager.randn([5, 2, 4])                     # sequences of 2 and 3
    >>> cu = eager.to_tensor([0, 2, 5], dtype="int32")
    >>> flash_attn_unpadded(q, q, q, cu, cu, 3, 3, 0.5)[0].shape
    [5, 2, 4]
    """
    fn = "flash_attn_unpadded"
    _same_dtypes(fn, query, key, value)
    for arg, tensor in (("query", query), ("key", key), ("value", value)):
        if tensor.ndim != 3:
            raise ValueError(f"{fn}: argument '{arg}' expected a 3-d tensor [total_len, num_heads, head_dim], got "
                             f"shape {tensor.shape}")
    if key.shape[1:] != query.shape[1:]:
        raise ValueError(f"{fn}: argument 'key' expected query's num_heads and head_dim (query {query.shape}), "
                         f"got shape {key.shape}")
    if value.shape[:2] != key.shape[:2]:
        raise ValueError(f"{fn}: argument 'value' expected key's total_len and num_heads (key {key.shape}), got "
                         f"shape {value.shape}")
    for arg, size in (("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k)):
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 0:
            raise TypeError(f"{fn}: argument '{arg}' expected a non-negative int, got {size!r}")
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise TypeError(f"{fn}: argument 'scale' expected a float, got {type(scale).__name__}")
    p = _check_p(fn, dropout, "dropout")
    _flags(fn, causal=causal, return_softmax=return_softmax, training=training)
    _no_fixed_seed(fn, fixed_seed_offset, rng_name)
    offsets_q = _cu_seqlens(fn, "cu_seqlens_q", cu_seqlens_q, query.shape[0])
    offsets_k = _cu_seqlens(fn, "cu_seqlens_k", cu_seqlens_k, key.shape[0])
    if len(offsets_q) != len(offsets_k):
        raise ValueError(f"{fn}: arguments 'cu_seqlens_q' and 'cu_seqlens_k' expected the same batch, got "
                         f"{len(offsets_q) - 1} and {len(offsets_k) - 1} sequences")
    to_heads = [1, 0, 2]
    outs, weights_all = [], []
    for (q0, q1), (k0, k1) in zip(zip(offsets_q, offsets_q[1:]), zip(offsets_k, offsets_k[1:])):
        lq, lk = q1 - q0, k1 - k0
        if lq > max_seqlen_q or lk > max_seqlen_k:
            raise ValueError(f"{fn}: a sequence of lengths ({lq}, {lk}) exceeds max_seqlen_q, max_seqlen_k = "
                             f"({max_seqlen_q}, {max_seqlen_k})")
        q = _F.transpose(_F.slice(query, [0], [q0], [q1]), to_heads)                   # [heads, lq, d]
        k = _F.transpose(_F.slice(key, [0], [k0], [k1]), to_heads)
        v = _F.transpose(_F.slice(value, [0], [k0], [k1]), to_heads)
        scores = _F.scale(_F.matmul(q, k, False, True), float(scale), 0.0, True)
        if causal:
            scores = _F.add(scores, _causal_mask(lq, lk, query.dtype, query.place))
        weights = _F.softmax(scores, -1)
        if p > 0.0 and training:
            weights = _dropout_weights(weights, p)
        outs.append(_F.transpose(_F.matmul(weights, v), to_heads))
        if return_softmax:
            weights_all.append(_F.pad(weights, [0, 0, 0, max_seqlen_q - lq, 0, max_seqlen_k - lk], 0.0))
    out = _F.concat(outs, 0) if len(outs) > 1 else outs[0]
    return out, (_F.stack(weights_all, 0) if return_softmax else None)


def _dropout_weights(weights: Tensor, p: float) -> Tensor:
    """Attention-weight dropout (upscale in train), as scaled_dot_product_attention's."""
    return dropout(weights, p, training=True, mode="upscale_in_train")
