"""Cases found by re-running the dygraph parts of PaddlePaddle's own manipulation and
indexing unit tests (test/legacy_test, second pass: concat, stack, split, unbind,
reshape, squeeze, unsqueeze, flatten, expand, tile, roll, flip, rot90, moveaxis,
transpose, ...) with ``import eager as paddle`` and checking each failure against real
Paddle 2.6.2. Each test failed before its fix:

- squeeze with an axis listed twice ([1, 1] or [1, -2] on a [5, 1, 10] x) was refused;
  Paddle 2.6.2 squeezes that axis once;
- unsqueeze with ``axis=[]`` was refused; Paddle 2.6.2 returns x's shape unchanged;
- flatten of a 0-d x took any start_axis / stop_axis; Paddle 2.6.2 takes only 0 or -1
  there (ValueError otherwise);
- flip with two spellings of one axis ([0, -3] on a 3-d x) was refused; Paddle 2.6.2
  reverses that axis once (the same value twice, [0, 0], stays an error in both);
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


def _leaf(values, dtype=np.float32):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


@pytest.mark.parametrize("axis", [[1, 1], [1, -2], (1, 1, -2)])
def test_squeeze_repeated_axis_squeezes_it_once(axis):
    data = np.random.default_rng(0).random((5, 1, 10)).astype(np.float32)
    x = _leaf(data)
    out = eager.squeeze(x, axis)
    np.testing.assert_array_equal(out.numpy(), data.reshape(5, 10))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((5, 1, 10)))


def test_squeeze_inplace_repeated_axis():
    x = eager.zeros([2, 1, 3])
    assert x.squeeze_([1, -2]).shape == [2, 3]


@pytest.mark.parametrize("axis", [[], ()])
def test_unsqueeze_empty_axis_list_keeps_the_shape(axis):
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = _leaf(data)
    out = eager.unsqueeze(x, axis)
    np.testing.assert_array_equal(out.numpy(), data)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3)))


@pytest.mark.parametrize("start, stop", [(0, 0), (-1, -1), (0, -1), (-1, 0)])
def test_flatten_0d_takes_axes_0_and_minus_1(start, stop):
    out = eager.flatten(eager.to_tensor(2.5), start, stop)
    assert out.shape == [1]
    np.testing.assert_array_equal(out.numpy(), [2.5])


@pytest.mark.parametrize("start, stop, bad", [(0, 1, "stop_axis"), (1, 0, "start_axis"), (-2, 0, "start_axis")])
def test_flatten_0d_refuses_other_axes(start, stop, bad):
    x = eager.to_tensor(2.5)
    with pytest.raises(ValueError, match=rf"flatten: argument '{bad}' expected 0 or -1 for a 0-d x"):
        eager.flatten(x, start, stop)
    with pytest.raises(ValueError, match=rf"flatten_: argument '{bad}'"):
        eager.flatten_(x, start, stop)
    assert x.shape == []


def test_flip_two_spellings_of_one_axis_reverse_it_once():
    data = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    x = _leaf(data, np.float64)
    out = eager.flip(x, [0, -3])
    np.testing.assert_array_equal(out.numpy(), data[::-1])
    out.backward(eager.to_tensor(data))
    np.testing.assert_array_equal(x.grad.numpy(), data[::-1])
    with pytest.raises(ValueError, match="flip: argument 'axis' lists axis 0 more than once"):
        eager.flip(x, [0, 0])
