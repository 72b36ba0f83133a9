"""Callbacks that send ``Model.fit``'s losses and metrics to an experiment
tracker: :class:`VisualDL` (Paddle's ``paddle.callbacks.VisualDL``) and
:class:`WandbCallback` (``paddle.callbacks.WandbCallback``, Weights & Biases).

Neither package is a dependency of eager: VisualDL's is imported when the
first scalar is written (training start), wandb's when the callback is made,
as Paddle does; a missing one raises ImportError naming the package to install.
Only their public APIs are used: ``visualdl.LogWriter(logdir=...)`` with
``add_scalar(tag, value, step)`` and ``close()``; ``wandb.init(...)``
giving a run with ``log(data)``, ``define_metric(name, step_metric=...)`` and
``finish()``.

What is written, as Paddle's: after every training batch each metric of the
run (``loss``, the metrics' names) as ``train/<name>`` at the running batch
count (counted across epochs from 1), and after each evaluation as
``eval/<name>`` at the epoch (the evaluation count for a bare ``evaluate``).
A list value gives its first item; values that are not numbers are skipped.
Under ``mpiexec`` only rank 0 writes.
"""
from __future__ import annotations

import numbers
import os
import warnings

import numpy as np

from ..distributed.env import get_rank
from ..utils.lazy_import import try_import
from .callbacks import Callback


def _scalar(value):
    """A log value as a float (a list's first item), or None if not a number."""
    if isinstance(value, (list, tuple)):
        if not value:
            return None
        value = value[0]
    if isinstance(value, np.ndarray):
        if value.size != 1:
            return None
        value = value.reshape(())[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
        return None
    return float(value)


class _ScalarLogger(Callback):
    """Collects the scalars to write (``_write(mode, scalars, step)``, each
    subclass's); rank 0 only."""

    def __init__(self):
        super().__init__()
        self.train_metrics, self.eval_metrics = [], []
        self.train_step = 0
        self.epoch = None
        self._evaluations = 0

    @staticmethod
    def _is_write() -> bool:
        return get_rank() == 0

    def _updates(self, logs, mode: str, step: int) -> None:
        if not self._is_write() or not logs:
            return
        names = self.train_metrics if mode == "train" else self.eval_metrics
        scalars = {}
        for name in names:
            value = _scalar(logs.get(name))
            if value is not None:
                scalars[f"{mode}/{name}"] = value
        if scalars:
            self._write(mode, scalars, step)

    def _write(self, mode: str, scalars: dict, step: int) -> None:
        raise NotImplementedError

    def on_train_begin(self, logs=None):
        self.train_metrics = list(self.params.get("metrics") or [])
        self.train_step = 0

    def on_epoch_begin(self, epoch=None, logs=None):  # Paddle's VisualDL default
        self.epoch = epoch

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        self._updates(logs, "train", self.train_step)

    def on_eval_begin(self, logs=None):
        self.eval_metrics = list((logs or {}).get("metrics") or [])

    def on_eval_end(self, logs=None):
        self._evaluations += 1
        self._updates(logs, "eval", self._evaluations if self.epoch is None else self.epoch)


class VisualDL(_ScalarLogger):
    """Writes the training and evaluation losses and metrics as VisualDL
    scalars (``train/loss``, ``eval/acc``, ...) into ``log_dir``; view them
    with ``visualdl --logdir <log_dir>``. Needs the ``visualdl`` package
    (imported at the first write).

    >>> model.fit(train_data, eval_data, epochs=2, callbacks=[eager.callbacks.VisualDL(log_dir="logs")])
    """

    def __init__(self, log_dir: str = "./log"):
        super().__init__()
        if not isinstance(log_dir, (str, os.PathLike)):
            raise TypeError(f"VisualDL: argument 'log_dir' expected a folder path (str), got "
                            f"{type(log_dir).__name__}")
        self.log_dir = os.fspath(log_dir)
        self.writer = None

    def _writer(self):
        if self.writer is None:
            visualdl = try_import("visualdl", "VisualDL: the callback needs the visualdl package; install it "
                                              "with `pip install visualdl`")
            self.writer = visualdl.LogWriter(logdir=self.log_dir)
        return self.writer

    def on_train_begin(self, logs=None):
        super().on_train_begin(logs)
        if self._is_write():
            self._writer()  # a missing package fails before the first epoch, not after it

    def _write(self, mode: str, scalars: dict, step: int) -> None:
        writer = self._writer()
        for tag, value in scalars.items():
            writer.add_scalar(tag=tag, value=value, step=step)

    def on_train_end(self, logs=None):
        if self.writer is not None:
            self.writer.close()
            self.writer = None


class WandbCallback(_ScalarLogger):
    """Logs the training and evaluation losses and metrics to a Weights &
    Biases run (``train/loss`` against ``train/step``, ``eval/acc`` against
    ``eval/step``). The arguments go to ``wandb.init`` (``project``, ``entity``,
    ``name``, ``dir``, ``mode``, ``job_type`` and any other keyword); a run
    already started with ``wandb.init`` is used as it is (with a warning).
    Needs the ``wandb`` package, imported here.

    >>> cb = eager.callbacks.WandbCallback(project="digits", mode="offline")
    >>> model.fit(train_data, epochs=2, callbacks=[cb])
    """

    def __init__(self, project=None, entity=None, name=None, dir=None, mode=None, job_type=None, **kwargs):
        super().__init__()
        self.wandb = try_import("wandb", "WandbCallback: the callback needs the wandb package; install it with "
                                         "`pip install wandb`")
        self.wandb_args = dict(project=project, name=name, entity=entity, dir=dir, mode=mode, job_type=job_type)
        self.wandb_args.update(kwargs)
        self._run = None
        self._defined = set()
        _ = self.run

    @property
    def run(self):
        """The wandb run written to (rank 0; None on the other ranks)."""
        if self._is_write() and self._run is None:
            if getattr(self.wandb, "run", None) is not None:
                warnings.warn("WandbCallback: a wandb run is already going (wandb.init was called); the callback "
                              "logs to it and its own arguments are not used", stacklevel=2)
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def _write(self, mode: str, scalars: dict, step: int) -> None:
        run = self.run
        step_key = f"{mode}/step"
        if mode not in self._defined and hasattr(run, "define_metric"):
            run.define_metric(step_key)
            run.define_metric(f"{mode}/*", step_metric=step_key)
            self._defined.add(mode)
        run.log({**scalars, step_key: step})

    def on_train_end(self, logs=None):
        if self._run is not None:
            self._run.finish()
            self._run = None
            self._defined.clear()
