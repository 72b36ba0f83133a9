"""The backward engine and autograd semantics, against hand-computed gradients.

Each test builds a small graph whose gradient is known in closed form (or by
finite differences in float64) and checks values, plus every error by type
and message.
"""
import sys
import threading

import numpy as np
import pytest

import eager
from eager.autograd import AnomalyError, AutogradError, detect_anomaly, saved_tensors_hooks

# Every test runs on the device axis (tests/conftest.py): on the CPU and with the GPU as the default place.
pytestmark = pytest.mark.usefixtures("device")


def leaf(values, dtype="float64"):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


def numeric_grad(fn, array, eps=1e-6):
    """Central differences of a scalar function of one float64 array."""
    grad = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        plus, minus = array.copy(), array.copy()
        plus[index] += eps
        minus[index] -= eps
        grad[index] = (fn(plus) - fn(minus)) / (2 * eps)
    return grad


# -- graph shapes ---------------------------------------------------------------

def test_issue_example_linear_regression_gradients():
    rng = np.random.default_rng(0)
    xn, yn, wn = rng.normal(size=(64, 10)), rng.normal(size=(64, 1)), rng.normal(size=(10, 1))
    x, y = eager.to_tensor(xn.astype("float32")), eager.to_tensor(yn.astype("float32"))
    w = eager.to_tensor(wn.astype("float32"), stop_gradient=False)
    b = eager.zeros([1], dtype="float32")
    b.stop_gradient = False
    loss = ((eager.matmul(x, w) + b - y) ** 2).mean()
    loss.backward()
    residual = xn.astype("float32") @ wn.astype("float32") - yn.astype("float32")
    np.testing.assert_allclose(w.grad.numpy(), 2 * xn.T.astype("float32") @ residual / 64, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), [2 * residual.mean()], rtol=1e-4, atol=1e-6)


def test_diamond_sums_both_paths():
    x = leaf([0.3, -1.2])
    a = eager.tanh(x)
    out = (a * 3.0 + eager.exp(a)).sum()  # a feeds two ops
    out.backward()
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(x.grad.numpy(), (3 + np.exp(t)) * (1 - t ** 2), rtol=1e-12)


def test_same_tensor_twice_in_one_op():
    x = leaf([1.5, -2.0, 0.5])
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy())


def test_unused_outputs_of_split_get_zero_gradient():
    x = leaf(np.arange(6.0).reshape(2, 3))
    first, _, third = eager.split(x, 3, axis=1)
    (first * 2.0 + third * third).sum().backward()
    expected = np.zeros((2, 3))
    expected[:, 0] = 2.0
    expected[:, 2] = 2 * x.numpy()[:, 2]
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_unbind_only_one_slice_used():
    x = leaf(np.arange(6.0).reshape(3, 2))
    rows = eager.unbind(x, 0)
    (rows[1] ** 3).sum().backward()
    expected = np.zeros((3, 2))
    expected[1] = 3 * x.numpy()[1] ** 2
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_stop_gradient_input_gets_no_gradient_and_cuts_graph():
    x = leaf([1.0, 2.0])
    c = eager.to_tensor([3.0, 4.0], dtype="float64")  # stop_gradient=True by default
    out = (x * c).sum()
    assert not out.stop_gradient
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])
    assert c.grad is None


def test_output_stops_gradient_when_all_inputs_do():
    a = eager.to_tensor([1.0])
    assert (a * 2.0).stop_gradient
    assert (a * 2.0).grad_node is None


def test_integer_tensors_never_get_gradients():
    n = eager.to_tensor([1, 2, 3])
    n.stop_gradient = False  # allowed, as in Paddle, but only a flag (tests/test_int_stop_gradient.py)
    assert not n.stop_gradient and (n * 2).stop_gradient and (n * 2).grad_node is None
    x = leaf([1.0, 2.0, 3.0])
    mask = (x > 1.5)  # comparisons are not differentiable
    assert mask.stop_gradient and mask.dtype == eager.bool


