"""phi's accumulation API (accumulate_, owned_copy, zero_) on dense tensors, at the
phi level: values against NumPy, in-place identity, version bumps, and errors
that leave the accumulator as it was. The SelectedRows cases are in
test_selected_rows.py; the engine's use of them in test_accumulation.py."""
import numpy as np
import pytest

from phi import api as phi_api
from phi.core import DenseTensor, InvalidArgumentError, SelectedRows


@pytest.fixture
def acc(rng):
    return DenseTensor(rng.normal(size=(4, 3)))


def test_dense_plus_dense_adds_in_place_and_bumps_the_version(acc, rng):
    buffer, before, version = acc.array, acc.array.copy(), acc.version
    x = DenseTensor(rng.normal(size=(4, 3)))
    x_before = x.array.copy()
    assert phi_api.accumulate_(acc, x) is acc
    assert acc.array is buffer and acc.version == version + 1
    np.testing.assert_array_equal(acc.array, before + x_before)
    np.testing.assert_array_equal(x.array, x_before)  # x is only read


@pytest.mark.parametrize("x, message", [
    (np.zeros((4, 3), np.float32), r"expected paddle.float64\[4, 3\] on Place\(cpu\), got paddle.float32\[4, 3\]"),
    (np.zeros((3, 4)), r"expected paddle.float64\[4, 3\] on Place\(cpu\), got paddle.float64\[3, 4\]"),
    (np.zeros((1, 3)), r"expected paddle.float64\[4, 3\] on Place\(cpu\), got paddle.float64\[1, 3\]"),  # no broadcast
])
def test_a_mismatched_dense_gradient_is_refused_and_the_accumulator_kept(acc, x, message):
    before, version = acc.array.copy(), acc.version
    with pytest.raises(InvalidArgumentError, match=r"^accumulate_: argument 'x' must match the "
                                                   r"accumulator 'acc': " + message):
        phi_api.accumulate_(acc, DenseTensor(x))
    np.testing.assert_array_equal(acc.array, before)
    assert acc.version == version


def test_rows_of_another_height_are_refused_and_the_accumulator_kept(acc):
    before = acc.array.copy()
    rows = SelectedRows(np.array([0]), DenseTensor(np.ones((1, 3))), 5)
    with pytest.raises(InvalidArgumentError, match=r"expected paddle.float64\[4, 3\].*got paddle.float64\[5, 3\]"):
        phi_api.accumulate_(acc, rows)
    np.testing.assert_array_equal(acc.array, before)
    assert acc.version == 0


def test_owned_copy_of_a_dense_tensor_has_a_buffer_of_its_own(acc):
    copy = phi_api.owned_copy(acc)
    assert copy is not acc and copy.kind is acc.kind and copy.layout is acc.layout
    assert not np.shares_memory(copy.array, acc.array)
    np.testing.assert_array_equal(copy.array, acc.array)
    copy.array[...] = 0.0
    assert acc.array.any()


def test_zero_keeps_the_buffer_and_bumps_the_version(acc):
    buffer, version = acc.array, acc.version
    assert phi_api.zero_(acc) is acc
    assert acc.array is buffer and acc.version == version + 1
    np.testing.assert_array_equal(acc.array, np.zeros((4, 3)))


def test_zero_of_an_integer_tensor(rng):
    t = DenseTensor(rng.integers(-5, 5, size=(6,)))
    phi_api.zero_(t)
    assert t.array.dtype == np.int64 and not t.array.any()


def test_zero_of_rows_is_refused():
    rows = SelectedRows(np.array([1]), DenseTensor(np.ones((1, 2))), 3)
    with pytest.raises(InvalidArgumentError, match=r"^zero_: argument 'x' expected a dense tensor .*got a "
                                                   r"selected_rows tensor paddle.float64\[3, 2\]"):
        phi_api.zero_(rows)
    np.testing.assert_array_equal(rows.value.array, np.ones((1, 2)))
