"""Paddle's top-level ``paddle.incubate`` functions: the fused attention
softmaxes, ``identity_loss``, and the graph functions Paddle 2.3 put here
before ``paddle.geometric`` (each the eager.geometric function under its old
name and argument names). Composed of existing ops."""
from __future__ import annotations

from ..composite._paddle_api import composed_in
from ..generated import forward_api as _F
from ..geometric import reindex_graph, sample_neighbors, send_u_recv
from ..nn import functional as F
from ..nn.functional.checks import check_float

_composed = composed_in("incubate")


def _attention_scores(fn: str, x):
    check_float(f"incubate.{fn}", "x", x)
    if x.ndim != 4:
        raise ValueError(f"incubate.{fn}: argument 'x' expected a 4-d Tensor [batch, heads, seq_q, seq_k], got "
                         f"shape {x.shape}")
    return x


@_composed
def softmax_mask_fuse(x, mask, name=None):
    """``softmax(x + mask, axis=-1)`` for attention scores x ``[batch, heads,
    seq_q, seq_k]`` and an additive mask ``[batch, 1, seq_q, seq_k]``.

    >>> x = eager.zeros([1, 1, 1, 2])
    >>> eager.incubate.softmax_mask_fuse(x, eager.to_tensor([[[[0.0, -1e4]]]])).numpy()
    array([[[[1., 0.]]]], dtype=float32)
    """
    fn = "softmax_mask_fuse"
    _attention_scores(fn, x)
    check_float(f"incubate.{fn}", "mask", mask)
    if mask.dtype != x.dtype:
        raise TypeError(f"incubate.{fn}: argument 'mask' expected dtype {x.dtype} (that of x), got {mask.dtype}")
    b, _, sq, sk = x.shape
    if mask.shape != [b, 1, sq, sk]:
        raise ValueError(f"incubate.{fn}: argument 'mask' expected shape {[b, 1, sq, sk]}, got {mask.shape}")
    return F.softmax(_F.add(x, mask), -1)


@_composed
def softmax_mask_fuse_upper_triangle(x):
    """Causal softmax of attention scores x ``[batch, heads, seq, seq]``: entry
    ``(i, j)`` with ``j > i`` is masked out (weight 0), the rest is softmaxed
    along the last axis.

    >>> eager.incubate.softmax_mask_fuse_upper_triangle(eager.zeros([1, 1, 2, 2])).numpy()[0, 0]
    array([[1. , 0. ],
           [0.5, 0.5]], dtype=float32)
    """
    fn = "softmax_mask_fuse_upper_triangle"
    _attention_scores(fn, x)
    seq = x.shape[-1]
    if x.shape[-2] != seq:
        raise ValueError(f"incubate.{fn}: argument 'x' expected square scores [batch, heads, seq, seq], got "
                         f"shape {x.shape}")
    mask = _F.triu(_F.full([seq, seq], float("-inf"), x.dtype, x.place), 1)  # -inf above the diagonal
    return F.softmax(_F.add(x, mask), -1)


_REDUCTIONS = {0: "sum", 1: "mean", 2: "none", "sum": "sum", "mean": "mean", "none": "none"}


@_composed
def identity_loss(x, reduction="none"):
    """Marks x as the loss (Paddle's IPU helper): its sum (``reduction`` 'sum' or
    0), mean ('mean' or 1) or x itself ('none' or 2, the default).

    >>> eager.incubate.identity_loss(eager.to_tensor([1.0, 3.0]), "mean").numpy()
    array(2., dtype=float32)
    """
    check_float("incubate.identity_loss", "x", x)
    if isinstance(reduction, bool) or reduction not in _REDUCTIONS:
        raise ValueError(f"incubate.identity_loss: argument 'reduction' expected 'sum', 'mean', 'none' or 0, 1, "
                         f"2, got {reduction!r}")
    kind = _REDUCTIONS[reduction]
    if kind == "sum":
        return _F.sum(x)
    if kind == "mean":
        return _F.mean(x)
    return x


@_composed
def graph_send_recv(x, src_index, dst_index, pool_type="sum", out_size=None, name=None):
    """Paddle 2.3's name of :func:`eager.geometric.send_u_recv`: gathers rows of x
    at ``src_index`` and reduces them (``pool_type`` 'sum', 'mean', 'max' or
    'min') into the rows ``dst_index``.

    >>> x = eager.to_tensor([[1.0], [2.0]])
    >>> i = eager.to_tensor([0, 1])
    >>> eager.incubate.graph_send_recv(x, i, eager.to_tensor([1, 1])).numpy().ravel()
    array([0., 3.], dtype=float32)
    """
    if not isinstance(pool_type, str):
        raise TypeError(f"incubate.graph_send_recv: argument 'pool_type' expected 'sum', 'mean', 'max' or 'min', "
                        f"got {pool_type!r}")
    return send_u_recv(x, src_index, dst_index, pool_type.lower(), out_size)


@_composed
def graph_reindex(x, neighbors, count, value_buffer=None, index_buffer=None, flag_buffer_hashtable=False,
                  name=None):
    """Paddle 2.3's name of :func:`eager.geometric.reindex_graph`: returns
    ``(reindex_src, reindex_dst, out_nodes)``. ``flag_buffer_hashtable`` (a GPU
    speed-up in Paddle) changes nothing here.

    >>> src, dst, nodes = eager.incubate.graph_reindex(eager.to_tensor([0, 1]), eager.to_tensor([5, 0, 5]),
    ...                                                eager.to_tensor([1, 2], dtype="int32"))
    >>> src.numpy(), dst.numpy(), nodes.numpy()
    (array([2, 0, 2]), array([0, 1, 1]), array([0, 1, 5]))
    """
    if not isinstance(flag_buffer_hashtable, bool):
        raise TypeError(f"incubate.graph_reindex: argument 'flag_buffer_hashtable' expected a bool, got "
                        f"{flag_buffer_hashtable!r}")
    return reindex_graph(x, neighbors, count, value_buffer, index_buffer)


@_composed
def graph_sample_neighbors(row, colptr, input_nodes, eids=None, perm_buffer=None, sample_size=-1,
                           return_eids=False, flag_perm_buffer=False, name=None):
    """Paddle 2.3's name of :func:`eager.geometric.sample_neighbors` (a CSC graph:
    ``row``, ``colptr``): returns ``(out_neighbors, out_count)``, with
    ``out_eids`` too when ``return_eids``. ``flag_perm_buffer`` (a GPU speed-up
    in Paddle) changes nothing here.

    >>> row, colptr = eager.to_tensor([1, 0]), eager.to_tensor([0, 1, 2])
    >>> neighbors, count = eager.incubate.graph_sample_neighbors(row, colptr, eager.to_tensor([0, 1]))
    >>> neighbors.numpy(), count.numpy()
    (array([1, 0]), array([1, 1], dtype=int32))
    """
    if not isinstance(flag_perm_buffer, bool):
        raise TypeError(f"incubate.graph_sample_neighbors: argument 'flag_perm_buffer' expected a bool, got "
                        f"{flag_perm_buffer!r}")
    return sample_neighbors(row, colptr, input_nodes, sample_size, eids, return_eids, perm_buffer)


__all__ = ["graph_reindex", "graph_sample_neighbors", "graph_send_recv", "identity_loss", "softmax_mask_fuse",
           "softmax_mask_fuse_upper_triangle"]
