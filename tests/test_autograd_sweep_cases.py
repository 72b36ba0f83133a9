"""Cases a random differential sweep of autograd's user-facing API (against
PyTorch, Paddle's rules and finite differences) found: each failed before its
fix by dying inside the engine or an op instead of raising a clear error naming
the function, or by running with the wrong grad mode."""
import inspect

import numpy as np
import pytest

import eager
from eager.autograd import hessian, jacobian

pytestmark = pytest.mark.usefixtures("device")


def _leaf(values):
    return eager.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=False)


# -- grad mode decorators on generator functions ------------------------------

@pytest.mark.parametrize("switch, inside", [(eager.no_grad, False), (lambda: eager.set_grad_enabled(False), False)])
def test_a_decorated_generator_runs_its_body_under_the_mode_and_the_caller_keeps_its_own(switch, inside):
    # Calling a generator function only builds the generator, so the decorator
    # switched the mode around nothing and the body ran with recording on.
    w = _leaf([1.0, 2.0])

    @switch()
    def scaled(factors):
        for f in factors:
            got = yield (w * f, eager.is_grad_enabled())
            assert got is None

    seen = []
    for y, mode in scaled([2.0, 3.0]):
        seen.append((y.stop_gradient, mode, eager.is_grad_enabled()))
    assert seen == [(not inside, inside, True)] * 2
    assert eager.is_grad_enabled()


def test_enable_grad_on_a_generator_records_inside_no_grad():
    w = _leaf([1.0, 2.0])

    @eager.enable_grad()
    def rows():
        yield w * 2.0
        yield w * 3.0

    with eager.no_grad():
        outs = []
        for y in rows():
            outs.append(y)
            assert not eager.is_grad_enabled()  # the caller's block keeps its mode
    total = outs[0].sum() + outs[1].sum()
    (g,) = eager.grad(total, w)
    np.testing.assert_allclose(g.numpy(), [5.0, 5.0])


def test_a_decorated_generator_passes_send_throw_close_and_its_return_value():
    events = []

    @eager.no_grad()
    def echo():
        try:
            received = yield "first"
            events.append(("sent", received, eager.is_grad_enabled()))
            try:
                yield "second"
            except KeyError as error:
                events.append(("thrown", error.args[0], eager.is_grad_enabled()))
            yield "third"
        finally:
            events.append(("closed", eager.is_grad_enabled()))
        return "never"

    gen = echo()
    assert next(gen) == "first"
    assert gen.send(41) == "second"
    assert gen.throw(KeyError("k")) == "third"
    gen.close()
    assert events == [("sent", 41, False), ("thrown", "k", False), ("closed", False)]
    assert eager.is_grad_enabled()

    @eager.no_grad()
    def inner():
        yield 1
        return "done"

    def outer():
        result = yield from inner()
        yield result

    assert list(outer()) == [1, "done"]
    assert inspect.isgeneratorfunction(inner) and inspect.signature(inner) == inspect.signature(inner.__wrapped__)


def test_set_grad_enabled_as_a_decorator_leaves_the_mode_alone():
    # Construction switches the mode (for the bare-call form); decorating kept it
    # switched, so every op after the definition stopped recording.
    @eager.set_grad_enabled(False)
    def f():
        return eager.is_grad_enabled()

    assert eager.is_grad_enabled()
    assert f() is False
    assert eager.is_grad_enabled()
    assert not (_leaf([1.0]) * 2.0).stop_gradient


def test_a_grad_mode_decorator_refuses_a_non_callable():
    with pytest.raises(TypeError, match="no_grad: used as a decorator, it expected a function, got int"):
        eager.no_grad()(3)


# -- grad's arguments ---------------------------------------------------------

@pytest.mark.parametrize("arg", ["outputs", "inputs"])
def test_grad_refuses_an_empty_list(arg):
    # Empty outputs died in the engine with UnboundLocalError; Paddle refuses both.
    x = _leaf([1.0, 2.0])
    kwargs = {"outputs": (x * x).sum(), "inputs": x}
    kwargs[arg] = []
    with pytest.raises(ValueError, match=f"grad: argument '{arg}' is an empty list"):
        eager.grad(**kwargs)


def test_grad_refuses_only_inputs_false_as_paddle_does():
    x = _leaf([1.0, 2.0])
    y = (x * x).sum()
    with pytest.raises(ValueError, match="grad: only_inputs=False is not supported"):
        eager.grad(y, x, only_inputs=False, retain_graph=True)
    with pytest.raises(TypeError, match="grad: argument 'only_inputs' expected a bool, got 'no'"):
        eager.grad(y, x, only_inputs="no", retain_graph=True)
    (g,) = eager.grad(y, x, only_inputs=True)
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])


# -- lazy Jacobian / Hessian of computed tensors -------------------------------

def test_the_jacobian_of_an_empty_y_is_an_empty_matrix():
    # _assemble stacked zero rows and died in stack naming stack.
    x = _leaf([1.0, 2.0])
    J = jacobian(x[:0] * 2.0, x)
    assert J.shape == [0, 2]
    assert J[:].shape == [0, 2] and J[0:0].shape == [0, 2]
    e = _leaf(np.zeros(0))
    assert jacobian(e * 2.0, e)[:].shape == [0, 0]


