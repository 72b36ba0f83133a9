"""Random ops and the generator: what the op table cannot say (seeding, state,
errors, the distributions of whole samples, eager.normal)."""
import numpy as np
import pytest

import eager
from eager.nn import initializer
from phi.common import CPUPlace
from phi.core.generator import Generator, default_generator

DRAWS = {
    "rand": lambda: eager.rand([4, 3]),
    "randn": lambda: eager.randn([5]),
    "standard_normal": lambda: eager.standard_normal([5], "float64"),
    "uniform": lambda: eager.uniform([6], min=2.0, max=3.0),
    "gaussian": lambda: eager.gaussian([6], 1.0, 0.5),
    "randint": lambda: eager.randint(0, 100, [8]),
    "randint_like": lambda: eager.randint_like(eager.ones([8], "int32"), 0, 100),
    "randperm": lambda: eager.randperm(10),
    "bernoulli": lambda: eager.bernoulli(eager.full([20], 0.5)),
    "poisson": lambda: eager.poisson(eager.full([10], 3.0)),
    "multinomial": lambda: eager.multinomial(eager.ones([2, 10]), 4),
    "multinomial_replacement": lambda: eager.multinomial(eager.ones([10]), 6, True),
    "normal": lambda: eager.normal(eager.zeros([4]), 1.0),
    "initializer": lambda: eager.to_tensor(initializer.XavierUniform()((3, 4))),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_the_same_seed_repeats_every_random_op_and_initializer(name):
    draw = DRAWS[name]
    eager.seed(2024)
    first, second = draw().numpy(), draw().numpy()
    eager.seed(2024)
    np.testing.assert_array_equal(draw().numpy(), first)
    np.testing.assert_array_equal(draw().numpy(), second)
    eager.seed(2025)
    assert not np.array_equal(draw().numpy(), first)


def test_all_ops_share_one_generator():
    # One stream: what one op draws moves the state the next op starts from.
    eager.seed(5)
    alone = eager.rand([3]).numpy()
    eager.seed(5)
    eager.randn([2])
    assert not np.array_equal(eager.rand([3]).numpy(), alone)


def test_rng_state_saves_and_restores_everything():
    eager.seed(11)
    state = eager.get_rng_state()
    assert isinstance(state, list) and state[0].place == CPUPlace()
    draws = [d().numpy() for d in DRAWS.values()]
    eager.set_rng_state(state)
    for draw, before in zip(DRAWS.values(), draws):
        np.testing.assert_array_equal(draw().numpy(), before)


def test_a_saved_state_is_a_snapshot_not_a_view():
    state = eager.get_rng_state()
    first = eager.rand([4]).numpy()
    eager.rand([4])  # drawing on must not change the saved state
    eager.set_rng_state(state)
    np.testing.assert_array_equal(eager.rand([4]).numpy(), first)


def test_set_rng_state_refuses_what_is_not_a_state():
    with pytest.raises(TypeError, match="set_rng_state: argument 'state_list'"):
        eager.set_rng_state([1, 2])
    with pytest.raises(ValueError, match="get_rng_state: argument 'device'"):
        eager.get_rng_state("tpu")


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, 2 ** 64])
def test_seed_refuses_what_is_not_a_seed(bad):
    with pytest.raises(TypeError, match="seed: argument 'seed'"):
        eager.seed(bad)


def test_seed_returns_the_cpu_generator_with_paddles_methods():
    generator = eager.seed(9)
    assert generator is default_generator(CPUPlace()) and generator.initial_seed() == 9
    state = generator.get_state()
    a = eager.rand([3]).numpy()
    generator.set_state(state)
    np.testing.assert_array_equal(eager.rand([3]).numpy(), a)
    generator.manual_seed(9)
    eager.seed(9)
    b = eager.rand([3]).numpy()
    generator.manual_seed(9)
    np.testing.assert_array_equal(eager.rand([3]).numpy(), b)


