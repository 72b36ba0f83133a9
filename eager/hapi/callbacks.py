"""Callbacks of ``Model.fit``/``evaluate``/``predict`` (Paddle's
``paddle.callbacks``): hooks called at the beginning and end of each run,
epoch and batch, with the running logs (loss, metrics, step, batch_size).

>>> class Printer(eager.callbacks.Callback):
...     def on_epoch_end(self, epoch, logs=None):
...         print(epoch, logs["loss"])
>>> model.fit(train_data, epochs=2, callbacks=[Printer()], verbose=0)
"""
from __future__ import annotations

import importlib
import numbers
import os
import time
import warnings

import numpy as np

from ..arguments import to_bool
from ..distributed.env import get_rank
from ..optimizer.lr import LRScheduler as _Schedule
from ..optimizer.lr import ReduceOnPlateau as _PlateauSchedule
from .progressbar import ProgressBar


def _check_int(who: str, arg: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{who}: argument {arg!r} expected an int >= {minimum}, got {value!r}")
    return int(value)


def _check_number(who: str, arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{who}: argument {arg!r} expected a finite number, got {value!r}")
    return float(value)


def _monitored(logs, monitor: str):
    """The value of ``monitor`` in logs as a float (first item of a list), or None."""
    if not logs or monitor not in logs:
        return None
    value = logs[monitor]
    if isinstance(value, (list, tuple)):
        if not value:
            return None
        value = value[0]
    if isinstance(value, np.ndarray) and value.size >= 1:
        value = value.reshape(-1)[0]
    if isinstance(value, (numbers.Real, np.number)):
        return float(value)
    return None


class Callback:
    """Base class: override the hooks you need. ``self.model`` is the
    :class:`eager.Model` being run and ``self.params`` the run's settings
    (``batch_size``, ``epochs``, ``steps``, ``verbose``, ``metrics``).

    Hooks, in the order ``fit`` calls them: ``on_train_begin``, then per epoch
    ``on_epoch_begin``, per batch ``on_train_batch_begin``/``on_train_batch_end``,
    ``on_epoch_end``, then (when evaluating) ``on_eval_begin``,
    ``on_eval_batch_begin``/``on_eval_batch_end``, ``on_eval_end``; finally
    ``on_train_end``. ``predict`` calls the ``on_predict_*`` hooks.

    >>> class CountBatches(Callback):
    ...     def on_train_batch_end(self, step, logs=None):
    ...         self.seen = step + 1
    """

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params) -> None:
        """Receives the run's settings (a dict)."""
        self.params = params

    def set_model(self, model) -> None:
        """Receives the :class:`eager.Model` being run."""
        self.model = model

    def on_train_begin(self, logs=None):
        """Called once at the start of ``fit``."""

    def on_train_end(self, logs=None):
        """Called once at the end of ``fit`` with the last epoch's logs."""

    def on_eval_begin(self, logs=None):
        """Called at the start of an evaluation (``logs``: ``steps``, ``metrics``)."""

    def on_eval_end(self, logs=None):
        """Called at the end of an evaluation with its loss and metrics."""

    def on_predict_begin(self, logs=None):
        """Called at the start of ``predict`` (``logs``: ``steps``)."""

    def on_predict_end(self, logs=None):
        """Called at the end of ``predict``."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of training epoch ``epoch`` (counted from 0)."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of training epoch ``epoch`` with its logs."""

    def on_train_batch_begin(self, step, logs=None):
        """Called before training batch ``step`` (counted from 0 in each epoch)."""

    def on_train_batch_end(self, step, logs=None):
        """Called after training batch ``step`` with the running logs."""

    def on_eval_batch_begin(self, step, logs=None):
        """Called before evaluation batch ``step``."""

    def on_eval_batch_end(self, step, logs=None):
        """Called after evaluation batch ``step`` with the running logs."""

    def on_predict_batch_begin(self, step, logs=None):
        """Called before prediction batch ``step``."""

    def on_predict_batch_end(self, step, logs=None):
        """Called after prediction batch ``step``."""


class CallbackList:
    """Calls a hook on each callback in order; ``on_begin(mode)``/``on_end(mode)``
    and ``on_batch_begin(mode, step)``/``on_batch_end(mode, step)`` dispatch to
    the hooks of ``mode`` ('train', 'eval' or 'predict').

    >>> hooks = CallbackList([ProgBarLogger(verbose=2)])
    >>> hooks.on_begin("train")
    """

    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])
        self.params = {}
        self.model = None

    def append(self, callback) -> None:
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params) -> None:
        self.params = params
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model) -> None:
        self.model = model
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name: str, *args) -> None:
        for c in self.callbacks:
            getattr(c, name)(*args)

    @staticmethod
    def _check_mode(mode: str) -> None:
        if mode not in ("train", "eval", "predict"):
            raise ValueError(f"CallbackList: mode expected 'train', 'eval' or 'predict', got {mode!r}")

    def on_begin(self, mode: str, logs=None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode: str, logs=None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None) -> None:
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None) -> None:
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode: str, step=None, logs=None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode: str, step=None, logs=None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_end", step, logs)


