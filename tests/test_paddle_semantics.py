"""Where a ported Paddle script would notice: per-thread modes, ValueError for
Paddle's ValueErrors, seeds of ones, hook handles, gradient(), and create_graph
results that are differentiable."""
import gc
import inspect
import threading
import weakref

import numpy as np
import pytest

import eager
from eager.autograd import AutogradError, detect_anomaly, is_anomaly_enabled, vjp


def leaf(values):
    return eager.to_tensor(np.array(values, dtype=np.float64), stop_gradient=False)


def run_in_thread(fn):
    result = {}

    def target():
        result["value"] = fn()

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    return result["value"]


def test_anomaly_mode_is_per_thread():
    with detect_anomaly():
        assert is_anomaly_enabled()
        assert run_in_thread(is_anomaly_enabled) is False
    assert not is_anomaly_enabled()


def test_one_no_grad_object_entered_from_two_threads_restores_each():
    guard = eager.no_grad()
    inside, release = threading.Event(), threading.Event()
    after = {}

    def worker():
        with guard:
            inside.set()
            release.wait()
        after["worker"] = eager.is_grad_enabled()

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait()
    with guard:
        assert not eager.is_grad_enabled()
    release.set()
    thread.join()
    assert eager.is_grad_enabled() and after["worker"] is True


def test_no_grad_keeps_the_signature_for_getfullargspec():
    @eager.no_grad()
    def step(params, lr=0.1, *, momentum=0.9):
        return lr

    spec = inspect.getfullargspec(step)
    assert spec.args == ["params", "lr"] and spec.kwonlyargs == ["momentum"]
    assert step([], lr=0.5) == 0.5


def test_autograd_errors_are_caught_as_value_errors_like_paddles():
    x = leaf([1.0])
    with pytest.raises(ValueError, match="not reached"):
        eager.grad((x * 2.0).sum(), [x, leaf([2.0])])
    with pytest.raises(ValueError, match="stop_gradient=True"):
        eager.to_tensor([1.0]).register_hook(lambda g: g)
    assert issubclass(AutogradError, RuntimeError)


def test_retain_grads_on_a_stop_gradient_tensor_is_a_no_op():
    t = eager.to_tensor([1.0])
    t.retain_grads()
    assert t.grad is None


def test_a_hook_handle_removes_once():
    x = leaf([1.0])
    handle = x.register_hook(lambda g: g)
    assert handle.remove() is True
    assert handle.remove() is False


def test_gradient_returns_a_numpy_array():
    x = leaf([1.0, 2.0])
    assert x.gradient() is None
    (x * 3.0).sum().backward()
    g = x.gradient()
    assert isinstance(g, np.ndarray) and g.tolist() == [3.0, 3.0]


def test_create_graph_gradients_all_have_stop_gradient_false():
    x = leaf([1.0, 2.0])
    (g,) = eager.grad((x * 2.0).sum(), x, create_graph=True)  # a constant gradient
    assert not g.stop_gradient
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])


def test_vjp_without_v_uses_ones():
    x = leaf([1.0, 2.0])
    out, g = vjp(lambda a: a * a, x)
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])


def test_retained_grads_and_create_graph_leave_no_reference_cycle():
    x = leaf([1.0, 2.0])
    y = x * x
    y.retain_grads()
    eager.grad((y * y).sum(), x, create_graph=True)
    ref = weakref.ref(y)
    gc.disable()
    try:
        del y
        assert ref() is None  # freed by reference counting alone
    finally:
        gc.enable()


# -- Python scalars meet tensors as in Paddle ---------------------------------------

@pytest.mark.parametrize("make, expected_dtype, expected", [
    (lambda i, f: i == 1.5, "bool", [False, False]),          # no truncation to 1
    (lambda i, f: i + 1.5, "float32", [2.5, 3.5]),
    (lambda i, f: 1.5 - i, "float32", [0.5, -0.5]),
    (lambda i, f: i * 2, "int64", [2, 4]),
    (lambda i, f: f * 1j, "complex64", [1j, 2j]),            # the imaginary part is kept
    (lambda i, f: i < 1.5, "bool", [True, False]),
    (lambda i, f: i / 2, "float32", [0.5, 1.0]),
])
def test_scalar_promotion(make, expected_dtype, expected):
    i = eager.to_tensor(np.array([1, 2], np.int64))
    f = eager.to_tensor(np.array([1.0, 2.0], np.float32))
    out = make(i, f)
    assert out.dtype.value == expected_dtype
    np.testing.assert_array_equal(out.numpy(), expected)


def test_a_scalar_the_result_cannot_hold_is_an_error_naming_the_operator():
    i = eager.to_tensor(np.array([1, 2], np.int64))
    with pytest.raises(ValueError, match=r"add: argument 'other' expected a number in \[-9223372036854775808"):
        i + 2 ** 70
    with pytest.raises(ValueError, match="full: argument 'fill_value' expected a finite number for dtype paddle.int32"):
        eager.full([2], float("nan"), "int32")
    with pytest.raises(ValueError, match="expected a real number for dtype paddle.float32"):
        eager.full([2], 1j, "float32")


