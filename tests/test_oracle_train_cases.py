"""Regression cases from the differential sweep of the training stack against
real Paddle 2.6.2 (same initial weights, data and steps in both; parameters,
state dicts, learning-rate sequences, metric values and their types compared).

What the sweep found and this file pins (expected values from NumPy
references that agree with Paddle 2.6.2, or literals from it where noted):

- Adadelta's accumulators were saved as ``<param>_avg_squared_grad_0``;
  Paddle names them ``_avg_squared_grad`` / ``_avg_squared_update``, so its
  keys read ``<param>__avg_squared_grad_0`` (two underscores) and a state dict
  did not carry across.
- ``AdamW(weight_decay=<Tensor>)`` (Paddle's ``float|Tensor``) raised a
  TypeError; it is taken and read at every step, like a Tensor beta.
- ``Accuracy.update`` / ``accumulate`` and ``Auc.accumulate`` returned Python
  floats; Paddle returns NumPy float64 (its counts are NumPy integers), which
  shows in printed values and in ``Model``'s logs (``eval_batch``'s example).
- ``GradScaler.scale`` of a 0-d loss gave a 0-d Tensor; Paddle's is [1]
  (the loss times its [1]-shaped scale). A scale decrease did not print
  Paddle's "Found inf or nan, current scale is: ..." line.
- ``metric.accuracy(correct=, total=)`` kept the given Tensors' shape and dtype
  (and refused float ones); Paddle's op leaves int32 0-d counts in them.
- ``summary()``'s counts were Python ints; Paddle's are NumPy int64 (sums of
  ``np.prod``), a plain 0 only when nothing was counted.
- Optimizers refused ``learning_rate=0.0`` (Paddle and torch take it; a
  scheduler's 0 was already taken).
- ``DataLoader`` made 0-d Tensors of NumPy scalars (``batch_size=None``, or
  in a ``collate_fn``'s result) and kept a ``collate_fn``'s tuples; Paddle
  keeps NumPy scalars and gives lists.
- ``LRScheduler.step(epoch)`` refused a float epoch (TypeError); Paddle's
  schedules take fractional epochs (``step(epoch + i / iters)``), and
  CosineAnnealingWarmRestarts moves only ``T_cur`` by the fraction.
- ``Model.eval_batch``/``evaluate`` with neither loss nor metrics raised
  RuntimeError; Paddle returns ``[]`` / ``{}``.
- ``fit``'s progress logger did not print Paddle's first line ("The loss
  value printed in the log is the current step, ...").
- Error kinds: a non-number hyperparameter (``momentum='a'``,
  ``L1Decay('a')``) raised ValueError and a negative AdamW ``weight_decay``
  TypeError; now TypeError for the wrong kind, ValueError for a bad value.
- Signatures (461 compared): Adamax had ``multi_precision`` before ``name``
  (Paddle's positional ``name`` landed in it); ``ConcatDataset.cumsum``
  (Paddle's static helper) was missing; VisualDL's ``on_epoch_begin`` lacked
  Paddle's ``epoch=None`` default.
- ``default_collate_fn`` made every string field a list; Paddle leaves a
  tuple/list position's strings as the tuple ``zip`` gives (500 random nested
  batches now equal Paddle's, types and dtypes included).
- ``L1Decay``/``L2Decay`` had no ``_coeff`` (Paddle's attribute, read by
  scripts) and ``str()`` differed from Paddle's "L2Decay, coeff=0.200000".

Seen and kept (docs/training.md, docs/amp.md rows): Paddle keeps the float
hyperparameters of Momentum, RMSProp, Adamax, Adadelta, Lamb and AdamW's
coefficient as float32 attributes, so float64 trajectories differ from
eager's (double) ones by ~1e-8 (they agree to 1e-12 with float32-exact
values); its CPU momentum kernel ignores ``rescale_grad``; LBFGS ignores
``weight_decay``/``grad_clip`` and reports ``get_lr() == 1.0``; OneCycleLR at
``total_steps`` extrapolates its last phase; CosineAnnealingWarmRestarts'
state dict lacks ``T_cur``/``T_i``; optimizer ``state_dict()`` values are
NumPy copies here, live Tensors there.
"""
import numpy as np
import pytest

import eager
from eager import nn

pytestmark = pytest.mark.usefixtures("device")


def _linear(w, b):
    layer = nn.Linear(*w.shape)
    layer.weight.set_value(w)
    layer.bias.set_value(b)
    return layer


