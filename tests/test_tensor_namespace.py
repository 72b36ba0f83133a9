"""Paddle's small top-level helpers and the paddle.tensor namespace: finfo/iinfo
against NumPy's limits, batch, sysconfig, the dynamic-mode tensor arrays, and
the paddle.tensor.<file>.<function> paths."""
import os

import numpy as np
import pytest

import eager


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_gives_numpys_limits_as_python_numbers(name):
    info, ref = eager.finfo(name), np.finfo(name)
    assert (info.min, info.max, info.eps) == (float(ref.min), float(ref.max), float(ref.eps))
    assert info.smallest_normal == info.tiny == float(ref.smallest_normal)
    assert info.bits == ref.bits and info.dtype == name
    assert info.resolution == 10.0 ** -ref.precision
    assert type(info.max) is float


def test_finfo_of_float32_has_the_hand_known_values():
    info = eager.finfo(eager.float32)
    assert info.max == (2 - 2 ** -23) * 2.0 ** 127
    assert info.eps == 2.0 ** -23 and info.tiny == 2.0 ** -126 and info.resolution == 1e-6


def test_finfo_of_a_complex_dtype_is_that_of_its_parts():
    assert eager.finfo("complex64") == eager.finfo("float32")
    assert eager.finfo(eager.complex128).dtype == "float64"


@pytest.mark.parametrize("name, low, high, bits", [("uint8", 0, 255, 8), ("int8", -128, 127, 8),
                                                   ("int16", -2 ** 15, 2 ** 15 - 1, 16),
                                                   ("int32", -2 ** 31, 2 ** 31 - 1, 32),
                                                   ("int64", -2 ** 63, 2 ** 63 - 1, 64)])
def test_iinfo_gives_the_integer_range(name, low, high, bits):
    info = eager.iinfo(getattr(eager, name))
    assert (info.min, info.max, info.bits, info.dtype) == (low, high, bits, name)
    # Paddle's text (its pybind __repr__), as printed in paddle.iinfo's example.
    assert repr(info) == f"paddle.iinfo(min={low}, max={high}, bits={bits}, dtype={name})"
    assert str(info) == repr(info)


def test_finfo_repr_is_paddles_with_six_significant_digits():
    # Paddle streams the doubles through std::ostream: six significant digits, as C's %g.
    assert repr(eager.finfo(eager.float32)) == (
        "paddle.finfo(min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, resolution=1e-06, "
        "smallest_normal=1.17549e-38, tiny=1.17549e-38, bits=32, dtype=float32)")
    assert repr(eager.finfo("float16")) == (
        "paddle.finfo(min=-65504, max=65504, eps=0.000976562, resolution=0.001, "
        "smallest_normal=6.10352e-05, tiny=6.10352e-05, bits=16, dtype=float16)")


def test_finfo_and_iinfo_refuse_the_other_kind():
    with pytest.raises(ValueError, match=r"finfo: argument 'dtype' expected a floating or complex dtype .* got int32"):
        eager.finfo("int32")
    with pytest.raises(ValueError, match=r"iinfo: argument 'dtype' expected an integer dtype .* got float32"):
        eager.iinfo(eager.float32)
    with pytest.raises(TypeError, match="iinfo: argument 'dtype'"):
        eager.iinfo(None)


def test_batch_groups_samples_and_keeps_or_drops_the_tail():
    def reader():
        yield from range(7)
    assert list(eager.batch(reader, 3)()) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(eager.batch(reader, 3, drop_last=True)()) == [[0, 1, 2], [3, 4, 5]]
    batches = eager.batch(reader, 7)
    assert list(batches()) == list(batches()) == [list(range(7))]  # a reader reads again


def test_batch_checks_its_arguments():
    with pytest.raises(ValueError, match="batch: argument 'batch_size' expected a positive int, got 0"):
        eager.batch(lambda: [], 0)
    with pytest.raises(TypeError, match="batch: argument 'batch_size' expected an int, got float"):
        eager.batch(lambda: [], 2.5)
    with pytest.raises(TypeError, match="batch: argument 'reader' expected a callable"):
        eager.batch([1, 2], 2)


def test_sysconfig_names_directories_inside_the_package():
    package = os.path.dirname(eager.__file__)
    assert eager.sysconfig.get_include() == os.path.join(package, "include")
    assert eager.sysconfig.get_lib() == os.path.join(package, "libs")