def test_an_op_seed_uses_a_generator_of_its_own():
    eager.seed(1)
    state = eager.get_rng_state()
    a = eager.uniform([5], seed=42).numpy()
    b = eager.uniform([5], seed=42).numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(eager.gaussian([5], seed=42).numpy(), eager.gaussian([5], seed=42).numpy())
    # The global generator did not move.
    after = eager.rand([3]).numpy()
    eager.set_rng_state(state)
    np.testing.assert_array_equal(eager.rand([3]).numpy(), after)


def test_initializers_take_a_phi_generator():
    generator = Generator(seed=3)
    expected = np.random.Generator(np.random.PCG64(3)).uniform(-1.0, 1.0, (2, 2)).astype("float32")
    np.testing.assert_array_equal(initializer.Uniform()((2, 2), generator=generator), expected)


# -- distributions of large samples (fixed seeds: no flakes) ---------------------------------

def test_multinomial_without_replacement_draws_first_by_weight():
    eager.seed(7)
    weights = np.array([0.1, 0.2, 0.3, 0.4])
    x = eager.to_tensor(np.tile(weights, (4000, 1)))
    picks = eager.multinomial(x, 2).numpy()
    first = np.bincount(picks[:, 0], minlength=4) / 4000
    np.testing.assert_allclose(first, weights, atol=0.03)
    assert np.all(picks[:, 0] != picks[:, 1])


def test_multinomial_never_draws_a_zero_weight():
    eager.seed(8)
    x = eager.to_tensor([[0.0, 1.0, 0.0, 2.0, 0.0]])
    assert set(eager.multinomial(x, 2000, True).numpy().ravel().tolist()) == {1, 3}
    assert sorted(eager.multinomial(x, 2).numpy().ravel().tolist()) == [1, 3]


def test_bernoulli_and_poisson_follow_their_parameters():
    eager.seed(3)
    p = eager.to_tensor(np.array([0.0, 0.25, 1.0] * 4000, dtype="float64").reshape(-1, 3))
    sample = eager.bernoulli(p).numpy()
    np.testing.assert_array_equal(sample[:, 0], 0)
    np.testing.assert_array_equal(sample[:, 2], 1)
    assert abs(sample[:, 1].mean() - 0.25) < 0.03
    rates = eager.to_tensor(np.array([0.0, 4.0] * 5000, dtype="float32").reshape(-1, 2))
    counts = eager.poisson(rates).numpy()
    np.testing.assert_array_equal(counts[:, 0], 0)
    assert abs(counts[:, 1].mean() - 4.0) < 0.15 and abs(counts[:, 1].var() - 4.0) < 0.4


def test_randint_is_uniform_over_its_range():
    eager.seed(4)
    counts = np.bincount(eager.randint(-2, 3, [10000]).numpy() + 2, minlength=5) / 10000
    np.testing.assert_allclose(counts, 0.2, atol=0.03)


def test_normal_with_tensor_mean_and_std_broadcasts_and_is_differentiable():
    eager.seed(6)
    mean = eager.to_tensor(np.array([[-5.0], [5.0]]), stop_gradient=False)
    std = eager.to_tensor(np.full((1, 4000), 0.5))
    out = eager.normal(mean, std)
    assert out.shape == [2, 4000] and out.dtype == eager.float64
    values = out.numpy()
    np.testing.assert_allclose(values.mean(axis=1), [-5.0, 5.0], atol=0.05)
    np.testing.assert_allclose(values.std(axis=1), [0.5, 0.5], atol=0.03)
    out.sum().backward()
    np.testing.assert_array_equal(mean.grad.numpy(), [[4000.0], [4000.0]])
    scalar = eager.normal(2.0, 3.0, [5])
    assert scalar.shape == [5] and scalar.dtype == eager.float32


