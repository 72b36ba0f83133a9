"""``eager.distributed.spawn``: run a function as N ranks of a new world, from Python.

Paddle starts its ranks with ``multiprocessing``; here the ranks must form an
MPI world, so :func:`spawn` starts them with MPI's own launcher:
``mpiexec -n N <this python> -c <bootstrap>``. That is the launcher every other
path of ``eager.distributed`` uses (``python -m eager.distributed.launch``,
tests), it works with the MPICH wheel on any machine, and each rank is an
ordinary ``COMM_WORLD`` member. (MPI's dynamic process management,
``MPI_Comm_spawn``, would make the parent a member of an inter-communicator
instead of a bystander and needs a process manager behind the parent; under a
plain ``python`` parent MPICH has none.)

How a call travels, through a private temporary folder:

- The parent pickles ``multiprocessing``'s preparation data (``sys.path``,
  ``sys.argv``, the working directory, the main script) and ``(func, args)``.
  ``func`` is pickled by reference (module and qualified name), ``args`` by
  value, as with ``multiprocessing``'s spawn start method.
- Each rank runs the bootstrap: it prepares itself as a ``multiprocessing``
  child does (the parent's main script is re-run as ``__mp_main__``, so code
  under ``if __name__ == "__main__":`` does not run again), loads ``func`` and
  ``args``, calls ``func(*args)`` and writes its return value to the folder.
- A rank that raises writes its rank and traceback to the folder, then the
  error ends the job (``eager.distributed``'s abort on an uncaught exception),
  so no rank hangs in a collective. The parent's :meth:`MultiprocessContext.join`
  raises :class:`SpawnError` naming the rank, with its traceback.

The ranks' output goes to the parent's stdout and stderr as they print it.
"""
from __future__ import annotations

import atexit
import multiprocessing.process
import multiprocessing.spawn
import os
import pickle
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

from ..errors import ArgumentKindError
from . import env

_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the eager package
_BOOTSTRAP = ("import sys; sys.path.insert(0, sys.argv[2]); "
              "from eager.distributed.spawning import _child_main; _child_main(sys.argv[1])")
_START_METHODS = (None, "spawn", "forkserver")
_BACKENDS = (None, "auto", "mpi", "nccl", "gloo", "bkcl", "xccl")
_LOCAL_IPS = (None, "", "127.0.0.1", "localhost")
# Paddle 1.x options that Paddle 2.x spawn accepts with a DeprecationWarning and ignores
_DEPRECATED_OPTIONS = ("selected_devices", "started_port", "cluster_node_ips", "node_ip", "use_paddlecloud")
# A launcher's variables must not leak into the mpiexec we start (a spawn from inside an MPI job).
_LAUNCHER_PREFIXES = ("PMI_", "PMIX_", "HYDRA_", "MPI_LOCAL", "MPIR_", "OMPI_", "PADDLE_TRAINER")


class SpawnError(RuntimeError):
    """A rank started by :func:`spawn` failed: ``rank`` is the first rank that
    reported an error (None if none could: a rank killed by a signal, or
    ``os._exit``), ``exit_code`` mpiexec's exit code, ``tracebacks`` each
    failing rank's traceback text, by rank."""

    def __init__(self, message: str, rank, exit_code: int, tracebacks: dict):
        super().__init__(message)
        self.rank = rank
        self.exit_code = exit_code
        self.tracebacks = tracebacks

    def __reduce__(self):
        return type(self), (str(self), self.rank, self.exit_code, self.tracebacks)


