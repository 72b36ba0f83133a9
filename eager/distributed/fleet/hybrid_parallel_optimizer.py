"""``HybridParallelOptimizer``: the optimizer ``fleet.distributed_optimizer``
returns for tensor- and pipeline-parallel training (Paddle's class of that name).

``step`` (and ``minimize``) first average every gradient over the rank's
data-parallel group (with ``dp_degree`` > 1; ranks of one data-parallel group
hold the same shards and see different batches; a parameter whose gradient
exists on some ranks only is averaged with zeros from the others), then run the
wrapped optimizer. A ``ClipGradByGlobalNorm`` of the wrapped optimizer is replaced by
one whose norm is that of the whole model: the squared norms of the shards
(``is_distributed`` parameters) are summed over the model-parallel group, those
of the replicated parameters counted once; with pipeline stages the squared
norms are also summed over the pipeline group (a shared layer's weight counted
on its first stage only, ``is_firstly_shared``). Everything else (``clear_grad``,
``get_lr``, ``state_dict``, ...) is the wrapped optimizer's. An
``eager.amp.GradScaler`` takes it (``scaler.step(opt)``, ``minimize``,
``unscale_``): whether a gradient is Inf/NaN is agreed over every rank, so all
skip the same steps.
"""
from __future__ import annotations

import numpy as np

from phi.common import DataType, TensorKind

from ...autograd import no_grad
from ...autograd.meta import own_grad
from ...generated import forward_api as _F
from ...nn.clip import ClipGradByGlobalNorm, _squared_norm
from ...optimizer.optimizer import Optimizer
from ..collective import ReduceOp, all_reduce
from ..env import get_world_size, mpi_module, world_comm


class _HybridParallelClipGrad(ClipGradByGlobalNorm):
    """ClipGradByGlobalNorm over a model whose shards are spread over a model-parallel
    group (``mp_group``) or whose stages are spread over a pipeline group (``pp_group``)."""

    def __init__(self, clip: ClipGradByGlobalNorm, mp_group, pp_group=None):
        super().__init__(clip.clip_norm, clip.group_name, clip.auto_skip_clip)
        self._mp_group = mp_group
        self._pp_group = pp_group

    _skip_when_empty = False  # the all_reduce below: every rank joins it, with or without gradients

    def _squared_total(self, clipped, wide):
        """Shards' squared norms summed over the model-parallel group, replicated ones counted once;
        then summed over the pipeline stages, a shared weight counted on its first stage only."""
        # Over stages in float64: a stage's own gradients (or their absence) must not pick the dtype
        # of a sum the other stages join.
        acc = DataType.FLOAT64 if self._pp_group is not None else wide
        shards = _F.zeros([], acc)
        replicated = _F.zeros([], acc)
        for param, grad in clipped:
            if not getattr(param, "is_firstly_shared", True):
                continue
            if getattr(param, "is_distributed", False):
                shards = _F.add(shards, _squared_norm(grad, acc))
            else:
                replicated = _F.add(replicated, _squared_norm(grad, acc))
        if self._mp_group is not None:
            all_reduce(shards, group=self._mp_group)
        total = _F.add(shards, replicated)
        if self._pp_group is not None:
            all_reduce(total, group=self._pp_group)
        return total if acc is wide else _F.cast(total, wide)

    def __repr__(self):
        return f"HybridParallelClipGrad(clip_norm={self.clip_norm})"


class HybridParallelOptimizer:
    """``optimizer`` for tensor-parallel training over ``hcg``'s groups: its
    step averages the gradients over the data-parallel group, then steps
    ``optimizer`` (whose global-norm clip now sees the whole model). Other
    attributes are ``optimizer``'s.

    >>> opt = fleet.distributed_optimizer(eager.optimizer.SGD(0.1, parameters=model.parameters()))
    >>> loss.backward(); opt.step(); opt.clear_grad()
    """

    def __init__(self, optimizer, hcg, strategy=None):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"HybridParallelOptimizer: argument 'optimizer' expected an eager.optimizer "
                            f"Optimizer, got {type(optimizer).__name__}")
        self._inner_opt = optimizer
        self._hcg = hcg
        self._strategy = strategy
        clip = optimizer._grad_clip
        mp, pp = hcg.get_model_parallel_world_size() > 1, hcg.get_pipe_parallel_world_size() > 1
        if (mp or pp) and type(clip) is ClipGradByGlobalNorm:
            optimizer._grad_clip = _HybridParallelClipGrad(clip, hcg.get_model_parallel_group() if mp else None,
                                                           hcg.get_pipe_parallel_group() if pp else None)

    def _average_over_data_parallel(self) -> None:
        """Averages every trainable parameter's gradient over the data-parallel group. Which
        parameters have a gradient can differ between ranks (a branch one rank's batch skips),
        so the ranks first agree on the set (one small host allreduce of flags): a parameter
        with a gradient on some rank but none here joins the average with zeros (its ``.grad``
        becomes the average, as with ``find_unused_parameters``); one with no gradient on any
        rank keeps ``None``. Every rank then runs the same collectives in the same order."""
        if self._hcg.get_data_parallel_world_size() <= 1:
            return
        group = self._hcg.get_data_parallel_group()
        params = [param for param in self._inner_opt._parameter_list if not param.stop_gradient]
        flags = np.zeros(len(params), np.int32)  # 0: no gradient, 1: dense, 2: sparse (SelectedRows)
        for index, param in enumerate(params):
            grad = param.grad
            if grad is not None:
                flags[index] = 1 if grad.impl.kind is TensorKind.DENSE else 2
        comm = group.process_group
        comm.Allreduce(mpi_module().IN_PLACE, flags, op=mpi_module().MAX)
        sparse = [param.name for param, flag in zip(params, flags) if flag == 2]
        if sparse:  # known on every rank alike, so every rank raises
            raise TypeError(f"HybridParallelOptimizer.step: parameter(s) {', '.join(sparse)} have a sparse "
                            f"(SelectedRows) gradient on some rank, which the data-parallel average does not "
                            f"take; use Embedding(sparse=False) with tensor parallelism")
        with no_grad():
            for param, flag in zip(params, flags):
                if flag == 0:
                    continue  # no rank has a gradient: it stays None, as in one process
                if param.grad is None:
                    param.grad = own_grad(_F.zeros_like(param))
                all_reduce(param.grad, op=ReduceOp.AVG, group=group)

    def _agree_found_inf(self, found: bool) -> bool:
        """Whether any rank of the job found an Inf/NaN gradient (``GradScaler.unscale_`` asks,
        with this rank's answer): the ranks hold different shards, stages and batches, and must
        all skip a step together (Paddle's ``fleet.distributed_scaler`` reduces over every rank)."""
        if get_world_size() <= 1:
            return found
        flag = np.array([1 if found else 0], np.int32)
        world_comm().Allreduce(mpi_module().IN_PLACE, flag, op=mpi_module().MAX)
        return bool(flag[0])

    def step(self) -> None:
        """Averages the gradients over the data-parallel group, then steps the wrapped optimizer."""
        self._average_over_data_parallel()
        self._inner_opt.step()

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """The wrapped optimizer's ``minimize`` after the data-parallel average (call ``loss.backward()`` first)."""
        self._average_over_data_parallel()
        return self._inner_opt.minimize(loss, startup_program, parameters, no_grad_set)

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Clears the wrapped optimizer's gradients."""
        self._inner_opt.clear_grad(set_to_zero)

    def __getattr__(self, name):
        if name.startswith("__") or name == "_inner_opt":
            raise AttributeError(name)
        return getattr(self._inner_opt, name)


__all__ = ["HybridParallelOptimizer"]
