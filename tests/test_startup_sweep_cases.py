"""Regression cases from the differential sweep of the start-up and utility APIs a
Paddle script calls around its model (set/get_default_dtype, set/get_device,
is_compiled_with_*, device.cuda queries, flags, seeds, dlpack, unique_name,
deprecated, try_import, run_check, version, places, dtype objects, finfo/iinfo,
Tensor.to/cpu/pin_memory, no_grad), against Paddle 2.6's Python source, NumPy,
ml_dtypes and PyTorch.

Found and fixed:
- ``finfo(bfloat16)`` died in NumPy ("data type ... not inexact"): NumPy's finfo
  refuses ml_dtypes' bfloat16; it now uses ml_dtypes' finfo (eager/dtype_info.py).
- ``paddle.version`` did not exist (AttributeError), though scripts read
  ``paddle.version.full_version`` and test ``paddle.version.cuda() != 'False'``
  (eager/version.py).
- ``utils.dlpack.to_dlpack`` of a bfloat16 tensor died in NumPy (BufferError), and
  ``from_dlpack`` of a bfloat16 producer with NumPy's RuntimeError/BufferError; both
  are TypeErrors naming the function and argument (eager/utils/dlpack.py; a row in
  docs/dtypes.md: Paddle exports bfloat16 through DLPack).
- ``paddle.get_cudnn_version`` was missing at top level (eager/api.py).
- ``paddle.utils.flatten``/``pack_sequence_as``/``map_structure`` (Paddle's nest helpers,
  exported from paddle/utils/__init__.py) were missing (eager/utils/layers_utils.py).
- ``to_tensor(data, place='gpu')`` without CuPy raised ImportError where ``set_device('gpu')``,
  ``Tensor.to('gpu')`` and Paddle's CPU build raise ValueError (eager/creation.py).
"""
import sys
from collections import namedtuple

import ml_dtypes
import numpy as np
import pytest

import eager
from eager.utils import dlpack


@pytest.mark.parametrize("name", ["bfloat16", "float16", "float32", "float64"])
def test_finfo_of_every_floating_dtype_matches_ml_dtypes(name):
    reference = ml_dtypes.finfo(ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name))
    info = eager.finfo(name)
    assert (info.bits, info.dtype) == (reference.bits, name)
    for field in ("min", "max", "eps", "tiny", "smallest_normal"):
        assert getattr(info, field) == float(getattr(reference, field)), field
    assert info.resolution == 10.0 ** -reference.precision


def test_finfo_bfloat16_has_paddles_repr_numbers():
    # Paddle's bfloat16: eps 2**-7, 8 exponent bits as float32, 2 decimal digits
    assert repr(eager.finfo(eager.bfloat16)) == (
        "paddle.finfo(min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, resolution=0.01, "
        "smallest_normal=1.17549e-38, tiny=1.17549e-38, bits=16, dtype=bfloat16)")


def test_version_module_has_paddles_fields(monkeypatch, capsys):
    version = eager.version
    assert version.full_version == eager.__version__
    assert ".".join([version.major, version.minor, version.patch]) == eager.__version__
    assert version.rc == "0" and version.istaged is True
    assert version.cudnn() == version.cudnn_version == "False"
    assert version.xpu() == version.xpu_xccl() == version.cinn() == "False"
    monkeypatch.setattr(version, "gpu_count", lambda: 0)
    assert version.cuda() == version.cuda_version == "False"  # a CPU-only Paddle's text
    version.show()
    shown = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in shown] == [
        "full_version", "major", "minor", "patch", "rc", "cuda", "cudnn", "xpu", "xpu_xccl", "cinn"]
    assert shown[0] == f"full_version: {eager.__version__}" and shown[5] == "cuda: False"


def test_version_cuda_is_the_runtime_version_with_a_gpu():
    cupy = pytest.importorskip("cupy")
    if eager.device.cuda.device_count() == 0:
        pytest.skip("no GPU (real or stand-in)")
    number = int(cupy.cuda.runtime.runtimeGetVersion())
    assert eager.version.cuda() == f"{number // 1000}.{number % 1000 // 10}"