def test_leaf_grad_accumulates_across_backward_calls():
    x = leaf([2.0])
    (x * x).sum().backward()
    (x * 3.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0 + 3.0])
    x.clear_grad()
    np.testing.assert_allclose(x.grad.numpy(), [0.0])
    x.clear_grad(set_to_zero=False)
    assert x.grad is None


def test_private_grad_ivar_is_the_gradient_or_none():
    # Paddle's recompute guide reads parameters' gradients through the private
    # Tensor._grad_ivar(); it gives what .grad gives, None before a backward and after
    # clear_grad(set_to_zero=False).
    x = leaf([1.0, -2.0])
    assert x._grad_ivar() is None
    (x * x).sum().backward()
    assert x._grad_ivar() is x.grad
    np.testing.assert_allclose(x._grad_ivar().numpy(), [2.0, -4.0])
    x.clear_grad(set_to_zero=False)
    assert x._grad_ivar() is None


def test_chain_of_100k_ops_runs_without_recursion_error(device):
    # The engine walks the graph with its own stack, never the interpreter's. The walk is
    # the same code on either device, and the CPU run takes 100,000 ops (deep enough for
    # C-level recursion in freeing the graph, too). The gpu axis checks that its ops and
    # gradient kernels add no recursion of their own: ten times the interpreter's recursion
    # limit finds any as surely, at a tenth of the 100,000 ops' cost on the stand-in GPU.
    length = 100_000 if device == "cpu" else 10 * sys.getrecursionlimit()
    x = leaf([0.5])
    y = x
    for _ in range(length):
        y = y * 1.0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0])


def test_backward_on_non_scalar_seeds_ones_or_takes_grad_tensor():
    x = leaf([1.0, 2.0])
    y = x * 2.0
    y.backward(retain_graph=True)  # Paddle seeds ones
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    y.backward(eager.to_tensor([1.0, 10.0], dtype="float64"))
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 22.0])


def test_backward_grad_tensor_must_match():
    y = leaf([1.0, 2.0]) * 2.0
    with pytest.raises(ValueError, match=r"float64\[2\].*float64\[3\]"):
        y.backward(eager.to_tensor([1.0, 2.0, 3.0], dtype="float64"))


def test_backward_through_released_graph_names_retain_graph():
    x = leaf([1.0, 2.0])
    y = (eager.tanh(x) * x).sum()
    y.backward()
    with pytest.raises(AutogradError, match="retain_graph=True"):
        y.backward()


def test_retain_graph_allows_second_backward():
    x = leaf([1.0, 2.0])
    y = (eager.tanh(x) * x).sum()
    y.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first)


def test_backward_from_stop_gradient_tensor_warns_and_does_nothing():
    # Paddle does nothing here; a warning says why no gradient appeared.
    with pytest.warns(UserWarning, match="stop_gradient=True"):
        eager.to_tensor([1.0]).sum().backward()
    x = eager.to_tensor([1.0], stop_gradient=False)
    with pytest.warns(UserWarning, match="1 of 2 tensor"):
        eager.autograd.backward([x * 2.0, eager.to_tensor([3.0])])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0])


# -- autograd.backward and grad -------------------------------------------------

def test_multi_root_backward_with_root_that_is_ancestor_of_another():
    a = leaf([3.0])
    b = a * a          # root 2
    c = b * 2.0        # root 1, depends on b
    eager.autograd.backward([c, b])
    np.testing.assert_allclose(a.grad.numpy(), [4 * 3.0 + 2 * 3.0])


def test_multi_root_backward_with_grad_tensors():
    a = leaf([1.0, 2.0])
    eager.autograd.backward([a * 2.0, a * a], [eager.to_tensor([1.0, 1.0], dtype="float64"),
                                                eager.to_tensor([0.5, 0.5], dtype="float64")])
    np.testing.assert_allclose(a.grad.numpy(), 2.0 + 0.5 * 2 * a.numpy())


def test_grad_returns_without_touching_dot_grad():
    x = leaf([1.0, 2.0])
    (g,) = eager.grad((x ** 3).sum(), x)
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2)
    assert x.grad is None