def _adadelta_ref(p, grads, lr, rho, eps):
    """Paddle's adadelta kernel in float64."""
    p = np.array(p, dtype=np.float64)
    asg, asu = np.zeros_like(p), np.zeros_like(p)
    for g in grads:
        asg = rho * asg + (1 - rho) * g * g
        update = -np.sqrt((asu + eps) / (asg + eps)) * g
        asu = rho * asu + (1 - rho) * update * update
        p = p + lr * update
    return p, asg, asu


def test_adadelta_state_dict_uses_paddles_accumulator_names(rng):
    w = rng.standard_normal((3, 2))
    p = eager.create_parameter([3, 2], "float64")
    p.set_value(w)
    opt = eager.optimizer.Adadelta(0.5, rho=0.5, epsilon=1e-3, parameters=[p])
    grads = [rng.standard_normal((3, 2)) for _ in range(3)]
    for g in grads:
        p.grad = eager.to_tensor(g)  # noqa: the optimizer reads .grad
        opt.step()
    state = opt.state_dict()
    name = p.name
    # Paddle 2.6.2: '<param>__avg_squared_grad_0' and '<param>__avg_squared_update_0'
    assert f"{name}__avg_squared_grad_0" in state and f"{name}__avg_squared_update_0" in state
    assert f"{name}_avg_squared_grad_0" not in state
    ref_p, ref_asg, ref_asu = _adadelta_ref(w, grads, 0.5, 0.5, 1e-3)
    np.testing.assert_allclose(p.numpy(), ref_p, rtol=1e-12)
    np.testing.assert_allclose(state[f"{name}__avg_squared_grad_0"], ref_asg, rtol=1e-12)
    np.testing.assert_allclose(state[f"{name}__avg_squared_update_0"], ref_asu, rtol=1e-12)
    # and the keys load back into a fresh optimizer
    q = eager.create_parameter([3, 2], "float64")
    q.name = name
    fresh = eager.optimizer.Adadelta(0.5, rho=0.5, epsilon=1e-3, parameters=[q])
    fresh.set_state_dict(state)
    np.testing.assert_array_equal(fresh.state_dict()[f"{name}__avg_squared_update_0"], ref_asu)


def _adamw_ref(p, grads, lr, coeffs, beta1=0.9, beta2=0.999, eps=1e-8):
    """Paddle's adamw kernel in float64 (decay first, then Adam), one coefficient per step."""
    p = np.array(p, dtype=np.float64)
    m, v = np.zeros_like(p), np.zeros_like(p)
    b1p, b2p = beta1, beta2
    for g, coeff in zip(grads, coeffs):
        p = p * (1 - lr * coeff)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
        p = p - lr_t * m / (np.sqrt(v) + eps * np.sqrt(1 - b2p))
        b1p, b2p = b1p * beta1, b2p * beta2
    return p


def test_adamw_takes_a_tensor_weight_decay_read_at_every_step(rng):
    w = rng.standard_normal((4,))
    p = eager.create_parameter([4], "float64")
    p.set_value(w)
    coeff = eager.to_tensor(0.2, dtype="float64")
    opt = eager.optimizer.AdamW(0.01, parameters=[p], weight_decay=coeff)
    grads = [rng.standard_normal(4) for _ in range(4)]
    for i, g in enumerate(grads):
        if i == 2:
            coeff.set_value(np.array(0.5))  # Paddle passes the Tensor to every step
        p.grad = eager.to_tensor(g)
        opt.step()
    np.testing.assert_allclose(p.numpy(), _adamw_ref(w, grads, 0.01, [0.2, 0.2, 0.5, 0.5]), rtol=1e-12)


def test_adamw_refuses_a_non_float_tensor_weight_decay():
    p = eager.create_parameter([2], "float32")
    with pytest.raises(TypeError, match="AdamW: argument 'weight_decay' expected a float or a one-element float"):
        eager.optimizer.AdamW(0.01, parameters=[p], weight_decay=eager.to_tensor([1, 2]))


