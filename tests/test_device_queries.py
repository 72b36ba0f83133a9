"""eager.is_compiled_with_* and eager.device's queries: the device types and
devices, and eager.device.cuda's memory (CuPy's memory pool) and properties.
With a GPU (real CuPy, or tests/fake_cupy.py standing in for it, two devices)
and without one (no device visible, or no CuPy at all), where the memory and
property queries raise ValueError as Paddle's CPU-only build does."""
import sys

import numpy as np
import pytest

import eager
from eager.device import cuda

GPU = eager.device.cuda.device_count() > 0


@pytest.fixture(params=["no cupy", "no device"])
def no_gpu(request, monkeypatch):
    """CuPy not importable at all (a CPU-only install), or CuPy seeing no device
    (the stand-in's count set to 0)."""
    if request.param == "no cupy":
        monkeypatch.setitem(sys.modules, "cupy", None)
    else:
        cupy = pytest.importorskip("cupy")
        if not getattr(cupy, "__fake__", False):
            pytest.skip("hiding a real GPU from CuPy is not possible in-process")
        monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", lambda: 0)
    yield
    assert eager.get_device() == "cpu"


def test_the_build_queries_without_cupy(no_gpu):
    assert eager.is_compiled_with_cuda() is False
    assert eager.device.is_compiled_with_cuda() is False
    assert eager.device.get_all_device_type() == ["cpu"]
    assert eager.device.get_available_device() == ["cpu"]
    assert eager.device.get_all_custom_device_type() == []
    assert eager.device.get_available_custom_device() == []
    assert eager.device.get_cudnn_version() is None
    # the common script line picks the CPU
    eager.set_device("gpu" if eager.is_compiled_with_cuda() else "cpu")
    assert eager.get_device() == "cpu"


@pytest.mark.parametrize("query", ["memory_allocated", "memory_reserved", "max_memory_allocated",
                                   "max_memory_reserved", "get_device_properties", "get_device_name",
                                   "get_device_capability"])
def test_gpu_queries_without_a_gpu_raise_as_paddle_cpu_only(no_gpu, query):
    with pytest.raises(ValueError, match=f"eager.device.cuda.{query}: no GPU is available"):
        getattr(cuda, query)()
    with pytest.raises(ValueError, match="no GPU is available"):
        getattr(cuda, query)(0)


def test_empty_cache_without_a_gpu_does_nothing(no_gpu):
    assert cuda.empty_cache() is None


def test_other_backends_are_never_there():
    for name in ("rocm", "xpu", "ipu", "cinn"):
        assert getattr(eager, f"is_compiled_with_{name}")() is False
        assert getattr(eager.device, f"is_compiled_with_{name}")() is False
    assert eager.is_compiled_with_custom_device("npu") is False
    with pytest.raises(TypeError, match="argument 'device_type' expected a str, got int"):
        eager.device.is_compiled_with_custom_device(1)


def test_distribute_follows_mpi4py(monkeypatch):
    try:
        import mpi4py  # noqa: F401
        have = True
    except ImportError:
        have = False
    assert eager.is_compiled_with_distribute() is have
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    assert eager.is_compiled_with_distribute() is False


needs_gpu = pytest.mark.skipif(not GPU, reason="no GPU, real or stand-in")


@needs_gpu
def test_the_build_queries_with_a_gpu():
    count = cuda.device_count()
    assert eager.is_compiled_with_cuda() is True
    assert eager.device.get_all_device_type() == ["cpu", "gpu"]
    assert eager.device.get_available_device() == ["cpu"] + [f"gpu:{i}" for i in range(count)]
    assert eager.device.get_available_custom_device() == []
    assert eager.device.get_cudnn_version() is None             # CuPy kernels, no cuDNN
    eager.set_device("gpu" if eager.is_compiled_with_cuda() else "cpu")
    try:
        assert eager.get_device() == "gpu:0"
    finally:
        eager.set_device("cpu")


@needs_gpu
def test_memory_follows_the_arrays_and_empty_cache_keeps_the_peak():
    import cupy
    pool = cupy.get_default_memory_pool()
    cuda.empty_cache()
    before = cuda.memory_allocated(0)
    assert before == pool.used_bytes()
    x = eager.to_tensor(np.ones(1 << 16, np.float32), place="gpu:0")   # 256 KiB
    grown = cuda.memory_allocated("gpu:0")
    assert grown - before >= x.size * 4
    assert cuda.memory_reserved(eager.CUDAPlace(0)) >= grown
    del x
    assert cuda.memory_allocated(0) <= grown - (1 << 18)
    reserved = cuda.memory_reserved(0)
    assert reserved >= grown  # the pool keeps the freed block
    cuda.empty_cache()
    assert cuda.memory_reserved(0) < reserved
    # the peaks remember the reserve before empty_cache gave it back
    assert cuda.max_memory_reserved(0) >= reserved
    assert cuda.max_memory_allocated(0) >= grown
    assert isinstance(cuda.memory_allocated(), int)


@needs_gpu
def test_device_properties_name_and_capability():
    import cupy
    raw = cupy.cuda.runtime.getDeviceProperties(0)
    props = cuda.get_device_properties(0)
    assert props.name == raw["name"].decode() == cuda.get_device_name("gpu:0") == cuda.get_device_name()
    assert (props.major, props.minor) == cuda.get_device_capability(eager.CUDAPlace(0)) \
        == (raw["major"], raw["minor"])
    assert str(props.major) + str(props.minor) == cupy.cuda.Device(0).compute_capability
    assert props.total_memory == raw["totalGlobalMem"] and props.multi_processor_count == \
        raw["multiProcessorCount"]
    assert repr(props).startswith(f"_gpuDeviceProperties(name='{props.name}', major={props.major}")


@needs_gpu
@pytest.mark.parametrize("device, message", [
    (-1, "expected a non-negative id, got -1"),
    (99, "does not exist"),
    ("cpu", "expected a GPU, got 'cpu'"),
    (1.5, "expected an int id, 'gpu:N' or a CUDAPlace, got float"),
    (True, "got bool"),
])
def test_bad_devices(device, message):
    for query in (cuda.memory_allocated, cuda.get_device_properties, cuda.max_memory_reserved):
        with pytest.raises(ValueError, match=message):
            query(device)


def test_cuda_reexports_the_streams_api():
    """paddle.device.cuda re-exports Stream, Event, current_stream and
    stream_guard of paddle.device: the very same objects here."""
    for name in ("Stream", "Event", "current_stream", "stream_guard"):
        assert getattr(cuda, name) is getattr(eager.device, name)
        assert name in cuda.__all__


def test_cuda_public_names_are_its_all():
    """Paddle's __all__ of paddle.device.cuda, and no helper import (importlib,
    dataclass, annotations, GPUPlace, ...) among the module's public names."""
    assert sorted(cuda.__all__) == sorted([
        "Stream", "Event", "current_stream", "synchronize", "device_count", "empty_cache",
        "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
        "stream_guard", "get_device_properties", "get_device_name", "get_device_capability"])
    public = {name for name in vars(cuda) if not name.startswith("_")}
    assert public == set(cuda.__all__)
    assert all(callable(getattr(cuda, name)) for name in cuda.__all__)
