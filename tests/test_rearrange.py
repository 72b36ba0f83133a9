"""The rearrange ops beyond the op table: Paddle's documented examples, clear
errors for bad arguments, results that never share x's buffer, the Tensor
methods, and gradients of third order through the composite rules."""
import numpy as np
import pytest

import eager as paddle
from eager.autograd import gradgradcheck
from eager.autograd.gradient_check import gradient_function


def _t(values, dtype="float64", stop_gradient=True):
    return paddle.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=stop_gradient)


GRID = np.arange(1, 10).reshape(3, 3)  # [[1, 2, 3], [4, 5, 6], [7, 8, 9]]


# -- Paddle's documented behaviour ---------------------------------------------------------

def test_tile_pads_repeat_times_or_x_with_leading_ones():
    data = _t([1, 2, 3], "int32")
    np.testing.assert_array_equal(paddle.tile(data, [2, 1]).numpy(), [[1, 2, 3], [1, 2, 3]])
    np.testing.assert_array_equal(paddle.tile(data, (2, 2)).numpy(), [[1, 2, 3, 1, 2, 3]] * 2)
    np.testing.assert_array_equal(paddle.tile(data, _t([1, 2], "int32")).numpy(), [[1, 2, 3, 1, 2, 3]])
    assert paddle.tile(paddle.ones([2, 3]), [2]).shape == [2, 6]


def test_roll_flattens_without_axis_and_shifts_along_given_axes():
    x = _t(GRID)
    np.testing.assert_array_equal(paddle.roll(x, 1).numpy(), [[9, 1, 2], [3, 4, 5], [6, 7, 8]])
    np.testing.assert_array_equal(paddle.roll(x, 1, axis=None).numpy(), paddle.roll(x, [1]).numpy())
    np.testing.assert_array_equal(paddle.roll(x, -1, 0).numpy(), [[4, 5, 6], [7, 8, 9], [1, 2, 3]])
    np.testing.assert_array_equal(paddle.roll(x, [1, -1], [1, 0]).numpy(), [[6, 4, 5], [9, 7, 8], [3, 1, 2]])


def test_flip_takes_an_int_or_a_list():
    x = _t(GRID)
    np.testing.assert_array_equal(paddle.flip(x, 0).numpy(), GRID[::-1])
    np.testing.assert_array_equal(paddle.flip(x, [0, 1]).numpy(), GRID[::-1, ::-1])
    np.testing.assert_array_equal(x.flip(-1).numpy(), GRID[:, ::-1])


def test_rot90_turns_from_the_first_axis_towards_the_second():
    data = _t([[0, 1], [2, 3]])
    np.testing.assert_array_equal(paddle.rot90(data).numpy(), [[1, 3], [0, 2]])
    np.testing.assert_array_equal(paddle.rot90(data, -1).numpy(), [[2, 0], [3, 1]])
    np.testing.assert_array_equal(paddle.rot90(data, 1, [1, 0]).numpy(), [[2, 0], [3, 1]])
    np.testing.assert_array_equal(paddle.rot90(data, 4).numpy(), data.numpy())


def test_slice_clamps_out_of_range_starts_and_ends():
    x = paddle.ones([4, 5, 6])
    assert paddle.slice(x, [0, 1, 2], [-3, 0, 2], [3, 2, 4]).shape == [2, 2, 2]  # x[1:3, 0:2, 2:4]
    assert paddle.slice(x, [1], [0], [10000]).shape == [4, 5, 6]
    assert paddle.slice(x, [0], [-10000], [-1]).shape == [3, 5, 6]
    assert paddle.slice(x, [2], [5], [2]).shape == [4, 5, 0]
    values = _t(GRID)
    np.testing.assert_array_equal(paddle.slice(values, [1, 0], [1, -2], [100, 100]).numpy(), GRID[1:, 1:])


def test_strided_slice_as_in_paddle_docs():
    x = paddle.ones([3, 4, 5, 6])
    assert paddle.strided_slice(x, [1, 2, 3], [-3, 0, 2], [3, 2, 4], [1, 1, 1]).shape == [3, 2, 2, 2]
    assert paddle.strided_slice(x, [1, 2, 3], [-3, 0, 2], [3, 2, 4], [1, 1, 2]).shape == [3, 2, 2, 1]
    row = _t(np.arange(6))
    np.testing.assert_array_equal(paddle.strided_slice(row, [0], [-1], [-7], [-2]).numpy(), [5, 3, 1])
    np.testing.assert_array_equal(paddle.strided_slice(row, [0], [4], [-1], [-1]).numpy(), [])


