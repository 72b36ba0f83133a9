"""to_static on a forward only, with backward and the optimizer step outside the call.

Each training test runs the same steps eagerly and with the model's forward
under to_static, from the same start, and asserts bitwise-equal losses,
parameters, gradients, optimizer state and version counters, and that the
forward was replayed (the replay's grad node ran the recorded backward).
"""
import warnings

import numpy as np
import pytest

import eager
from eager import nn
from eager.errors import AutogradError
from eager.jit.backward import ReplayGradNode
from eager.nn import functional as F

RNG = np.random.default_rng(1)
XS = [RNG.standard_normal((8, 12)).astype("float32") for _ in range(8)]
YS = [RNG.standard_normal((8, 3)).astype("float32") for _ in range(8)]
IMAGES = [RNG.standard_normal((4, 1, 12, 12)).astype("float32") for _ in range(6)]
LABELS = [RNG.integers(0, 10, (4,)).astype("int64") for _ in range(6)]


def _model(kind):
    eager.seed(7)
    if kind == "dropout":
        return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 3))
    if kind == "bn":
        return nn.Sequential(nn.Linear(12, 16), nn.BatchNorm1D(16), nn.ReLU(), nn.Linear(16, 3))
    if kind == "lenet":
        return nn.Sequential(nn.Conv2D(1, 4, 3), nn.ReLU(), nn.MaxPool2D(2), nn.Flatten(),
                             nn.Linear(4 * 5 * 5, 10))
    return nn.Sequential(nn.Linear(12, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))


def _train(static, kind="plain", optimizer="sgd", steps=6, eval_every=0):
    """Losses and final state of `steps` steps with backward and step outside the forward."""
    model = _model(kind)
    make = eager.optimizer.Adam if optimizer == "adam" else eager.optimizer.SGD
    opt = make(0.05, parameters=model.parameters())
    forward = eager.jit.to_static(model) if static else model
    eager.seed(11)
    losses, evals = [], []
    data = zip(IMAGES, LABELS) if kind == "lenet" else zip(XS, YS)
    for i, (x, y) in enumerate(list(data)[:steps]):
        out = forward(eager.to_tensor(x))
        loss = F.cross_entropy(out, eager.to_tensor(y)) if kind == "lenet" else F.mse_loss(out, eager.to_tensor(y))
        loss.backward()
        if i == steps - 1:
            grads = [p.grad.numpy().copy() for p in model.parameters()]
        opt.step()
        opt.clear_grad()
        losses.append(loss.numpy().copy())
        if eval_every and i % eval_every == 0:
            model.eval()
            with eager.no_grad():
                evals.append(forward(eager.to_tensor(x)).numpy().copy())
            model.train()
    state = {name: p.numpy().copy() for name, p in model.state_dict().items()}
    versions = [p.inplace_version for p in model.parameters()]
    opt_state = [np.asarray(v).copy() for v in opt.state_dict().values() if not isinstance(v, dict)]
    return losses + evals, state, grads, versions, opt_state, model.forward if static else None


def _assert_same(a, b):
    assert len(a[0]) == len(b[0])
    for x, y in zip(a[0], b[0]):
        assert np.array_equal(x, y)
    for k in a[1]:
        assert np.array_equal(a[1][k], b[1][k]), k
    for x, y in zip(a[2], b[2]):
        assert np.array_equal(x, y)
    assert a[3] == b[3]
    assert len(a[4]) == len(b[4])
    for x, y in zip(a[4], b[4]):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("kind, optimizer", [("plain", "sgd"), ("plain", "adam"), ("dropout", "sgd"),
                                             ("bn", "adam"), ("lenet", "sgd")])
def test_forward_only_training_is_bitwise_eager(kind, optimizer):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no signature may fall back to eager
        eager_run = _train(False, kind, optimizer)
        static_run = _train(True, kind, optimizer)
    _assert_same(eager_run, static_run)
    assert static_run[5].replays == 4 and not static_run[5].reasons


def test_batchnorm_train_and_eval_under_no_grad_are_bitwise_eager():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eager_run = _train(False, "bn", steps=6, eval_every=2)
        static_run = _train(True, "bn", steps=6, eval_every=2)
    _assert_same(eager_run, static_run)
    assert static_run[5].replays >= 5