def test_inplace_operators_refuse_a_scalar_that_changes_the_dtype():
    i = eager.to_tensor(np.array([1, 2], np.int64))
    with pytest.raises(TypeError, match=r"\+=: the result of a paddle.int64 tensor and the float 0.5 is not paddle.int64"):
        i += 0.5
    f = eager.to_tensor(np.array([1.0], np.float32))
    with pytest.raises(TypeError, match="complex"):
        f *= 1j
    i += 3
    np.testing.assert_array_equal(i.numpy(), [4, 5])


def test_tensors_iterate_unpack_and_format_like_sequences_and_numbers():
    t = eager.to_tensor(np.arange(6.0).reshape(3, 2))
    rows = [row.numpy().tolist() for row in t]
    assert rows == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    a, b, c = t
    assert c.numpy().tolist() == [4.0, 5.0]
    assert [x.item() for x, y in zip(t[0], t[1])] == [0.0, 1.0]
    with pytest.raises(IndexError, match="out of bounds"):
        t[3]
    with pytest.raises(TypeError, match="0-d"):
        iter(eager.to_tensor(1.0)).__next__()
    loss = eager.to_tensor(0.123456)
    assert f"{loss:.3f}" == "0.123" and format(loss, ".1e") == "1.2e-01"
    with pytest.raises(TypeError, match="one-element"):
        f"{t:.2f}"


def test_layer_list_supports_list_editing_like_paddle():
    layers = eager.nn.LayerList([eager.nn.Linear(2, 2) for _ in range(3)])
    layers.insert(1, eager.nn.ReLU())
    layers[0] = eager.nn.Tanh()
    del layers[2]
    layers.extend([eager.nn.Sigmoid()])
    assert [type(layer).__name__ for layer in layers] == ["Tanh", "ReLU", "Linear", "Sigmoid"]
    assert list(layers.state_dict()) == ["2.weight", "2.bias"]   # names follow positions
    with pytest.raises(TypeError, match="LayerList: argument 'sublayers' expected an iterable of Layers, got int"):
        eager.nn.LayerList(5)
    with pytest.raises(TypeError, match=r"LayerList.__setitem__: argument 'sublayer' expected a Layer"):
        layers[0] = 3


@pytest.mark.parametrize("make, message", [
    (lambda p: eager.optimizer.Momentum(0.1, momentum=float("nan"), parameters=p), "momentum"),
    (lambda p: eager.optimizer.Momentum(0.1, parameters=p, rescale_grad=0.0), "rescale_grad"),
    (lambda p: eager.optimizer.Adam(0.1, epsilon=float("inf"), parameters=p), "epsilon"),
    (lambda p: eager.optimizer.SGD(0.1, parameters=p, weight_decay=float("nan")), "weight_decay"),
    (lambda p: eager.optimizer.SGD(float("nan"), parameters=p), "learning_rate"),
])
def test_hyperparameters_that_are_not_finite_are_refused(make, message):
    with pytest.raises((TypeError, ValueError), match=message):
        make([eager.nn.Parameter(np.zeros(2))])


def test_flags_must_be_bools_and_functions_callables():
    with pytest.raises(TypeError, match="to_tensor: argument 'stop_gradient' expected a bool, got None"):
        eager.to_tensor([1.0], stop_gradient=None)
    x = leaf([1.0])
    with pytest.raises(TypeError, match="grad: argument 'create_graph' expected a bool, got 'x'"):
        eager.grad((x * x).sum(), x, create_graph="x")
    with pytest.raises(TypeError, match=r"jacobian: argument 'ys' expected a Tensor, a non-empty tuple of "
                                        r"Tensors or a function \(the function form\), got int"):
        eager.autograd.jacobian(5, x)


def test_a_retained_gradient_of_an_unused_output_is_zeros():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    first, second = eager.split(x * 1.0, 2)
    first.retain_grads()
    second.retain_grads()
    (second * 3.0).sum().backward()
    np.testing.assert_array_equal(first.grad.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(second.grad.numpy(), [3.0, 3.0])


def test_kernel_floating_point_warnings_do_not_leak_but_user_numpy_still_warns():
    import subprocess
    import sys

    # -W error turns any RuntimeWarning that reaches the user into an exception.
    code = ("import numpy as np, eager\n"
            "out = eager.log(eager.to_tensor([-1.0, 0.0]))\n"
            "print(np.isnan(out.numpy()).tolist())\n"
            "try:\n    np.log(np.array([-1.0]))\nexcept RuntimeWarning:\n    print('user numpy warns')\n")
    result = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", code],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[True,", "False]", "user", "numpy", "warns"]
    with pytest.raises(eager.autograd.AnomalyError):  # where such values are reported
        with eager.autograd.detect_anomaly():
            eager.log(eager.to_tensor([-1.0]))


