"""Regression cases of the hapi sweep (Model, callbacks, summary), checked
against Paddle 2.6's python/paddle/hapi/model.py, callbacks.py and
model_summary.py.

Found and fixed:
- EarlyStopping stopped when wait_epoch > patience; Paddle stops at
  wait_epoch >= patience (one evaluation earlier; patience=0 stops after the
  first evaluation).
- ModelCheckpoint saved after epochs save_freq-1, 2*save_freq-1, ...; Paddle
  saves after epochs 0, save_freq, 2*save_freq, ... (epoch % save_freq == 0).
- Model.load(skip_mismatch=True) loaded the saved optimizer state for the
  skipped parameters and failed in set_state_dict; Paddle leaves the optimizer
  state unloaded when a parameter is skipped.
- summary(net, InputSpec(...)) and a list holding InputSpecs raised TypeError;
  summary left out a batch norm's running mean and variance, which Paddle
  counts as non-trainable parameters (in the table and in flops' Total Params).
- Model.save/load dropped the GradScaler state of a mixed precision model
  (Paddle's path.pdscaler).
- prepare(amp_configs={}) turned on 'O1'; Paddle takes an empty dict as off.
- Bool arguments (fit's drop_last/shuffle, train_batch's update, predict's
  stack_outputs, save's training, EarlyStopping's save_best_model,
  LRScheduler's by_step/by_epoch) were read by truthiness, or refused under
  DataLoader's name; *_batch(None) died in forward(); a bad callback was
  reported as 'Model.train'/'Model.eval'; a fit refused for a bad callback
  left its num_iters set, cutting the next predict short.
- ProgBarLogger verbose=2 wrote only the end line; Paddle writes one every
  log_freq steps too. verbose=3 (Paddle's timing columns) was refused.
- predict(stack_outputs=True) on batches np.vstack cannot join raised NumPy's
  error; it now names the output and its batch shapes.

Checked and agreeing (no change): fit's hook order, log keys, steps per epoch
with drop_last / accumulate_grad_batches / num_iters and the parameters after
fit against a hand-written loop (bitwise), ReduceLROnPlateau's learning rates,
summary's parameter counts and flops on random conv nets.
"""
import math
import os

import numpy as np
import pytest

import eager
from eager import nn
from eager.callbacks import Callback, EarlyStopping, LRScheduler, ModelCheckpoint
from eager.static import InputSpec


def data(n=6, seed=0):
    rng = np.random.RandomState(seed)
    return rng.rand(n, 4).astype("float32"), rng.randint(0, 3, (n, 1)).astype("int64")


def model_of(seed=0, out=3, optimizer="adam", **prepare):
    eager.seed(seed)
    net = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, out))
    model = eager.Model(net)
    opt = (eager.optimizer.Adam(0.01, parameters=net.parameters()) if optimizer == "adam"
           else eager.optimizer.SGD(0.1, parameters=net.parameters()))
    model.prepare(opt, nn.CrossEntropyLoss(), **prepare)
    return model


def params_of(model):
    return [p.numpy().copy() for p in model.parameters()]


# -- EarlyStopping / ModelCheckpoint: Paddle's counting ------------------------
def paddle_early_stop(sequence, patience, maximize, min_delta=0.0, baseline=None):
    """Paddle 2.6 EarlyStopping.on_eval_end, written out: the index of the
    evaluation after which training stops, or None."""
    best = baseline if baseline is not None else (-np.inf if maximize else np.inf)
    wait = 0
    for i, current in enumerate(sequence):
        better = current - min_delta > best if maximize else current + min_delta < best
        if better:
            best, wait = current, 0
        else:
            wait += 1
        if wait >= patience:
            return i
    return None


class _Holder:
    stop_training = False


@pytest.mark.parametrize("patience", [0, 1, 2, 3])
@pytest.mark.parametrize("monitor", ["loss", "acc"])
def test_early_stopping_counts_patience_as_paddle(patience, monitor):
    sequence = [0.5, 0.6, 0.55, 0.58, 0.59, 0.9, 0.3, 0.2, 0.2, 0.1]
    es = EarlyStopping(monitor=monitor, patience=patience, verbose=0, save_best_model=False)
    es.set_model(_Holder())
    es.on_train_begin()
    stopped = None
    for i, value in enumerate(sequence):
        es.on_eval_end({monitor: [value]})
        if es.model.stop_training:
            stopped = i
            break
    assert stopped == paddle_early_stop(sequence, patience, maximize=monitor == "acc")


