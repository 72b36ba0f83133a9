"""NCCL through CuPy: the collectives of GPU tensors, on the device.

When a collective's tensors are on a GPU and CuPy has NCCL
(``cupy.cuda.nccl``), :mod:`~eager.distributed.collective` and DataParallel's
buckets call the functions here instead of staging the data through the host:

- one NCCL communicator per (group, GPU), made on the group's first NCCL
  collective: rank 0 of the group makes the unique id, the group's MPI
  communicator shares it, every member joins with its group rank on the
  tensor's device. Destroying the group destroys its communicators. NCCL
  needs one GPU per rank: where ranks of a group share one (same host and PCI
  bus id), the group's GPU collectives take the host path, with a warning.
- each call is queued on the current CuPy stream, so the kernels that follow
  on that stream see the result without the host waiting (``sync_op`` makes
  no difference: the returned task is complete, as the stream orders the rest).
- reductions: SUM, MAX, MIN, PROD as NCCL's; AVG as a sum then a division on
  the device. bool tensors travel as uint8 (SUM and MAX: logical or; MIN and
  PROD: logical and), complex ones as pairs of floats for SUM and AVG.
  broadcast and all_gather move bytes, so any dtype goes.

What NCCL cannot do here goes the host way (copied out, communicated over
MPI, copied back): int16/uint16 reductions and PROD of complex tensors (NCCL
has neither type nor op), tensors mixed across places, scatter, alltoall,
send/recv and the object collectives. ``EAGER_DISTRIBUTED_NCCL=0`` turns the
NCCL path off (set it on every rank alike: ranks that disagree on the path
wait for each other forever, as with any mismatched collective).
"""
from __future__ import annotations

import importlib
import os
import socket
import threading
import warnings

import numpy as np

from phi import api as phi_api
from phi.backends.gpu_context import import_cupy
from phi.core import DenseTensor

_LOCK = threading.Lock()
_COMMUNICATORS: dict = {}  # (group id, device id) -> NcclCommunicator
_MODULE: list = []  # [cupy.cuda.nccl or None], looked up once
_SUM, _MAX, _MIN, _PROD, _AVG = range(5)  # eager.distributed.ReduceOp's values
# numpy dtype -> the name of NCCL's type; bool and complex travel as these.
_TYPE_NAMES = {np.dtype(np.int8): "NCCL_INT8", np.dtype(np.uint8): "NCCL_UINT8",
               np.dtype(np.int32): "NCCL_INT32", np.dtype(np.uint32): "NCCL_UINT32",
               np.dtype(np.int64): "NCCL_INT64", np.dtype(np.uint64): "NCCL_UINT64",
               np.dtype(np.float16): "NCCL_FLOAT16", np.dtype(np.float32): "NCCL_FLOAT32",
               np.dtype(np.float64): "NCCL_FLOAT64"}
_AS = {np.dtype(np.bool_): np.dtype(np.uint8), np.dtype(np.complex64): np.dtype(np.float32),
       np.dtype(np.complex128): np.dtype(np.float64)}
# Indexed by ReduceOp (SUM, MAX, MIN, PROD, AVG); AVG sums, then divides.
_OP_NAMES = ("NCCL_SUM", "NCCL_MAX", "NCCL_MIN", "NCCL_PROD", "NCCL_SUM")
_BOOL_OP_NAMES = ("NCCL_MAX", "NCCL_MAX", "NCCL_MIN", "NCCL_MIN", "NCCL_MAX")  # or, or, and, and


def nccl_module():
    """``cupy.cuda.nccl`` when CuPy has a usable NCCL, else None (looked up once)."""
    if not _MODULE:
        module = None
        try:
            cupy = import_cupy()
            module = getattr(cupy.cuda, "nccl", None) or importlib.import_module("cupy.cuda.nccl")
        except ImportError:
            module = None
        if module is not None and not getattr(module, "available", True):
            module = None
        _MODULE.append(module)
    return _MODULE[0]


def usable(group, *tensors) -> bool:
    """Whether a collective of ``group`` over these tensors goes through NCCL:
    all on one GPU, NCCL present, not switched off by
    ``EAGER_DISTRIBUTED_NCCL=0``, and the group's ranks on distinct GPUs (the
    first call for a group and GPU makes its communicator: a collective call)."""
    place = tensors[0].place
    if not place.is_gpu_place() or any(t.place != place for t in tensors[1:]):
        return False
    if os.environ.get("EAGER_DISTRIBUTED_NCCL", "1") in ("0", ""):
        return False
    return nccl_module() is not None and communicator(group, place.device_id) is not None


def reduction(op: int, dtype: np.dtype):
    """(NCCL type, elements per element, NCCL op) of a reduction of ``dtype``
    with ReduceOp ``op``, or None where NCCL cannot do it."""
    nccl = nccl_module()
    dtype = np.dtype(dtype)
    wire = _AS.get(dtype, dtype)
    name = _TYPE_NAMES.get(wire)
    if name is None or (dtype.kind == "c" and op not in (_SUM, _AVG)):
        return None
    op_name = (_BOOL_OP_NAMES if dtype.kind == "b" else _OP_NAMES)[op]
    return getattr(nccl, name), 2 if dtype.kind == "c" else 1, getattr(nccl, op_name)


def _gpu_name(device_id: int) -> tuple:
    """(host, PCI bus id) of a GPU: what tells two ranks' GPUs apart."""
    device = import_cupy().cuda.Device(device_id)
    return socket.gethostname(), getattr(device, "pci_bus_id", f"device {device_id}")


