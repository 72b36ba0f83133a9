"""``recompute_hybrid``: activation recomputation under tensor (model) parallelism
(Paddle's ``paddle.distributed.fleet.recompute.recompute_hybrid``, also
``paddle.incubate.distributed.fleet.recompute_hybrid``).

The block runs once without a graph; backward re-runs it on the saved inputs
with grad on and backpropagates through the re-run, as ``recompute`` with
``use_reentrant=True`` does. The re-run always starts from the forward's random
states: the global generators and the model-parallel tracker's named streams
(``get_rng_state_tracker``), so a dropout drawn under
``get_rng_state_tracker().rng_state()`` draws the same mask on every rank as in
the forward. ``ctx`` adds, over the model-parallel group ``ctx['mp_group']``:

- ``partition``: each rank of the group keeps only its ``1/mp`` slice of every
  saved Tensor input (flattened; the group's ranks hold the same activations
  under tensor parallelism), and the re-run first all-gathers the slices back
  into the whole input.
- ``offload``: the saved inputs (or slices) are kept in host memory and moved
  back to their device for the re-run; a no-op for inputs already on the host.
"""
from __future__ import annotations

from ....autograd import PyLayer
from ....autograd.grad_mode import STATE
from ....generated import forward_api as _F
from ....tensor import Tensor
from ...collective import all_gather
from ...group import Group
from .recompute import (_ForwardState, _backward_through_rerun, _check_recompute_necessary, _flatten_args,
                        _name, _run_forward)

_WHO = "recompute_hybrid"


def _numel(tensor: Tensor) -> int:
    count = 1
    for extent in tensor.shape:
        count *= int(extent)
    return count


def _keep(tensor: Tensor, group: Group, offload: bool, partition: bool) -> Tensor:
    """What the node saves for ``tensor``: its rank's flat slice with ``partition``
    (a copy: the whole input may then be freed), on the host with ``offload``."""
    kept = tensor.detach()
    if partition and group.nranks > 1:
        part = _numel(kept) // group.nranks
        start = part * group.rank
        kept = _F.assign(_F.reshape(kept, [-1])[start:start + part])
    if offload:
        kept = kept.cpu()
    return kept


def _restore(kept: Tensor, shape, place, group: Group, partition: bool) -> Tensor:
    """The whole input again from what :func:`_keep` saved: back on ``place``, the
    group's slices all-gathered in rank order and reshaped."""
    if kept.place != place:
        kept = kept._copy_to(place)
    if partition and group.nranks > 1:
        parts = []
        all_gather(parts, kept, group=group)
        kept = _F.reshape(_F.concat(parts, 0), list(shape))
    return kept


class _HybridRecomputeFunction(PyLayer):
    """The recompute node of :func:`recompute_hybrid`: forward runs the block without a
    graph and keeps the (partitioned, offloaded) inputs; backward restores them, re-runs
    the block under the forward's random states and backpropagates through it."""

    @staticmethod
    def forward(ctx, run_function, template, group, offload, partition, *tensors):
        """Runs ``run_function`` on the rebuilt arguments and saves what backward needs."""
        ctx.run_function = run_function
        ctx.template = template
        ctx.group, ctx.partition = group, partition
        ctx.state = _ForwardState(True, tensors)
        ctx.shapes = [list(t.shape) for t in tensors]
        ctx.places = [t.place for t in tensors]
        ctx.flags = [t.stop_gradient for t in tensors]
        ctx.save_for_backward(*[_keep(t, group, offload, partition) for t in tensors])
        ctx.set_materialize_grads(False)
        return _run_forward(_WHO, ctx, run_function, template, tensors)

    @staticmethod
    def backward(ctx, *grads):
        """Gathers (and brings back) the saved inputs, then re-runs the block and backpropagates."""
        saved = []
        for kept, shape, place, flag in zip(ctx.saved_tensor(), ctx.shapes, ctx.places, ctx.flags):
            whole = _restore(kept, shape, place, ctx.group, ctx.partition)
            whole.stop_gradient = flag
            saved.append(whole)
        return _backward_through_rerun(ctx, saved, grads, _WHO)