def test_early_stopping_in_fit_stops_after_patience_bad_evaluations(tmp_path):
    model = model_of(optimizer="sgd")
    model._optimizer.set_lr(1e-30)  # the evaluation loss never improves after epoch 0
    x, y = data()
    epochs = []

    class Epochs(Callback):
        def on_epoch_begin(self, epoch, logs=None):
            epochs.append(epoch)

    es = EarlyStopping(monitor="loss", patience=2, verbose=0, save_best_model=True)
    model.fit(eager.io.TensorDataset([x, y]), eager.io.TensorDataset([x, y]), batch_size=3, epochs=10,
              verbose=0, save_dir=str(tmp_path), callbacks=[es, Epochs()])
    assert epochs == [0, 1, 2]  # 0 improves on inf; 1 and 2 do not: wait 2 >= patience 2
    assert (tmp_path / "best_model.pdparams").exists()


def test_model_checkpoint_saves_after_epoch_0_and_every_save_freq(tmp_path):
    model = model_of()
    x, y = data()
    model.fit(eager.io.TensorDataset([x, y]), batch_size=3, epochs=5, verbose=0,
              callbacks=[ModelCheckpoint(save_freq=2, save_dir=str(tmp_path))])
    saved = sorted(name[:-len(".pdparams")] for name in os.listdir(tmp_path) if name.endswith(".pdparams"))
    assert saved == sorted([str(e) for e in range(5) if e % 2 == 0] + ["final"])  # 0, 2, 4, final


# -- Model.load ------------------------------------------------------------------
def test_load_skip_mismatch_leaves_the_optimizer_state(tmp_path):
    x, y = data()
    saved = model_of(out=3)
    saved.train_batch([x], [y])
    saved.save(str(tmp_path / "ckpt"))
    other = model_of(seed=1, out=5)  # the last Linear has another shape
    other.train_batch([x], [y])
    opt_before = {k: np.array(v.numpy() if hasattr(v, "numpy") else v)
                  for k, v in other._optimizer.state_dict().items()}
    last_before = [p.numpy().copy() for p in other.network[2].parameters()]
    with pytest.warns(UserWarning, match="skipping '2.weight' has shape"):
        other.load(str(tmp_path / "ckpt"), skip_mismatch=True)
    # the matching first Linear is loaded, the mismatched one kept, the optimizer untouched
    np.testing.assert_array_equal(other.network[0].weight.numpy(), saved.network[0].weight.numpy())
    for p, before in zip(other.network[2].parameters(), last_before):
        np.testing.assert_array_equal(p.numpy(), before)
    opt_after = other._optimizer.state_dict()
    assert sorted(opt_after) == sorted(opt_before)
    for key, value in opt_after.items():
        np.testing.assert_array_equal(np.array(value.numpy() if hasattr(value, "numpy") else value),
                                      opt_before[key])


def test_load_without_skip_mismatch_still_refuses(tmp_path):
    x, y = data()
    saved = model_of(out=3)
    saved.save(str(tmp_path / "ckpt"))
    other = model_of(seed=1, out=5)
    before = params_of(other)
    with pytest.raises(ValueError, match=r"Model.load: '2.weight' has shape \[5, 3\] in the file"):
        other.load(str(tmp_path / "ckpt"))
    for a, b in zip(params_of(other), before):
        np.testing.assert_array_equal(a, b)