class MultiprocessContext:
    """The ranks started by :func:`spawn` (Paddle's ``MultiprocessContext``).

    ``processes`` holds the ``mpiexec`` process that runs them; ``join(timeout)``
    waits for them; ``return_queues[i]`` holds rank i's return value once
    ``join`` has returned True.

    >>> context = dist.spawn(train, nprocs=2, join=False)
    >>> while not context.join(timeout=1):
    ...     pass                                  # do something else meanwhile
    >>> context.return_queues[0].get()
    """

    def __init__(self, process: subprocess.Popen, folder: str, nprocs: int, daemon: bool):
        self.processes = [process]
        self.return_queues = [queue.Queue() for _ in range(nprocs)]
        self._folder = folder
        self._nprocs = nprocs
        self._daemon = daemon
        self._joined = False
        atexit.register(self._at_exit)

    def join(self, timeout=None) -> bool:
        """Waits up to ``timeout`` seconds (None: until done) for every rank. True
        when they all finished; False if they still run at the timeout; raises
        :class:`SpawnError` (naming the rank, with its traceback) if one failed."""
        if self._joined:
            return True
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or timeout < 0):
            raise ValueError(f"MultiprocessContext.join: argument 'timeout' expected None or a number of "
                             f"seconds >= 0, got {timeout!r}")
        process = self.processes[0]
        try:
            code = process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        except KeyboardInterrupt:
            self.terminate()
            raise
        self._joined = True
        try:
            self._collect(code)
        finally:
            shutil.rmtree(self._folder, ignore_errors=True)
        return True

    def terminate(self) -> None:
        """Stops every rank (and mpiexec) now; ``join`` then reports how they ended."""
        process = self.processes[0]
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)  # mpiexec leads a session of its own
            except ProcessLookupError:
                pass
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def _collect(self, code: int) -> None:
        folder = Path(self._folder)
        reports = {}
        for path in folder.glob("error_*"):
            rank = int(path.name.split("_")[1])
            reports[rank] = (path.stat().st_mtime, path.read_text())
        finished = [rank for rank in range(self._nprocs) if (folder / f"result_{rank}").exists()]
        if code == 0 and not reports and len(finished) == self._nprocs:
            for rank in range(self._nprocs):
                self.return_queues[rank].put(pickle.loads((folder / f"result_{rank}").read_bytes()))
            return
        order = sorted(reports, key=lambda rank: reports[rank][0])
        tracebacks = {rank: reports[rank][1] for rank in order}
        if order:
            first = order[0]
            parts = [f"spawn: rank {first} of {self._nprocs} failed (mpiexec exited with {code}); "
                     f"its traceback:\n\n{tracebacks[first]}"]
            parts += [f"rank {rank} also failed:\n\n{tracebacks[rank]}" for rank in order[1:]]
            raise SpawnError("\n".join(parts), first, code, tracebacks)
        silent = [rank for rank in range(self._nprocs) if rank not in finished]
        raise SpawnError(f"spawn: mpiexec exited with {code}; rank(s) {silent} of {self._nprocs} ended without "
                         f"finishing and reported no Python error (killed by a signal, os._exit, or MPI "
                         f"aborted them); their output above says more", None, code, {})

    def _at_exit(self) -> None:
        """At interpreter exit: daemonic ranks are stopped, the others waited for
        (what ``multiprocessing`` does with its children)."""
        if not self._joined:
            if self._daemon:
                self.terminate()
            else:
                self.processes[0].wait()
        shutil.rmtree(self._folder, ignore_errors=True)


def _nprocs(nprocs, gpus) -> int:
    if isinstance(nprocs, bool) or not isinstance(nprocs, int):
        raise TypeError(f"spawn: argument 'nprocs' expected an int, got {nprocs!r}")
    if nprocs == -1:
        if gpus is not None:
            return len(gpus)
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if nprocs < 1:
        raise ValueError(f"spawn: argument 'nprocs' expected a positive number of ranks or -1 (one per "
                         f"available CPU core), got {nprocs}")
    return nprocs


