"""``fleet.DistributedStrategy``: the settings of a collective (data, tensor and pipeline parallel) job.

Paddle's strategy holds the settings of every fleet mode (collective, parameter
server, hybrid, static-graph passes). eager's fleet runs collective data
and tensor (model) parallelism over MPI (:class:`eager.DataParallel`, the
layers of ``fleet.meta_parallel``), so its strategy keeps the
settings that mean something there and refuses the rest by name, instead of
silently training another way than the script asked:

- honoured: ``find_unused_parameters``, ``fuse_grad_size_in_MB`` (DataParallel's
  bucket size), ``last_comm_group_size_MB`` (its last bucket), ``sync_batch_norm``
  (BatchNorm layers become SyncBatchNorm in ``fleet.distributed_model``),
  ``hybrid_configs`` with ``dp_degree`` (-1: the world size over the others),
  ``mp_degree`` (tensor parallelism), ``pp_degree`` (pipeline parallelism) and
  ``sharding_degree`` (stage-1 sharding of the optimizer state, with data
  parallelism); ``sep_degree`` must stay 1; Paddle 2.6.2's sub-dicts ``mp_configs``,
  ``pp_configs`` and ``sharding_configs`` are checked and read back without effect (they tune
  NCCL overlap, fusion and parameter sync); ``order`` (also ``hybrid_parallel_order``: the
  axes of the rank grid, outermost first, default dp, pp, sharding, sep, mp); ``pipeline_configs``
  (``micro_batch_size``, ``accumulate_steps``, ``schedule_mode`` 1F1B or FThenB;
  ``p2p_cache_shape`` and ``enable_partial_send_recv`` accepted without effect);
- accepted, without effect over MPI (NCCL and static-graph tuning):
  ``fuse_all_reduce_ops``, ``nccl_comm_num``, ``sync_nccl_allreduce``, ``a_sync``
  (a parameter-server setting, ignored in collective mode as in Paddle);
- refused when switched on (``ValueError``): ``amp``, ``recompute``, ``sharding``,
  ``pipeline``, ``tensor_parallel``, ``gradient_merge``, ``lars``, ``lamb``, ``dgc``,
  ``localsgd``, ``adaptive_localsgd``, ``fp16_allreduce``, ``asp``, ``qat``,
  ``heter_ccl_mode``, and setting their ``*_configs``;
- any other name is an ``AttributeError`` (a misspelt setting is not ignored).
"""
from __future__ import annotations

import copy
import numbers

# name: default. The values the MPI data-parallel path honours or can ignore safely.
_SETTINGS = {
    "find_unused_parameters": False,
    "fuse_grad_size_in_MB": 32,
    "last_comm_group_size_MB": 1.0,
    "sync_batch_norm": False,
    "fuse_all_reduce_ops": True,
    "nccl_comm_num": 1,
    "sync_nccl_allreduce": True,
    "a_sync": True,
}
_BOOLS = ("find_unused_parameters", "sync_batch_norm", "fuse_all_reduce_ops", "sync_nccl_allreduce", "a_sync")
_SIZES = ("fuse_grad_size_in_MB", "last_comm_group_size_MB")
# Features eager's fleet does not have; False (their default) is all they accept.
_UNSUPPORTED = {
    "amp": "automatic mixed precision in fleet (cast in the training loop instead)",
    "recompute": "activation recomputation",
    "sharding": "sharded optimizer states",
    "pipeline": "static-graph pipeline parallelism; set hybrid_configs['pp_degree'] and pipeline_configs "
                "(PipelineLayer, fleet.distributed_model) instead",
    "tensor_parallel": "static-graph tensor parallelism; set hybrid_configs['mp_degree'] and build the "
                       "network from fleet.meta_parallel's layers instead",
    "gradient_merge": "gradient merging (accumulate with DataParallel.no_sync instead)",
    "lars": "the LARS meta-optimizer",
    "lamb": "the LAMB meta-optimizer",
    "dgc": "deep gradient compression",
    "localsgd": "local SGD",
    "adaptive_localsgd": "adaptive local SGD",
    "fp16_allreduce": "float16 gradient all-reduce",
    "asp": "automatic sparsity",
    "qat": "quantization-aware training",
    "heter_ccl_mode": "heterogeneous collective mode",
}
_HYBRID = {"dp_degree": -1, "mp_degree": 1, "pp_degree": 1, "sharding_degree": 1, "sep_degree": 1}
# Paddle 2.6.2's hybrid_configs sub-messages, name: default. Held and read back without effect: they
# tune NCCL overlap, fusion and parameter sync, which eager's MPI backend does not have (docs/data_parallel.md).
_HYBRID_SUB = {
    "mp_configs": {"sync_param": True, "sync_grad": False, "sync_moment": False, "sync_mode": "broadcast",
                   "mp_async_allreduce": False, "mp_skip_c_identity": False,
                   "mp_fused_linear_param_grad_add": False, "need_broadcast_data": True},
    "pp_configs": {"dp_comm_overlap": False, "delay_scale_loss": False, "enable_timer": False,
                   "sharding_comm_overlap": False, "profiling": False},
    "sharding_configs": {"tensor_fusion": False, "accumulate_steps": 1, "comm_overlap": False,
                         "split_param": False, "fuse_optimizer": True},
}
# hybrid_configs["order"] / hybrid_parallel_order: the axes of the rank grid, outermost first.
_ORDER = ["dp", "pp", "sharding", "sep", "mp"]
# Paddle's PipelineConfig: name: default. schedule_mode picks the dynamic-graph schedule.
_PIPELINE = {"micro_batch_size": 1, "accumulate_steps": 1, "schedule_mode": "1F1B", "p2p_cache_shape": True,
             "enable_partial_send_recv": True}
