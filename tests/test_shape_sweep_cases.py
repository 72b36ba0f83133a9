"""Cases a random differential sweep of the shape ops, indexing and views (against
NumPy, PyTorch and hand-written references) found. Each test failed before its fix:

- squeeze, roll and moveaxis of a 0-d tensor with axis 0 / -1 (which their
  InferMeta accepts, as every op here does for a 0-d tensor) died in the kernel
  with a raw IndexError / NumPy AxisError;
- atleast_2d / atleast_3d, and vstack / dstack behind them, refused an empty 1-d
  tensor with a reshape error (reshape reads a 0 in the shape as "copy x's size");
- x[i, j, ...] with an int for every axis returned a copy (NumPy gives a scalar
  there), not a view as every other basic index: a later inplace write to x was
  not seen by it (stale value, wrong gradient) and a write through it was lost;
- crop with -1 in shape and the offset at the end of that axis (the rest is
  empty) was refused with "expected positive sizes or -1, got [-1, ...]".

Seen and kept (docs/autograd.md): t, moveaxis, slice, strided_slice and diagonal
return copies where Paddle's stride kernels give views.
"""
import numpy as np
import pytest

import eager
from eager.autograd import AutogradError

pytestmark = pytest.mark.usefixtures("device")


def _leaf(values):
    return eager.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=False)


# -- 0-d tensors with axis 0 / -1 -----------------------------------------------------

@pytest.mark.parametrize("axis", [0, -1, [0], [-1]])
def test_squeeze_of_a_0d_tensor_along_its_axis_keeps_it(axis):
    x = _leaf(2.5)
    out = eager.squeeze(x, axis)
    assert out.shape == [] and out.dtype == x.dtype and float(out) == 2.5
    (out * 3.0).backward()
    assert float(x.grad) == 3.0


@pytest.mark.parametrize("shifts", [1, -3, 0])
@pytest.mark.parametrize("axis", [0, -1, [0]])
def test_roll_of_a_0d_tensor_along_its_axis_is_the_tensor(shifts, axis):
    x = _leaf(-1.5)
    out = eager.roll(x, [shifts] if isinstance(axis, list) else shifts, axis)
    assert out.shape == [] and float(out) == -1.5   # one element: nothing to move
    (out * 2.0).backward()
    assert float(x.grad) == 2.0


@pytest.mark.parametrize("source, destination", [(0, 0), (-1, 0), ([0], [-1])])
def test_moveaxis_of_a_0d_tensor_along_its_axis_is_the_tensor(source, destination):
    x = _leaf(4.0)
    out = eager.moveaxis(x, source, destination)
    assert out.shape == [] and float(out) == 4.0
    (out * 5.0).backward()
    assert float(x.grad) == 5.0


def test_a_0d_tensor_still_refuses_an_axis_beyond_0_and_minus_1():
    x = eager.to_tensor(1.0)
    for call, arg in [(lambda: eager.squeeze(x, 1), "axis"), (lambda: eager.roll(x, 1, 1), "axis"),
                      (lambda: eager.moveaxis(x, 0, -2), "destination")]:
        with pytest.raises(ValueError, match=rf"argument '{arg}' expected an axis in \[-1, 1\) for a 0-d tensor"):
            call()
    assert float(x) == 1.0


# -- atleast_2d / 3d, vstack, dstack of empty tensors ------------------------------------

def test_vstack_and_dstack_of_empty_1d_tensors_follow_numpy():
    a = np.zeros([0], dtype=np.float32)
    x, y = eager.to_tensor(a), eager.to_tensor(a)
    assert eager.vstack([x, y]).shape == list(np.vstack([a, a]).shape) == [2, 0]
    assert eager.dstack([x, y]).shape == list(np.dstack([a, a]).shape) == [1, 0, 2]
    assert eager.atleast_2d(x).shape == list(np.atleast_2d(a).shape) == [1, 0]
    assert eager.atleast_3d(x).shape == list(np.atleast_3d(a).shape) == [1, 0, 1]
    b = np.zeros([2, 0], dtype=np.float32)
    assert eager.atleast_3d(eager.to_tensor(b)).shape == list(np.atleast_3d(b).shape) == [2, 0, 1]
    assert eager.vstack([x, y]).dtype == eager.float32


def test_vstack_and_dstack_still_stack_values_and_gradients():
    a, b = _leaf([1.0, 2.0, 3.0]), _leaf([4.0, 5.0, 6.0])
    v = eager.vstack([a, b])
    d = eager.dstack([a, b])
    np.testing.assert_array_equal(v.numpy(), np.vstack([a.numpy(), b.numpy()]))
    np.testing.assert_array_equal(d.numpy(), np.dstack([a.numpy(), b.numpy()]))
    w = np.arange(6.0).reshape(2, 3)
    (v * eager.to_tensor(w)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), w[0])
    np.testing.assert_array_equal(b.grad.numpy(), w[1])


# -- an int per axis is a view -------------------------------------------------------

def test_an_int_for_every_axis_gives_a_view_that_sees_later_writes():
    x = eager.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    element = x[1, 2]
    row_element = x[0][1]
    x[...] = 7.0
    assert element.shape == [] and float(element) == 7.0
    assert float(row_element) == 7.0
    y = eager.to_tensor([1.0, 2.0, 3.0])
    first = y[-3]
    y.scale_(10.0)
    assert float(first) == 10.0


def test_a_write_through_an_element_view_changes_the_tensor():
    x = eager.to_tensor([[1.0, 2.0, 3.0]])
    element = x[0, 1]
    element += 1.0
    np.testing.assert_array_equal(x.numpy(), [[1.0, 3.0, 3.0]])   # NumPy: a = x[0:1, 1:2]; a += 1


def test_gradient_through_an_element_view_after_an_inplace_write_to_its_base():
    # The reference is the same computation out of place: base = 2 * x, element = base[1].
    x = _leaf([1.0, 2.0, 3.0])
    base = x * 1.0
    element = base[1]
    base.scale_(2.0)                                  # element now holds 2 * x[1]
    assert float(element) == 4.0
    (element * 5.0).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 10.0, 0.0])


def test_a_saved_element_view_changed_by_a_write_to_its_base_is_caught():
    x = _leaf([1.0, 2.0, 3.0])
    base = x * 1.0
    element = base[2]
    square = element * element                        # saves element
    base[...] = 0.0
    with pytest.raises(AutogradError, match="modified by an inplace operation"):
        square.backward()


# -- crop ------------------------------------------------------------------------------

def test_crop_with_minus_one_and_the_offset_at_the_end_of_the_axis_is_empty():
    values = np.arange(6.0).reshape(2, 3)
    x = _leaf(values)
    out = eager.crop(x, shape=[-1, 2], offsets=[2, 1])
    assert out.shape == list(values[2:, 1:3].shape) == [0, 2]
    rest = eager.crop(x, shape=[-1, -1], offsets=[1, 1])
    np.testing.assert_array_equal(rest.numpy(), values[1:, 1:])
    rest.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 0.0, 0.0], [0.0, 1.0, 1.0]])


def test_crop_still_refuses_an_offset_past_the_axis_and_a_zero_size():
    x = eager.to_tensor(np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError, match=r"crop: offsets \[3, 1\] plus shape \[-1, 2\] exceed x's shape \[2, 3\] on axis 0"):
        eager.crop(x, shape=[-1, 2], offsets=[3, 1])
    with pytest.raises(ValueError, match=r"crop: argument 'shape' expected positive sizes or -1, got \[0, 2\]"):
        eager.crop(x, shape=[0, 2], offsets=[0, 0])
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3))
