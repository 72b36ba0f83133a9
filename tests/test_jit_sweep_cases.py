"""Stale replays found by the to_static differential sweep, each run twice from
the same start (once eagerly, once under to_static) and compared bitwise after
every call: losses, outputs, parameters, gradients and optimizer state.

The sweep drew training steps whose state is reached only through a helper
function (its closure or the globals its code names) or through a plain object
a Layer or Optimizer holds (a gradient clip's norm, a regularizer's
coefficient, a config namespace); a change there between calls must re-capture.
"""
import types

import numpy as np
import pytest

import eager
from eager import nn
from eager.nn import functional as F

RNG = np.random.default_rng(3)
XS = [RNG.standard_normal((4, 6)).astype("float32") for _ in range(8)]
YS = [RNG.standard_normal((4, 3)).astype("float32") for _ in range(8)]


def _snapshot(loss, model, opt):
    """Copies of everything a replay must reproduce."""
    return ([loss.numpy().copy()]
            + [p.numpy().copy() for p in model.state_dict().values()]
            + [None if p.grad is None else p.grad.numpy().copy() for p in model.parameters()]
            + [np.asarray(v.numpy()).copy() for v in opt.state_dict().values() if isinstance(v, eager.Tensor)])


def _assert_bitwise(eager_run, static_run):
    assert len(eager_run) == len(static_run)
    for call, (a, b) in enumerate(zip(eager_run, static_run)):
        assert len(a) == len(b), call
        for x, y in zip(a, b):
            if x is None or y is None:
                assert x is None and y is None, call
            else:
                assert x.dtype == y.dtype and np.array_equal(x, y), f"call {call} differs from eager"


def _update(loss, opt):
    """The end of every step here: backward, the optimizer's step, clear_grad."""
    loss.backward()
    opt.step()
    opt.clear_grad()
    return loss


def _run(make_step, change, static, calls=7):
    """Runs ``calls`` steps of the function ``make_step(model, opt)`` returns,
    calling ``change(model, opt, i)`` before each call; the snapshots and the
    StaticFunction (None when eager)."""
    eager.seed(5)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Dropout(0.3), nn.Linear(8, 3))
    model.cfg = types.SimpleNamespace(scale=1.0)
    opt = eager.optimizer.Momentum(0.05, momentum=0.9, parameters=model.parameters(),
                                   grad_clip=nn.ClipGradByGlobalNorm(0.05),
                                   weight_decay=eager.regularizer.L2Decay(0.01))
    step = make_step(model, opt)
    eager.seed(9)
    snaps, fn = _calls(step, model, opt, static, lambda i: change(model, opt, i), calls)
    return snaps, (fn if static else None)


def _calls(step, model, opt, static, change, calls=7):
    """Calls ``step`` (under to_static when ``static``) on the batches, ``change(i)``
    before each call; the snapshots taken after each call, and the function called."""
    fn = eager.jit.to_static(step) if static else step
    snaps = []
    for i in range(calls):
        change(i)
        loss = fn(eager.to_tensor(XS[i]), eager.to_tensor(YS[i]))
        snaps.append(_snapshot(loss, model, opt))
    return snaps, fn


def _compare_runs(run, restore):
    """``run(static)`` eagerly and under to_static (``restore()`` after both, even on
    failure), the two asserted bitwise equal; the StaticFunction."""
    try:
        plain, _ = run(False)
        traced, fn = run(True)
    finally:
        restore()
    _assert_bitwise(plain, traced)
    return fn


def _compare(make_step, change):
    """Runs the steps eagerly and under to_static, asserts the two bitwise equal
    after every call, and returns the StaticFunction (for its capture counts)."""
    plain, _ = _run(make_step, change, False)
    traced, fn = _run(make_step, change, True)
    _assert_bitwise(plain, traced)
    return fn


def _helper_closure_step(model, opt):
    def loss_of(x, y):  # the model is reached only through this helper's closure
        return F.mse_loss(model(x) * model.cfg.scale, y)

    def step(x, y):
        loss = loss_of(x, y)
        return _update(loss, opt)

    return step


def _toggle_mode(model, opt, i):
    if i == 3:
        model.eval()
    if i == 5:
        model.train()