def test_accuracy_returns_numpy_float64_as_paddle():
    m = eager.metric.Accuracy(topk=(1, 2))
    assert m.accumulate() == [0.0, 0.0] and type(m.accumulate()[0]) is float  # nothing counted yet
    pred = eager.to_tensor([[0.1, 0.7, 0.2], [0.5, 0.2, 0.3], [0.2, 0.3, 0.5]])
    correct = m.compute(pred, eager.to_tensor([[2], [0], [1]]))
    batch = m.update(correct)
    assert batch == [pytest.approx(1 / 3), pytest.approx(1.0)]
    assert all(type(v) is np.float64 for v in batch)
    total = m.accumulate()
    assert all(type(v) is np.float64 for v in total)
    single = eager.metric.Accuracy()
    value = single.update(single.compute(pred, eager.to_tensor([[1], [0], [0]])))
    assert type(value) is np.float64 and value == pytest.approx(2 / 3)
    assert type(single.accumulate()) is np.float64


def test_auc_accumulate_is_numpy_float64_and_plain_zero_when_one_class():
    m = eager.metric.Auc(num_thresholds=100)
    assert type(m.accumulate()) is float
    p = np.array([0.1, 0.4, 0.35, 0.8])
    m.update(np.stack([1 - p, p], axis=1), np.array([[0], [0], [1], [1]]))
    value = m.accumulate()
    assert type(value) is np.float64 and value == pytest.approx(0.75)


def test_model_eval_batch_metrics_are_numpy_float64():
    net = nn.Linear(3, 2)
    model = eager.Model(net)
    model.prepare(loss=nn.CrossEntropyLoss(), metrics=eager.metric.Accuracy())
    x = np.ones((4, 3), "float32")
    y = np.array([[0], [1], [0], [1]], "int64")
    loss, acc = model.eval_batch([x], [y])
    assert type(acc[0]) is np.float64  # Paddle 2.6.2's eval_batch example shows numpy.float64


def test_grad_scaler_scale_of_0d_loss_is_shape_1():
    w = eager.create_parameter([3], "float32")
    w.set_value(np.array([1.0, 2.0, 3.0], "float32"))
    loss = (w * w).sum()
    scaler = eager.amp.GradScaler(init_loss_scaling=8.0)
    scaled = scaler.scale(loss)
    assert scaled.shape == [1]  # Paddle 2.6.2: loss * its [1]-shaped scale
    np.testing.assert_allclose(scaled.numpy(), [8.0 * 14.0])
    scaled.backward()
    np.testing.assert_allclose(w.grad.numpy(), 8.0 * 2 * np.array([1.0, 2.0, 3.0]))
    batch_loss = w * 2.0  # a non-0-d loss keeps its shape
    assert scaler.scale(batch_loss).shape == [3]


def test_grad_scaler_prints_paddles_line_when_it_decreases(capsys):
    w = eager.create_parameter([2], "float32")
    opt = eager.optimizer.SGD(0.1, parameters=[w])
    scaler = eager.amp.GradScaler(init_loss_scaling=1024.0, decr_ratio=0.5, decr_every_n_nan_or_inf=1)
    w.grad = eager.to_tensor(np.array([np.inf, 1.0], "float32"))
    before = w.numpy().copy()
    scaler.step(opt)
    scaler.update()
    # Paddle 2.6.2 prints exactly this line
    assert capsys.readouterr().out == "Found inf or nan, current scale is: 1024.0, decrease to: 1024.0*0.5\n"
    np.testing.assert_array_equal(w.numpy(), before)  # the step was skipped
    assert scaler.state_dict()["scale"] == 512.0


def test_regularizers_have_paddles_coeff_attribute_and_str():
    l1, l2 = eager.regularizer.L1Decay(0.1), eager.regularizer.L2Decay(0.2)
    assert (l1._coeff, l2._coeff) == (0.1, 0.2)
    assert str(l1) == "L1Decay, coeff=0.100000" and str(l2) == "L2Decay, coeff=0.200000"  # Paddle 2.6.2


@pytest.mark.parametrize("name", ["SGD", "Momentum", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta",
                                  "RMSProp", "Lamb"])
def test_optimizers_take_a_zero_learning_rate_as_paddle(name):
    w = np.array([1.0, -2.0, 3.0])
    p = eager.create_parameter([3], "float64")
    p.set_value(w)
    opt = getattr(eager.optimizer, name)(learning_rate=0.0, parameters=[p])  # Paddle 2.6.2 builds it
    assert opt.get_lr() == 0.0
    p.grad = eager.to_tensor([0.5, 0.5, -0.5], dtype="float64")
    opt.step()
    np.testing.assert_array_equal(p.numpy(), w)  # a zero step (AdamW's decay is scaled by the rate too)
    opt.set_lr(0.0)
    with pytest.raises(ValueError, match=f"{name}: argument 'learning_rate' expected a finite float >= 0, got -0.1"):
        getattr(eager.optimizer, name)(learning_rate=-0.1, parameters=[p])