@pytest.mark.usefixtures("device")
def test_forward_only_training_on_the_device_axis(device):
    eager_run = _train(False, "dropout", "adam", steps=4)
    static_run = _train(True, "dropout", "adam", steps=4)
    _assert_same(eager_run, static_run)
    assert static_run[5].replays == 2


def _replayed(fn, *args):
    """Calls fn until a call is replayed; returns that call's result."""
    for _ in range(4):
        before = fn.replays
        out = fn(*args)
        if fn.replays > before:
            return out
    raise AssertionError(f"never replayed: {fn.reasons}")


def test_a_replayed_output_has_one_grad_node_and_no_grad_calls_have_none():
    model = _model("plain")
    forward = eager.jit.to_static(model)
    out = _replayed(forward.forward, eager.to_tensor(XS[0]))
    assert type(out.grad_node) is ReplayGradNode and not out.stop_gradient
    with eager.no_grad():
        plain = _replayed(forward.forward, eager.to_tensor(XS[0]))
    assert plain.grad_node is None and plain.stop_gradient
    np.testing.assert_array_equal(plain.numpy(), out.numpy())


def test_retain_graph_and_a_second_backward_as_eager():
    model = _model("plain")
    forward = eager.jit.to_static(model.forward)
    x = eager.to_tensor(XS[1])
    out = _replayed(forward, x)
    out.sum().backward(retain_graph=True)
    once = [p.grad.numpy().copy() for p in model.parameters()]
    (out * 2.0).sum().backward()
    for p, g in zip(model.parameters(), once):
        np.testing.assert_array_equal(p.grad.numpy(), g + g * np.float32(2.0))  # linear in the seed
    with pytest.raises(AutogradError, match="second time.*retain_graph=True"):
        out.sum().backward()
    for p, g in zip(model.parameters(), once):  # the failed backward changed nothing
        np.testing.assert_array_equal(p.grad.numpy(), g * np.float32(3.0))


def test_leaf_hooks_and_post_accumulate_hooks_run_with_the_replayed_backward():
    model = _model("plain")
    forward = eager.jit.to_static(model.forward)
    x = eager.to_tensor(XS[2])
    seen, posted = [], []
    weight = model[0].weight
    weight.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 2.0)
    weight.register_post_accumulate_grad_hook(lambda t: posted.append(t.grad.numpy().copy()))
    out = _replayed(forward, x)
    for p in model.parameters():
        p.clear_grad(set_to_zero=False)
    seen.clear(), posted.clear()
    out.mean().backward()
    reference = _model("plain")
    ref_out = reference(x).mean()
    ref_out.backward()
    np.testing.assert_array_equal(seen[0], reference[0].weight.grad.numpy())
    np.testing.assert_array_equal(weight.grad.numpy(), reference[0].weight.grad.numpy() * np.float32(2.0))
    np.testing.assert_array_equal(posted[0], weight.grad.numpy())
    np.testing.assert_array_equal(model[4].bias.grad.numpy(), reference[4].bias.grad.numpy())


def _two_outputs():
    eager.seed(5)
    body, head_a, head_b = nn.Linear(12, 8), nn.Linear(8, 3), nn.Linear(8, 2)

    def forward(x):
        h = F.relu(body(x))
        return {"a": head_a(h), "b": head_b(h), "n": 2}

    return forward, [body, head_a, head_b]


@pytest.mark.parametrize("use", ["a", "b", "ab", "grad"])
def test_multiple_outputs_some_unused_deliver_eager_gradients(use):
    results = []
    for static in (False, True):
        forward, layers = _two_outputs()
        fn = eager.jit.to_static(forward) if static else forward
        x = eager.to_tensor(XS[3])
        out = _replayed(fn, x) if static else fn(x)
        assert out["n"] == 2
        if use == "grad":
            grads = eager.grad([out["a"].sum()], [layers[0].weight, layers[1].bias])
            results.append([g.numpy() for g in grads] + [p.grad for layer in layers for p in layer.parameters()])
            continue
        loss = sum(out[k].square().sum() for k in use)
        loss.backward()
        results.append([None if p.grad is None else p.grad.numpy() for layer in layers for p in layer.parameters()])
    for a, b in zip(*results):
        assert (a is None and b is None) or np.array_equal(a, b)
    if use == "a":
        assert results[1][4] is None  # head_b's weight: no gradient reached it, as in eager


