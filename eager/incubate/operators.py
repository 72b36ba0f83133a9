"""Paddle's top-level ``paddle.incubate`` functions: the fused attention
softmaxes, ``identity_loss``, the graph functions Paddle 2.3 put here before
``paddle.geometric`` (eager.geometric's functions under their old names and
argument names) and ``graph_khop_sampler`` (multi-hop sampling built on
eager.geometric.sample_neighbors). Composed of existing ops."""
from __future__ import annotations

import numbers

import numpy as np

from ..composite._paddle_api import composed_in
from ..creation import to_tensor
from ..tensor import Tensor
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
    # the type first: a list or array would fail the dict lookup as unhashable
    if not isinstance(reduction, (str, numbers.Integral)) or isinstance(reduction, bool) \
            or reduction not in _REDUCTIONS:
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
    if pool_type.lower() not in ("sum", "mean", "max", "min"):  # checked here: send_u_recv would name 'reduce_op'
        raise ValueError(f"incubate.graph_send_recv: argument 'pool_type' expected 'sum', 'mean', 'max' or 'min', "
                         f"got {pool_type!r}")
    return send_u_recv(x, src_index, dst_index, pool_type.lower(), out_size)


@_composed
def graph_reindex(x, neighbors, count, value_buffer=None, index_buffer=None, flag_buffer_hashtable=False,
                  name=None):
    """Paddle 2.3's name of :func:`eager.geometric.reindex_graph`: returns
    ``(reindex_src, reindex_dst, out_nodes)``. ``flag_buffer_hashtable`` (a GPU
    speed-up in Paddle) changes nothing here.

    Several edge types go in concatenated, as :func:`eager.geometric.reindex_graph`
    takes them.

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
    in Paddle) changes nothing here, but needs a ``perm_buffer``, as in Paddle.

    >>> row, colptr = eager.to_tensor([1, 0]), eager.to_tensor([0, 1, 2])
    >>> neighbors, count = eager.incubate.graph_sample_neighbors(row, colptr, eager.to_tensor([0, 1]))
    >>> neighbors.numpy(), count.numpy()
    (array([1, 0]), array([1, 1], dtype=int32))
    """
    if not isinstance(flag_perm_buffer, bool):
        raise TypeError(f"incubate.graph_sample_neighbors: argument 'flag_perm_buffer' expected a bool, got "
                        f"{flag_perm_buffer!r}")
    if flag_perm_buffer and perm_buffer is None:  # Paddle's check, though eager does not use the buffer
        raise ValueError("incubate.graph_sample_neighbors: argument 'perm_buffer' must be given when "
                         "flag_perm_buffer is True")
    return sample_neighbors(row, colptr, input_nodes, sample_size, eids, return_eids, perm_buffer)