def communicator(group, device_id: int):
    """The NCCL communicator of ``group`` on GPU ``device_id``, made on first use
    (a collective call: every member of the group must be making it); None when
    ranks of the group share a GPU, which NCCL refuses."""
    key = (group.id, device_id)
    if key not in _COMMUNICATORS:
        with _LOCK:
            if key not in _COMMUNICATORS:
                nccl = nccl_module()
                unique_id = nccl.get_unique_id() if group.rank == 0 else None
                every = group.process_group.allgather((_gpu_name(device_id), unique_id))
                gpus = [gpu for gpu, _ in every]
                if len(set(gpus)) < len(gpus):
                    warnings.warn(f"eager.distributed: ranks of group {group.id} share a GPU ({gpus}); NCCL "
                                  f"needs one GPU per rank, so their GPU collectives go through the host",
                                  RuntimeWarning, stacklevel=3)
                    comm = None
                else:
                    with import_cupy().cuda.Device(device_id):
                        comm = nccl.NcclCommunicator(group.world_size, every[0][1], group.rank)
                _COMMUNICATORS[key] = comm
    return _COMMUNICATORS[key]


def forget(group_id: int) -> None:
    """Destroys the NCCL communicators of a group (``destroy_process_group``)."""
    with _LOCK:
        for key in [k for k in _COMMUNICATORS if k[0] == group_id]:
            comm = _COMMUNICATORS.pop(key)
            if comm is not None:
                comm.destroy()


def _stream() -> int:
    return import_cupy().cuda.get_current_stream().ptr


def _buffer(tensor):
    """(array, staged): the tensor's device array, or a contiguous copy to write back."""
    array = tensor.impl.array
    if array.flags.c_contiguous:
        return array, False
    return import_cupy().ascontiguousarray(array), True


def store(tensor, array) -> None:
    """Writes a device array of ``tensor``'s shape and dtype into its buffer (version bumped)."""
    phi_api.assign_out_(DenseTensor(array), tensor.impl)


def _finish(tensor, array, staged) -> None:
    """Writes a staged copy back (bumping the version), or bumps the version."""
    if staged:
        store(tensor, array)
    else:
        tensor.impl.bump_version()


def all_reduce_array(array, op: int, group, plan, device_id: int) -> None:
    """NCCL all-reduce of a contiguous device array, in place (AVG divided)."""
    kind, factor, nccl_op = plan
    with import_cupy().cuda.Device(device_id):
        pointer = array.data.ptr
        communicator(group, device_id).allReduce(pointer, pointer, array.size * factor, kind, nccl_op, _stream())
        if op == _AVG:
            array /= group.world_size


def all_reduce(tensor, op: int, group, plan) -> None:
    """``tensor`` combined across ``group`` with ReduceOp ``op``, in place."""
    array, staged = _buffer(tensor)
    all_reduce_array(array, op, group, plan, tensor.place.device_id)
    _finish(tensor, array, staged)


def broadcast(tensor, root: int, group) -> None:
    """Group rank ``root``'s ``tensor`` into every member's, as bytes."""
    nccl = nccl_module()
    device_id = tensor.place.device_id
    array, staged = _buffer(tensor)
    with import_cupy().cuda.Device(device_id):
        communicator(group, device_id).bcast(array.data.ptr, array.nbytes, nccl.NCCL_UINT8, root, _stream())
    if group.rank != root:
        _finish(tensor, array, staged)


def reduce(tensor, root: int, op: int, group, plan) -> None:
    """``tensor`` combined across ``group`` into group rank ``root``'s tensor."""
    kind, factor, nccl_op = plan
    device_id = tensor.place.device_id
    array, staged = _buffer(tensor)
    with import_cupy().cuda.Device(device_id):
        pointer = array.data.ptr
        communicator(group, device_id).reduce(pointer, pointer, array.size * factor, kind, nccl_op, root,
                                              _stream())
        if group.rank == root and op == _AVG:
            array /= group.world_size
    if group.rank == root:
        _finish(tensor, array, staged)


def all_gather_array(array, group, device_id: int):
    """Every member's device ``array`` (same shape and dtype on every member), in
    group rank order: a new device array of shape ``[nranks, *array.shape]``."""
    nccl, cupy = nccl_module(), import_cupy()
    with cupy.cuda.Device(device_id):
        send = cupy.ascontiguousarray(array).reshape(array.shape)  # as NumPy's, may make 0-d arrays 1-d
        receive = cupy.empty((group.world_size, *send.shape), send.dtype)
        communicator(group, device_id).allGather(send.data.ptr, receive.data.ptr, send.nbytes, nccl.NCCL_UINT8,
                                                 _stream())
    return receive


def all_gather(tensor, group):
    """Every member's ``tensor``, in group rank order: a new device array of
    shape ``[nranks, *tensor.shape]``."""
    return all_gather_array(tensor.impl.array, group, tensor.place.device_id)


def reduce_scatter(tensor, tensor_list, op: int, group, plan) -> None:
    """Part ``rank`` of ``tensor_list`` combined across ``group``, into ``tensor``."""
    kind, factor, nccl_op = plan
    cupy = import_cupy()
    device_id = tensor.place.device_id
    with cupy.cuda.Device(device_id):
        # A copy: ``tensor`` may be one of the parts.
        send = cupy.concatenate([t.impl.array.reshape(-1) for t in tensor_list])
        array, staged = _buffer(tensor)
        communicator(group, device_id).reduceScatter(send.data.ptr, array.data.ptr, array.size * factor, kind,
                                                     nccl_op, _stream())
        if op == _AVG:
            array /= group.world_size
    _finish(tensor, array, staged)


__all__: list = []
