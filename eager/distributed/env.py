"""The process world: who this process is among the ranks of a job, over MPI.

A script launched with ``mpiexec -n N python train.py`` (or
``python -m eager.distributed.launch``) is one of N ranks; run with plain
``python`` it is a world of one and everything here still works, with or
without mpi4py installed. The communicator is mpi4py's ``COMM_WORLD``; it is
made on first use (``init_parallel_env`` or any collective), so importing eager
never starts MPI.

Before ``init_parallel_env`` the rank and world size come from the launcher's
environment (Paddle's ``PADDLE_TRAINER_ID``/``PADDLE_TRAINERS_NUM``, MPICH's
``PMI_RANK``/``PMI_SIZE``, Open MPI's ``OMPI_COMM_WORLD_RANK``/``_SIZE``), so a
sampler or a logger can ask before the model is built, as in Paddle.

Under MPI with several ranks, an uncaught exception on any rank ends the whole
job: an excepthook, installed when this module is imported under a launcher
of several ranks (or when the world starts), prints the failing rank and its
traceback, then calls ``MPI_Abort``, so the other ranks do not hang in their
next collective.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import sys
import threading
import time
import traceback
from pathlib import Path

# Launcher variables, most specific first: (rank, world size).
_ENV_VARIABLES = (
    ("PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM"),
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
    ("PMI_RANK", "PMI_SIZE"),
    ("PMIX_RANK", "PMIX_SIZE"),
)

_LOCK = threading.Lock()
# Seconds a failing rank waits, after printing its report, before it aborts the job.
ABORT_REPORT_GRACE_S = 0.25
_STATE = {"comm": None, "initialized": False}
_MPI: list = []  # mpi4py.MPI once mpi_module() has imported it


def find_mpiexec() -> str | None:
    """The ``mpiexec`` beside this Python (the MPICH wheel installs it there), else
    the first on PATH; None if neither exists."""
    beside = Path(sys.executable).parent / "mpiexec"
    if beside.exists():
        return str(beside)
    return shutil.which("mpiexec")


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"eager.distributed: environment variable {name} expected an int, "
                         f"got {value!r}") from None


def _env_rank_and_size() -> tuple[int, int]:
    """(rank, world size) as the launcher's environment says; (0, 1) outside one."""
    for rank_name, size_name in _ENV_VARIABLES:
        rank, size = _env_int(rank_name), _env_int(size_name)
        if rank is not None and size is not None:
            if size < 1 or not 0 <= rank < size:
                raise ValueError(f"eager.distributed: environment says rank {rank} of {size} "
                                 f"({rank_name}/{size_name}); expected 0 <= rank < size")
            return rank, size
    return 0, 1


def _import_mpi():
    """mpi4py's MPI module, or None when mpi4py is not installed."""
    try:
        return importlib.import_module("mpi4py.MPI")
    except ImportError:
        return None


def mpi_module():
    """mpi4py's MPI module, imported once, for code that holds a communicator
    (so mpi4py is installed): the one place eager.distributed reaches it."""
    if not _MPI:
        _MPI.append(_import_mpi())
    return _MPI[0]


def world_comm():
    """The world communicator (mpi4py ``COMM_WORLD``), starting MPI on first use;
    None in a world of one without mpi4py (collectives are then identities).
    A launcher-made world of several ranks without mpi4py is an error."""
    if _STATE["initialized"]:
        return _STATE["comm"]
    with _LOCK:
        if not _STATE["initialized"]:
            mpi = _import_mpi()
            if mpi is None and _env_rank_and_size()[1] > 1:
                raise ImportError(
                    "eager.distributed: this process was launched as one of several ranks, but "
                    "mpi4py is not installed; install it with `pip install eager-phi[distributed]` "
                    "(mpi4py and MPICH)")
            comm = None if mpi is None else mpi.COMM_WORLD
            if comm is not None and comm.Get_size() > 1:
                _install_abort_hook()
            _STATE["comm"] = comm
            _STATE["initialized"] = True
    return _STATE["comm"]


def _install_abort_hook() -> None:
    """Makes an uncaught exception on this rank end every rank of the job.

    MPI gives a rank no way to learn that a peer died while it waits in a
    collective, so without this the job hangs. The hook prints which rank failed
    and its traceback (to stderr, flushed), then aborts the world with exit code
    1 (starting MPI first if this rank had not: MPI_Abort is what makes the
    launcher stop the other ranks).
    """
    if _STATE.get("hooked"):
        return
    _STATE["hooked"] = True
    previous = sys.excepthook

    def abort_on_uncaught(kind, value, tb):
        try:
            comm = world_comm()
        except Exception:  # noqa: BLE001  (no MPI to abort with: fall back to the usual report)
            comm = None
        if comm is None or comm.Get_size() < 2:
            previous(kind, value, tb)
            return
        rank, size = comm.Get_rank(), comm.Get_size()
        try:
            sys.stdout.flush()
            sys.stderr.write(f"eager.distributed: rank {rank} of {size} raised an uncaught "
                             f"{kind.__name__}; aborting all {size} ranks\n")
            traceback.print_exception(kind, value, tb, file=sys.stderr)
            sys.stderr.write(f"eager.distributed: (the error above is from rank {rank})\n")
            sys.stderr.flush()
            # MPI_Abort makes the launcher tear down every rank and its output
            # forwarding at once; a report still in the pipe to the launcher can be
            # lost (seen in CI: the job ended with an empty stderr). A short pause
            # lets the launcher forward it first.
            time.sleep(ABORT_REPORT_GRACE_S)
        finally:
            comm.Abort(1)

    sys.excepthook = abort_on_uncaught


