"""Cases found by re-telling the error tests of PaddlePaddle's op unit tests
(``test_errors`` / ``assertRaises`` blocks of test/legacy_test: wrong kinds where a
Tensor goes, wrong dtypes, bad shapes) in dygraph, over the math, activation,
reduction, shape, creation, loss, nn.functional, linalg, search/sort and random
ops, and checking each against real Paddle 2.6.2 in dynamic mode. Each test failed
before its fix:

- a non-Tensor (a NumPy array, a list, an int, None) where an op takes a Tensor
  raised TypeError; Paddle 2.6.2's dygraph argument parser raises ValueError
  ("add(): argument 'x' (position 0) must be Tensor, but got numpy.ndarray") for
  every generated op measured (88 of them) and the functionals that reach it
  (mse_loss, linear, cross_entropy...): the error is now TensorArgumentError,
  both a TypeError and a ValueError, message unchanged;
- stack / concat of something other than a list of Tensors raised TypeError;
  Paddle 2.6.2 raises ValueError for stack(3) ("must be list of Tensors") and
  TypeError for concat(3): the error is now TensorArgumentError, both;
- a Tensor operator (+, *, <, @, **, x[i] = v) with None, a str, a list or a tuple:
  Paddle 2.6.2 raises ValueError ("argument (position 1) must be int, float, bool or
  Tensor") and refuses lists and tuples; eager raised TypeError for None and took a
  list or tuple as an array: now TensorArgumentError for all of them (a NumPy
  array still works, as in Paddle);
- divide of int8, uint8 and int16 tensors was refused (no kernel); Paddle 2.6.2
  divides them as its int32/int64 kernel does, truncating toward zero;
- frac and frexp took float16 (and frac bfloat16); Paddle 2.6.2 refuses them in
  dynamic mode with TypeError ("must be one of ['int32', 'int64', 'float32',
  'float64']" / "['float32', 'float64']");
- linalg.lstsq of a non-float32/float64 x raised TypeError only, after the shape
  checks; Paddle 2.6.2 checks dtypes first and raises ValueError ("Only support x
  and y have the same dtype such as 'float32' and 'float64'"): now both;
- a str for a functional's number or bool attribute (leaky_relu's negative_slope,
  thresholded_relu's threshold, gelu's approximate: nn.functional's check_number)
  raised TypeError only; Paddle 2.6.2's parser raises ValueError ("argument
  (position 2) must be double, but got str"): now ArgumentKindError, both;
- embedding with an id past the table raised IndexError only; Paddle 2.6.2 raises
  ValueError ("expected >= 0 and < 4, but got 10"): now ElementIndexError, both;
- unfold of a non-4-d x, prelu with a weight of the wrong size and dice_loss with a
  label of the wrong shape raised ValueError only; Paddle 2.6.2 asserts them
  (AssertionError): now AssertedArgumentError, both.

Seen and kept (Paddle 2.6.2 quirks; eager keeps its clear error or its value):
concat / stack / add_n of a list holding a non-Tensor crash Paddle (segmentation
fault); many Python-level functionals (zeros_like, reshape with a list x, clip,
where, conv2d, pad, roll, nonzero...) raise AttributeError on a non-Tensor x;
paddle.rank(ndarray) works; assign(None) returns None; neg / scale of bool
(documented); nanmean of int64 truncates (int32 fails); cov / householder_product
of integers and ldexp of complex return garbage; gcd / lcm of floats
(documented); put_along_axis with a float value into an int x and npair_loss of
float64 fail on a C++ dtype mismatch; CPU kernels missing for int8/uint8/int16/
float16 (abs, trunc, ...) or bool (cumsum, max, ...) raise RuntimeError (NotFound)
where eager computes.
"""
import contextlib

import numpy as np
import pytest

import eager
import eager.nn.functional as F

pytestmark = pytest.mark.usefixtures("device")


def _t(values, dtype="float32"):
    return eager.to_tensor(np.asarray(values, dtype=dtype))


@pytest.mark.parametrize("bad", [np.ones((2, 3), "float32"), [[1.0, 2.0, 3.0]], 3, None])
@pytest.mark.parametrize("call, arg", [
    (lambda b: eager.add(b, _t(np.ones((2, 3)))), "x"),
    (lambda b: eager.matmul(_t(np.ones((2, 3))), b), "y"),
    (lambda b: eager.sum(b), "x"),
    (lambda b: eager.reshape(b, [3, 2]), "x"),
    (lambda b: F.relu(b), "x"),
    (lambda b: F.mse_loss(b, _t(np.ones((2, 3)))), "input"),
    (lambda b: F.linear(b, _t(np.ones((3, 2)))), "x"),
])
def test_non_tensor_for_tensor_argument_is_value_error_too(call, arg, bad):
    # value from Paddle 2.6.2: ValueError "(InvalidArgument) add(): argument 'x' (position 0) must be Tensor"
    with pytest.raises(ValueError, match=f"argument '{arg}' expected a Tensor") as info:
        call(bad)
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("other", [None, "a", [1.0, 2.0, 3.0], (1.0, 2.0, 3.0)])
def test_operator_with_non_number_is_value_error(other):
    # value from Paddle 2.6.2: ValueError "__add__(): argument (position 1) must be int, float, bool or Tensor"
    x = _t([1.0, 2.0, 3.0])
    for apply in (lambda: x + other, lambda: x * other, lambda: x < other, lambda: x ** other):
        with pytest.raises(ValueError, match="cannot combine a Tensor with") as info:
            apply()
        assert isinstance(info.value, TypeError)
    with pytest.raises(ValueError, match="cannot combine a Tensor with"):
        x @ other
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
    out = x + np.array([1.0, 1.0, 1.0])  # a NumPy array is taken, its dtype promoting, as in Paddle 2.6.2
    np.testing.assert_array_equal(out.numpy(), [2.0, 3.0, 4.0])
    assert out.dtype == eager.float64


