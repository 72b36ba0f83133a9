"""``eager.device.cuda``: Paddle's ``paddle.device.cuda``: how many GPUs, waiting for
one, their memory (CuPy's default memory pool) and their properties.

Memory is counted by CuPy's memory pool, which eager's GPU arrays come from:
``memory_allocated`` is what live arrays use, ``memory_reserved`` what the pool
holds (it keeps freed blocks for reuse until ``empty_cache``). CuPy keeps no
peaks: ``max_memory_reserved`` is the largest reserve seen (the pool only grows,
except in ``empty_cache``, which records it first), and ``max_memory_allocated``
is that same figure, an upper bound of the peak allocation (the pool grew to
serve it). Without a usable GPU these raise ValueError, as Paddle's CPU-only
build does; ``empty_cache`` then does nothing. ``Stream``, ``Event``,
``current_stream`` and ``stream_guard`` are eager.device's own, re-exported as
Paddle's ``paddle.device.cuda`` does.

>>> eager.device.cuda.device_count() >= 0
True
"""
import importlib as _importlib
from dataclasses import dataclass as _dataclass

from phi.common import GPUPlace as _GPUPlace

from ..framework import current_place as _current_place, gpu_count as _gpu_count, parse_device as _parse_device
from .streams import Event, Stream, current_stream, stream_guard

# Paddle's paddle.device.cuda re-exports the streams API of paddle.device (the
# same objects); the imports above are private so they are not public names.
__all__ = ["Event", "Stream", "current_stream", "device_count", "empty_cache", "get_device_capability",
           "get_device_name", "get_device_properties", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "stream_guard", "synchronize"]

# device id -> the largest memory_reserved seen (see the module doc)
_PEAK_RESERVED: dict = {}


def device_count() -> int:
    """How many GPUs are visible: 0 without CuPy or without a usable driver.

    >>> eager.device.cuda.device_count() >= 0
    True
    """
    return _gpu_count()


def synchronize(device=None) -> None:
    """Waits until every kernel queued on GPU ``device`` (an int id, 'gpu:N' or a
    GPUPlace; None: the default device if it is a GPU, else GPU 0) has finished.
    A device that does not exist is a ValueError."""
    if device is None:
        default = _current_place()
        place = default if default.is_gpu_place() else _parse_device("synchronize", "gpu")
    elif isinstance(device, int) and not isinstance(device, bool):
        if device < 0:
            raise ValueError(f"synchronize: argument 'device' expected a non-negative id, got {device}")
        place = _parse_device("synchronize", _GPUPlace(device))
    else:
        place = _parse_device("synchronize", device)
        if not place.is_gpu_place():
            raise ValueError(f"synchronize: argument 'device' expected a GPU, got {device!r}")
    _importlib.import_module("cupy").cuda.Device(place.device_id).synchronize()


def _gpu_id(op: str, device) -> int:
    """The id of GPU ``device`` (None: the default device if it is a GPU, else GPU
    0; an int id, 'gpu:N' or a GPUPlace); ValueError naming ``op`` without a
    usable GPU (Paddle's CPU-only message) or for a device that is not one."""
    if _gpu_count() == 0:
        raise ValueError(f"eager.device.cuda.{op}: no GPU is available (it needs CuPy and a visible NVIDIA "
                         f"device; eager.is_compiled_with_cuda() is False), as Paddle's CPU-only build "
                         f"does not support this API")
    if device is None:
        default = _current_place()
        return default.device_id if default.is_gpu_place() else 0
    if isinstance(device, bool) or not isinstance(device, (int, str, _GPUPlace)):
        raise ValueError(f"eager.device.cuda.{op}: argument 'device' expected an int id, 'gpu:N' or a "
                         f"CUDAPlace, got {type(device).__name__}")
    if isinstance(device, int):
        if device < 0:
            raise ValueError(f"eager.device.cuda.{op}: argument 'device' expected a non-negative id, got "
                             f"{device}")
        device = _GPUPlace(device)
    place = _parse_device(f"eager.device.cuda.{op}", device)
    if not place.is_gpu_place():
        raise ValueError(f"eager.device.cuda.{op}: argument 'device' expected a GPU, got {device!r}")
    return place.device_id


