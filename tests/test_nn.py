"""eager.nn: layers, parameters, state, initializers and functional losses,
checked against NumPy references and finite differences."""
import contextlib
import math

import numpy as np
import pytest

import eager
from eager import nn
from eager.nn import functional as F

pytestmark = pytest.mark.usefixtures("device")


def value_checks(device):
    """Checks that read values (label/id ranges, probabilities) run on the CPU always
    and on the GPU only in anomaly mode (no device sync otherwise): turn it on there."""
    return eager.autograd.detect_anomaly() if device == "gpu" else contextlib.nullcontext()


def tensor(array, stop_gradient=True):
    return eager.to_tensor(np.asarray(array), stop_gradient=stop_gradient)


def numeric_grad(fn, x, eps=1e-6):
    """Central differences of a scalar function of a float64 array."""
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        up = fn(x)
        x[i] = old - eps
        down = fn(x)
        x[i] = old
        grad[i] = (up - down) / (2 * eps)
    return grad


def loss_and_grad(loss_fn, x, *args, **kwargs):
    """Value and gradient of loss_fn(x, ...) computed by eager (float64)."""
    t = tensor(x, stop_gradient=False)
    out = loss_fn(t, *args, **kwargs)
    out.backward()
    return out.numpy(), t.grad.numpy()


# -- Parameter -----------------------------------------------------------------
def test_parameter_is_trainable_leaf_tensor():
    p = nn.Parameter(np.ones((2, 3), "float32"))
    assert isinstance(p, eager.Tensor)
    assert p.stop_gradient is False and p.trainable and p.is_leaf
    (p * p).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), 2 * np.ones((2, 3)))


def test_parameter_not_trainable_stops_gradient():
    p = nn.Parameter(np.ones(3, "float32"), trainable=False)
    assert p.stop_gradient
    p.trainable = True
    assert not p.stop_gradient


def test_parameter_takes_integers_rejects_non_array():
    p = nn.Parameter(np.ones(3, "int64"))  # allowed, as in Paddle; it reports trainable but gets no gradient
    assert p.dtype == eager.int64 and not p.stop_gradient and p.trainable
    with pytest.raises(TypeError, match="Parameter: argument 'value' expected a numpy array.*got list"):
        nn.Parameter([1.0, 2.0])


