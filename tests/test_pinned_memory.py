"""Pinned (page-locked) host memory: CUDAPinnedPlace, to_tensor(place=...),
Tensor.pin_memory(), and the copies between pinned memory, the CPU and a GPU.

A pinned tensor holds a NumPy array over memory CuPy allocated pinned
(``cupyx.empty_pinned``); its place is ``Place(gpu_pinned)``. The tests that
need CuPy say gpu in their names, so benchmarks/gpu_check.sh runs them on a
real GPU; here they run on tests/fake_cupy.py. Those taking the ``device``
fixture run twice, with the CPU and with the GPU as the default place.
"""
from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

import eager
import phi.api as phi_api
from eager.autograd.gradient_check import gradcheck
from phi.common import CPUPlace, CUDAPinnedPlace, GPUPlace, convert_place
from phi.core import DenseTensor
from phi.core.dense_tensor import is_pinned_array

PINNED = CUDAPinnedPlace()


def _cupy():
    return importlib.import_module("cupy")


def _fake_counter(name):
    """A counter of the CuPy stand-in (None on real CuPy, which keeps none)."""
    cupy = _cupy()
    return getattr(cupy, name)[0] if getattr(cupy, "__fake__", False) else None


def _in_pinned_memory(array) -> bool:
    """Independently of phi: the array's chain of bases ends in a CuPy pinned buffer."""
    base = array
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base, _cupy().cuda.PinnedMemoryPointer)


# -- the place ------------------------------------------------------------------------

def test_pinned_place_prints_compares_and_hashes_as_paddles():
    assert repr(PINNED) == str(PINNED) == "Place(gpu_pinned)"
    assert CUDAPinnedPlace() is PINNED and eager.CUDAPinnedPlace is CUDAPinnedPlace
    assert PINNED == CUDAPinnedPlace() and hash(PINNED) == hash(CUDAPinnedPlace())
    assert PINNED != CPUPlace() and PINNED != GPUPlace(0) and CPUPlace() != PINNED and GPUPlace(0) != PINNED
    assert len({PINNED, CUDAPinnedPlace(), CPUPlace(), GPUPlace(0)}) == 3
    for module in (eager.base, eager.base.core, eager.framework):
        assert module.CUDAPinnedPlace is CUDAPinnedPlace


@pytest.mark.parametrize("place, cpu, gpu, pinned", [
    (CPUPlace(), True, False, False), (GPUPlace(1), False, True, False), (CUDAPinnedPlace(), False, False, True),
])
def test_place_queries_and_equals(place, cpu, gpu, pinned):
    assert (place.is_cpu_place(), place.is_gpu_place(), place.is_cuda_pinned_place()) == (cpu, gpu, pinned)
    for other in (CPUPlace(), GPUPlace(1), GPUPlace(0), CUDAPinnedPlace()):
        assert place._equals(other) is (other == place)


@pytest.mark.parametrize("text", ["gpu_pinned", "GPU_PINNED", " gpu_pinned "])
def test_convert_place_reads_gpu_pinned(text):
    assert convert_place(text) is PINNED


def test_an_unknown_place_names_the_pinned_forms_too():
    with pytest.raises(ValueError, match=r"cannot interpret 'pinned' as a place; .*CUDAPinnedPlace\(\).*'gpu_pinned'"):
        convert_place("pinned")


# -- making pinned tensors --------------------------------------------------------------

@pytest.mark.parametrize("data, dtype, expected", [
    ([1.5, -2.0, 3.25], None, np.array([1.5, -2.0, 3.25], np.float32)),
    ([[1, 2], [3, 4]], None, np.array([[1, 2], [3, 4]], np.int64)),
    (np.arange(6.0).reshape(2, 3), None, np.arange(6.0).reshape(2, 3)),
    ([True, False], None, np.array([True, False])),
    (2.5, "float64", np.array(2.5)),
    (np.zeros((0, 3), np.float32), None, np.zeros((0, 3), np.float32)),
])
def test_to_tensor_in_pinned_memory_gpu(device, data, dtype, expected):
    if isinstance(data, np.ndarray):
        data = data.copy()  # this test writes into it, and runs on each device
    x = eager.to_tensor(data, dtype=dtype, place=eager.CUDAPinnedPlace())
    assert x.place == PINNED and x.place.is_cuda_pinned_place() and not x.place.is_cpu_place()
    assert x.shape == list(expected.shape) and x.dtype.numpy_dtype == expected.dtype
    np.testing.assert_array_equal(x.numpy(), expected)
    assert _in_pinned_memory(x.impl.array) and is_pinned_array(x.impl.array)
    assert x.stop_gradient and "place=Place(gpu_pinned)" in repr(x)
    if isinstance(data, np.ndarray) and data.size:  # a copy: the source stays its own
        data[...] = 7
        np.testing.assert_array_equal(x.numpy(), expected)


