"""eager.callbacks.VisualDL and WandbCallback against stand-ins of the public
APIs they use (visualdl.LogWriter; wandb.init and its run), since neither
package is a dependency; with a real package installed, the last tests run a
fit against it."""
import sys
import types
import warnings

import numpy as np
import pytest

import eager
from eager import nn
from eager.callbacks import Callback, VisualDL, WandbCallback


class FakeLogWriter:
    def __init__(self, logdir):
        self.logdir, self.scalars, self.closed = logdir, [], False

    def add_scalar(self, tag, value, step, walltime=None):
        self.scalars.append((tag, step, value))

    def close(self):
        self.closed = True


class FakeRun:
    def __init__(self, **kwargs):
        self.init_args, self.logged, self.defined, self.finished = kwargs, [], [], False

    def log(self, data, step=None, commit=None):
        assert step is None  # each mode has its own step metric
        self.logged.append(dict(data))

    def define_metric(self, name, step_metric=None, **kwargs):
        self.defined.append((name, step_metric))

    def finish(self):
        self.finished = True


@pytest.fixture
def fake_visualdl(monkeypatch):
    module = types.ModuleType("visualdl")
    module.LogWriter = FakeLogWriter
    monkeypatch.setitem(sys.modules, "visualdl", module)
    return module


@pytest.fixture
def fake_wandb(monkeypatch):
    module = types.ModuleType("wandb")
    module.run = None
    module.init = lambda **kwargs: FakeRun(**kwargs)
    monkeypatch.setitem(sys.modules, "wandb", module)
    return module


class LossLog(Callback):
    """The loss of every training batch and each evaluation, as fit reports them."""

    def __init__(self):
        super().__init__()
        self.train, self.eval = [], []

    def on_train_batch_end(self, step, logs=None):
        self.train.append(float(logs["loss"][0]))

    def on_eval_end(self, logs=None):
        self.eval.append((float(logs["loss"][0]), float(logs["acc"])))


def fit(callback, epochs=2):
    rng = np.random.RandomState(0)
    x = rng.randn(12, 4).astype("float32")
    y = rng.randint(0, 3, size=(12, 1)).astype("int64")
    eager.seed(0)
    model = eager.Model(nn.Sequential(nn.Linear(4, 3)))
    model.prepare(eager.optimizer.SGD(0.1, parameters=model.parameters()), nn.CrossEntropyLoss(),
                  eager.metric.Accuracy())
    reference = LossLog()
    data = eager.io.TensorDataset([x, y])
    model.fit(data, data, batch_size=4, epochs=epochs, verbose=0, callbacks=[callback, reference])
    return reference


def test_visualdl_scalars_follow_the_fit_logs(fake_visualdl, tmp_path, monkeypatch):
    made = []
    monkeypatch.setattr(fake_visualdl, "LogWriter", lambda logdir: made.append(FakeLogWriter(logdir)) or made[-1])
    reference = fit(VisualDL(log_dir=str(tmp_path)))
    (writer,) = made
    assert writer.logdir == str(tmp_path) and writer.closed
    train = [(tag, step, v) for tag, step, v in writer.scalars if tag.startswith("train/")]
    loss = [(step, v) for tag, step, v in train if tag == "train/loss"]
    assert [step for step, _ in loss] == list(range(1, 7))  # 3 batches x 2 epochs, counted across epochs
    np.testing.assert_allclose([v for _, v in loss], reference.train, rtol=1e-6)
    assert {tag for tag, _, _ in train} == {"train/loss", "train/acc"}
    evals = [(tag, step, v) for tag, step, v in writer.scalars if tag.startswith("eval/")]
    assert [(tag, step) for tag, step, _ in evals] == [("eval/loss", 0), ("eval/acc", 0),
                                                      ("eval/loss", 1), ("eval/acc", 1)]
    np.testing.assert_allclose([v for _, _, v in evals], np.ravel(reference.eval), rtol=1e-6)


def test_wandb_logs_each_mode_against_its_own_step(fake_wandb):
    callback = WandbCallback(project="demo", mode="offline", tags=["x"])
    run = callback.run
    assert run.init_args == dict(project="demo", name=None, entity=None, dir=None, mode="offline",
                                 job_type=None, tags=["x"])
    reference = fit(callback)
    assert run.finished and callback._run is None
    assert ("train/*", "train/step") in run.defined and ("eval/*", "eval/step") in run.defined
    train = [entry for entry in run.logged if "train/step" in entry]
    assert [entry["train/step"] for entry in train] == list(range(1, 7))
    np.testing.assert_allclose([entry["train/loss"] for entry in train], reference.train, rtol=1e-6)
    evals = [entry for entry in run.logged if "eval/step" in entry]
    assert [entry["eval/step"] for entry in evals] == [0, 1]
    np.testing.assert_allclose([[e["eval/loss"], e["eval/acc"]] for e in evals], reference.eval, rtol=1e-6)


def test_wandb_uses_a_run_already_started(fake_wandb):
    fake_wandb.run = FakeRun(project="earlier")
    with pytest.warns(UserWarning, match="a wandb run is already going"):
        callback = WandbCallback(project="ignored")
    assert callback.run is fake_wandb.run


def test_missing_packages_name_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)  # import fails
    monkeypatch.setitem(sys.modules, "visualdl", None)
    with pytest.raises(ImportError, match="pip install wandb"):
        WandbCallback()
    callback = VisualDL()  # made without the package; training start needs it
    with pytest.raises(ImportError, match="pip install visualdl"):
        fit(callback, epochs=1)
    with pytest.raises(TypeError, match="VisualDL: argument 'log_dir' expected a folder path"):
        VisualDL(log_dir=3)


def test_with_real_visualdl(tmp_path):
    pytest.importorskip("visualdl")
    fit(VisualDL(log_dir=str(tmp_path)), epochs=1)
    assert any(tmp_path.iterdir())


def test_with_real_wandb(tmp_path):
    pytest.importorskip("wandb")
    fit(WandbCallback(project="eager-test", mode="disabled", dir=str(tmp_path)), epochs=1)
