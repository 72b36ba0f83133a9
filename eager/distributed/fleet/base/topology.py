"""Hybrid-parallel topology: which ranks share data, which share a layer's shards.

A job of ``dp_degree * mp_degree`` ranks is a grid with Paddle's axis order
``data, pipe, sharding, sep, model`` (the last axis varies fastest), so with
``mp_degree`` M the ranks ``d*M .. d*M + M-1`` form the model-parallel group of
data-parallel index d, and the ranks ``m, M + m, 2M + m, ...`` the
data-parallel group of model-parallel index m, exactly as Paddle lays them out.
With ``pp_degree`` P too, rank ``(d*P + s)*M + m`` runs pipeline stage s of
data-parallel replica d (model-parallel index m); each pipeline group holds
the P ranks that differ only in s.

:class:`CommunicateTopology` is the pure arithmetic of that grid;
:class:`HybridCommunicateGroup` makes one :func:`eager.distributed.new_group`
per group of every axis (every rank makes them all, in the same order, as
``new_group`` requires) and answers Paddle's queries
(``get_model_parallel_rank``, ``get_data_parallel_group``, ...).
``fleet.init`` builds it; ``fleet.get_hybrid_communicate_group()`` returns it.
"""
from __future__ import annotations

import collections
import itertools
import math

from ...env import get_rank, get_world_size
from ...group import new_group

_NAMES = ("data", "pipe", "sharding", "sep", "model")
# The HybridCommunicateGroup fleet.init built last (Paddle's tp._HYBRID_PARALLEL_GROUP).
_HYBRID_PARALLEL_GROUP = None


class ParallelMode:
    """The kind of parallelism a hybrid job runs (Paddle's ``ParallelMode``):
    DATA_PARALLEL 0, TENSOR_PARALLEL 1, PIPELINE_PARALLEL 2, SHARDING_PARALLEL 3,
    SEGMENT_PARALLEL 4.

    >>> ParallelMode.TENSOR_PARALLEL
    1
    """

    DATA_PARALLEL = 0
    TENSOR_PARALLEL = 1
    PIPELINE_PARALLEL = 2
    SHARDING_PARALLEL = 3
    SEGMENT_PARALLEL = 4