def _check_options(options: dict):
    """The GPU ids ``options`` names (None for all), after checking every option."""
    known = ("start_method", "gpus", "xpus", "ips", "backend", "print_config")
    for name in options:
        if name in _DEPRECATED_OPTIONS:
            # Paddle 2.x warns and ignores these Paddle 1.x options, so old scripts still start
            warnings.warn(f"spawn: option {name!r} is deprecated and ignored (as in Paddle); the options are "
                          f"{', '.join(known)}", DeprecationWarning, stacklevel=3)
        elif name not in known:
            # also the ValueError Paddle raises for an option it does not know
            raise ArgumentKindError(f"spawn: got an unexpected option {name!r}; the options are "
                                    f"{', '.join(known)}")
    if options.get("start_method") not in _START_METHODS:
        method = options["start_method"]
        why = ("every rank is a new Python started by mpiexec, so nothing can be forked"
               if method == "fork" else "expected 'spawn' or 'forkserver'")
        raise ValueError(f"spawn: option start_method={method!r} is not supported: {why}")
    if options.get("xpus") is not None:
        raise ValueError("spawn: option 'xpus' is not supported: eager has no XPU backend")
    if options.get("ips") not in _LOCAL_IPS:
        raise ValueError(f"spawn: option ips={options['ips']!r}: spawn starts ranks on this machine only; "
                         f"for several hosts use python -m eager.distributed.launch --ips")
    if options.get("backend") not in _BACKENDS:
        raise ValueError(f"spawn: option backend={options['backend']!r}: expected one of {_BACKENDS} "
                         f"(all run over MPI)")
    if not isinstance(options.get("print_config", False), bool):
        raise TypeError(f"spawn: option 'print_config' expected a bool, got {options['print_config']!r}")
    gpus = options.get("gpus")
    if gpus is None:
        return None
    ids = [part.strip() for part in str(gpus).split(",")] if isinstance(gpus, str) else None
    if not ids or not all(part.isdigit() for part in ids):
        raise ValueError(f"spawn: option 'gpus' expected comma-separated GPU ids such as '0,1', got {gpus!r}")
    return ids


def _check_function(func) -> bytes:
    """``(func)`` pickled by reference, checking that each rank can import it."""
    if not callable(func):
        raise TypeError(f"spawn: argument 'func' expected a function, got {type(func).__name__}")
    qualname = getattr(func, "__qualname__", "")
    module = getattr(func, "__module__", None)
    if "<lambda>" in qualname or "<locals>" in qualname:
        raise TypeError(f"spawn: argument 'func' ({qualname}) must be defined at the top level of a module, "
                        f"so each rank can import it; lambdas and nested functions cannot be")
    if module == "__main__" and not getattr(sys.modules["__main__"], "__file__", None):
        raise TypeError(f"spawn: argument 'func' ({qualname}) is defined in an interactive session, which the "
                        f"ranks cannot import; put it in a module or a script")
    try:
        return pickle.dumps(func)
    except Exception as error:  # noqa: BLE001  (any pickling failure)
        raise TypeError(f"spawn: argument 'func' cannot be pickled by reference: {error}") from None


