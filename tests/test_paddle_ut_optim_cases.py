"""Regression cases found by re-telling Paddle's own unit tests of the
optimizers, regularizers and amp (second pass: test_momentum_op, test_sgd_op,
test_adagrad_op, test_adadelta_op, test_adamax_api, test_lamb_op,
test_imperative_optimizer_v2, test_regularizer_api, test_weight_decay-style
ParamAttr decays, parameter groups, test_multi_tensor_adam / momentum,
test_modelaverage, test_lookahead, the LBFGS / minimize_bfgs / minimize_lbfgs
tests, test_amp_api, test_amp_decorate and the GradScaler API) against eager,
each checked with the real Paddle 2.6.2.

Found and fixed:
- A parameter group whose 'params' is one Tensor was refused (TypeError);
  Paddle wraps it in a list. A set there is refused (TypeError), as Paddle.
- Optimizer.append_regularization_ops(parameters_and_grads, regularization)
  was missing: the pairs with the decay term added, a parameter's own
  regularizer winning; Momentum leaves a parameter's own L2Decay to its op.
- Optimizer._get_accumulator(name, param) (and _get_accumulator_master) was
  missing; Paddle's tests read ModelAverage's sums and counters through it.
- set_state_dict read only accumulator keys ending in "_0"; Paddle numbers
  them by a process-wide counter ("w_0_moment1_1" for a second model built in
  the saving process), whose state was dropped silently (found by resuming
  Paddle 2.6.2 .pdopt files in eager: 8 optimizers, with and without a
  scheduler, now continue as Paddle does). Likewise a float16 parameter's
  multi_precision state, which Paddle keys by its master weight
  ("w_0_fp32_master_0_velocity_0"; from Paddle 2.6.2's source, as its CPU
  build has no float16 matmul to save one).
- amp.white_list()/black_list() listed eager's op names only, so
  "linear_interp_v2" in black_list()["float16"]["O2"] was False (True in
  Paddle 2.6.2, test_amp_list); they now hold Paddle's names of their ops too.
- A subclass of Optimizer written as Paddle's (_create_accumulators with
  _add_accumulator, _append_optimize_op with _get_accumulator and
  _create_param_lr) was updated by the base SGD rule, silently; it now runs its
  own rule (values equal Paddle 2.6.2's for plain, scheduled, ParamAttr-rate,
  decayed and clipped runs), its accumulators are saved and loaded, and
  super()._append_optimize_op runs the optimizer's own update.
- amp.decorate(models=[]) (or optimizers=[]) raised ValueError; Paddle
  returns the empty lists.
- Optimizer._dtype (the first parameter's dtype, None without one) was missing
  (test_optimizer's TestOptimizerDtype).
- An unsupported line_search_fn raised ValueError; Paddle raises
  NotImplementedError (minimize_bfgs / minimize_lbfgs) and RuntimeError
  (LBFGS): now UnsupportedOptionError, a NotImplementedError and a ValueError.

Also compared and agreeing (no change): 3-step updates of Momentum (nesterov,
L1/L2 weight decay, groups, multi-tensor, multi_precision, clip), SGD,
Adagrad, Adadelta, Adamax, Lamb (exclude fn, groups, always_adapt), RMSProp,
Adam/AdamW with ParamAttr learning rates and regularizers, on identical
gradients; lr schedulers driving get_lr/set_lr; L1/L2 decay equal to the
penalty written into the loss; ModelAverage's window counters and apply /
restore; LookAhead's slow weights; decorate's excluded_layers; resuming
Paddle 2.6.2 checkpoints of 9 optimizers x 15 lr schedulers and of
ModelAverage in eager; sparse-gradient updates of Lamb, Adagrad, SGD, Adam.

Paddle quirks left (eager keeps its behaviour; docs/training.md rows):
Momentum's CPU kernel ignores rescale_grad; minimize(no_grad_set=...) is
ignored in dynamic mode; a duplicate parameter is updated twice; the sparse
Momentum/RMSProp kernels misplace unsorted rows and sparse Adadelta/Adamax/
AdamW abort; minimize_lbfgs fails under NumPy 2 and minimize_bfgs stops short
of the minimum; LookAhead.get_lr() is alpha; amp is off on the CPU.
"""
import numpy as np
import pytest

