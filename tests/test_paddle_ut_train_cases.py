"""Regression cases found by re-telling Paddle's own unit tests of the training
stack (test/legacy_test: optimizers, lr schedulers, amp, gradient clip,
regularizers, io, hapi, metric, autograd, save/load) against eager, each
checked with the real Paddle 2.6.2.

Found and fixed:
- LRScheduler's base get_lr() raised TypeError; Paddle raises
  NotImplementedError (test_lr_scheduler: LRScheduler().step()).
- CosineAnnealingWarmRestarts(T_0=1.0) / (T_mult=1.0) raised TypeError; Paddle
  refuses a float period with ValueError (test_lr_scheduler).
- Optimizers took an int learning_rate (and AdamW an int weight_decay);
  Paddle's constructors raise TypeError (LBFGS and set_lr take ints)
  (test_adamw_op).
- ClipGradByGlobalNorm/ByNorm/ByValue called on (param, None) pairs returned
  them; Paddle's clips leave them out (test_gradient_clip).
- PyLayer: a forward returning no Tensor, a backward returning an int as a
  gradient raised TypeError, and a backward returning one Tensor for two
  inputs a TypeError; Paddle raises ValueError (now PyLayerResultError, both,
  and the count error). A PyLayer without backward was refused at apply;
  Paddle runs its forward and fails in backward (NotImplementedError here; no
  forward: NotImplementedError at apply, as Paddle) (test_pylayer_op).
- An optimizer hyperparameter given as None (RMSProp(None), rho/epsilon/
  momentum=None) raised TypeError; Paddle raises ValueError ("not set"):
  now HyperparameterNotSetError, both. A string beta1 was a ValueError, now a
  TypeError (as Adam's in Paddle). LBFGS's max_iter/history_size/max_eval/
  tolerances of the wrong kind were ValueErrors, now TypeErrors as Paddle's
  (test_rmsprop_op).
- Optimizer.get_opti_var_name_list() was missing (test_adam_op): the names
  of the accumulators made so far, in Paddle's order.
- grad(out, [x, x]) / grad([out, out], x) raised a plain ValueError; Paddle
  raises RuntimeError naming the duplicate: now AutogradError (both)
  (test_imperative_double_grad).
- Lamb ignored a parameter group's 'weight_decay'; Paddle adds it to the
  group's gradients as an L2Decay regularizer (found by a 3-step differential
  of 17 optimizer settings, plain and grouped, against Paddle 2.6.2).
- DataLoader(return_list=False) without a feed_list raised ValueError; Paddle's
  dynamic mode ignores return_list and gives the usual list batches
  (differential of DataLoader collation against Paddle 2.6.2).
- BatchNorm's running mean and variance were named generated_tensor_<n>;
  Paddle names them as the layer's next weights (batch_norm2d_0.w_1, .w_2), so
  a state dict keyed by names (use_structured_name=False) missed them
  (test_imperative_save_load_v2-style state dicts, checked against 2.6.2).
- An optimizer's negative or infinite weight_decay raised TypeError; a number
  out of range is a ValueError (a non-number stays a TypeError).
- io.random_split(dataset, []) raised TypeError; Paddle raises ValueError (the
  lengths sum to 0, not len(dataset)) and splits an empty dataset into []
  (test_multiprocess_dataloader_dataset).
"""
import numpy as np
import pytest

import eager as paddle


def test_lr_scheduler_base_get_lr_is_not_implemented():
    with pytest.raises(NotImplementedError, match="get_lr"):
        paddle.optimizer.lr.LRScheduler()


@pytest.mark.parametrize("kwargs", [dict(T_0=1.0, T_mult=1), dict(T_0=1, T_mult=1.0), dict(T_0=-1, T_mult=1),
                                    dict(T_0=1, T_mult=-1)])
def test_cosine_warm_restarts_float_period_is_value_error(kwargs):
    with pytest.raises(ValueError, match="CosineAnnealingWarmRestarts: argument 'T_"):
        paddle.optimizer.lr.CosineAnnealingWarmRestarts(learning_rate=0.5, **kwargs)


def test_cosine_warm_restarts_non_number_period_stays_type_error():
    with pytest.raises(TypeError, match="T_0"):
        paddle.optimizer.lr.CosineAnnealingWarmRestarts(learning_rate=0.5, T_0="3")


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Momentum", "RMSProp", "Lamb", "Adadelta", "Adagrad",
                                  "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"])
