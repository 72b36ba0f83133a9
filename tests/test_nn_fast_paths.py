"""The forward's short paths in eager.nn keep what the full paths do: Layer.__call__
without hooks (the name scope written in line), Linear and ReLU reading their
parameters and input directly, and the argument checks of F.linear (remembered
per dtypes and shapes) and F.mse_loss (checked in line) for the common case.
Each test holds the short path to the result or error the full path gives."""
import numpy as np
import pytest

import eager
from eager import nn
from eager.autograd.scope import current_scope
from eager.nn import functional as F
from eager.nn.functional import common as F_common


def tensor(a, stop_gradient=True):
    return eager.to_tensor(np.asarray(a), stop_gradient=stop_gradient)


# -- Layer.__call__ ---------------------------------------------------------------
def test_a_failing_forward_leaves_the_name_scope_as_it_was():
    class Failing(nn.Layer):
        def forward(self, x):
            raise ValueError(f"boom in {current_scope()}")

    layer = Failing()
    seq = nn.Sequential(layer)
    with eager.viz.name_scope("outer"):
        with pytest.raises(ValueError, match=f"boom in \\('outer', '{seq.full_name()}', '{layer.full_name()}'\\)"):
            seq(tensor([1.0]))
        assert current_scope() == ("outer",)
    assert current_scope() == ()


def test_a_layer_whose_init_never_ran_says_so_when_called():
    class NoInit(nn.Layer):
        def __init__(self):
            pass

        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match=r"NoInit: Layer.__init__ was not called; call super\(\).__init__\(\)"):
        NoInit()(tensor([1.0]))


def test_a_post_hook_registered_during_forward_runs_in_that_call():
    seen = []

    class Registers(nn.Layer):
        def forward(self, x):
            if not self._forward_post_hooks:
                self.register_forward_post_hook(lambda layer, inputs, out: seen.append(out) or out * 2)
            return x

    out = Registers()(tensor([1.5]))
    assert len(seen) == 1 and out.numpy().tolist() == [3.0]


def test_hooks_run_in_order_around_forward_in_its_scope():
    fc = nn.Linear(2, 3)
    order = []

    def pre(layer, inputs):
        order.append(("pre", current_scope()))
        return (inputs[0] * 2,)

    def post(layer, inputs, out):
        order.append(("post", current_scope()))
        return out + 1

    fc.register_forward_pre_hook(pre)
    fc.register_forward_post_hook(post)
    x = np.arange(4, dtype="float32").reshape(2, 2)
    out = fc(tensor(x))
    expected = (2 * x) @ fc.weight.numpy() + fc.bias.numpy() + 1
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    assert order == [("pre", ()), ("post", ())]


# -- Linear and ReLU ----------------------------------------------------------------
def test_a_linear_subclass_that_defines_its_weight_uses_it():
    class Doubled(nn.Linear):
        @property
        def weight(self):
            return self._parameters["raw"] * 2

    fc = Doubled(2, 2)
    fc.add_parameter("raw", fc._parameters.pop("weight"))
    x = np.ones((1, 2), "float32")
    np.testing.assert_allclose(fc(tensor(x)).numpy(), x @ (2 * fc.raw.numpy()) + fc.bias.numpy(), rtol=1e-6)


def test_linear_without_a_bias_and_with_a_removed_one():
    fc = nn.Linear(3, 2, bias_attr=False)
    x = np.ones((4, 3), "float32")
    np.testing.assert_allclose(fc(tensor(x)).numpy(), x @ fc.weight.numpy(), rtol=1e-6)
    del fc.weight
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'weight'"):
        fc(tensor(x))


def test_linear_and_relu_layers_check_their_input():
    fc = nn.Linear(3, 2)
    with pytest.raises(ValueError, match=r"argument 'x' expected a last dimension of 3 \(in_features\), got "
                                         r"shape \[4, 2\]"):
        fc(tensor(np.ones((4, 2), "float32")))
    with pytest.raises(ValueError, match="expected a last dimension of 3"):
        fc(tensor(np.float32(1.0)))
    with pytest.raises(TypeError, match="argument 'x' expected a Tensor"):
        fc(np.ones((4, 3), "float32"))
    with pytest.raises(TypeError, match="relu: argument 'x' expected a Tensor, got .*convert it with eager.to_tensor"):
        nn.ReLU()(np.ones(3))
    x = np.array([-1.0, 0.5])
    np.testing.assert_array_equal(nn.ReLU()(tensor(x)).numpy(), np.maximum(x, 0))