def test_save_and_load_carry_the_grad_scaler_state(tmp_path):
    x, y = data()
    amp = {"level": "O1", "init_loss_scaling": 1024.0, "incr_every_n_steps": 1}
    model = model_of(optimizer="sgd", amp_configs=amp)
    for _ in range(3):
        model.train_batch([x], [y])
    state = model._scaler.state_dict()
    assert state["scale"] == 1024.0 * 2 ** 3  # one doubling per finite step
    model.save(str(tmp_path / "ckpt"))
    assert (tmp_path / "ckpt.pdscaler").exists()
    resumed = model_of(seed=1, optimizer="sgd", amp_configs="O1")
    resumed.train_batch([x], [y])
    resumed.load(str(tmp_path / "ckpt"))
    assert resumed._scaler.state_dict() == state


def test_save_without_mixed_precision_writes_no_scaler_file(tmp_path):
    model = model_of()
    model.train_batch(*data())
    model.save(str(tmp_path / "ckpt"))
    assert sorted(os.listdir(tmp_path)) == ["ckpt.pdopt", "ckpt.pdparams"]


def test_empty_amp_configs_is_no_mixed_precision():
    model = model_of(amp_configs={})
    assert model._amp_level == "O0"
    model.train_batch(*data())
    assert model._scaler is None


# -- summary -----------------------------------------------------------------------
def test_summary_takes_input_specs(capsys):
    class Two(nn.Layer):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 2)
            self.b = nn.Linear(3, 2)

        def forward(self, x, y):
            return self.a(x) + self.b(y)

    net = Two()
    by_hand = 4 * 2 + 2 + 3 * 2 + 2
    assert eager.summary(net, [InputSpec([None, 4], "float32", "x"), (1, 3)]) == \
        {"total_params": by_hand, "trainable_params": by_hand}
    single = nn.Linear(4, 3)
    assert eager.summary(single, InputSpec([None, 4], "float32", "x")) == \
        {"total_params": 15, "trainable_params": 15}
    assert "[[1, 4]]" in capsys.readouterr().out  # the None batch size shows as 1, as Paddle


# -- argument checks -------------------------------------------------------------------
@pytest.mark.parametrize("arg", ["drop_last", "shuffle"])
@pytest.mark.parametrize("value", [1, "yes", None])
def test_fit_bool_arguments(arg, value):
    model = model_of()
    before = params_of(model)
    with pytest.raises(TypeError, match=f"Model.fit: argument '{arg}' expected a bool"):
        model.fit(eager.io.TensorDataset(list(data())), verbose=0, **{arg: value})
    for a, b in zip(params_of(model), before):
        np.testing.assert_array_equal(a, b)


def test_train_batch_update_must_be_a_bool():
    model = model_of()
    before = params_of(model)
    with pytest.raises(TypeError, match="Model.train_batch: argument 'update' expected a bool"):
        model.train_batch(*data(), update="no")
    for a, b in zip(params_of(model), before):  # nothing ran
        np.testing.assert_array_equal(a, b)
    assert all(p.grad is None for p in model.parameters())


def test_other_bool_arguments(tmp_path):
    model = model_of()
    with pytest.raises(TypeError, match="Model.predict: argument 'stack_outputs' expected a bool"):
        model.predict(eager.io.TensorDataset(list(data())), stack_outputs=1, verbose=0)
    with pytest.raises(TypeError, match="Model.save: argument 'training' expected a bool"):
        model.save(str(tmp_path / "m"), training="no")
    assert os.listdir(tmp_path) == []
    with pytest.raises(TypeError, match="EarlyStopping: argument 'save_best_model' expected a bool"):
        EarlyStopping(save_best_model="no")
    with pytest.raises(TypeError, match="LRScheduler: argument 'by_epoch' expected a bool"):
        LRScheduler(by_step=False, by_epoch=1)


@pytest.mark.parametrize("method", ["train_batch", "eval_batch", "predict_batch"])
def test_batch_methods_refuse_none_inputs(method):
    model = model_of()
    with pytest.raises(TypeError, match=f"Model.{method}: argument 'inputs' expected a Tensor"):
        getattr(model, method)(None)


def test_a_bad_callback_names_the_method():
    model = model_of()
    ds = eager.io.TensorDataset(list(data()))
    with pytest.raises(TypeError, match="Model.fit: argument 'callbacks' expected Callback instances, got int"):
        model.fit(ds, verbose=0, callbacks=[1])
    with pytest.raises(TypeError, match="Model.evaluate: argument 'callbacks'"):
        model.evaluate(ds, verbose=0, callbacks="x")
    with pytest.raises(TypeError, match="Model.predict: argument 'callbacks'"):
        model.predict(ds, verbose=0, callbacks=object())