def test_setitem_none_is_value_error_naming_setitem():
    x = _t([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="^setitem: ") as info:
        x[0] = None
    assert isinstance(info.value, TypeError)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8"])
def test_divide_small_integers_truncates_toward_zero(dtype):
    if dtype == "uint8":
        a, b = np.array([7, 5, 200], dtype), np.array([2, 3, 7], dtype)
    else:
        a, b = np.array([-7, 5, 7, 6], dtype), np.array([2, -3, -2, 3], dtype)
    expected = np.trunc(a.astype(np.float64) / b.astype(np.float64)).astype(dtype)  # C's a / b
    out = eager.divide(_t(a, dtype), _t(b, dtype))
    assert out.dtype == getattr(eager, dtype)
    np.testing.assert_array_equal(out.numpy(), expected)
    with pytest.raises(ValueError, match="zero divisor"):
        eager.divide(_t(a, dtype), _t(np.zeros_like(b), dtype))


@pytest.mark.parametrize("fn", [eager.frac, eager.frexp])
def test_frac_and_frexp_refuse_float16(fn):
    # value from Paddle 2.6.2: TypeError "The data type of input must be one of [...]"
    with pytest.raises(TypeError, match="float16"):
        fn(_t([1.5, -2.25], "float16"))
    np.testing.assert_array_equal(eager.frac(_t([1.5, -2.25])).numpy(), [0.5, -0.25])


@pytest.mark.parametrize("dtype", ["int32", "float16", "complex64"])
def test_lstsq_other_dtype_is_value_error(dtype):
    # value from Paddle 2.6.2: ValueError "Only support x and y have the same dtype such as 'float32' and 'float64'"
    x = _t(np.eye(3), dtype)
    with pytest.raises(ValueError, match="lstsq: argument 'x' expected a float32 or float64") as info:
        eager.linalg.lstsq(x, x)
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("call", [
    lambda x: F.gelu(x, approximate="a"),
    lambda x: F.leaky_relu(x, negative_slope="a"),
    lambda x: F.thresholded_relu(x, threshold="a"),
])
def test_str_for_number_or_bool_attribute_is_value_error_too(call):
    # value from Paddle 2.6.2: ValueError "leaky_relu(): argument (position 2) must be double, but got str"
    with pytest.raises(ValueError, match="expected a (number|bool), got str") as info:
        call(_t(np.ones((2, 3))))
    assert isinstance(info.value, TypeError)


def test_embedding_id_past_table_is_value_error_too(device):
    # value from Paddle 2.6.2: ValueError "... expected >= 0 and < 4, but got 10"; ids are
    # read back on a GPU only in anomaly mode
    checks = eager.autograd.detect_anomaly() if device == "gpu" else contextlib.nullcontext()
    with checks, pytest.raises(ValueError, match=r"embedding: argument 'x' expected ids in \[0, 4\)") as info:
        F.embedding(_t([10], "int64"), _t(np.ones((4, 3))))
    assert isinstance(info.value, IndexError)


@pytest.mark.parametrize("call", [
    lambda: F.unfold(_t(np.ones((2, 2, 2))), 1),
    lambda: F.prelu(_t(np.ones((2, 3))), _t(np.ones(5))),
    lambda: F.dice_loss(_t(np.ones((2, 3))), _t([[0], [1], [0]], "int64")),
])
def test_paddle_asserted_shape_checks_are_assertion_errors_too(call):
    # value from Paddle 2.6.2: AssertionError ("input should be the format of [N, C, H, W]", ...)
    with pytest.raises(AssertionError) as info:
        call()
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("call", [lambda: eager.stack(3), lambda: eager.concat([_t([1.0]), None])])
def test_non_tensor_list_is_value_error_too(call):
    # value from Paddle 2.6.2: ValueError "stack(): argument 'x' (position 0) must be list of Tensors, but got int"
    with pytest.raises(ValueError, match="argument 'x' expected a list of Tensors") as info:
        call()
    assert isinstance(info.value, TypeError)
