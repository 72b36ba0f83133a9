"""eager.Model (Paddle's paddle.Model): loops against hand-written ones,
callbacks' order and decisions, checkpoints, progress output, bad input."""
import io
import os

import numpy as np
import pytest

import eager
from eager import nn
from eager.callbacks import Callback, EarlyStopping, LRScheduler, ModelCheckpoint, ProgBarLogger, \
    ReduceLROnPlateau
from eager.hapi.progressbar import ProgressBar, format_values


def regression_data(n=64, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, 3).astype("float32")
    y = (x @ np.array([[1.0], [2.0], [-1.0]], "float32") + 0.5).astype("float32")
    return x, y


def classification_data(n=30, seed=1):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 4).astype("float32")
    y = rng.randint(0, 3, size=(n, 1)).astype("int64")
    return x, y


def classifier(seed=0):
    eager.seed(seed)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def params_of(net):
    return [p.numpy().copy() for p in net.parameters()]


def test_fit_converges_on_linear_regression():
    x, y = regression_data()
    eager.seed(0)
    net = nn.Linear(3, 1)
    model = eager.Model(net)
    model.prepare(eager.optimizer.SGD(0.3, parameters=model.parameters()), nn.MSELoss())
    model.fit(eager.io.TensorDataset([x, y]), batch_size=16, epochs=40, verbose=0)
    np.testing.assert_allclose(net.weight.numpy().ravel(), [1.0, 2.0, -1.0], atol=0.05)
    np.testing.assert_allclose(net.bias.numpy(), [0.5], atol=0.05)
    result = model.evaluate(eager.io.TensorDataset([x, y]), batch_size=64, verbose=0)
    assert set(result) == {"loss"} and result["loss"][0] < 1e-3


def test_train_batch_is_one_hand_written_step():
    x, y = classification_data()
    net_a, net_b = classifier(), classifier()
    model = eager.Model(net_a)
    model.prepare(eager.optimizer.Adam(0.01, parameters=net_a.parameters()), nn.CrossEntropyLoss())
    opt_b = eager.optimizer.Adam(0.01, parameters=net_b.parameters())
    for _ in range(3):
        losses = model.train_batch([x], [y])
        loss = nn.functional.cross_entropy(net_b(eager.to_tensor(x)), eager.to_tensor(y))
        loss.backward()
        opt_b.step()
        opt_b.clear_grad()
        assert isinstance(losses, list) and len(losses) == 1 and isinstance(losses[0], np.ndarray)
        assert losses[0] == loss.numpy()
    for a, b in zip(params_of(net_a), params_of(net_b)):
        np.testing.assert_array_equal(a, b)


def test_batch_methods_return_paddles_structures():
    x, y = classification_data()
    net = classifier()
    model = eager.Model(net)
    model.prepare(eager.optimizer.SGD(0.1, parameters=net.parameters()), nn.CrossEntropyLoss(),
                  eager.metric.Accuracy())
    losses, metrics = model.train_batch(x, y)  # single arrays are accepted as well as lists
    assert len(losses) == 1 and len(metrics) == 1 and isinstance(metrics[0], float)
    losses, metrics = model.eval_batch([eager.to_tensor(x)], [eager.to_tensor(y)])
    logits = net(eager.to_tensor(x)).numpy()
    assert metrics[0] == pytest.approx(np.mean(logits.argmax(1) == y[:, 0]))
    outs = model.predict_batch([x])
    assert isinstance(outs, list) and len(outs) == 1
    np.testing.assert_allclose(outs[0], logits, rtol=1e-6)
    only_metrics = eager.Model(net)
    only_metrics.prepare(metrics=eager.metric.Accuracy())
    assert only_metrics.eval_batch([x], [y]) == [pytest.approx(metrics[0])]


