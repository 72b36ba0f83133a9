"""Cases a differential sweep of the Tensor object's own API (properties,
conversions, copies, autograd entry points, printing) found against Paddle 2.6's
Tensor: each failed before its fix."""
import copy
import pickle

import numpy as np
import pytest

import eager
from eager.autograd import gradcheck


def _leaf(values, dtype="float64"):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


# -- hashing ------------------------------------------------------------------------

def test_a_tensor_hashes_by_identity_as_paddle():
    a, b = eager.to_tensor([1.0, 2.0]), eager.to_tensor([1.0, 2.0])
    assert hash(a) == hash(a) and hash(a) != hash(b)
    groups = {a: "first", b: "second"}  # parameter groups key tensors by identity
    assert groups[a] == "first" and groups[b] == "second"
    assert len({a, a, b}) == 2


# -- T ------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [[], [4], [2, 3], [2, 3, 4], [1, 2, 1, 3]])
def test_T_reverses_every_axis(shape):
    values = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    out = eager.to_tensor(values).T
    expected = np.empty(values.shape[::-1])
    for index in np.ndindex(*values.shape):  # out[i_n, ..., i_1] = x[i_1, ..., i_n]
        expected[index[::-1]] = values[index]
    assert out.shape == list(values.shape[::-1])
    np.testing.assert_array_equal(out.numpy(), expected)


def test_T_of_a_1d_tensor_is_the_tensor_itself_as_paddle():
    x = eager.to_tensor([1.0, 2.0])
    assert x.T is x


def test_T_is_differentiable():
    x = _leaf(np.random.default_rng(0).standard_normal((2, 3, 4)))
    assert gradcheck(lambda t: (t.T * t.T).sum() + t.T[0, 1, 1], (x,))


# -- copy_ and data ------------------------------------------------------------------

def test_copy_writes_src_into_the_buffer_in_place():
    x = eager.zeros([2, 2], dtype="float64")
    view_before = x.numpy()
    version = x.inplace_version
    assert x.copy_(eager.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64"), False) is None
    np.testing.assert_array_equal(x.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(view_before, [[1.0, 2.0], [3.0, 4.0]])  # same buffer
    assert x.inplace_version == version + 1


def test_copy_into_a_tensor_without_data_takes_src_and_its_flags():
    x = eager.tensor.create_tensor("float32")
    src = eager.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    x.copy_(src, True)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
    assert x.shape == [3] and x.stop_gradient is False


@pytest.mark.parametrize("src, blocking, error, words", [
    (np.zeros(2, np.float32), True, TypeError, "argument 'src' expected a Tensor"),
    ("zeros", True, TypeError, "argument 'src' expected a Tensor"),
    (eager.zeros([2], dtype="int64"), True, TypeError, "expected dtype paddle.float32"),
    (eager.zeros([3]), True, ValueError, "expected shape [2]"),
    (eager.zeros([2]), "yes", TypeError, "argument 'blocking' expected a bool"),
])
def test_copy_refuses_bad_input_leaving_the_tensor_unchanged(src, blocking, error, words):
    x = eager.to_tensor([5.0, 6.0])
    with pytest.raises(error, match="copy_") as info:
        x.copy_(src, blocking)
    assert words in str(info.value)
    np.testing.assert_array_equal(x.numpy(), [5.0, 6.0])


def test_data_is_the_tensor_and_its_setter_takes_the_other_buffer():
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    assert x.data is x
    y = eager.to_tensor([7.0, 8.0, 9.0])
    x.data = y
    assert x.shape == [3] and x.stop_gradient is False  # keeps its own autograd state
    np.testing.assert_array_equal(x.numpy(), [7.0, 8.0, 9.0])
    with pytest.raises(TypeError, match="data: expected a Tensor, got list"):
        x.data = [1.0]
    np.testing.assert_array_equal(x.numpy(), [7.0, 8.0, 9.0])


# -- Python number conversions ---------------------------------------------------------

def test_complex_of_a_one_element_tensor():
    assert complex(eager.to_tensor(1 + 2j)) == 1 + 2j
    assert complex(eager.to_tensor([2.5])) == 2.5 + 0j
    assert complex(eager.to_tensor(3)) == 3 + 0j
    with pytest.raises(ValueError, match="one element"):
        complex(eager.to_tensor([1.0, 2.0]))


@pytest.mark.parametrize("convert", [float, int])
def test_a_complex_tensor_refuses_a_real_conversion_naming_it(convert):
    with pytest.raises(TypeError, match=rf"{convert.__name__}\(\): a paddle.complex64 tensor does not convert"):
        convert(eager.to_tensor(1 + 2j))


# -- autograd entry points ----------------------------------------------------------------

def test_backward_refuses_a_non_bool_retain_graph_before_running():
    w = _leaf([1.0, 2.0])
    y = (w * w).sum()
    with pytest.raises(TypeError, match="backward: argument 'retain_graph' expected a bool, got str"):
        y.backward(retain_graph="yes")
    assert w.grad is None
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0])


def test_clear_grad_refuses_a_non_bool_set_to_zero_leaving_grad():
    w = _leaf([1.0, 2.0])
    (w * 3).sum().backward()
    with pytest.raises(TypeError, match="clear_grad: argument 'set_to_zero' expected a bool, got str"):
        w.clear_grad("no")
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 3.0])
    w.clear_gradient(set_to_zero=False)
    assert w.grad is None