def test_grad_for_intermediate_input():
    x = leaf([2.0])
    h = x * x
    out = eager.exp(h).sum()
    (gh,) = eager.grad(out, h)
    np.testing.assert_allclose(gh.numpy(), np.exp(4.0))


def test_grad_runs_only_the_needed_part_of_the_graph():
    x = leaf([1.0])
    side = eager.to_tensor([2.0], dtype="float64", stop_gradient=False)
    calls = []
    side.register_hook(lambda g: calls.append("side"))
    out = (x * 3.0 + side * 5.0).sum()
    (gx,) = eager.grad(out, x)
    assert gx.item() == 3.0 and calls == []


def test_grad_unused_input_error_and_allow_unused():
    x, unused = leaf([1.0]), leaf([1.0])
    out = (x * 2.0).sum()
    with pytest.raises(AutogradError, match="second input is not reached.*allow_unused=True"):
        eager.grad(out, [x, unused], retain_graph=True)
    gx, gu = eager.grad(out, [x, unused], allow_unused=True)
    assert gx.item() == 2.0 and gu is None


def test_grad_duplicate_tensors_are_rejected():
    x = leaf([1.0])
    with pytest.raises(ValueError, match="'inputs' lists the same tensor twice"):
        eager.grad(x * 2.0, [x, x])
    y = x * 2.0
    with pytest.raises(ValueError, match="'outputs' lists the same tensor twice"):
        eager.grad([y, y], x)


def test_grad_no_grad_vars_treats_them_as_constants():
    x = leaf([2.0])
    y = x * x
    z = y * x
    (g,) = eager.grad(z, x, no_grad_vars=[y])
    assert g.item() == pytest.approx(4.0)  # d(y*x)/dx with y constant


def test_grad_retain_graph_defaults_to_create_graph():
    x = leaf([1.0])
    y = eager.tanh(x).sum()
    eager.grad(y, x, create_graph=True)
    eager.grad(y, x)  # graph kept by create_graph=True
    with pytest.raises(AutogradError, match="retain_graph"):
        eager.grad(y, x)


@pytest.mark.parametrize("op, third", [
    ("tanh", lambda v: -2 * (1 - np.tanh(v) ** 2) * (1 - 3 * np.tanh(v) ** 2)),
    ("sigmoid", lambda v: (lambda s: s * (1 - s) * (1 - 6 * s + 6 * s * s))(1 / (1 + np.exp(-v)))),
    ("exp", np.exp),
])
def test_third_order_unary(op, third):
    value = 0.37
    x = leaf([value])
    fn = getattr(eager, op)
    (g1,) = eager.grad(fn(x).sum(), x, create_graph=True)
    (g2,) = eager.grad(g1.sum(), x, create_graph=True)
    (g3,) = eager.grad(g2.sum(), x)
    assert g3.item() == pytest.approx(third(value), rel=1e-10)


def test_third_order_matmul_and_multiply():
    rng = np.random.default_rng(1)
    a = leaf(rng.normal(size=(2, 3)))
    b = leaf(rng.normal(size=(3, 2)))
    out = (eager.matmul(a, b) * eager.matmul(a, b)).sum()  # quartic in (a, b) jointly
    (ga,) = eager.grad(out, a, create_graph=True)
    (gab,) = eager.grad(ga.sum(), b, create_graph=True)
    (gaba,) = eager.grad(gab.sum(), a)

    # closed form: out = sum((AB)^2); d/dA = 2 (AB) B^T; sum over it, d/dB, sum, d/dA.
    def f(a_np):
        bn = b.numpy()

        def s(bb):
            return (2 * (a_np @ bb) @ bb.T).sum()
        return numeric_grad(s, bn).sum()

    expected = numeric_grad(f, a.numpy(), eps=1e-4)
    np.testing.assert_allclose(gaba.numpy(), expected, rtol=1e-4, atol=1e-6)


# -- hooks ----------------------------------------------------------------------