def test_evaluate_equals_a_hand_loop():
    x, y = classification_data(n=30)
    net = classifier()
    model = eager.Model(net)
    model.prepare(eager.optimizer.SGD(0.1, parameters=net.parameters()), nn.CrossEntropyLoss(),
                  eager.metric.Accuracy(topk=(1, 2)))
    result = model.evaluate(eager.io.TensorDataset([x, y]), batch_size=7, verbose=0)
    loss_sum, top1, top2 = 0.0, 0, 0
    for start in range(0, 30, 7):
        xb, yb = x[start:start + 7], y[start:start + 7]
        logits = net(eager.to_tensor(xb)).numpy()
        shifted = logits - logits.max(1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
        loss_sum += -logp[np.arange(len(yb)), yb[:, 0]].mean() * len(yb)
        order = np.argsort(-logits, axis=1)
        top1 += (order[:, 0] == yb[:, 0]).sum()
        top2 += (order[:, :2] == yb).any(1).sum()
    assert list(result) == ["loss", "acc_top1", "acc_top2"]
    assert result["loss"][0] == pytest.approx(loss_sum / 30, rel=1e-5)
    assert result["acc_top1"] == pytest.approx(top1 / 30)
    assert result["acc_top2"] == pytest.approx(top2 / 30)


def test_predict_batches_and_stacks():
    x, y = classification_data(n=10)
    net = classifier()
    model = eager.Model(net)
    model.prepare()
    loader = eager.io.DataLoader(eager.io.TensorDataset([x, y]), batch_size=4)
    per_batch = model.predict(loader, verbose=0)
    assert len(per_batch) == 1 and [b.shape for b in per_batch[0]] == [(4, 3), (4, 3), (2, 3)]
    (stacked,) = model.predict(eager.io.TensorDataset([x, y]), batch_size=3, stack_outputs=True, verbose=0)
    np.testing.assert_allclose(stacked, net(eager.to_tensor(x)).numpy(), rtol=1e-6)


class Recorder(Callback):
    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        if name.startswith("on_"):
            calls = object.__getattribute__(self, "calls")
            return lambda *args: calls.append((name,) + tuple(a for a in args[:1] if isinstance(a, int)))
        return object.__getattribute__(self, name)


def test_callbacks_are_called_in_order():
    x, y = regression_data(n=6)
    model = eager.Model(nn.Linear(3, 1))
    model.prepare(eager.optimizer.SGD(0.1, parameters=model.parameters()), nn.MSELoss())
    rec = Recorder()
    model.fit(eager.io.TensorDataset([x, y]), eager.io.TensorDataset([x, y]), batch_size=3, epochs=2,
              eval_freq=2, verbose=0, callbacks=[rec])
    train_epoch = lambda e: [("on_epoch_begin", e), ("on_train_batch_begin", 0), ("on_train_batch_end", 0),
                             ("on_train_batch_begin", 1), ("on_train_batch_end", 1), ("on_epoch_end", e)]
    evaluation = [("on_eval_begin",), ("on_eval_batch_begin", 0), ("on_eval_batch_end", 0),
                  ("on_eval_batch_begin", 1), ("on_eval_batch_end", 1), ("on_eval_end",)]
    # eval_freq=2 evaluates after epochs 0, 2, 4, ...
    assert rec.calls == [("on_train_begin",)] + train_epoch(0) + evaluation + train_epoch(1) + \
        [("on_train_end",)]
    assert rec.params["epochs"] == 2 and rec.params["steps"] == 2 and rec.params["metrics"] == ["loss"]
    rec.calls.clear()
    model.predict(eager.io.TensorDataset([x]), batch_size=6, verbose=0, callbacks=[rec])
    assert rec.calls == [("on_predict_begin",), ("on_predict_batch_begin", 0), ("on_predict_batch_end", 0),
                         ("on_predict_end",)]


def test_stop_training_and_num_iters():
    x, y = regression_data(n=8)
    model = eager.Model(nn.Linear(3, 1))
    model.prepare(eager.optimizer.SGD(0.1, parameters=model.parameters()), nn.MSELoss())

    class StopAfter(Callback):
        def __init__(self):
            super().__init__()
            self.epochs = 0
            self.batches = 0

        def on_train_batch_end(self, step, logs=None):
            self.batches += 1

        def on_epoch_end(self, epoch, logs=None):
            self.epochs += 1
            if epoch == 1:
                self.model.stop_training = True

    stop = StopAfter()
    model.fit(eager.io.TensorDataset([x, y]), batch_size=2, epochs=10, verbose=0, callbacks=[stop])
    assert stop.epochs == 2 and stop.batches == 8
    counted = StopAfter()
    counted.on_epoch_end = lambda epoch, logs=None: None
    model.fit(eager.io.TensorDataset([x, y]), batch_size=2, epochs=10, verbose=0, num_iters=5,
              callbacks=[counted])
    assert counted.batches == 5
    assert model.stop_training


def frozen_model(metrics=None):
    """A model whose evaluation loss never changes (the step is far below float32's resolution)."""
    x, y = classification_data(n=12)
    net = classifier()
    model = eager.Model(net)
    model.prepare(eager.optimizer.SGD(1e-30, parameters=net.parameters()), nn.CrossEntropyLoss(), metrics)
    return model, eager.io.TensorDataset([x, y])


def test_early_stopping_on_a_scripted_sequence():
    class Holder:
        stop_training = False

    es = EarlyStopping(monitor="acc", mode="auto", patience=2, verbose=0, save_best_model=False)
    es.set_model(Holder())
    es.on_train_begin()
    sequence = [0.5, 0.6, 0.55, 0.58, 0.59, 0.9]
    stopped_at = None
    for i, value in enumerate(sequence):
        es.on_eval_end({"acc": value, "loss": [1.0]})
        if es.model.stop_training:
            stopped_at = i
            break
    # 'acc' in the name: higher is better; 0.55 and 0.58 make two evaluations without
    # improvement, which reaches patience 2 (Paddle's wait_epoch >= patience)
    assert stopped_at == 3 and es.best_value == 0.6
    es = EarlyStopping(monitor="loss", patience=0, min_delta=0.1, baseline=1.0, verbose=0)
    es.set_model(Holder())
    es.on_train_begin()
    es.on_eval_end({"loss": [0.95]})  # better than the baseline, but by less than min_delta
    assert es.model.stop_training


def test_early_stopping_stops_fit_and_saves_the_best_model(tmp_path, capsys):
    model, data = frozen_model()
    rec = Recorder()
    es = EarlyStopping(monitor="loss", patience=1, verbose=1)
    model.fit(data, data, batch_size=6, epochs=10, verbose=0, save_dir=str(tmp_path), callbacks=[es, rec])
    epochs = [c for c in rec.calls if c[0] == "on_epoch_begin"]
    assert len(epochs) == 2  # epoch 0 improves on inf, epoch 1 does not: stop (wait 1 >= patience 1)
    assert (tmp_path / "best_model.pdparams").exists() and (tmp_path / "final.pdparams").exists()
    assert "Epoch 2: Early stopping." in capsys.readouterr().out


def test_model_checkpoint_files_and_reload(tmp_path):
    x, y = classification_data()
    net = classifier()
    model = eager.Model(net)
    model.prepare(eager.optimizer.Adam(0.01, parameters=net.parameters()), nn.CrossEntropyLoss())
    model.fit(eager.io.TensorDataset([x, y]), batch_size=10, epochs=3, verbose=0,
              callbacks=[ModelCheckpoint(save_freq=2, save_dir=str(tmp_path))])
    # Paddle's rule: after epochs 0, save_freq, 2 * save_freq, ...
    assert sorted(os.listdir(tmp_path)) == ["0.pdopt", "0.pdparams", "2.pdopt", "2.pdparams", "final.pdopt",
                                            "final.pdparams"]
    fresh = eager.Model(classifier(seed=5))
    fresh.load(str(tmp_path / "final"))
    np.testing.assert_array_equal(fresh.predict_batch([x])[0], model.predict_batch([x])[0])


def test_save_load_round_trip_continues_bit_for_bit(tmp_path):
    x, y = classification_data()
    batches = [(x[i:i + 10], y[i:i + 10]) for i in range(0, 30, 10)]

    def build(seed):
        net = classifier(seed)
        sched = eager.optimizer.lr.StepDecay(0.05, step_size=2, gamma=0.5)
        model = eager.Model(net)
        model.prepare(eager.optimizer.Adam(sched, parameters=net.parameters()), nn.CrossEntropyLoss())
        return model, sched

    a, sched_a = build(0)
    for xb, yb in batches:
        a.train_batch([xb], [yb])
        sched_a.step()
    a.save(str(tmp_path / "sub" / "ckpt"))
    assert (tmp_path / "sub" / "ckpt.pdparams").exists() and (tmp_path / "sub" / "ckpt.pdopt").exists()
    b, sched_b = build(7)
    b.load(str(tmp_path / "sub" / "ckpt.pdparams"))  # the extension is accepted
    assert sched_b.last_epoch == sched_a.last_epoch
    for xb, yb in batches:
        la, lb = a.train_batch([xb], [yb]), b.train_batch([xb], [yb])
        assert la[0] == lb[0]
        sched_a.step(), sched_b.step()
    for pa, pb in zip(params_of(a.network), params_of(b.network)):
        np.testing.assert_array_equal(pa, pb)
    c, _ = build(7)
    c.load(str(tmp_path / "sub" / "ckpt"), reset_optimizer=True)
    assert c._optimizer.state_dict()["@step"] == 0


def test_load_mismatch_raises_or_skips_and_leaves_the_model_alone(tmp_path):
    x, _ = classification_data()
    small = eager.Model(classifier())
    small.save(str(tmp_path / "small"))
    eager.seed(3)
    other = eager.Model(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 5)))
    before = params_of(other.network)
    with pytest.raises(ValueError, match="'2.weight' has shape"):
        other.load(str(tmp_path / "small"))
    for p, q in zip(before, params_of(other.network)):
        np.testing.assert_array_equal(p, q)
    with pytest.warns(UserWarning, match="skipping"):
        other.load(str(tmp_path / "small"), skip_mismatch=True)
    np.testing.assert_array_equal(other.network[0].weight.numpy(), small.network[0].weight.numpy())
    np.testing.assert_array_equal(other.network[2].weight.numpy(), before[2])
    with pytest.raises(FileNotFoundError, match="no parameter file"):
        other.load(str(tmp_path / "missing"))