def _pool_bytes(op: str, device, which: str) -> int:
    """The default memory pool's ``which`` ('used_bytes' or 'total_bytes') on the GPU."""
    device_id = _gpu_id(op, device)
    cupy = _importlib.import_module("cupy")
    with cupy.cuda.Device(device_id):
        value = int(getattr(cupy.get_default_memory_pool(), which)())
    if which == "total_bytes":
        _PEAK_RESERVED[device_id] = max(_PEAK_RESERVED.get(device_id, 0), value)
    return value


def memory_allocated(device=None) -> int:
    """Bytes of GPU memory the live arrays on ``device`` use (CuPy's pool rounds
    each up to 512 bytes; Paddle's allocator to 256).

    >>> eager.device.cuda.memory_allocated()  # doctest: +SKIP
    0
    """
    return _pool_bytes("memory_allocated", device, "used_bytes")


def memory_reserved(device=None) -> int:
    """Bytes of GPU memory the pool on ``device`` holds: in use plus cached for reuse."""
    return _pool_bytes("memory_reserved", device, "total_bytes")


def max_memory_reserved(device=None) -> int:
    """The largest ``memory_reserved`` of ``device`` so far (see the module doc)."""
    _pool_bytes("max_memory_reserved", device, "total_bytes")
    return _PEAK_RESERVED[_gpu_id("max_memory_reserved", device)]


def max_memory_allocated(device=None) -> int:
    """An upper bound of the peak ``memory_allocated`` of ``device``: the largest
    reserve so far (CuPy keeps no peak of its own; see the module doc)."""
    _pool_bytes("max_memory_allocated", device, "total_bytes")
    return _PEAK_RESERVED[_gpu_id("max_memory_allocated", device)]


def empty_cache() -> None:
    """Gives the memory the pool caches but no array uses back to the driver, on
    every GPU (nothing without a GPU, as Paddle). Arrays in use stay."""
    count = _gpu_count()
    if count == 0:
        return
    cupy = _importlib.import_module("cupy")
    pool = cupy.get_default_memory_pool()
    for device_id in range(count):
        with cupy.cuda.Device(device_id):
            _PEAK_RESERVED[device_id] = max(_PEAK_RESERVED.get(device_id, 0), int(pool.total_bytes()))
            pool.free_all_blocks()


@_dataclass(frozen=True)
class _gpuDeviceProperties:  # noqa: N801  (Paddle's name)
    """What Paddle's ``get_device_properties`` gives: the name, the compute
    capability, the global memory in bytes and the number of multiprocessors."""

    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int

    def __repr__(self):
        return (f"_gpuDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None) -> _gpuDeviceProperties:
    """The properties of GPU ``device`` (None: the default device if it is a GPU,
    else GPU 0), from cudaGetDeviceProperties.

    >>> eager.device.cuda.get_device_properties(0)  # doctest: +SKIP
    _gpuDeviceProperties(name='NVIDIA H100 80GB HBM3', major=9, minor=0, total_memory=81008MB, ...)
    """
    return _properties("get_device_properties", device)


def _properties(op: str, device) -> _gpuDeviceProperties:
    device_id = _gpu_id(op, device)
    props = _importlib.import_module("cupy").cuda.runtime.getDeviceProperties(device_id)
    name = props["name"]
    return _gpuDeviceProperties(name=name.decode() if isinstance(name, bytes) else str(name),
                                major=int(props["major"]), minor=int(props["minor"]),
                                total_memory=int(props["totalGlobalMem"]),
                                multi_processor_count=int(props["multiProcessorCount"]))


def get_device_name(device=None) -> str:
    """The name of GPU ``device`` (e.g. 'NVIDIA H100 80GB HBM3')."""
    return _properties("get_device_name", device).name


def get_device_capability(device=None) -> tuple:
    """(major, minor): the compute capability of GPU ``device`` (e.g. (8, 0) on an A100)."""
    props = _properties("get_device_capability", device)
    return props.major, props.minor