# -- Linear --------------------------------------------------------------------
def test_linear_forward_backward_against_numpy():
    nn.seed(1)
    fc = nn.Linear(4, 3)
    w, b = fc.weight.numpy().copy(), fc.bias.numpy().copy()
    assert w.shape == (4, 3) and b.shape == (3,)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4)).astype("float32")
    g = rng.standard_normal((5, 3)).astype("float32")
    xt = tensor(x, stop_gradient=False)
    y = fc(xt)
    np.testing.assert_allclose(y.numpy(), x @ w + b, rtol=1e-5, atol=1e-6)
    y.backward(tensor(g))
    np.testing.assert_allclose(fc.weight.grad.numpy(), x.T @ g, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(fc.bias.grad.numpy(), g.sum(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(xt.grad.numpy(), g @ w.T, rtol=1e-5, atol=1e-5)


def test_linear_default_init_is_xavier_uniform_and_zero_bias():
    nn.seed(3)
    fc = nn.Linear(300, 200)
    limit = math.sqrt(6.0 / 500)
    w = fc.weight.numpy()
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.95 * limit
    # Uniform(-a, a) has variance a^2 / 3.
    assert abs(w.var() - limit ** 2 / 3) < 0.05 * limit ** 2 / 3
    np.testing.assert_array_equal(fc.bias.numpy(), np.zeros(200, "float32"))
    assert fc.weight.dtype == eager.float32


def test_seed_makes_init_reproducible_and_generator_overrides():
    nn.seed(7)
    a = nn.Linear(3, 3).weight.numpy().copy()
    nn.seed(7)
    b = nn.Linear(3, 3).weight.numpy().copy()
    np.testing.assert_array_equal(a, b)
    c = nn.Linear(3, 3, generator=np.random.default_rng(7)).weight.numpy()
    d = nn.Linear(3, 3, generator=np.random.default_rng(7)).weight.numpy()
    np.testing.assert_array_equal(c, d)
    assert not np.array_equal(a, nn.Linear(3, 3).weight.numpy())


def test_linear_attrs_initializer_no_bias_and_learning_rate():
    fc = nn.Linear(2, 3, weight_attr=nn.ParamAttr(initializer=nn.initializer.Constant(0.5),
                                                  learning_rate=0.1),
                   bias_attr=False)
    np.testing.assert_array_equal(fc.weight.numpy(), np.full((2, 3), 0.5, "float32"))
    assert fc.bias is None
    assert [n for n, _ in fc.named_parameters()] == ["weight"]
    assert fc.weight.optimize_attr["learning_rate"] == 0.1
    y = fc(eager.ones([1, 2]))
    np.testing.assert_allclose(y.numpy(), np.ones((1, 3)))


def test_linear_errors_name_the_argument():
    with pytest.raises(TypeError, match="Linear: argument 'in_features' expected a positive int, got 0"):
        nn.Linear(0, 3)
    with pytest.raises(TypeError, match="Linear: argument 'bias_attr' expected None, a bool"):
        nn.Linear(2, 3, bias_attr=3)
    fc = nn.Linear(4, 3)
    with pytest.raises(ValueError, match=r"argument 'x' expected a last dimension of 4.*got shape \[2, 5\]"):
        fc(eager.ones([2, 5]))
    with pytest.raises(TypeError, match=r"argument 'x' expected a Tensor, got ndarray"):
        fc(np.ones((2, 4), "float32"))


# -- Layer mechanics -------------------------------------------------------------
class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 2)
        self.scale = nn.Parameter(np.ones(1, "float32"))

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


def test_layer_registers_parameters_and_sublayers_recursively():
    net = MLP()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert len(net.parameters()) == 5
    assert net.sublayers() == [net.fc1, net.act, net.fc2]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "fc2"]
    assert len(net.parameters(include_sublayers=False)) == 1


def test_sequential_names_and_indexing():
    seq = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(seq) == 3 and isinstance(seq[1], nn.Tanh) and isinstance(seq[-1], nn.Linear)
    assert len(seq[:2]) == 2
    named = nn.Sequential(("encoder", nn.Linear(2, 2)), ("act", nn.Sigmoid()))
    assert [n for n, _ in named.named_parameters()] == ["encoder.weight", "encoder.bias"]
    with pytest.raises(TypeError, match="Sequential: argument 1 expected a Layer"):
        nn.Sequential(nn.ReLU(), "relu")
    with pytest.raises(IndexError, match="Sequential: index expected an int in"):
        seq[3]


def test_nested_names_and_shared_parameter_listed_once():
    shared = nn.Linear(3, 3)
    outer = nn.Sequential(nn.Sequential(shared, nn.ReLU()), shared)
    assert [n for n, _ in outer.named_parameters()] == ["0.0.weight", "0.0.bias"]


def test_call_runs_forward_in_name_scope_of_full_name():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    fc_name = seq[0].full_name()
    assert fc_name.startswith("linear_") and seq.full_name().startswith("sequential_")
    x = tensor(np.ones((1, 2), "float32"), stop_gradient=False)
    y = seq(x)
    assert y.grad_node.scope == (seq.full_name(), seq[1].full_name())
    add_node = y.grad_node.next_edges[0][0][0]
    assert add_node.scope == (seq.full_name(), fc_name)
    assert eager.autograd.scope.current_scope() == ()


def test_full_names_are_unique_per_class():
    a, b = nn.Linear(1, 1), nn.Linear(1, 1)
    assert a.full_name() != b.full_name()
    assert nn.Linear(1, 1, name="proj").full_name().startswith("linear_")  # name is no scope (Paddle 2.6.2)


def test_train_eval_recursive():
    net = MLP()
    net.eval()
    assert not net.training and not net.fc1.training
    net.train()
    assert net.training and net.fc2.training


def test_state_dict_roundtrip_and_mismatches():
    nn.seed(0)
    a = MLP()
    nn.seed(1)
    b = MLP()
    state = {k: v.numpy().copy() for k, v in a.state_dict().items()}
    assert list(state) == ["scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    weight = b.fc1.weight
    version = weight.inplace_version
    missing, unexpected = b.set_state_dict(state)
    assert missing == [] and unexpected == []
    assert b.fc1.weight is weight and weight.inplace_version == version + 1
    for k, v in b.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), state[k])
    with pytest.warns(UserWarning) as caught:
        missing, unexpected = b.set_state_dict({"fc1.bias": state["fc1.bias"], "extra": state["scale"]})
    assert "fc1.weight" in missing and unexpected == ["extra"]
    messages = [str(w.message) for w in caught]
    assert any("key(s) of the layer not in the dict, left as they were" in m and "'fc1.weight'" in m
               for m in messages)
    assert any("match nothing in the layer, ignored: ['extra']" in m for m in messages)
    with pytest.raises(ValueError, match=r"set_state_dict: 'fc1.weight' expected shape \[4, 8\], got \[8, 4\]"):
        b.set_state_dict({"fc1.weight": np.zeros((8, 4), "float32")})
    with pytest.raises(TypeError, match="set_state_dict: 'fc1.weight' expected dtype paddle.float32, got paddle.float64"):
        b.set_state_dict({"fc1.weight": np.zeros((4, 8), "float64")})
    with pytest.raises(TypeError, match="set_state_dict: 'fc1.weight' expected a Tensor or numpy array, got list"):
        b.set_state_dict({"fc1.weight": [[0.0] * 8] * 4})