# -- F.linear: checks remembered per dtypes and shapes -----------------------------------
def test_linear_checks_every_call_that_differs_from_one_that_passed():
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in ((5, 3), (3, 4), (4,)))
    out = F.linear(tensor(x), tensor(w), tensor(b))
    np.testing.assert_allclose(out.numpy(), x @ w + b, rtol=1e-5)
    np.testing.assert_allclose(F.linear(tensor(x[:2]), tensor(w), tensor(b)).numpy(), x[:2] @ w + b, rtol=1e-5)
    with pytest.raises(ValueError, match=r"linear: argument 'x' expected a last dimension of 3 \(weight's "
                                         r"in_features\), got shape \[5, 4\]"):
        F.linear(tensor(np.ones((5, 4), "float32")), tensor(w), tensor(b))
    # a bias of another shape broadcasts, as in Paddle; one that does not is refused
    np.testing.assert_allclose(F.linear(tensor(x), tensor(w), tensor(b[None])).numpy(), x @ w + b, rtol=1e-5)
    with pytest.raises(ValueError, match=r"linear: argument 'bias' expected a shape that broadcasts with \[5, 4\]"):
        F.linear(tensor(x), tensor(w), tensor(b[:2]))
    with pytest.raises(TypeError, match="linear: argument 'weight' expected the dtype of 'x' paddle.float32, got paddle.float64"):
        F.linear(tensor(x), tensor(w.astype("float64")), tensor(b))
    with pytest.raises(TypeError, match="linear: argument 'x' expected a floating-point or complex Tensor, got paddle.int32"):
        F.linear(tensor(x.astype("int32")), tensor(w), tensor(b))
    with pytest.raises(TypeError, match="linear: argument 'bias' expected the dtype of 'x' paddle.float32, got paddle.float64"):
        F.linear(tensor(x), tensor(w), tensor(b.astype("float64")))
    with pytest.raises(TypeError, match="linear: argument 'x' expected a Tensor"):
        F.linear(x, tensor(w), tensor(b))
    np.testing.assert_allclose(F.linear(tensor(x), tensor(w)).numpy(), x @ w, rtol=1e-5)


def test_linear_remembers_a_bounded_number_of_signatures():
    w = tensor(np.ones((2, 3), "float32"))
    for width in range(1, F_common._LINEAR_CHECKED.capacity + 20):
        weight = tensor(np.ones((2, width), "float32"))
        assert F.linear(tensor(np.ones((1, 2), "float32")), weight).shape == [1, width]
        assert len(F_common._LINEAR_CHECKED) <= F_common._LINEAR_CHECKED.capacity
    assert F.linear(tensor(np.ones((1, 2), "float32")), w).shape == [1, 3]


# -- F.mse_loss: the same-shape case checked in line -----------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_values_and_gradient(reduction):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    x = tensor(a, stop_gradient=False)
    loss = F.mse_loss(x, tensor(b), reduction)
    squares = (a - b) ** 2
    expected = {"mean": squares.mean(), "sum": squares.sum(), "none": squares}[reduction]
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-12)
    loss.sum().backward()
    scale = 1 / a.size if reduction == "mean" else 1.0
    np.testing.assert_allclose(x.grad.numpy(), 2 * (a - b) * scale, rtol=1e-12)