@_composed
def graph_khop_sampler(row, colptr, input_nodes, sample_sizes, sorted_eids=None, return_eids=False, name=None):
    """Multi-hop neighbor sampling with the subgraph reindexed, as Paddle's
    kernel: hop i samples up to ``sample_sizes[i]`` neighbors of each frontier
    node (the first frontier is ``input_nodes`` with adjacent repeats dropped;
    the next, the sorted distinct sampled nodes not in the current frontier).
    The frontier nodes, hop after hop, then the sampled nodes not met before,
    get new ids 0, 1, ...

    Returns ``(edge_src, edge_dst, sample_index, reindex_nodes)`` (and
    ``edge_eids``, the sampled edges' ids from ``sorted_eids``, with
    ``return_eids``): the edges (neighbor -> frontier node) in new ids, each
    ``[num_edges, 1]``; the original id of each new id; the new ids of
    ``input_nodes``. Ids are handled on the host.

    >>> row = eager.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
    >>> colptr = eager.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
    >>> nodes = eager.to_tensor([0, 8, 1, 2])
    >>> src, dst, index, reindex = eager.incubate.graph_khop_sampler(row, colptr, nodes, [2, 2])
    >>> src.numpy().ravel(), dst.numpy().ravel(), index.numpy()
    (array([4, 5, 6, 5, 0, 6, 2, 7]), array([0, 0, 1, 1, 2, 2, 3, 4]), array([0, 8, 1, 2, 3, 7, 9, 4]))
    """
    fn = "incubate.graph_khop_sampler"
    if not isinstance(sample_sizes, (list, tuple)) or not sample_sizes or not all(
            isinstance(k, numbers.Integral) and not isinstance(k, bool) and k >= 0 for k in sample_sizes):
        # 0 is taken (that hop samples nothing, as Paddle's kernel); a first hop of 0 fails below
        raise ValueError(f"{fn}: argument 'sample_sizes' expected a non-empty list or tuple of ints >= 0, got "
                         f"{sample_sizes!r}")
    if not isinstance(return_eids, bool):
        raise TypeError(f"{fn}: argument 'return_eids' expected a bool, got {return_eids!r}")
    if return_eids and sorted_eids is None:
        raise ValueError(f"{fn}: argument 'sorted_eids' expected a Tensor when return_eids=True, got None")
    if not isinstance(input_nodes, Tensor) or not isinstance(row, Tensor):
        raise TypeError(f"{fn}: arguments 'row' and 'input_nodes' expected Tensors, got "
                        f"{type(row).__name__} and {type(input_nodes).__name__}")
    for arg, value in (("row", row), ("colptr", colptr), ("input_nodes", input_nodes)):
        if isinstance(value, Tensor) and value.size == 0:
            raise ValueError(f"{fn}: argument '{arg}' expected a non-empty Tensor, got shape {value.shape}")
    nodes = np.asarray(input_nodes.numpy()).reshape(-1)  # a conversion point: the output's size depends on ids
    frontier = nodes[np.r_[True, nodes[1:] != nodes[:-1]]] if nodes.size else nodes
    frontiers, sampled, counts, edge_ids = [], [], [], []
    for hop, k in enumerate(sample_sizes):
        if frontier.size == 0:
            break
        frontiers.append(frontier)
        out = sample_neighbors(row, colptr, to_tensor(frontier, dtype=row.dtype, place=row.place), int(k),
                               sorted_eids if return_eids else None, return_eids)
        neighbors = np.asarray(out[0].numpy()).reshape(-1)
        if hop == 0 and neighbors.size == 0:
            raise ValueError(f"{fn}: none of the input nodes has a neighbor")
        sampled.append(neighbors)
        counts.append(np.asarray(out[1].numpy()).reshape(-1))
        if return_eids:
            edge_ids.append(np.asarray(out[2].numpy()).reshape(-1))
        frontier = np.setdiff1d(np.unique(neighbors), frontier)
    new_id, sample_index = {}, []
    for node in np.concatenate(frontiers).tolist():  # a node met in two frontiers takes its later id, as Paddle's
        new_id[node] = len(sample_index)
        sample_index.append(node)
    src = []
    for node in np.concatenate(sampled).tolist():
        if node not in new_id:
            new_id[node] = len(sample_index)
            sample_index.append(node)
        src.append(new_id[node])
    dst = np.repeat([new_id[node] for node in np.concatenate(frontiers).tolist()], np.concatenate(counts))

    def tensor(values, shape):
        return to_tensor(np.asarray(values, dtype=np.int64).reshape(shape), dtype=row.dtype, place=row.place)

    result = (tensor(src, [-1, 1]), tensor(dst, [-1, 1]), tensor(sample_index, [-1]),
              tensor([new_id[node] for node in nodes.tolist()], [-1]))
    if return_eids:
        result += (tensor(np.concatenate(edge_ids), [-1]),)
    return result


__all__ = ["graph_khop_sampler", "graph_reindex", "graph_sample_neighbors", "graph_send_recv", "identity_loss",
           "softmax_mask_fuse", "softmax_mask_fuse_upper_triangle"]