def test_to_tensor_reads_the_place_by_name_and_keeps_stop_gradient_gpu():
    x = eager.to_tensor([1.0, 2.0], dtype="float64", place="gpu_pinned", stop_gradient=False)
    assert x.place == PINNED and x.stop_gradient is False and x.is_leaf
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])


def test_pin_memory_copies_a_cpu_tensor_once_gpu(device):
    source = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    x = eager.to_tensor(source, place="cpu")
    before = _fake_counter("pinned_allocations")
    p = x.pin_memory()
    assert p is not x and p.place == PINNED and x.place == CPUPlace()
    assert p.impl.array is not x.impl.array and not np.shares_memory(p.numpy(), x.numpy())
    assert _in_pinned_memory(p.impl.array)
    np.testing.assert_array_equal(p.numpy(), source)
    if before is not None:
        assert _fake_counter("pinned_allocations") == before + 1
    x.numpy()[0, 0] = 9.0  # the copy does not follow its source
    assert p.numpy()[0, 0] == 1.0


def test_pin_memory_of_a_pinned_tensor_is_itself_gpu(device):
    p = eager.to_tensor([1.0, 2.0], place=PINNED)
    before = _fake_counter("pinned_allocations")
    assert p.pin_memory() is p and p.pin_memory(blocking=False) is p
    assert p.to(PINNED) is p and p.to(device=CUDAPinnedPlace(), blocking=True) is p
    if before is not None:
        assert _fake_counter("pinned_allocations") == before


def test_pin_memory_of_a_gpu_tensor_reads_it_back_straight_into_pinned_memory_gpu(device):
    values = np.array([0.5, -1.5, 2.5], np.float64)
    g = eager.to_tensor(values, place="gpu")
    transfers = _fake_counter("transfers")
    p = g.pin_memory()
    assert p.place == PINNED and g.place == GPUPlace(0) and _in_pinned_memory(p.impl.array)
    if transfers is not None:
        assert _fake_counter("transfers") == transfers + 1  # one device-to-host copy, no staging copy
    np.testing.assert_array_equal(p.numpy(), values)


def test_pin_memory_of_a_strided_gpu_view_gpu(device):
    g = eager.to_tensor(np.arange(12.0).reshape(3, 4), place="gpu")
    p = g.transpose([1, 0]).pin_memory()
    assert p.place == PINNED
    np.testing.assert_array_equal(p.numpy(), np.arange(12.0).reshape(3, 4).T)


# -- moving pinned tensors --------------------------------------------------------------

def test_pinned_tensors_move_to_a_gpu_and_back_to_the_cpu_gpu(device):
    values = np.array([1.0, 2.0, 4.0], np.float32)
    p = eager.to_tensor(values, place=PINNED)
    uploads = _fake_counter("uploads")
    g = p.cuda()
    assert g.place == GPUPlace(0) and type(g.impl.array).__module__.startswith("cupy")
    if uploads is not None:
        assert _fake_counter("uploads") == uploads + 1
    np.testing.assert_array_equal(g.numpy(), values)
    c = p.cpu()
    assert c.place == CPUPlace() and c is not p and not np.shares_memory(c.numpy(), p.numpy())
    np.testing.assert_array_equal(c.numpy(), values)
    assert p.to("gpu").place == GPUPlace(0) and p.to("cpu").place == CPUPlace()
    cast = p.to("cpu", "float64")
    assert cast.place == CPUPlace() and cast.dtype == eager.float64
    np.testing.assert_array_equal(cast.numpy(), values.astype(np.float64))
    # to(other) takes other's place: a pinned tensor as the model puts a copy in pinned memory
    moved = eager.to_tensor([3.0, 5.0]).to(p)
    assert moved.place == PINNED and moved.dtype == eager.float32
    assert eager.to_tensor([1.0], place="cpu").to(PINNED).place == PINNED


def test_a_pinned_tensor_moves_to_the_second_gpu_gpu():
    if _cupy().cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two GPUs (the fake CuPy has two)")
    p = eager.to_tensor([1.0, 2.0], place=PINNED)
    g1 = p.cuda(1)
    assert g1.place == GPUPlace(1)
    back = g1.pin_memory()
    assert back.place == PINNED
    np.testing.assert_array_equal(back.numpy(), [1.0, 2.0])