def test_repeat_interleave_int_tensor_and_flattening():
    x = _t([[1, 2, 3], [4, 5, 6]], "int64")
    np.testing.assert_array_equal(paddle.repeat_interleave(x, _t([3, 2, 1], "int32"), axis=1).numpy(),
                                  [[1, 1, 1, 2, 2, 3], [4, 4, 4, 5, 5, 6]])
    np.testing.assert_array_equal(paddle.repeat_interleave(x, 2, axis=0).numpy(),
                                  [[1, 2, 3], [1, 2, 3], [4, 5, 6], [4, 5, 6]])
    np.testing.assert_array_equal(paddle.repeat_interleave(x, 2).numpy(), [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6])
    np.testing.assert_array_equal(x.repeat_interleave(_t([2], "int64"), 0).numpy(),
                                  [[1, 2, 3], [1, 2, 3], [4, 5, 6], [4, 5, 6]])


def test_repeat_interleave_gradient_adds_each_elements_copies():
    x = _t([1.0, 2.0, 3.0], stop_gradient=False)
    out = paddle.repeat_interleave(x, _t([3, 0, 2], "int64"), 0)
    (out * _t([1.0, 10.0, 100.0, 1000.0, 10000.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [111.0, 0.0, 11000.0])


def test_moveaxis_t_unstack_chunk_expand_as_broadcast_tensors_shapes():
    x = paddle.ones([3, 2, 7])
    assert paddle.moveaxis(x, [0, 1], [1, 2]).shape == [7, 3, 2]
    assert paddle.moveaxis(x, 0, 1).shape == [2, 3, 7]
    assert x.moveaxis(-1, 0).shape == [7, 3, 2]
    assert paddle.t(paddle.ones([2, 3])).shape == [3, 2]
    assert paddle.t(paddle.ones([4])).shape == [4] and paddle.t(paddle.ones([])).shape == []
    assert [p.shape for p in paddle.unstack(paddle.ones([2, 3, 5]), axis=1)] == [[2, 5]] * 3
    assert [p.shape for p in paddle.ones([3, 9, 5]).chunk(3, axis=1)] == [[3, 3, 5]] * 3
    assert paddle.expand_as(paddle.ones([3]), paddle.ones([2, 3], "int32")).shape == [2, 3]
    a, b = paddle.broadcast_tensors([paddle.ones([2, 1, 3]), paddle.ones([4, 1])])
    assert a.shape == b.shape == [2, 4, 3]


def test_tensor_split_an_int_is_a_count_and_a_list_holds_indices():
    x = paddle.ones([8])
    assert [p.shape for p in paddle.tensor_split(x, num_or_indices=2)] == [[4], [4]]
    assert [p.shape for p in paddle.tensor_split(x, 3)] == [[3], [3], [2]]
    assert [p.shape for p in paddle.tensor_split(x, [2, 3])] == [[2], [1], [5]]
    assert [p.shape for p in paddle.tensor_split(x, [3])] == [[3], [5]]          # one index, not 3 pieces
    assert [p.shape for p in paddle.tensor_split(x, _t(3, "int64"))] == [[3], [3], [2]]  # a 0-d tensor counts
    assert [p.shape for p in paddle.tensor_split(x, _t([3], "int64"))] == [[3], [5]]
    assert [p.shape for p in paddle.ones([7, 8]).tensor_split(2, axis=1)] == [[7, 4], [7, 4]]
    values = _t(np.arange(6))
    assert [p.numpy().tolist() for p in paddle.tensor_split(values, [4, 1, -1])] == [[0, 1, 2, 3], [], [1, 2, 3, 4],
                                                                                      [5]]


def test_tensor_split_gradient_adds_overlapping_pieces():
    x = _t(np.zeros(6), stop_gradient=False)
    first, _, third, _ = paddle.tensor_split(x, [4, 1, -1])
    (first.sum() + 10 * third.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1, 11, 11, 11, 10, 0])


def test_methods_exist_where_paddle_has_them():
    for name in ("tile", "flip", "slice", "chunk", "roll", "expand_as", "moveaxis", "t", "unstack",
                 "repeat_interleave", "strided_slice", "rot90", "tensor_split"):
        assert callable(getattr(paddle.Tensor, name)), name


# -- clear errors, before any kernel ------------------------------------------------------

X23 = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: paddle.tile(x, [2, 0]), ValueError, r"tile: argument 'repeat_times' expected positive integers"),
    (lambda x: paddle.flip(x, [1, 1]), ValueError, r"flip: argument 'axis' lists axis 1 more than once"),
    (lambda x: paddle.flip(x, 2), ValueError, r"flip: argument 'axis' expected an axis in \[-2, 2\)"),
    (lambda x: paddle.slice(x, [0], [0, 1], [1]), ValueError, r"slice: arguments 'axes', 'starts', 'ends'"),
    (lambda x: paddle.slice(x, [3], [0], [1]), ValueError, r"slice: argument 'axes' expected an axis"),
    (lambda x: paddle.roll(x, [1, 2]), ValueError, r"roll: argument 'shifts' expected one shift when axis is None"),
    (lambda x: paddle.roll(x, [1], [0, 1]), ValueError, r"roll: arguments 'shifts', 'axis'"),
    (lambda x: paddle.expand_as(x, paddle.ones([3, 3])), ValueError, r"expand_as: argument 'y' of shape \[3, 3\]"),
    (lambda x: paddle.broadcast_tensors([x, paddle.ones([4], "float64")]), ValueError,
     r"broadcast_tensors: argument 'input': input\[1\] of shape \[4\] cannot be broadcast with \[2, 3\]"),
    (lambda x: paddle.broadcast_tensors([x, paddle.ones([3])]), ValueError,
     r"broadcast_tensors: argument 'input' expected tensors of one dtype"),
    (lambda x: paddle.broadcast_tensors([]), ValueError, r"broadcast_tensors: argument 'input' expected at least one"),
    (lambda x: paddle.moveaxis(x, [0], [0, 1]), ValueError, r"moveaxis: arguments 'source', 'destination'"),
    (lambda x: paddle.moveaxis(x, [0, 0], [0, 1]), ValueError, r"moveaxis: argument 'source' lists axis 0 more"),
    (lambda x: paddle.t(paddle.ones([2, 2, 2])), ValueError, r"t: argument 'input' expected a tensor of at most 2"),
    (lambda x: paddle.unstack(x, 0, num=3), ValueError, r"unstack: argument 'num' = 3 must equal the size 2"),
    (lambda x: paddle.unstack(paddle.ones([])), ValueError, r"unstack: argument 'x' is 0-d"),
    (lambda x: paddle.repeat_interleave(x, [1, 2], 1), ValueError,
     r"repeat_interleave: argument 'repeats' expected one count, or one per element of the axis \(3\), got 2"),
    (lambda x: paddle.repeat_interleave(x, -1), ValueError, r"repeat_interleave: argument 'repeats' expected non-neg"),
    (lambda x: paddle.repeat_interleave(x, _t([1.5])), TypeError, r"repeat_interleave: argument 'repeats'"),
    (lambda x: paddle.strided_slice(x, [0], [0], [1], [0]), ValueError,
     r"strided_slice: argument 'strides' expected non-zero strides"),
    (lambda x: paddle.rot90(paddle.ones([3])), ValueError, r"rot90: argument 'x' expected a tensor of at least 2"),
    (lambda x: paddle.rot90(x, 1, [1, -1]), ValueError, r"rot90: argument 'axes' lists axis -1 more than once"),
    (lambda x: paddle.rot90(x, 1, [0]), ValueError, r"rot90: argument 'axes' expected two axes"),
    (lambda x: paddle.chunk(x, 2, axis=1), ValueError, r"chunk: argument 'chunks' = 2 must divide"),
    (lambda x: paddle.tensor_split(x, 0), ValueError,
     r"tensor_split: argument 'num_or_indices' expected a positive number of pieces, got 0"),
    (lambda x: paddle.tensor_split(paddle.ones([]), 2), ValueError, r"tensor_split: argument 'x' is 0-d"),
    (lambda x: paddle.tensor_split(x, 2, axis=2), ValueError, r"tensor_split: argument 'axis' expected an axis"),
    (lambda x: paddle.tensor_split(x, [1.5]), TypeError, r"tensor_split: argument 'num_or_indices' expected a list"),
    (lambda x: paddle.tensor_split(x, 2 ** 40), ValueError, r"tensor_split: argument 'num_or_indices' asks for"),
    (lambda x: paddle.tile(x, [2 ** 40, 2 ** 40]), ValueError, r"tile: argument 'repeat_times' gives a result"),
    (lambda x: paddle.repeat_interleave(x, 2 ** 62), ValueError, r"repeat_interleave: argument 'repeats' gives a"),
])
def test_bad_arguments_raise_naming_the_op_and_argument_and_leave_x_alone(call, error, message):
    x = _t(X23, stop_gradient=False)
    with pytest.raises(error, match=message):
        call(x)
    np.testing.assert_array_equal(x.numpy(), X23)
    assert x.grad is None