def _check_int(who: str, arg: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{who}: argument '{arg}' expected an int, got {type(value).__name__}")
    if value < low:
        raise ValueError(f"{who}: argument '{arg}' expected an int >= {low}, got {value}")
    return value


class CommunicateTopology:
    """The grid of ranks of a hybrid job: ``hybrid_group_names`` (axis names,
    slowest first) and ``dims`` (their sizes); rank r is the r-th coordinate in
    row-major order.

    >>> topo = CommunicateTopology(["data", "pipe", "sharding", "sep", "model"], [2, 1, 1, 1, 2])
    >>> topo.get_comm_list("model"), topo.get_comm_list("data")
    ([[0, 1], [2, 3]], [[0, 2], [1, 3]])
    >>> topo.get_coord(3)
    Coordinate(data=1, pipe=0, sharding=0, sep=0, model=1)
    """

    def __init__(self, hybrid_group_names=_NAMES, dims=(1, 1, 1, 1, 1)):
        who = "CommunicateTopology"
        if not isinstance(hybrid_group_names, (list, tuple)) or not all(
                isinstance(n, str) for n in hybrid_group_names):
            raise TypeError(f"{who}: argument 'hybrid_group_names' expected a list of str, got "
                            f"{hybrid_group_names!r}")
        if len(set(hybrid_group_names)) != len(hybrid_group_names):
            raise ValueError(f"{who}: argument 'hybrid_group_names' has a repeated name: {hybrid_group_names!r}")
        if not isinstance(dims, (list, tuple)) or len(dims) != len(hybrid_group_names):
            raise ValueError(f"{who}: argument 'dims' expected {len(hybrid_group_names)} sizes (one per name), "
                             f"got {dims!r}")
        for size in dims:
            _check_int(who, "dims", size, 1)
        self._parallel_names = list(hybrid_group_names)
        self._dims = list(dims)
        self.coordinate = collections.namedtuple("Coordinate", self._parallel_names)
        self._world_size = math.prod(self._dims)
        coords = [self.coordinate(*c) for c in itertools.product(*(range(d) for d in self._dims))]
        self._coord2rank = {c: r for r, c in enumerate(coords)}
        self._rank2coord = dict(enumerate(coords))

    def _axis(self, axis_name: str) -> int:
        if axis_name not in self._parallel_names:
            raise ValueError(f"CommunicateTopology: no axis {axis_name!r}; the axes are {self._parallel_names}")
        return self._parallel_names.index(axis_name)

    def get_hybrid_group_names(self) -> list:
        """The axis names, slowest varying first."""
        return list(self._parallel_names)

    def get_dim(self, axis_name: str) -> int:
        """The size of axis ``axis_name``."""
        return self._dims[self._axis(axis_name)]

    get_dim_size = get_dim

    def world_size(self) -> int:
        """The number of ranks in the grid (the product of the sizes)."""
        return self._world_size

    def get_rank(self, **coords) -> int:
        """The rank at the coordinate given by keyword (one per axis)."""
        if sorted(coords) != sorted(self._parallel_names):
            raise ValueError(f"CommunicateTopology.get_rank: expected one keyword per axis "
                             f"{self._parallel_names}, got {sorted(coords)}")
        key = self.coordinate(**coords)
        if key not in self._coord2rank:
            raise ValueError(f"CommunicateTopology.get_rank: coordinate {key} is outside the grid {self._dims}")
        return self._coord2rank[key]

    def get_coord(self, rank: int):
        """The coordinate (a namedtuple with one field per axis) of ``rank``."""
        _check_int("CommunicateTopology.get_coord", "rank", rank, 0)
        if rank >= self._world_size:
            raise ValueError(f"CommunicateTopology.get_coord: argument 'rank' expected 0..{self._world_size - 1}, "
                             f"got {rank}")
        return self._rank2coord[rank]

    def get_axis_list(self, axis_name: str, index: int) -> list:
        """The ranks whose coordinate on ``axis_name`` is ``index``, sorted."""
        axis = self._axis(axis_name)
        return sorted(r for c, r in self._coord2rank.items() if c[axis] == index)

    def get_comm_list(self, axis_name: str) -> list:
        """The groups along ``axis_name``: one list per setting of the other axes
        (in row-major order), each holding the ranks that differ only on it."""
        axis = self._axis(axis_name)
        others = [range(d) if i != axis else range(1) for i, d in enumerate(self._dims)]
        groups = []
        for fixed in itertools.product(*others):
            groups.append([self._coord2rank[self.coordinate(*fixed[:axis], i, *fixed[axis + 1:])]
                           for i in range(self._dims[axis])])
        return groups

    def get_rank_from_stage(self, global_rank: int, **kwargs) -> int:
        """The rank at ``global_rank``'s coordinate with the axes in ``kwargs`` replaced."""
        return self.get_rank(**self.get_coord(global_rank)._replace(**kwargs)._asdict())


class HybridCommunicateGroup:
    """This rank's place in a hybrid job and the groups it communicates in
    (Paddle's ``HybridCommunicateGroup``), built by ``fleet.init`` from the
    strategy's ``hybrid_configs``. Every rank constructs it (it makes groups).

    >>> hcg = fleet.get_hybrid_communicate_group()   # mp_degree 2 on 2 ranks
    >>> hcg.get_model_parallel_rank(), hcg.get_model_parallel_world_size()
    (0, 2)                                            # on rank 0
    >>> hcg.get_model_parallel_group().ranks
    [0, 1]
    """

    def __init__(self, topology):
        if not isinstance(topology, CommunicateTopology):
            raise TypeError(f"HybridCommunicateGroup: argument 'topology' expected a CommunicateTopology, got "
                            f"{type(topology).__name__}")
        self.nranks = get_world_size()
        self.global_rank = get_rank()
        self._topo = topology
        if topology.world_size() != self.nranks:
            dims = ", ".join(f"{n} {d}" for n, d in zip(topology.get_hybrid_group_names(), topology._dims))
            raise ValueError(f"HybridCommunicateGroup: the topology's degrees ({dims}) make "
                             f"{topology.world_size()} ranks, but the job has {self.nranks}")
        for name in _NAMES:
            topology._axis(name)
        self._dp_degree = topology.get_dim("data")
        self._mp_degree = topology.get_dim("model")
        self._pp_degree = topology.get_dim("pipe")
        self._sharding_degree = topology.get_dim("sharding")
        self._sep_degree = topology.get_dim("sep")
        coord = topology.get_coord(self.global_rank)
        self._data_parallel_id = coord.data
        self._model_parallel_id = coord.model
        self._sharding_parallel_id = coord.sharding
        self._sep_parallel_id = coord.sep
        self.stage_id = coord.pipe
        # Paddle's order of creation; every rank makes every group.
        self._pp_group, self._pp_comm_group = self._set_comm_group("pipe")
        self._dp_group, self._dp_comm_group = self._set_comm_group("data")
        self._mp_group, self._mp_comm_group = self._set_comm_group("model")
        self._sharding_group, self._sharding_comm_group = self._set_comm_group("sharding")
        self._sep_group, self._sep_comm_group = self._set_comm_group("sep")
        self.is_first_stage = self.stage_id == 0
        self.is_last_stage = self.stage_id == self._pp_degree - 1
        # The neighbouring stages' global ranks (wrapping around, as Paddle's).
        self.next_rank = self._pp_group[(self.stage_id + 1) % self._pp_degree]
        self.prev_rank = self._pp_group[(self.stage_id - 1) % self._pp_degree]
        global _HYBRID_PARALLEL_GROUP
        _HYBRID_PARALLEL_GROUP = self

    def _set_comm_group(self, axis_name: str):
        mine = None
        for ranks in self._topo.get_comm_list(axis_name):
            group = new_group(ranks=ranks)
            if self.global_rank in ranks:
                mine = (ranks, group)
        return mine

    def get_parallel_mode(self) -> int:
        """The job's :class:`ParallelMode` (tensor parallel when ``mp_degree`` > 1); None when every
        degree is 1 (a world of one), as in Paddle."""
        if self._pp_degree > 1:
            return ParallelMode.PIPELINE_PARALLEL
        if self._mp_degree > 1:
            return ParallelMode.TENSOR_PARALLEL
        if self._sep_degree > 1:
            return ParallelMode.SEGMENT_PARALLEL
        if self._sharding_degree > 1:
            return ParallelMode.SHARDING_PARALLEL
        if self._dp_degree > 1:
            return ParallelMode.DATA_PARALLEL
        return None

    def topology(self) -> CommunicateTopology:
        """The grid this group was built from."""
        return self._topo

    def get_global_rank(self) -> int:
        """This process's rank in the job."""
        return self.global_rank

    # data parallel
    def get_data_parallel_rank(self) -> int:
        """This rank's index among the ranks that hold the same shards (its data-parallel group)."""
        return self._data_parallel_id

    def get_data_parallel_world_size(self) -> int:
        """``dp_degree``: the size of each data-parallel group."""
        return self._dp_degree

    def get_data_parallel_group(self):
        """This rank's data-parallel Group (the ranks with its model-parallel index)."""
        return self._dp_comm_group

    def get_data_parallel_group_src_rank(self) -> int:
        """The global rank of the first member of this rank's data-parallel group."""
        return self._dp_comm_group.ranks[0]

    # model (tensor) parallel
    def get_model_parallel_rank(self) -> int:
        """This rank's index in its model-parallel group: which shard of each parallel layer it holds."""
        return self._model_parallel_id

    def get_model_parallel_world_size(self) -> int:
        """``mp_degree``: how many shards each parallel layer is cut into."""
        return self._mp_degree

    def get_model_parallel_group(self):
        """This rank's model-parallel Group (the ranks holding the other shards of its layers)."""
        return self._mp_comm_group

    def get_model_parallel_group_src_rank(self) -> int:
        """The global rank of the first member of this rank's model-parallel group."""
        return self._mp_comm_group.ranks[0]

    # pipeline parallel
    def get_stage_id(self) -> int:
        """This rank's pipeline stage, 0 to ``pp_degree - 1`` (its coordinate on the ``pipe`` axis)."""
        return self.stage_id

    def get_pipe_parallel_world_size(self) -> int:
        """``pp_degree``: the number of pipeline stages."""
        return self._pp_degree

    def get_pipe_parallel_group(self):
        """This rank's pipeline Group: the ranks holding the other stages of its model replica."""
        return self._pp_comm_group

    def _get_p2p_next_rank(self) -> int:
        """The global rank of the next stage (the first stage's after the last, as in Paddle)."""
        return self.next_rank

    def _get_p2p_prev_rank(self) -> int:
        """The global rank of the previous stage (the last stage's before the first)."""
        return self.prev_rank

    # sharding, sep: degree 1 here, answered for Paddle code that asks

    def get_sharding_parallel_rank(self) -> int:
        """This rank's index in its sharding group (0 with ``sharding_degree`` 1)."""
        return self._sharding_parallel_id

    def get_sharding_parallel_world_size(self) -> int:
        """``sharding_degree``: the ranks the optimizer state is sharded over."""
        return self._sharding_degree

    def get_sharding_parallel_group(self):
        """This rank's sharding Group (itself alone with ``sharding_degree`` 1)."""
        return self._sharding_comm_group

    def get_sharding_parallel_group_src_rank(self) -> int:
        """The global rank of the first member of this rank's sharding group."""
        return self._sharding_comm_group.ranks[0]

    def _check_sep_exist(self, fn: str) -> None:
        # Paddle asserts here too: sep groups exist only with sep_degree > 1, which eager's fleet lacks.
        if self._sep_degree <= 1:
            raise AssertionError(f"HybridCommunicateGroup.{fn}: sep not exist (sep_degree is "
                                 f"{self._sep_degree}; the sequence-parallel group needs sep_degree > 1)")

    def get_sep_parallel_group(self):
        """The sequence-parallel Group; AssertionError with ``sep_degree`` 1, as in Paddle."""
        self._check_sep_exist("get_sep_parallel_group")
        return self._sep_comm_group

    def get_sep_parallel_group_src_rank(self) -> int:
        """The first rank of the sequence-parallel group; AssertionError with ``sep_degree`` 1, as in Paddle."""
        self._check_sep_exist("get_sep_parallel_group_src_rank")
        return self._sep_comm_group.ranks[0]

    def get_sep_parallel_rank(self) -> int:
        """The sequence-parallel index (0)."""
        return self._sep_parallel_id

    def get_sep_parallel_world_size(self) -> int:
        """``sep_degree`` (1)."""
        return self._sep_degree

    def get_rank_from_stage(self, stage_id: int, **kwargs) -> int:
        """The global rank at this rank's coordinate with the pipeline stage (and ``kwargs``) replaced."""
        return self._topo.get_rank_from_stage(self.global_rank, pipe=stage_id, **kwargs)

    def __repr__(self):
        return (f"HybridCommunicateGroup(rank={self.global_rank}, dp_degree={self._dp_degree}, "
                f"mp_degree={self._mp_degree}, pp_degree={self._pp_degree}, dp_group={self._dp_group}, "
                f"mp_group={self._mp_group}, pp_group={self._pp_group})")


def hybrid_group(who: str) -> HybridCommunicateGroup:
    """The group ``fleet.init`` built, or a RuntimeError naming ``who`` when there is none."""
    if _HYBRID_PARALLEL_GROUP is None:
        raise RuntimeError(f"{who}: no hybrid-parallel group: call fleet.init(is_collective=True, strategy=...) "
                           f"first (or pass mp_group)")
    return _HYBRID_PARALLEL_GROUP


__all__ = ["ParallelMode", "CommunicateTopology", "HybridCommunicateGroup"]