def test_hessian_blocks_of_a_linear_or_unused_input_are_zeros():
    # The gradient of a function linear in x is a constant (stop_gradient=True)
    # and that of an unused x a zero fill: Hessian rows called grad() on it and
    # got "first tensor has stop_gradient=True".
    a = _leaf([1.0, 2.0])
    b = _leaf([0.5, -1.0, 3.0])
    c = np.array([2.0, -1.0])
    y = (eager.to_tensor(c) * a * a).sum() + (3.0 * b).sum()
    H = hessian(y, [a, b])
    expected_aa = np.zeros((2, 2))
    for i in range(2):
        expected_aa[i, i] = 2.0 * c[i]  # d2/da_i^2 of c_i a_i^2
    np.testing.assert_allclose(H[0][0][:].numpy(), expected_aa)
    for j, k, shape in ((0, 1, (2, 3)), (1, 0, (3, 2)), (1, 1, (3, 3))):
        np.testing.assert_array_equal(H[j][k][:].numpy(), np.zeros(shape))
    unrelated = _leaf([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(hessian((a ** 3).sum(), unrelated)[:].numpy(), np.zeros((3, 3)))


def test_batched_hessian_with_a_linear_part_per_sample():
    data = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.0]])
    x = _leaf(data)
    y = (x * x * x).sum(axis=1) + (x * 4.0).sum(axis=1)
    H = hessian(y, x, batch_axis=0)[:].numpy()
    expected = np.zeros((3, 2, 2))
    for b in range(3):
        for i in range(2):
            expected[b, i, i] = 6.0 * data[b, i]
    np.testing.assert_allclose(H, expected)
    linear = hessian((x * 4.0).sum(axis=1), x, batch_axis=0)
    np.testing.assert_array_equal(linear[:].numpy(), np.zeros((3, 2, 2)))


# -- retain_grads and a later inplace write -------------------------------------

@pytest.mark.parametrize("write", ["through_view", "whole", "setitem"])
def test_retain_grads_survives_an_inplace_write_to_the_tensor(write):
    # The inplace op gave h a new meta (its new history) and the retained gradient
    # went to the orphaned old one: h.grad read None. As in Paddle (one meta per
    # tensor, the retain hook on the node that made the value), h.grad is the
    # gradient of the value h held when retain_grads() was called.
    w = np.array([1.0, -2.0, 0.5])
    x = _leaf([1.0, 2.0, 3.0])
    h = x * 1.0
    h.retain_grads()
    factor = np.ones(3)
    if write == "through_view":
        h[0:2].scale_(3.0)
        factor[0:2] = 3.0
    elif write == "whole":
        h.scale_(3.0)
        factor[:] = 3.0
    else:
        h[1] = 7.0
        factor[1] = 0.0
    (h * eager.to_tensor(w)).sum().backward(retain_graph=True)
    expected = np.array([w[i] * factor[i] for i in range(3)])  # d loss / d (h before the write)
    np.testing.assert_allclose(h.grad.numpy(), expected)
    np.testing.assert_allclose(x.grad.numpy(), expected)
    h.retain_grads()  # still retained: a second call adds no second copy
    (h * eager.to_tensor(w)).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), 2 * expected)


# -- the function form with an empty input ------------------------------------

@pytest.mark.parametrize("shape", [(0, 0), (2, 0), (0,)])
def test_function_jacobian_block_of_an_empty_input_keeps_its_shape(shape):
    # The block was stacked and reshaped to out.shape + x.shape, and reshape reads
    # a 0 as "keep that axis": [0, 0] came back as [1, 0].
    from eager.autograd import functional

    empty = eager.to_tensor(np.zeros(shape))
    other = eager.to_tensor(np.array([1.0, 2.0]))
    J = functional.jacobian(lambda e, o: e.sum() + (o * o).sum(), (empty, other))
    assert J[0].shape == list(shape)
    np.testing.assert_allclose(J[1].numpy(), 2.0 * np.array([1.0, 2.0]))  # d/do of sum(o^2)
    H = functional.hessian(lambda e: (e * e).sum(), empty)
    assert H.shape == list(shape) + list(shape)


def test_backward_refuses_an_empty_list_and_a_non_bool_retain_graph():
    # An empty list did nothing silently, and retain_graph="yes" was taken as true;
    # Paddle asserts both, as grad() here already did.
    x = _leaf([1.0, 2.0])
    with pytest.raises(ValueError, match="backward: argument 'tensors' is an empty list"):
        eager.autograd.backward([])
    y = (x * x).sum()
    with pytest.raises(TypeError, match="backward: argument 'retain_graph' expected a bool, got 'yes'"):
        eager.autograd.backward([y], retain_graph="yes")
    assert x.grad is None
    eager.autograd.backward([y])
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_a_lazy_jacobian_takes_a_two_dimensional_index_array():
    # The rows an index reads were taken with int() over the array's first axis,
    # which died in NumPy for a 2-d index array.
    x = _leaf([1.0, 2.0, 3.0])
    J = jacobian(x * x, x)
    got = J[eager.to_tensor([[0, 2], [1, 1]])].numpy()
    full = np.diag([2.0, 4.0, 6.0])  # d(x_i^2)/dx_j
    np.testing.assert_allclose(got, full[np.array([[0, 2], [1, 1]])])
