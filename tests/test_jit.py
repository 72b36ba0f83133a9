"""eager.jit.to_static: capture a call's kernels, replay them bitwise as eager.

Every training test runs the same steps twice from the same start, once
eagerly and once under to_static, and asserts bitwise-equal losses,
parameters, gradients, optimizer state and version counters, and that the
trace was actually replayed. The fallback tests assert the warning naming
the reason and that results stay those of eager.
"""
import warnings

import numpy as np
import pytest

import eager
from eager import nn
from eager.jit.recorder import RecordingKernel
from eager.nn import functional as F
from phi.core import KERNELS

RNG = np.random.default_rng(0)
XS = [RNG.standard_normal((8, 12)).astype("float32") for _ in range(8)]
YS = [RNG.standard_normal((8, 3)).astype("float32") for _ in range(8)]


def _model(kind="plain"):
    eager.seed(7)
    if kind == "dropout":
        return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 3))
    if kind == "bn":
        return nn.Sequential(nn.Linear(12, 16), nn.BatchNorm1D(16), nn.ReLU(), nn.Linear(16, 3))
    return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 3))


def _optimizer(name, lr, params, multi_tensor=False):
    extra = {"use_multi_tensor": True} if multi_tensor else {}
    if name == "adam":
        return eager.optimizer.Adam(lr, parameters=params, **extra)
    if name == "adamw":
        return eager.optimizer.AdamW(lr, parameters=params, weight_decay=0.1, **extra)
    if name == "momentum":
        return eager.optimizer.Momentum(lr, momentum=0.9, parameters=params, **extra)
    return eager.optimizer.SGD(lr, parameters=params, **extra)


def _mse_step(model, opt, static):
    """One MSE training step of ``model`` with ``opt``, under to_static when ``static``."""
    def step(x, y):
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    return eager.jit.to_static(step) if static else step


def _train(static, kind="plain", optimizer="sgd", scheduler=False, steps=6, multi_tensor=False, keep=None):
    """Losses, final state and the StaticFunction (or None) of `steps` steps;
    ``keep`` (a list) gets the model and the optimizer."""
    model = _model(kind)
    lr = eager.optimizer.lr.StepDecay(0.05, step_size=3, gamma=0.5) if scheduler else 0.05
    opt = _optimizer(optimizer, lr, model.parameters(), multi_tensor)
    if keep is not None:
        keep += [model, opt]
    fn = _mse_step(model, opt, static)
    eager.seed(11)
    losses = []
    for x, y in zip(XS[:steps], YS[:steps]):
        losses.append(fn(eager.to_tensor(x), eager.to_tensor(y)).numpy().copy())
        if scheduler:
            lr.step()
    state = {name: p.numpy().copy() for name, p in model.state_dict().items()}
    grads = [None if p.grad is None else p.grad.numpy().copy() for p in model.parameters()]
    versions = [p.inplace_version for p in model.parameters()]
    opt_state = {k: np.asarray(v).copy() for k, v in opt.state_dict().items() if not isinstance(v, dict)}
    return losses, state, grads, versions, opt_state, (fn if static else None)


def _assert_same(a, b):
    for x, y in zip(a[0], b[0]):
        assert np.array_equal(x, y)
    assert a[1].keys() == b[1].keys()
    for k in a[1]:
        assert np.array_equal(a[1][k], b[1][k]), k
    for x, y in zip(a[2], b[2]):
        assert (x is None and y is None) or np.array_equal(x, y)
    assert a[3] == b[3]
    assert len(a[4]) == len(b[4])  # names differ (unique_name counts on); values in order
    for x, y in zip(a[4].values(), b[4].values()):
        assert np.array_equal(x, y)


def _replays(fn):
    return fn.replays


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_training_replays_bitwise_as_eager(optimizer):
    eager_run = _train(False, optimizer=optimizer)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        static_run = _train(True, optimizer=optimizer)
    _assert_same(eager_run, static_run)
    assert _replays(static_run[5]) >= 3  # the first steps capture (gradients, state appear), then replay
    assert not static_run[5].reasons


