"""phi.common: DataType, Backend/DataLayout, Place, Scalar and IntArray conversions."""
import numpy as np
import pytest

from phi.common import (
    Backend, CPUPlace, DataLayout, DataType, GPUPlace, IntArray, Place, Scalar, convert_dtype,
    convert_place, to_int_array, to_scalar,
)
from phi.common.data_type import COMPLEX_TYPES, FLOATING_TYPES, INTEGER_TYPES

ALL_NAMES = [t.value for t in DataType]


class FakeTensor:
    """Anything with ``numpy()``, as an eager Tensor or a CuPy-backed tensor offers."""

    def __init__(self, array):
        self._array = np.asarray(array)
        self.shape = self._array.shape

    def numpy(self):
        return self._array


# -- DataType ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", list(DataType))
def test_datatype_round_trips_through_numpy_and_its_name(dtype):
    assert dtype.numpy_dtype == np.dtype(dtype.value)
    assert DataType.from_numpy(dtype.numpy_dtype) is dtype
    assert DataType.from_numpy(dtype.numpy_dtype.type) is dtype  # the scalar type np.float32
    assert convert_dtype(dtype.value) is dtype
    assert convert_dtype(dtype.value.upper()) is dtype
    assert convert_dtype(dtype.numpy_dtype) is dtype
    assert convert_dtype(dtype.numpy_dtype.type) is dtype
    assert convert_dtype(dtype) is dtype
    assert str(dtype) == repr(dtype) == f"paddle.{dtype.value}"  # as Paddle prints its dtypes
    assert dtype.itemsize == np.dtype(dtype.value).itemsize


def test_datatype_kinds_partition_the_numeric_types():
    assert FLOATING_TYPES == {t for t in DataType if t.is_floating_point}
    assert DataType.FLOAT16.is_floating_point and not DataType.FLOAT16.is_complex
    assert DataType.COMPLEX64.is_complex and not DataType.COMPLEX64.is_floating_point
    assert DataType.UINT8.is_integer and not DataType.BOOL.is_integer
    assert not (FLOATING_TYPES & COMPLEX_TYPES) and not (INTEGER_TYPES & FLOATING_TYPES)
    assert FLOATING_TYPES | COMPLEX_TYPES | INTEGER_TYPES | {DataType.BOOL} == set(DataType)


# As NumPy reads them, and as Paddle 2.6.2's astype/cast/zeros/full/arange do
# (x.astype(float) is float64 there).
@pytest.mark.parametrize("py_type, expected", [
    (bool, DataType.BOOL), (int, DataType.INT64), (float, DataType.FLOAT64),
    (complex, DataType.COMPLEX128),
])
def test_python_types_map_to_paddle_defaults(py_type, expected):
    assert convert_dtype(py_type) is expected


def test_non_native_byte_order_is_the_same_datatype():
    big = np.dtype(">f4")
    assert DataType.from_numpy(big) is DataType.FLOAT32
    assert convert_dtype(big) is DataType.FLOAT32
    assert DataType.from_numpy(np.dtype(">i8")) is DataType.INT64


@pytest.mark.parametrize("text", ["float", "f4", "floaty", "", "int"])
def test_unknown_dtype_string_lists_the_known_names(text):
    with pytest.raises(TypeError) as info:
        convert_dtype(text)
    message = str(info.value)
    assert f"unknown dtype string {text!r}" in message
    assert all(name in message for name in ALL_NAMES)


@pytest.mark.parametrize("value", [np.dtype("O"), np.dtype("U3"), np.dtype("datetime64[s]"),
                                   np.str_, np.object_])
def test_numpy_dtype_without_kernels_is_unsupported(value):
    with pytest.raises(TypeError, match=r"unsupported data type .*; phi supports bool, int8"):
        convert_dtype(value)
    with pytest.raises(TypeError, match="unsupported data type"):
        DataType.from_numpy(value)


