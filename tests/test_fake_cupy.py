"""The fake CuPy (tests/fake_cupy.py) is as strict as real CuPy where our code could
slip: these tests pin that strictness, so the gpu axis keeps catching CPU-only code.
They run on the fake only (real CuPy has its own tests)."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import fake_cupy as cp
from phi.backends import backend_of_array_type
from phi.common import Backend, GPUPlace
from phi.core import DenseTensor


def test_its_array_type_is_recognised_as_the_gpu():
    a = cp.arange(3)
    assert type(a).__module__.startswith("cupy")
    assert backend_of_array_type(type(a)) is Backend.GPU
    assert a.device.id == 0 and DenseTensor(a).place == GPUPlace(0)


@pytest.mark.parametrize("convert", [np.asarray, np.array, lambda a: np.add(a, 1), lambda a: np.sum(a)])
def test_no_implicit_conversion_to_numpy(convert):
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed|was called on a "
                                        "cupy.ndarray|does not support ufuncs|Unsupported type"):
        convert(cp.arange(3.0))


@pytest.mark.parametrize("operand", [np.ones(3), [1.0, 2.0, 3.0]])
def test_numpy_arrays_and_lists_are_refused_as_operands(operand):
    a = cp.arange(3.0)
    for call in (lambda: a + operand, lambda: operand * a, lambda: cp.add(a, operand),
                 lambda: cp.maximum(operand, a), lambda: cp.argsort(operand), lambda: cp.concatenate([a, operand])):
        with pytest.raises(TypeError, match="Unsupported type"):
            call()
    with pytest.raises(TypeError, match="Unsupported type"):
        a += operand
    with pytest.raises(TypeError, match="Unsupported type"):
        a[...] = operand


def test_numpy_index_arrays_are_refused_but_device_ones_work():
    a = cp.arange(5.0)
    with pytest.raises(TypeError, match="Unsupported type"):
        a[np.array([0, 1])]
    assert a[cp.array(np.array([4, 1]))].tolist() == [4.0, 1.0]


def test_reductions_and_scalar_indexing_give_0d_device_arrays():
    a = cp.arange(6.0).reshape(2, 3)
    for value in (a.sum(), cp.max(a), a[1, 2], cp.add.reduce(a, axis=None), a.mean()):
        assert type(value) is cp.ndarray and value.shape == ()
    assert float(a[1, 2]) == 5.0 and int(a[0, 1]) == 1 and bool(a[0, 1]) is True
    assert a.sum().item() == 15.0 and a.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_explicit_transfers_work_and_are_counted():
    before = cp.transfers[0]
    host = np.arange(4.0)
    a = cp.asarray(host)
    assert type(a.get()) is np.ndarray and cp.asnumpy(a).tolist() == host.tolist()
    assert cp.transfers[0] == before + 2
    assert cp.get_array_module(a) is cp and cp.get_array_module(host) is np


def test_views_name_their_owner_as_base_and_share_memory():
    a = cp.zeros((2, 3))
    t = a.T
    assert t.base is a and a.base is None and a.reshape(3, 2).base is a
    t[0, 1] = 7.0
    assert float(a[1, 0]) == 7.0


def test_an_empty_slice_is_a_view_of_its_owner_as_in_cupy():
    # It shares no memory (there is none), but CuPy's slice is a view all the same:
    # eager's inplace-on-views machinery reads base to tell a view from a copy.
    a = cp.zeros((3, 1))
    assert a[:, 1:].base is a and a.T[1:].base is a
    assert cp.zeros((3, 0)).copy().base is None


def test_in_place_operators_and_out_write_through():
    a = cp.ones(3)
    a *= 2
    cp.add(a, 1, out=a)
    assert a.tolist() == [3.0, 3.0, 3.0]


def test_ufunc_at_only_for_the_dtypes_cuda_atomics_serve():
    f = cp.zeros(3, dtype=np.float32)
    cp.add.at(f, cp.array([0, 0, 2]), cp.ones(3, dtype=np.float32))
    assert f.tolist() == [2.0, 0.0, 1.0]
    for dtype in (np.int64, np.bool_, np.complex128, np.int8):
        with pytest.raises(TypeError, match="does not support dtype"):
            cp.add.at(cp.zeros(3, dtype=dtype), cp.array([0]), 1)
    with pytest.raises(NotImplementedError, match="cupy.multiply.at is not supported"):
        cp.multiply.at(f, cp.array([0]), 2)
    cp.scatter_add(f, cp.array([1, 1]), cp.ones(2, dtype=np.float32))
    assert f.tolist() == [2.0, 2.0, 1.0]


def test_float64_maximum_and_minimum_at_are_refused():
    """CuPy accepts them, but they gave wrong values on an H200 (docs/gpu.md)."""
    for ufunc in (cp.maximum, cp.minimum):
        with pytest.raises(TypeError, match="does not support dtype float64"):
            ufunc.at(cp.zeros(3), cp.array([0, 0]), cp.ones(2))
        f = cp.zeros(3, dtype=np.float32)
        ufunc.at(f, cp.array([0, 0]), cp.array([1.0, -1.0], dtype=np.float32))
        assert f.tolist() == [1.0 if ufunc is cp.maximum else -1.0, 0.0, 0.0]


def test_a_place_written_twice_with_different_values_is_refused():
    """CuPy leaves the winner of a repeated place undefined, so the fake refuses such a
    write; equal values, distinct places and boolean masks pass."""
    twice = cp.array([1, 1])
    racing = [(twice, cp.array([1.0, 2.0])[:, None]),  # rows 1 and 1 get different rows
              ((twice, cp.array([0, 0])), cp.array([1.0, 2.0])),  # one element twice
              ((slice(None), twice), cp.array([1.0, 2.0]))]  # column 1 twice, values per column
    for key, value in racing:
        a = cp.zeros((3, 3))
        with pytest.raises(AssertionError, match="writes one place twice with different values"):
            a[key] = value
        assert a.sum().item() == 0  # refused before writing
    a = cp.zeros((3, 3))
    a[twice] = 5.0  # the same value twice
    a[(slice(None), cp.array([0, 2]))] = cp.array([7.0, 8.0])  # distinct places
    a[cp.array([[False, False, False], [False, False, False], [True, True, True]])] = 1.0
    assert a.tolist() == [[7.0, 0.0, 8.0], [7.0, 5.0, 8.0], [1.0, 1.0, 1.0]]
    nan = cp.zeros(2)
    nan[cp.array([0, 0])] = cp.array([np.nan, np.nan])  # NaN at both writes: the same value
    assert np.isnan(nan.get()[0])


def test_what_cupy_lacks_is_absent():
    for name in ("errstate", "frompyfunc", "nditer", "ndindex"):
        assert not hasattr(cp, name)
    assert not hasattr(cp.linalg, "eig")
    with pytest.raises(TypeError, match="Unsupported dtype"):
        cp.array(np.array(["a"]))
    with pytest.raises(AttributeError):
        cp.arange(3).__array_interface__


def test_module_namespaces_and_runtime():
    a = cp.eye(3) * 2
    q, r = cp.linalg.qr(a)
    assert type(q) is cp.ndarray and np.allclose((q @ r).get(), a.get())
    assert cp.cuda.runtime.getDeviceCount() == 2 and cp.cuda.runtime.getDevice() == 0
    assert cp.cuda.is_available() and cp.is_available()
    with cp.cuda.Device(1) as device:
        assert device.id == 1 and cp.cuda.runtime.getDevice() == 1
    assert cp.cuda.runtime.getDevice() == 0
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        cp.cuda.Device(2)
    cp.cuda.get_current_stream().synchronize()


def test_random_state_is_seeded_and_draws_on_the_device():
    a = cp.random.RandomState(5).standard_normal((3,))
    b = cp.random.RandomState(5).standard_normal((3,))
    assert type(a) is cp.ndarray and a.tolist() == b.tolist()
    ints = cp.random.RandomState(1).randint(0, 4, (100,), np.int64)
    assert ints.dtype == np.int64 and 0 <= int(ints.min()) and int(ints.max()) < 4
    counts = cp.random.RandomState(2).poisson(cp.full((2,), 3.0), None, np.int64)
    assert counts.shape == (2,) and counts.dtype == np.int64


def test_copies_and_pickles_stay_on_the_device():
    a = cp.arange(3.0)
    for other in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert type(other) is cp.ndarray and other.tolist() == [0.0, 1.0, 2.0]


# -- several devices ---------------------------------------------------------------------

def test_arrays_remember_their_device_and_ops_run_on_the_current_one():
    a = cp.arange(3.0)
    with cp.cuda.Device(1):
        b = cp.ones(3)
        c = b * 2 + cp.sqrt(b)   # operators, ufuncs and functions on device 1, under device 1
        assert b.device == cp.cuda.Device(1) and c.device.id == 1 and b[1:].device.id == 1
        assert DenseTensor(c).place == GPUPlace(1)
    assert a.device.id == 0 and c.tolist() == [3.0, 3.0, 3.0]   # reading back works from any device


@pytest.mark.parametrize("op", [
    lambda a, b: a + b, lambda a, b: cp.add(a, b), lambda a, b: cp.concatenate([a, b]),
    lambda a, b: a.__iadd__(b), lambda a, b: a[cp.zeros(1, np.int64)], lambda a, b: -a,
    lambda a, b: a.astype(np.float32), lambda a, b: cp.add.at(a, cp.zeros(1, np.int64), 1.0),
])
def test_an_op_on_an_array_of_another_device_raises(op):
    a = cp.arange(3.0)
    with cp.cuda.Device(1):
        b = cp.ones(3)
        with pytest.raises(ValueError, match="Array device must be same as the current device: "
                                             "array device = 0 while current = 1"):
            op(a, b)


def test_asarray_of_another_devices_array_copies_it_and_counts_the_copy():
    a = cp.arange(3.0)
    before = cp.peer_copies[0]
    assert cp.asarray(a) is a and cp.peer_copies[0] == before
    with cp.cuda.Device(1):
        b = cp.asarray(a)
        assert b is not a and b.device.id == 1 and b.tolist() == [0.0, 1.0, 2.0]
        assert cp.peer_copies[0] == before + 1
        c = copy.copy(a)   # a copy stays on the array's device
    assert c.device.id == 0


def test_random_states_belong_to_one_device_and_the_global_one_is_per_device():
    state = cp.random.RandomState(3)
    with cp.cuda.Device(1):
        with pytest.raises(ValueError, match="RandomState of device 0 used while device 1 is current"):
            state.standard_normal((2,))
        assert cp.random.get_random_state() is not state and cp.random.rand(2).device.id == 1
    assert cp.random.get_random_state() is cp.random.get_random_state()


def test_the_device_count_is_configurable():
    try:
        cp.set_device_count(1)
        assert cp.cuda.runtime.getDeviceCount() == 1
        with pytest.raises(RuntimeError, match="invalid device ordinal 1"):
            cp.cuda.Device(1)
    finally:
        cp.set_device_count(2)
    with pytest.raises(ValueError, match="set_device_count: expected a non-negative int"):
        cp.set_device_count(-1)


def test_pinned_memory_is_host_memory_numpy_arrays_are_made_over():
    memory = cp.cuda.alloc_pinned_memory(24)
    assert isinstance(memory, cp.cuda.PinnedMemoryPointer) and memory.size() == 24 and memory.ptr != 0
    array = np.ndarray((3,), np.float64, buffer=memory)
    assert array.base is memory and array.__array_interface__["data"][0] == memory.ptr
    assert cp.cuda.alloc_pinned_memory(0).ptr == 0
    for bad, error in ((-1, OverflowError), (2.0, TypeError), ("8", TypeError)):
        with pytest.raises(error):
            cp.cuda.alloc_pinned_memory(bad)
    before = cp.pinned_allocations[0]
    pinned = cp.cupyx.empty_pinned((2, 3), np.float32, order="F")
    assert type(pinned) is np.ndarray and isinstance(pinned.base, cp.cuda.PinnedMemoryPointer)
    assert pinned.shape == (2, 3) and pinned.dtype == np.float32 and pinned.flags.f_contiguous
    assert cp.cupyx.empty_pinned(4).shape == (4,) and cp.pinned_allocations[0] == before + 2


def test_get_into_out_checks_it_as_cupy_does():
    a = cp.arange(6.0).reshape(2, 3)
    transfers = cp.transfers[0]
    out = np.empty((2, 3))
    assert a.get(out=out) is out and cp.transfers[0] == transfers + 1
    np.testing.assert_array_equal(out, np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match="Only numpy.ndarray can be obtained from cupy.ndarray"):
        a.get(out=cp.empty((2, 3)))
    with pytest.raises(TypeError, match="float32 array cannot be obtained from float64 array"):
        a.get(out=np.empty((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"Shape mismatch. Expected shape: \(2, 3\), actual shape: \(3, 2\)"):
        a.get(out=np.empty((3, 2)))
    with pytest.raises(RuntimeError, match="Cannot set to non-contiguous array"):
        a.get(out=np.empty((2, 6))[:, ::2])