class ProgBarLogger(Callback):
    """Prints progress: ``verbose=1`` a live bar per epoch (loss, metrics,
    steps/s, time left; plain lines every ``log_freq`` steps when stdout is not
    a terminal), ``verbose=2`` a line in Paddle's format every ``log_freq``
    steps and at the end of each epoch and evaluation (as Paddle), ``verbose=3``
    those lines with Paddle's timing columns (``avg_reader_cost``, the mean time
    waiting for a batch, ``avg_batch_cost``, the mean time running one, and
    ``ips``, samples per second, over the steps since the last line),
    ``verbose=0`` nothing. ``fit``/``evaluate``/``predict`` add one
    unless ``callbacks`` holds one. Under ``mpiexec`` only rank 0 prints.

    >>> model.fit(train_data, epochs=2, callbacks=[ProgBarLogger(log_freq=5, verbose=1)])
    """

    def __init__(self, log_freq: int = 1, verbose: int = 2):
        super().__init__()
        self.log_freq = _check_int("ProgBarLogger", "log_freq", log_freq, 1)
        if verbose not in (0, 1, 2, 3):
            raise ValueError(f"ProgBarLogger: argument 'verbose' expected 0, 1, 2 or 3, got {verbose!r}")
        self.verbose = int(verbose)
        self.epochs = None
        self.steps = None
        self._bars = {}
        self._counts = {}
        self._samples = {}
        self._timers = {}  # verbose=3: mode -> reader/batch seconds and samples since the last line

    def _printing(self) -> bool:
        # Under mpiexec only rank 0 prints, as in Paddle.
        return bool(self.verbose) and get_rank() == 0

    def _begin(self, mode: str, steps) -> None:
        self._counts[mode] = 0
        self._samples[mode] = 0
        # verbose=3 prints verbose=2's lines with more columns
        # no steps (an empty loader) shows as an unknown count
        self._bars[mode] = ProgressBar(num=steps or None, verbose=min(self.verbose, 2)) if self._printing() else None
        if self.verbose == 3:
            self._timers[mode] = {"reader": 0.0, "batch": 0.0, "count": 0, "samples": 0,
                                  "mark": time.perf_counter()}

    def _batch_begin(self, mode: str) -> None:
        timer = self._timers.get(mode)
        if timer is not None:
            now = time.perf_counter()
            timer["reader"] += now - timer["mark"]
            timer["mark"] = now

    def _timing_values(self, mode: str) -> list:
        """Paddle's verbose=3 columns over the steps since the last line (then reset)."""
        timer = self._timers.get(mode)
        if timer is None:
            return []
        count = timer["count"] or 1
        seconds = timer["reader"] + timer["batch"]
        values = [("avg_reader_cost", f"{timer['reader'] / count:.5f} sec"),
                  ("avg_batch_cost", f"{timer['batch'] / count:.5f} sec"),
                  ("ips", f"{(timer['samples'] or 1) / seconds if seconds > 0 else 0.0:.5f} samples/sec")]
        timer.update(reader=0.0, batch=0.0, count=0, samples=0)
        return values

    def _values(self, logs, names):
        logs = logs or {}
        return [(k, logs[k]) for k in names if k in logs]

    def _batch_end(self, mode: str, logs, names, steps) -> None:
        self._counts[mode] = self._counts.get(mode, 0) + 1
        samples = int((logs or {}).get("batch_size", 1) or 0)
        self._samples[mode] = self._samples.get(mode, 0) + samples
        timer = self._timers.get(mode)
        if timer is not None:
            now = time.perf_counter()
            timer["batch"] += now - timer["mark"]
            timer["mark"] = now
            timer["count"] += 1
            timer["samples"] += samples
        bar = self._bars.get(mode)
        if bar is None:
            return
        count = self._counts[mode]
        if steps is not None and count >= steps:
            return  # the end hook writes the last update
        if bar.mode == "lines" and count % self.log_freq:
            return  # plain lines (verbose=2, or 1 off a terminal) only every log_freq steps, as Paddle
        bar.update(count, self._values(logs, names) + self._timing_values(mode))

    def _end(self, mode: str, logs, names, final: bool = True) -> None:
        bar = self._bars.pop(mode, None)
        if bar is None:
            return
        if final:
            bar.update(self._counts.get(mode, 0), self._values(logs, names) + self._timing_values(mode))
        bar.close()

    # -- train ----------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self.epochs = self.params.get("epochs")
        self.train_metrics = list(self.params.get("metrics") or [])
        if self._printing():  # Paddle's logger says this once per fit
            print("The loss value printed in the log is the current step, and the metric is the average "
                  "value of previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params.get("steps")
        self.epoch = epoch
        if self._printing() and self.epochs:
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self._begin("train", self.steps)

    def on_train_batch_begin(self, step, logs=None):
        self._batch_begin("train")

    def on_train_batch_end(self, step, logs=None):
        self._batch_end("train", logs, self.train_metrics, self.steps)

    def on_epoch_end(self, epoch, logs=None):
        # as Paddle: no closing line when the number of steps is unknown (the
        # per-step lines stand), and none is written twice
        self._end("train", logs, self.train_metrics, final=self.steps is not None)

    # -- eval -----------------------------------------------------------------
    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get("steps")
        self.eval_metrics = list(logs.get("metrics") or [])
        if self._printing():
            print("Eval begin...")
        self._begin("eval", self.eval_steps)

    def on_eval_batch_begin(self, step, logs=None):
        self._batch_begin("eval")

    def on_eval_batch_end(self, step, logs=None):
        self._batch_end("eval", logs, self.eval_metrics, self.eval_steps)

    def on_eval_end(self, logs=None):
        self._end("eval", logs, self.eval_metrics, final=self.eval_steps is not None)
        if self._printing() and self.eval_steps is not None:  # Paddle counts only a sized evaluation
            print(f"Eval samples: {self._samples.get('eval', 0)}")

    # -- predict --------------------------------------------------------------
    def on_predict_begin(self, logs=None):
        logs = logs or {}
        self.test_steps = logs.get("steps")
        if self._printing():
            print("Predict begin...")
        self._begin("predict", self.test_steps)

    def on_predict_batch_begin(self, step, logs=None):
        self._batch_begin("predict")

    def on_predict_batch_end(self, step, logs=None):
        self._batch_end("predict", logs, [], self.test_steps)

    def on_predict_end(self, logs=None):
        # Paddle's rule: the closing line unless the last step's periodic line was written
        final = self.verbose == 1 or self._counts.get("predict", 0) % self.log_freq != 0
        self._end("predict", logs, [], final=final)
        if self._printing():
            print(f"Predict samples: {self._samples.get('predict', 0)}")


class ModelCheckpoint(Callback):
    """Saves the model (``Model.save``) to ``save_dir/<epoch>`` after every
    ``save_freq``-th epoch (epochs 0, save_freq, 2 * save_freq, ..., as Paddle
    and as ``fit``'s ``eval_freq``) and to ``save_dir/final`` when training
    ends; nothing when ``save_dir`` is None. Each save writes ``.pdparams`` and ``.pdopt``;
    under ``mpiexec`` only rank 0 saves.

    >>> model.fit(train_data, epochs=4, callbacks=[ModelCheckpoint(save_freq=2, save_dir="ckpt")])
    """

    def __init__(self, save_freq: int = 1, save_dir=None):
        super().__init__()
        self.save_freq = _check_int("ModelCheckpoint", "save_freq", save_freq, 1)
        if save_dir is not None and not isinstance(save_dir, (str, os.PathLike)):
            raise TypeError(f"ModelCheckpoint: argument 'save_dir' expected None or a path, got "
                            f"{type(save_dir).__name__}")
        self.save_dir = save_dir
        self.epoch = 0

    def _saving(self) -> bool:
        # Under mpiexec only rank 0 writes checkpoints (the ranks' models are equal), as in Paddle.
        return self.model is not None and bool(self.save_dir) and get_rank() == 0

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if self._saving() and epoch % self.save_freq == 0:
            path = os.path.join(os.fspath(self.save_dir), str(epoch))
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs=None):
        if self._saving():
            path = os.path.join(os.fspath(self.save_dir), "final")
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


