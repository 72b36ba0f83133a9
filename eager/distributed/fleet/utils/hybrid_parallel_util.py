"""``fleet.utils.hybrid_parallel_util``: of Paddle's module, the gradient all-reduce that
a data-parallel script runs by hand, ``fused_allreduce_gradients``, and the broadcasts that
make a group's replicas start equal (``broadcast_dp_parameters``, ``broadcast_mp_parameters``,
``broadcast_sharding_parameters``, ``broadcast_sep_parameters``, ``broadcast_input_data``). Paddle's recompute
guide needs it: recomputed blocks under ``DataParallel`` run their backward inside
``no_sync()``, so the gradients are averaged afterwards with this call.

Paddle packs the gradients into buckets before reducing them; each gradient here is
reduced on its own, which gives the same values (the average over the ranks)."""
from __future__ import annotations

import numbers

from ....autograd import no_grad
from ....tensor import Tensor
from ...collective import all_reduce, broadcast, broadcast_object_list
from ...env import get_world_size
from ..meta_parallel.meta_parallel_base import sync_params_buffers

__all__ = ["fused_allreduce_gradients", "fused_allreduce_gradients_with_group", "broadcast_dp_parameters",
           "broadcast_mp_parameters", "broadcast_sharding_parameters", "broadcast_sep_parameters",
           "broadcast_input_data"]


def _gradients(fn: str, parameter_list) -> list:
    """The dense gradients of the trainable parameters that have one, each once."""
    try:
        parameters = list(parameter_list)
    except TypeError:
        raise TypeError(f"{fn}: argument 'parameter_list' expected an iterable of parameters, got "
                        f"{type(parameter_list).__name__}") from None
    grads, seen = [], set()
    for index, param in enumerate(parameters):
        if not isinstance(param, Tensor):
            raise TypeError(f"{fn}: argument 'parameter_list' expected Tensors (parameters), got "
                            f"{type(param).__name__} at index {index}")
        grad = param.grad
        if not getattr(param, "trainable", True) or grad is None or id(grad) in seen:
            continue
        if grad.is_selected_rows() or grad.is_sparse():
            raise ValueError(f"{fn}: parameter {param.name!r} has a sparse gradient, which Paddle's "
                             f"fused all-reduce does not take either (reduce it with all_reduce "
                             f"after converting it to dense)")
        seen.add(id(grad))
        grads.append(grad)
    return grads


def _allreduce(fn: str, parameter_list, group, scale) -> None:
    grads = _gradients(fn, parameter_list)
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, numbers.Real)):
        raise TypeError(f"{fn}: argument 'scale' expected a number or None, got {type(scale).__name__}")
    nranks = get_world_size() if group is None else group.nranks
    scale = 1.0 / nranks if scale is None else float(scale)
    with no_grad():
        for grad in grads:
            if scale != 1.0:
                grad.scale_(scale)
            all_reduce(grad, group=group)


def fused_allreduce_gradients_with_group(parameter_list, group, bucket_size=128 * 1024 * 1024, scale=None):
    """Averages the gradients of ``parameter_list`` over ``group`` (the world when None):
    each is multiplied by ``scale`` (1 / the group's size when None) and summed over
    the ranks in place. ``bucket_size`` is Paddle's packing size, accepted and unused."""
    _allreduce("fused_allreduce_gradients_with_group", parameter_list, group, scale)


def fused_allreduce_gradients(parameter_list, hcg):
    """Averages the parameters' gradients over the data-parallel group of ``hcg``
    (``fleet.get_hybrid_communicate_group()``), or over the world when ``hcg`` is None,
    as Paddle's ``fused_allreduce_gradients``.

    >>> from eager.distributed.fleet.utils.hybrid_parallel_util import fused_allreduce_gradients
    >>> net = eager.nn.Linear(2, 1)
    >>> net(eager.ones([1, 2])).sum().backward()
    >>> fused_allreduce_gradients(list(net.parameters()), None)   # one rank: unchanged
    >>> net.bias.grad.numpy()
    array([1.], dtype=float32)
    """
    group = None if hcg is None else hcg.get_data_parallel_group()
    _allreduce("fused_allreduce_gradients", parameter_list, group, None)


def _sync(model, group, src: int, skip_shards: bool) -> None:
    sync_params_buffers(model, group, src, skip_shards)


def broadcast_mp_parameters(model, hcg) -> None:
    """Makes the parameters and buffers of ``model`` that are not tensor-parallel shards
    (``is_distributed``) equal over ``hcg``'s model-parallel group, from its first rank, in place."""
    _sync(model, hcg.get_model_parallel_group(), hcg.get_model_parallel_group_src_rank(), True)


def broadcast_dp_parameters(model, hcg) -> None:
    """Makes every parameter and buffer of ``model`` equal over ``hcg``'s data-parallel group,
    from its first rank, in place."""
    _sync(model, hcg.get_data_parallel_group(), hcg.get_data_parallel_group_src_rank(), False)


def broadcast_sharding_parameters(model, hcg) -> None:
    """Makes every parameter and buffer of ``model`` equal over ``hcg``'s sharding group,
    from its first rank, in place."""
    _sync(model, hcg.get_sharding_parallel_group(), hcg.get_sharding_parallel_group_src_rank(), False)


def broadcast_sep_parameters(model, hcg) -> None:
    """Paddle's sequence-parallel broadcast: ``hcg`` has no sep group here (sep_degree is 1),
    so this raises its AssertionError, as Paddle's does with sep_degree 1."""
    _sync(model, hcg.get_sep_parallel_group(), hcg.get_sep_parallel_group_src_rank(), False)


def broadcast_input_data(hcg, *inputs, **kwargs):
    """Makes the inputs of a tensor-parallel forward equal over ``hcg``'s model-parallel group
    (from its first rank): Tensors in place, other keyword values replaced by the first rank's.
    Returns ``(inputs, kwargs)`` as Paddle's (which runs on GPU/XPU only; eager on any device)."""
    group, src = hcg.get_model_parallel_group(), hcg.get_model_parallel_group_src_rank()

    def one(value):
        if isinstance(value, Tensor):
            with no_grad():
                broadcast(value, src=src, group=group)
            return value
        box = [value]
        broadcast_object_list(box, src=src, group=group)
        return box[0]

    for value in inputs:
        one(value)
    for key, value in kwargs.items():
        kwargs[key] = one(value)
    return inputs, kwargs