def _check_ctx(ctx):
    if not isinstance(ctx, dict):
        raise TypeError(f"{_WHO}: argument 'ctx' expected a dict with 'mp_group' (and 'offload', 'partition'), "
                        f"got {type(ctx).__name__}")
    unknown = sorted(set(ctx) - {"mp_group", "offload", "partition"})
    if unknown:
        raise ValueError(f"{_WHO}: ctx has unknown key(s) {unknown}; expected 'mp_group', 'offload', 'partition'")
    group = ctx.get("mp_group")
    if group is None:
        raise ValueError(f"{_WHO}: ctx['mp_group'] is required (the model-parallel group, e.g. "
                         f"fleet.get_hybrid_communicate_group().get_model_parallel_group()), got None")
    if not isinstance(group, Group):
        raise TypeError(f"{_WHO}: ctx['mp_group'] expected an eager.distributed Group, got {type(group).__name__}")
    if not group.is_member():
        raise ValueError(f"{_WHO}: ctx['mp_group']: this process is not one of the group's ranks {group.ranks}")
    flags = []
    for key in ("offload", "partition"):
        value = ctx.get(key, False)
        if not isinstance(value, bool):
            raise TypeError(f"{_WHO}: ctx[{key!r}] expected a bool, got {type(value).__name__}")
        flags.append(value)
    return group, flags[0], flags[1]


def recompute_hybrid(ctx, function, *args, **kwargs):
    """Runs ``function(*args, **kwargs)`` without keeping its activations; they are
    recomputed in backward, under tensor (model) parallelism.

    ``ctx``: a dict with ``'mp_group'`` (the model-parallel ``Group``, required),
    ``'offload'`` (bool, default False: keep the saved inputs in host memory) and
    ``'partition'`` (bool, default False: each rank of ``mp_group`` keeps a ``1/mp``
    slice of every saved Tensor input, all-gathered for the re-run; each such
    input's element count must divide by the group's size). ``function``: a
    callable whose outputs are a Tensor or a tuple/list holding Tensors.
    ``args``: Tensors (or tuples of Tensors) get gradients, other values pass
    through; ``kwargs`` go to ``function`` unchanged and get no gradient. The
    re-run replays the forward's global and tracker random states, so the
    gradients equal those of calling ``function`` directly.

    >>> group = fleet.get_hybrid_communicate_group().get_model_parallel_group()
    >>> y = recompute_hybrid({"mp_group": group, "partition": True}, block, x)
    >>> y.sum().backward()
    """
    group, offload, partition = _check_ctx(ctx)
    if not callable(function):
        raise TypeError(f"{_WHO}: argument 'function' expected a callable (a Layer or a function), got "
                        f"{type(function).__name__}")
    for key, value in kwargs.items():
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else (value,)
        if any(isinstance(t, Tensor) and not t.stop_gradient for t in items):
            raise TypeError(f"{_WHO}: keyword argument {key!r} holds a Tensor with stop_gradient=False, which "
                            f"would get no gradient; pass it positionally")
    template, tensors = _flatten_args(args, _WHO)
    if partition and group.nranks > 1:
        for index, tensor in enumerate(tensors):
            count = _numel(tensor)
            if count == 0 or count % group.nranks:
                raise ValueError(f"{_WHO}: with ctx['partition'] each Tensor input's element count must be a "
                                 f"positive multiple of the model-parallel degree ({group.nranks}); Tensor input "
                                 f"{index} has shape {list(tensor.shape)} ({count} elements)")
    if STATE.enabled:
        _check_recompute_necessary(args, {})
    run = function
    if kwargs:
        def run(*values):
            return function(*values, **kwargs)
        run.__qualname__ = _name(function)
    return _HybridRecomputeFunction.apply(run, template, group, offload, partition, *tensors)


__all__ = ["recompute_hybrid"]