def test_to_dlpack_of_bfloat16_is_a_clear_type_error():
    x = eager.to_tensor([1.5, -2.0]).astype("bfloat16")
    before = x.astype("float32").numpy().copy()
    with pytest.raises(TypeError, match="to_dlpack: argument 'x' has dtype bfloat16"):
        dlpack.to_dlpack(x)
    assert x.dtype == eager.bfloat16 and np.array_equal(x.astype("float32").numpy(), before)


def test_from_dlpack_of_a_bfloat16_producer_is_a_clear_type_error():
    source = np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16)
    with pytest.raises(TypeError, match="from_dlpack: argument 'dlpack' holds a dtype NumPy cannot import"):
        dlpack.from_dlpack(source)
    assert source.astype(np.float32).tolist() == [1.5, -2.0]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                                   "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (0,), (3,), (1, 4, 1)])
def test_dlpack_round_trips_with_numpy_keep_dtype_shape_and_values(dtype, shape):
    array = np.asarray(np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) * 1.5 - 2).astype(dtype)
    back = dlpack.from_dlpack(dlpack.to_dlpack(eager.to_tensor(array)))
    assert back.dtype == eager.to_tensor(array).dtype and back.shape == list(shape)
    assert np.array_equal(back.numpy(), array)
    assert np.array_equal(np.from_dlpack(dlpack.from_dlpack(array).numpy()), array)


def test_get_cudnn_version_is_exported_at_top_level():
    assert eager.get_cudnn_version is eager.device.get_cudnn_version
    assert eager.get_cudnn_version() is None  # eager's kernels never call cuDNN


def _reference_flatten(value):
    # hand-written: dict values by sorted key, lists/tuples in order, anything else a leaf
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _reference_flatten(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _reference_flatten(item)]
    return [value]


def test_nest_helpers_flatten_pack_and_map_as_paddles():
    pair = namedtuple("pair", "a b")
    nest = {"z": [1, (2, "s")], "a": pair(3, {"k": [4]}), "m": 5}
    flat = eager.utils.flatten(nest)
    assert flat == _reference_flatten(nest) == [3, 4, 5, 1, 2, "s"]
    assert eager.utils.flatten("leaf") == ["leaf"] and eager.utils.flatten(None) == [None]
    packed = eager.utils.pack_sequence_as(nest, [10 * i for i in range(6)])
    assert packed == {"z": [30, (40, 50)], "a": pair(0, {"k": [10]}), "m": 20}
    assert list(packed) == ["z", "a", "m"] and type(packed["a"]) is pair
    tensors = eager.utils.map_structure(lambda x, y: x + y, [eager.to_tensor(1.0), (2,)], [eager.to_tensor(3.0), (4,)])
    assert float(tensors[0]) == 4.0 and tensors[1] == (6,)


def test_nest_helpers_refuse_mismatched_structures():
    with pytest.raises(ValueError, match="pack_sequence_as: the structure has 2 elements, but 'flat_sequence' has 3"):
        eager.utils.pack_sequence_as([0, (0,)], [1, 2, 3])
    with pytest.raises(TypeError, match="pack_sequence_as: argument 'flat_sequence' expected a sequence"):
        eager.utils.pack_sequence_as([0], 1)
    with pytest.raises(ValueError, match="map_structure: the structures have different numbers of elements"):
        eager.utils.map_structure(lambda a, b: a, [1], [1, 2])
    with pytest.raises(TypeError, match="flatten: a dict in the structure has keys that cannot be sorted"):
        eager.utils.flatten({1: 0, "a": 0})


@pytest.mark.parametrize("place", ["gpu", "gpu:1", eager.CUDAPlace(0)])
def test_to_tensor_on_a_gpu_place_without_cupy_is_a_value_error(monkeypatch, place):
    # Paddle's CPU build: ValueError ("not compiled with CUDA"), as set_device('gpu') here
    monkeypatch.setitem(sys.modules, "cupy", None)  # CuPy not installed (the suite has a stand-in)
    data = [1.0, 2.0]
    with pytest.raises(ValueError, match="to_tensor: device .* is a GPU, but no GPU is available"):
        eager.to_tensor(data, place=place)
    assert data == [1.0, 2.0] and eager.get_device() == "cpu"