def test_a_model_reached_through_a_helper_closure_recaptures_on_train_eval():
    fn = _compare(_helper_closure_step, _toggle_mode)
    assert fn.replays >= 1 and fn.captures >= 4  # train, eval and train again each captured


_MODEL = {}


def _global_loss(x, y):
    """A module-level helper reading a model from a global dict entry."""
    return F.mse_loss(_MODEL["m"](x), y)


def _global_loss_doubled(x, y):
    return F.mse_loss(_MODEL["m"](x), y) * 2.0


def _global_helper_step(model, opt):
    _MODEL["m"] = model
    globals()["compute_loss"] = _global_loss

    def step(x, y):
        loss = compute_loss(x, y)  # noqa: F821  (a global set above, rebound between calls)
        return _update(loss, opt)

    return step


def _rebind_helper(model, opt, i):
    if i == 3:
        globals()["compute_loss"] = _global_loss_doubled
    if i == 5:
        model.eval()


def test_a_global_helper_rebound_or_its_model_changed_recaptures():
    fn = _compare(_global_helper_step, _rebind_helper)
    assert fn.replays >= 1


def _direct_step(model, opt):
    def step(x, y):
        loss = F.mse_loss(model(x) * model.cfg.scale, y)
        return _update(loss, opt)

    return step


@pytest.mark.parametrize("what", ["config", "clip_norm", "regularizer"])
def test_a_setting_held_by_a_plain_object_of_a_layer_or_optimizer_recaptures(what):
    def change(model, opt, i):
        if i == 4:
            if what == "config":
                model.cfg.scale = 3.0
            elif what == "clip_norm":
                opt._grad_clip.clip_norm = 5.0
            else:
                opt.regularization.coeff = 0.5

    fn = _compare(_direct_step, change)
    assert fn.replays >= 2


@pytest.mark.parametrize("holder", ["list", "dict"])
def test_an_optimizer_swapped_in_a_container_between_calls_recaptures(holder):
    slow = {}

    def make_step(model, opt):
        box = [opt] if holder == "list" else {"opt": opt}
        key = 0 if holder == "list" else "opt"
        slow["box"], slow["key"] = box, key
        slow["other"] = eager.optimizer.SGD(0.5, parameters=model.parameters())

        def step(x, y):
            loss = F.mse_loss(model(x), y)
            return _update(loss, box[key])

        return step

    def change(model, opt, i):
        if i == 4:
            slow["box"][slow["key"]] = slow["other"]

    fn = _compare(make_step, change)
    assert fn.replays >= 2


def test_to_static_refuses_a_backend_paddle_does_not_name():
    with pytest.raises(ValueError, match=r"to_static: argument 'backend' expected 'CINN' or None, got 'foo'"):
        eager.jit.to_static(lambda t: t, backend="foo")
    with pytest.raises(ValueError, match="'backend'"):
        eager.jit.to_static(backend="cinn")  # Paddle's check is case-sensitive, before decorating
    fn = eager.jit.to_static(lambda t: t * 2.0, backend="CINN")
    np.testing.assert_array_equal(fn(eager.ones([2])).numpy(), np.full(2, 2.0, "float32"))


CONFIG = {"scale": 1.0}
FACTORS = [1.0]
FORWARD_SCALE = 1.0


class _Scaled(nn.Layer):
    """A Layer whose forward reads a module global and a class-level number."""

    SHIFT = 0.0

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        return self.fc(x) * FORWARD_SCALE + self.SHIFT


def _set_config(scale, factor, forward_scale, shift):
    global FORWARD_SCALE
    CONFIG["scale"], FACTORS[0], FORWARD_SCALE, _Scaled.SHIFT = scale, factor, forward_scale, shift