@pytest.mark.parametrize("value", [None, 1, 2.5, True, [1], np.zeros(2), object, object(), {"a": 1}])
def test_convert_dtype_rejects_non_dtypes_with_its_own_message(value):
    # None included: NumPy would read np.dtype(None) as float64.
    with pytest.raises(TypeError) as info:
        convert_dtype(value)
    message = str(info.value)
    assert message.startswith(f"cannot interpret {value!r} as a dtype")
    assert "'float32'" in message


def test_backend_and_layout_print_their_names():
    assert str(Backend.CPU) == "CPU" and str(Backend.ALL_BACKEND) == "ALL_BACKEND"
    assert str(DataLayout.NCHW) == "NCHW" and str(DataLayout.ALL_LAYOUT) == "ALL_LAYOUT"


# -- Place --------------------------------------------------------------------------

def test_cpu_place_is_a_singleton_equal_to_itself_only():
    assert CPUPlace() is CPUPlace()
    assert CPUPlace() == CPUPlace()
    assert CPUPlace() != GPUPlace(0)
    assert CPUPlace() != "cpu"
    assert repr(CPUPlace()) == "Place(cpu)"
    assert CPUPlace().is_cpu_place() and not CPUPlace().is_gpu_place()
    assert isinstance(CPUPlace(), Place) and CPUPlace().backend is Backend.CPU


def test_gpu_places_compare_and_hash_by_device_id():
    assert GPUPlace(1) == GPUPlace(1)
    assert GPUPlace(0) != GPUPlace(1)
    assert GPUPlace() == GPUPlace(0)
    assert hash(GPUPlace(2)) == hash(GPUPlace(2))
    assert len({GPUPlace(0), GPUPlace(0), GPUPlace(1), CPUPlace(), CPUPlace()}) == 3
    assert {GPUPlace(3): "x"}[GPUPlace(3)] == "x"
    assert repr(GPUPlace(3)) == "Place(gpu:3)"
    assert GPUPlace(0).is_gpu_place() and not GPUPlace(0).is_cpu_place()
    assert GPUPlace(0).backend is Backend.GPU


@pytest.mark.parametrize("bad", [-1, 1.0, "0", True, None])
def test_gpu_place_rejects_bad_device_ids(bad):
    with pytest.raises(ValueError, match=r"GPUPlace: device_id must be a non-negative int, got " + repr(bad)):
        GPUPlace(bad)


@pytest.mark.parametrize("text, expected", [
    ("cpu", CPUPlace()), ("CPU", CPUPlace()), (" cpu ", CPUPlace()), ("gpu", GPUPlace(0)),
    ("cuda", GPUPlace(0)), ("gpu:2", GPUPlace(2)), ("cuda:1", GPUPlace(1)), ("GPU:0", GPUPlace(0)),
])
def test_convert_place_reads_strings(text, expected):
    assert convert_place(text) == expected


def test_convert_place_passes_places_through():
    place = GPUPlace(5)
    assert convert_place(place) is place
    assert convert_place(CPUPlace()) is CPUPlace()


@pytest.mark.parametrize("bad", ["tpu", "gpu:", "gpu:-1", "gpu:x", "cpu:0", "", 0, None, ["cpu"]])
def test_convert_place_errors_name_the_value_and_the_accepted_forms(bad):
    with pytest.raises(ValueError) as info:
        convert_place(bad)
    message = str(info.value)
    assert message.startswith(f"cannot interpret {bad!r} as a place")
    assert "'gpu:N'" in message and "'cpu'" in message


# -- Scalar ---------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    (3, 3), (2.5, 2.5), (True, True), (1 + 2j, 1 + 2j),
    (np.float32(1.5), 1.5), (np.int64(7), 7), (np.bool_(False), False),
    (np.array(4.0), 4.0), (np.array([5]), 5), (np.array([[6]]), 6),
    (FakeTensor(np.array(2.0)), 2.0), (FakeTensor([9]), 9),
])
def test_to_scalar_accepts_numbers_and_one_element_arrays(value, expected):
    result = to_scalar(value)
    assert result == expected
    assert type(result) is type(expected)  # NumPy scalars become Python numbers
    assert Scalar(value).value == expected