def test_forward_hooks_with_kwargs():
    class Scale(eager.nn.Layer):
        def forward(self, x, factor=1.0):
            return x * factor

    layer = Scale()
    seen = []
    layer.register_forward_pre_hook(lambda lay, args, kwargs: (args, {**kwargs, "factor": 3.0}),
                                    with_kwargs=True)
    layer.register_forward_post_hook(lambda lay, args, kwargs, out: seen.append(kwargs) or out * 2.0,
                                     with_kwargs=True)
    out = layer(eager.to_tensor([1.0]), factor=5.0)
    assert out.numpy().tolist() == [6.0] and seen == [{"factor": 3.0}]
    with pytest.raises(TypeError, match="must return None or \\(inputs, kwargs\\)"):
        bad = Scale()
        bad.register_forward_pre_hook(lambda lay, args, kwargs: args, with_kwargs=True)
        bad(eager.to_tensor([1.0]))


def test_vjp_and_jvp_allow_unused():
    x, y = eager.to_tensor([1.0, 2.0]), eager.to_tensor([3.0])
    _, (gx, gy) = eager.autograd.vjp(lambda a, b: a * 2.0, (x, y))
    assert gy.numpy().tolist() == [0.0]
    with pytest.raises(ValueError, match="vjp: input 1 is not used by any output"):
        eager.autograd.vjp(lambda a, b: a * 2.0, (x, y), allow_unused=False)
    with pytest.raises(ValueError, match="jvp: output 1 does not depend on any input"):
        eager.autograd.jvp(lambda a: (a * 2.0, eager.ones([1])), x, allow_unused=False)


def test_set_value_overwrites_in_place_and_checks_shape_and_dtype():
    w = eager.to_tensor(np.zeros((2, 2), "float32"), stop_gradient=False)
    y = (w * w).sum()
    before = w.inplace_version
    assert w.set_value(np.full((2, 2), 3.0, "float32")) is w
    np.testing.assert_array_equal(w.numpy(), np.full((2, 2), 3.0))
    assert w.inplace_version == before + 1
    with pytest.raises(RuntimeError):  # the product saved the old w
        y.backward()
    w.set_value(eager.ones([2, 2]))
    np.testing.assert_array_equal(w.numpy(), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"set_value: argument 'value' expected shape \[2, 2\], got \[4\]"):
        w.set_value(np.zeros(4, "float32"))
    with pytest.raises(TypeError, match="set_value: argument 'value' expected dtype paddle.float32, got paddle.float64"):
        w.set_value(np.zeros((2, 2)))
    with pytest.raises(TypeError, match="expected a Tensor or numpy.ndarray, got list"):
        w.set_value([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(w.numpy(), np.ones((2, 2)))


def test_mean_of_integers_is_float32_as_in_paddle_3():
    out = eager.mean(eager.to_tensor([1, 2], dtype="int64"))
    assert out.dtype == eager.float32 and out.item() == 1.5  # Paddle 2 truncated to 1
    big = eager.to_tensor([2 ** 53 + 1, 2 ** 53 + 3], dtype="int64").mean()
    assert big.item() == np.float32((2 ** 53 + 2))  # summed in float64, not wrapped
    rows = eager.to_tensor([[True, False, True], [False, False, False]]).mean(axis=1, keepdim=True)
    np.testing.assert_array_equal(rows.numpy(), np.array([[2 / 3], [0.0]], dtype=np.float32))
    assert np.isnan(eager.to_tensor(np.zeros((0,), "int32")).mean().item())


def test_grad_has_stop_gradient_false_and_keeps_its_buffer():
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    g = x.grad
    assert g.stop_gradient is False  # as Paddle's .grad
    (x * 3.0).sum().backward()
    assert x.grad is g  # accumulated in place, not replaced
    np.testing.assert_array_equal(g.numpy(), [5.0, 7.0])
    x.clear_grad()
    assert x.grad is g and g.stop_gradient is False
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])
    # Ops on the gradient are recorded like ops on any trainable leaf.
    (x * x).sum().backward()
    (x.grad * x.grad).sum().backward()
    np.testing.assert_array_equal(x.grad.grad.numpy(), [4.0, 8.0])


def test_a_trainable_tensor_assigned_to_grad_is_never_written_in_place():
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    w = eager.to_tensor([10.0, 10.0], stop_gradient=False)
    x.grad = w
    (x * 2.0).sum().backward()
    np.testing.assert_array_equal(w.numpy(), [10.0, 10.0])
    np.testing.assert_array_equal(x.grad.numpy(), [12.0, 12.0])
    assert x.grad is not w and x.grad.stop_gradient is False