def test_optimizer_refuses_an_int_learning_rate(name):
    # Paddle 2.6.2: "learning rate should be float or LRScheduler" (TypeError) for learning_rate=1
    linear = paddle.nn.Linear(2, 2)
    with pytest.raises(TypeError, match=f"{name}: argument 'learning_rate' expected a float"):
        getattr(paddle.optimizer, name)(learning_rate=1, parameters=linear.parameters())


def test_int_learning_rate_still_taken_where_paddle_takes_it():
    linear = paddle.nn.Linear(2, 2)
    assert paddle.optimizer.LBFGS(learning_rate=1, parameters=linear.parameters()).get_lr() == 1.0
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=linear.parameters())
    opt.set_lr(2)
    assert opt.get_lr() == 2.0


def test_adamw_refuses_an_int_weight_decay():
    # Paddle 2.6.2: "weight_decay should be float or Tensor." (TypeError); SGD's int weight_decay is taken
    linear = paddle.nn.Linear(2, 2)
    with pytest.raises(TypeError, match="AdamW: argument 'weight_decay'"):
        paddle.optimizer.AdamW(learning_rate=0.1, parameters=linear.parameters(), weight_decay=1)
    paddle.optimizer.AdamW(learning_rate=0.1, parameters=linear.parameters(), weight_decay=1.0)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("clip", [paddle.nn.ClipGradByGlobalNorm(0.8), paddle.nn.ClipGradByNorm(0.8),
                                  paddle.nn.ClipGradByValue(max=0.2, min=0.1)])
def test_gradient_clip_leaves_out_pairs_without_gradient(clip):
    # Paddle's clips return only the pairs that have a gradient (test_gradient_clip)
    x = paddle.to_tensor([2.0, 3.0])
    y = paddle.to_tensor([3.0, 4.0])
    out = clip([(x, x), (x, y), (x, None)])
    assert len(out) == 2
    assert clip([(x, None)]) == []
    scale = {"ClipGradByGlobalNorm": 0.8 / np.sqrt(13 + 25), "ClipGradByNorm": None}.get(type(clip).__name__)
    for (_, got), grad in zip(out, ([2.0, 3.0], [3.0, 4.0])):
        grad = np.array(grad)
        if type(clip).__name__ == "ClipGradByNorm":
            want = grad * 0.8 / np.linalg.norm(grad)
        elif scale is not None:
            want = grad * scale
        else:
            want = np.clip(grad, 0.1, 0.2)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


class _NoTensorForward(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x):
        return 1

    @staticmethod
    def backward(ctx, dy):
        return dy