def test_an_input_requiring_grad_from_an_outer_graph_gets_its_gradient():
    model = _model("plain")
    forward = eager.jit.to_static(model.forward)
    results = []
    for fn in (model, forward):
        for _ in range(3 if fn is forward else 1):  # to_static: captures, then replays
            a = eager.to_tensor(XS[4], stop_gradient=False)
            out = fn((a * 3.0).tanh())  # a new outer graph on every call
        out.sum().backward()
        results.append((a.grad.numpy().copy(), model[0].weight.grad.numpy().copy()))
        for p in model.parameters():
            p.clear_grad(set_to_zero=False)
    assert forward.replays >= 1
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    leaf = eager.to_tensor(XS[5], stop_gradient=False)
    (expected,) = eager.grad([model(leaf).sum()], [leaf])
    (got,) = eager.grad([_replayed(forward, leaf).sum()], [leaf])
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_an_output_modified_in_place_refuses_backward_as_eager():
    forward = eager.jit.to_static(lambda x: F.relu(model(x)))
    model = _model("plain")
    out = _replayed(forward, eager.to_tensor(XS[0]))
    out.scale_(2.0)
    with pytest.raises(AutogradError, match="modified by an inplace operation"):
        out.sum().backward()
    assert all(p.grad is None for p in model.parameters())


def test_create_graph_through_a_replay_is_refused_then_the_signature_runs_eagerly():
    model = _model("plain")
    forward = eager.jit.to_static(model.forward)
    x = eager.to_tensor(XS[0])
    out = _replayed(forward, x)
    with pytest.warns(RuntimeWarning, match="create_graph=True"):
        with pytest.raises(AutogradError, match="create_graph=True"):
            eager.grad([out.sum()], [model[0].weight], create_graph=True)
    assert model[0].weight.grad is None
    replays = forward.replays
    out = forward(x)
    (g,) = eager.grad([out.sum()], [model[0].weight], create_graph=True)
    assert forward.replays == replays and g.grad_node is not None


def test_a_hook_inside_the_forward_or_too_many_outputs_run_eagerly():
    model = _model("plain")

    def hooked(x):
        h = model(x)
        h.register_hook(lambda g: g * 2.0)
        return h

    fn = eager.jit.to_static(hooked)
    x = eager.to_tensor(XS[0])
    with pytest.warns(RuntimeWarning, match="gradient hook"):
        for _ in range(3):
            fn(x).sum().backward()
    assert fn.replays == 0
    many = eager.jit.to_static(lambda x: tuple(model(x) * float(i) for i in range(4)))
    with pytest.warns(RuntimeWarning, match="returns 4 tensors with a graph"):
        outs = many(x)
    assert len(outs) == 4 and outs[3].grad_node is not None


def test_tied_weights_frozen_parameters_and_output_hooks_as_eager():
    x = eager.to_tensor(XS[6][:, :6])
    results = []
    for static in (False, True):
        eager.seed(1)
        a, b = nn.Linear(6, 6), nn.Linear(6, 2)
        b.bias.stop_gradient = True

        def forward(x):
            return b(F.relu(a(F.relu(a(x)))))  # a used twice: its gradients are summed

        fn = eager.jit.to_static(forward) if static else forward
        for _ in range(4):
            out = fn(x)
            out.register_hook(lambda g: g * 3.0)
            out.retain_grads()
            out.sum().backward()
        results.append([a.weight.grad.numpy(), a.bias.grad.numpy(), b.weight.grad.numpy(), b.bias.grad,
                        out.grad.numpy()])
        if static:
            assert fn.replays == 2 and type(out.grad_node) is ReplayGradNode
            assert out.grad_node.saved is None  # freed by the backward without retain_graph
    for p, q in zip(*results):
        assert (p is None and q is None) or np.array_equal(p, q)