def _forget_world() -> None:
    """Marks the world as not set up (``destroy_process_group()``); the next
    collective or :func:`init_parallel_env` sets it up again. MPI itself stays
    running: it cannot be restarted within a process."""
    with _LOCK:
        _STATE["comm"] = None
        _STATE["initialized"] = False


def init_parallel_env():
    """Joins this process to the job's world (Paddle's ``init_parallel_env``):
    starts MPI and returns nothing. Call it once, before building the
    DataParallel model; calling it again does nothing. With plain ``python``
    the world is this one process.

    >>> import eager.distributed as dist
    >>> dist.init_parallel_env()
    >>> dist.get_world_size() >= 1
    True
    """
    world_comm()


def is_available() -> bool:
    """Whether this installation can run several ranks: True when mpi4py is
    installed (``pip install eager-phi[distributed]``). A world of one works
    either way. Starts nothing.

    >>> import eager.distributed as dist
    >>> isinstance(dist.is_available(), bool)
    True
    """
    return importlib.util.find_spec("mpi4py") is not None


def is_initialized() -> bool:
    """Whether :func:`init_parallel_env` (or a collective) has set up the world."""
    return _STATE["initialized"]


def _check_group(fn: str, group) -> None:
    """TypeError unless ``group`` looks like a Group: an int ``rank``, read as Paddle
    reads it (group.py, which defines Group, imports this module). A Tensor's
    ``rank`` is a method, so a Tensor is refused too."""
    rank = getattr(group, "rank", None)
    if type(rank) is not int:
        raise TypeError(f"{fn}: argument 'group' expected an eager.distributed.Group or None, got "
                        f"{type(group).__name__}")


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (the world when None): 0 to
    world size - 1. Before :func:`init_parallel_env`, the launcher's
    environment answers (0 outside a launcher).

    >>> import eager.distributed as dist
    >>> dist.get_rank()
    0
    """
    if group is not None:
        _check_group("get_rank", group)
        return group.rank
    if _STATE["initialized"] and _STATE["comm"] is not None:
        return _STATE["comm"].Get_rank()
    return _env_rank_and_size()[0]


def get_world_size(group=None) -> int:
    """How many ranks ``group`` (the world when None) has; 1 outside a launcher."""
    if group is not None:
        _check_group("get_world_size", group)
        return group.world_size
    if _STATE["initialized"] and _STATE["comm"] is not None:
        return _STATE["comm"].Get_size()
    return _env_rank_and_size()[1]


class ParallelEnv:
    """This process's place in the job (Paddle's ``paddle.distributed.ParallelEnv``):
    ``rank``, ``world_size`` (and Paddle's aliases ``local_rank``, ``nranks``),
    ``device_id``/``dev_id`` (the GPU this rank uses: its rank on the node,
    modulo the visible GPUs; 0 on the CPU). ``device_type``,
    ``current_endpoint``, ``trainer_endpoints`` and ``nrings`` read Paddle's
    launcher variables as Paddle does (``PADDLE_XCCL_BACKEND``,
    ``PADDLE_CURRENT_ENDPOINT``, ``PADDLE_TRAINER_ENDPOINTS``,
    ``FLAGS_nccl_nrings``); under ``mpiexec`` they are empty, as MPI ranks have
    no TCP endpoints.

    >>> env = ParallelEnv()
    >>> (env.rank, env.world_size)
    (0, 1)
    """

    @property
    def rank(self) -> int:
        return get_rank()

    @property
    def world_size(self) -> int:
        return get_world_size()

    local_rank = rank
    nranks = world_size

    @property
    def device_id(self) -> int:
        local = _env_int("MPI_LOCALRANKID")
        if local is None:
            local = _env_int("OMPI_COMM_WORLD_LOCAL_RANK")
        if local is None:
            local = _env_int("FLAGS_selected_gpus")
        return 0 if local is None else local

    dev_id = device_id

    @property
    def device_type(self) -> str:
        return os.environ.get("PADDLE_XCCL_BACKEND", "")

    @property
    def current_endpoint(self) -> str:
        return os.environ.get("PADDLE_CURRENT_ENDPOINT", "")

    @property
    def trainer_endpoints(self) -> list:
        return os.environ.get("PADDLE_TRAINER_ENDPOINTS", "").split(",")

    @property
    def nrings(self) -> int:
        rings = _env_int("FLAGS_nccl_nrings")
        if rings is None:
            return 1
        if not 0 < rings < 9:
            raise ValueError(f"ParallelEnv: environment variable FLAGS_nccl_nrings expected 1 to 8, got {rings}")
        return rings

    def __repr__(self):
        return f"ParallelEnv(rank={self.rank}, world_size={self.world_size})"


# Launched as one of several ranks: a failure from here on ends the job, even one
# raised before the script starts MPI.
if _env_rank_and_size()[1] > 1:
    _install_abort_hook()

__all__ = ["init_parallel_env", "is_available", "is_initialized", "get_rank", "get_world_size", "ParallelEnv"]