def test_hooks_run_in_order_and_may_replace_gradient():
    x = leaf([1.0, 2.0])
    y = x * x
    seen = []
    y.register_hook(lambda g: seen.append(("first", g.numpy().tolist())) or g * 10.0)
    y.register_hook(lambda g: seen.append(("second", g.numpy().tolist())))
    y.sum().backward()
    assert seen == [("first", [1.0, 1.0]), ("second", [10.0, 10.0])]
    np.testing.assert_allclose(x.grad.numpy(), 10 * 2 * x.numpy())


def test_leaf_hook_and_handle_remove():
    x = leaf([3.0])
    handle = x.register_hook(lambda g: g * 0.0)
    (x * 2.0).sum().backward()
    assert x.grad.item() == 0.0
    handle.remove()
    handle.remove()  # idempotent
    x.clear_grad(set_to_zero=False)
    (x * 2.0).sum().backward()
    assert x.grad.item() == 2.0


def test_hook_replacement_must_keep_shape_and_dtype():
    x = leaf([1.0, 2.0])
    y = x * 2.0
    y.register_hook(lambda g: g.reshape([2, 1]))
    with pytest.raises(ValueError, match=r"paddle.float64\[2, 1\].*must keep paddle.float64\[2\]"):
        y.sum().backward()
    z = x * 2.0
    z.register_hook(lambda g: g.astype("float32"))
    with pytest.raises(RuntimeError, match=r"float32\[2\].*must keep paddle.float64\[2\]"):  # as Paddle
        z.sum().backward()
    w = x * 2.0
    w.register_hook(lambda g: 1.0)
    with pytest.raises(TypeError, match="returned float"):
        w.sum().backward()


def test_hook_on_stop_gradient_tensor_raises():
    with pytest.raises(RuntimeError, match="stop_gradient=True"):
        eager.to_tensor([1.0]).register_hook(lambda g: g)


def test_retain_grads_keeps_non_leaf_grad_after_hooks():
    x = leaf([1.0, 2.0])
    y = x * 3.0
    y.retain_grads()
    y.register_hook(lambda g: g * 2.0)
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), 2 * 2 * y.numpy())
    z = x * 1.0
    (z * 2.0).sum().backward()
    assert z.grad is None  # not retained


def test_post_accumulate_hook_sees_updated_grad():
    x = leaf([1.0])
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, t.grad.item())))
    (x * 5.0).sum().backward()
    (x * 5.0).sum().backward()
    assert seen == [(True, 5.0), (True, 10.0)]
    paddle_style = []
    x._register_backward_hook(lambda: paddle_style.append(True))
    (x * 1.0).sum().backward()
    assert paddle_style == [True]


def test_hooks_run_for_grad_captures():
    x = leaf([2.0])
    x.register_hook(lambda g: g * 100.0)
    (g,) = eager.grad((x * 1.0).sum(), x)
    assert g.item() == 100.0


# -- grad mode ------------------------------------------------------------------

def test_no_grad_context_and_decorator():
    x = leaf([1.0])
    with eager.no_grad():
        assert (x * 2.0).stop_gradient
        with eager.enable_grad():
            assert not (x * 2.0).stop_gradient

    @eager.no_grad()
    def f(t):
        return t * 2.0

    assert f(x).stop_gradient
    assert eager.is_grad_enabled()


def test_set_grad_enabled():
    x = leaf([1.0])
    with eager.set_grad_enabled(False):
        assert (x * 2.0).stop_gradient
    assert not (x * 2.0).stop_gradient
    with pytest.raises(TypeError, match="expected a bool"):
        eager.set_grad_enabled("no")


def test_grad_mode_is_thread_local():
    inside, ready, done = [], threading.Event(), threading.Event()

    def worker():
        x = leaf([1.0])
        ready.wait()
        inside.append((x * 2.0).stop_gradient)
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    with eager.no_grad():
        ready.set()
        done.wait(5)
    thread.join()
    assert inside == [False]


# -- inplace, versions, views -------------------------------------------------

