"""Cases a differential sweep against real Paddle 2.6.2 (elementwise math, logic,
bitwise, creation, type promotion, the Tensor operators) found; each failed
before its fix. Expected values come from NumPy references checked against
Paddle 2.6.2, or are literals from Paddle 2.6.2 (said where so).

- exp, expm1, log, log1p, log2, log10 of int32/int64 tensors: Paddle returns
  float32 (its kernels read the integers as float32); eager refused them.
- A NumPy array operand of a Tensor operator (``float32_tensor + int64_array``,
  ``x ** array``, ``array + x``): Paddle makes it a Tensor of its own dtype and
  then applies the Tensor-Tensor rule; eager raised a dtype mismatch.
- ``/`` of two real dtypes: Paddle 2.6.2's ``__div__`` casts the right operand to
  the left one's dtype (float32 / float64 is float32; int32 / float64 truncates
  the right operand before both become float32); eager promoted to float64.
- ``bool * bool`` (and ``multiply``): Paddle's bool kernel (logical and); eager
  had no bool kernel.
- ``assign(x, output)`` with an output of another shape or dtype: Paddle gives
  output x's shape and dtype; eager refused. ``assign`` of a float64 array, list
  or Python float: float32 in Paddle (assign_value); eager kept float64.
- ``diag`` of a 0-d tensor: Paddle reads it as one element; eager refused.
  ``tril_indices(row, None)``: col defaults to row; eager refused None.
- ``ldexp``: Paddle casts x and y to float64 if either is, else to the default
  dtype (float16 x gives float32), and takes a float y; eager kept float16 and
  refused non-integer y.
- ``logaddexp`` of int32/int64 tensors: float32 in Paddle; eager refused.
- ``scale`` of an integer tensor: Paddle casts the factor and the bias to x's
  type first (``scale(int_x, 0.5)`` is 0); eager computed in float.
- ``paddle.tensor.fill_constant`` was missing (the docstring examples run).
"""
import warnings

import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")

