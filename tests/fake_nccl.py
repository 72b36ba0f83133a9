"""A stand-in for ``cupy.cuda.nccl`` over mpi4py, for tests/fake_cupy.py's arrays.

tests/fake_cupy.py installs it (:func:`install`) as its ``cuda.nccl``, so the
NCCL path of eager.distributed runs under ``mpiexec`` in CI without a GPU. It
keeps NCCL's contract where a mistake would corrupt memory on a real GPU:

- collectives take raw addresses (``array.data.ptr``), element counts, NCCL
  type and op codes and a stream pointer, as CuPy's ``NcclCommunicator`` does;
  an address must be the start of a live device array (``install`` gives the
  fake arrays a ``data`` attribute with ``ptr``, as CuPy's MemoryPointer) and
  ``count`` elements of the type must fit in it: a wrong count is an error,
  not a silent overrun;
- a communicator is made by every member with the unique id of one of them
  (``get_unique_id``), its size and its rank, on the current device; each
  process's fake device is a GPU of its own (``Device.pci_bus_id`` differs).

It computes on the host arrays behind the fake device arrays, moving the bytes
over MPI (``COMM_WORLD`` for the rendezvous, then a sub-communicator of the
members). ``calls`` counts the collectives by name, so a test can tell that
the NCCL path ran and not the host one. mpi4py is imported on first use.
"""
from __future__ import annotations

import collections
import ctypes
import itertools
import os
import struct
import sys

import numpy

available = True
# NCCL's codes (nccl.h): types, then reduction ops.
NCCL_INT8 = NCCL_CHAR = 0
NCCL_UINT8 = 1
NCCL_INT32 = NCCL_INT = 2
NCCL_UINT32 = 3
NCCL_INT64 = 4
NCCL_UINT64 = 5
NCCL_FLOAT16 = NCCL_HALF = 6
NCCL_FLOAT32 = NCCL_FLOAT = 7
NCCL_FLOAT64 = NCCL_DOUBLE = 8
NCCL_SUM, NCCL_PROD, NCCL_MAX, NCCL_MIN = 0, 1, 2, 3
_TYPES = {NCCL_INT8: numpy.int8, NCCL_UINT8: numpy.uint8, NCCL_INT32: numpy.int32, NCCL_UINT32: numpy.uint32,
          NCCL_INT64: numpy.int64, NCCL_UINT64: numpy.uint64, NCCL_FLOAT16: numpy.float16,
          NCCL_FLOAT32: numpy.float32, NCCL_FLOAT64: numpy.float64}
_REDUCE = {NCCL_SUM: numpy.sum, NCCL_PROD: numpy.prod, NCCL_MAX: numpy.max, NCCL_MIN: numpy.min}
_RENDEZVOUS_TAG = 4100
calls: collections.Counter = collections.Counter()
_serial = itertools.count()


def install(fake_cupy) -> None:
    """Makes this module ``fake_cupy.cuda.nccl``."""
    fake_cupy.cuda.nccl = sys.modules[__name__]
    sys.modules.setdefault("cupy.cuda.nccl", sys.modules[__name__])
    # Each process's fake device memory is its own: a distinct GPU per process.
    fake_cupy.cuda.Device.pci_bus_id = property(lambda self: f"fake:{os.getpid()}:{self.id}")


def _mpi():
    from mpi4py import MPI  # noqa: PLC0415  (importing mpi4py starts MPI: only when a communicator is made)
    return MPI


def get_unique_id() -> bytes:
    """An id naming this rank (in COMM_WORLD) as the one the members meet at."""
    rank = _mpi().COMM_WORLD.Get_rank()
    return struct.pack("<iq", rank, next(_serial)) + os.urandom(116)


def _host(address: int, count: int, kind: int, what: str):
    """``count`` elements of NCCL type ``kind`` at a device array's address, as NumPy."""
    if kind not in _TYPES:
        raise ValueError(f"fake nccl: {what}: unknown NCCL type {kind}")
    dtype = numpy.dtype(_TYPES[kind])
    arrays = sys.modules["cupy"].pointed_arrays(address)
    if not arrays:
        raise ValueError(f"fake nccl: {what}: address {address:#x} is not that of a live device array")
    if not arrays[0]._a.flags.c_contiguous:
        raise ValueError("fake nccl: a non-contiguous array's address was taken; NCCL reads "
                         "count elements from it as if it were contiguous")
    nbytes, size = count * dtype.itemsize, arrays[0]._a.nbytes
    if nbytes > size:
        raise ValueError(f"fake nccl: {what}: {count} elements of {dtype} ({nbytes} bytes) overrun the "
                         f"{size}-byte array at {address:#x}")
    if count == 0:
        return numpy.empty(0, dtype)
    raw = (ctypes.c_uint8 * nbytes).from_address(address)
    return numpy.frombuffer(raw, numpy.uint8).view(dtype)