def test_modified_saved_tensor_error_names_tensor_op_and_versions():
    w = leaf([[0.1, 0.2]])
    t = eager.tanh(w)
    t.name = "activations"
    out = (t * 2.0).sum()
    _ = eager.exp(t)  # exp saves its output, tanh saved t as output too
    with eager.no_grad():
        t.add_(eager.to_tensor([[1.0, 1.0]], dtype="float64"))
    with pytest.raises(AutogradError) as info:
        out.backward()
    message = str(info.value)
    assert "tanh" in message and "version 0" in message and "version 1" in message
    assert "[1, 2]" in message and "float64" in message


def test_saved_input_error_names_tensor_by_name():
    a = leaf([1.0, 2.0])
    b = a * 1.0
    b.name = "hidden"
    out = (b * b).sum()
    with eager.no_grad():
        b.scale_(2.0)
    with pytest.raises(AutogradError, match="by multiply.*'hidden'"):
        out.backward()


def test_inplace_on_leaf_requiring_grad_raises_unless_no_grad():
    w = leaf([1.0])
    with pytest.raises(AutogradError, match="leaf tensor with stop_gradient=False.*no_grad"):
        w.add_(eager.to_tensor([1.0], dtype="float64"))
    with eager.no_grad():
        w.add_(eager.to_tensor([1.0], dtype="float64"))
        w -= 0.5
    assert w.item() == 1.5 and w.is_leaf


@pytest.mark.parametrize("op, reference", [
    ("tanh_", lambda v: 1 - np.tanh(v) ** 2),
    ("exp_", np.exp),
    ("relu_", lambda v: (v > 0).astype(float)),
])
def test_gradient_through_unary_inplace_matches_out_of_place(op, reference):
    x = leaf([0.5, -0.7, 1.3])
    y = x * 1.0
    getattr(y, op)()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), reference(x.numpy()), rtol=1e-12)


def test_gradient_through_binary_inplace_matches_out_of_place():
    x, y = leaf([1.5, -2.0]), leaf([0.5, 4.0])
    h = x * 1.0
    h.multiply_(y)  # multiply's backward needs the old h: it is kept
    h.add_(x)
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.numpy() + 1)
    np.testing.assert_allclose(y.grad.numpy(), x.numpy())


def test_augmented_assignment_and_setitem_are_inplace_and_differentiable():
    x, v = leaf(np.ones((2, 3))), leaf([5.0, 6.0, 7.0])
    h = x * 2.0
    version = h.inplace_version
    h += 1.0
    h[1] = v * 3.0
    assert h.inplace_version == version + 2
    (h * h).sum().backward()
    expected_x = np.zeros((2, 3))
    expected_x[0] = 2 * 3.0 * 2  # d/dx of (2x+1)^2 at x=1
    np.testing.assert_allclose(x.grad.numpy(), expected_x)
    np.testing.assert_allclose(v.grad.numpy(), 2 * 3 * v.numpy() * 3)


def test_views_share_buffer_and_version_counter():
    x = leaf(np.arange(6.0))
    base = x * 1.0
    views = [base.reshape([2, 3]), base.unsqueeze([0]), base.flatten(), base[1:4]]
    for view in views:
        assert view.impl.version_counter is base.impl.version_counter
        assert view.grad_node.is_view
    with eager.no_grad():
        base.scale_(2.0)
    assert all(v.inplace_version == 1 for v in views)
    np.testing.assert_allclose(views[0].numpy().ravel(), 2 * np.arange(6.0))


def test_getitem_gradients_for_each_index_kind():
    x = leaf(np.arange(12.0).reshape(3, 4))
    cases = [1, (slice(None), 2), (None, Ellipsis, 1), eager.to_tensor([0, 2, 0]),
             eager.to_tensor(x.numpy() > 5), (slice(None, None, -2),)]
    for index in cases:
        x.clear_grad(set_to_zero=False)
        x[index].sum().backward()
        np_index = index.numpy() if isinstance(index, eager.Tensor) else index
        expected = np.zeros((3, 4))
        np.add.at(expected, np_index if not isinstance(np_index, tuple) or None not in np_index
                  else tuple(i for i in np_index if i is not None), 1.0)
        np.testing.assert_allclose(x.grad.numpy(), expected, err_msg=str(index))