@pytest.mark.parametrize("optimizer", ["sgd", "momentum", "adam", "adamw"])
def test_multi_tensor_optimizer_replays_bitwise_as_eager(optimizer):
    # use_multi_tensor=True: the first step makes the gradients, the second the flat
    # buffers (parameters, gradients, accumulators move into them), the third is
    # captured with the fused update reading those buffers, and later steps replay it
    eager_run = _train(False, optimizer=optimizer, steps=8, multi_tensor=True)
    keep = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        static_run = _train(True, optimizer=optimizer, steps=8, multi_tensor=True, keep=keep)
    _assert_same(eager_run, static_run)
    fn = static_run[5]
    assert fn.captures == 3 and fn.replays == 5 and not fn.reasons
    model, opt = keep
    (group,) = opt._flat_groups.values()  # the replayed update ran on the group's buffers
    flat = group.param_buffer.flat.array
    assert all(p.impl.array.base is flat for p in model.parameters())
    assert all(p.grad.impl.array.base is group.grad_buffer.flat.array for p in model.parameters())


def test_multi_tensor_group_dropped_between_replays_is_captured_again():
    # set_state_dict drops the flat groups: the guard sees it, the next calls capture
    # again (the one-by-one update, then a new group) and replay; values stay eager's
    runs = []
    for static in (False, True):
        model = _model()
        opt = _optimizer("momentum", 0.05, model.parameters(), multi_tensor=True)
        fn = _mse_step(model, opt, static)
        losses = []
        for i in range(8):
            if i == 4:
                opt.set_state_dict(opt.state_dict())
            losses.append(fn(eager.to_tensor(XS[i]), eager.to_tensor(YS[i])).numpy().copy())
        runs.append((losses, [p.numpy().copy() for p in model.parameters()], fn))
    for x, y in zip(runs[0][0] + runs[0][1], runs[1][0] + runs[1][1]):
        assert np.array_equal(x, y)
    assert runs[1][2].replays >= 2 and not runs[1][2].reasons


def test_dropout_draws_a_new_mask_each_replay():
    eager_run = _train(False, kind="dropout")
    static_run = _train(True, kind="dropout")
    _assert_same(eager_run, static_run)
    assert _replays(static_run[5]) >= 3
    # the replayed steps are not one mask repeated: the same batch gives another loss
    model = _model("dropout")
    fn = eager.jit.to_static(lambda x: model(x))
    x = eager.to_tensor(XS[0])
    with eager.no_grad():
        outs = [fn(x).numpy().copy() for _ in range(4)]
    assert _replays(fn) >= 2
    assert not np.array_equal(outs[2], outs[3])


def test_lr_scheduler_values_are_read_at_replay():
    # the rate changes after steps 3 and 6: each change is captured again (the new
    # rate's tensor is made in that step), then replayed with the new rate
    eager_run = _train(False, scheduler=True, steps=8, optimizer="adam")
    static_run = _train(True, scheduler=True, steps=8, optimizer="adam")
    _assert_same(eager_run, static_run)
    assert _replays(static_run[5]) == 2 and static_run[5].captures == 6


def test_batchnorm_running_statistics_follow_eager():
    eager_run = _train(False, kind="bn")
    static_run = _train(True, kind="bn")
    _assert_same(eager_run, static_run)
    assert _replays(static_run[5]) >= 3
    assert any("_mean" in k for k in static_run[1])


def test_no_kernel_stays_wrapped_after_a_capture():
    _train(True, steps=3)
    for table in KERNELS.dispatch_tables():
        assert not any(type(fn) is RecordingKernel for fn in table.values())


def test_forward_function_returns_structures_and_replays():
    model = _model()

    @eager.jit.to_static
    def predict(x, scale=2.0):
        out = model(x)
        return {"out": out * scale, "pair": (out, "tag")}

    x = eager.to_tensor(XS[0])
    with eager.no_grad():
        results = [predict(x) for _ in range(3)]
        expected = model(x).numpy()
    assert _replays(predict) == 2
    for r in results:
        assert r["pair"][1] == "tag"
        np.testing.assert_array_equal(r["pair"][0].numpy(), expected)
        np.testing.assert_array_equal(r["out"].numpy(), expected * np.float32(2.0))
    # another shape or attribute value is another signature: captured, not mixed up
    with eager.no_grad():
        other = predict(eager.to_tensor(XS[1][:5]), scale=3.0)
    np.testing.assert_array_equal(other.get("out").numpy(), model(eager.to_tensor(XS[1][:5])).numpy() * np.float32(3.0))