@pytest.mark.parametrize("what", ["dict", "list", "forward_global", "class_attribute"])
def test_a_number_in_a_config_container_or_a_layer_class_recaptures(what):
    changed = {"dict": (3.0, 1.0, 1.0, 0.0), "list": (1.0, 3.0, 1.0, 0.0),
               "forward_global": (1.0, 1.0, 3.0, 0.0), "class_attribute": (1.0, 1.0, 1.0, 0.5)}[what]

    def run(static):
        _set_config(1.0, 1.0, 1.0, 0.0)
        eager.seed(5)
        model = _Scaled()
        opt = eager.optimizer.Adam(0.05, parameters=model.parameters())

        def step(x, y):
            loss = F.mse_loss(model(x) * CONFIG["scale"] * FACTORS[0], y)
            return _update(loss, opt)

        def change(i):
            if i == 4:
                _set_config(*changed)

        return _calls(step, model, opt, static, change)

    fn = _compare_runs(run, lambda: _set_config(1.0, 1.0, 1.0, 0.0))
    assert fn.replays >= 2


NP_SCALE = np.float32(1.0)


def test_a_numpy_scalar_global_the_step_reads_recaptures():
    def run(static):
        global NP_SCALE
        NP_SCALE = np.float32(1.0)
        eager.seed(5)
        model = nn.Linear(6, 3)
        opt = eager.optimizer.SGD(0.05, parameters=model.parameters())

        def step(x, y):
            loss = F.mse_loss(model(x) * NP_SCALE, y)
            return _update(loss, opt)

        def change(i):
            global NP_SCALE
            if i == 4:
                NP_SCALE = np.float32(3.0)

        return _calls(step, model, opt, static, change)

    def restore():
        global NP_SCALE
        NP_SCALE = np.float32(1.0)

    fn = _compare_runs(run, restore)
    assert fn.replays >= 2


class _Trainer:
    """A plain object whose bound method is the step: its numbers and its config
    dict are read by the step."""

    def __init__(self):
        eager.seed(5)
        self.model = nn.Linear(6, 3)
        self.opt = eager.optimizer.SGD(0.05, parameters=self.model.parameters())
        self.scale = 1.0
        self.cfg = {"k": 1.0}

    def step(self, x, y):
        loss = F.mse_loss(self.model(x) * self.scale * self.cfg["k"], y)
        return _update(loss, self.opt)


@pytest.mark.parametrize("what", ["attribute", "dict_attribute"])
def test_a_number_of_a_bound_method_self_recaptures(what):
    def run(static):
        trainer = _Trainer()
        fn = eager.jit.to_static(trainer.step) if static else trainer.step
        snaps = []
        for i in range(7):
            if i == 4:
                if what == "attribute":
                    trainer.scale = 3.0
                else:
                    trainer.cfg["k"] = 3.0
            loss = fn(eager.to_tensor(XS[i]), eager.to_tensor(YS[i]))
            snaps.append(_snapshot(loss, trainer.model, trainer.opt))
        return snaps, fn

    fn = _compare_runs(run, lambda: None)
    assert fn.replays >= 2


@pytest.mark.parametrize("what", ["need_clip", "learning_rate", "regularizer"])
def test_a_parameter_attribute_the_optimizer_reads_recaptures(what):
    def change(model, opt, i):
        if i == 4:
            weight = model[0].weight
            if what == "need_clip":
                weight.need_clip = False
            elif what == "learning_rate":
                weight.optimize_attr["learning_rate"] = 5.0
            else:
                weight.regularizer = eager.regularizer.L2Decay(0.9)

    fn = _compare(_direct_step, change)
    assert fn.replays >= 2


ALPHA = 1.0


def _scaled_activation(t):
    """A module-level function a Layer keeps as an attribute; it reads ALPHA."""
    return t * ALPHA


class _WithActivation(nn.Layer):
    def __init__(self, act):
        super().__init__()
        self.fc = nn.Linear(6, 3)
        self.act = act

    def forward(self, x):
        return self.act(self.fc(x))


def test_a_global_read_by_a_function_a_layer_keeps_recaptures():
    def run(static):
        global ALPHA
        ALPHA = 1.0
        eager.seed(5)
        model = nn.Sequential(_WithActivation(_scaled_activation))
        opt = eager.optimizer.SGD(0.05, parameters=model.parameters())

        def step(x, y):
            loss = F.mse_loss(model(x), y)
            return _update(loss, opt)

        def change(i):
            global ALPHA
            if i == 4:
                ALPHA = 3.0

        return _calls(step, model, opt, static, change)

    def restore():
        global ALPHA
        ALPHA = 1.0

    fn = _compare_runs(run, restore)
    assert fn.replays >= 2