def test_a_refused_fit_leaves_no_num_iters_behind():
    model = model_of()
    ds = eager.io.TensorDataset(list(data()))
    with pytest.raises(TypeError, match="Model.fit: argument 'callbacks'"):
        model.fit(ds, verbose=0, num_iters=1, callbacks=[1])
    (outs,) = model.predict(ds, batch_size=2, verbose=0)
    assert len(outs) == 3  # all three batches, not one


# -- fit's loop against Paddle's, written out -------------------------------------------
class _Recorder(Callback):
    def __init__(self):
        super().__init__()
        self.calls = []

    def on_epoch_begin(self, epoch, logs=None):
        self.calls.append(("epoch_begin", epoch))

    def on_train_batch_end(self, step, logs=None):
        self.calls.append(("train_batch_end", step, sorted(logs)))

    def on_eval_end(self, logs=None):
        self.calls.append(("eval_end",))


@pytest.mark.parametrize("n, bs, epochs, drop_last, accumulate, num_iters, eval_freq", [
    (7, 3, 2, False, 1, None, 1), (7, 3, 2, True, 2, None, 2), (8, 3, 3, False, 2, 4, 1),
    (5, 5, 2, False, 3, None, 1), (9, 2, 1, True, 3, 7, 1)])
def test_fit_steps_hooks_and_parameters_as_paddle(n, bs, epochs, drop_last, accumulate, num_iters, eval_freq):
    x, y = data(n, seed=n)
    model = model_of(optimizer="sgd", metrics=eager.metric.Accuracy())
    init = params_of(model)
    rec = _Recorder()
    ds = eager.io.TensorDataset([x, y])
    model.fit(ds, ds, batch_size=bs, epochs=epochs, eval_freq=eval_freq, verbose=0, drop_last=drop_last,
              shuffle=False, callbacks=[rec], accumulate_grad_batches=accumulate, num_iters=num_iters)
    steps = n // bs if drop_last else math.ceil(n / bs)
    run_epochs = epochs if num_iters is None else num_iters // steps + 1
    expected, left = [], num_iters
    for epoch in range(run_epochs):
        expected.append(("epoch_begin", epoch))
        stop = False
        for step in range(steps):
            expected.append(("train_batch_end", step, ["acc", "batch_size", "loss", "step"]))
            if left is not None:
                left -= 1
                if left <= 0:
                    stop = True
                    break
        if epoch % eval_freq == 0:
            expected.append(("eval_end",))
        if stop:
            break
    assert rec.calls == expected
    # the same steps by hand: gradients summed over `accumulate` batches, an update at an epoch's end
    eager.seed(0)
    net = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 3))
    for p, v in zip(net.parameters(), init):
        p.set_value(v)
    opt = eager.optimizer.SGD(0.1, parameters=net.parameters())
    last = steps if num_iters is None else min(steps, num_iters)
    done, total = 0, steps * epochs if num_iters is None else num_iters
    for epoch in range(run_epochs):
        for step in range(steps):
            if done == total:
                break
            loss = nn.functional.cross_entropy(net(eager.to_tensor(x[step * bs:(step + 1) * bs])),
                                               eager.to_tensor(y[step * bs:(step + 1) * bs]))
            loss.backward()
            if (step + 1) % accumulate == 0 or step + 1 == last:
                opt.step()
                opt.clear_grad()
            done += 1
    for a, b in zip(model.parameters(), net.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


# -- output and predict ---------------------------------------------------------------
def _step_lines(capsys, verbose):
    """A model, its dataset of 8 samples, and the 'step' lines of one fit with eval data
    at batch size 2, log_freq 2."""
    x, y = data(8)
    model = model_of(optimizer="sgd")
    ds = eager.io.TensorDataset([x, y])
    capsys.readouterr()
    model.fit(ds, ds, batch_size=2, epochs=1, verbose=verbose, log_freq=2)
    return model, ds, [line for line in capsys.readouterr().out.splitlines() if line.startswith("step")]


def test_verbose_2_prints_a_line_every_log_freq_steps(capsys):
    model, ds, lines = _step_lines(capsys, 2)
    # Paddle's ProgBarLogger: an update every log_freq steps before the last, then the epoch's end
    assert [line.split(" - ")[0] for line in lines] == ["step 2/4", "step 4/4"] * 2
    capsys.readouterr()
    model.fit(ds, batch_size=2, epochs=1, verbose=2, log_freq=3)
    assert [line.split(" - ")[0] for line in capsys.readouterr().out.splitlines()
            if line.startswith("step")] == ["step 3/4", "step 4/4"]


def test_predict_stack_outputs_is_vstack_with_a_clear_error():
    class Two(nn.Layer):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 3)

        def forward(self, x):
            out = self.lin(x)
            return out, out.sum(-1)

    x, y = data(7)
    model = eager.Model(Two())
    model.prepare()
    logits, sums = model.predict(eager.io.TensorDataset([x[:6], y[:6]]), batch_size=3, stack_outputs=True,
                                 verbose=0)
    expected = model.network.lin(eager.to_tensor(x[:6])).numpy()
    np.testing.assert_allclose(logits, expected, rtol=1e-6)
    assert sums.shape == (2, 3)  # np.vstack of two [3] batches, as Paddle
    np.testing.assert_allclose(sums.reshape(-1), expected.sum(-1), rtol=1e-5)
    with pytest.raises(ValueError, match=r"Model.predict: stack_outputs=True cannot stack output 1: its "
                                         r"batches have shapes \[\[3\], \[3\], \[1\]\]"):
        model.predict(eager.io.TensorDataset([x, y]), batch_size=3, stack_outputs=True, verbose=0)