@pytest.mark.parametrize("bad_key,bad_value", [
    ("fc2.bias", np.zeros(3, "float32")),          # shape
    ("fc2.bias", np.zeros(1, "int64")),            # dtype
    ("fc2.bias", "not an array"),                  # type
])
def test_set_state_dict_is_atomic(bad_key, bad_value):
    nn.seed(0)
    net = MLP()
    before = {k: v.numpy().copy() for k, v in net.state_dict().items()}
    versions = {k: v.inplace_version for k, v in net.state_dict().items()}
    # Good entries come before the bad one: a layer that wrote as it went would change them.
    good = {k: np.full_like(v, 7.0) for k, v in before.items()}
    with pytest.raises((ValueError, TypeError), match=f"set_state_dict: '{bad_key}'"):
        net.set_state_dict({**good, bad_key: bad_value})
    for k, v in net.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k], err_msg=k)
        assert v.inplace_version == versions[k]


def test_set_state_dict_keeps_buffers_so_an_optimizer_sees_the_loaded_values():
    nn.seed(0)
    net = MLP()
    params = net.parameters()
    buffers = [p.impl.array for p in params]
    opt = eager.optimizer.Momentum(0.1, parameters=params)
    loaded = {k: eager.to_tensor(np.full(v.shape, 0.5, "float32")) for k, v in net.state_dict().items()}
    net.set_state_dict(loaded)
    assert all(p.impl.array is b for p, b in zip(net.parameters(), buffers))
    for p in params:
        p.grad = eager.to_tensor(np.ones(p.shape, "float32"))
    opt.step()
    for p in params:
        np.testing.assert_allclose(p.numpy(), np.full(p.shape, 0.5 - 0.1), rtol=1e-6)
    # A loaded Tensor is copied: changing it later does not reach the layer.
    loaded["fc1.bias"].numpy()[...] = 42.0
    assert not np.any(net.fc1.bias.numpy() == 42.0)


def test_set_state_dict_by_tensor_names():
    nn.seed(0)
    a = nn.Linear(2, 2)
    b = nn.Linear(2, 2)
    state = {a.weight.name: np.eye(2, dtype="float32"), a.bias.name: np.ones(2, "float32")}
    b.weight.name, b.bias.name = a.weight.name, a.bias.name
    assert b.set_state_dict(state, use_structured_name=False) == ([], [])
    np.testing.assert_array_equal(b.weight.numpy(), np.eye(2))
    with pytest.raises(TypeError, match="argument 'use_structured_name' expected a bool"):
        b.set_state_dict(state, use_structured_name="no")


def test_buffers_in_state_dict_when_persistable():
    layer = nn.Layer()
    layer.register_buffer("running", eager.zeros([2]))
    layer.register_buffer("scratch", eager.zeros([2]), persistable=False)
    assert list(layer.state_dict()) == ["running"]
    assert len(layer.buffers()) == 2
    assert layer.parameters() == []


def test_setattr_rules_and_missing_super_init():
    net = MLP()
    with pytest.raises(TypeError, match="attribute 'fc1' is a sublayer"):
        net.fc1 = 3
    with pytest.raises(TypeError, match="attribute 'scale' is a parameter"):
        net.scale = eager.ones([1])
    net.fc1 = None
    assert [n for n, _ in net.named_children()] == ["act", "fc2"]

    class Broken(nn.Layer):
        def __init__(self):
            self.fc = nn.Linear(1, 1)

    with pytest.raises(RuntimeError, match="call super\\(\\).__init__\\(\\) first"):
        Broken()


def test_forward_hooks():
    fc = nn.Linear(2, 2)
    calls = []
    handle = fc.register_forward_post_hook(lambda layer, inputs, out: calls.append(out.shape))
    fc(eager.ones([3, 2]))
    handle.remove()
    fc(eager.ones([3, 2]))
    assert calls == [[3, 2]]