def test_mse_loss_errors_after_a_call_that_passed():
    a = tensor(np.ones((2, 3), "float32"))
    F.mse_loss(a, a)
    with pytest.raises(ValueError, match="mse_loss: argument 'reduction' expected one of 'mean', 'sum', 'none', "
                                         "got 'avg'"):
        F.mse_loss(a, a, "avg")
    with pytest.raises(TypeError, match="mse_loss: argument 'label' expected the dtype of 'input' paddle.float32, got paddle.int64"):
        F.mse_loss(a, tensor(np.ones((2, 3), "int64")))
    assert F.mse_loss(a, tensor(np.ones((2, 3)))).dtype == eager.float64   # promoted, as Paddle's
    with pytest.raises(TypeError, match="mse_loss: argument 'input' expected a floating-point Tensor, got paddle.int64"):
        F.mse_loss(tensor(np.ones((2, 3), "int64")), tensor(np.ones((2, 3), "int64")))
    with pytest.raises(TypeError, match="mse_loss: argument 'label' expected a Tensor"):
        F.mse_loss(a, np.ones((2, 3), "float32"))
    with pytest.warns(UserWarning, match="broadcast together"):
        assert F.mse_loss(a, tensor(np.ones((3,), "float32")), "none").shape == [2, 3]
    big_endian = tensor(np.ones((2, 3), ">f4"))
    assert float(F.mse_loss(big_endian, big_endian)) == 0.0


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0, 3), (7,), (3, 5, 2)])
def test_mse_loss_mean_is_sum_then_division_bit_for_bit(dtype, shape):
    """The mean of fused_mse_loss on the host: NumPy's sum of the squares over every
    axis divided by their count, in the input's dtype; NaN for no elements, warning-free."""
    import warnings

    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = F.mse_loss(tensor(a), tensor(b))
    assert loss.dtype == tensor(a).dtype and loss.shape == []
    squares = np.multiply(a - b, a - b)
    expected = np.full((), np.nan, dtype) if not squares.size else \
        np.divide(np.sum(squares, axis=tuple(range(squares.ndim))), squares.size).astype(dtype)
    assert loss.numpy().tobytes() == np.asarray(expected).tobytes()


# -- the generated forward frame: one pack-hook check per node ----------------------------
def test_a_nodes_saves_reach_the_pack_hook_in_order_and_unhooked_saves_keep_versions():
    from eager.autograd.saved_hooks import PackedSaved
    from eager.autograd.tensor_wrapper import SavedInput

    packed = []
    x = tensor(np.ones((2, 3), "float32"), stop_gradient=False)
    w = tensor(np.full((3, 4), 0.5, "float32"), stop_gradient=False)
    b = tensor(np.zeros(4, "float32"), stop_gradient=False)
    with eager.autograd.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        out = F.linear(x, w, b)
        gelu = eager.nn.functional.gelu(out)  # saves its input, then its output
    assert [id(t.impl) for t in packed] == [id(x.impl), id(w.impl), id(out.impl), id(gelu.impl)]  # each buffer
    assert type(out.grad_node.x) is PackedSaved and type(gelu.grad_node.out) is PackedSaved
    w.impl.bump_version()
    out = F.linear(x, w, b)
    assert type(out.grad_node.weight) is SavedInput and out.grad_node.weight.version == 1
    assert out.grad_node.x.version == 0


# -- Tensor operators ----------------------------------------------------------------------
def test_true_division_of_two_tensors_floating_or_not():
    a, b = np.array([1.0, 3.0], "float32"), np.array([2.0, 4.0], "float32")
    out = tensor(a, stop_gradient=False) / tensor(b)
    assert out.dtype == eager.float32 and out.grad_node.forward_op == "divide"
    np.testing.assert_array_equal(out.numpy(), a / b)
    ints = tensor(np.array([1, 3], "int32")) / tensor(np.array([2, 4], "int32"))
    assert ints.dtype == eager.float32 and ints.numpy().tolist() == [0.5, 0.75]
    with pytest.warns(UserWarning):  # Paddle 2.6.2's `/` casts y to x's dtype (float32 / float64 is float32)
        narrow = tensor(a) / tensor(b.astype("float64"))
    assert narrow.dtype == eager.float32 and narrow.numpy().tolist() == [0.5, 0.75]
    w = np.arange(4, dtype="float32").reshape(2, 2)
    np.testing.assert_array_equal((tensor(a) @ tensor(w)).numpy(), a @ w)
    np.testing.assert_array_equal((tensor(a) @ w).numpy(), a @ w)
