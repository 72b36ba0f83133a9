"""``eager.Model`` (Paddle's ``paddle.Model``, the high-level API): a network
with ``prepare``/``fit``/``evaluate``/``predict``, batch-level
``train_batch``/``eval_batch``/``predict_batch``, ``save``/``load`` and
callbacks.

>>> import eager as paddle
>>> net = paddle.nn.Sequential(paddle.nn.Linear(64, 32), paddle.nn.ReLU(), paddle.nn.Linear(32, 10))
>>> model = paddle.Model(net)
>>> model.prepare(paddle.optimizer.Adam(parameters=model.parameters()),
...               paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
>>> model.fit(train_dataset, eval_dataset, batch_size=64, epochs=5, verbose=1)
>>> model.evaluate(eval_dataset, batch_size=64)    # {'loss': [0.12], 'acc': 0.97}

Checkpoints (``save``) are two files, ``path.pdparams`` (the network's state
dict) and ``path.pdopt`` (the optimizer's), written with :func:`eager.save`:
safetensors content under Paddle's file extensions, not pickles. ``load`` reads
those and the pickles of Paddle's ``Model.save`` (through :func:`eager.load`).
"""
from __future__ import annotations

import contextlib
import inspect
import os
import warnings

import numpy as np

from .. import amp as _amp
from ..arguments import to_bool
from ..autograd import no_grad
from ..creation import to_tensor
from ..distributed.env import get_rank, get_world_size, init_parallel_env
from ..distributed.parallel import DataParallel
from ..io import DataLoader, Dataset, DistributedBatchSampler, IterableDataset
from ..jit import InputSpec
from ..jit import save as _jit_save
from ..metric import Metric
from ..nn import Layer
from ..optimizer.optimizer import Optimizer
from ..serialization import load as _load
from ..serialization import save as _save
from ..tensor import Tensor
from .callbacks import EarlyStopping, _check_int, config_callbacks
from .summary import summary as _summary

_MODES = ("train", "eval", "predict")


def _to_list(value) -> list:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _flatten(data) -> list:
    """A batch as a flat list: (nested) lists and tuples are unpacked, and dicts
    give their values in the order of their sorted keys (as paddle.utils.flatten)."""
    if isinstance(data, (list, tuple)):
        out = []
        for item in data:
            out.extend(_flatten(item))
        return out
    if isinstance(data, dict):
        out = []
        for key in sorted(data):
            out.extend(_flatten(data[key]))
        return out
    return [data]


def _as_tensor(who: str, arg: str, value) -> Tensor:
    """A batch field as a Tensor (NumPy arrays and nested lists of numbers are converted)."""
    if isinstance(value, Tensor):
        return value
    if value is None or isinstance(value, (str, bytes, dict)):
        raise TypeError(f"{who}: argument {arg!r} expected Tensors or NumPy arrays, got "
                        f"{type(value).__name__}")
    try:
        return to_tensor(np.asarray(value))
    except (TypeError, ValueError) as error:
        raise TypeError(f"{who}: argument {arg!r} expected Tensors or NumPy arrays, got "
                        f"{type(value).__name__} ({error})") from None


def _to_numpy(value):
    return value.numpy() if isinstance(value, Tensor) else value


def _scalar(value) -> float:
    """A loss as a float for the logs (the mean when it has several elements)."""
    array = np.asarray(value, dtype=np.float64)
    return float(array.reshape(-1)[0]) if array.size == 1 else float(array.mean())


def _stack_batches(who: str, index: int, arrays: list):
    """predict's stack_outputs: np.vstack of one output's batches, as Paddle (so
    1-d outputs become one row per batch); batches it cannot stack get an error
    naming the output and the shapes instead of NumPy's."""
    try:
        return np.vstack(arrays)
    except ValueError:
        shapes = [list(np.shape(a)) for a in arrays]
        raise ValueError(f"{who}: stack_outputs=True cannot stack output {index}: its batches have shapes "
                         f"{shapes}, which np.vstack (as Paddle) cannot join (1-d outputs stack as rows, so "
                         f"they need equal batch sizes); use stack_outputs=False or drop the last batch") from None


def _check_verbose(who: str, verbose) -> int:
    if isinstance(verbose, bool) or verbose not in (0, 1, 2, 3):
        raise ValueError(f"{who}: argument 'verbose' expected 0 (silent), 1 (progress bar), 2 (plain "
                         f"lines) or 3 (plain lines with timing), got {verbose!r}")
    return int(verbose)


def _forward_arity(network) -> int:
    """How many leading batch fields feed the network when ``inputs`` is None:
    the positional parameters of ``forward`` (as Paddle counts them); 1 for a
    ``forward(*inputs)``."""
    try:
        params = inspect.signature(network.forward).parameters.values()
    except (TypeError, ValueError):
        return 1
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if positional:
        return len(positional)
    return 1 if any(p.kind is p.VAR_POSITIONAL for p in params) else 0