# -- activations ---------------------------------------------------------------
def test_activation_layers_match_numpy():
    x = np.linspace(-3, 3, 7).astype("float64")
    t = tensor(x)
    np.testing.assert_allclose(nn.ReLU()(t).numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(nn.Tanh()(t).numpy(), np.tanh(x))
    np.testing.assert_allclose(nn.Sigmoid()(t).numpy(), 1 / (1 + np.exp(-x)))


def np_log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_and_log_softmax_values_and_gradients(axis):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4, 2))
    weights = rng.standard_normal((3, 4, 2))
    np.testing.assert_allclose(F.softmax(tensor(x), axis=axis).numpy(),
                               np.exp(np_log_softmax(x, axis)), rtol=1e-12)
    value, grad = loss_and_grad(lambda t: (F.log_softmax(t, axis=axis) * tensor(weights)).sum(), x)
    expected = numeric_grad(lambda a: (np_log_softmax(a, axis) * weights).sum(), x)
    np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-8)
    _, grad = loss_and_grad(lambda t: (F.softmax(t, axis=axis) * tensor(weights)).sum(), x)
    expected = numeric_grad(lambda a: (np.exp(np_log_softmax(a, axis)) * weights).sum(), x)
    np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-8)


def test_softmax_is_stable_for_large_logits():
    x = tensor(np.array([[1000.0, 1001.0, -1000.0]], "float32"))
    out = F.softmax(x).numpy()
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, [[1 / (1 + np.e), np.e / (1 + np.e), 0.0]], rtol=1e-6)
    np.testing.assert_allclose(F.log_softmax(x).numpy()[0, 2], -2001 - math.log1p(math.exp(-1)), rtol=1e-6)


def test_softmax_errors():
    with pytest.raises(TypeError, match=r"softmax: argument 'x' expected a floating-point Tensor, got INT64|softmax: argument 'x' expected a floating-point Tensor"):
        F.softmax(eager.to_tensor([1, 2]))
    with pytest.raises(ValueError, match=r"softmax: argument 'axis' expected an int in \[-2, 2\).*got 2"):
        F.softmax(eager.ones([2, 2]), axis=2)
    with pytest.raises(TypeError, match="relu: argument 'x' expected a Tensor, got list"):
        F.relu([1.0])


# -- losses --------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_value_and_gradient(reduction):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    reduce = {"mean": np.mean, "sum": np.sum, "none": lambda a: a}[reduction]
    out = F.mse_loss(tensor(x), tensor(y), reduction=reduction).numpy()
    np.testing.assert_allclose(out, reduce((x - y) ** 2), rtol=1e-12)
    _, grad = loss_and_grad(lambda t: F.mse_loss(t, tensor(y), reduction).sum(), x)
    scale = 1.0 / x.size if reduction == "mean" else 1.0
    np.testing.assert_allclose(grad, 2 * (x - y) * scale, rtol=1e-12)


def test_mse_loss_errors():
    # [N, 1] against [N] broadcasts to [N, N] in Paddle; we do the same, with a warning.
    with pytest.warns(UserWarning, match=r"mse_loss: input of shape \[4, 1\] and label of shape \[4\] are broadcast"):
        loss = F.mse_loss(eager.ones([4, 1]), eager.zeros([4]), reduction="none")
    assert loss.shape == [4, 4]
    with pytest.raises(ValueError, match=r"mse_loss: arguments 'input' \[3\], 'label' \[4\] do not broadcast together"):
        F.mse_loss(eager.ones([3]), eager.ones([4]))
    with pytest.raises(ValueError, match="mse_loss: argument 'reduction' expected one of 'mean', 'sum', 'none', got 'avg'"):
        F.mse_loss(eager.ones([2]), eager.ones([2]), reduction="avg")
    with pytest.raises(TypeError, match="mse_loss: argument 'input' expected a Tensor, got ndarray"):
        F.mse_loss(np.ones(2), eager.ones([2]))


def test_l1_loss_value_and_gradient():
    x = np.array([-2.0, 0.5, 3.0])
    y = np.array([1.0, 0.5, 1.0])
    value, grad = loss_and_grad(F.l1_loss, x, tensor(y))
    np.testing.assert_allclose(value, np.abs(x - y).mean())
    np.testing.assert_allclose(grad, np.array([-1.0, 0.0, 1.0]) / 3)  # 0 where input == label