# -- printing: Paddle 2.6's to_string layout (expected texts worked out by hand) -----------

@pytest.fixture
def print_options():
    """Sets print options for one test and restores Paddle's defaults after it."""
    yield eager.set_printoptions
    eager.set_printoptions(precision=8, threshold=1000, edgeitems=3, sci_mode=False, linewidth=80)


def _values(x):
    return repr(x).split("\n", 1)[1][len("       "):-1]


def test_an_empty_axis_keeps_its_brackets_as_paddle_prints_it():
    assert _values(eager.zeros([3, 0])) == "[[],\n        [],\n        []]"
    assert _values(eager.zeros([2, 1, 0], dtype="int64")) == "[[[]],\n\n        [[]]]"
    assert _values(eager.zeros([0, 3])) == "[]"
    assert _values(eager.zeros([0])) == "[]"


def test_items_pad_to_the_widest_printed_item_and_narrower_ones_get_the_sign_space():
    # widths: '10.50000000' is 11 characters, so '-1.' pads to 11 and 10.5 takes no sign space
    assert _values(eager.to_tensor([10.5, -1.0], dtype="float64")) == "[10.50000000, -1.        ]"
    assert _values(eager.to_tensor([[-2.0, 0.0], [1.5, 2.0]])) == ("[[-2.       ,  0.       ],\n"
                                                                    "        [1.50000000,  2.       ]]")
    assert _values(eager.to_tensor([True, False])) == "[True , False]"


def test_a_row_holds_as_many_items_as_fit_the_linewidth_after_its_indent(print_options):
    print_options(linewidth=20)  # (20 - 7) // (1 + 2) = 4 items a line
    assert _values(eager.to_tensor([1, 2, 3, 4, 5, 6])) == "[1, 2, 3, 4,\n        5, 6]"
    print_options(threshold=5, edgeitems=2)  # the '...' counts as an item of the line
    assert _values(eager.arange(10)) == "[0, 1, ..., 8,\n        9]"


def test_complex_items_print_as_python_writes_them():
    assert _values(eager.to_tensor(np.array([1.5 - 2j, -3j]))) == "[(1.5-2j), (-0-3j) ]"
    # a complex64 value prints with the digits of the float32 numbers it holds, exactly
    assert _values(eager.to_tensor(np.complex64(0.1 + 0.2j))) == "(0.10000000149011612+0.20000000298023224j)"


def test_an_f_string_without_a_spec_gives_the_repr_as_paddle():
    for x in (eager.to_tensor(3.5), eager.to_tensor([[2]]), eager.to_tensor([1.0, 2.0])):
        assert f"{x}" == repr(x) == str(x)
    assert f"{eager.to_tensor([[0.25]]):.3f}" == "0.250"  # a spec formats the one element
    with pytest.raises(TypeError, match="unsupported format string '.2f' for a tensor of shape \\[2\\]"):
        f"{eager.to_tensor([1.0, 2.0]):.2f}"


# -- copy.deepcopy and pickle ---------------------------------------------------------------

def test_deepcopy_of_a_non_leaf_is_a_new_leaf_outside_the_graph_as_paddle():
    w = _leaf([1.0, 2.0])
    y = w * 3
    c = copy.deepcopy(y)
    assert c.is_leaf and c.stop_gradient is False and c.grad_node is None
    np.testing.assert_array_equal(c.numpy(), [3.0, 6.0])
    (c * c).sum().backward()  # d(c^2)/dc = 2c, and nothing reaches w
    np.testing.assert_array_equal(c.grad.numpy(), [6.0, 12.0])
    assert w.grad is None


def test_pickle_round_trips_a_trained_leaf_and_a_non_leaf():
    w = _leaf([1.0, 2.0])
    view = w[0:1]  # a tracked view: its weak link is not part of the copy
    (w * w).sum().backward()
    back = pickle.loads(pickle.dumps(w))
    np.testing.assert_array_equal(back.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(back.grad.numpy(), [2.0, 4.0])
    assert back.stop_gradient is False and back.is_leaf
    y = pickle.loads(pickle.dumps(w * 2))
    assert y.is_leaf and y.stop_gradient is False
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])
    assert view.shape == [1]


def test_deepcopy_of_a_layer_keeps_its_parameters_attributes():
    layer = eager.nn.Linear(2, 3)
    layer.weight.optimize_attr["learning_rate"] = 0.5
    twin = copy.deepcopy(layer)
    assert type(twin.weight) is type(layer.weight) and twin.weight is not layer.weight
    assert twin.weight.optimize_attr == {"learning_rate": 0.5} and twin.weight.trainable
    np.testing.assert_array_equal(twin.weight.numpy(), layer.weight.numpy())


@pytest.mark.parametrize("attribute, value, words", [
    ("stop_gradient", "no", "stop_gradient: expected a bool, got str"),
    ("stop_gradient", None, "stop_gradient: expected a bool, got NoneType"),
    ("name", 5, "name: expected a str, got int"),
])
def test_attribute_setters_refuse_the_wrong_type_leaving_the_tensor(attribute, value, words):
    x = eager.to_tensor([1.0], stop_gradient=False)
    x.name = "w"
    with pytest.raises(TypeError, match=words):
        setattr(x, attribute, value)
    assert x.stop_gradient is False and x.name == "w"
    x.stop_gradient = np.bool_(True)
    assert x.stop_gradient is True
