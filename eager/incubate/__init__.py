"""Paddle's ``paddle.incubate``: the parts training scripts use.

- ``eager.incubate.nn`` / ``.nn.functional``: the fused transformer layers and
  functionals (FusedLinear, FusedMultiHeadAttention, fused_rms_norm, swiglu, ...);
- ``eager.incubate.optimizer``: LookAhead and ModelAverage (also here, as Paddle);
- ``eager.incubate.autograd``: vjp/jvp, Jacobian/Hessian matrices, prim switches;
- ``eager.incubate.distributed.fleet``: ``recompute_sequential``;
- ``eager.incubate.autotune``: Paddle's tuning switches (kept, no effect here);
- the attention softmaxes, ``identity_loss``, ``segment_*`` and the graph
  functions under their Paddle 2.3 names.

Everything is composed of existing ops: no kernel of its own (docs/incubate.md).

>>> eager.incubate.segment_sum(eager.to_tensor([[1.0], [2.0], [3.0]]), eager.to_tensor([0, 0, 1])).numpy().ravel()
array([3., 3.], dtype=float32)
"""
from ..geometric import segment_max, segment_mean, segment_min, segment_sum
from . import asp, autograd, autotune, distributed, layers, nn, optimizer
from .operators import (graph_khop_sampler, graph_reindex, graph_sample_neighbors, graph_send_recv, identity_loss,
                        softmax_mask_fuse, softmax_mask_fuse_upper_triangle)
from .optimizer import LookAhead, ModelAverage

__all__ = ["LookAhead", "ModelAverage", "asp", "autograd", "autotune", "distributed", "graph_khop_sampler", "graph_reindex",
           "graph_sample_neighbors", "graph_send_recv", "identity_loss", "layers", "nn", "optimizer", "segment_max",
           "segment_mean", "segment_min", "segment_sum", "softmax_mask_fuse", "softmax_mask_fuse_upper_triangle"]