class EarlyStopping(Callback):
    """Stops training when the evaluated ``monitor`` ('loss' or a metric name)
    has not improved for ``patience`` evaluations in a row (with the default 0,
    as in Paddle, after the first evaluation whatever it gave): improving means
    beating the best value so far (or ``baseline``) by more than ``min_delta``.
    ``mode``: 'min', 'max' or 'auto' (max when 'acc' is in the name). With
    ``save_best_model`` and a ``save_dir`` given to ``fit``, the best model is
    saved to ``save_dir/best_model``. Needs ``eval_data``.

    >>> stop = EarlyStopping(monitor="acc", mode="max", patience=2)
    >>> model.fit(train_data, eval_data, epochs=50, callbacks=[stop])
    """

    def __init__(self, monitor: str = "loss", mode: str = "auto", patience: int = 0, verbose: int = 1,
                 min_delta: float = 0, baseline=None, save_best_model: bool = True):
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"EarlyStopping: argument 'monitor' expected a str, got {type(monitor).__name__}")
        self.monitor = monitor
        self.patience = _check_int("EarlyStopping", "patience", patience, 0)
        self.verbose = verbose
        self.baseline = None if baseline is None else _check_number("EarlyStopping", "baseline", baseline)
        self.min_delta = abs(_check_number("EarlyStopping", "min_delta", min_delta))
        self.save_best_model = to_bool(save_best_model, "EarlyStopping", "save_best_model")
        self.save_dir = None  # set by fit from its save_dir
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping: mode {mode!r} is unknown, falling back to 'auto'", stacklevel=2)
            mode = "auto"
        self.mode = mode
        self._maximize = mode == "max" or (mode == "auto" and "acc" in monitor)
        self.wait_epoch = 0
        self.stopped_epoch = 0
        self.best_value = None

    def _improved(self, current: float) -> bool:
        if self._maximize:
            return current - self.min_delta > self.best_value
        return current + self.min_delta < self.best_value

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        self.stopped_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = -np.inf if self._maximize else np.inf

    def on_eval_end(self, logs=None):
        current = _monitored(logs, self.monitor)
        if current is None:
            warnings.warn(f"EarlyStopping: monitor {self.monitor!r} is not in the evaluation logs "
                          f"(keys: {sorted(logs or {})}); give 'loss' or a metric's name", stacklevel=2)
            return
        if self.best_value is None:
            self.on_train_begin()
        if self._improved(current):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None and self.model is not None:
                self.model.save(os.path.join(os.fspath(self.save_dir), "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    best = os.path.abspath(os.path.join(os.fspath(self.save_dir), "best_model"))
                    print(f"Best checkpoint has been saved at {best}")
        self.stopped_epoch += 1


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate schedule (an
    ``eager.optimizer.lr.LRScheduler`` given as its ``learning_rate``): after
    every training batch (``by_step=True``, the default) or after every epoch
    (``by_epoch=True``). ``fit`` adds ``LRScheduler()`` unless ``callbacks`` holds
    one. A ``ReduceOnPlateau`` schedule needs a metric to step: it is left to
    the :class:`ReduceLROnPlateau` callback or to your own code.

    >>> model.fit(train_data, epochs=10, callbacks=[LRScheduler(by_step=False, by_epoch=True)])
    """

    def __init__(self, by_step: bool = True, by_epoch: bool = False):
        super().__init__()
        by_step = to_bool(by_step, "LRScheduler", "by_step")
        by_epoch = to_bool(by_epoch, "LRScheduler", "by_epoch")
        if by_step and by_epoch:
            raise ValueError("LRScheduler: by_step and by_epoch are mutually exclusive; set one of them")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def _schedule(self):
        optimizer = getattr(self.model, "_optimizer", None)
        schedule = getattr(optimizer, "_lr_scheduler", None)
        if isinstance(schedule, _Schedule) and not isinstance(schedule, _PlateauSchedule):
            return schedule
        return None

    def on_epoch_end(self, epoch, logs=None):
        schedule = self._schedule()
        if self.by_epoch and schedule is not None:
            schedule.step()

    def on_train_batch_end(self, step, logs=None):
        schedule = self._schedule()
        if self.by_step and schedule is not None:
            schedule.step()


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` when the evaluated ``monitor``
    has not improved (by more than ``min_delta``) for ``patience`` evaluations,
    then waits ``cooldown`` evaluations before counting again; never below
    ``min_lr``. ``mode``: 'min', 'max' or 'auto' (max when 'acc' is in the
    name). Works on an optimizer with a float learning rate (a schedule owns its
    rate) and needs ``eval_data``.

    >>> model.fit(train_data, eval_data, epochs=30,
    ...           callbacks=[ReduceLROnPlateau(monitor="loss", factor=0.5, patience=2)])
    """

    def __init__(self, monitor: str = "loss", factor: float = 0.1, patience: int = 10, verbose: int = 1,
                 mode: str = "auto", min_delta: float = 1e-4, cooldown: int = 0, min_lr: float = 0):
        super().__init__()
        who = "ReduceLROnPlateau"
        if not isinstance(monitor, str):
            raise TypeError(f"{who}: argument 'monitor' expected a str, got {type(monitor).__name__}")
        factor = _check_number(who, "factor", factor)
        if not 0 < factor < 1:
            raise ValueError(f"{who}: argument 'factor' expected a number in (0, 1), got {factor}")
        self.monitor = monitor
        self.factor = factor
        self.patience = _check_int(who, "patience", patience, 0)
        self.verbose = verbose
        self.min_delta = abs(_check_number(who, "min_delta", min_delta))
        self.cooldown = _check_int(who, "cooldown", cooldown, 0)
        self.min_lr = _check_number(who, "min_lr", min_lr)
        if self.min_lr < 0:
            raise ValueError(f"{who}: argument 'min_lr' expected a number >= 0, got {min_lr}")
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"{who}: mode {mode!r} is unknown, falling back to 'auto'", stacklevel=2)
            mode = "auto"
        self.mode = mode
        self._maximize = mode == "max" or (mode == "auto" and "acc" in monitor)
        self.epoch = 0
        self._reset()

    def _reset(self) -> None:
        self.best = -np.inf if self._maximize else np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def _improved(self, current: float) -> bool:
        if self._maximize:
            return current > self.best + self.min_delta
        return current < self.best - self.min_delta

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_eval_end(self, logs=None):
        current = _monitored(logs, self.monitor)
        if current is None:
            warnings.warn(f"ReduceLROnPlateau: monitor {self.monitor!r} is not in the evaluation logs "
                          f"(keys: {sorted(logs or {})}); give 'loss' or a metric's name", stacklevel=2)
            return
        optimizer = getattr(self.model, "_optimizer", None)
        if optimizer is None:
            return
        if getattr(optimizer, "_lr_scheduler", None) is not None:
            warnings.warn("ReduceLROnPlateau: the optimizer's learning rate comes from an LRScheduler; "
                          "this callback changes only a float learning rate", stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = optimizer.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    if new_lr > 0:
                        optimizer.set_lr(new_lr)
                    if self.verbose > 0:
                        # Paddle's message opens with a blank line (after the progress bar's)
                        print(f"\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


# config_callbacks' mode -> the Model method whose argument a bad callback was.
_METHOD_OF_MODE = {"train": "fit", "eval": "evaluate", "predict": "predict", "test": "predict"}


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None, log_freq=2,
                     verbose=2, save_freq=1, save_dir=None, metrics=None, mode="train") -> CallbackList:
    """The CallbackList a run uses: ``callbacks`` plus a ProgBarLogger (first,
    when ``verbose`` and none given), a ModelCheckpoint and an LRScheduler (when
    none given), as Paddle's ``config_callbacks``."""
    cbks = callbacks if callbacks is not None else []
    cbks = list(cbks) if isinstance(cbks, (list, tuple)) else [cbks]
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError(f"Model.{_METHOD_OF_MODE.get(mode, mode)}: argument 'callbacks' expected Callback "
                            f"instances, got {type(c).__name__}")
    if verbose and not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for c in cbks:
        if isinstance(c, EarlyStopping):
            c.save_dir = save_dir
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks = cbks + [LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    params = {"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
              "metrics": list(metrics or []) if mode != "test" else []}
    cbk_list.set_params(params)
    return cbk_list


__all__ = ["Callback", "CallbackList", "ProgBarLogger", "ModelCheckpoint", "EarlyStopping", "LRScheduler",
           "ReduceLROnPlateau", "config_callbacks"]


# Paddle's paddle.hapi.callbacks also holds VisualDL and WandbCallback; they live in
# tracker_callbacks, which imports Callback from here, so they are looked up on use.
_TRACKERS = frozenset({"VisualDL", "WandbCallback"})


def __getattr__(name):
    if name in _TRACKERS:
        return getattr(importlib.import_module(".tracker_callbacks", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