@pytest.mark.parametrize("call, error, message", [
    (lambda: eager.normal(0.0, 1.0), ValueError, "normal: argument 'shape' is needed"),
    (lambda: eager.normal("a", 1.0, [2]), TypeError, "normal: argument 'mean'"),
    (lambda: eager.normal(eager.zeros([2], "int64"), 1.0), TypeError, "must be floating"),
    (lambda: eager.normal(eager.zeros([2]), -1.0), ValueError, "normal: argument 'std'"),
    (lambda: eager.normal(eager.zeros([2]), eager.ones([3])), ValueError, "cannot be broadcast"),
])
def test_normal_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_randint_like_into_bool_is_the_truth_of_the_draw():
    """Paddle draws int64 in [low, high) and casts: nonzero is True (its docstring's example)."""
    eager.seed(5)
    assert eager.randint_like(eager.zeros([50], "bool"), 1, 5).numpy().all()
    assert eager.randint_like(eager.zeros([50], "bool"), -1, 0).numpy().all()  # only -1: True
    assert not eager.randint_like(eager.zeros([50], "bool"), 0, 1).numpy().any()
    draw = eager.randint_like(eager.zeros([1, 2]), low=-5, high=5, dtype="bool")
    assert draw.dtype == eager.bool and draw.shape == [1, 2]
    eager.seed(5)
    ints = eager.randint_like(eager.zeros([200], "int64"), -2, 2).numpy()
    eager.seed(5)
    np.testing.assert_array_equal(eager.randint_like(eager.zeros([200], "bool"), -2, 2).numpy(), ints != 0)


# -- clear errors, and a refused call draws nothing ------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: eager.randint(5, 5, [2]), r"randint: arguments 'low' and 'high' expected low < high, got low=5, high=5"),
    (lambda: eager.randint(0, shape=[2]), r"randint: argument 'low' is the exclusive upper bound"),
    (lambda: eager.randint(0, 2 ** 40, [2], "int32"), r"randint: arguments 'low' and 'high'.*int32"),
    (lambda: eager.randint(0, 3, [2], "float32"), r"randint: argument 'dtype' expected one of paddle.int32, paddle.int64"),
    (lambda: eager.uniform([2], min=1.0, max=1.0), r"uniform: arguments 'min' and 'max' expected min < max"),
    (lambda: eager.uniform([2], dtype="int32"), r"uniform: argument 'dtype' expected one of paddle.float16"),
    (lambda: eager.uniform([2], min=float("nan")), r"uniform: argument 'min' expected a finite number"),
    (lambda: eager.gaussian([2], std=-1.0), r"gaussian: argument 'std' expected a standard deviation >= 0"),
    (lambda: eager.randn([-1]), r"randn: argument 'shape' expected sizes >= 0"),
    (lambda: eager.randperm(-1), r"randperm: argument 'n' expected a count >= 0"),
    (lambda: eager.bernoulli(eager.to_tensor([0.5, 1.5])), r"bernoulli: argument 'x' expected probabilities in \[0, 1\], got 1.5"),
    (lambda: eager.bernoulli(eager.to_tensor([float("nan")])), r"bernoulli: argument 'x' expected probabilities"),
    (lambda: eager.bernoulli(eager.to_tensor([1, 0])), r"bernoulli: argument 'x' expected one of paddle.float16"),
    (lambda: eager.poisson(eager.to_tensor([-1.0])), r"poisson: argument 'x' expected finite rates >= 0, got -1.0"),
    (lambda: eager.multinomial(eager.ones([3]), 4), r"multinomial: argument 'num_samples' is 4, more than the 3 categories"),
    (lambda: eager.multinomial(eager.to_tensor([1.0, 0.0, 0.0]), 2), r"only 1 categories of positive weight"),
    (lambda: eager.multinomial(eager.to_tensor([1.0, -1.0]), 1), r"multinomial: argument 'x' expected finite weights >= 0"),
    (lambda: eager.multinomial(eager.zeros([2, 3]), 1, True), r"multinomial: argument 'x' has a row of weights that sum to 0"),
    (lambda: eager.multinomial(eager.ones([2, 2, 2]), 1), r"multinomial: argument 'x' expected a 1-D or 2-D"),
    (lambda: eager.multinomial(eager.ones([3]), 0), r"multinomial: argument 'num_samples' expected an int >= 1"),
])
def test_bad_calls_name_the_op_and_leave_the_generator_alone(call, message):
    eager.seed(12)
    state = eager.get_rng_state()
    with pytest.raises(ValueError, match=message):
        call()
    after_error = eager.rand([3]).numpy()
    eager.set_rng_state(state)
    np.testing.assert_array_equal(eager.rand([3]).numpy(), after_error)
