"""``paddle.static.BuildStrategy`` as a dygraph script meets it: the graph-optimisation
options handed to ``paddle.jit.to_static(..., build_strategy=...)``.

eager builds no static graph, so the options change nothing: the object only holds
them, so that a script that fills one in and passes it to ``to_static`` runs. Its
fields are Paddle's, with Paddle's defaults; setting a name Paddle's BuildStrategy
does not have raises AttributeError, as Paddle's does, so a typo is not silently kept.
"""
from __future__ import annotations

# Paddle's BuildStrategy options and their defaults (None: unset, Paddle decides).
_FIELDS = {
    "reduce_strategy": 0, "gradient_scale_strategy": 0, "debug_graphviz_path": "",
    "enable_sequential_execution": False, "remove_unnecessary_lock": True, "num_trainers": 1,
    "trainer_id": 0, "trainers_endpoints": [], "nccl_comm_num": 1, "use_hierarchical_allreduce": False,
    "hierarchical_allreduce_inter_nranks": 0, "build_cinn_pass": False, "fuse_elewise_add_act_ops": False,
    "fuse_gemm_epilogue": False, "fuse_dot_product_attention": False, "fuse_adamw": False,
    "fused_attention": False, "fused_feedforward": False, "sequential_run": False, "fuse_bn_act_ops": False,
    "fuse_bn_add_act_ops": True, "enable_auto_fusion": False, "fuse_relu_depthwise_conv": False,
    "fuse_broadcast_ops": None, "fuse_all_optimizer_ops": None, "sync_batch_norm": False,
    "memory_optimize": None, "enable_addto": False, "enable_inplace": None, "fuse_all_reduce_ops": None,
    "fuse_resunit": False, "enable_backward_optimizer_op_deps": True, "cache_runtime_context": False,
    "fix_op_run_order": False, "allow_cuda_graph_capture": False, "mkldnn_enabled_op_types": set(),
    "async_mode": False, "is_distribution": False,
}


class BuildStrategy:
    """Options of a static graph's build (fusions, in-place reuse, ...), as Paddle's
    ``paddle.static.BuildStrategy``: each of its fields reads and sets, with Paddle's
    default. eager runs no static graph, so they change nothing; an unknown name
    raises AttributeError.

    >>> strategy = BuildStrategy()
    >>> strategy.enable_addto = True
    >>> strategy.enable_addto, strategy.fuse_elewise_add_act_ops
    (True, False)
    """

    __slots__ = ("_values",)

    def __init__(self):
        object.__setattr__(self, "_values", {k: (v.copy() if isinstance(v, (list, set)) else v)
                                             for k, v in _FIELDS.items()})

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"'BuildStrategy' object has no attribute {name!r} (Paddle's BuildStrategy has "
                             f"no such option)")

    def __setattr__(self, name, value):
        if name not in _FIELDS:
            raise AttributeError(f"'BuildStrategy' object has no attribute {name!r} (Paddle's BuildStrategy has "
                                 f"no such option)")
        self._values[name] = value

    def __repr__(self):
        changed = {k: v for k, v in self._values.items() if v != _FIELDS[k]}
        return f"BuildStrategy({', '.join(f'{k}={v!r}' for k, v in changed.items())})"


__all__ = ["BuildStrategy"]