def np_cross_entropy(logits, labels, weight=None, ignore_index=-100):
    logp = np_log_softmax(logits)
    valid = labels != ignore_index
    safe = np.where(valid, labels, 0)
    w = np.ones(logits.shape[-1]) if weight is None else weight
    per = -logp[np.arange(len(labels)), safe] * w[safe] * valid
    return per.sum() / (w[safe] * valid).sum()


def test_cross_entropy_value_and_gradient_against_closed_form():
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((6, 5))
    labels = np.array([0, 4, 2, 2, 1, 3])
    value, grad = loss_and_grad(F.cross_entropy, logits, tensor(labels))
    np.testing.assert_allclose(value, np_cross_entropy(logits, labels), rtol=1e-12)
    # d mean CE / d logits = (softmax - onehot) / N
    onehot = np.eye(5)[labels]
    np.testing.assert_allclose(grad, (np.exp(np_log_softmax(logits)) - onehot) / 6, rtol=1e-10, atol=1e-12)


def test_cross_entropy_label_with_trailing_one_weights_and_ignore_index():
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((5, 4))
    labels = np.array([[1], [3], [-100], [0], [3]])
    weight = np.array([0.5, 1.0, 2.0, 3.0])
    value, grad = loss_and_grad(F.cross_entropy, logits, tensor(labels), weight=tensor(weight))
    flat = labels[:, 0]
    np.testing.assert_allclose(value, np_cross_entropy(logits, flat, weight), rtol=1e-12)
    expected = numeric_grad(lambda a: np_cross_entropy(a, flat, weight), logits)
    np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-8)
    assert np.all(grad[2] == 0)
    none = F.cross_entropy(tensor(logits), tensor(labels), reduction="none")
    assert none.shape == [5, 1] and none.numpy()[2, 0] == 0


def test_cross_entropy_soft_label_and_probabilities():
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((3, 4))
    soft = rng.random((3, 4))
    soft /= soft.sum(1, keepdims=True)
    value = F.cross_entropy(tensor(logits), tensor(soft), soft_label=True).numpy()
    np.testing.assert_allclose(value, -(soft * np_log_softmax(logits)).sum(1).mean(), rtol=1e-12)
    probs = np.exp(np_log_softmax(logits))
    labels = np.array([0, 3, 1])
    value = F.cross_entropy(tensor(probs), tensor(labels), use_softmax=False).numpy()
    np.testing.assert_allclose(value, np_cross_entropy(logits, labels), rtol=1e-10)


def test_cross_entropy_errors(device):
    logits = eager.ones([3, 4])
    with value_checks(device), pytest.raises(
            ValueError, match=r"cross_entropy: argument 'label' expected class indices in \[0, 4\).*got 4"):
        F.cross_entropy(logits, eager.to_tensor([0, 4, 1]))
    with pytest.raises(ValueError, match=r"cross_entropy: argument 'label' expected shape \[3\] or \[3, 1\].*got \[2\]"):
        F.cross_entropy(logits, eager.to_tensor([0, 1]))
    with pytest.raises(TypeError, match="cross_entropy: argument 'label' expected an integer Tensor"):
        F.cross_entropy(logits, eager.to_tensor([0.0, 1.0, 2.0]))


def np_bce_logits(x, z, pos_weight=1.0):
    return np.mean((1 - z) * x + (1 + (pos_weight - 1) * z) * np.logaddexp(0, -x))


def test_bce_with_logits_value_gradient_and_stability():
    x = np.array([-50.0, -1.5, 0.0, 0.0, 2.0, 60.0])
    z = np.array([0.0, 1.0, 1.0, 0.0, 0.3, 1.0])
    value, grad = loss_and_grad(F.binary_cross_entropy_with_logits, x, tensor(z))
    np.testing.assert_allclose(value, np_bce_logits(x, z), rtol=1e-12)
    # The gradient is (sigmoid(x) - z) / N exactly, at x = 0 too.
    np.testing.assert_allclose(grad, (1 / (1 + np.exp(-x)) - z) / len(x), rtol=1e-12, atol=1e-15)
    pw = np.full(6, 3.0)
    value, grad = loss_and_grad(F.binary_cross_entropy_with_logits, x, tensor(z),
                                pos_weight=tensor(pw))
    np.testing.assert_allclose(value, np_bce_logits(x, z, 3.0), rtol=1e-12)
    x_inner = x[1:5]
    expected = numeric_grad(lambda a: np_bce_logits(a, z[1:5], 3.0), x_inner + 1e-3)
    _, g2 = loss_and_grad(F.binary_cross_entropy_with_logits, x_inner + 1e-3, tensor(z[1:5]),
                          pos_weight=tensor(pw[1:5]))
    np.testing.assert_allclose(g2, expected, rtol=1e-6)


