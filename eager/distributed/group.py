"""Process groups: the ranks a collective runs over (Paddle's ``Group``, ``new_group``).

Group 0 is the world. :func:`new_group` makes a sub-communicator over some of
the world's ranks with MPI's ``Comm.Create_group``; every rank must call it, in
the same order, with the same ranks (as in Paddle), so the groups' ids agree.
A rank outside the group gets a Group whose ``rank`` is -1, and collectives on
it return at once.

Ranks named in a collective (``src``, ``dst``) are global ranks, as in Paddle;
the group translates them to its own numbering.
"""
from __future__ import annotations

import datetime
import threading

import numpy as np

from . import nccl
from .env import _forget_world, get_rank, get_world_size, world_comm

_WORLD_ID = 0
# Paddle's backend names; here every one of them runs over MPI.
_BACKENDS = (None, "mpi", "gloo", "nccl", "bkcl", "xccl", "auto")
# What Group.backend and get_backend answer: Paddle's name for an MPI process group.
BACKEND = "MPI"
_LOCK = threading.Lock()
_REGISTRY = {"groups": {}, "next_id": 1}


class Group:
    """Some of the job's ranks, with their own communicator (Paddle's ``Group``).

    ``ranks`` are the members' global ranks (sorted), ``rank`` this process's
    rank within the group (-1 outside it), ``world_size``/``nranks`` the
    number of members (``world_size`` is -1 outside, as in Paddle), ``id`` the
    group's id for :func:`get_group` (0 is the world).

    >>> group = eager.distributed.new_group([0])
    >>> group.ranks, group.rank, group.world_size
    ([0], 0, 1)
    """

    def __init__(self, rank_in_group: int, id: int, ranks: list, comm=None, name=None):  # noqa: A002
        self._rank = rank_in_group
        self._id = id
        self._ranks = list(ranks)
        self._comm = comm
        self._name = name
        self._destroyed = False

    @property
    def rank(self) -> int:
        return self._rank

    @property
    def ranks(self) -> list:
        return list(self._ranks)

    @property
    def nranks(self) -> int:
        return len(self._ranks)

    @property
    def world_size(self) -> int:
        return len(self._ranks) if self._rank >= 0 else -1

    @property
    def id(self) -> int:
        return self._id

    @property
    def name(self):
        return self._name

    @property
    def backend(self) -> str:
        """The process group's engine, named as Paddle names its process groups:
        ``"MPI"`` (every group is an MPI communicator; GPU tensors' collectives
        run over NCCL communicators made from it, see docs/distributed.md)."""
        return BACKEND

    @property
    def process_group(self):
        """The group's mpi4py communicator (None in a world of one without mpi4py
        and outside the group)."""
        return self._comm

    def is_member(self) -> bool:
        """Whether this process belongs to the group."""
        return self._rank >= 0

    def get_group_rank(self, rank: int) -> int:
        """The group rank of global ``rank``; -1 if it is not a member (or this
        process is not)."""
        if self._rank < 0 or rank not in self._ranks:
            return -1
        return self._ranks.index(rank)

    def __repr__(self):
        return (f"Group(id={self._id}, rank={self._rank}, nranks={self.nranks}, "
                f"ranks={self._ranks}, name={self._name!r})")


def _world() -> Group:
    """Group 0, the whole job; made on first use (starting MPI)."""
    groups = _REGISTRY["groups"]
    group = groups.get(_WORLD_ID)
    if group is None:
        with _LOCK:
            group = groups.get(_WORLD_ID)
            if group is None:
                comm = world_comm()
                group = Group(get_rank(), _WORLD_ID, list(range(get_world_size())), comm, "_default_pg")
                groups[_WORLD_ID] = group
    return group


def resolve_group(fn: str, group) -> Group:
    """The Group a collective named ``fn`` runs over: ``group``, or the world for None."""
    if group is None:
        return _world()
    if not isinstance(group, Group):
        raise TypeError(f"{fn}: argument 'group' expected an eager.distributed.Group or None, got "
                        f"{type(group).__name__}")
    if group._destroyed:
        raise ValueError(f"{fn}: argument 'group' (id {group.id}) was destroyed by "
                         f"destroy_process_group")
    return group


