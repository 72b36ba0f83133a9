"""Tensor-parallel layers (Paddle's ``fleet.meta_parallel`` / ``fleet.layers.mpu``).

Each layer keeps one shard of its weight on each rank of its model-parallel
group (``mp_group``, by default the group ``fleet.init`` built from
``hybrid_configs['mp_degree']``):

- :class:`ColumnParallelLinear`: weight ``[in, out / n]`` (a block of output
  columns); the input enters through ``_c_identity``; with ``gather_output``
  the ranks' outputs are gathered into the full ``[..., out]``.
- :class:`RowParallelLinear`: weight ``[in / n, out]`` (a block of input rows);
  the input is split along its last axis unless ``input_is_parallel``; the
  partial products are all-reduced, then the (replicated) bias added.
- :class:`VocabParallelEmbedding`: weight ``[vocab / n, dim]``; ids outside the
  shard look up zeros, and the ranks' lookups are all-reduced.
- :class:`ParallelCrossEntropy`: softmax cross-entropy over class-sharded logits.

**Initialization.** Each shard is the matching slice of the weight that the
single-process layer (``eager.nn.Linear(in, out)``, ``eager.nn.Embedding``)
would draw from the same generator state: the full weight is drawn, on every
rank, and each rank keeps its slice. So ranks that seed alike hold the shards
of one model, and an initializer given in ``weight_attr`` (``Assign``
included) describes the full, unsharded weight. Paddle instead draws each shard
with a per-rank seed (its ``get_rng_state_tracker``).
"""
from __future__ import annotations

import numpy as np

from .....generated import forward_api as _F
from .....nn import functional as F
from .....nn import initializer as _init
from .....nn.layer import Layer, ParamAttr, Parameter
from .....tensor import Tensor
from ....group import Group
from ...base import topology
from . import mp_ops