_SCHEDULES = ("1F1B", "FThenB")


def _unsupported(name: str) -> ValueError:
    feature = name[:-len("_configs")] if name.endswith("_configs") else name
    configs = "" if feature == "pipeline" else f" and do not set '{feature}_configs'"
    return ValueError(f"fleet.DistributedStrategy: {feature} ({_UNSUPPORTED[feature]}) is not supported by "
                      f"eager's fleet, which trains collective data, tensor and pipeline parallel over MPI; "
                      f"leave '{feature}' False{configs}")


class DistributedStrategy:
    """The settings of a collective data-parallel job (Paddle's
    ``fleet.DistributedStrategy``), given to ``fleet.init`` or
    ``fleet.distributed_optimizer``.

    Honoured: ``find_unused_parameters`` (False), ``fuse_grad_size_in_MB`` (32),
    ``last_comm_group_size_MB`` (1.0), ``sync_batch_norm`` (False) and
    ``hybrid_configs`` with ``dp_degree``, ``mp_degree``, ``pp_degree`` and
    ``sharding_degree`` (``sep_degree`` stays 1), ``pipeline_configs``. Accepted without effect:
    ``fuse_all_reduce_ops``, ``nccl_comm_num``, ``sync_nccl_allreduce``,
    ``a_sync``. Switching on a feature eager's fleet lacks (``amp``,
    ``recompute``, ``sharding``, ``pipeline``, ``tensor_parallel``, ...) raises
    ValueError; an unknown name raises AttributeError.

    >>> from eager.distributed import fleet
    >>> strategy = fleet.DistributedStrategy()
    >>> strategy.find_unused_parameters = True
    >>> strategy.hybrid_configs = {"dp_degree": -1, "mp_degree": 2}
    >>> strategy.amp = True
    Traceback (most recent call last):
    ValueError: fleet.DistributedStrategy: amp (automatic mixed precision ...) is not supported ...
    """

    def __init__(self):
        object.__setattr__(self, "_values", dict(_SETTINGS))
        object.__setattr__(self, "_hybrid", dict(_HYBRID))
        object.__setattr__(self, "_hybrid_sub", {name: dict(sub) for name, sub in _HYBRID_SUB.items()})
        # mp_configs['sync_param_name'] lands here, as in Paddle (not in the mp_configs read-back)
        object.__setattr__(self, "_sync_param_name", ["embedding", "layer_norm", ".b_"])
        object.__setattr__(self, "_pipeline", dict(_PIPELINE))
        object.__setattr__(self, "_order", list(_ORDER))

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        if name == "hybrid_configs":
            configs = dict(object.__getattribute__(self, "_hybrid"))
            configs.update((key, dict(sub)) for key, sub in object.__getattribute__(self, "_hybrid_sub").items())
            return configs
        if name == "sync_param_name":
            return list(object.__getattribute__(self, "_sync_param_name"))
        if name == "pipeline_configs":
            return dict(object.__getattribute__(self, "_pipeline"))
        if name == "hybrid_parallel_order":
            return list(object.__getattribute__(self, "_order"))
        if name in _UNSUPPORTED:
            return False
        raise AttributeError(self._unknown(name))

    def __setattr__(self, name: str, value) -> None:
        if name in _BOOLS:
            if not isinstance(value, bool):
                raise TypeError(f"fleet.DistributedStrategy: '{name}' expected a bool, got {value!r}")
        elif name in _SIZES:
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
                raise ValueError(f"fleet.DistributedStrategy: '{name}' expected a positive number of MB, "
                                 f"got {value!r}")
            if name == "last_comm_group_size_MB":
                value = float(value)    # a float field in Paddle's strategy: 2 reads back 2.0
        elif name == "nccl_comm_num":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"fleet.DistributedStrategy: 'nccl_comm_num' expected a positive int, got "
                                 f"{value!r}")
        elif name == "hybrid_configs":
            configs = self._check_hybrid(value)
            order = configs.pop("order", None)
            for key in _HYBRID_SUB:
                if key in configs:
                    sub = configs.pop(key)
                    if "sync_param_name" in sub:
                        self._sync_param_name[:] = sub.pop("sync_param_name")
                    self._hybrid_sub[key].update(sub)
            self._hybrid.update(configs)
            if order is not None:
                self._order[:] = order
            return
        elif name == "hybrid_parallel_order":
            self._order[:] = self._check_order("hybrid_parallel_order", value)
            return
        elif name == "pipeline_configs":
            self._pipeline.update(self._check_pipeline(value))
            return
        elif name == "sync_param_name":
            self._sync_param_name[:] = self._check_sync_param_name("sync_param_name", value)
            return
        elif name in _UNSUPPORTED:
            if not isinstance(value, bool):
                raise TypeError(f"fleet.DistributedStrategy: '{name}' expected a bool, got {value!r}")
            if value:
                raise _unsupported(name)
            return
        elif name.endswith("_configs") and name[:-len("_configs")] in _UNSUPPORTED:
            raise _unsupported(name)
        else:
            raise AttributeError(self._unknown(name))
        self._values[name] = value

    @staticmethod
    def _check_hybrid(configs) -> dict:
        if not isinstance(configs, dict):
            raise TypeError(f"fleet.DistributedStrategy: 'hybrid_configs' expected a dict, got "
                            f"{type(configs).__name__}")
        configs = dict(configs)
        if "order" in configs:
            configs["order"] = DistributedStrategy._check_order("hybrid_configs['order']", configs["order"])
        for key, value in configs.items():
            if key == "order":
                continue
            if key in _HYBRID_SUB:
                configs[key] = DistributedStrategy._check_hybrid_sub(key, value)
                continue
            if key not in _HYBRID:
                raise ValueError(f"fleet.DistributedStrategy: hybrid_configs key {key!r} is not supported; "
                                 f"eager's fleet takes {', '.join(_HYBRID)} (data, tensor, pipeline and sharding "
                                 f"parallelism)")
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"fleet.DistributedStrategy: hybrid_configs[{key!r}] expected an int, got "
                                f"{value!r}")
            if key == "dp_degree":
                if value == 0 or value < -1:
                    raise ValueError(f"fleet.DistributedStrategy: hybrid_configs['dp_degree'] expected -1 "
                                     f"(every rank) or a positive int, got {value}")
            elif key == "sharding_degree":
                if value < 1:
                    raise ValueError(f"fleet.DistributedStrategy: hybrid_configs['sharding_degree'] expected a "
                                     f"positive int (the ranks over which the optimizer state is sharded), got "
                                     f"{value}")
            elif key in ("mp_degree", "pp_degree"):
                if value < 0:
                    what = ("the ranks sharing each tensor-parallel layer" if key == "mp_degree"
                            else "the number of pipeline stages")
                    raise ValueError(f"fleet.DistributedStrategy: hybrid_configs[{key!r}] expected a "
                                     f"non-negative int ({what}; 0 counts as 1), got {value}")
            elif value > 1 or value < 0:
                raise ValueError(f"fleet.DistributedStrategy: hybrid_configs[{key!r}] = {value}: eager's "
                                 f"fleet has data, tensor, pipeline and sharding parallelism only, so {key} must be 1")
        return configs

    @staticmethod
    def _check_hybrid_sub(name: str, sub) -> dict:
        """hybrid_configs[name] (mp_configs, pp_configs, sharding_configs): a dict of Paddle 2.6.2's
        keys. Its bool fields take a bool or an int (protobuf's rule), sync_mode a str, accumulate_steps an
        int; unlike Paddle, an unknown key is refused instead of ignored."""
        if not isinstance(sub, dict):
            raise TypeError(f"fleet.DistributedStrategy: hybrid_configs[{name!r}] expected a dict, got "
                            f"{type(sub).__name__}")
        known = _HYBRID_SUB[name]
        checked = {}
        for key, value in sub.items():
            where = f"fleet.DistributedStrategy: hybrid_configs[{name!r}][{key!r}]"
            if name == "mp_configs" and key == "sync_param_name":
                checked[key] = DistributedStrategy._check_sync_param_name(where[len("fleet.DistributedStrategy: "):],
                                                                          value)
                continue
            if key not in known:
                raise ValueError(f"fleet.DistributedStrategy: hybrid_configs[{name!r}] key {key!r} is not one of "
                                 f"Paddle's: {', '.join(known)}")
            default = known[key]
            if isinstance(default, bool):
                if not isinstance(value, int):
                    raise TypeError(f"{where} expected a bool, got {value!r}")
                value = bool(value)
            elif isinstance(default, str):
                if not isinstance(value, str):
                    raise TypeError(f"{where} expected a str, got {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{where} expected an int, got {value!r}")
            checked[key] = value
        return checked

    @staticmethod
    def _check_sync_param_name(what: str, value) -> list:
        """Paddle's sync_param_name: the name fragments of the parameters mp_configs' sync_param covers."""
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise TypeError(f"fleet.DistributedStrategy: {what} expected a list of str, got {value!r}")
        return list(value)

    @staticmethod
    def _check_order(what: str, order) -> list:
        """Paddle's order of the hybrid axes (outermost first): each of dp, pp, sharding and mp
        once; sep (degree 1 here) may be left out (fleet.init puts it last, which lays the ranks out alike)."""
        if not isinstance(order, (list, tuple)) or not all(isinstance(n, str) for n in order):
            raise TypeError(f"fleet.DistributedStrategy: {what} expected a list of axis names from "
                            f"{_ORDER}, got {order!r}")
        order = list(order)
        if sorted(order + ([] if "sep" in order else ["sep"])) != sorted(_ORDER):
            raise ValueError(f"fleet.DistributedStrategy: {what} expected each of {_ORDER} once (sep may be "
                             f"left out), got {order!r}")
        return order

    @staticmethod
    def _check_pipeline(configs) -> dict:
        if not isinstance(configs, dict):
            raise TypeError(f"fleet.DistributedStrategy: 'pipeline_configs' expected a dict, got "
                            f"{type(configs).__name__}")
        for key, value in configs.items():
            if key not in _PIPELINE:
                raise ValueError(f"fleet.DistributedStrategy: pipeline_configs key {key!r} is not supported; "
                                 f"eager's fleet takes {', '.join(_PIPELINE)}")
            if key in ("micro_batch_size", "accumulate_steps"):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise TypeError(f"fleet.DistributedStrategy: pipeline_configs[{key!r}] expected an int, got "
                                    f"{value!r}")
                if value < 1:
                    raise ValueError(f"fleet.DistributedStrategy: pipeline_configs[{key!r}] expected a positive "
                                     f"int, got {value}")
            elif key == "schedule_mode":
                if value not in _SCHEDULES:
                    raise ValueError(f"fleet.DistributedStrategy: pipeline_configs['schedule_mode'] expected one "
                                     f"of {', '.join(_SCHEDULES)}, got {value!r}")
            elif not isinstance(value, bool):
                raise TypeError(f"fleet.DistributedStrategy: pipeline_configs[{key!r}] expected a bool, got "
                                f"{value!r}")
        return dict(configs)

    @staticmethod
    def _unknown(name: str) -> str:
        known = sorted([*_SETTINGS, "hybrid_configs", "pipeline_configs", "hybrid_parallel_order", "sync_param_name",
                        *_UNSUPPORTED])
        return (f"fleet.DistributedStrategy has no setting {name!r}; eager's fleet knows "
                f"{', '.join(known)}")

    def __deepcopy__(self, memo):
        twin = DistributedStrategy()
        twin._values.update(copy.deepcopy(self._values, memo))
        twin._hybrid.update(self._hybrid)
        for key, sub in self._hybrid_sub.items():
            twin._hybrid_sub[key].update(sub)
        twin._sync_param_name[:] = self._sync_param_name
        twin._pipeline.update(self._pipeline)
        twin._order[:] = self._order
        return twin

    def __repr__(self):
        changed = {name: value for name, value in self._values.items() if _SETTINGS[name] != value}
        if self._hybrid != _HYBRID or self._hybrid_sub != _HYBRID_SUB:
            changed["hybrid_configs"] = {**self._hybrid, **{key: sub for key, sub in self._hybrid_sub.items()
                                                              if sub != _HYBRID_SUB[key]}}
        if self._pipeline != _PIPELINE:
            changed["pipeline_configs"] = dict(self._pipeline)
        if self._order != _ORDER:
            changed["hybrid_parallel_order"] = list(self._order)
        return f"DistributedStrategy({', '.join(f'{k}={v!r}' for k, v in changed.items())})"


__all__ = ["DistributedStrategy"]