import eager as paddle

pytestmark = pytest.mark.usefixtures("device")


def _linear(w, b):
    layer = paddle.nn.Linear(*w.shape)
    layer.weight.set_value(w)
    layer.bias.set_value(b)
    return layer


def test_parameter_group_takes_one_tensor_as_params():
    w = np.array([[1.0, -2.0], [0.5, 3.0]], "float32")
    layer = _linear(w, np.zeros(2, "float32"))
    opt = paddle.optimizer.SGD(0.1, parameters=[{"params": layer.weight, "learning_rate": 0.5}])
    assert len(opt._parameter_list) == 1
    x = np.array([[1.0, 2.0]], "float32")
    layer(paddle.to_tensor(x)).sum().backward()
    opt.step()
    grad = np.repeat(x.T, 2, axis=1)                # d sum(x @ W) / dW
    np.testing.assert_allclose(layer.weight.numpy(), w - 0.1 * 0.5 * grad, rtol=1e-6)


def test_parameter_group_refuses_a_set_of_params():
    layer = _linear(np.eye(2, dtype="float32"), np.zeros(2, "float32"))
    with pytest.raises(TypeError, match="parameter group 0 'params' expected an ordered collection"):
        paddle.optimizer.SGD(0.1, parameters=[{"params": {layer.weight}}])


def test_append_regularization_ops_adds_the_decay_term():
    w = np.array([[1.0, -2.0], [3.0, 0.5]], "float32")
    b = np.array([1.0, -1.0], "float32")
    g = np.array([[0.1, 0.2], [0.3, 0.4]], "float32")
    gb = np.array([0.5, -0.5], "float32")
    layer = _linear(w, b)
    opt = paddle.optimizer.Adam(0.1, parameters=layer.parameters())
    grad = paddle.to_tensor(g)
    pairs = opt.append_regularization_ops([(layer.weight, grad), (layer.bias, paddle.to_tensor(gb))],
                                          paddle.regularizer.L2Decay(0.5))
    assert pairs[0][0] is layer.weight and pairs[1][0] is layer.bias
    np.testing.assert_allclose(pairs[0][1].numpy(), g + 0.5 * w, rtol=1e-6)
    np.testing.assert_allclose(pairs[1][1].numpy(), gb + 0.5 * b, rtol=1e-6)
    np.testing.assert_array_equal(grad.numpy(), g)          # the given gradient is left as it was
    np.testing.assert_array_equal(layer.weight.numpy(), w)  # nothing is updated
    l1 = opt.append_regularization_ops([(layer.weight, grad), (layer.bias, None)], paddle.regularizer.L1Decay(0.5))
    np.testing.assert_allclose(l1[0][1].numpy(), g + 0.5 * np.sign(w), rtol=1e-6)
    assert l1[1][1] is None
    assert opt.append_regularization_ops([(layer.weight, grad)])[0][1] is grad


def test_append_regularization_ops_param_attr_regularizer_wins():
    w = np.array([[1.0, -2.0], [3.0, 0.5]], "float32")
    g = np.full((2, 2), 0.25, "float32")
    for name, own, expected in (("SGD", paddle.regularizer.L1Decay(0.2), g + 0.2 * np.sign(w)),
                                ("Momentum", paddle.regularizer.L1Decay(0.2), g + 0.2 * np.sign(w)),
                                # Momentum's op adds a parameter's own L2Decay itself (Paddle 2.6.2)
                                ("Momentum", paddle.regularizer.L2Decay(0.2), g),
                                ("SGD", paddle.regularizer.L2Decay(0.2), g + 0.2 * w)):
        layer = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(regularizer=own))
        layer.weight.set_value(w)
        opt = getattr(paddle.optimizer, name)(0.1, parameters=layer.parameters())
        (pair,) = opt.append_regularization_ops([(layer.weight, paddle.to_tensor(g))], paddle.regularizer.L2Decay(0.5))
        np.testing.assert_allclose(pair[1].numpy(), expected, rtol=1e-6, err_msg=f"{name} {own}")