def _check_size(who: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{who}: argument '{arg}' expected a positive int, got {value!r}")
    return int(value)


def _model_parallel(who: str, mp_group):
    """(group, rank in it, its size): ``mp_group``, or the hybrid group's model-parallel group."""
    if mp_group is None:
        hcg = topology.hybrid_group(who)
        return (hcg.get_model_parallel_group(), hcg.get_model_parallel_rank(),
                hcg.get_model_parallel_world_size())
    if not isinstance(mp_group, Group):
        raise TypeError(f"{who}: argument 'mp_group' expected an eager.distributed Group or None, got "
                        f"{type(mp_group).__name__}")
    if not mp_group.is_member():
        raise ValueError(f"{who}: argument 'mp_group': this process is not one of its ranks {mp_group.ranks}")
    return mp_group, mp_group.rank, mp_group.nranks


def _divides(who: str, what: str, size: int, nranks: int) -> int:
    if size % nranks:
        raise ValueError(f"{who}: {what} ({size}) must be divisible by the model-parallel degree ({nranks})")
    return size // nranks


def _shard(layer: Layer, full_shape: list, axis: int, rank: int, nranks: int, attr, is_bias: bool = False):
    """A parameter holding slice ``rank`` of ``nranks`` along ``axis`` of the
    parameter ``layer.create_parameter(full_shape, attr)`` would make (same
    initializer, same draws from the generator, same name)."""
    full = layer.create_parameter(full_shape, attr, is_bias=is_bias,
                                  default_initializer=None if is_bias else _init.XavierUniform())
    if nranks == 1:
        return full
    part = np.ascontiguousarray(np.split(full.numpy(), nranks, axis=axis)[rank])
    shard = Parameter(part, trainable=full.trainable, name=full.name,
                      learning_rate=full.optimize_attr["learning_rate"], need_clip=full.need_clip,
                      regularizer=full.regularizer)
    shard.do_model_average = full.do_model_average
    shard.is_distributed = True
    shard.split_axis = axis
    return shard


def _check_input(who: str, x, width: int, what: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{who}: argument 'x' expected a Tensor, got {type(x).__name__}")
    if not x.shape or x.shape[-1] != width:
        raise ValueError(f"{who}: argument 'x' expected a last dimension of {width} ({what}), got shape {x.shape}")


def _parallel_linear(layer, who, in_features, out_features, weight_attr, mp_group, name, **flags):
    """The checks and the model-parallel group the two parallel linears share: sizes,
    bool ``flags``, a weight (``weight_attr`` not False); sets the layer's group, rank,
    world size, features and name, and returns the weight's ParamAttr."""
    in_features = _check_size(who, "in_features", in_features)
    out_features = _check_size(who, "out_features", out_features)
    for arg, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{who}: argument '{arg}' expected a bool, got {value!r}")
    if weight_attr is False:
        raise ValueError(f"{who}: argument 'weight_attr' cannot be False: the layer needs a weight")
    weight_attr = ParamAttr.from_argument(weight_attr, who, "weight_attr")
    layer.model_parallel_group, layer.rank, layer.world_size = _model_parallel(who, mp_group)
    layer.is_mp = layer.world_size > 1
    layer.in_features, layer.out_features = in_features, out_features
    layer._name = name
    return weight_attr


class ColumnParallelLinear(Layer):
    """A Linear layer whose weight ``[in_features, out_features]`` is cut by
    columns among the ranks of the model-parallel group: each holds
    ``[in_features, out_features / n]`` (and that part of the bias, with
    ``has_bias``). ``gather_output=True`` returns the full ``[..., out_features]``
    on every rank; False this rank's ``[..., out_features / n]`` (to feed a
    :class:`RowParallelLinear` with ``input_is_parallel=True``).
    ``fuse_matmul_bias`` is accepted (eager's linear is one fused op already).

    >>> fc = ColumnParallelLinear(16, 64, has_bias=True, gather_output=False)
    >>> fc.weight.shape                              # on 2 model-parallel ranks
    [16, 32]
    """

    def __init__(self, in_features, out_features, weight_attr=None, has_bias=None, gather_output=True,
                 fuse_matmul_bias=False, mp_group=None, name=None):
        super().__init__()
        who = "ColumnParallelLinear"
        weight_attr = _parallel_linear(self, who, in_features, out_features, weight_attr, mp_group, name,
                                       gather_output=gather_output, fuse_matmul_bias=fuse_matmul_bias)
        in_features, out_features = self.in_features, self.out_features
        self.output_size_per_partition = _divides(who, "out_features (the weight's columns)", out_features,
                                                  self.world_size)
        self.gather_output = gather_output
        self.fuse_matmul_bias = fuse_matmul_bias
        self.weight = _shard(self, [in_features, out_features], 1, self.rank, self.world_size, weight_attr)
        if has_bias:
            self.bias = _shard(self, [out_features], 0, self.rank, self.world_size,
                               ParamAttr(initializer=_init.Constant(0.0)), is_bias=True)
        else:
            self.bias = None

    def forward(self, x):
        """``x [..., in_features]`` times the weight: ``[..., out_features]``
        with ``gather_output``, else this rank's ``[..., out_features / n]``."""
        who = f"ColumnParallelLinear({self._full_name})"
        _check_input(who, x, self.in_features, "in_features")
        if not self.is_mp:
            return F.linear(x, self.weight, self.bias)
        out = F.linear(mp_ops._c_identity(x, group=self.model_parallel_group), self.weight, self.bias)
        if self.gather_output:
            out = mp_ops._c_concat(out, group=self.model_parallel_group)
        return out

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"mp_degree={self.world_size}, gather_output={self.gather_output}")


class RowParallelLinear(Layer):
    """A Linear layer whose weight ``[in_features, out_features]`` is cut by
    rows among the ranks of the model-parallel group: each holds
    ``[in_features / n, out_features]``; the bias (``has_bias``, default True)
    is whole on every rank. The input is ``[..., in_features]``, split here,
    or with ``input_is_parallel=True`` already this rank's
    ``[..., in_features / n]`` (a :class:`ColumnParallelLinear`'s output with
    ``gather_output=False``). The output is the full ``[..., out_features]``.

    >>> fc = RowParallelLinear(64, 16, input_is_parallel=True)
    >>> fc.weight.shape                              # on 2 model-parallel ranks
    [32, 16]
    """

    def __init__(self, in_features, out_features, weight_attr=None, has_bias=True, input_is_parallel=False,
                 fuse_matmul_bias=False, mp_group=None, name=None):
        super().__init__()
        who = "RowParallelLinear"
        weight_attr = _parallel_linear(self, who, in_features, out_features, weight_attr, mp_group, name,
                                       input_is_parallel=input_is_parallel, fuse_matmul_bias=fuse_matmul_bias)
        in_features, out_features = self.in_features, self.out_features
        self.input_size_per_partition = _divides(who, "in_features (the weight's rows)", in_features,
                                                 self.world_size)
        self.input_is_parallel = input_is_parallel
        self.fuse_matmul_bias = fuse_matmul_bias
        self.weight = _shard(self, [in_features, out_features], 0, self.rank, self.world_size, weight_attr)
        if has_bias:
            self.bias = self.create_parameter([out_features], ParamAttr(initializer=_init.Constant(0.0)),
                                              is_bias=True)
        else:
            self.bias = None

    def forward(self, x):
        """``x`` times the weight, summed over the ranks, plus the bias: ``[..., out_features]``."""
        who = f"RowParallelLinear({self._full_name})"
        if not self.is_mp:
            _check_input(who, x, self.in_features, "in_features")
            return F.linear(x, self.weight, self.bias)
        if self.input_is_parallel:
            _check_input(who, x, self.input_size_per_partition,
                         "in_features / mp_degree: input_is_parallel=True takes this rank's part")
            part = x
        else:
            _check_input(who, x, self.in_features, "in_features")
            part = mp_ops._c_split(x, group=self.model_parallel_group)
        out = mp_ops._mp_allreduce(F.linear(part, self.weight), group=self.model_parallel_group)
        return out if self.bias is None else _F.add(out, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"mp_degree={self.world_size}, input_is_parallel={self.input_is_parallel}")


class VocabParallelEmbedding(Layer):
    """An Embedding whose table ``[num_embeddings, embedding_dim]`` is cut by
    rows (the vocabulary) among the ranks of the model-parallel group: rank r
    holds ids ``r * k`` to ``r * k + k - 1`` (``k = num_embeddings / n``). Every
    rank gets the full lookup ``x.shape + [embedding_dim]``.

    >>> emb = VocabParallelEmbedding(1000, 64)
    >>> emb.weight.shape                             # on 2 model-parallel ranks
    [500, 64]
    """

    def __init__(self, num_embeddings, embedding_dim, weight_attr=None, mp_group=None, name=None):
        super().__init__()
        who = "VocabParallelEmbedding"
        num_embeddings = _check_size(who, "num_embeddings", num_embeddings)
        embedding_dim = _check_size(who, "embedding_dim", embedding_dim)
        if weight_attr is False:
            raise ValueError(f"{who}: argument 'weight_attr' cannot be False: the layer needs a weight")
        weight_attr = ParamAttr.from_argument(weight_attr, who, "weight_attr")
        self.model_parallel_group, self.rank, self.world_size = _model_parallel(who, mp_group)
        self.is_mp = self.world_size > 1
        per_part = _divides(who, "num_embeddings (the vocabulary)", num_embeddings, self.world_size)
        self.origin_num_embeddings = self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.vocab_start_index = self.rank * per_part
        self._name = name
        self.weight = _shard(self, [num_embeddings, embedding_dim], 0, self.rank, self.world_size, weight_attr)

    def forward(self, x):
        """The embeddings of the ids in ``x`` (int32/int64): ``x.shape + [embedding_dim]``."""
        who = f"VocabParallelEmbedding({self._full_name})"
        if not isinstance(x, Tensor):
            raise TypeError(f"{who}: argument 'x' expected a Tensor of ids, got {type(x).__name__}")
        if not self.is_mp:
            return F.embedding(x, self.weight)
        part = mp_ops._c_lookup_table(self.weight, x, start_index=self.vocab_start_index,
                                      vocab_size=self.num_embeddings)
        return mp_ops._mp_allreduce(part, group=self.model_parallel_group)

    def extra_repr(self) -> str:
        return f"{self.num_embeddings}, {self.embedding_dim}, mp_degree={self.world_size}"


class ParallelCrossEntropy(Layer):
    """Softmax cross-entropy of logits whose class axis is cut among the
    model-parallel ranks (each holds ``[..., classes / n]``, as a
    :class:`ColumnParallelLinear` with ``gather_output=False`` gives), against
    global class ids. ``forward(input, label)`` returns the loss per sample,
    shape ``input.shape[:-1] + [1]``, 0 where the label is ``ignore_index``.

    >>> loss = ParallelCrossEntropy()(logits_parallel, label).mean()
    """

    def __init__(self, mp_group=None, name=None, ignore_index=-100):
        super().__init__()
        who = "ParallelCrossEntropy"
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
            raise TypeError(f"{who}: argument 'ignore_index' expected an int, got {ignore_index!r}")
        self.model_parallel_group, self.rank, self.world_size = _model_parallel(who, mp_group)
        self.name = name
        self.ignore_index = ignore_index

    def forward(self, input, label):  # noqa: A002  (Paddle's name)
        """The loss of each sample of ``input`` (sharded logits) against ``label``."""
        return mp_ops._c_softmax_with_cross_entropy(input, label, group=self.model_parallel_group,
                                                    ignore_index=self.ignore_index)


__all__ = ["ColumnParallelLinear", "RowParallelLinear", "VocabParallelEmbedding", "ParallelCrossEntropy"]