def test_lr_scheduler_callback_steps_per_batch_or_epoch():
    x, y = regression_data(n=8)
    for callbacks, expected_steps in (([], 8), ([LRScheduler(by_step=False, by_epoch=True)], 2)):
        sched = eager.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
        model = eager.Model(nn.Linear(3, 1))
        model.prepare(eager.optimizer.SGD(sched, parameters=model.parameters()), nn.MSELoss())
        model.fit(eager.io.TensorDataset([x, y]), batch_size=2, epochs=2, verbose=0, callbacks=callbacks)
        assert sched.last_epoch == expected_steps
        assert model._optimizer.get_lr() == pytest.approx(0.1 * 0.5 ** expected_steps)
    with pytest.raises(ValueError, match="mutually exclusive"):
        LRScheduler(by_step=True, by_epoch=True)


def test_reduce_lr_on_plateau_reduces_a_float_learning_rate(capsys):
    model, data = frozen_model()
    cb = ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, verbose=1)
    model.fit(data, data, batch_size=6, epochs=4, verbose=0, callbacks=[cb])
    # epoch 0 improves on inf; epochs 1, 2, 3 do not, and each reaches patience 1
    assert model._optimizer.get_lr() == pytest.approx(1e-30 * 0.5 ** 3)
    assert capsys.readouterr().out.count("ReduceLROnPlateau reducing learning rate") == 3
    with pytest.raises(ValueError, match="factor"):
        ReduceLROnPlateau(factor=1.0)


