"""Paddle's CPU barrier among processes (``paddle.distributed.gloo_init_parallel_env``,
``gloo_barrier``, ``gloo_release``), without Gloo.

Paddle uses these to synchronise CPU processes that have no collective
backend: ``rank_num`` processes agree on ``server_endpoint`` ("ip:port"), the
process of rank 0 serves there, and each ``gloo_barrier()`` returns in every
process once all of them have called it. Here rank 0 serves a small TCP
barrier (one thread per waiting rank, a reusable generation-counting barrier); the
others connect to it for each barrier, retrying while it starts. No tensors
travel: tensor collectives are eager.distributed's MPI ones.

>>> eager.distributed.gloo_init_parallel_env(0, 1, "127.0.0.1:0")   # one process: no waiting
>>> eager.distributed.gloo_barrier()
>>> eager.distributed.gloo_release()
"""
from __future__ import annotations

import numbers
import socket
import socketserver
import threading
import time

__all__ = ["gloo_barrier", "gloo_init_parallel_env", "gloo_release"]

_CONNECT_TIMEOUT_S = 120.0      # how long a rank waits for rank 0's server to come up
_BARRIER_TIMEOUT_S = 1800.0     # how long a barrier waits for the slowest rank
_ARRIVE, _PASS, _BROKEN = b"arrive\n", b"pass\n", b"broken\n"


class _Barrier:
    """A reusable barrier of ``parties`` threads whose passing does not depend on when a
    waiter wakes: threading.Barrier's waiters read its state on waking, so an abort()
    right after the barrier tripped (rank 0 passing and releasing the group before the
    other ranks' threads were scheduled) broke a barrier they had already passed."""

    def __init__(self, parties: int):
        self._condition = threading.Condition()
        self._parties, self._arrived, self._generation, self._broken = parties, 0, 0, False

    def wait(self, timeout: float) -> bool:
        """True once every party has arrived at this generation; False if the barrier was
        aborted or timed out first (which breaks it for every waiter, as threading's)."""
        with self._condition:
            if self._broken:
                return False
            generation = self._generation
            self._arrived += 1
            if self._arrived == self._parties:
                self._arrived, self._generation = 0, generation + 1
                self._condition.notify_all()
                return True
            self._condition.wait_for(lambda: self._generation != generation or self._broken, timeout)
            if self._generation != generation:
                return True
            self._broken = True
            self._condition.notify_all()
            return False

    def abort(self) -> None:
        """Breaks the barrier: present and later waiters return False."""
        with self._condition:
            self._broken = True
            self._condition.notify_all()


class _BarrierHandler(socketserver.StreamRequestHandler):
    """One rank's arrival: wait for the others, then tell it to pass."""

    def handle(self):
        if self.rfile.readline() != _ARRIVE:
            return
        self.wfile.write(_PASS if self.server.barrier.wait(_BARRIER_TIMEOUT_S) else _BROKEN)


class _BarrierServer(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = False      # server_close() waits until every rank passed has been told so

    def __init__(self, address, rank_num: int):
        super().__init__(address, _BarrierHandler)
        self.barrier = _Barrier(rank_num)


class _Context:
    """This process's place in the group: its rank, the group size, rank 0's address, and
    (in rank 0) the server."""

    def __init__(self, rank_id: int, rank_num: int, host: str, port: int):
        self.rank_id, self.rank_num, self.host, self.port = rank_id, rank_num, host, port
        self.server = None
        self.thread = None
        if rank_id == 0:
            self.server = _BarrierServer((host, port), rank_num)
            self.port = self.server.server_address[1]       # port 0 asks the system for a free one
            self.thread = threading.Thread(target=self.server.serve_forever, name="gloo barrier server",
                                           daemon=True)
            self.thread.start()

    def barrier(self) -> None:
        deadline = time.monotonic() + _CONNECT_TIMEOUT_S
        while True:
            try:
                connection = socket.create_connection((self.host, self.port), timeout=5.0)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"gloo_barrier: rank {self.rank_id} could not reach rank 0 at "
                                       f"{self.host}:{self.port} within {_CONNECT_TIMEOUT_S:.0f} s") from None
                time.sleep(0.05)
        with connection:
            connection.settimeout(None)
            connection.sendall(_ARRIVE)
            answer = connection.makefile("rb").readline()
        if answer != _PASS:
            raise RuntimeError(f"gloo_barrier: rank {self.rank_id}: the barrier was broken (rank 0 released the "
                               f"group, or a rank did not arrive within {_BARRIER_TIMEOUT_S:.0f} s)")

    def release(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.barrier.abort()     # a later barrier can never complete without rank 0
            self.server.server_close()
            self.thread.join()


_STATE = {"context": None}


def _parse_endpoint(endpoint) -> tuple:
    if not isinstance(endpoint, str):
        raise TypeError(f"gloo_init_parallel_env: argument 'server_endpoint' expected an 'ip:port' str, got "
                        f"{type(endpoint).__name__}")
    host, sep, port = endpoint.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"gloo_init_parallel_env: argument 'server_endpoint' expected 'ip:port', got "
                         f"{endpoint!r}")
    return host, int(port)


def gloo_init_parallel_env(rank_id: int, rank_num: int, server_endpoint: str) -> None:
    """Joins this process to a group of ``rank_num`` processes as rank ``rank_id``;
    rank 0 serves the group's barrier at ``server_endpoint`` ('ip:port'). Every
    process of the group calls it with the same ``rank_num`` and endpoint.
    """
    for name, value in (("rank_id", rank_id), ("rank_num", rank_num)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"gloo_init_parallel_env: argument '{name}' expected an int, got "
                            f"{type(value).__name__}")
    if rank_num < 1:
        raise ValueError(f"gloo_init_parallel_env: argument 'rank_num' expected an int >= 1, got {rank_num}")
    if not 0 <= rank_id < rank_num:
        raise ValueError(f"gloo_init_parallel_env: argument 'rank_id' expected an int in [0, {rank_num}), "
                         f"got {rank_id}")
    host, port = _parse_endpoint(server_endpoint)
    if _STATE["context"] is not None:
        raise RuntimeError("gloo_init_parallel_env: this process is already in a group; call gloo_release() "
                           "first")
    _STATE["context"] = _Context(int(rank_id), int(rank_num), host, port)


def _context(fn: str) -> _Context:
    context = _STATE["context"]
    if context is None:
        raise RuntimeError(f"{fn}: no group: call gloo_init_parallel_env(rank_id, rank_num, server_endpoint) "
                           f"first")
    return context


def gloo_barrier() -> None:
    """Returns once every process of the group has called it (the group of
    :func:`gloo_init_parallel_env`)."""
    _context("gloo_barrier").barrier()


def gloo_release() -> None:
    """Leaves the group; in rank 0 this stops the barrier server, so release
    after the group's last barrier."""
    context = _context("gloo_release")
    _STATE["context"] = None
    context.release()