def _child_env(gpus) -> dict:
    child = {name: value for name, value in os.environ.items() if not name.startswith(_LAUNCHER_PREFIXES)}
    if gpus is not None:
        child["CUDA_VISIBLE_DEVICES"] = ",".join(gpus)
    return child


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options) -> MultiprocessContext:
    """Runs ``func(*args)`` in ``nprocs`` new processes, the ranks 0..nprocs-1 of
    one world (Paddle's ``paddle.distributed.spawn``). Each typically calls
    ``dist.init_parallel_env()`` and trains data parallel.

    ``func`` must be importable by the ranks (a top-level function of a module
    or of the script, under ``if __name__ == "__main__":`` guard for the call);
    ``args`` must be picklable. ``nprocs=-1`` starts one rank per available CPU
    core (per GPU of ``gpus`` when given). With ``join=True`` it returns when
    every rank has finished; with ``join=False`` at once, and the returned
    :class:`MultiprocessContext` joins them. A rank that raises ends every rank,
    and the join raises :class:`SpawnError` naming it, with its traceback.
    ``daemon=True`` stops unjoined ranks when this interpreter exits (else it
    waits for them). Options: ``start_method`` ('spawn' or 'forkserver', both
    mean a fresh interpreter per rank), ``gpus`` ('0,1': the GPUs the ranks
    share out), ``ips`` (this machine only), ``backend`` (Paddle's names, all
    MPI), ``print_config``.

    >>> import eager.distributed as dist
    >>> def train(scale):                       # at the top level of train.py
    ...     dist.init_parallel_env()
    ...     t = eager.to_tensor([float(dist.get_rank())]) * scale
    ...     dist.all_reduce(t)
    ...     return float(t)
    >>> if __name__ == "__main__":
    ...     context = dist.spawn(train, args=(2.0,), nprocs=2)
    ...     [q.get() for q in context.return_queues]
    [2.0, 2.0]
    """
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"spawn: argument 'args' expected a tuple of arguments for func, got "
                        f"{type(args).__name__}")
    for name, value in (("join", join), ("daemon", daemon)):
        if not isinstance(value, bool):
            raise TypeError(f"spawn: argument '{name}' expected a bool, got {value!r}")
    gpus = _check_options(options)
    count = _nprocs(nprocs, gpus)
    function = _check_function(func)
    try:
        arguments = pickle.dumps(tuple(args))
    except Exception as error:  # noqa: BLE001
        raise TypeError(f"spawn: argument 'args' cannot be pickled for the ranks: {error}") from None
    mpiexec = env.find_mpiexec()
    if mpiexec is None or not env.is_available():
        raise RuntimeError("spawn: starting ranks needs mpi4py and an mpiexec (beside this python or on PATH); "
                           "install them with `pip install eager-phi[distributed]`")
    preparation = multiprocessing.spawn.get_preparation_data("eager.distributed.spawn")
    preparation.pop("authkey", None)  # multiprocessing's secret: the ranks do not need it, no file gets it
    preparation = pickle.dumps(preparation)
    folder = tempfile.mkdtemp(prefix="eager-spawn-")
    Path(folder, "prepare.pkl").write_bytes(preparation)
    Path(folder, "function.pkl").write_bytes(function)
    Path(folder, "args.pkl").write_bytes(arguments)
    command = [mpiexec, "-n", str(count), sys.executable, "-c", _BOOTSTRAP, folder, _ROOT]
    if options.get("print_config"):
        print(f"eager.distributed.spawn: {count} ranks: {' '.join(command[:4])} ...", flush=True)
    sys.stdout.flush()
    sys.stderr.flush()
    process = subprocess.Popen(command, env=_child_env(gpus), start_new_session=True)
    context = MultiprocessContext(process, folder, count, daemon)
    if join:
        context.join()
    return context


def _write(path: Path, data: bytes) -> None:
    """Writes a file whole or not at all (the parent may look at any moment)."""
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def _child_main(folder: str) -> None:
    """One rank's life under :func:`spawn`: prepare, call, report."""
    rank = env._env_rank_and_size()[0]
    folder = Path(folder)
    try:
        preparation = pickle.loads((folder / "prepare.pkl").read_bytes())
        current = multiprocessing.process.current_process()
        current._inheriting = True  # an unguarded spawn() in the re-run main script raises, as in multiprocessing
        try:
            multiprocessing.spawn.prepare(preparation)
        finally:
            current._inheriting = False
        func = pickle.loads((folder / "function.pkl").read_bytes())
        args = pickle.loads((folder / "args.pkl").read_bytes())
        result = func(*args)
        try:
            payload = pickle.dumps(result)
        except Exception as error:  # noqa: BLE001
            raise TypeError(f"spawn: rank {rank}'s return value ({type(result).__name__}) cannot be pickled "
                            f"for the parent: {error}") from None
    except SystemExit as stop:
        if stop.code in (None, 0):
            _write(folder / f"result_{rank}", pickle.dumps(None))
            raise
        _write(folder / f"error_{rank}", f"SystemExit: rank {rank} exited with code {stop.code}\n".encode())
        comm = env.world_comm()
        if comm is not None and comm.Get_size() > 1:
            sys.stderr.flush()
            time.sleep(env.ABORT_REPORT_GRACE_S)
            comm.Abort(stop.code if isinstance(stop.code, int) else 1)
        raise
    except BaseException as error:  # noqa: BLE001  (reported, then re-raised: the job ends)
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        _write(folder / f"error_{rank}", text.encode())
        raise
    _write(folder / f"result_{rank}", payload)


__all__ = ["spawn", "MultiprocessContext"]
