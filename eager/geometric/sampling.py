"""Paddle's sample_neighbors and weighted_sample_neighbors: up to sample_size
neighbors of each input node, drawn without replacement from a graph in CSC form
(the neighbors of node v are row[colptr[v]:colptr[v + 1]]).

The draw uses the framework's generator (one ``rand`` per call, so eager.seed makes
it reproducible): each candidate edge gets a key (uniform u, or -log(u) / weight)
and a node keeps the sample_size edges with the smallest keys, listed in CSC order. Ids are handled on the
host (a conversion point: the output's size depends on them).
"""
from __future__ import annotations

import numbers

import numpy as np

from ..composite import _paddle_api as _check
from ..creation import to_tensor
from ..errors import ArgumentKindError
from ..generated import forward_api as _F
from . import _args


def _csc(op: str, arg: str, value, dtype) -> np.ndarray:
    """A [n] or [n, 1] int tensor of ``dtype`` as a 1-d host array."""
    _check.tensor(op, arg, value)
    if value.dtype != dtype:
        # Paddle's kernel raises ValueError (its tensor holds another type): both
        raise ArgumentKindError(f"{op}: argument '{arg}' expected row's dtype {dtype}, got {value.dtype}")
    if len(value.shape) == 2 and value.shape[1] == 1:
        value = _F.reshape(value, [-1])
    return _args.index(op, arg, value)


@_check.composed
def sample_neighbors(row, colptr, input_nodes, sample_size=-1, eids=None, return_eids=False, perm_buffer=None,
                     name=None):
    """Samples up to ``sample_size`` neighbors (all of them when -1 or when a node has no
    more) of each node in ``input_nodes``, without replacement, from the CSC graph
    (``row``, ``colptr``). Returns (out_neighbors, out_count[, out_eids]): the sampled
    neighbor ids, node after node; how many each node got (int32); with
    ``return_eids``, the sampled edges' ids taken from ``eids``. ``perm_buffer``
    (Paddle's GPU Fisher-Yates buffer) is accepted and changes nothing.

    >>> row = eager.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
    >>> colptr = eager.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
    >>> neighbors, count = eager.geometric.sample_neighbors(row, colptr, eager.to_tensor([0, 8, 1, 2]))
    >>> neighbors.numpy(), count.numpy()
    (array([3, 7, 9, 7, 0, 9, 1]), array([2, 2, 2, 1], dtype=int32))
    """
    op = "sample_neighbors"
    if perm_buffer is not None:
        _check.tensor(op, "perm_buffer", perm_buffer)
    return _sample(op, row, colptr, None, input_nodes, sample_size, eids, return_eids)


@_check.composed
def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size=-1, eids=None, return_eids=False,
                              name=None):
    """:func:`sample_neighbors` where an edge's chance of being drawn grows with its
    ``edge_weight`` (one non-negative float per edge, in CSC order): a weighted draw
    without replacement (each key -log(u) / w, the smallest kept; a zero-weight edge
    only when a node has no more positive ones).

    >>> row = eager.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
    >>> colptr = eager.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
    >>> weight = eager.to_tensor([1., 0., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1., 1.])
    >>> eager.geometric.weighted_sample_neighbors(row, colptr, weight, eager.to_tensor([0]), 1)[0].numpy()
    array([3])
    """
    return _sample("weighted_sample_neighbors", row, colptr, edge_weight, input_nodes, sample_size, eids,
                   return_eids)


def _sample(op, row, colptr, edge_weight, input_nodes, sample_size, eids, return_eids):
    """The two samplers' work: checks, then the (weighted) draw on the host."""
    _check.tensor(op, "row", row)
    edges = _csc(op, "row", row, row.dtype)
    starts = _csc(op, "colptr", colptr, row.dtype)
    nodes = _csc(op, "input_nodes", input_nodes, row.dtype)
    if not isinstance(sample_size, numbers.Integral) or isinstance(sample_size, bool):
        raise TypeError(f"{op}: argument 'sample_size' expected an int, got {type(sample_size).__name__} "
                        f"{sample_size!r}")
    if sample_size < -1:
        raise ValueError(f"{op}: argument 'sample_size' expected -1 (all) or an int >= 0, got {sample_size}")
    if starts.size == 0 or starts[0] != 0 or (np.diff(starts) < 0).any() or starts[-1] != edges.size:
        raise ValueError(f"{op}: argument 'colptr' expected non-decreasing offsets from 0 to the {edges.size} "
                         f"edges of 'row'")
    _args.in_range(op, "input_nodes", nodes, starts.size - 1, f"a graph of {starts.size - 1} nodes")
    if not isinstance(return_eids, bool):
        raise TypeError(f"{op}: argument 'return_eids' expected a bool, got {return_eids!r}")
    if return_eids:
        if eids is None:
            raise ValueError(f"{op}: argument 'eids' is needed when return_eids is True")
        edge_ids = _csc(op, "eids", eids, row.dtype)
        if edge_ids.shape != edges.shape:
            raise ValueError(f"{op}: argument 'eids' expected one id per edge ({edges.size}), got {edge_ids.size}")
    if edge_weight is not None:
        _check.tensor(op, "edge_weight", edge_weight)
        if not edge_weight.dtype.is_floating_point:
            raise ArgumentKindError(f"{op}: argument 'edge_weight' expected a floating-point Tensor, got "
                                    f"{edge_weight.dtype}")
        weights = _F.reshape(edge_weight, [-1]).numpy().astype(np.float64)  # a conversion point: sampling odds
        if weights.shape != edges.shape:
            raise ValueError(f"{op}: argument 'edge_weight' expected one weight per edge ({edges.size}), "
                             f"got {weights.size}")
        if not ((weights >= 0) & np.isfinite(weights)).all():
            raise ValueError(f"{op}: argument 'edge_weight' expected non-negative finite weights")
    else:
        weights = None
    lo, hi = starts[nodes], starts[nodes + 1]
    degrees = hi - lo
    candidates = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)]) if nodes.size else np.zeros(0, np.int64)
    if sample_size == -1 or not (degrees > sample_size).any():
        picked = candidates.astype(np.int64)
    else:
        keys = _F.rand([int(candidates.size)], "float64", row.place).numpy()  # the framework's generator
        if weights is not None:
            # Efraimidis-Spirakis: the smallest -log(u) / w are a weighted draw without replacement.
            with np.errstate(divide="ignore"):
                keys = -np.log(keys) / weights[candidates]
        owner = np.repeat(np.arange(nodes.size), degrees)
        by_key = np.lexsort((keys, owner))  # each node's edges, smallest key first
        rank = np.empty(candidates.size, np.int64)
        rank[by_key] = np.arange(candidates.size) - np.repeat(np.r_[0, np.cumsum(degrees)[:-1]], degrees)
        picked = candidates[rank < sample_size].astype(np.int64)
    counts = np.minimum(degrees, sample_size) if sample_size != -1 else degrees
    dtype = row.dtype.value
    out = (to_tensor(edges[picked].astype(dtype), place=row.place),
           to_tensor(counts.astype(np.int32), place=row.place))
    if return_eids:
        out += (to_tensor(edge_ids[picked].astype(dtype), place=row.place),)
    return out