def test_layer_to_pinned_memory_keeps_each_parameter_gpu():
    net = eager.nn.Linear(3, 2)
    weight, bias = net.weight, net.bias
    expected = weight.numpy().copy()
    assert net.to(eager.CUDAPinnedPlace()) is net
    assert net.weight is weight and net.bias is bias
    assert weight.place == PINNED and bias.place == PINNED and _in_pinned_memory(weight.impl.array)
    np.testing.assert_array_equal(weight.numpy(), expected)
    net.to("cpu")
    assert weight.place == CPUPlace()
    np.testing.assert_array_equal(weight.numpy(), expected)


# -- computing with pinned tensors ------------------------------------------------------

def test_ops_on_pinned_tensors_run_on_the_host_gpu(device):
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    p = eager.to_tensor(a, place=PINNED)
    q = p * 2 + eager.to_tensor(np.ones((2, 2), np.float32), place="cpu")
    assert q.place == CPUPlace()  # a new buffer from a NumPy kernel: pageable memory
    np.testing.assert_array_equal(q.numpy(), a * 2 + 1)
    view = p.reshape([4])  # a view shares the pinned buffer, so it is pinned too
    assert view.place == PINNED and np.shares_memory(view.numpy(), p.numpy())
    p.scale_(3.0)  # in place: the buffer, and so the place, stay
    assert p.place == PINNED and _in_pinned_memory(p.impl.array)
    np.testing.assert_array_equal(p.numpy(), a * 3)
    np.testing.assert_array_equal(view.numpy(), (a * 3).reshape(4))


def test_a_pinned_tensor_beside_a_gpu_tensor_is_an_error_naming_both_places_gpu(device):
    p = eager.to_tensor([1.0, 2.0], place=PINNED)
    g = eager.to_tensor([1.0, 2.0], place="gpu")
    with pytest.raises(ValueError, match=r"add.*Place\(gpu_pinned\).*Place\(gpu:0\)|add.*Place\(gpu:0\).*Place\(gpu_pinned\)"):
        eager.add(p, g)
    np.testing.assert_array_equal(eager.add(p.cuda(), g).numpy(), [2.0, 4.0])


# -- autograd ---------------------------------------------------------------------------

def test_pin_memory_makes_a_leaf_that_keeps_stop_gradient_gpu(device):
    a = eager.to_tensor([0.5, -1.0, 2.0], dtype="float64", place="cpu", stop_gradient=False)
    x = a * 3  # not a leaf
    p = x.pin_memory()
    assert p.is_leaf and p.stop_gradient is False
    (p * p).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), 2 * np.array([1.5, -3.0, 6.0]), rtol=1e-15)
    assert a.grad is None  # as Paddle's _copy_to: no edge back to the source
    frozen = eager.to_tensor([1.0, 2.0], place="cpu").pin_memory()
    assert frozen.stop_gradient is True


def test_gradients_of_ops_on_a_pinned_leaf_match_finite_differences_gpu(device):
    p = eager.to_tensor(np.array([[0.3, -1.2], [2.0, 0.7]]), place=PINNED, stop_gradient=False)
    assert gradcheck(lambda t: (eager.tanh(t) * t).sum(axis=1), (p,))
    assert p.place == PINNED


# -- what refuses pinned memory -----------------------------------------------------------

@pytest.mark.parametrize("call, op", [
    (lambda: eager.set_device(CUDAPinnedPlace()), "set_device"),
    (lambda: eager.disable_static(CUDAPinnedPlace()), "disable_static"),
    (lambda: eager.base.dygraph.guard(CUDAPinnedPlace()).__enter__(), "guard"),
])
def test_the_default_place_cannot_be_pinned(device, call, op):
    before = eager.get_device()
    with pytest.raises(ValueError, match=rf"^{op}: argument 'device' cannot be CUDAPinnedPlace\(\).*pin_memory"):
        call()
    assert eager.get_device() == before


def test_set_device_does_not_read_gpu_pinned_as_paddle_does_not():
    with pytest.raises(ValueError, match="set_device: argument 'device' expected 'cpu', 'gpu' or 'gpu:N'"):
        eager.set_device("gpu_pinned")


@pytest.mark.parametrize("make", [
    lambda place: eager.zeros([2], place=place), lambda place: eager.full([2], 1.0, place=place),
    lambda place: eager.randn([2], place=place),
])
def test_creation_ops_refuse_a_pinned_place(make):
    with pytest.raises(ValueError, match=r"argument 'place' cannot be CUDAPinnedPlace\(\).*\.pin_memory\(\)"):
        make(PINNED)
    with pytest.raises(ValueError, match=r"argument 'place' cannot be CUDAPinnedPlace\(\)"):
        make("gpu_pinned")