def test_summary_counts_batch_norm_statistics_as_paddle(capsys):
    # Paddle's BatchNorm holds _mean and _variance as parameters (trainable=False),
    # so its summary counts 4 * C per batch norm, 2 * C of them trainable.
    net = nn.Sequential(nn.Conv2D(3, 8, 3), nn.BatchNorm2D(8), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 3 * 3, 2),
                        nn.BatchNorm1D(2))
    conv, linear = 8 * 3 * 3 * 3 + 8, 8 * 3 * 3 * 2 + 2
    info = eager.summary(net, (2, 3, 5, 5))
    assert info == {"total_params": conv + 4 * 8 + linear + 4 * 2,
                    "trainable_params": conv + 2 * 8 + linear + 2 * 2}
    out = capsys.readouterr().out
    assert "Non-trainable params: 20" in out  # the running statistics, 2 * (8 + 2)
    assert [line.split()[-1] for line in out.splitlines() if line.strip().startswith("BatchNorm")] == ["32", "8"]


def test_flops_total_params_count_batch_norm_statistics(capsys):
    net = nn.Sequential(nn.Conv2D(3, 2, 1), nn.BatchNorm2D(2))
    # conv: 2*4*4 outputs * (3 inputs + bias); batch norm: 2 per element (Paddle's count_bn)
    assert eager.flops(net, [1, 3, 4, 4]) == 2 * 4 * 4 * (3 + 1) + 2 * 2 * 4 * 4
    assert "Total Params: 16" in capsys.readouterr().out  # conv 6 + 2; batch norm 4 * 2, as Paddle's


def test_verbose_3_adds_paddles_timing_columns(capsys):
    model, ds, lines = _step_lines(capsys, 3)
    assert [line.split(" - ")[0] for line in lines] == ["step 2/4", "step 4/4"] * 2
    for line in lines:
        fields = line.split(" - ")
        assert [f.split(":")[0] for f in fields[1:5]] == ["loss", "avg_reader_cost", "avg_batch_cost", "ips"]
        assert fields[2].endswith(" sec") and fields[4].endswith(" samples/sec")
        assert float(fields[4].split()[1]) > 0
    with pytest.raises(ValueError, match="Model.fit: argument 'verbose' expected 0 .* or 3"):
        model.fit(ds, verbose=4)