def test_append_regularization_ops_refuses_a_float_regularization():
    layer = _linear(np.eye(2, dtype="float32"), np.zeros(2, "float32"))
    opt = paddle.optimizer.SGD(0.1, parameters=layer.parameters())
    with pytest.raises(TypeError, match="append_regularization_ops: argument 'regularization'"):
        opt.append_regularization_ops([(layer.weight, paddle.ones([2, 2]))], 0.5)


def test_get_accumulator_reads_the_live_state():
    layer = _linear(np.eye(2, dtype="float32"), np.zeros(2, "float32"))
    opt = paddle.optimizer.Adam(0.1, parameters=layer.parameters())
    with pytest.raises(ValueError, match="accumulator 'moment1' does not exist"):
        opt._get_accumulator("moment1", layer.weight)
    layer(paddle.ones([1, 2])).sum().backward()
    opt.step()
    # one step from zero: moment1 = (1 - beta1) * g, g = 1 everywhere
    np.testing.assert_allclose(opt._get_accumulator("moment1", layer.weight).numpy(), np.full((2, 2), 0.1),
                               rtol=1e-6)
    assert opt._get_accumulator_master("moment2", layer.weight) is opt._get_accumulator("moment2", layer.weight)


def test_model_average_accumulators_as_paddles_unit_test_reads_them():
    rng = np.random.RandomState(5)
    layer = _linear(rng.randn(6, 3).astype("float32"), rng.randn(3).astype("float32"))
    opt = paddle.optimizer.Momentum(0.2, momentum=0.1, parameters=layer.parameters())
    average = paddle.incubate.optimizer.ModelAverage(0.15, parameters=layer.parameters(), min_average_window=2,
                                                     max_average_window=10)
    biases = []
    for _ in range(12):
        layer(paddle.to_tensor(rng.rand(4, 6).astype("float32"))).square().mean().backward()
        opt.step()
        average.step()
        opt.clear_grad()
        biases.append(layer.bias.numpy().copy())
    acc = {name: average._get_accumulator(name, layer.bias).numpy()
           for name in ("sum_1", "sum_2", "sum_3", "num_accumulates", "old_num_accumulates", "num_updates")}
    # counters from Paddle 2.6.2 on the same schedule: the last full window holds 2 steps
    assert (int(acc["num_accumulates"][0]), int(acc["old_num_accumulates"][0]), int(acc["num_updates"][0])) == \
        (0, 2, 12)
    np.testing.assert_array_equal(acc["sum_1"], np.zeros(3, "float32"))
    np.testing.assert_allclose(acc["sum_3"], biases[-2] + biases[-1], rtol=1e-5)
    with average.apply(need_restore=False):
        np.testing.assert_allclose(layer.bias.numpy(), (biases[-2] + biases[-1]) / 2, rtol=1e-5)
    np.testing.assert_array_equal(average._get_accumulator("restore", layer.bias).numpy(), biases[-1])
    average.restore()
    np.testing.assert_array_equal(layer.bias.numpy(), biases[-1])


def test_unsupported_line_search_is_not_implemented():
    x0 = paddle.to_tensor(np.array([0.5, 0.5], "float32"))
    for minimize in (paddle.incubate.optimizer.functional.minimize_bfgs,
                     paddle.incubate.optimizer.functional.minimize_lbfgs):
        with pytest.raises(NotImplementedError, match="argument 'line_search_fn'"):
            minimize(lambda x: (x * x).sum(), x0, line_search_fn="hager_zhang")
        with pytest.raises(ValueError, match="argument 'line_search_fn'"):
            minimize(lambda x: (x * x).sum(), x0, line_search_fn="hager_zhang")
    layer = _linear(np.eye(2, dtype="float32"), np.zeros(2, "float32"))
    with pytest.raises(RuntimeError, match="LBFGS: argument 'line_search_fn'"):   # Paddle: RuntimeError
        paddle.optimizer.LBFGS(parameters=layer.parameters(), line_search_fn="foo")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_optimizer_dtype_is_its_first_parameters(dtype):
    # test_optimizer.py's TestOptimizerDtype reads opt._dtype
    layer = paddle.nn.Linear(2, 3)
    layer.to(dtype=dtype)
    assert paddle.optimizer.Adam(parameters=layer.parameters())._dtype == getattr(paddle, dtype)
    assert paddle.optimizer.SGD(0.1, parameters=[])._dtype is None