def test_a_tensor_array_is_a_list_written_and_read_by_position():
    arr = eager.tensor.create_array(dtype="float32")
    assert isinstance(arr, list) and not arr
    x, y = eager.full([1, 3], 5.0), eager.ones([2])
    i = eager.zeros([1], dtype="int32")
    assert eager.tensor.array_write(x, i, array=arr) is arr
    eager.tensor.array_write(y, i + 1, arr)
    assert eager.tensor.array_length(arr) == 2
    assert eager.tensor.array_read(arr, i) is x and eager.tensor.array_read(arr, 1) is y
    eager.tensor.array_write(y, 0, arr)  # below the length: replaces
    assert arr[0] is y and arr[1] is y
    fresh = eager.tensor.array_write(x, 0)
    assert len(fresh) == 1 and fresh[0] is x


def test_tensor_array_positions_are_checked():
    arr = [eager.ones([1])]
    with pytest.raises(ValueError, match="array_write: argument 'i' expected a position <= the array's length 1, got 3"):
        eager.tensor.array_write(eager.ones([1]), 3, arr)
    with pytest.raises(IndexError, match="array_read: argument 'i' expected a position below the array's length 1"):
        eager.tensor.array_read(arr, 1)
    with pytest.raises(TypeError, match="array_read: argument 'i' expected an int or an integer Tensor"):
        eager.tensor.array_read(arr, eager.zeros([1]))
    with pytest.raises(TypeError, match="array_length: argument 'array' expected a tensor array"):
        eager.tensor.array_length(eager.ones([1]))
    with pytest.raises(TypeError, match="create_array: argument 'initialized_list' expected Tensors, element 0"):
        eager.tensor.create_array("float32", [1.0])


def test_tensor_array_to_tensor_concats_or_stacks_with_sizes_and_gradients():
    a = eager.to_tensor(np.arange(4.0).reshape(2, 2), stop_gradient=False)
    b = eager.to_tensor(np.arange(6.0).reshape(2, 3))
    out, sizes = eager.tensor.tensor_array_to_tensor([a, b], axis=1)
    np.testing.assert_array_equal(out.numpy(), np.concatenate([a.numpy(), b.numpy()], 1))
    assert sizes.numpy().tolist() == [2, 3] and sizes.dtype == eager.int64
    (out * 3.0).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.full((2, 2), 3.0))
    stacked, ones = eager.tensor.tensor_array_to_tensor([b, b], axis=0, use_stack=True)
    assert stacked.shape == [2, 2, 3] and ones.numpy().tolist() == [1, 1]


def test_create_tensor_holds_no_data_until_assign_fills_it():
    t = eager.tensor.create_tensor(dtype="int32", persistable=True)
    assert t.shape == [] and t.dtype == eager.int32 and t.persistable and t.stop_gradient
    assert repr(t) == str(t) == "Tensor(Not initialized)"  # Paddle's print of a tensor without data
    assert not t.get_tensor()._is_initialized()
    with pytest.raises(ValueError, match=r"numpy\(\): the tensor holds no data \(it is not initialized"):
        t.numpy()
    with pytest.raises(TypeError, match="exp: phi cannot compute on a tensor that holds no data"):
        eager.exp(eager.tensor.create_tensor("float32"))
    filled = eager.assign(eager.to_tensor(np.array([[1, 2, 3]], dtype="int32")), t)
    assert filled is t and t.shape == [1, 3] and t.get_tensor()._is_initialized()
    np.testing.assert_array_equal(t.numpy(), [[1, 2, 3]])
    assert repr(t).startswith("Tensor(shape=[1, 3], dtype=int32")
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)  # gradients reach through the filled placeholder
    out = eager.assign(x * 3.0, eager.tensor.create_tensor("float32"))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    with pytest.raises(TypeError, match="create_tensor: argument 'dtype' expected a dtype"):
        eager.tensor.create_tensor(None)


def test_paddle_tensor_file_paths_reach_the_functions():
    assert eager.tensor.math.frexp is eager.frexp
    assert eager.tensor.creation.triu is eager.triu and eager.tensor.triu is eager.triu
    assert eager.tensor.manipulation.concat is eager.concat
    assert eager.tensor.linalg.cond is eager.linalg.cond
    assert eager.tensor.array.create_array is eager.tensor.create_array
    assert eager.tensor.Tensor is eager.Tensor
    with pytest.raises(AttributeError, match="module 'eager.tensor' has no attribute 'no_such_function'"):
        eager.tensor.no_such_function