@pytest.mark.parametrize("call, message", [
    (lambda: paddle.ops.tile_grad(paddle.ones([2, 3]), paddle.ones([2, 3]), [2, 1]),
     r"tile_grad: argument 'out_grad' expected paddle.float32\[4, 3\] \(the forward op's result\)"),
    (lambda: paddle.ops.slice_grad(paddle.ones([4, 5]), paddle.ones([3, 3]), [0], [1], [3]),
     r"slice_grad: argument 'out_grad' expected paddle.float32\[2, 5\]"),
    (lambda: paddle.ops.strided_slice_grad(paddle.ones([6]), paddle.ones([2]), [0], [0], [6], [2]),
     r"strided_slice_grad: argument 'out_grad' expected paddle.float32\[3\]"),
    (lambda: paddle.ops.expand_as_grad(paddle.ones([3]), paddle.ones([2, 3]), paddle.ones([2, 3], "float64")),
     r"expand_as_grad: argument 'out_grad' expected paddle.float32\[2, 3\]"),
    (lambda: paddle.ops.repeat_interleave_grad(paddle.ones([3]), paddle.ones([5]), [2], None),
     r"repeat_interleave_grad: argument 'out_grad' expected paddle.float32\[6\]"),
    (lambda: paddle.ops.tensor_split_grad(paddle.ones([5]), [paddle.ones([3]), paddle.ones([3])], 2, 0),
     r"tensor_split_grad: argument 'out_grad' expected \['paddle.float32\[3\]', 'paddle.float32\[2\]'\]"),
])
def test_a_backward_op_called_directly_checks_out_grad(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# -- results own their buffers -----------------------------------------------------------

@pytest.mark.parametrize("op", [
    lambda x: paddle.tile(x, [1, 1]), lambda x: paddle.flip(x, []), lambda x: paddle.flip(x, [1]),
    lambda x: paddle.slice(x, [0], [0], [2]), lambda x: paddle.roll(x, 0), lambda x: paddle.expand_as(x, x),
    lambda x: paddle.broadcast_tensors([x])[0], lambda x: paddle.moveaxis(x, 0, 1), lambda x: paddle.t(x),
    lambda x: paddle.unstack(x)[0], lambda x: paddle.repeat_interleave(x, 1, 0),
    lambda x: paddle.strided_slice(x, [1], [0], [3], [1]), lambda x: paddle.rot90(x, 4),
    lambda x: paddle.tensor_split(x, 1)[0], lambda x: paddle.tensor_split(x, [0, 2], 1)[1],
])
def test_writing_into_a_result_leaves_x_unchanged(op):
    x = _t(X23)
    out = op(x)
    paddle.scale_(out, 0.0)
    assert not out.numpy().any()
    np.testing.assert_array_equal(x.numpy(), X23)


# -- gradients of gradients ----------------------------------------------------------------

THIRD_ORDER = {
    "tile": ((2, 3), lambda x: paddle.tile(x * x, [2, 1]) * paddle.tile(x, [2, 1])),
    "flip": ((2, 3), lambda x: paddle.flip(x * x, [0, 1]) * x),
    "roll": ((2, 3), lambda x: paddle.roll(x * x, [1], [1]) * x),
    "rot90": ((2, 3), lambda x: paddle.rot90(x * x, 1) * paddle.t(x)),
    "slice": ((3, 4), lambda x: paddle.slice(x * x, [1], [1], [3]) * paddle.strided_slice(x, [1], [3], [-10], [-2])),
    "moveaxis": ((2, 3), lambda x: paddle.moveaxis(x * x, 0, 1) * paddle.t(x)),
    "repeat_interleave": ((3,), lambda x: paddle.repeat_interleave(x * x, [2, 0, 1], 0)
                          * paddle.repeat_interleave(x, [1, 1, 1], 0)[:3]),
    "expand_as": ((3,), lambda x: paddle.expand_as(x * x, paddle.ones([2, 3])) * x),
    "unstack": ((2, 3), lambda x: paddle.unstack(x * x, 1)[2] * paddle.chunk(x, 3, 1)[0].reshape([2])),
    "tensor_split": ((6,), lambda x: paddle.tensor_split(x * x, [4, 1])[2] * paddle.tensor_split(x, [1])[1]),
    "tensor_split_one_piece": ((3,), lambda x: paddle.tensor_split(x * x, 1)[0] * x),
    "broadcast_tensors": ((3,), lambda x: paddle.broadcast_tensors([x * x, paddle.reshape(x, [3, 1])])[1] * x),
}


@pytest.mark.parametrize("name", sorted(THIRD_ORDER))
def test_third_order_gradients_through_the_composite_rules(name):
    shape, func = THIRD_ORDER[name]
    rng = np.random.default_rng(7)
    x = paddle.to_tensor(rng.uniform(-1, 1, shape), stop_gradient=False)
    seed = paddle.to_tensor(rng.uniform(-1, 1, func(x).shape), stop_gradient=False)
    assert gradgradcheck(gradient_function(func, 1), [x, seed])