LOGS = {"exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "log2": np.log2, "log10": np.log10}


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("name", sorted(LOGS))
def test_exp_and_logarithms_of_wide_integers_are_float32(name, dtype):
    values = np.array([1, 2, 7, 40], dtype=dtype)
    x = eager.to_tensor(values)
    for got in (getattr(eager, name)(x), getattr(x, name)()):
        assert got.dtype == eager.float32
        np.testing.assert_allclose(got.numpy(), LOGS[name](values.astype(np.float32)), rtol=1e-6)
    with pytest.raises(TypeError, match=f"{name}_: the result is paddle.float32 but the tensor written in place"):
        getattr(eager, name + "_")(x)  # Paddle refuses the inplace form too
    np.testing.assert_array_equal(x.numpy(), values)


@pytest.mark.parametrize("name", sorted(LOGS))
def test_exp_and_logarithms_still_refuse_narrow_integers(name):
    with pytest.raises(TypeError, match=f"{name}: no kernel .* got paddle.int16"):
        getattr(eager, name)(eager.to_tensor([1, 2], dtype="int16"))


def test_a_numpy_array_operand_meets_the_tensor_by_the_tensor_rules():
    x = eager.to_tensor([1.5, 2.5, -3.5])
    ints = np.array([1, 2, 3], dtype="int64")
    with pytest.warns(UserWarning, match="add"):
        got = x + ints  # no rule for float32 with int64: the array is cast to float32
    assert got.dtype == eager.float32 and got.numpy().tolist() == [2.5, 4.5, -0.5]
    with pytest.warns(UserWarning, match="subtract"):
        got = ints - x  # reflected: the tensor is still the left operand of the rule
    assert got.dtype == eager.float32 and got.numpy().tolist() == [-0.5, -0.5, 6.5]
    got = x * np.array([2.0, 2.0, 2.0])  # float32 with float64 promotes, as two tensors do
    assert got.dtype == eager.float64 and got.numpy().tolist() == [3.0, 5.0, -7.0]
    with pytest.warns(UserWarning, match="elementwise_pow"):
        got = eager.to_tensor([2.0, 3.0]) ** np.array([2, 3])
    assert got.dtype == eager.float32 and got.numpy().tolist() == [4.0, 27.0]
    with pytest.warns(UserWarning, match="less_than"):
        assert (x < np.array([2, 2, 2])).numpy().tolist() == [True, False, True]
    with pytest.warns(UserWarning, match="floor_divide"):
        got = eager.to_tensor([7, 9]) // np.array([2.9, 4.0])  # Paddle 2.6.2: [3, 2] (2.9 -> 2)
    assert got.dtype == eager.int64 and got.numpy().tolist() == [3, 2]


def test_true_division_casts_the_right_real_operand_to_the_left_dtype():
    a = eager.to_tensor([1.5, 2.5], stop_gradient=False)
    b = eager.to_tensor(np.array([2.0, 4.0]), stop_gradient=False)
    with pytest.warns(UserWarning, match="divide"):
        got = a / b
    assert got.dtype == eager.float32 and got.numpy().tolist() == [0.75, 0.625]  # Paddle 2.6.2
    got.sum().backward()
    assert a.grad.dtype == eager.float32 and b.grad.dtype == eager.float64
    np.testing.assert_allclose(a.grad.numpy(), [0.5, 0.25])
    np.testing.assert_allclose(b.grad.numpy(), [-1.5 / 4, -2.5 / 16])
    assert (b / a).dtype == eager.float64
    with pytest.warns(UserWarning, match="divide"):  # Paddle 2.6.2: 3 / int32(2.6) = 1.5
        assert (eager.to_tensor([3], dtype="int32") / eager.to_tensor([2.6])).numpy().tolist() == [1.5]
    assert (eager.to_tensor([3]) / eager.to_tensor([2.0])).numpy().tolist() == [1.5]
    c = eager.to_tensor([1 + 1j, 2 + 0j], dtype="complex64")
    assert (a / c).dtype == eager.complex64 and (c / b).dtype == eager.complex128  # complex still promotes
    with pytest.warns(UserWarning, match="divide"):  # an array on the right follows the same rule
        assert (a / np.array([2.0, 4.0])).dtype == eager.float32
    assert (np.array([3.0, 5.0]) / a).numpy().tolist() == [2.0, 2.0]


def test_bool_multiply_is_logical_and():
    x, y = eager.to_tensor([True, False, True]), eager.to_tensor([True, True, False])
    for got in (x * y, eager.multiply(x, y)):
        assert got.dtype == eager.bool and got.numpy().tolist() == [True, False, False]


def test_assign_gives_output_the_shape_and_dtype_of_x():
    x = eager.to_tensor(np.arange(6).reshape(3, 2))
    out = eager.ones([3, 3])
    assert eager.assign(x, out) is out
    assert out.shape == [3, 2] and out.dtype == eager.int64
    np.testing.assert_array_equal(out.numpy(), np.arange(6).reshape(3, 2))
    x[0, 0] = 9  # a copy, not a view of x
    assert out.numpy()[0, 0] == 0
    out = eager.zeros([2])
    assert eager.assign(np.array([1, 2, 3]), out) is out and out.shape == [3] and out.dtype == eager.int64


@pytest.mark.parametrize("data", [3.5, [1.5, 2.5], np.array([1.5, -2.0]), np.float64(2.0)])
def test_assign_of_float64_data_is_float32(data):
    got = eager.assign(data)
    assert got.dtype == eager.float32
    np.testing.assert_array_equal(got.numpy(), np.asarray(data, dtype=np.float32).reshape(-1))


@pytest.mark.parametrize("offset", [0, 1, -2])
def test_diag_of_a_0d_tensor_is_one_element_on_the_diagonal(offset):
    x = eager.to_tensor(np.float64(3.0), stop_gradient=False)
    got = eager.diag(x, offset=offset, padding_value=7)
    want = np.diag(np.array([3.0]), offset)
    want[want == 0] = 7
    np.testing.assert_array_equal(got.numpy(), want)
    grad = np.arange(want.size, dtype=np.float64).reshape(want.shape)
    got.backward(eager.to_tensor(grad))
    assert x.grad.shape == [] and float(x.grad) == float(np.diagonal(grad, offset)[0])


def test_tril_indices_takes_col_none_as_row():
    np.testing.assert_array_equal(eager.tril_indices(3, None).numpy(), np.stack(np.tril_indices(3)))
    np.testing.assert_array_equal(eager.tril_indices(4, None, -1).numpy(), np.stack(np.tril_indices(4, -1)))


@pytest.mark.parametrize("x_dtype, y_dtype, want", [
    ("float16", "int64", "float32"), ("int32", "int32", "float32"), ("float32", "float64", "float64"),
    ("float64", "int8", "float64"), ("float32", "bool", "float32"), ("float32", "float32", "float32"),
])
def test_ldexp_casts_both_to_the_result_dtype(x_dtype, y_dtype, want):
    x_values, y_values = np.array([1.5, -2, 3]).astype(x_dtype), np.array([2, -1, 1]).astype(y_dtype)
    got = eager.ldexp(eager.to_tensor(x_values), eager.to_tensor(y_values))
    assert got.dtype == getattr(eager, want)
    np.testing.assert_allclose(got.numpy(), x_values.astype(want) * 2.0 ** y_values.astype(want))


def test_ldexp_takes_a_fractional_exponent_and_differentiates_it():
    x = eager.to_tensor(np.array([1.5, -2.0]), stop_gradient=False)
    y = eager.to_tensor(np.array([0.5, -1.5]), stop_gradient=False)
    got = eager.ldexp(x, y)
    np.testing.assert_allclose(got.numpy(), [1.5 * 2 ** 0.5, -2.0 * 2 ** -1.5])
    got.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 ** np.array([0.5, -1.5]))
    np.testing.assert_allclose(y.grad.numpy(), np.array([1.5, -2.0]) * 2.0 ** np.array([0.5, -1.5]) * np.log(2))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_logaddexp_of_wide_integers_is_float32(dtype):
    a, b = np.array([1, -5, 100], dtype=dtype), np.array([2, 3, 100], dtype=dtype)
    got = eager.logaddexp(eager.to_tensor(a), eager.to_tensor(b))
    assert got.dtype == eager.float32
    np.testing.assert_allclose(got.numpy(), np.logaddexp(a.astype(np.float64), b.astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize("scale, bias, after", [(0.5, -1, True), (1.5, 0.5, True), (-2.5, -1.5, False), (2, 0.7, True)])
def test_scale_of_an_integer_tensor_casts_factor_and_bias_to_its_type(scale, bias, after):
    values = np.arange(-3, 4, dtype=np.int32)
    got = eager.scale(eager.to_tensor(values), scale, bias, after)
    s, b = int(scale), int(bias)  # C++ casts, toward zero
    want = values * s + b if after else (values + b) * s
    assert got.dtype == eager.int32 and got.numpy().tolist() == want.tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (eager.to_tensor(values) * 0.5).dtype == eager.float32  # the operator is not scale's int kernel


def test_fill_constant_of_the_tensor_namespace():
    got = eager.tensor.fill_constant([2, 3], "float32", 1.5)
    assert got.dtype == eager.float32 and got.stop_gradient
    np.testing.assert_array_equal(got.numpy(), np.full((2, 3), 1.5, np.float32))
    out = eager.zeros([5])  # values from Paddle 2.6.2: out takes the new shape and dtype
    assert eager.tensor.fill_constant([1, 2], "int32", 7, out=out) is out
    assert out.shape == [1, 2] and out.dtype == eager.int32 and out.numpy().tolist() == [[7, 7]]
    with pytest.raises(TypeError, match="fill_constant: argument 'force_cpu'"):
        eager.tensor.fill_constant([2], "int64", 3, force_cpu="yes")
