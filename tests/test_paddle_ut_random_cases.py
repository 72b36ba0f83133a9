"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
creation and random ops (test/legacy_test: test_full_op, test_full_like_op,
test_empty_op, test_arange, test_linspace, test_randint_op, test_randperm_op,
test_multinomial_op, test_random_seed, test_assign_op, ...) against eager, each
checked against the real Paddle 2.6.2.

What they found (one test per bug below; each failed before its fix):
- an argument of the wrong kind (a float for an int, a float or a str inside a
  shape, a str for a bool, a complex start) raised TypeError only; Paddle's
  dygraph argument parser raises ValueError ("randint(): argument (position 3)
  must be list of int, but got float"): now both (ArgumentKindError).
- a dtype argument no kernel produces (randint's float32, arange's int8,
  linspace's int8, uniform's int32) raised ValueError only; Paddle's static check
  raises TypeError (test_randint_op, test_arange, test_linspace expect it) and its
  dygraph kernel lookup RuntimeError: now all three. uniform_ / normal_ /
  exponential_ of an integer tensor, normal of an integer Tensor mean: also
  RuntimeError, as Paddle's missing kernel.
- full_like into bool took 5, 2.5, -1 as True; Paddle's full_like checks the
  range of the target type ([0, 1] for bool) and raises ValueError.
- normal of a float32 and a float64 Tensor (mean, std) raised TypeError; Paddle
  promotes them (float64).
- bernoulli of a probability outside [0, 1] raised ValueError only; Paddle's
  kernel raises IndexError (OutOfRange): now both.
- poisson did not record: x.grad stayed None; Paddle's poisson_grad is zero.
- normal's errors from the gaussian op it calls did not name normal.
- Generator.random() needed a shape; Paddle's returns one random 64-bit int.
- assign of a list of shape-[1] Tensors gave shape [n]; Paddle 2.6.2 builds
  np.array of the list: [n, 1], Tensors of any one shape stack, 0-d ones mix
  with numbers.
- tril_indices / triu_indices of a negative row or col raised ValueError only;
  Paddle's check raises TypeError ("row should be a non-negative int"): both.
- to_tensor of data holding None or strings, of bytes or of an unsupported NumPy
  dtype raised TypeError only; Paddle raises ValueError: now both.

Paddle quirks kept out (eager keeps its clear error or correct value): full and
full_like of nan/inf/out-of-range values into integer dtypes store garbage;
full's float16/bfloat16 fills truncate (3.14 -> 3.139); full of a complex value
fails in 2.6.2; zeros_like/ones_like of int8, randint_like of float16 and the
float16/bfloat16 random ops have no CPU kernel; uniform takes min >= max (min ==
max fills min), normal and normal_ a negative std, exponential_ a lam <= 0,
cauchy_ a scale <= 0, poisson negative rates, multinomial an inf weight, all
without a check; exponential_ alone skips the leaf-in-place check; assign of a
str / None returns None; assign(list, output) and assign([]) crash (numpy 2);
empty(3) and rand(3) fail on an int shape; empty(float shape tensor), rand(float
ndarray shape) and seed(1.5) / seed('1') truncate; linspace's num as an int64
Tensor is refused, 1.33 truncated; randint(0, 2**40) overflows; randint_like
takes int8 / complex dtypes by casting; the gradient of normal with broadcast
mean and std fails; zeros(None) / ones(None) give a 0-d tensor; exponential_
leaves inplace_version as it was, cauchy_ and geometric_ move it by 6 and 3
(eager: 1 for each fill). geometric_'s continuous values are in docs/ops.md,
the dtype name 'uint16' (bfloat16 in Paddle) in docs/dtypes.md.
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize("call", [
    lambda: eager.randint(5, shape=[2.0]),
    lambda: eager.randint(5, shape=["2"]),
    lambda: eager.randint(5.5),
    lambda: eager.randperm(3.5),
    lambda: eager.tril_indices(4.0, 4),
    lambda: eager.triu_indices(4, 4, 0.5),
    lambda: eager.full([2.0, 3], 1.0),
    lambda: eager.zeros("ab"),
    lambda: eager.rand([2.0]),
    lambda: eager.uniform([2], seed=1.5),
    lambda: eager.multinomial(eager.rand([4]), 2, "yes"),
    lambda: eager.ones([2, 3]).reshape([2.0, 3]),
    lambda: eager.arange(0, 1 + 1j),
    lambda: eager.linspace(eager.ones([2]), 3.0, 2),
])
def test_an_argument_of_the_wrong_kind_is_a_type_and_a_value_error(call):
    # Paddle 2.6.2's argument parser: ValueError "... must be int, but got float"
    with pytest.raises(ValueError) as caught:
        call()
    assert isinstance(caught.value, TypeError)
    assert "argument '" in str(caught.value)


@pytest.mark.parametrize("call", [
    lambda: eager.randint(5, dtype="float32"),
    lambda: eager.randint(5, dtype="bool"),
    lambda: eager.arange(10, dtype="int8"),
    lambda: eager.linspace(0, 10, 1, dtype="int8"),
    lambda: eager.uniform([2], dtype="int32"),
    lambda: eager.rand([2], dtype="int64"),
    lambda: eager.randn([2], dtype="complex64"),
    lambda: eager.randperm(4, dtype="float16"),
])
def test_an_unsupported_dtype_argument_is_a_type_a_runtime_and_a_value_error(call):
    with pytest.raises(TypeError) as caught:  # Paddle's static check (test_randint_op)
        call()
    assert isinstance(caught.value, RuntimeError)  # Paddle's dygraph: kernel not registered
    assert isinstance(caught.value, ValueError)  # eager's own argument checks
    assert "argument 'dtype' expected one of" in str(caught.value)


@pytest.mark.parametrize("fill", [
    lambda x: x.uniform_(), lambda x: x.normal_(), lambda x: x.exponential_(),
    lambda x: eager.normal(x, 1.0),
])
def test_random_fill_of_an_integer_tensor_is_a_runtime_error_as_in_paddle(fill):
    x = eager.to_tensor([1, 2, 3])
    with pytest.raises(RuntimeError) as caught:
        fill(x)
    assert isinstance(caught.value, TypeError)
    assert "paddle.int64" in str(caught.value)
    np.testing.assert_array_equal(x.numpy(), [1, 2, 3])


def test_full_like_into_bool_checks_the_range_as_paddle():
    x = eager.ones([2, 3])
    for value in (5, 2.5, -1):
        with pytest.raises(ValueError, match=r"expected a number in \[0, 1\] for dtype paddle.bool"):
            eager.full_like(x, value, dtype="bool")
    np.testing.assert_array_equal(eager.full_like(x, 0.5, dtype="bool").numpy(), np.ones([2, 3], bool))
    np.testing.assert_array_equal(eager.full_like(x, 0, dtype="bool").numpy(), np.zeros([2, 3], bool))
    np.testing.assert_array_equal(eager.full_like(x, True, dtype="bool").numpy(), np.ones([2, 3], bool))
    # full itself has no range check in Paddle: any nonzero is True
    np.testing.assert_array_equal(eager.full([2], 5, dtype="bool").numpy(), [True, True])


@pytest.mark.parametrize("mean_dtype, std_dtype", [("float64", "float32"), ("float32", "float64")])
def test_normal_of_float32_and_float64_tensors_promotes(mean_dtype, std_dtype):
    eager.seed(2024)
    mean = eager.full([4000, 25], 3.0, mean_dtype)
    std = eager.full([25], 2.0, std_dtype)
    out = eager.normal(mean, std)
    assert out.dtype == eager.float64 and out.shape == [4000, 25]
    values = out.numpy()
    assert abs(values.mean() - 3.0) < 0.05 and abs(values.std() - 2.0) < 0.05
    m = eager.full([3], 1.0, mean_dtype)
    m.stop_gradient = False
    s = eager.full([3], 2.0, std_dtype)
    s.stop_gradient = False
    y = eager.normal(m, s)
    y.sum().backward()
    np.testing.assert_allclose(m.grad.numpy(), np.ones(3))  # d(mean + std * noise)/d mean
    np.testing.assert_allclose(s.grad.numpy(), (y.numpy() - 1.0) / 2.0, rtol=1e-6)  # the noise


def test_generator_random_without_a_shape_is_one_64_bit_int():
    gen = eager.seed(5)
    first, second = gen.random(), gen.random()
    assert isinstance(first, int) and 0 <= first < 2 ** 64 and first != second
    gen.manual_seed(5)
    assert gen.random() == first
    state = gen.get_state()
    third = gen.random()
    gen.set_state(state)
    assert gen.random() == third
    assert gen.random((2, 3)).shape == (2, 3)  # the kernels' primitive is unchanged


def test_assign_of_a_list_of_tensors_is_numpys_array_of_it():
    # values from Paddle 2.6.2: np.array of the list, float64 made float32
    out = eager.assign([eager.to_tensor([1.0]), eager.to_tensor([2.0])])
    assert out.shape == [2, 1] and out.dtype == eager.float32
    np.testing.assert_array_equal(out.numpy(), [[1.0], [2.0]])
    out = eager.assign([eager.to_tensor([1.0, 2.0], "float64"), eager.to_tensor([3.0, 4.0], "float64")])
    assert out.shape == [2, 2] and out.dtype == eager.float32
    out = eager.assign((eager.to_tensor([1.0, 2.0]),))
    assert out.shape == [1, 2]
    out = eager.assign([eager.to_tensor(1, "int32"), eager.to_tensor(2, "int32")])
    assert out.shape == [2] and out.dtype == eager.int32
    out = eager.assign([eager.to_tensor(1.0), 2.0])
    np.testing.assert_array_equal(out.numpy(), np.array([1.0, 2.0], np.float32))
    with pytest.raises(ValueError, match=r"must have one shape to be stacked, got shapes \[\[1\], \[\]\]"):
        eager.assign([eager.to_tensor([1.0]), 2.0])  # Paddle: numpy's inhomogeneous shape


@pytest.mark.parametrize("data", [[1, None], np.array(["a"]), b"ab", np.array([1], "uint32")])
def test_to_tensor_of_data_of_the_wrong_kind_is_also_a_value_error(data):
    with pytest.raises(ValueError) as caught:
        eager.to_tensor(data)
    assert isinstance(caught.value, TypeError) and "to_tensor:" in str(caught.value)


@pytest.mark.parametrize("op", [eager.tril_indices, eager.triu_indices])
@pytest.mark.parametrize("row, col", [(4, -1), (-1, 4)])
def test_triangle_indices_of_a_negative_size_is_also_a_type_error(op, row, col):
    # Paddle's check: TypeError "row should be a non-negative int" (test_tril_indices_op)
    with pytest.raises(TypeError) as caught:
        op(row, col, 0)
    assert isinstance(caught.value, ValueError) and "expected an int >= 0, got -1" in str(caught.value)


@pytest.mark.parametrize("call", [
    lambda: eager.full([1], 5, dtype="uint4"),
    lambda: eager.zeros([2], dtype="uint4"),
    lambda: eager.full_like(eager.ones([2]), 2, dtype="uint4"),
    lambda: eager.empty([2], dtype="uint4"),
])
def test_an_unknown_dtype_name_is_a_type_and_a_value_error(call):
    # test_full_op / test_full_like_op expect TypeError; Paddle 2.6.2's dygraph raises
    # ValueError ("Not supported numpy dtype uint4")
    with pytest.raises(ValueError) as caught:
        call()
    assert isinstance(caught.value, TypeError) and "unknown dtype string 'uint4'" in str(caught.value)


def test_poisson_passes_a_zero_gradient_as_paddle():
    # Paddle 2.6.2: poisson's output records (stop_gradient False) and poisson_grad is zero
    x = eager.to_tensor(np.array([[0.5, 2.0], [3.0, 1.0]]), stop_gradient=False)
    y = eager.poisson(x)
    assert not y.stop_gradient
    (y * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 2)))
    assert eager.poisson(eager.full([3], 2.0)).stop_gradient


@pytest.mark.parametrize("p", [2.0, -1.0, float("nan")])
def test_bernoulli_of_a_probability_out_of_range_is_also_an_index_error(p, device):
    # Paddle 2.6.2's bernoulli kernel: IndexError "(OutOfRange) The probability should be <= 1"
    if device != "cpu":
        pytest.skip("the value check reads the device only in anomaly mode")
    with pytest.raises(IndexError) as caught:
        eager.bernoulli(eager.full([3], p))
    assert isinstance(caught.value, ValueError) and "expected probabilities in [0, 1]" in str(caught.value)


def test_normal_names_itself_in_an_error_of_the_gaussian_it_calls():
    with pytest.raises(TypeError, match=r"^normal: gaussian: argument 'shape' expected a list of ints"):
        eager.normal(0.0, 1.0, [2.0])
