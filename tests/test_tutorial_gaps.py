"""Gaps found by running Paddle's own tutorials (docs/guides, docs/practices) with
``import paddle`` giving eager: each test pins the Paddle 2.6 behaviour a tutorial
relied on, against NumPy or hand-written references."""
import numpy as np
import pytest

import eager
from eager import nn

pytestmark = pytest.mark.usefixtures("device")

INT_DTYPES = ["int32", "int64", "int16", "int8", "uint8"]


# -- pow on integer tensors (dynamic_graph.ipynb: paddle.pow(int64 tensor, i)) -------------

@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("exponent", [0, 1, 2, 3])
def test_pow_of_an_integer_tensor_is_an_integer_power_in_its_dtype(dtype, exponent):
    data = np.array([[0, 1, 2], [3, 4, 5]], dtype)
    out = eager.pow(eager.to_tensor(data), exponent)
    assert out.dtype == getattr(eager, dtype)
    want = np.array([[int(v) ** exponent for v in row] for row in data.tolist()], dtype)
    np.testing.assert_array_equal(out.numpy(), want)


def test_pow_of_an_integer_tensor_truncates_a_float_exponent_as_paddle_casts_it():
    # Paddle's kernel casts the exponent to x's type first: 2.7 acts as 2.
    x = eager.to_tensor(np.array([1, 2, 3, 7], "int64"))
    out = eager.pow(x, 2.7)
    assert out.dtype == eager.int64
    np.testing.assert_array_equal(out.numpy(), [1, 4, 9, 49])


def test_pow_of_an_integer_tensor_is_exact_where_float64_is_not():
    x = eager.to_tensor(np.array([3037000499], "int64"))  # its square is just below 2**63
    assert int(eager.pow(x, 2).numpy()[0]) == 3037000499 ** 2


def test_pow_of_an_integer_tensor_refuses_a_negative_exponent_before_writing():
    x = eager.to_tensor(np.array([1, 2, 3], "int64"))
    with pytest.raises(ValueError, match=r"pow: argument 'y' \(-1\) is a negative exponent for an integer tensor"):
        eager.pow(x, -1)
    with pytest.raises(ValueError, match="negative exponent"):
        x.pow_(-2)
    np.testing.assert_array_equal(x.numpy(), [1, 2, 3])  # the inplace form left x alone


def test_pow_inplace_on_an_integer_tensor():
    x = eager.to_tensor(np.array([1, 2, 3], "int32"))
    assert x.pow_(3) is x
    np.testing.assert_array_equal(x.numpy(), np.array([1, 8, 27], "int32"))
    assert x.dtype == eager.int32


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_tensor_to_an_integer_number_keeps_its_dtype(dtype):
    # Paddle's Tensor.__pow__: an int (or NumPy integer) exponent runs pow on x as it is.
    data = np.array([0, 1, 2, 5], dtype)
    for exponent in (2, np.int64(3)):
        out = eager.to_tensor(data) ** exponent
        assert out.dtype == getattr(eager, dtype)
        np.testing.assert_array_equal(out.numpy(), np.power(data, data.dtype.type(exponent)))


def test_integer_tensor_to_a_float_number_is_float32():
    # ... and a Python float exponent casts x to float32 first.
    data = np.array([1, 2, 3], "int64")
    out = eager.to_tensor(data) ** 0.5
    assert out.dtype == eager.float32
    np.testing.assert_allclose(out.numpy(), np.sqrt(data.astype("float32")), rtol=1e-6)


def test_bool_tensor_to_a_number_is_still_float32():
    out = eager.to_tensor(np.array([True, False])) ** 2
    assert out.dtype == eager.float32
    np.testing.assert_array_equal(out.numpy(), [1.0, 0.0])


def test_float_pow_keeps_its_gradient():
    # The integer kernel leaves floating pow alone: d/dx x**3 = 3 x**2, against finite differences.
    data = np.array([0.5, -1.25, 2.0], "float64")
    x = eager.to_tensor(data, stop_gradient=False)
    (eager.pow(x, 3).sum()).backward()
    h = 1e-6
    numeric = [((data + h * e) ** 3 - (data - h * e) ** 3).sum() / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-6)


# -- a layer's name is only a label (GAN_with_MINIST.ipynb: nn.ReLU(True)) ----------------

@pytest.mark.parametrize("make, scope", [
    (lambda: nn.ReLU(True), "re_lu_"),   # PyTorch's inplace=True lands on Paddle's name
    (lambda: nn.LeakyReLU(0.2, True), "leaky_re_lu_"),
    (lambda: nn.Sigmoid(1), "sigmoid_"),
    (lambda: nn.Dropout(0.5, None, "upscale_in_train", True), "dropout_"),
    (lambda: nn.Linear(2, 3, name=False), "linear_"),
])
def test_built_in_layers_take_any_name_as_paddle_does(make, scope):
    # Paddle's layers only store name; one that is not a str leaves the class's scope.
    assert make().full_name().startswith(scope)


def test_a_layer_name_that_is_a_str_still_names_the_scope():
    assert nn.ReLU(name="act").full_name().startswith("act")
    assert nn.Linear(1, 1, name="proj").full_name().startswith("proj_")


def test_relu_given_true_as_its_name_still_computes_relu():
    data = np.array([-1.0, 0.0, 2.5], "float32")
    out = nn.ReLU(True)(eager.to_tensor(data))
    np.testing.assert_array_equal(out.numpy(), np.maximum(data, 0))


def test_layer_itself_still_refuses_a_name_scope_that_is_not_a_str():
    with pytest.raises(TypeError, match="Layer: argument 'name_scope' expected a non-empty str, got True"):
        nn.Layer(name_scope=True)


# -- index arrays that do not broadcast (tensor_index_cn.md) -------------------------------

def test_index_arrays_that_do_not_broadcast_raise_value_error_as_paddle():
    a = eager.arange(8).reshape((4, 2))
    for index in (([0, 2, 1], [0, 1]), (np.array([0, 2, 1]), np.array([0, 1]))):
        with pytest.raises(ValueError, match=r"getitem: argument 'index' .* cannot index x of shape \[4, 2\]: "
                                             r"shape mismatch"):
            a[index]
        with pytest.raises(ValueError, match="setitem: argument 'index' .* shape mismatch"):
            a[index] = 1
    np.testing.assert_array_equal(a.numpy(), np.arange(8).reshape(4, 2))  # nothing written


def test_an_index_out_of_range_is_still_an_index_error():
    a = eager.arange(8).reshape((4, 2))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 4"):
        a[5]
    with pytest.raises(IndexError):
        a[[0, 4]]


def test_index_arrays_that_broadcast_still_gather():
    data = np.arange(12).reshape(3, 4)
    a = eager.to_tensor(data)
    rows, cols = np.array([[0], [2]]), np.array([1, 3])
    np.testing.assert_array_equal(a[rows, cols].numpy(), data[rows, cols])