def _forward_arg_names(network) -> list:
    """The names of ``forward``'s positional parameters (the inferred InputSpecs' names)."""
    try:
        params = inspect.signature(network.forward).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


class Model:
    """A network with training, evaluation and prediction loops (Paddle's
    ``paddle.Model``).

    ``network``: an ``eager.nn.Layer``. ``inputs``/``labels``: descriptions of
    the network's inputs and of the labels (Paddle's ``InputSpec``s; a single
    one, a list or a dict). In dynamic-graph mode only their number matters: a
    batch ``[x1, ..., xn, y1, ...]`` feeds its first ``len(inputs)`` fields to
    the network and the rest, as labels, to the loss and metrics. With
    ``inputs=None`` the number is that of ``network.forward``'s positional
    parameters.

    >>> model = eager.Model(eager.nn.Linear(3, 1))
    >>> model.prepare(eager.optimizer.SGD(0.1, parameters=model.parameters()), eager.nn.MSELoss())
    >>> loss = model.train_batch([np.ones((4, 3), "float32")], [np.zeros((4, 1), "float32")])
    """

    def __init__(self, network, inputs=None, labels=None):
        if not isinstance(network, Layer):
            raise TypeError(f"Model: argument 'network' expected an eager.nn.Layer, got "
                            f"{type(network).__name__}")
        self.mode = "train"
        self.network = network
        self._optimizer = None
        self._loss = None
        self._metrics = []
        self._amp_level = "O0"     # prepare's amp_configs: the auto_cast level,
        self._amp_lists = {}       # its custom lists,
        self._amp_scaling = {}     # the GradScaler's arguments
        self._scaler = None        # and the GradScaler, made by the first train_batch
        self._test_dataloader = None
        self.stop_training = False
        self.num_iters = None
        self._accumulate = 1
        self._inputs = self._specs("inputs", inputs, is_input=True)
        self._labels = self._specs("labels", labels, is_input=False)
        # The inputs' specs for save(training=False): those given, else (as Paddle)
        # the shapes and dtypes of the first batch a *_batch call runs.
        self._inferred_inputs = None
        # Data parallel training under a launcher of several ranks (Paddle's ddp_model).
        self._train_network = network
        if get_world_size() > 1 and not isinstance(network, DataParallel):
            init_parallel_env()
            self._train_network = DataParallel(network)

    def _specs(self, arg: str, specs, is_input: bool) -> list:
        if specs is None:
            if is_input:
                return [f"input_{i}" for i in range(_forward_arity(self.network))]
            return []
        if isinstance(specs, dict):
            specs = list(specs.values())
        elif isinstance(specs, (str, bytes)):
            raise TypeError(f"Model: argument {arg!r} expected InputSpecs (one, a list or a dict) or None, "
                            f"got a {type(specs).__name__}")
        specs = _to_list(specs)
        for i, spec in enumerate(specs):
            # Paddle names the feeds of save(training=False) after the specs
            if isinstance(spec, InputSpec) and spec.name is None:
                raise ValueError(f"Model: argument {arg!r}: InputSpec {i} needs a name, got name=None "
                                 f"in {spec}")
        return specs

    # -- setup ----------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Sets the optimizer (needed by ``fit``/``train_batch``), the loss (an
        ``eager.nn.Layer`` or any callable ``loss(*outputs, *labels)``) and the
        metrics (``eager.metric.Metric`` instances, one or a list).

        ``amp_configs`` (automatic mixed precision, Paddle's): None or 'O0' (off),
        'O1' or 'O2', or a dict with 'level' ('O1' by default), 'custom_white_list',
        'custom_black_list' (for eager.amp.auto_cast) and GradScaler's arguments
        ('init_loss_scaling', 'incr_ratio', 'decr_ratio', 'incr_every_n_steps',
        'decr_every_n_nan_or_inf', 'use_dynamic_loss_scaling'). Batches then run under auto_cast, training
        steps through a GradScaler; 'O2' also decorates the network and the
        optimizer (eager.amp.decorate).

        >>> model.prepare(eager.optimizer.Adam(parameters=model.parameters()),
        ...               eager.nn.CrossEntropyLoss(), eager.metric.Accuracy())
        """
        if optimizer is not None and not isinstance(optimizer, Optimizer):
            raise TypeError(f"Model.prepare: argument 'optimizer' expected an eager.optimizer.Optimizer or "
                            f"None, got {type(optimizer).__name__}")
        if loss is not None and not (isinstance(loss, Layer) or callable(loss)):
            raise TypeError(f"Model.prepare: argument 'loss' expected an eager.nn.Layer or a callable, got "
                            f"{type(loss).__name__}")
        metrics = _to_list(metrics)
        for metric in metrics:
            if not isinstance(metric, Metric):
                raise TypeError(f"Model.prepare: argument 'metrics' expected eager.metric.Metric instances, "
                                f"got {type(metric).__name__}")
        level, lists, scaling = _amp_settings(amp_configs)
        if level != "O0":
            _amp.auto_cast(**lists, level=level)  # checks the lists before anything changes
            _amp.GradScaler(**scaling)            # and the scaler's arguments
        if level == "O2":
            if optimizer is None:
                _amp.decorate(models=self.network, level="O2")
            else:
                _amp.decorate(models=self.network, optimizers=optimizer, level="O2")
        self._amp_level, self._amp_lists, self._amp_scaling, self._scaler = level, lists, scaling, None
        self._optimizer = optimizer
        self._loss = loss
        self._metrics = metrics

    def parameters(self, *args, **kwargs) -> list:
        """The network's parameters (``network.parameters()``).

        >>> opt = eager.optimizer.SGD(0.1, parameters=model.parameters())
        """
        return self.network.parameters(*args, **kwargs)

    def _metrics_name(self) -> list:
        names = ["loss"] if self._loss is not None else []
        for metric in self._metrics:
            names.extend(_to_list(metric.name()))
        return names

    def _reset_metrics(self) -> None:
        for metric in self._metrics:
            metric.reset()

    # -- one batch ------------------------------------------------------------
    def _batch_tensors(self, who: str, inputs, labels):
        if inputs is None:
            raise TypeError(f"{who}: argument 'inputs' expected a Tensor or NumPy array, or a list of them, "
                            f"got None")
        inputs = [_as_tensor(who, "inputs", x) for x in _to_list(inputs)]
        labels = [_as_tensor(who, "labels", y) for y in _to_list(labels)]
        return inputs, labels

    def _losses(self, who: str, outputs, labels) -> list:
        losses = _to_list(self._loss(*(_to_list(outputs) + labels)))
        for loss in losses:
            if not isinstance(loss, Tensor):
                raise TypeError(f"{who}: the loss function returned {type(loss).__name__}, expected a "
                                f"Tensor (or a list of Tensors)")
        if not losses:
            raise ValueError(f"{who}: the loss function returned no loss")
        return losses

    def _update_metrics(self, outputs, labels) -> list:
        values = []
        for metric in self._metrics:
            outs = metric.compute(*(_to_list(outputs) + labels))
            values.append(metric.update(*[_to_numpy(m) for m in _to_list(outs)]))
        return values

    def train_batch(self, inputs, labels=None, update=True):
        """One training step on one batch: forward, loss, backward, and (with
        ``update``) the optimizer step and clearing of the gradients; with
        ``update=False`` gradients accumulate. ``inputs``/``labels``: a NumPy
        array or Tensor, or a list of them.

        Returns the losses (a list of NumPy arrays), or ``(losses, metrics)``
        when the model has metrics (each metric's value on this batch).

        >>> losses = model.train_batch([x], [y])
        """
        who = "Model.train_batch"
        update = to_bool(update, who, "update")
        if self._optimizer is None or self._loss is None:
            raise RuntimeError(f"{who}: the model is not ready: call model.prepare(optimizer, loss) "
                               f"first (optimizer={self._optimizer!r}, loss={self._loss!r})")
        inputs, labels = self._batch_tensors(who, inputs, labels)
        self.network.train()
        self.mode = "train"
        network = self._train_network
        # Accumulating batches (update=False) stay local; the next update averages the total.
        syncing = update or not isinstance(network, DataParallel)
        local = contextlib.nullcontext() if syncing else network.no_sync()
        amp_on = self._amp_level != "O0"
        if amp_on and self._scaler is None:
            self._scaler = _amp.GradScaler(**self._amp_scaling)
        with local:
            with self._auto_cast():
                outputs = network(*inputs)
                losses = self._losses(who, outputs, labels)
                final_loss = losses[0]
                for loss in losses[1:]:
                    final_loss = final_loss + loss
            if amp_on:
                final_loss = self._scaler.scale(final_loss)
            final_loss.backward()
        if update:
            if amp_on:
                self._scaler.minimize(self._optimizer, final_loss)
            else:
                self._optimizer.step()
            self.network.clear_gradients()
        metrics = self._update_metrics(outputs, labels)
        self._infer_inputs(inputs)
        values = [loss.numpy() for loss in losses]
        return (values, metrics) if metrics else values

    def eval_batch(self, inputs, labels=None):
        """Evaluates one batch without recording gradients (the network in eval
        mode). Returns the losses (a list of NumPy arrays) when a loss is set,
        ``(losses, metrics)`` when there are metrics too, or only the metrics
        (``[]`` with neither, as Paddle).

        >>> losses, metrics = model.eval_batch([x], [y])
        """
        who = "Model.eval_batch"
        inputs, labels = self._batch_tensors(who, inputs, labels)
        self.network.eval()
        self.mode = "eval"
        with no_grad(), self._auto_cast():
            outputs = self.network(*inputs)
            losses = self._losses(who, outputs, labels) if self._loss is not None else None
            metrics = self._update_metrics(outputs, labels)
        self._infer_inputs(inputs)
        if losses is not None:
            values = [loss.numpy() for loss in losses]
            return (values, metrics) if metrics else values
        return metrics

    def predict_batch(self, inputs):
        """The network's outputs on one batch (eval mode, no gradients), as a
        list of NumPy arrays.

        >>> (logits,) = model.predict_batch([x])
        """
        inputs, _ = self._batch_tensors("Model.predict_batch", inputs, None)
        self.network.eval()
        self.mode = "test"  # Paddle's name for prediction
        with no_grad(), self._auto_cast():
            outputs = self.network(*inputs)
        self._infer_inputs(inputs)
        return [_to_numpy(o) for o in _to_list(outputs)]

    def _infer_inputs(self, inputs) -> None:
        """Remembers the first batch's input shapes and dtypes as InputSpecs (named
        after forward's arguments), for save(training=False) without given inputs."""
        if self._inferred_inputs is None:
            names = _forward_arg_names(self.network)
            self._inferred_inputs = [
                InputSpec(list(t.shape), t.dtype, name=names[i] if i < len(names) else f"input_{i}")
                for i, t in enumerate(inputs)]

    def _auto_cast(self):
        """auto_cast per prepare's amp_configs (a block that changes nothing at 'O0')."""
        return _amp.auto_cast(enable=self._amp_level != "O0", level=self._amp_level, **self._amp_lists)

    # -- loops ----------------------------------------------------------------
    def _loader(self, who: str, arg: str, data, batch_size, shuffle=False, drop_last=False, num_workers=0,
                training=False):
        # Anything else iterable is taken as the batches themselves, as Paddle does: an
        # array or Tensor gives one batch per index of its first axis (predict(img[None])
        # runs the one batch img).
        if isinstance(data, IterableDataset):
            return DataLoader(data, batch_size=batch_size, num_workers=num_workers)
        if isinstance(data, Dataset):
            if training and get_world_size() > 1:  # each rank its share of every batch
                sampler = DistributedBatchSampler(data, batch_size, shuffle=shuffle, drop_last=drop_last)
                return DataLoader(data, batch_sampler=sampler, num_workers=num_workers)
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                              num_workers=num_workers)
        if isinstance(data, (str, bytes, dict)) or not hasattr(data, "__iter__"):
            raise TypeError(f"{who}: argument {arg!r} expected an eager.io.Dataset or a DataLoader (an iterable "
                            f"of batches), got {type(data).__name__}")
        return data

    @staticmethod
    def _len_data_loader(loader):
        try:
            return len(loader)
        except Exception:  # an iterable without a length: steps unknown
            return None

    def _run_one_epoch(self, loader, callbacks, mode: str, steps=None):
        logs = {}
        outputs = []
        loss_sum, loss_count = None, 0
        self._reset_metrics()
        # Paddle's predict feeds the whole batch when _inputs was reset to None
        n_inputs = None if self._inputs is None and mode == "predict" else len(self._inputs)
        for step, data in enumerate(loader):
            data = _flatten(data)
            if not data:
                raise ValueError(f"Model.{'fit' if mode == 'train' else mode}: batch {step} is empty")
            first = data[0]
            shape = getattr(first, "shape", None)
            batch_size = int(shape[0]) if shape is not None and len(shape) else 1
            callbacks.on_batch_begin(mode, step, logs)
            if mode == "predict":
                outputs.append(self.predict_batch(data[:n_inputs]))
            else:
                inputs, labels = data[:n_inputs], data[n_inputs:]
                if mode == "train":
                    update = (step + 1) % self._accumulate == 0 or (steps is not None and step + 1 == steps)
                    outs = self.train_batch(inputs, labels, update)
                else:
                    outs = self.eval_batch(inputs, labels)
                values = []
                if self._loss is not None:
                    losses = outs[0] if self._metrics else outs
                    current = [_scalar(loss) for loss in losses]
                    if mode == "eval":  # the evaluation's loss: the mean over its samples
                        weighted = [v * batch_size for v in current]
                        loss_sum = weighted if loss_sum is None else [a + b for a, b in zip(loss_sum, weighted)]
                        loss_count += batch_size
                        current = [s / loss_count for s in loss_sum]
                    values.append(current)
                for metric in self._metrics:
                    values.extend(_to_list(metric.accumulate()))
                for name, value in zip(self._metrics_name(), values):
                    logs[name] = value
            logs["step"] = step
            logs["batch_size"] = batch_size
            callbacks.on_batch_end(mode, step, logs)
            if self.num_iters is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    self.num_iters = None
                    break
        self._reset_metrics()
        if mode == "predict":
            return logs, outputs
        return logs

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1, log_freq=10,
            save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True, num_workers=0,
            callbacks=None, accumulate_grad_batches=1, num_iters=None):
        """Trains for ``epochs`` epochs over ``train_data`` (an ``eager.io.Dataset``,
        batched here with ``batch_size``, ``shuffle``, ``drop_last`` and
        ``num_workers``, or a DataLoader / any iterable of batches), evaluating
        on ``eval_data`` after every ``eval_freq``-th epoch (epochs 0,
        eval_freq, ...). ``batch_size`` may be a ``(train, eval)`` pair.

        ``verbose``: 0 silent, 1 a progress bar per epoch, 2 plain lines, 3
        plain lines with Paddle's timing columns (ProgBarLogger).
        ``log_freq``: steps between plain progress lines (verbose=2, or 1 when
        the output is not a terminal); the last step of an epoch always gets
        one. ``save_dir``: checkpoints ``<epoch>`` after epochs 0, save_freq,
        ... and ``final`` (ModelCheckpoint). ``accumulate_grad_batches``:
        batches whose gradients are summed (not averaged, as Paddle) before each
        optimizer step. ``num_iters``: stop after that many batches in all.
        ``callbacks``: Callback instances; a ProgBarLogger, ModelCheckpoint and
        LRScheduler (stepping an optimizer's schedule after every batch) are
        added unless given. Training ends early when ``model.stop_training`` is
        set (checked after each epoch and its evaluation).

        >>> model.fit(train_dataset, eval_dataset, batch_size=64, epochs=10, verbose=1,
        ...           callbacks=[eager.callbacks.EarlyStopping(monitor="acc", mode="max")])
        """
        who = "Model.fit"
        if train_data is None:
            raise ValueError(f"{who}: argument 'train_data' expected a Dataset or DataLoader, got None")
        if self._optimizer is None or self._loss is None:
            raise RuntimeError(f"{who}: the model is not ready: call model.prepare(optimizer, loss) first "
                               f"(optimizer={self._optimizer!r}, loss={self._loss!r})")
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 2:
                raise ValueError(f"{who}: argument 'batch_size' expected an int or a (train, eval) pair, got "
                                 f"{batch_size!r}")
            train_batch_size = _check_int(who, "batch_size", batch_size[0], 1)
            eval_batch_size = _check_int(who, "batch_size", batch_size[1], 1)
        else:
            train_batch_size = eval_batch_size = _check_int(who, "batch_size", batch_size, 1)
        epochs = _check_int(who, "epochs", epochs, 1)
        eval_freq = _check_int(who, "eval_freq", eval_freq, 1)
        log_freq = _check_int(who, "log_freq", log_freq, 1)
        save_freq = _check_int(who, "save_freq", save_freq, 1)
        verbose = _check_verbose(who, verbose)
        num_workers = _check_int(who, "num_workers", num_workers, 0)
        drop_last = to_bool(drop_last, who, "drop_last")
        shuffle = to_bool(shuffle, who, "shuffle")
        accumulate = _check_int(who, "accumulate_grad_batches", accumulate_grad_batches, 1)
        if num_iters is not None:
            num_iters = _check_int(who, "num_iters", num_iters, 1)
        if save_dir is not None and not isinstance(save_dir, (str, os.PathLike)):
            raise TypeError(f"{who}: argument 'save_dir' expected None or a directory path, got "
                            f"{type(save_dir).__name__}")

        train_loader = self._loader(who, "train_data", train_data, train_batch_size, shuffle, drop_last,
                                    num_workers, training=True)
        eval_loader = None if eval_data is None else self._loader(who, "eval_data", eval_data, eval_batch_size,
                                                                  num_workers=num_workers)
        do_eval = eval_loader is not None
        steps = self._len_data_loader(train_loader)
        if num_iters is not None and steps:
            epochs = num_iters // steps + 1
            steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps, log_freq=log_freq,
                                save_freq=save_freq, save_dir=save_dir, verbose=verbose,
                                metrics=self._metrics_name())
        # Only now that every argument is checked does the model's run state change.
        self._test_dataloader = eval_loader
        self._accumulate = accumulate
        self.stop_training = False
        self.num_iters = num_iters
        if do_eval is False and any(isinstance(c, EarlyStopping) for c in cbks):
            warnings.warn(f"{who}: EarlyStopping needs eval_data: without it, it never stops training",
                          stacklevel=2)
        logs = {}
        try:
            cbks.on_begin("train")
            for epoch in range(epochs):
                cbks.on_epoch_begin(epoch)
                logs = self._run_one_epoch(train_loader, cbks, "train", steps)
                cbks.on_epoch_end(epoch, logs)
                if do_eval and epoch % eval_freq == 0:
                    eval_steps = self._len_data_loader(eval_loader)
                    cbks.on_begin("eval", {"steps": eval_steps, "metrics": self._metrics_name()})
                    saved_iters, self.num_iters = self.num_iters, None
                    eval_logs = self._run_one_epoch(eval_loader, cbks, "eval", eval_steps)
                    self.num_iters = saved_iters
                    cbks.on_end("eval", eval_logs)
                if self.stop_training:
                    break
            cbks.on_end("train", logs)
        finally:
            self._test_dataloader = None
            self.num_iters = None

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0, callbacks=None,
                 num_iters=None) -> dict:
        """Evaluates the loss and metrics over ``eval_data`` (a Dataset, batched
        with ``batch_size``, or a DataLoader / iterable of batches); at most
        ``num_iters`` batches. Returns ``{'loss': [mean loss over the samples],
        <metric name>: value, ...}``.

        >>> model.evaluate(eval_dataset, batch_size=64, verbose=0)
        {'loss': [0.0812], 'acc': 0.975}
        """
        who = "Model.evaluate"
        batch_size = _check_int(who, "batch_size", batch_size, 1)
        log_freq = _check_int(who, "log_freq", log_freq, 1)
        verbose = _check_verbose(who, verbose)
        num_workers = _check_int(who, "num_workers", num_workers, 0)
        if num_iters is not None:
            num_iters = _check_int(who, "num_iters", num_iters, 1)
        eval_loader = self._loader(who, "eval_data", eval_data, batch_size, num_workers=num_workers)
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name(), mode="eval")
        self._test_dataloader = eval_loader
        eval_steps = self._len_data_loader(eval_loader)
        if num_iters is not None and eval_steps is not None:
            eval_steps = min(num_iters, eval_steps)
        self.num_iters = num_iters
        try:
            cbks.on_begin("eval", {"steps": eval_steps, "metrics": self._metrics_name()})
            logs = self._run_one_epoch(eval_loader, cbks, "eval", eval_steps)
            cbks.on_end("eval", logs)
        finally:
            self._test_dataloader = None
            self.num_iters = None
            self.stop_training = False
        return {name: logs[name] for name in self._metrics_name() if name in logs}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1,
                callbacks=None) -> list:
        """The network's outputs over ``test_data`` (a Dataset, batched with
        ``batch_size``, or a DataLoader / iterable of batches; only the first
        ``len(inputs)`` fields of each batch are fed). Returns one entry per
        output: a list of per-batch NumPy arrays, or with ``stack_outputs`` one
        array stacking all batches.

        >>> (logits,) = model.predict(test_dataset, batch_size=64, stack_outputs=True, verbose=0)
        """
        who = "Model.predict"
        batch_size = _check_int(who, "batch_size", batch_size, 1)
        stack_outputs = to_bool(stack_outputs, who, "stack_outputs")
        verbose = _check_verbose(who, verbose)
        num_workers = _check_int(who, "num_workers", num_workers, 0)
        test_loader = self._loader(who, "test_data", test_data, batch_size, num_workers=num_workers)
        cbks = config_callbacks(callbacks, model=self, verbose=verbose, mode="predict")
        self._test_dataloader = test_loader
        test_steps = self._len_data_loader(test_loader)
        try:
            cbks.on_begin("predict", {"steps": test_steps})
            logs, outputs = self._run_one_epoch(test_loader, cbks, "predict", test_steps)
            outputs = [list(per_output) for per_output in zip(*outputs)]
            if stack_outputs:
                outputs = [_stack_batches(who, i, per_output) for i, per_output in enumerate(outputs)]
            cbks.on_end("predict", logs)
        finally:
            self._test_dataloader = None
        return outputs

    def summary(self, input_size=None, dtype=None) -> dict:
        """Prints the network's layer table (:func:`eager.summary`) and returns
        ``{'total_params': ..., 'trainable_params': ...}``. ``input_size``: a
        shape tuple (a list of them for several inputs); by default the shapes
        of the InputSpecs given as ``inputs``. ``dtype``: the inputs' dtype
        (float32 by default).

        >>> eager.Model(eager.nn.Linear(64, 10)).summary((1, 64))
        """
        if input_size is None:
            shapes = [getattr(spec, "shape", None) for spec in self._inputs]
            if not shapes or any(shape is None for shape in shapes):
                raise ValueError("Model.summary: argument 'input_size' is needed: the model was built "
                                 "without inputs (InputSpecs with shapes) to take it from")
            input_size = tuple(shapes[0]) if len(shapes) == 1 else [tuple(shape) for shape in shapes]
        return _summary(self.network, input_size, dtypes=dtype)

    # -- checkpoints ----------------------------------------------------------
    def save(self, path, training=True) -> None:
        """Writes ``path + '.pdparams'`` (the network's state dict), when an
        optimizer is set ``path + '.pdopt'`` (its state dict), and with mixed
        precision once training has made the GradScaler ``path + '.pdscaler'``
        (its state), with :func:`eager.save`: safetensors files under Paddle's
        extensions.
        Missing directories are made. ``training=False`` saves the inference
        model instead, as Paddle: :func:`eager.jit.save` of the network traced
        with the model's ``inputs`` (InputSpecs), or, when none were given, with
        the shapes and dtypes of the first batch run (a warning says so); before
        any batch and without ``inputs`` it raises RuntimeError.
        Under ``mpiexec`` only rank 0 writes (every rank's model is the same), as in Paddle.

        >>> model.save("checkpoints/epoch3")    # checkpoints/epoch3.pdparams, .pdopt
        >>> model.save("infer/mnist", training=False)   # .pdmodel, .pdiparams: eager.jit.load
        """
        who = "Model.save"
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{who}: argument 'path' expected a str path prefix, got {type(path).__name__}")
        path = os.fspath(path)
        training = to_bool(training, who, "training")
        if not os.path.basename(path):
            raise ValueError(f"{who}: argument 'path' expected 'dirname/file_prefix', got {path!r} (no file "
                             f"prefix)")
        if not training:
            specs = self._inference_specs(who)
        if get_rank() != 0:
            return
        dirname = os.path.dirname(path)
        if dirname:
            os.makedirs(dirname, exist_ok=True)
        if not training:
            _jit_save(self.network, path, input_spec=specs)
            return
        # The optimizer's state first: it names the parameters (eager names
        # tensors on first use), and the parameter file keeps those names, which
        # load() uses to match the state to another model's parameters.
        optim_state = None if self._optimizer is None else self._optimizer.state_dict()
        _save(self.network.state_dict(), path + ".pdparams")
        if optim_state is not None:
            _save(optim_state, path + ".pdopt")
        # Mixed precision: the loss scale and its counters, as Paddle's path.pdscaler.
        scaler_state = None if self._scaler is None else self._scaler.state_dict()
        if scaler_state:
            _save(scaler_state, path + ".pdscaler")

    def _inference_specs(self, who: str) -> list:
        """The InputSpecs save(training=False) traces with: the model's ``inputs``
        when given with shapes, else those of the first batch run (with a warning,
        as Paddle), else a RuntimeError before anything is written."""
        if self._inputs and all(isinstance(spec, InputSpec) for spec in self._inputs):
            return list(self._inputs)
        if self._inferred_inputs is None:
            raise RuntimeError(f"{who}: saving an inference model (training=False) needs the inputs' shapes: "
                               f"give 'inputs' (InputSpecs) to Model(...), or run a batch (fit, train_batch, "
                               f"eval_batch, predict_batch) first so that they are taken from it")
        warnings.warn(f"{who}: 'inputs' were not given to Model(...), so the inference model is saved for "
                      f"the shapes of the first batch run: {[list(s.shape) for s in self._inferred_inputs]}; "
                      f"give InputSpecs (with None for the batch size) to choose them", stacklevel=3)
        return list(self._inferred_inputs)

    def load(self, path, skip_mismatch=False, reset_optimizer=False) -> None:
        """Loads ``path + '.pdparams'`` into the network and, unless
        ``reset_optimizer``, ``path + '.pdopt'`` (when it exists) into the
        optimizer, and ``path + '.pdscaler'`` (when it exists) into the GradScaler
        of a mixed precision model that has made one, as Paddle; files of
        eager's ``save`` or of Paddle's ``Model.save``. ``path`` may carry one of those extensions. A parameter
        missing from the file or of another shape raises, or with
        ``skip_mismatch`` is skipped with a warning. Everything is checked
        before anything is written. When a parameter is skipped the optimizer's
        state is not loaded (as Paddle, which then resets the optimizer).

        >>> model.load("checkpoints/epoch3")
        """
        who = "Model.load"
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{who}: argument 'path' expected a str path prefix, got {type(path).__name__}")
        path = os.fspath(path)
        root, ext = os.path.splitext(path)
        if ext in (".pdparams", ".pdopt", ".pdmodel"):
            path = root
        params_path = path + ".pdparams"
        if not os.path.exists(params_path):
            raise FileNotFoundError(f"{who}: no parameter file {params_path!r}")
        state = _load(params_path)
        if not isinstance(state, dict):
            raise ValueError(f"{who}: {params_path!r} holds a {type(state).__name__}, expected a state dict")
        matched = {}
        renamed = {}  # the saved parameter's name -> the name of ours it loads into
        for key, param in self.network.state_dict().items():
            value = state.get(key)
            if isinstance(value, Tensor):
                if value._name is not None:
                    renamed[value._name] = param.name
                value = value.numpy()
            if value is None:
                problem = f"{key!r} is not in {params_path!r}"
            elif not isinstance(value, np.ndarray):
                problem = f"{key!r} in {params_path!r} is a {type(value).__name__}, not an array"
            elif list(value.shape) != list(param.shape):
                problem = f"{key!r} has shape {list(value.shape)} in the file, expected {list(param.shape)}"
            else:
                if value.dtype != np.dtype(param.numpy().dtype):
                    value = value.astype(param.numpy().dtype)
                matched[key] = value
                continue
            if not skip_mismatch:
                raise ValueError(f"{who}: {problem} (skip_mismatch=True skips it)")
            warnings.warn(f"{who}: skipping {problem}", stacklevel=2)
            # The saved optimizer state belongs to parameters this model does not
            # have (or has in another shape): as Paddle, the optimizer starts afresh.
            reset_optimizer = True
        optim_state = None
        opt_path = path + ".pdopt"
        if not reset_optimizer and self._optimizer is not None and os.path.exists(opt_path):
            optim_state = _load(opt_path, return_numpy=True)
        scaler_path = path + ".pdscaler"
        scaler_state = None
        if self._scaler is not None and os.path.exists(scaler_path):
            scaler_state = _load(scaler_path, return_numpy=True)
        if optim_state is not None:
            optim_state = self._renamed_optimizer_state(optim_state, renamed)
            self._optimizer.set_state_dict(optim_state)  # checks everything before it changes anything
        if scaler_state is not None:
            self._scaler.load_state_dict(scaler_state)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the skipped keys were warned about above
            self.network.set_state_dict(matched)


    def _renamed_optimizer_state(self, state, renamed: dict):
        """The optimizer state with its entries keyed by our parameters' names:
        the state keys accumulators by parameter name ("<name>_moment1_0"), and a
        model built in another place (or later in this process) names its
        parameters differently; the parameter file says which is which."""
        if not isinstance(state, dict) or not renamed:
            return state
        suffixes = [f"_{name}_0" for name, _, _ in getattr(self._optimizer, "_accumulator_specs", ())]
        out = {}
        for key, value in state.items():
            new_key = key
            if isinstance(key, str):
                for suffix in suffixes:
                    if key.endswith(suffix) and key[:-len(suffix)] in renamed:
                        new_key = renamed[key[:-len(suffix)]] + suffix
                        break
                if key == "master_weights" and isinstance(value, dict):
                    value = {renamed.get(k, k): v for k, v in value.items()}
            out[new_key] = value
        return out