def test_accumulate_grad_batches_sums_gradients():
    x, y = regression_data(n=8)
    eager.seed(0)
    net_a, net_b = nn.Linear(3, 1), nn.Linear(3, 1)
    net_b.set_state_dict(net_a.state_dict())
    model = eager.Model(net_a)
    model.prepare(eager.optimizer.SGD(0.1, parameters=net_a.parameters()), nn.MSELoss())
    loader = eager.io.DataLoader(eager.io.TensorDataset([x, y]), batch_size=2)
    model.fit(loader, epochs=1, verbose=0, accumulate_grad_batches=3)  # updates after batches 3 and 4 (last)
    opt = eager.optimizer.SGD(0.1, parameters=net_b.parameters())
    for group in ((0, 1, 2), (3,)):
        for i in group:
            nn.functional.mse_loss(net_b(eager.to_tensor(x[2 * i:2 * i + 2])),
                                   eager.to_tensor(y[2 * i:2 * i + 2])).backward()
        opt.step()
        opt.clear_grad()
    for a, b in zip(params_of(net_a), params_of(net_b)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


# -- output -------------------------------------------------------------------
def fit_output(capsys, verbose, **kwargs):
    x, y = regression_data(n=8)
    model = eager.Model(nn.Linear(3, 1))
    model.prepare(eager.optimizer.SGD(0.1, parameters=model.parameters()), nn.MSELoss())
    capsys.readouterr()
    model.fit(eager.io.TensorDataset([x, y]), eager.io.TensorDataset([x, y]), batch_size=2, epochs=2,
              verbose=verbose, **kwargs)
    return capsys.readouterr().out


def test_verbose_0_prints_nothing(capsys):
    assert fit_output(capsys, 0) == ""


def test_verbose_2_prints_one_line_per_epoch(capsys):
    out = fit_output(capsys, 2)
    assert "\r" not in out
    lines = out.splitlines()
    assert lines.pop(0).startswith("The loss value printed in the log is the current step")  # as Paddle
    assert len(lines) == 10
    for epoch, start in ((1, 0), (2, 5)):
        assert lines[start] == f"Epoch {epoch}/2"
        assert lines[start + 1].startswith("step 4/4 - loss: ") and lines[start + 1].endswith("s/step")
        assert lines[start + 2] == "Eval begin..."
        assert lines[start + 3].startswith("step 4/4 - loss: ")
        assert lines[start + 4] == "Eval samples: 8"


def test_verbose_1_without_a_terminal_prints_plain_lines_every_log_freq_steps(capsys):
    out = fit_output(capsys, 1, log_freq=2)
    assert "\r" not in out
    train = [line for line in out.splitlines() if line.startswith("step ")]
    # per epoch: training steps 2 and 4, evaluation steps 2 and 4
    assert [line.split(" - ")[0] for line in train] == ["step 2/4", "step 4/4"] * 4


def test_progress_bar_on_a_terminal():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    out = Terminal()
    bar = ProgressBar(num=4, verbose=1, file=out, use_tqdm=False)
    assert bar.mode == "bar"
    for step in range(1, 5):
        bar.update(step, [("loss", 0.5), ("acc", [0.25])])
    bar.close()
    text = out.getvalue()
    assert text.count("\r") == 4 and text.endswith("\n")
    assert "step 2/4 [" in text and "ETA:" in text and "- loss: 0.5000 - acc: 0.2500" in text
    pytest.importorskip("tqdm")
    out = Terminal()
    bar = ProgressBar(num=4, verbose=1, file=out)
    assert bar.mode == "tqdm"
    for step in range(1, 5):
        bar.update(step, [("loss", 0.5)])
    bar.close()
    assert "4/4" in out.getvalue() and "loss: 0.5000" in out.getvalue()


def test_format_values_follows_paddle():
    assert format_values([("loss", [0.25]), ("acc", 0.5)]) == " - loss: 0.2500 - acc: 0.5000"
    assert format_values([("loss", np.float32(1e-5))]) == " - loss: 1.0000e-05"
    assert format_values([("n", 3)]) == " - n: 3"


# -- bad input ----------------------------------------------------------------
def test_bad_input_errors():
    x, y = regression_data(n=8)
    data = eager.io.TensorDataset([x, y])
    with pytest.raises(TypeError, match="Model: argument 'network'"):
        eager.Model(lambda t: t)
    model = eager.Model(nn.Linear(3, 1))
    with pytest.raises(RuntimeError, match="prepare"):
        model.fit(data)
    with pytest.raises(RuntimeError, match="prepare"):
        model.train_batch([x], [y])
    with pytest.raises(TypeError, match="'optimizer'"):
        model.prepare(optimizer="sgd")
    with pytest.raises(TypeError, match="'metrics'"):
        model.prepare(metrics=["acc"])
    with pytest.raises(ValueError, match="amp_configs"):
        model.prepare(amp_configs={"level": "O3"})
    model.prepare(eager.optimizer.SGD(0.1, parameters=model.parameters()), nn.MSELoss())
    with pytest.raises(TypeError, match="'train_data'"):
        model.fit(42)
    with pytest.raises(ValueError, match="'verbose'"):
        model.fit(data, verbose=4)  # 0-2 and Paddle's 3 (timing columns)
    with pytest.raises(ValueError, match="'epochs'"):
        model.fit(data, epochs=0)
    with pytest.raises(TypeError, match="'callbacks'"):
        model.fit(data, verbose=0, callbacks=["early"])
    with pytest.raises(TypeError, match="'inputs'"):
        model.train_batch(["not numbers"], [y])
    with pytest.raises(RuntimeError, match=r"inference model \(training=False\) needs the inputs' shapes"):
        model.save("x", training=False)  # no inputs given and no batch run yet (Paddle's RuntimeError)
    with pytest.raises(ValueError, match="patience"):
        EarlyStopping(patience=-1)
    with pytest.raises(ValueError, match="verbose"):
        ProgBarLogger(verbose=5)
    before = params_of(model.network)
    with pytest.raises(TypeError):
        model.evaluate({"x": x})
    for p, q in zip(before, params_of(model.network)):
        np.testing.assert_array_equal(p, q)


def test_model_is_paddles_name():
    import eager.callbacks as callbacks
    assert eager.Model is eager.hapi.model.Model
    assert callbacks.EarlyStopping is eager.hapi.callbacks.EarlyStopping


def test_summary_delegates_to_eager_summary(capsys):
    class Spec:
        shape = [None, 4]

    info = eager.Model(classifier(), inputs=[Spec()]).summary()
    assert info == {"total_params": 4 * 8 + 8 + 8 * 3 + 3, "trainable_params": 67}
    assert "Linear" in capsys.readouterr().out
    assert eager.Model(classifier()).summary((2, 4))["total_params"] == 67
    with pytest.raises(ValueError, match="input_size"):
        eager.Model(classifier()).summary()