@pytest.mark.parametrize("holder", [np.array([0], "int32"), np.array([0], "int64"), np.zeros([3], "int32"),
                                    np.array([0.0], "float32")])
def test_functional_accuracy_leaves_int32_0d_counts_in_correct_and_total(holder):
    pred = eager.to_tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
    label = eager.to_tensor([[1], [1], [1]])
    correct, total = eager.to_tensor(holder), eager.to_tensor(holder.copy())
    acc = eager.metric.accuracy(pred, label, correct=correct, total=total)
    assert acc.item() == pytest.approx(2 / 3)
    # Paddle 2.6.2: both become int32 with shape [] (2 and 3), whatever they were given as
    assert (correct.dtype, correct.shape, correct.item()) == (eager.int32, [], 2)
    assert (total.dtype, total.shape, total.item()) == (eager.int32, [], 3)


def test_summary_counts_are_numpy_int64_as_paddle(capsys):
    net = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    info = eager.summary(net, (1, 4))
    assert info == {"total_params": 4 * 3 + 3 + 3 * 2 + 2, "trainable_params": 23}
    assert all(type(v) is np.int64 for v in info.values())  # Paddle 2.6.2: np.prod sums
    empty = eager.summary(nn.Sequential(nn.ReLU()), (1, 4))
    assert empty == {"total_params": 0, "trainable_params": 0} and all(type(v) is int for v in empty.values())


class _ScalarFields(eager.io.Dataset):
    def __getitem__(self, i):
        return np.array([float(i)], "float32"), np.int64(i), np.float32(i / 2)

    def __len__(self):
        return 3


def test_dataloader_keeps_numpy_scalars_and_gives_lists_as_paddle():
    # batch_size=None: the arrays become Tensors, NumPy scalars stay (Paddle 2.6.2)
    first = next(iter(eager.io.DataLoader(_ScalarFields(), batch_size=None)))
    assert isinstance(first, list) and isinstance(first[0], eager.Tensor)
    assert type(first[1]) is np.int64 and type(first[2]) is np.float32
    # a collate_fn's tuple comes back as a list, its NumPy scalars unchanged
    loader = eager.io.DataLoader(_ScalarFields(), batch_size=2, collate_fn=lambda samples: samples[0])
    batch = next(iter(loader))
    assert type(batch) is list and isinstance(batch[0], eager.Tensor) and type(batch[1]) is np.int64
    # default collation still turns numbers into Tensors
    collated = next(iter(eager.io.DataLoader(_ScalarFields(), batch_size=2)))
    assert all(isinstance(t, eager.Tensor) for t in collated)
    assert collated[1].numpy().tolist() == [0, 1] and collated[1].dtype == eager.int64


@pytest.mark.parametrize("make, want", [
    # rates at epochs 0.5, 1.5, 2.5, 4.25 (Paddle 2.6.2's values, equal to the formulas)
    (lambda: eager.optimizer.lr.StepDecay(0.1, 2), [0.1, 0.1, 0.01, 0.001]),
    (lambda: eager.optimizer.lr.ExponentialDecay(0.1, 0.9), [0.1 * 0.9 ** e for e in (0.5, 1.5, 2.5, 4.25)]),
    (lambda: eager.optimizer.lr.LinearWarmup(0.1, 4, 0.0, 0.1), [0.0125, 0.0375, 0.0625, 0.1]),
    (lambda: eager.optimizer.lr.CosineAnnealingDecay(0.1, 10),
     [0.05 * (1 + np.cos(np.pi * e / 10)) for e in (0.5, 1.5, 2.5, 4.25)]),
    (lambda: eager.optimizer.lr.CosineAnnealingWarmRestarts(0.1, 4),
     [0.05 * (1 + np.cos(np.pi * t / 4)) for t in (0.5, 1.5, 2.5, 0.25)]),
])
def test_schedules_take_fractional_epochs_as_paddle(make, want):
    s = make()
    got = []
    for epoch in (0.5, 1.5, 2.5, 4.25):
        s.step(epoch)
        got.append(s())
    np.testing.assert_allclose(got, want, rtol=1e-12)
    resumed = make()
    resumed.set_state_dict(s.state_dict())  # a fractional last_epoch (or T_cur) loads back
    assert resumed() == s() and resumed.last_epoch == s.last_epoch
    with pytest.raises(TypeError, match="step: argument 'epoch' expected a finite float, got 'a'"):
        s.step("a")