@pytest.mark.parametrize("name", ["Adam", "Momentum", "Lamb", "Adagrad", "RMSProp"])
def test_set_state_dict_reads_paddles_numbered_accumulator_keys(name):
    # Paddle names accumulators by a process-wide counter: a second model built in
    # the saving process writes "linear_1.w_0_moment1_1". Its state was dropped silently.
    rng = np.random.RandomState(0)
    w, b = rng.randn(3, 2).astype("float32"), rng.randn(2).astype("float32")
    xs = [paddle.to_tensor(rng.randn(4, 3).astype("float32")) for _ in range(4)]

    def run(layer, opt, batch):
        for x in batch:
            (layer(x) ** 2).mean().backward()
            opt.step()
            opt.clear_grad()

    straight = _linear(w, b)
    run(straight, getattr(paddle.optimizer, name)(0.1, parameters=straight.parameters()), xs)
    first = _linear(w, b)
    opt = getattr(paddle.optimizer, name)(0.1, parameters=first.parameters())
    run(first, opt, xs[:2])
    resumed = _linear(w, b)
    resumed.set_state_dict(first.state_dict())
    renamed = {first.weight.name: resumed.weight.name, first.bias.name: resumed.bias.name}
    state = {}
    for key, value in opt.state_dict().items():
        for old, new in renamed.items():
            if key.startswith(old + "_") and key.endswith("_0"):
                key = new + key[len(old):-2] + "_1"
        state[key] = value
    opt2 = getattr(paddle.optimizer, name)(0.1, parameters=resumed.parameters())
    opt2.set_state_dict(state)
    run(resumed, opt2, xs[2:])
    np.testing.assert_allclose(resumed.weight.numpy(), straight.weight.numpy(), rtol=1e-6, atol=1e-7)


def test_amp_lists_answer_for_paddles_op_names_too():
    # test_amp_list's test_eager: Paddle 2.6.2's black list holds its interpolation ops
    black = paddle.amp.black_list()["float16"]["O2"]
    for op in ("linear_interp_v2", "nearest_interp_v2", "bilinear_interp_v2", "bicubic_interp_v2",
               "trilinear_interp_v2"):
        assert op in black and op[:-3] in black
    white = paddle.amp.white_list()["float16"]["O1"]
    assert {"matmul", "matmul_v2", "conv2d"} <= white
    assert "elementwise_add" not in white and "log" not in white
    # custom lists still change only the auto_cast that names them
    with paddle.amp.auto_cast(custom_white_list={"elementwise_add"}):
        out1 = paddle.rand([2, 3]) + paddle.rand([2, 3])
        out2 = out1.mean()
        out3 = paddle.log(out2)
    assert (out1.dtype, out2.dtype, out3.dtype) == (paddle.float16, paddle.float32, paddle.float32)
    assert "elementwise_add" not in paddle.amp.white_list()["float16"]["O1"]


@pytest.mark.parametrize("name", ["Momentum", "Adam"])
def test_set_state_dict_reads_paddles_master_weight_accumulator_keys(name):
    # Paddle keys a float16 parameter's multi_precision state by its master weight:
    # "linear_0.w_0_fp32_master_0_velocity_0" (Paddle 2.6.2 Optimizer._add_accumulator).
    rng = np.random.RandomState(1)
    w, b = rng.randn(3, 2).astype("float32"), rng.randn(2).astype("float32")
    xs = [paddle.to_tensor(rng.randn(4, 3).astype("float16")) for _ in range(4)]

    def build():
        layer = _linear(w, b)
        layer.to(dtype="float16")
        return layer, getattr(paddle.optimizer, name)(0.1, parameters=layer.parameters(), multi_precision=True)

    def run(layer, opt, batch):
        for x in batch:
            (layer(x).astype("float32") ** 2).mean().backward()
            opt.step()
            opt.clear_grad()

    straight, opt = build()
    run(straight, opt, xs)
    first, opt = build()
    run(first, opt, xs[:2])
    resumed, opt2 = build()
    resumed.set_state_dict(first.state_dict())
    state = {}
    for key, value in opt.state_dict().items():
        for old, new in ((first.weight.name, resumed.weight.name), (first.bias.name, resumed.bias.name)):
            if key.startswith(old + "_"):
                key = f"{new}_fp32_master_0{key[len(old):]}"
        if key == "master_weights":
            value = {resumed.weight.name: value[first.weight.name], resumed.bias.name: value[first.bias.name]}
        state[key] = value
    assert any("_fp32_master_0_" in key for key in state)
    opt2.set_state_dict(state)
    run(resumed, opt2, xs[2:])
    np.testing.assert_array_equal(resumed.weight.numpy(), straight.weight.numpy())