__all__ = ["Model"]


_AMP_LIST_KEYS = ("custom_white_list", "custom_black_list")
_AMP_SCALER_KEYS = ("init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                    "decr_every_n_nan_or_inf", "use_dynamic_loss_scaling")


def _amp_settings(amp_configs) -> tuple:
    """Model.prepare's amp_configs as (level, auto_cast's custom lists, GradScaler's arguments)."""
    who = "Model.prepare"
    if amp_configs is None or (isinstance(amp_configs, dict) and not amp_configs):
        return "O0", {}, {}  # Paddle: an empty dict, like None, is no mixed precision
    if isinstance(amp_configs, str):
        if amp_configs not in ("O0", "O1", "O2"):
            raise ValueError(f"{who}: argument 'amp_configs' expected 'O0', 'O1', 'O2' or a dict, got {amp_configs!r}")
        return amp_configs, {}, {}
    if not isinstance(amp_configs, dict):
        raise TypeError(f"{who}: argument 'amp_configs' expected None, a level ('O0', 'O1', 'O2') or a dict, "
                        f"got {type(amp_configs).__name__}")
    level = amp_configs.get("level", "O1")
    if level not in ("O0", "O1", "O2"):
        raise ValueError(f"{who}: amp_configs['level'] expected 'O0', 'O1' or 'O2', got {level!r}")
    if level == "O0":
        return "O0", {}, {}  # Paddle reads no other key when mixed precision is off
    if "use_pure_fp16" in amp_configs:
        raise ValueError(f"{who}: amp_configs key 'use_pure_fp16' is not taken (as in Paddle 2.6): the level "
                         f"alone, 'O1' or 'O2', says whether training is pure float16")
    static_only = {"custom_black_varnames", "use_fp16_guard"} & set(amp_configs)
    if static_only:
        raise ValueError(f"{who}: amp_configs keys {sorted(static_only)} are for static graphs (Paddle's "
                         f"static mode) only")
    unknown = set(amp_configs) - {"level", *_AMP_LIST_KEYS, *_AMP_SCALER_KEYS}
    if unknown:
        raise ValueError(f"{who}: amp_configs keys {sorted(unknown)} are not mixed precision settings; "
                         f"expected 'level', {', '.join(map(repr, _AMP_LIST_KEYS + _AMP_SCALER_KEYS))}")
    lists = {key: amp_configs[key] for key in _AMP_LIST_KEYS if key in amp_configs}
    scaling = {key: amp_configs[key] for key in _AMP_SCALER_KEYS if key in amp_configs}
    return level, lists, scaling