def new_group(ranks=None, backend=None, timeout=None) -> Group:
    """A group of the given global ``ranks`` (all ranks when None), with its own
    communicator, for collectives over part of the job.

    Every rank of the job calls it, with the same arguments and in the same
    order. ``backend`` takes Paddle's names (all run over MPI here); ``timeout``
    is accepted for compatibility, MPI enforces none.

    In a world of one (no mpiexec), the only group is rank 0, and its
    collectives leave the tensor as it is; under ``mpiexec -n 2`` or more,
    ``new_group([0, 1])`` sums over the first two ranks:

    >>> group = eager.distributed.new_group([0])
    >>> group.ranks, group.nranks
    ([0], 1)
    >>> tensor = eager.to_tensor([1.0, 2.0])
    >>> task = eager.distributed.all_reduce(tensor, group=group)
    >>> tensor.numpy()
    array([1., 2.], dtype=float32)
    >>> eager.distributed.destroy_process_group(group)
    """
    size = get_world_size()
    if ranks is None:
        ranks = list(range(size))
    if not isinstance(ranks, (list, tuple)):
        raise TypeError(f"new_group: argument 'ranks' expected a list of ints, got {type(ranks).__name__}")
    for rank in ranks:
        # NumPy integers too, as the collectives' src/dst take them (Paddle passes ranks to C++ as ints)
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
            raise TypeError(f"new_group: argument 'ranks' expected a list of ints, got {ranks!r}")
        if not 0 <= rank < size:
            raise ValueError(f"new_group: argument 'ranks' holds {rank}, outside the world's ranks "
                             f"0..{size - 1}")
    if len(set(ranks)) != len(ranks) or not ranks:
        raise ValueError(f"new_group: argument 'ranks' expected distinct ranks, at least one, got {ranks!r}")
    if backend not in _BACKENDS:
        raise ValueError(f"new_group: argument 'backend' expected one of {_BACKENDS}, got {backend!r}")
    if timeout is not None and not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"new_group: argument 'timeout' expected a datetime.timedelta or None, got "
                        f"{type(timeout).__name__}")
    world = _world()
    ranks = sorted(int(rank) for rank in ranks)
    with _LOCK:
        gid = _REGISTRY["next_id"]
        _REGISTRY["next_id"] = gid + 1
    me = world.rank
    comm = None
    if me in ranks and world.process_group is not None:
        world_handle = world.process_group.Get_group()
        members = world_handle.Incl(ranks)
        comm = world.process_group.Create_group(members, gid)
        members.Free()
        world_handle.Free()
    group = Group(ranks.index(me) if me in ranks else -1, gid, ranks, comm, f"_new_group_{gid}")
    _REGISTRY["groups"][gid] = group
    return group


def get_group(id: int = 0):  # noqa: A002  (Paddle's name)
    """The group with this id (0: the world), or None if there is none.

    >>> eager.distributed.get_group(0).ranks == list(range(eager.distributed.get_world_size()))
    True
    """
    if id == _WORLD_ID:
        return _world()
    return _REGISTRY["groups"].get(id)


def destroy_process_group(group=None) -> None:
    """Frees ``group``'s communicator; with None, every group, after which
    :func:`is_initialized` is False until the next collective or
    :func:`init_parallel_env` (MPI itself keeps running: it cannot restart).

    >>> eager.distributed.destroy_process_group()
    >>> eager.distributed.is_initialized()
    False
    """
    groups = _REGISTRY["groups"]
    if group is not None:
        if not isinstance(group, Group):
            raise TypeError(f"destroy_process_group: argument 'group' expected a Group or None, got "
                            f"{type(group).__name__}")
        if groups.get(group.id) is not group:
            raise ValueError(f"destroy_process_group: group {group.id} is not a live group")
    with _LOCK:
        doomed = list(groups.values()) if group is None or group.id == _WORLD_ID else [group]
        for victim in doomed:
            victim._destroyed = True
            del groups[victim.id]
            nccl.forget(victim.id)
            if victim.id != _WORLD_ID and victim._comm is not None:
                victim._comm.Free()
            victim._comm = None
        if group is None or group.id == _WORLD_ID:
            groups.clear()
            _forget_world()


def get_backend(group=None) -> str:
    """The backend of ``group`` (None: the world), Paddle's
    ``paddle.distributed.get_backend``: always ``"MPI"`` here, the engine every
    process group runs on (Paddle answers ``"NCCL"``, ``"GLOO"``, ...); a GPU
    tensor's collectives go over NCCL communicators built from the MPI group.
    RuntimeError on a rank outside ``group``, as in Paddle.

    >>> eager.distributed.get_backend()
    'MPI'
    """
    group = resolve_group("get_backend", group)
    if not group.is_member():
        raise RuntimeError(f"get_backend: this process (global rank {get_rank()}) is not a member of group "
                           f"{group.id} (ranks {group.ranks})")
    return group.backend


__all__ = ["Group", "new_group", "get_group", "destroy_process_group", "get_backend"]