class _IntGradient(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x + x

    @staticmethod
    def backward(ctx, dy):
        return 1


class _OneGradientForTwoInputs(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x1, x2):
        return x1 + x2

    @staticmethod
    def backward(ctx, dy):
        return dy + 1


def _leaf():
    x = paddle.to_tensor(np.ones([2, 3]))
    x.stop_gradient = False
    return x


def test_pylayer_result_errors_are_value_errors():
    # Paddle 2.6.2 raises ValueError for each of these (test_pylayer_op)
    with pytest.raises(ValueError, match="_NoTensorForward.forward must return a Tensor"):
        _NoTensorForward.apply(_leaf())
    with pytest.raises(ValueError, match="returned int as the gradient of tensor input 0"):
        _IntGradient.apply(_leaf()).mean().backward()
    x1, x2 = _leaf(), _leaf()
    with pytest.raises(ValueError, match="backward returned one Tensor, but forward took 2 tensor input"):
        _OneGradientForTwoInputs.apply(x1, x2).mean().backward()
    assert x1.grad is None and x2.grad is None


def test_pylayer_without_backward_runs_forward_and_fails_in_backward():
    # Paddle 2.6.2: apply works, backward raises (test_pylayer_op's Layer_no_bk); no forward: NotImplementedError
    class NoBackward(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    class NoForward(paddle.autograd.PyLayer):
        @staticmethod
        def backward(ctx, dy):
            return dy

    x = _leaf()
    y = NoBackward.apply(x)
    np.testing.assert_array_equal(y.numpy(), np.full([2, 3], 2.0))
    with pytest.raises(NotImplementedError, match="NoBackward: a PyLayer subclass must define a static backward"):
        y.sum().backward()
    with pytest.raises(NotImplementedError, match="NoForward: a PyLayer subclass must define a static forward"):
        NoForward.apply(x)


def test_random_split_empty_lengths_is_value_error():
    with pytest.raises(ValueError, match=r"random_split: the lengths \[\] sum to 0, expected len\(dataset\) = 5"):
        paddle.io.random_split(range(5), [])
    assert paddle.io.random_split(range(0), []) == []  # as Paddle 2.6.2
    with pytest.raises(TypeError, match="random_split: argument 'lengths' expected a list"):
        paddle.io.random_split(range(5), 5)


@pytest.mark.parametrize("name, kwargs", [
    ("RMSProp", dict(learning_rate=None)), ("RMSProp", dict(learning_rate=0.1, rho=None)),
    ("RMSProp", dict(learning_rate=0.1, epsilon=None)), ("RMSProp", dict(learning_rate=0.1, momentum=None)),
    ("SGD", dict(learning_rate=None)), ("Momentum", dict(learning_rate=0.1, momentum=None)),
    ("Adadelta", dict(learning_rate=0.1, epsilon=None)), ("Lamb", dict(learning_rate=0.1, lamb_weight_decay=None)),
    ("Adam", dict(learning_rate=0.1, beta1=None)), ("LBFGS", dict(tolerance_grad=None))])
def test_optimizer_hyperparameter_none_is_value_error(name, kwargs):
    # Paddle 2.6.2: ValueError "... is not set" (test_rmsprop_op's test_raise_error); eager's is also a TypeError
    linear = paddle.nn.Linear(2, 2)
    arg = next(iter(k for k, v in kwargs.items() if v is None))
    with pytest.raises(ValueError, match=f"{name}: argument '{arg}' is not set") as info:
        getattr(paddle.optimizer, name)(parameters=linear.parameters(), **kwargs)
    assert isinstance(info.value, TypeError)


def test_optimizer_string_beta_is_type_error():
    linear = paddle.nn.Linear(2, 2)
    with pytest.raises(TypeError, match="Adam: argument 'beta1' expected a float in"):
        paddle.optimizer.Adam(learning_rate=0.1, beta1="x", parameters=linear.parameters())
    with pytest.raises(ValueError, match="Adam: argument 'beta1' expected a float in"):
        paddle.optimizer.Adam(learning_rate=0.1, beta1=-1.0, parameters=linear.parameters())


@pytest.mark.parametrize("kwargs", [dict(max_iter=None), dict(max_iter="x"), dict(history_size=-1.0),
                                    dict(max_eval="x"), dict(tolerance_change="x")])
def test_lbfgs_wrong_kind_is_type_error(kwargs):
    # Paddle 2.6.2 raises TypeError for each
    linear = paddle.nn.Linear(2, 2)
    with pytest.raises(TypeError, match=f"LBFGS: argument '{next(iter(kwargs))}'"):
        paddle.optimizer.LBFGS(parameters=linear.parameters(), **kwargs)


def test_get_opti_var_name_list():
    linear = paddle.nn.Linear(2, 2)
    w, b = linear.weight.name, linear.bias.name
    opt = paddle.optimizer.RMSProp(learning_rate=0.1, parameters=linear.parameters())
    assert opt.get_opti_var_name_list() == []  # nothing made before the first step (Paddle 2.6.2)
    linear(paddle.ones([1, 2])).sum().backward()
    opt.step()
    # Paddle 2.6.2's list: each parameter's accumulators in turn
    assert opt.get_opti_var_name_list() == [f"{n}_{acc}_0" for n in (w, b)
                                            for acc in ("momentum", "mean_square", "mean_grad")]
    assert set(opt.get_opti_var_name_list()) <= set(opt.state_dict())


def test_grad_duplicate_inputs_or_outputs_is_runtime_error():
    # Paddle 2.6.2: RuntimeError "(AlreadyExists) inputs contain duplicate tensor" (test_imperative_double_grad)
    x = paddle.to_tensor(np.ones((3, 3)), stop_gradient=False)
    y = paddle.to_tensor(np.ones((3, 1)), stop_gradient=False)
    out = paddle.matmul(x, y)
    with pytest.raises(RuntimeError, match="'inputs' lists the same tensor twice .*duplicate") as info:
        paddle.grad(out, [x, x], retain_graph=True)
    assert isinstance(info.value, ValueError)
    with pytest.raises(RuntimeError, match="'outputs' lists the same tensor twice .*duplicate"):
        paddle.grad([out, out], [x])


def _lamb_reference(w, b, x, reg_b, steps=3, lr=0.1, decay=0.01, b1=0.9, b2=0.999, eps=1e-6):
    """Paddle's Lamb in float64, with an L2 regularizer reg_b on the bias gradient."""
    params = [w.astype("float64"), b.astype("float64")]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for t in range(1, steps + 1):
        y = x @ params[0] + params[1]
        dy = 2 * y / y.size
        grads = [x.T @ dy, dy.sum(0) + reg_b * params[1]]
        for i, g in enumerate(grads):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            r = (m[i] / (1 - b1 ** t)) / (np.sqrt(v[i] / (1 - b2 ** t)) + eps) + decay * params[i]
            params[i] = params[i] - lr * np.linalg.norm(params[i]) / np.linalg.norm(r) * r
    return params


@pytest.mark.usefixtures("device")
def test_lamb_applies_a_group_weight_decay():
    rng = np.random.default_rng(0)
    w, b, x = (rng.standard_normal(s).astype("float32") for s in ((4, 3), (3,), (5, 4)))
    linear = paddle.nn.Linear(4, 3)
    linear.weight.set_value(w)
    linear.bias.set_value(b)
    opt = paddle.optimizer.Lamb(learning_rate=0.1, lamb_weight_decay=0.01,
                                parameters=[{"params": [linear.weight]},
                                            {"params": [linear.bias], "weight_decay": 0.03}])
    for _ in range(3):
        (linear(paddle.to_tensor(x)) ** 2).mean().backward()
        opt.step()
        opt.clear_grad()
    want_w, want_b = _lamb_reference(w, b, x.astype("float64"), reg_b=0.03)
    np.testing.assert_allclose(linear.weight.numpy(), want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(linear.bias.numpy(), want_b, rtol=1e-5, atol=1e-6)


def test_dataloader_return_list_false_without_feed_list_is_ignored():
    # Paddle 2.6.2 (dynamic mode): return_list=False is ignored; the batch is [x, y]
    dataset = paddle.io.TensorDataset([np.arange(8, dtype="float32").reshape(4, 2), np.arange(4)])
    x, y = next(iter(paddle.io.DataLoader(dataset, batch_size=3, return_list=False)))
    np.testing.assert_array_equal(x.numpy(), np.arange(6, dtype="float32").reshape(3, 2))
    np.testing.assert_array_equal(y.numpy(), [0, 1, 2])


def test_batch_norm_statistics_have_paddle_names():
    # Paddle 2.6.2: ['batch_norm2d_0.w_0', 'batch_norm2d_0.b_0', 'batch_norm2d_0.w_1', 'batch_norm2d_0.w_2']
    bn = paddle.nn.BatchNorm2D(3)
    prefix = bn.full_name()
    assert [v.name for v in bn.state_dict().values()] == [f"{prefix}.w_0", f"{prefix}.b_0", f"{prefix}.w_1",
                                                          f"{prefix}.w_2"]
    by_name = {v.name: np.full(v.shape, 0.5 + i, "float32") for i, v in enumerate(bn.state_dict().values())}
    target = paddle.nn.BatchNorm2D(3)
    renamed = {f"{prefix}.{suffix}": value for suffix, value in
               zip(("w_0", "b_0", "w_1", "w_2"), by_name.values())}
    for param, name in zip(target.state_dict().values(), renamed):
        param.name = name  # the loaded layer answers to the saved names
    missing, unexpected = target.set_state_dict(renamed, use_structured_name=False)
    assert missing == [] and unexpected == []
    np.testing.assert_array_equal(target._mean.numpy(), np.full([3], 2.5, "float32"))
    np.testing.assert_array_equal(target._variance.numpy(), np.full([3], 3.5, "float32"))


@pytest.mark.parametrize("value", [-0.1, float("inf")])
def test_optimizer_weight_decay_out_of_range_is_value_error(value):
    linear = paddle.nn.Linear(1, 1)
    with pytest.raises(ValueError, match="SGD: argument 'weight_decay' expected a finite float >= 0"):
        paddle.optimizer.SGD(0.1, parameters=linear.parameters(), weight_decay=value)
