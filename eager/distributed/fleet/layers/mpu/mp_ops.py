"""The differentiable collectives of tensor parallelism (Paddle's ``mp_ops``).

A tensor-parallel layer keeps one shard of its weight on each rank of its
model-parallel group and joins the shards' partial results with collectives.
Each collective is a :class:`~eager.autograd.PyLayer` whose backward is the
collective the chain rule asks for, over the same group (eager's MPI/NCCL
collectives of :mod:`eager.distributed.collective`):

============================  ==============================  ====================================
op                            forward                         backward
============================  ==============================  ====================================
``_c_identity``               copy                            all-reduce (sum) of the gradient
``_mp_allreduce``             all-reduce (sum)                the gradient as it is
``_c_split``                  this rank's slice of the last   all-gather of the gradients,
                              axis                            concatenated on the last axis
``_c_concat``                 all-gather, concatenated on     this rank's slice of the gradient
                              the last axis
============================  ==============================  ====================================

``_c_lookup_table`` looks ids up in a vocabulary shard (ids outside it give
zero rows), ``_c_softmax_with_cross_entropy`` is softmax cross-entropy over
logits whose class axis is sharded: the max, the sum of exponentials and the
label's logit are all-reduced, so no rank ever holds the full logits.

``split`` is Paddle's ``paddle.distributed.split``, which (as in Paddle 2.6)
checks its arguments and then refuses dynamic-graph mode, pointing to the
layers of ``fleet.meta_parallel``.
"""
from __future__ import annotations

from phi.common import DataType

from .....autograd import PyLayer
from .....generated import forward_api as _F
from .....tensor import Tensor
from ....collective import ReduceOp, all_gather, all_reduce
from ....group import Group, resolve_group

_FLOATS = (DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64)
_INTS = (DataType.INT32, DataType.INT64)


