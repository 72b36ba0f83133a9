"""Paddle's reindex_graph / reindex_heter_graph: the node ids of a sampled subgraph
(the input nodes x and their neighbors) renumbered from 0, x first in its order,
then each new neighbor in order of first appearance.

Index work on the host (a conversion point: these are ids, and the outputs' sizes
depend on them); the outputs go to x's place with x's dtype.
"""
from __future__ import annotations

import numpy as np

from ..composite import _paddle_api as _check
from ..creation import to_tensor
from ..errors import ArgumentKindError
from ..tensor import Tensor
from . import _args


def _ids(op: str, arg: str, value, dtype=None) -> np.ndarray:
    # [N, 1] too: Paddle's GraphReindexInferMeta takes a 2-d tensor whose last dim is 1
    ids = _args.index(op, arg, value, column=True)
    if dtype is not None and value.dtype != dtype:
        # Paddle's kernel raises ValueError (its tensor holds another type): both
        raise ArgumentKindError(f"{op}: argument '{arg}' expected x's dtype {dtype}, got {value.dtype}")
    return ids


def _buffers(op: str, value_buffer, index_buffer) -> None:
    # Paddle's hash-table buffers only speed its GPU kernel up; they change no result.
    for arg, value in (("value_buffer", value_buffer), ("index_buffer", index_buffer)):
        if value is not None and not isinstance(value, Tensor):
            _check.tensor(op, arg, value)


def _reindex(op: str, x, neighbors_list, count_list, neighbor_args, count_args, concatenated: bool = False):
    """The renumbering; with ``concatenated`` (reindex_graph) a ``count`` whose length is
    a multiple of x's holds several edge types one after another, as Paddle reads it."""
    nodes = _ids(op, "x", x)
    if nodes.size == 0:  # Paddle's kernel: "The first of dims should not be equal to 0"
        raise ValueError(f"{op}: argument 'x' expected at least one node id, got an empty Tensor")
    if np.unique(nodes).size != nodes.size:
        raise ValueError(f"{op}: argument 'x' expected unique node ids, got repeats")
    position = {int(v): i for i, v in enumerate(nodes)}
    out_nodes = list(nodes)
    sources, targets = [], []
    for neighbors, count, n_arg, c_arg in zip(neighbors_list, count_list, neighbor_args, count_args):
        ids = _ids(op, n_arg, neighbors, x.dtype)
        _check.tensor(op, c_arg, count)
        if count.dtype.value != "int32":
            raise ArgumentKindError(f"{op}: argument '{c_arg}' expected an int32 Tensor, got {count.dtype}")
        counts = _args.index(op, c_arg, count, column=True)
        types = counts.shape[0] // nodes.shape[0] if concatenated and counts.shape[0] % nodes.shape[0] == 0 else 1
        if counts.shape[0] != nodes.shape[0] * types or types == 0:
            raise ValueError(f"{op}: argument '{c_arg}' expected one count per node of x ({nodes.shape[0]})"
                             f"{', or a multiple for several edge types' if concatenated else ''}, "
                             f"got {counts.shape[0]}")
        if (counts < 0).any() or counts.sum() != ids.shape[0]:
            raise ValueError(f"{op}: argument '{c_arg}' expected non-negative counts summing to the "
                             f"{ids.shape[0]} neighbors, got a sum of {int(counts.sum())}")
        for v in ids.tolist():
            if v not in position:
                position[v] = len(out_nodes)
                out_nodes.append(v)
        sources.append(np.array([position[v] for v in ids.tolist()], np.int64))
        targets.extend(np.repeat(np.arange(nodes.shape[0], dtype=np.int64), part)
                       for part in counts.reshape(types, nodes.shape[0]))
    dtype = x.dtype.value
    return tuple(to_tensor(np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype), place=x.place)
                 for parts in (sources, targets, [np.asarray(out_nodes, np.int64)]))


@_check.composed
def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """Renumbers a sampled subgraph from 0: returns (reindex_src, reindex_dst, out_nodes).
    ``x`` holds the (unique) center node ids, ``neighbors`` their neighbors one center
    after another, ``count`` (int32) how many each center has. out_nodes is x followed
    by each new neighbor id in order of first appearance; reindex_src is each
    neighbor's position in out_nodes and reindex_dst its center's position in x.
    ``value_buffer``/``index_buffer`` (Paddle's GPU hash-table buffers) are accepted
    and change nothing. Several edge types may go in concatenated, as Paddle takes
    them: ``count`` then holds one count per node of x for each type, type after
    type (its length a multiple of x's), and ``neighbors`` the types' neighbors in
    the same order; the result is :func:`reindex_heter_graph`'s.

    >>> src, dst, nodes = eager.geometric.reindex_graph(
    ...     eager.to_tensor([0, 1, 2]), eager.to_tensor([8, 9, 0, 4, 7, 6, 7]),
    ...     eager.to_tensor([2, 3, 2], dtype="int32"))
    >>> src.numpy(), dst.numpy(), nodes.numpy()
    (array([3, 4, 0, 5, 6, 7, 6]), array([0, 0, 1, 1, 1, 2, 2]), array([0, 1, 2, 8, 9, 4, 7, 6]))
    """
    op = "reindex_graph"
    _buffers(op, value_buffer, index_buffer)
    return _reindex(op, x, [neighbors], [count], ["neighbors"], ["count"], concatenated=True)


@_check.composed
def reindex_heter_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """:func:`reindex_graph` over several edge types: ``neighbors`` and ``count`` are lists
    (one Tensor per type); the types share one numbering (x first, then new neighbors in
    order of first appearance, type after type), and reindex_src / reindex_dst hold the
    edges of every type, type after type.

    >>> src, dst, nodes = eager.geometric.reindex_heter_graph(
    ...     eager.to_tensor([0, 1, 2]),
    ...     [eager.to_tensor([8, 9, 0, 4, 7, 6, 7]), eager.to_tensor([0, 2, 3, 5, 1])],
    ...     [eager.to_tensor([2, 3, 2], dtype="int32"), eager.to_tensor([1, 3, 1], dtype="int32")])
    >>> nodes.numpy()
    array([0, 1, 2, 8, 9, 4, 7, 6, 3, 5])
    >>> src.numpy()
    array([3, 4, 0, 5, 6, 7, 6, 0, 2, 8, 9, 1])
    """
    op = "reindex_heter_graph"
    _buffers(op, value_buffer, index_buffer)
    for arg, value in (("neighbors", neighbors), ("count", count)):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{op}: argument '{arg}' expected a list or tuple of Tensors, got {type(value).__name__}")
    if len(neighbors) != len(count):
        raise ValueError(f"{op}: arguments 'neighbors' and 'count' expected lists of the same length, got "
                         f"{len(neighbors)} and {len(count)}")
    return _reindex(op, x, list(neighbors), list(count), [f"neighbors[{i}]" for i in range(len(neighbors))],
                    [f"count[{i}]" for i in range(len(count))])