def test_graph_leaving_the_call_replays_with_a_grad_node_and_backward_works_outside():
    model = _model()
    forward = eager.jit.to_static(lambda x: model(x).sum())
    x = eager.to_tensor(XS[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(5):
            loss = forward(x)
            loss.backward()
    assert _replays(forward) == 3  # the first capture creates the gradients: captured again
    reference = _model()
    expected = reference(x).sum()
    expected.backward()
    assert float(loss) == float(expected)
    for p, q in zip(model.parameters(), reference.parameters()):
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy() * np.float32(5.0))


def test_a_decorated_layer_forward_trained_outside_the_call_trains_as_eager():
    # Paddle's most common use: @to_static on forward, backward and step outside.
    # A single fused linear saves only its input and its parameters, so nothing the
    # call made outlives it but the returned output, whose graph backward needs.
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(12, 3)

        @eager.jit.to_static
        def forward(self, x):
            return self.fc(x)

    losses = {}
    for static in (True, False):
        eager.seed(3)
        net = Net()
        call = net.forward if static else net.forward.rollback()
        opt = eager.optimizer.SGD(0.1, parameters=net.parameters())
        x = eager.to_tensor(XS[0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            losses[static] = []
            for _ in range(5):
                loss = call(x).mean()
                loss.backward()
                opt.step()
                opt.clear_grad()
                losses[static].append(float(loss))
    assert losses[True] == losses[False]
    assert len(set(losses[True])) == 5  # it trains: every step changes the loss


@pytest.mark.parametrize("body, reason", [
    (lambda model, x: model(x).sum() * float(model(x).mean()), "reads tensor values on the host"),
    (lambda model, x: model(x).sum() + eager.to_tensor(1.0), "cannot locate"),
    (lambda model, x: eager.masked_select(model(x), model(x) > 0).sum(), "shape depends on the values"),
])
def test_unreplayable_calls_run_eagerly_with_one_warning(body, reason):
    model = _model()
    fn = eager.jit.to_static(lambda x: body(model, x))
    x = eager.to_tensor(XS[0])
    with eager.no_grad():
        with pytest.warns(RuntimeWarning, match=reason):
            first = fn(x).numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            again = [fn(x).numpy() for _ in range(2)]
        expected = body(model, x).numpy()
    for value in [first] + again:
        np.testing.assert_array_equal(value, expected)
    assert _replays(fn) == 0


def test_python_hooks_and_pylayer_are_not_replayed():
    model = _model()
    calls = []
    model[0].weight.register_hook(lambda g: calls.append(1))
    opt = eager.optimizer.SGD(0.1, parameters=model.parameters())

    @eager.jit.to_static
    def step(x):
        loss = model(x).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    with pytest.warns(RuntimeWarning, match="hook"):
        for _ in range(4):
            step(eager.to_tensor(XS[0]))
    assert len(calls) == 4 and _replays(step) == 0

    class Twice(eager.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 2.0

    twice = eager.jit.to_static(lambda x: Twice.apply(x))
    with eager.no_grad(), pytest.warns(RuntimeWarning, match="PyLayer"):
        for _ in range(3):
            twice(eager.to_tensor(XS[0]))
    assert _replays(twice) == 0


def test_rebinding_a_global_layer_recaptures():
    global _GLOBAL_MODEL
    _GLOBAL_MODEL = _model()

    @eager.jit.to_static
    def predict(x):
        return _GLOBAL_MODEL(x)

    x = eager.to_tensor(XS[0])
    with eager.no_grad():
        for _ in range(3):
            predict(x)
        _GLOBAL_MODEL = nn.Sequential(nn.Linear(12, 3))
        out = predict(x)
        np.testing.assert_array_equal(out.numpy(), _GLOBAL_MODEL(x).numpy())
        _GLOBAL_MODEL[0].weight.set_value(np.ones((12, 3), "float32"))  # written in place: seen by replay
        predict(x)
        out = predict(x)
        np.testing.assert_array_equal(out.numpy(), _GLOBAL_MODEL(x).numpy())
        assert _replays(predict) == 4  # 2 with the first model, 2 with the new one after its capture
        _GLOBAL_MODEL.eval()  # a flag changed: captured again
        np.testing.assert_array_equal(predict(x).numpy(), _GLOBAL_MODEL(x).numpy())


def test_clear_grad_to_none_between_replays_recaptures():
    model = _model()
    opt = eager.optimizer.SGD(0.1, parameters=model.parameters())
    ref_model = _model()
    ref_opt = eager.optimizer.SGD(0.1, parameters=ref_model.parameters())

    def body(m, o, x):
        loss = m(x).sum()
        loss.backward()
        o.step()
        return loss

    step = eager.jit.to_static(lambda x: body(model, opt, x))
    for i in range(6):
        x = eager.to_tensor(XS[i])
        a = step(x)
        b = body(ref_model, ref_opt, x)
        assert float(a) == float(b)
        if i == 3:  # gradients dropped outside: the trace's buffers are no longer .grad
            opt.clear_grad(set_to_zero=False)
            ref_opt.clear_grad(set_to_zero=False)
    for p, q in zip(model.parameters(), ref_model.parameters()):
        np.testing.assert_array_equal(p.numpy(), q.numpy())
        np.testing.assert_array_equal(p.grad.numpy(), q.grad.numpy())


def test_inputs_requiring_grad_with_a_backward_inside_and_in_place_input_writes_run_eagerly():
    def inner(x):
        loss = (x * 2.0).sum()
        loss.backward()
        return loss

    fn = eager.jit.to_static(inner)
    w = eager.to_tensor(XS[0], stop_gradient=False)
    with pytest.warns(RuntimeWarning, match="requires a gradient"):
        fn(w)
    np.testing.assert_array_equal(w.grad.numpy(), np.full_like(XS[0], 2.0))
    bump = eager.jit.to_static(lambda x: x.scale_(2.0))
    x = eager.to_tensor(XS[0])
    with pytest.warns(RuntimeWarning, match="input tensor in place"):
        for _ in range(3):
            bump(x)
    np.testing.assert_array_equal(x.numpy(), XS[0] * 8)
    assert x.inplace_version == 3


def test_layer_and_method_decoration_and_switches():
    model = _model()
    converted = eager.jit.to_static(model)
    assert converted is model and isinstance(model.forward, eager.jit.StaticFunction)
    x = eager.to_tensor(XS[0])
    with eager.no_grad():
        for _ in range(3):
            model(x)
    assert _replays(model.forward) == 2

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(12, 3)

        @eager.jit.to_static
        def forward(self, x):
            return self.fc(x)

    a, b = Net(), Net()
    with eager.no_grad():
        for _ in range(3):
            np.testing.assert_array_equal(a(x).numpy(), a.fc(x).numpy())
            np.testing.assert_array_equal(b(x).numpy(), b.fc(x).numpy())

    helper = eager.jit.not_to_static(lambda t: t * 3.0)
    assert eager.jit.to_static(helper) is helper
    uses_helper = eager.jit.to_static(lambda t: helper(t) + 1.0)
    with eager.no_grad(), pytest.warns(RuntimeWarning, match="not_to_static"):
        for _ in range(3):
            uses_helper(x)
    assert _replays(uses_helper) == 0

    counted = eager.jit.to_static(lambda t: t * 5.0)
    eager.jit.enable_to_static(False)
    try:
        for _ in range(3):
            counted(x)
        assert not counted._cache
    finally:
        eager.jit.enable_to_static(True)
    with pytest.raises(TypeError, match="enable_to_static_bool"):
        eager.jit.enable_to_static("yes")
    with pytest.raises(TypeError, match="callable or a Layer"):
        eager.jit.to_static(3)
    with pytest.raises(TypeError, match="'input_spec' expected a list or tuple"):
        eager.jit.to_static(lambda t: t, input_spec="x")


SCALE = 2.0


def test_python_numbers_the_function_reads_are_guarded():
    global SCALE
    fn = eager.jit.to_static(lambda x: x * SCALE)
    x = eager.to_tensor(XS[0])
    for _ in range(3):
        np.testing.assert_array_equal(fn(x).numpy(), XS[0] * np.float32(2.0))
    SCALE = 3.0
    try:
        np.testing.assert_array_equal(fn(x).numpy(), XS[0] * np.float32(3.0))
    finally:
        SCALE = 2.0
    assert fn.replays == 2 and fn.captures == 2


def test_a_to_static_call_inside_a_capture_is_recorded_by_the_outer_one():
    inner = eager.jit.to_static(lambda x: x * 2.0)
    x = eager.to_tensor(XS[0])
    for _ in range(3):
        inner(x)  # inner has a trace of its own now
    outer = eager.jit.to_static(lambda x: inner(x) + 1.0)
    for i in range(4):
        np.testing.assert_array_equal(outer(eager.to_tensor(XS[i])).numpy(), XS[i] * np.float32(2.0) + 1)
    assert outer.replays == 3


def test_changing_an_input_autograd_state_runs_eagerly():
    def body(x):
        x.stop_gradient = False
        (x * 3.0).sum().backward()
        return x.grad

    fn = eager.jit.to_static(body)
    with pytest.warns(RuntimeWarning, match="input tensor's buffer or autograd state"):
        grads = [fn(eager.to_tensor(XS[i])) for i in range(3)]
    for g in grads:
        np.testing.assert_array_equal(g.numpy(), np.full_like(XS[0], 3.0))


def test_a_hook_registered_between_replays_is_honoured():
    model = _model()
    opt = eager.optimizer.SGD(0.1, parameters=model.parameters())
    seen = []

    @eager.jit.to_static
    def step(x):
        loss = model(x).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    for i in range(3):
        step(eager.to_tensor(XS[i]))
    assert step.replays == 1
    model[0].weight.register_hook(lambda g: seen.append(g.shape))
    with pytest.warns(RuntimeWarning, match="hook"):
        step(eager.to_tensor(XS[3]))
    step(eager.to_tensor(XS[4]))
    assert len(seen) == 2 and step.replays == 1


@pytest.mark.usefixtures("device")
def test_training_on_the_device_axis_replays_bitwise(device):
    eager_run = _train(False, optimizer="adam", steps=4)
    static_run = _train(True, optimizer="adam", steps=4)
    _assert_same(eager_run, static_run)
    assert _replays(static_run[5]) == 2 and not static_run[5].reasons


@pytest.mark.usefixtures("device")
def test_multi_tensor_training_on_the_device_axis_replays_bitwise(device):
    eager_run = _train(False, optimizer="adam", steps=5, multi_tensor=True)
    static_run = _train(True, optimizer="adam", steps=5, multi_tensor=True)
    _assert_same(eager_run, static_run)
    assert _replays(static_run[5]) == 2 and not static_run[5].reasons


def test_a_tensor_returned_twice_is_one_tensor_and_signatures_are_bounded(monkeypatch):
    fn = eager.jit.to_static(lambda x: (lambda y: (y, [y]))(x * 2.0))
    for i in range(3):
        a, (b,) = fn(eager.to_tensor(XS[i]))
        assert a is b
        np.testing.assert_array_equal(a.numpy(), XS[i] * np.float32(2.0))
    assert fn.replays == 2
    monkeypatch.setattr(eager.jit.static_function, "MAX_SIGNATURES", 3)
    for n in range(1, 7):
        fn(eager.to_tensor(XS[0][:n]))
    assert len(fn._cache) <= 3


def test_a_scheduler_stepped_inside_the_function_runs_eagerly():
    model = _model()
    sched = eager.optimizer.lr.StepDecay(0.05, step_size=100, gamma=0.5)
    opt = eager.optimizer.SGD(sched, parameters=model.parameters())

    @eager.jit.to_static
    def step(x):
        loss = model(x).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        sched.step()
        return loss

    with pytest.warns(RuntimeWarning, match="steps a learning-rate scheduler"):
        for i in range(4):
            step(eager.to_tensor(XS[i]))
    assert step.replays == 0 and sched.last_epoch == 4


def test_a_layer_forward_hook_runs_every_call():
    model = _model()
    calls = []
    model[0].register_forward_post_hook(lambda layer, inputs, output: calls.append(1))
    fn = eager.jit.to_static(lambda x: model(x))
    with eager.no_grad(), pytest.warns(RuntimeWarning, match="forward hook"):
        for i in range(3):
            fn(eager.to_tensor(XS[i]))
    assert len(calls) == 3 and fn.replays == 0


STEP = 0


def test_state_that_moves_on_every_call_stops_capturing():
    global STEP
    fn = eager.jit.to_static(lambda x: x * float(STEP))
    x = eager.to_tensor(XS[0])
    with pytest.warns(RuntimeWarning, match="changes on every call"):
        for STEP in range(8):
            np.testing.assert_array_equal(fn(x).numpy(), XS[0] * np.float32(STEP))
    assert fn.replays == 0 and fn.captures <= 5
    STEP = 0


def test_a_tensor_kept_as_a_layer_attribute_is_read_at_replay():
    class Scaled(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(12, 3)
            self.scale = eager.to_tensor(np.full((3,), 2.0, "float32"))

        def forward(self, x):
            return self.fc(x) * self.scale

    net = Scaled()
    fn = eager.jit.to_static(lambda x: net(x))
    x = eager.to_tensor(XS[0])
    with eager.no_grad():
        for _ in range(3):
            fn(x)
        net.scale.set_value(np.full((3,), 5.0, "float32"))  # in place: the replay reads it
        np.testing.assert_array_equal(fn(x).numpy(), net.fc(x).numpy() * np.float32(5.0))
        net.scale = eager.to_tensor(np.full((3,), 7.0, "float32"))  # another tensor: captured again
        np.testing.assert_array_equal(fn(x).numpy(), net.fc(x).numpy() * np.float32(7.0))
    assert fn.replays == 3


@pytest.mark.parametrize("optimizer", ["momentum", "adamw", "rmsprop"])
def test_classifier_steps_with_decay_clipping_and_dropout_replay_bitwise(optimizer):
    labels = [RNG.integers(0, 3, 8).astype("int64") for _ in range(5)]

    def run(static):
        eager.seed(3)
        model = nn.Sequential(nn.Linear(12, 16), nn.Tanh(), nn.Dropout(0.2), nn.Linear(16, 3))
        if optimizer == "momentum":
            opt = eager.optimizer.Momentum(0.1, momentum=0.9, parameters=model.parameters(), weight_decay=0.01)
        elif optimizer == "adamw":
            opt = eager.optimizer.AdamW(0.01, parameters=model.parameters(),
                                        grad_clip=nn.ClipGradByGlobalNorm(1.0))
        else:
            opt = eager.optimizer.RMSProp(0.01, parameters=model.parameters())

        def step(x, y):
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        fn = eager.jit.to_static(step) if static else step
        eager.seed(5)
        losses = [fn(eager.to_tensor(x), eager.to_tensor(y)).numpy().copy() for x, y in zip(XS, labels)]
        return losses, [p.numpy().copy() for p in model.parameters()], fn

    eager_run, static_run = run(False), run(True)
    for a, b in zip(eager_run[0] + eager_run[1], static_run[0] + static_run[1]):
        assert np.array_equal(a, b)
    assert static_run[2].replays == 3 and not static_run[2].reasons


def test_an_optimizer_with_a_tensor_beta_runs_eagerly_so_changing_the_tensor_counts():
    # Adam re-reads a Tensor beta1 on the host at every step; a replayed kernel list
    # would keep the value read at capture, so such a step is never captured.
    def run(static):
        eager.seed(3)
        model = _model()
        beta1 = eager.to_tensor([0.9])
        opt = eager.optimizer.Adam(0.05, parameters=model.parameters(), beta1=beta1)
        fn = _mse_step(model, opt, static)
        losses = []
        for i, (x, y) in enumerate(zip(XS[:6], YS[:6])):
            if i == 3:
                with eager.no_grad():
                    beta1.set_value(np.array([0.5], "float32"))
            losses.append(float(fn(eager.to_tensor(x), eager.to_tensor(y))))
        return losses, [p.numpy().copy() for p in model.parameters()], fn

    eager_losses, eager_params, _ = run(False)
    with pytest.warns(RuntimeWarning, match="reads tensor values on the host"):
        static_losses, static_params, fn = run(True)
    assert static_losses == eager_losses
    assert all(np.array_equal(a, b) for a, b in zip(eager_params, static_params))
    assert fn.replays == 0