def test_metric_bad_values_are_value_errors():
    # Paddle 2.6.2 takes these and computes nothing meaningful; eager refuses them, as a
    # ValueError (a value out of range), keeping TypeError for the wrong kind
    with pytest.raises(ValueError, match="Auc: argument 'num_thresholds' expected a positive int, got 0"):
        eager.metric.Auc(num_thresholds=0)
    with pytest.raises(TypeError, match="Auc: argument 'num_thresholds' expected a positive int, got 2.5"):
        eager.metric.Auc(num_thresholds=2.5)
    with pytest.raises(ValueError, match=r"Accuracy: argument 'topk' expected .* got \(0,\)"):
        eager.metric.Accuracy(topk=(0,))


class _Ones(eager.io.Dataset):
    def __getitem__(self, i):
        return np.ones(4, "float32"), np.array([1])

    def __len__(self):
        return 4


def test_model_without_loss_or_metrics_evaluates_to_nothing_as_paddle():
    model = eager.Model(nn.Linear(4, 3))
    model.prepare()
    # Paddle 2.6.2: eval_batch gives [] and evaluate {} (eager raised RuntimeError)
    assert model.eval_batch([np.ones((2, 4), "float32")], [np.ones((2, 1), "int64")]) == []
    assert model.evaluate(_Ones(), batch_size=2, verbose=0) == {}


def test_fit_progress_logger_prints_paddles_note_once(capsys):
    model = eager.Model(nn.Linear(4, 3))
    model.prepare(eager.optimizer.SGD(0.1, parameters=model.parameters()), nn.CrossEntropyLoss())
    model.fit(_Ones(), batch_size=2, epochs=2, verbose=2)
    lines = capsys.readouterr().out.splitlines()
    # Paddle 2.6.2's ProgBarLogger prints this first, once per fit
    assert lines[0] == ("The loss value printed in the log is the current step, and the metric is the "
                        "average value of previous steps.")
    assert lines[1] == "Epoch 1/2" and sum(line.startswith("The loss value") for line in lines) == 1
    model.fit(_Ones(), batch_size=2, epochs=1, verbose=0)
    assert capsys.readouterr().out == ""


def test_optimizer_arguments_wrong_kind_is_type_error_bad_value_is_value_error():
    p = eager.create_parameter([2], "float32")
    with pytest.raises(TypeError, match="Momentum: argument 'momentum' expected a finite float >= 0, got 'a'"):
        eager.optimizer.Momentum(0.1, momentum="a", parameters=[p])
    with pytest.raises(ValueError, match="Momentum: argument 'momentum' expected a finite float >= 0, got -0.5"):
        eager.optimizer.Momentum(0.1, momentum=-0.5, parameters=[p])
    with pytest.raises(ValueError, match="AdamW: argument 'weight_decay' expected a finite float >= 0, got -0.1"):
        eager.optimizer.AdamW(0.1, weight_decay=-0.1, parameters=[p])
    with pytest.raises(TypeError, match="L1Decay: argument 'coeff' expected a non-negative finite float, got 'a'"):
        eager.regularizer.L1Decay("a")
    with pytest.raises(ValueError, match="L2Decay: argument 'coeff' expected a non-negative finite float, got -0.1"):
        eager.regularizer.L2Decay(-0.1)


def test_adamax_keeps_paddles_positional_order_and_concat_dataset_cumsum():
    p = eager.create_parameter([2], "float32")
    # Paddle 2.6.2: Adamax(learning_rate, beta1, beta2, epsilon, parameters, weight_decay, grad_clip, name)
    opt = eager.optimizer.Adamax(0.1, 0.9, 0.999, 1e-8, [p], None, None, "adamax_opt")
    assert opt._name == "adamax_opt" and opt._multi_precision is False
    assert eager.io.ConcatDataset.cumsum([[1, 2], [3], [4, 5, 6]]) == [2, 3, 6]  # Paddle's static helper


def test_default_collate_leaves_strings_as_paddle():
    collate = eager.io.dataloader.collate.default_collate_fn
    # Paddle 2.6.2: a string field of tuple/list samples is the tuple zip gives; under a dict a list
    assert collate([(np.float32(1), "a"), (np.float32(2), "b")])[1] == ("a", "b")
    assert collate([{"k": "a"}, {"k": "b"}])["k"] == ["a", "b"]
    assert collate(["a", "b"]) == ["a", "b"]