def test_bce_with_logits_weight_and_errors():
    x = np.array([0.3, -0.7])
    z = np.array([1.0, 0.0])
    w = np.array([2.0, 0.5])
    value = F.binary_cross_entropy_with_logits(tensor(x), tensor(z), weight=tensor(w), reduction="sum")
    np.testing.assert_allclose(value.numpy(), (w * ((1 - z) * x + np.logaddexp(0, -x))).sum(), rtol=1e-12)
    with pytest.raises(ValueError, match="binary_cross_entropy_with_logits: argument 'label' expected the shape"):
        F.binary_cross_entropy_with_logits(tensor(x), tensor(z[:1]))


def test_initializers_and_errors():
    out = nn.initializer.Uniform(-0.1, 0.1)((1000,), "float64", np.random.default_rng(0))
    assert out.dtype == np.float64 and out.min() >= -0.1 and out.max() < 0.1
    kaiming = nn.initializer.KaimingUniform()((500, 10), "float32", np.random.default_rng(0))
    assert np.abs(kaiming).max() <= math.sqrt(6 / 500)
    assert nn.initializer.compute_fans([8, 3, 5, 5]) == (75, 200)
    with pytest.raises(ValueError, match="Uniform: expected low <= high"):
        nn.initializer.Uniform(1.0, 0.0)
    with pytest.raises(TypeError, match="seed: argument 'seed' expected a non-negative int"):
        nn.seed("1")
    with pytest.raises(TypeError, match="XavierUniform: argument 'shape' expected a list of non-negative ints"):
        nn.initializer.XavierUniform()([2, -1])


def test_linear_on_batched_3d_input():
    fc = nn.Linear(3, 2)
    x = np.random.default_rng(0).standard_normal((2, 4, 3)).astype("float32")
    xt = tensor(x, stop_gradient=False)
    y = fc(xt)
    np.testing.assert_allclose(y.numpy(), x @ fc.weight.numpy() + fc.bias.numpy(), rtol=1e-5, atol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(fc.bias.grad.numpy(), np.full(2, 8.0), rtol=1e-6)
    np.testing.assert_allclose(fc.weight.grad.numpy(), x.reshape(-1, 3).sum(0)[:, None].repeat(2, 1),
                               rtol=1e-5)


def test_loss_layers_and_layer_list_and_pre_hook():
    x = tensor(np.array([[1.0, 2.0], [0.5, -1.0]]))
    labels = eager.to_tensor(np.array([1, 0]))
    np.testing.assert_allclose(nn.CrossEntropyLoss()(x, labels).numpy(),
                               F.cross_entropy(x, labels).numpy())
    np.testing.assert_allclose(nn.MSELoss(reduction="sum")(x, x * 0.0).numpy(), (x.numpy() ** 2).sum())
    blocks = nn.LayerList([nn.Linear(2, 2) for _ in range(3)])
    assert len(blocks) == 3 and len(blocks.parameters()) == 6
    assert [n for n, _ in blocks.named_parameters()][:2] == ["0.weight", "0.bias"]
    doubled = nn.ReLU()
    doubled.register_forward_pre_hook(lambda layer, inputs: (inputs[0] * 2.0,))
    np.testing.assert_allclose(doubled(x).numpy(), np.maximum(2 * x.numpy(), 0))
    with pytest.raises(TypeError, match="LayerList.append: argument 'sublayer' expected a Layer"):
        blocks.append(3)


def test_second_derivative_through_composed_loss():
    # The losses are made of differentiable ops, so create_graph gives exact
    # higher-order gradients: d2/dx2 sum(softmax(x) * w) against finite differences.
    rng = np.random.default_rng(5)
    x = rng.standard_normal(4)
    w = rng.standard_normal(4)
    xt = tensor(x, stop_gradient=False)
    (g,) = eager.grad((F.softmax(xt) * tensor(w)).sum(), xt, create_graph=True)
    v = rng.standard_normal(4)
    (hv,) = eager.grad((g * tensor(v)).sum(), xt)

    def grad_fn(a):
        s = np.exp(a - a.max())
        s /= s.sum()
        return s * (w - (s * w).sum())

    eps = 1e-6
    expected = (grad_fn(x + eps * v) - grad_fn(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(hv.numpy(), expected, rtol=1e-6, atol=1e-9)