@pytest.mark.parametrize("np_index", [
    (slice(None, None, -1), np.array([1]), [0], None, np.array([True, True, True, False])),
    (np.array([[0, 2]]), None, slice(1, 3), np.array([0, 0])),
    (None, np.array([2, 0]), Ellipsis, None, np.array([3, 1])),
    (Ellipsis, None, np.array([0, 0, 2])),
], ids=["none-between-arrays", "none-after-array", "nones-around-ellipsis", "ellipsis-then-none"])
def test_getitem_gradient_keeps_the_axis_order_a_none_gives(np_index):
    """A None between advanced indices puts their axes first in x[index] (NumPy's rule,
    as Paddle's); the gradient must be added back in that order, each element's own
    (np.add.at with the same index is the reference; a uniform gradient would hide a
    transposition)."""
    x_np = np.arange(48.0).reshape(3, 4, 1, 4)
    x = leaf(x_np)
    index = tuple(eager.to_tensor(i) if isinstance(i, np.ndarray) else i for i in np_index)
    out = x[index]
    np.testing.assert_array_equal(out.numpy(), x_np[np_index])
    g = np.random.default_rng(0).standard_normal(out.shape)
    out.backward(eager.to_tensor(g))
    expected = np.zeros_like(x_np)
    np.add.at(expected, np_index, g)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12, atol=1e-12)

# -- anomaly mode ---------------------------------------------------------------

def test_anomaly_forward_names_op_output_and_call_site():
    x = leaf([1.0, 0.0])
    with detect_anomaly(), np.errstate(divide="ignore"):
        with pytest.raises(AnomalyError) as info:
            eager.log(x)
    message = str(info.value)
    assert message.startswith("log: output 0") and "Inf" in message
    assert "test_autograd.py" in message


def test_anomaly_backward_names_grad_node_and_forward_stack():
    x = leaf([0.0, 4.0])
    with detect_anomaly(), np.errstate(divide="ignore"):
        y = eager.pow(x, 0.5)  # sqrt: infinite slope at 0
        with pytest.raises(AnomalyError) as info:
            y.sum().backward()
    message = str(info.value)
    assert message.startswith("pow_grad:") and "Inf" in message
    assert "y = eager.pow(x, 0.5)" in message


def test_anomaly_mode_off_does_not_check():
    x = leaf([0.0])
    assert not eager.autograd.is_anomaly_enabled()
    with np.errstate(divide="ignore"):
        assert np.isinf(eager.log(x).numpy()).all()


# -- saved tensor hooks -----------------------------------------------------------

def test_saved_tensors_hooks_pack_and_unpack():
    packed_bytes = []

    def pack(tensor):
        packed_bytes.append(tensor.numpy().nbytes)
        return tensor.numpy().copy()

    def unpack(array):
        return eager.to_tensor(array)

    x = leaf(np.arange(4.0))
    with saved_tensors_hooks(pack, unpack):
        y = (eager.tanh(x) * x).sum()  # tanh saves out, multiply saves both inputs
    assert packed_bytes == [32, 32, 32]
    y.backward()
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(x.grad.numpy(), t + x.numpy() * (1 - t ** 2))


def test_saved_tensors_hooks_unpack_must_return_same_shape():
    x = leaf([1.0, 2.0])
    with saved_tensors_hooks(lambda t: t.numpy(), lambda a: eager.to_tensor(a[:1])):
        y = (x * x).sum()
    with pytest.raises(ValueError, match="unpack_hook returned"):
        y.backward()


def test_saved_tensors_hooks_still_detect_inplace_changes():
    x = leaf([1.0, 2.0])
    h = x * 1.0
    with saved_tensors_hooks(lambda t: t.numpy().copy(), lambda a: eager.to_tensor(a)):
        y = (h * h).sum()
    with eager.no_grad():
        h.add_(eager.to_tensor([1.0, 1.0], dtype="float64"))
    with pytest.raises(AutogradError, match="modified by an inplace operation"):
        y.backward()