class _RootMeanSquare(paddle.optimizer.Optimizer):
    """A custom optimizer written as Paddle's are (its own accumulators and rule)."""

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator("sq", p, fill_value=0.1)
            self._add_accumulator("count", p, dtype="float32", shape=[1])

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        sq, count = self._get_accumulator("sq", p), self._get_accumulator("count", p)
        paddle.assign(sq + g * g, sq)
        paddle.assign(count + 1, count)
        paddle.assign(p - self._create_param_lr(param_and_grad) * g / paddle.sqrt(sq), p)


def test_custom_optimizer_subclass_runs_its_own_rule():
    # Paddle 2.6.2 runs _create_accumulators and _append_optimize_op at every step;
    # eager ran its base SGD update instead, silently.
    w = np.array([[1.0, -2.0], [0.5, 3.0]], "float32")
    x = np.array([[1.0, 2.0], [3.0, -1.0]], "float32")
    layer = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(learning_rate=0.5), bias_attr=False)
    layer.weight.set_value(w)
    opt = _RootMeanSquare(0.1, parameters=layer.parameters(), weight_decay=paddle.regularizer.L2Decay(0.3))
    ref, sq = w.astype("float64"), np.full((2, 2), 0.1)
    for _ in range(3):
        (layer(paddle.to_tensor(x)) ** 2).mean().backward()
        g = x.T @ (2 * (x @ ref) / 4) + 0.3 * ref       # d mean((x W)^2) / dW + L2 decay
        opt.step()
        opt.clear_grad()
        sq = sq + g * g
        ref = ref - 0.1 * 0.5 * g / np.sqrt(sq)
    np.testing.assert_allclose(layer.weight.numpy(), ref, rtol=1e-5)
    state = opt.state_dict()
    np.testing.assert_allclose(state[f"{layer.weight.name}_sq_0"], sq, rtol=1e-5)
    np.testing.assert_array_equal(state[f"{layer.weight.name}_count_0"], [3.0])
    fresh = _RootMeanSquare(0.1, parameters=layer.parameters())
    fresh.set_state_dict(state)
    np.testing.assert_allclose(fresh._get_accumulator("sq", layer.weight).numpy(), sq, rtol=1e-5)


def test_subclass_calling_super_append_optimize_op_uses_the_optimizers_rule():
    class HalfMomentum(paddle.optimizer.Momentum):   # (Adam would hide the halving: scale-invariant)
        def _append_optimize_op(self, block, param_and_grad):
            p, g = param_and_grad
            return super()._append_optimize_op(block, (p, g * 0.5))

    x = paddle.to_tensor(np.array([[1.0, 2.0], [3.0, -1.0]], "float32"))
    w = np.array([[1.0, -2.0], [0.5, 3.0]], "float32")
    ours, plain = _linear(w, np.zeros(2, "float32")), _linear(w, np.zeros(2, "float32"))
    half = HalfMomentum(0.1, parameters=ours.parameters())
    momentum = paddle.optimizer.Momentum(0.1, parameters=plain.parameters())
    for _ in range(3):
        (ours(x) ** 2).mean().backward()
        (0.5 * (plain(x) ** 2).mean()).backward()   # the same halved gradient
        half.step()
        momentum.step()
        half.clear_grad()
        momentum.clear_grad()
    np.testing.assert_allclose(ours.weight.numpy(), plain.weight.numpy(), rtol=1e-6)


def test_amp_decorate_takes_empty_lists():
    # Paddle 2.6.2's decorate checks each listed model and returns the lists as given
    assert paddle.amp.decorate(models=[], level="O2") == []
    assert paddle.amp.decorate(models=[], optimizers=[], level="O2") == ([], [])