class NcclCommunicator:
    """``cupy.cuda.nccl.NcclCommunicator(ndev, commId, rank)`` over MPI."""

    def __init__(self, ndev, commId, rank):  # noqa: N803  (CuPy's argument names)
        fake_cupy = sys.modules["cupy"]
        self._device = fake_cupy.cuda.runtime.getDevice()
        self._rank, self._size = int(rank), int(ndev)
        if not 0 <= self._rank < self._size:
            raise ValueError(f"fake nccl: rank {rank} outside 0..{ndev - 1}")
        MPI = _mpi()
        world = MPI.COMM_WORLD
        host, serial = struct.unpack("<iq", bytes(commId)[:12])
        tag = _RENDEZVOUS_TAG + serial % 1000
        me = (bytes(commId), self._rank, world.Get_rank())
        if world.Get_rank() == host:
            members = {self._rank: me[2]}
            for _ in range(self._size - 1):
                their_id, their_rank, their_world = world.recv(source=MPI.ANY_SOURCE, tag=tag)
                if their_id != me[0] or their_rank in members:
                    raise RuntimeError("fake nccl: members joined with different ids or the same rank")
                members[their_rank] = their_world
            order = [members[r] for r in range(self._size)]
            for world_rank in order:
                if world_rank != host:
                    world.send(order, dest=world_rank, tag=tag)
        else:
            world.send(me, dest=host, tag=tag)
            order = world.recv(source=host, tag=tag)
        handle = world.Get_group().Incl(order)
        self._comm = world.Create_group(handle, tag)
        handle.Free()
        calls["init"] += 1

    # -- what CuPy's communicator answers ---------------------------------------------
    def device_id(self):
        return self._device

    def rank_id(self):
        return self._rank

    def size(self):
        return self._size

    def destroy(self):
        if self._comm is not None:
            self._comm.Free()
            self._comm = None
            calls["destroy"] += 1

    def _check(self, what, stream):
        if self._comm is None:
            raise RuntimeError(f"fake nccl: {what} on a destroyed communicator")
        if not isinstance(stream, int):
            raise TypeError(f"fake nccl: {what}: stream expected the stream's pointer (an int), got "
                            f"{type(stream).__name__}")
        if sys.modules["cupy"].cuda.runtime.getDevice() != self._device:
            raise RuntimeError(f"fake nccl: {what} called with device {sys.modules['cupy'].cuda.runtime.getDevice()} "
                               f"current; the communicator is on device {self._device}")
        calls[what] += 1

    def _every(self, send):
        """Every member's ``send``, stacked in rank order."""
        every = numpy.empty((self._size, send.size), send.dtype)
        self._comm.Allgather(send.view(numpy.uint8), every.view(numpy.uint8))
        return every

    # -- collectives ---------------------------------------------------------------
    def allReduce(self, sendbuf, recvbuf, count, datatype, op, stream):  # noqa: N802
        self._check("allReduce", stream)
        send = _host(sendbuf, count, datatype, "allReduce").copy()
        _host(recvbuf, count, datatype, "allReduce")[...] = _REDUCE[op](self._every(send), axis=0)

    def reduce(self, sendbuf, recvbuf, count, datatype, op, root, stream):
        self._check("reduce", stream)
        send = _host(sendbuf, count, datatype, "reduce").copy()
        every = self._every(send)
        if self._rank == root:
            _host(recvbuf, count, datatype, "reduce")[...] = _REDUCE[op](every, axis=0)

    def bcast(self, buff, count, datatype, root, stream):
        self._check("bcast", stream)
        self._comm.Bcast(_host(buff, count, datatype, "bcast").view(numpy.uint8), root=root)

    def broadcast(self, sendbuff, recvbuff, count, datatype, root, stream):
        self._check("broadcast", stream)
        data = _host(sendbuff if self._rank == root else recvbuff, count, datatype, "broadcast").copy()
        self._comm.Bcast(data.view(numpy.uint8), root=root)
        _host(recvbuff, count, datatype, "broadcast")[...] = data

    def allGather(self, sendbuf, recvbuf, count, datatype, stream):  # noqa: N802
        self._check("allGather", stream)
        send = _host(sendbuf, count, datatype, "allGather").copy()
        _host(recvbuf, count * self._size, datatype, "allGather")[...] = self._every(send).reshape(-1)

    def reduceScatter(self, sendbuf, recvbuf, recvcount, datatype, op, stream):  # noqa: N802
        self._check("reduceScatter", stream)
        send = _host(sendbuf, recvcount * self._size, datatype, "reduceScatter").copy()
        total = _REDUCE[op](self._every(send), axis=0)
        part = total[self._rank * recvcount:(self._rank + 1) * recvcount]
        _host(recvbuf, recvcount, datatype, "reduceScatter")[...] = part