def test_scalar_to_and_repr():
    assert Scalar(np.float64(2.0)).to(int) == 2
    assert repr(Scalar(3)) == "Scalar(3)"


@pytest.mark.parametrize("value, described", [
    (None, "NoneType None"), ([1], "list [1]"),
    (np.zeros(2), "ndarray of float64[2]"), (FakeTensor(np.zeros((2, 2))), "FakeTensor of shape [2, 2]"),
    (np.array(["a"]), "ndarray of <U1[1]"),  # one element, but not a number
])
def test_to_scalar_errors_name_op_arg_and_what_came(value, described):
    with pytest.raises(TypeError) as info:
        to_scalar(value, "scale", "bias")
    message = str(info.value)
    assert message.startswith("scale: argument 'bias' expected a number")
    assert message.endswith(f"got {described}")


def test_to_scalar_parses_numeric_strings_as_paddle_does():
    # Paddle 2.6.2: full([2], '0.5') fills 0.5, full([2], 'abc') raises ValueError
    assert to_scalar("0.5") == 0.5 and to_scalar(" 1e3 ") == 1000.0 and np.isinf(to_scalar("inf"))
    for text in ("abc", "True", "0x10", ""):
        with pytest.raises(ValueError, match="scale: argument 'bias' expected a number or a numeric string"):
            to_scalar(text, "scale", "bias")


# -- IntArray -------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    (3, (3,)), (np.int32(4), (4,)), ([], ()), ((1, 2), (1, 2)), ([np.int64(1), 2], (1, 2)),
    ([np.array(3), FakeTensor([4])], (3, 4)),
    (np.array([1, 2, 3]), (1, 2, 3)), (np.array(5), (5,)), (np.array([], np.int64), ()),
    (np.array([7], np.uint8), (7,)), (FakeTensor(np.array([2, -1])), (2, -1)), (FakeTensor(np.array(8)), (8,)),
])
def test_to_int_array_accepts_ints_lists_and_integer_tensors(value, expected):
    result = to_int_array(value)
    assert result == expected
    assert all(type(v) is int for v in result)
    assert IntArray(value).data == expected


def test_int_array_repr():
    assert repr(IntArray((1, 2))) == "IntArray([1, 2])"


@pytest.mark.parametrize("value, described", [
    (True, "bool True"), (2.0, "float 2.0"), ("12", "str '12'"), (None, "NoneType None"),
    (np.array([1.0, 2.0]), "ndarray of float64[2]"), (np.array([[1, 2]]), "ndarray of int64[1, 2]"),
    (np.array([True]), "ndarray of bool[1]"), (FakeTensor(np.zeros((2, 2), np.int64)), "FakeTensor of shape [2, 2]"),
])
def test_to_int_array_rejects_non_integer_values(value, described):
    with pytest.raises(TypeError) as info:
        to_int_array(value, "reshape", "shape")
    message = str(info.value)
    assert message.startswith("reshape: argument 'shape' expected an int, a list of ints or a 1-D integer tensor")
    assert message.endswith(f"got {described}")


@pytest.mark.parametrize("item, described", [
    (1.5, "float 1.5"), (True, "bool True"), ("2", "str '2'"), (np.array([1, 2]), "ndarray of int64[2]"),
    (np.array(1.0), "ndarray of float64[]"),
])
def test_to_int_array_names_the_bad_list_element(item, described):
    with pytest.raises(TypeError) as info:
        to_int_array([1, item], "sum", "axis")
    message = str(info.value)
    assert message.startswith("sum: argument 'axis' expected a list of ints, got an element ")
    assert described in message
