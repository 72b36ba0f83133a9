"""Paddle's paddle.geometric: graph learning's message passing, segment
reductions, subgraph reindexing and neighbor sampling.

>>> x = eager.to_tensor([[1., 2.], [3., 4.], [5., 6.]])
>>> eager.geometric.send_u_recv(x, eager.to_tensor([0, 2]), eager.to_tensor([1, 1])).numpy()
array([[0., 0.],
       [6., 8.],
       [0., 0.]], dtype=float32)
"""
from .math import segment_max, segment_mean, segment_min, segment_sum
from .message_passing import send_u_recv, send_ue_recv, send_uv
from .reindex import reindex_graph, reindex_heter_graph
from .sampling import sample_neighbors, weighted_sample_neighbors

__all__ = ["segment_max", "segment_mean", "segment_min", "segment_sum", "send_u_recv", "send_ue_recv", "send_uv",
           "reindex_graph", "reindex_heter_graph", "sample_neighbors", "weighted_sample_neighbors"]