def test_pin_memory_checks_blocking_gpu():
    x = eager.to_tensor([1.0], place="cpu")
    with pytest.raises(TypeError, match="pin_memory: argument 'blocking' expected a bool, got 1"):
        x.pin_memory(blocking=1)


@pytest.fixture(params=["no cupy", "no device"])
def no_gpu(request, monkeypatch):
    """CuPy not importable (a CPU-only install), or CuPy seeing no device."""
    if request.param == "no cupy":
        monkeypatch.setitem(sys.modules, "cupy", None)
        monkeypatch.setitem(sys.modules, "cupyx", None)
    else:
        cupy = pytest.importorskip("cupy")
        if not getattr(cupy, "__fake__", False):
            pytest.skip("hiding a real GPU from CuPy is not possible in-process")
        monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", lambda: 0)


@pytest.mark.parametrize("call, op", [
    (lambda: eager.to_tensor([1.0], place=CUDAPinnedPlace()), "to_tensor"),
    (lambda: eager.to_tensor([1.0], place="gpu_pinned"), "to_tensor"),
    (lambda: eager.to_tensor([1.0], place="cpu").pin_memory(), "pin_memory"),
    (lambda: eager.to_tensor([1.0], place="cpu").to(CUDAPinnedPlace()), "to"),
    (lambda: eager.nn.Linear(2, 2).to(CUDAPinnedPlace()), "Layer.to"),
])
def test_without_a_gpu_pinned_memory_is_a_value_error_naming_the_op(no_gpu, call, op):
    with pytest.raises(ValueError, match=rf"^{op}: pinned memory \(CUDAPinnedPlace\) .*no GPU is available.*"
                                         r"GPU extra \(`pip install eager-phi\[gpu\]`"):
        call()
    assert repr(CUDAPinnedPlace()) == "Place(gpu_pinned)"  # the place itself is a plain value
    assert eager.to_tensor([1.0, 2.0], place="cpu")[1:].place == CPUPlace()  # views ask nothing of CuPy


# -- phi ---------------------------------------------------------------------------------

def test_phi_copy_to_pinned_memory_and_assign_between_host_places_gpu():
    host = DenseTensor(np.arange(4, dtype=np.int32))
    pinned = phi_api.copy_to(host, "gpu_pinned")
    assert pinned.place == PINNED and _in_pinned_memory(pinned.array) and pinned.array.flags.c_contiguous
    np.testing.assert_array_equal(pinned.array, [0, 1, 2, 3])
    again = phi_api.copy_to(pinned, PINNED)  # a copy even on its own place
    assert again.place == PINNED and not np.shares_memory(again.array, pinned.array)
    phi_api.assign_out_(DenseTensor(np.array([5, 6, 7, 8], np.int32)), pinned)  # pageable into pinned
    np.testing.assert_array_equal(pinned.array, [5, 6, 7, 8])
    assert pinned.place == PINNED and pinned.version == 1
    gpu = phi_api.copy_to(host, "gpu:0")
    with pytest.raises(ValueError, match="assign_out_: argument 'x' must match 'out'"):
        phi_api.assign_out_(gpu, pinned)


def test_is_pinned_array_sees_views_and_only_cupys_pinned_memory_gpu():
    pinned = importlib.import_module("cupyx").empty_pinned((2, 3), np.float32)
    assert is_pinned_array(pinned) and is_pinned_array(pinned[1:, ::2]) and is_pinned_array(pinned.T.reshape(3, 2, 1))
    assert not is_pinned_array(pinned.T.reshape(6))  # a reshape NumPy had to copy: pageable memory
    assert not is_pinned_array(np.ones(3)) and not is_pinned_array(np.ones(3)[1:])
    assert not is_pinned_array(np.frombuffer(bytearray(8), np.uint8))  # another buffer owner
    assert DenseTensor(pinned[0]).place == PINNED and DenseTensor(pinned.copy()).place == CPUPlace()


def test_phi_creation_on_a_pinned_place_computes_on_the_host_gpu():
    like = eager.to_tensor([[1.0, 2.0]], place=PINNED)
    zeros = phi_api.full([1, 2], 0, like.dtype, like.place)  # what eager.autograd.functional asks for
    assert zeros.place == CPUPlace()
    np.testing.assert_array_equal(zeros.array, np.zeros((1, 2), np.float32))


def test_jacobian_of_a_function_of_a_pinned_tensor_gpu():
    x = eager.to_tensor(np.array([0.5, -1.0]), place=PINNED, stop_gradient=False)
    jac = eager.autograd.jacobian(lambda t: t * t, x)
    np.testing.assert_allclose(np.asarray(jac[:]), np.diag([1.0, -2.0]), rtol=1e-15)
