"""Cases found by re-running the dygraph parts of PaddlePaddle's own indexing unit
tests (test/indexing: test_getitem, test_getitem_appendix, test_setitem,
test_setitem_appendix; test/legacy_test: test_set_value_op's dygraph API classes,
test_var_base's slicing and setitem parts, test_select_scatter_op,
test_diagonal_scatter) with ``import eager as paddle`` and checking each failure
against real Paddle 2.6.2. Each test failed before its fix:

- Tensor.expand_as(y) / expand_as(x, y) with y a NumPy array was refused; Paddle
  2.6.2 reads only y.shape, so an array works as a Tensor does;
- x[index] = value with a list or tuple value was taken (as a NumPy array);
  Paddle 2.6.2 refuses it with ValueError ("Value type error"), PyTorch with
  TypeError (test_set_value_op's error test): now ArgumentKindError, both;
- x[index] with an index array past its axis (x[[1, 3]] of x [2, 5]), more index
  arrays than axes, or two Ellipses raised an IndexError only; Paddle 2.6.2 raises
  ValueError there (and IndexError for an int past the axis): the error is now
  both, for getitem and setitem alike;
- an index of a wrong kind (a str, a float, [None]) raised TypeError only, and x[index]
  = v named the inplace op (``setitem_:``) in its message; Paddle 2.6.2 raises
  ValueError: now ArgumentKindError (both), naming setitem; the error for a write
  into a leaf that needs a gradient, and for a number x's dtype cannot hold, also
  named setitem_ (the latter its argument 'other');
- NaN or inf into a bool tensor (x[0] = nan, full([2], nan, 'bool'), full_like) was
  refused as not finite; Paddle 2.6.2 (and NumPy's cast) store True;
- index_add / index_select / scatter (every kernel's index range check) raised an
  IndexError only; Paddle 2.6.2 raises ValueError for index_add and index_select
  (IndexError for scatter): now ElementIndexError, both;
- select_scatter refused values of another dtype (Paddle 2.6.2 casts them to x's),
  and an index below the axis raised IndexError only (Paddle: ValueError);
- diagonal_scatter's checks of x's rank, the axes and y's shape raised ValueError
  only; Paddle asserts them (test_diagonal_scatter expects AssertionError): now
  AssertedArgumentError, both;
- array_write past the array's end raised ValueError only; Paddle asserts it
  (AssertionError): now AssertedArgumentError, both.

Seen and kept (Paddle 2.6.2 bugs or limits; eager keeps the correct value or its
clear error): ``x[index] = v`` with an index array into an x that needs no gradient
leaves v.grad None in Paddle (test_setitem's inplace_with_stride_bwd cases expect
it set, as eager does; Paddle 3 fixed it); x[True] and x[to_tensor(True)] of a 0-d
x crash Paddle; a getitem gradient through an all-False mask crashes it; an index
array past the axis in setitem writes outside the buffer (heap corruption); NaN /
inf or 300 into an int8 x are written as garbage (eager: ValueError naming the
value); a masked setitem into a bool or complex x has no CPU kernel in Paddle; a
NumPy scalar of an integer type (np.int64(3)) and a NumPy array into an int8 x are
refused by Paddle and taken here. diagonal_scatter gives y no gradient in Paddle
2.6.2 (docs/autograd.md); index_fill_ along an axis other than 0 fills along axis 0
there (docs row updated); index_fill with a 0-d Tensor value of another dtype is
refused by Paddle's kernel and cast here; an index past the axis in index_fill,
select_scatter or index_put (more index tensors than axes) gives garbage in Paddle.
x[3:-3:-1], x[-3:3] and x[[], []] of an empty x raise in Paddle 2.6.2 and are empty
here; Paddle's slice clamps an axis of 100 to the last one; None after a sliced axis
with an int further on, an empty masked write and a broadcast value in an advanced
write differ too (docs/autograd.md, "Ops that differ from Paddle"), and
tensor_array_to_tensor(use_stack=True) returns sizes of 1 (docs/architecture.md).
Not in Paddle 2.6.2 (so not a target): masked_scatter and slice_scatter (Paddle 3
broadcasts x with a larger mask in masked_scatter; eager refuses it).
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


# -- expand_as with a NumPy y --------------------------------------------------------------

@pytest.mark.parametrize("call", [lambda x, y: x.expand_as(y), lambda x, y: eager.expand_as(x, y)])
def test_expand_as_takes_a_numpy_array_y(call):
    data = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    x = eager.to_tensor(data, stop_gradient=False)
    out = call(x, np.zeros((2, 3)))
    assert out.shape == [2, 3] and out.dtype == eager.float32
    np.testing.assert_array_equal(out.numpy(), np.broadcast_to(data, (2, 3)))
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_expand_as_numpy_y_of_a_shape_x_cannot_reach():
    with pytest.raises(ValueError, match="expand"):
        eager.to_tensor([1.0, 2.0, 3.0]).expand_as(np.zeros((2, 4)))


# -- setitem with a list value -------------------------------------------------------------

@pytest.mark.parametrize("index", [0, slice(1, None), [0, 1], Ellipsis])
@pytest.mark.parametrize("value", [[1.0, 2.0, 3.0], (1.0,), [[3.9]]])
def test_setitem_refuses_a_list_value(index, value):
    x = eager.zeros([3, 3])
    with pytest.raises(ValueError, match="setitem: argument 'value' expected a Tensor, a NumPy array or a number"):
        x[index] = value
    with pytest.raises(TypeError):
        x[index] = value
    np.testing.assert_array_equal(x.numpy(), np.zeros((3, 3)))
    assert x.inplace_version == 0


def test_setitem_still_takes_arrays_numbers_and_tensors_of_other_dtypes():
    x = eager.zeros([2, 3], dtype="int32")
    x[0] = np.array([1.7, 2.2, -3.9])
    x[1, 1:] = 2.9
    x[1, 0] = eager.to_tensor(True)
    # value from Paddle 2.6.2: each value cast to int32 (truncated towards zero)
    np.testing.assert_array_equal(x.numpy(), [[1, 2, -3], [1, 2, 2]])
    assert x.inplace_version == 3


# -- index errors: IndexError and Paddle's ValueError ---------------------------------------

@pytest.mark.parametrize("index", [[1, 3], ([0, 1], [3, 2], [1, 1]), (Ellipsis, Ellipsis), (slice(None), [5])])
def test_getitem_index_array_errors_are_paddles_value_error(index):
    x = eager.to_tensor(np.arange(10).reshape(2, 5))
    for kind in (ValueError, IndexError):
        with pytest.raises(kind, match="getitem: argument 'index'"):
            x[index]


def test_getitem_index_array_past_the_axis_names_the_axis():
    x = eager.to_tensor(np.arange(10).reshape(2, 5))
    with pytest.raises(ValueError, match="index 3 is out of bounds for axis 0 with size 2"):
        x[eager.to_tensor([1, 3])]
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 1 with size 5"):
        x[:, [7]]


@pytest.mark.parametrize("index", [[5], ([0, 1], [0, 3]), (Ellipsis, Ellipsis)])
def test_setitem_index_errors_are_both_and_write_nothing(index):
    x = eager.zeros([5, 3])
    for kind in (ValueError, IndexError):
        with pytest.raises(kind, match="setitem: argument 'index'"):
            x[index] = 1.0
    np.testing.assert_array_equal(x.numpy(), np.zeros((5, 3)))
    assert x.inplace_version == 0


def test_zero_d_tensor_index_errors():
    x = eager.to_tensor(42)
    with pytest.raises(ValueError):  # Paddle 2.6.2: ValueError (too many indices)
        x[:]
    with pytest.raises(IndexError):
        x[0]


# -- select_scatter / diagonal_scatter -------------------------------------------------------

def test_select_scatter_casts_values_to_x_dtype():
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    values = np.full((2, 4), 0.5)  # float64 into a float32 x: Paddle 2.6.2 casts (values.astype)
    x = eager.to_tensor(data, stop_gradient=False)
    v = eager.to_tensor(values, stop_gradient=False)
    out = eager.select_scatter(x, v, 1, 1)
    want = data.copy()
    want[:, 1, :] = values
    assert out.dtype == eager.float32
    np.testing.assert_array_equal(out.numpy(), want)
    out.sum().backward()
    assert v.grad.dtype == eager.float64
    np.testing.assert_array_equal(v.grad.numpy(), np.ones((2, 4)))


def test_select_scatter_index_below_the_axis_is_a_value_error():
    x = eager.zeros([2, 3, 4])
    for kind in (ValueError, IndexError):  # Paddle 2.6.2: ValueError for index -4
        with pytest.raises(kind, match="select_scatter: argument 'index' expected a position in"):
            eager.select_scatter(x, eager.ones([2, 4]), 1, -4)


@pytest.mark.parametrize("args", [
    (eager.to_tensor([1.0]), eager.to_tensor(np.zeros(0, np.float32))),  # x of one dimension
    (eager.ones([10, 10]), eager.to_tensor([1.0])),  # y not the diagonal's shape
    (eager.ones([10, 10]), eager.ones([10]), 0, 1000, 1),  # axis1 out of range
    (eager.ones([10, 10]), eager.ones([10]), 0, 0, -1000),  # axis2 out of range
    (eager.ones([10, 10]), eager.ones([10]), 0, 0, 0),  # the same axis twice
])
def test_diagonal_scatter_errors_are_paddles_assertion_error(args):
    # test_diagonal_scatter expects AssertionError (Paddle's asserts); still a ValueError here
    for kind in (AssertionError, ValueError):
        with pytest.raises(kind, match="diagonal_scatter: argument"):
            eager.diagonal_scatter(*args)


# -- tensor arrays -----------------------------------------------------------------------------

def test_array_write_past_the_end_is_paddles_assertion_error():
    for kind in (AssertionError, ValueError):
        with pytest.raises(kind, match="array_write: argument 'i' expected a position <= the array's length 0"):
            eager.tensor.array_write(eager.ones([2]), eager.to_tensor([3]), eager.tensor.create_array("float32"))


@pytest.mark.parametrize("index", ["a", 1.0, [None], {0: 1}, np.array([1.0])])
def test_index_of_a_wrong_kind_is_also_paddles_value_error(index):
    x = eager.zeros([3])
    for kind in (TypeError, ValueError):  # Paddle 2.6.2: ValueError ("only allows indexing by ...")
        with pytest.raises(kind, match="getitem: argument 'index' expected ints, slices"):
            x[index]
        with pytest.raises(kind, match="setitem: argument 'index' expected ints, slices"):  # not setitem_
            x[index] = 1.0


def test_setitem_into_a_leaf_that_needs_grad_names_setitem():
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(ValueError, match="^setitem: a leaf tensor with stop_gradient=False"):  # Paddle: ValueError
        x[0] = 5.0
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("call", [
    lambda x: eager.index_add(x, eager.to_tensor([5]), 0, eager.ones([1, 3])),
    lambda x: eager.index_add(x, eager.to_tensor([-1]), 0, eager.ones([1, 3])),
    lambda x: eager.index_select(x, eager.to_tensor([5])),
    lambda x: eager.scatter(x, eager.to_tensor([5]), eager.ones([1, 3])),
])
def test_index_op_range_errors_are_both_index_and_value_errors(call, device):
    if device == "gpu":
        pytest.skip("the range check reads the index back: anomaly mode only on the GPU")
    x = eager.zeros([4, 3])
    # Paddle 2.6.2: ValueError for index_add / index_select, IndexError for scatter
    for kind in (ValueError, IndexError):
        with pytest.raises(kind, match="argument 'index' expected index values in"):
            call(x)
    np.testing.assert_array_equal(x.numpy(), np.zeros((4, 3)))


# -- numbers into a bool tensor ----------------------------------------------------------------

@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_nan_and_inf_into_bool_are_true(value):
    # values from Paddle 2.6.2 (and NumPy's cast): a nonzero number is True
    x = eager.zeros([2], dtype="bool")
    x[0] = value
    np.testing.assert_array_equal(x.numpy(), [True, False])
    np.testing.assert_array_equal(eager.full([2], value, "bool").numpy(), [True, True])
    np.testing.assert_array_equal(eager.full_like(x, value).numpy(), [True, True])


def test_number_out_of_an_integer_range_names_setitem_and_value():
    x = eager.zeros([2], dtype="int32")
    with pytest.raises(ValueError, match="^setitem: argument 'value' expected a finite number for dtype"):
        x[0] = float("nan")
    with pytest.raises(ValueError, match=r"^setitem: argument 'value' expected a number in \[-2147483648"):
        x[0] = 2 ** 40
    np.testing.assert_array_equal(x.numpy(), [0, 0])