def _check_tensor(who: str, arg: str, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{who}: argument '{arg}' expected a Tensor, got {type(value).__name__}")


def _group(who: str, group) -> Group:
    """``group`` (None: the world), checked."""
    return resolve_group(who, group)


def _last_axis_parts(who: str, x: Tensor, nranks: int) -> None:
    if not x.shape:
        raise ValueError(f"{who}: argument 'tensor' expected at least 1 dimension (the last one is split "
                         f"among the ranks), got a 0-d Tensor")
    if x.shape[-1] % nranks:
        raise ValueError(f"{who}: argument 'tensor' has a last dimension of {x.shape[-1]}, which does not "
                         f"divide among the group's {nranks} ranks (shape {x.shape})")


def _gather_last_axis(x: Tensor, group: Group) -> Tensor:
    parts = []
    all_gather(parts, x, group=group)
    return _F.concat(parts, axis=-1)


def _slice_last_axis(x: Tensor, rank: int, nranks: int) -> Tensor:
    return _F.assign(_F.split(x, nranks, axis=-1)[rank])


class _Identity(PyLayer):
    """Forward a copy; backward the sum of every rank's gradient."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return _F.assign(x)

    @staticmethod
    def backward(ctx, dy):
        grad = _F.assign(dy)
        all_reduce(grad, group=ctx.group)
        return grad


class _AllReduce(PyLayer):
    """Forward the sum over the ranks; backward the gradient unchanged (every
    rank's input reaches the sum with weight one)."""

    @staticmethod
    def forward(ctx, x, group):
        out = _F.assign(x)
        all_reduce(out, group=group)
        return out

    @staticmethod
    def backward(ctx, dy):
        return _F.assign(dy)


class _Split(PyLayer):
    """Forward this rank's slice of the last axis; backward the ranks' gradients gathered."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return _slice_last_axis(x, group.rank, group.nranks)

    @staticmethod
    def backward(ctx, dy):
        return _gather_last_axis(dy, ctx.group)


class _Concat(PyLayer):
    """Forward the ranks' tensors concatenated on the last axis; backward this rank's slice."""

    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return _gather_last_axis(x, group)

    @staticmethod
    def backward(ctx, dy):
        return _slice_last_axis(dy, ctx.group.rank, ctx.group.nranks)


def _c_identity(tensor, group=None, skip_c_identity_dynamic=False):
    """``tensor`` unchanged (a copy) whose gradient is summed over ``group``'s
    ranks: what enters a column-parallel layer, whose shards each see all of
    ``tensor``. None on a rank outside the group (as Paddle).

    >>> x_parallel = _c_identity(x, group=hcg.get_model_parallel_group())
    """
    who = "_c_identity"
    _check_tensor(who, "tensor", tensor)
    group = _group(who, group)
    if not group.is_member():
        return None
    if skip_c_identity_dynamic:
        return tensor
    return _Identity.apply(tensor, group)


def _c_concat(tensor, group=None):
    """The ranks' ``tensor``s concatenated along the last axis, in rank order
    (its gradient: this rank's slice). None on a rank outside the group.

    >>> full = _c_concat(out_parallel, group=mp_group)   # [..., n] -> [..., n * nranks]
    """
    who = "_c_concat"
    _check_tensor(who, "tensor", tensor)
    group = _group(who, group)
    if not group.is_member():
        return None
    if not tensor.shape:
        raise ValueError(f"{who}: argument 'tensor' expected at least 1 dimension (the ranks' tensors are "
                         f"joined on the last one), got a 0-d Tensor")
    return _Concat.apply(tensor, group)


def _c_split(tensor, group=None):
    """This rank's equal slice of ``tensor``'s last axis (its gradient: the
    ranks' gradients gathered back). None on a rank outside the group.

    >>> part = _c_split(x, group=mp_group)               # [..., n] -> [..., n / nranks]
    """
    who = "_c_split"
    _check_tensor(who, "tensor", tensor)
    group = _group(who, group)
    if not group.is_member():
        return None
    _last_axis_parts(who, tensor, group.nranks)
    return _Split.apply(tensor, group)


def _mp_allreduce(tensor, op=ReduceOp.SUM, group=None, use_calc_stream=True, use_model_parallel=True,
                  skip_c_identity_dynamic=False):
    """The sum of ``tensor`` over ``group``'s ranks, as a new tensor whose
    gradient passes to every rank unchanged: what joins a row-parallel layer's
    partial products. Only ``ReduceOp.SUM`` (as Paddle); ``use_calc_stream`` and
    ``use_model_parallel`` are accepted, with nothing to choose here. None on a
    rank outside the group.

    >>> out = _mp_allreduce(partial, group=mp_group)
    """
    who = "_mp_allreduce"
    _check_tensor(who, "tensor", tensor)
    if op != ReduceOp.SUM:
        raise ValueError(f"{who}: argument 'op' expected ReduceOp.SUM (the only reduction of model "
                         f"parallelism), got {op!r}")
    group = _group(who, group)
    if not group.is_member():
        return None
    return _AllReduce.apply(tensor, group)


def _c_lookup_table(table, index, start_index=0, vocab_size=-1, name=None):
    """The rows of ``table`` (a shard: the vocabulary's ids ``start_index`` to
    ``start_index + table.shape[0] - 1``) that ``index`` picks, zeros for ids
    outside the shard; differentiable in ``table``. ``vocab_size`` (the whole
    vocabulary, -1: unknown) bounds the ids when given.

    >>> part = _c_lookup_table(weight_shard, ids, start_index=rank * rows)
    """
    who = "_c_lookup_table"
    _check_tensor(who, "table", table)
    _check_tensor(who, "index", index)
    if index.dtype not in _INTS:
        raise TypeError(f"{who}: argument 'index' expected int32 or int64 ids, got {index.dtype}")
    if len(table.shape) != 2:
        raise ValueError(f"{who}: argument 'table' expected a 2-D [rows, dim] shard, got shape {table.shape}")
    for arg, value in (("start_index", start_index), ("vocab_size", vocab_size)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{who}: argument '{arg}' expected an int, got {value!r}")
    if vocab_size != -1:
        ids = index.numpy()
        if ids.size and (ids.min() < 0 or ids.max() >= vocab_size):
            raise ValueError(f"{who}: argument 'index' holds ids from {ids.min()} to {ids.max()}, outside "
                             f"the vocabulary 0..{vocab_size - 1}")
    rows = table.shape[0]
    local = _F.subtract(index, _F.full_like(index, start_index, None))
    inside = _F.logical_and(_F.greater_equal(local, _F.full_like(local, 0, None)),
                            _F.less_than(local, _F.full_like(local, rows, None)))
    safe = _F.where(inside, local, _F.full_like(local, 0, None))
    rows_found = _F.embedding(safe, table)
    return _F.multiply(rows_found, _F.unsqueeze(_F.cast(inside, table.dtype), -1))


class _SoftmaxCrossEntropy(PyLayer):
    """Softmax cross-entropy over class-sharded logits (the class axis is last)."""

    @staticmethod
    def forward(ctx, logits, label, group, ignore_index):
        dtype = logits.dtype
        x = logits if dtype in (DataType.FLOAT32, DataType.FLOAT64) else _F.cast(logits, DataType.FLOAT32)
        classes = x.shape[-1]
        start = group.rank * classes
        top = _F.max(x, axis=-1, keepdim=True)
        all_reduce(top, op=ReduceOp.MAX, group=group)
        shifted = _F.subtract(x, top)
        exps = _F.exp(shifted)
        total = _F.sum(exps, axis=-1, keepdim=True)
        all_reduce(total, group=group)
        local = _F.subtract(label, _F.full_like(label, start, None))
        inside = _F.logical_and(_F.greater_equal(local, _F.full_like(local, 0, None)),
                                _F.less_than(local, _F.full_like(local, classes, None)))
        safe = _F.where(inside, local, _F.full_like(local, 0, None))
        picked = _F.multiply(_F.take_along_axis(shifted, safe, -1), _F.cast(inside, x.dtype))
        all_reduce(picked, group=group)
        kept = _F.cast(_F.not_equal(label, _F.full_like(label, ignore_index, None)), x.dtype)
        loss = _F.multiply(_F.subtract(_F.log(total), picked), kept)
        softmax = _F.divide(exps, total)
        ctx.save_for_backward(softmax, safe, inside, kept)
        ctx.dtype = dtype
        if dtype is not x.dtype:
            return _F.cast(loss, dtype), _F.cast(softmax, dtype)
        return loss, softmax

    @staticmethod
    def backward(ctx, dloss, dsoftmax=None):
        softmax, safe, inside, kept = ctx.saved_tensor()
        classes = softmax.shape[-1]
        target = _F.multiply(_F.one_hot(_F.squeeze(safe, -1), classes), _F.cast(inside, softmax.dtype))
        scale = _F.multiply(_F.cast(dloss, softmax.dtype), kept)
        grad = _F.multiply(_F.subtract(softmax, target), scale)
        if ctx.dtype is not grad.dtype:
            grad = _F.cast(grad, ctx.dtype)
        return grad, None


def _c_softmax_with_cross_entropy(logits, label, group=None, return_softmax=False, ignore_index=-100):
    """Softmax cross-entropy of ``logits`` whose last (class) axis is sharded
    over ``group``: rank r holds classes ``r * n`` to ``r * n + n - 1``.
    ``label`` holds global class ids, of ``logits``' shape with the last axis
    1 or dropped; the loss has ``logits``' shape with the last axis 1 (0 where
    the label is ``ignore_index``). With ``return_softmax``, also this rank's
    slice of the softmax. None on a rank outside the group.

    >>> loss = _c_softmax_with_cross_entropy(logits_parallel, label, group=mp_group)
    """
    who = "_c_softmax_with_cross_entropy"
    _check_tensor(who, "logits", logits)
    _check_tensor(who, "label", label)
    group = _group(who, group)
    if not group.is_member():
        return None
    if logits.dtype not in _FLOATS:
        raise TypeError(f"{who}: argument 'logits' expected a floating-point Tensor, got {logits.dtype}")
    if label.dtype not in _INTS:
        raise TypeError(f"{who}: argument 'label' expected int32 or int64 class ids, got {label.dtype}")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise TypeError(f"{who}: argument 'ignore_index' expected an int, got {ignore_index!r}")
    shape, label_shape = logits.shape, label.shape
    if not shape:
        raise ValueError(f"{who}: argument 'logits' expected at least 1 dimension (the classes), got a 0-d Tensor")
    if len(label_shape) == len(shape) - 1:
        label = _F.unsqueeze(label, -1)
    elif len(label_shape) != len(shape):
        raise ValueError(f"{who}: expected the label to have the logits' rank or one less (got logits of "
                         f"shape {shape}, label of shape {label_shape})")
    if label.shape != [*shape[:-1], 1]:
        raise ValueError(f"{who}: argument 'label' expected shape {shape[:-1]} or {[*shape[:-1], 1]} to match "
                         f"logits of shape {shape}, got {label_shape}")
    classes = shape[-1] * group.nranks
    ids = label.numpy()
    wrong = (ids != ignore_index) & ((ids < 0) | (ids >= classes))
    if wrong.any():
        raise ValueError(f"{who}: argument 'label' holds {ids[wrong].flat[0]}, outside the {classes} classes "
                         f"0..{classes - 1} (the {group.nranks} ranks' shards together) and not ignore_index "
                         f"({ignore_index})")
    loss, softmax = _SoftmaxCrossEntropy.apply(logits, label, group, ignore_index)
    return (loss, softmax) if return_softmax else loss


_OPERATIONS = ("linear", "embedding")


def split(x, size, operation, axis=0, num_partitions=1, gather_out=True, weight_attr=None, bias_attr=None,
          name=None):
    """Paddle's ``paddle.distributed.split``: a linear or embedding op whose
    weight of shape ``size`` is cut into ``num_partitions`` parts. Like Paddle
    2.6 in dynamic-graph mode, it checks the arguments and then raises
    ValueError: build the network from ``fleet.meta_parallel``'s
    ColumnParallelLinear, RowParallelLinear and VocabParallelEmbedding instead.

    >>> eager.distributed.split(x, (8, 4), "linear")
    Traceback (most recent call last):
    ValueError: paddle.distributed.split cannot be used in dynamic graph mode ...
    """
    who = "split"
    if not isinstance(size, (list, tuple)):
        raise TypeError(f"{who}: argument 'size' expected a list or tuple of two ints (the weight's shape), "
                        f"got {type(size).__name__}")
    if len(size) != 2:
        raise ValueError(f"{who}: argument 'size' expected two ints (the weight's shape), got {len(size)}: "
                         f"{list(size)}")
    if not isinstance(operation, str):
        raise TypeError(f"{who}: argument 'operation' expected a str, got {type(operation).__name__}")
    if operation not in _OPERATIONS:
        raise ValueError(f"{who}: argument 'operation' expected one of {list(_OPERATIONS)}, got {operation!r}")
    raise ValueError("split: paddle.distributed.split cannot be used in dynamic graph mode (eager has no "
                     "other); use fleet.meta_parallel.VocabParallelEmbedding, RowParallelLinear or "
                     "ColumnParallelLinear instead")


__all__ = ["split"]
