"""Optimizers (Paddle 2.x's ``paddle.optimizer``): SGD, Momentum, Adam, AdamW,
Adamax, Adagrad, Adadelta, RMSProp, Lamb (LBFGS: lbfgs.py; NAdam, RAdam, ASGD,
Rprop: nadam.py, radam.py, asgd.py, rprop.py, on this base class).

``step()`` runs under ``no_grad`` and updates every parameter in its own
buffer through Paddle's fused phi ops (``phi.api.sgd_``, ``momentum_``,
``adam_``, ``adamw_``), so parameters stay leaves, keep their identity (a
Layer and the optimizer see the same tensor) and their version counter records
the change (a graph that saved the old value then refuses to run backward).
Composing the update from inplace ops (``p.subtract_(g.scale(lr))``) gives the
same values but allocates two parameter-sized temporaries per parameter, which
doubled the peak memory of a small-batch training step.

A step, as Paddle's dygraph ``Optimizer.step``: the gradients of trainable
parameters, then ``grad_clip`` (an
``eager.nn.ClipGrad*``), then weight decay (the parameter's own
``regularizer`` if it has one, else the optimizer's ``weight_decay``: a float
is ``L2Decay(float)``), then the fused update. Clipping and decay make new
gradient tensors: ``param.grad`` itself is never changed.

A SelectedRows gradient (``Embedding(sparse=True)``) goes to SGD's, Adam's
and AdamW's row kernels as it is, so only its rows are read and written (and
with Adam's ``lazy_mode`` only their moments). Clipping, weight decay and
Momentum need every row: for them the gradient is made dense first, which is
exact (a missing row is a zero row) but costs the table's memory.

Each parameter's update is worked out once into a plan (plan.py: its
regularizer, learning-rate tensor and the fused op with its arguments bound,
each subclass's ``_updater``) and reused while nothing it rests on changes;
what the step used to look up per parameter is still read when it can change.

The optimizer's state lives in tensors made by phi ops on each parameter's
device: the accumulators (``velocity``; ``moment1``, ``moment2``,
``beta1_pow_acc``, ``beta2_pow_acc``), the float32 master weights of float16
parameters under ``multi_precision``, and the learning rate the kernels read
(one element, refilled only when ``set_lr`` changes it). Accumulators of a
float16 parameter are float32, as in Paddle.

>>> opt = eager.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
>>> loss.backward(); opt.step(); opt.clear_grad()
"""
from __future__ import annotations

import builtins
import math
import numbers
import re
import time

import numpy as np

from phi import api as phi_api
import phi.api.optimizer  # noqa: F401  (phi_api.optimizer: the fused updates)
from phi.common import DataType, TensorKind
from phi.common.data_type import HALF_TYPES
from phi.core import PhiError
from phi.infermeta import grad_dtype_fits, optimizer_state_dtype

from ..arguments import to_bool, to_dtype
from ..autograd.grad_mode import no_grad
from ..autograd.op_modes import MODES
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..nn.clip import ClipGradBase
from ..regularizer import L1Decay, L2Decay, WeightDecayRegularizer
from ..tensor import Tensor
from .lr import LRScheduler
from .multi_tensor import FlatGroup, stable_grads
from .plan import ParamPlan, lr_ratio

# Keys of a state dict that are not accumulators.
_STEP_KEY, _LR_KEY, _MASTER_KEY, _SCHEDULER_KEY = "@step", "@lr", "master_weights", "LR_Scheduler"


class Optimizer:
    """Base class: holds the parameters, the learning rate, weight decay and
    gradient clipping; subclasses declare their accumulators and run their
    fused phi op in :meth:`_update`.

    ``parameters``: the tensors to optimize (e.g. ``layer.parameters()``), each a
    leaf, or parameter groups: dicts with 'params' (a list of tensors) and
    optionally 'learning_rate' (a multiplier of the optimizer's rate, replacing
    the parameters' ParamAttr learning rate, as Paddle), 'weight_decay' (wins
    over the parameters' own regularizers, as Paddle) and the optimizer's
    hyperparameters (``beta1``, ``momentum``, ``rho``, ...):
    ``Adam(parameters=[{"params": body}, {"params": head, "learning_rate": 10.0}])``.
    ``learning_rate``: a finite float >= 0 or an
    ``eager.optimizer.lr.LRScheduler`` (read at every step), scaled per
    parameter by its ``optimize_attr["learning_rate"]``
    (``ParamAttr(learning_rate=...)``).
    ``weight_decay``: a float (``L2Decay``), an ``eager.regularizer.L1Decay``
    or ``L2Decay``, or None. ``grad_clip``: an ``eager.nn.ClipGradByValue``,
    ``ClipGradByNorm`` or ``ClipGradByGlobalNorm``, or None.
    """

    # (name, fill value, True for a one-element accumulator) of each accumulator.
    _accumulator_specs: tuple = ()
    _multi_precision = False

    # The hyperparameters a parameter group may set for its own parameters besides
    # 'params', 'learning_rate' and 'weight_decay': name -> check(who, arg, value).
    # (check named by its function in this module, so that classes can name the
    # checks defined below them). A group's value is read by _hyper(param, name);
    # the optimizer's is self._<name>.
    _group_keys: dict = {}

    # Whether _update takes a SelectedRows gradient as it is (SGD, Adam, AdamW:
    # only its rows are read); otherwise it is made dense first.
    _takes_rows = True

    # The optimizer's attributes its updates read besides the parameters' own
    # (see plan.py): every step reads them into one tuple, and the parameters'
    # plans are made again when it differs from the last step's.
    _plan_reads: tuple = ("_multi_precision", "regularization")
    # Paddle's constructors take a float learning rate, not an int (LBFGS's
    # documented learning_rate=1 is the exception); set_lr takes both.
    _int_learning_rate: bool = False
    # Set per instance in __init__ (class defaults for wrappers that skip it).
    _paddle_style: bool = False
    _added_accumulators: tuple = ()
    # Regularizers of a parameter's own that the update op applies itself, so
    # append_regularization_ops leaves them out (Momentum's L2Decay).
    _fused_own_decay: tuple = ()

    def __init__(self, learning_rate: float = 0.001, parameters=None, weight_decay=None,
                 grad_clip=None, name=None):
        who = type(self).__name__
        if isinstance(learning_rate, LRScheduler):
            self._lr_scheduler, self._lr_value = learning_rate, learning_rate()
        else:
            if not self._int_learning_rate:
                _refuse_int(who, "learning_rate", learning_rate, "a float or an LRScheduler")
            self._lr_scheduler, self._lr_value = None, _check_learning_rate(who, learning_rate)
        self._parameter_list, self._param_groups = _check_parameter_groups(
            who, parameters, self._group_keys)
        self._group_of = {id(p): group for group in self._param_groups for p in group["params"]}
        self._group_clips = any("grad_clip" in group for group in self._param_groups)
        # Paddle's optimizer dtype: its first parameter's when built (None without one).
        self._dtype = self._parameter_list[0].dtype if self._parameter_list else None
        self.regularization = _check_weight_decay(who, weight_decay)
        if grad_clip is not None and not isinstance(grad_clip, ClipGradBase):
            raise TypeError(f"{who}: argument 'grad_clip' expected None, eager.nn.ClipGradByValue, "
                            f"ClipGradByNorm or ClipGradByGlobalNorm, got {type(grad_clip).__name__}")
        self._grad_clip = grad_clip
        self._name = name
        self._accumulators: dict = {}     # (accumulator name, id(param)) -> Tensor
        self._states: dict = {}           # id(param) -> the accumulators' DenseTensors, in spec order
        self._master_weights: dict = {}   # id(param) -> float32 Tensor (multi_precision)
        self._lr_inputs: dict = {}        # (dtype, place, ratio) -> (learning rate, DenseTensor)
        self._plans: dict = {}            # id(param) -> its ParamPlan (plan.py)
        self._plan_settings = None        # what the plans were made for (_settings)
        self._step_count = 0
        self._use_multi_tensor = False    # set by the optimizers that take use_multi_tensor
        self._flat_groups: dict = {}      # multi-tensor key -> FlatGroup (multi_tensor.py)
        self._flat_seen: dict = {}        # multi-tensor key -> ids of the last step's .grad buffers
        self._hyper_tensors: dict = {}    # attribute -> (argument, Tensor, check): see _hyper_argument
        # A subclass written as Paddle's (its own _append_optimize_op) updates through it;
        # the accumulators its _create_accumulators adds are named here, in order.
        self._paddle_style = type(self)._append_optimize_op is not Optimizer._append_optimize_op
        self._added_accumulators: list = []

    # -- learning rate --------------------------------------------------------
    def get_lr(self) -> float:
        """The current learning rate (the scheduler's, when ``learning_rate`` is
        an :class:`eager.optimizer.lr.LRScheduler`)."""
        if self._lr_scheduler is not None:
            return self._lr_scheduler()
        return self._lr_value

    def set_lr(self, value: float) -> None:
        """Sets the learning rate used by the following steps. Refused while an
        LRScheduler drives the rate (as Paddle): step the scheduler instead."""
        who = f"{type(self).__name__}.set_lr"
        if self._lr_scheduler is not None:
            raise RuntimeError(f"{who}: the learning rate comes from {type(self._lr_scheduler).__name__}, an "
                               f"LRScheduler; step the scheduler, or build the optimizer with a float "
                               f"learning_rate to set it by hand")
        self._lr_value = _check_learning_rate(who, value)

    def set_lr_scheduler(self, scheduler) -> None:
        """Lets ``scheduler`` (an LRScheduler) drive the learning rate from now on."""
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(f"{type(self).__name__}.set_lr_scheduler: argument 'scheduler' expected an "
                            f"eager.optimizer.lr.LRScheduler, got {type(scheduler).__name__}")
        self._lr_scheduler = scheduler

    @property
    def _learning_rate(self):
        """What Paddle keeps in ``_learning_rate`` and scripts read: the
        LRScheduler driving the rate (``opt._learning_rate.step()``), else the
        float rate. Setting a float (checked) or an LRScheduler replaces it."""
        return self._lr_value if self._lr_scheduler is None else self._lr_scheduler

    @_learning_rate.setter
    def _learning_rate(self, value) -> None:
        if isinstance(value, LRScheduler):
            self._lr_scheduler, self._lr_value = value, value()
        else:
            self._lr_value = _check_learning_rate(f"{type(self).__name__}._learning_rate", value)
            self._lr_scheduler = None

    def _lr_input(self, param):
        """The one-element learning-rate tensor the kernels read for ``param``:
        the optimizer's rate times the parameter's ratio, in the state dtype, on
        param's device. Made once per (dtype, device, ratio) and again only when
        the rate changes, so a step allocates nothing for it; each parameter's
        plan remembers its own for the next step."""
        return self._plan_of(param).lr_input

    def _plan_lr(self, plan: ParamPlan, lr: float, ratio: float) -> None:
        """Gives ``plan`` the learning-rate tensor of rate ``lr`` times ``ratio``
        (the shared one of its dtype, device and ratio, made when missing or of
        another rate). Keyed by param's DenseTensor's device: after Layer.to the
        plan is new, and finds the shared one of that place."""
        impl = plan.impl
        dtype = optimizer_state_dtype(impl.dtype)
        place = impl.place
        key = (dtype, place, ratio)
        shared = self._lr_inputs.get(key)
        if shared is None or shared[0] != lr:
            shared = self._lr_inputs[key] = (lr, phi_api.full((), lr * ratio, dtype, place))
        plan.lr, plan.ratio, plan.lr_key, plan.lr_input = lr, ratio, key, shared[1]

    # -- step plans (plan.py) -----------------------------------------------------
    def _settings(self) -> tuple:
        """The optimizer-wide values the plans rest on: the ``_plan_reads``
        attributes, then each parameter group's values (not its parameters)."""
        values = tuple([getattr(self, name) for name in self._plan_reads])
        if self._param_groups:
            values += tuple([tuple([(k, v) for k, v in group.items() if k != "params"])
                             for group in self._param_groups])
        return values

    def _hyper_argument(self, arg: str, value, check, attr: str = None) -> float:
        """The float value of hyperparameter ``arg`` (``beta1``, ``epsilon``, ...)
        given as a number or, as Paddle allows, a one-element float Tensor. A
        Tensor's value is read again at every step (:meth:`_read_hyper_tensors`)
        into the attribute ``attr`` (default ``"_" + arg``), so changing it in
        place changes the following steps, as in Paddle.
        ``check(who, arg, value)`` checks the value and returns it as a float."""
        who = type(self).__name__
        if not isinstance(value, Tensor):
            return check(who, arg, value)
        self._hyper_tensors[attr or "_" + arg] = (arg, value, check)
        return check(who, arg, _tensor_hyper(who, arg, value))

    def _read_hyper_tensors(self) -> None:
        """Sets each hyperparameter given as a Tensor to the Tensor's value now
        (checked; once per step, before anything else: a changed value is a
        changed setting, and the plans are made again)."""
        who = f"{type(self).__name__}.step"
        for attr, (arg, tensor, check) in self._hyper_tensors.items():
            setattr(self, attr, check(who, arg, _tensor_hyper(who, arg, tensor)))

    def _check_plans(self) -> None:
        """Drops every plan when the settings differ from those they were made for
        (once per step, before any plan is used)."""
        settings = self._settings()
        if settings != self._plan_settings:
            self._plans.clear()
            self._plan_settings = settings

    def _new_plan(self, param) -> ParamPlan:
        """A new plan for param (its regularizer and group factor; the update and
        the learning rate come on its first use: _plan_ready)."""
        group = self._group_of.get(id(param))
        group_ratio = group["learning_rate"] if group is not None and "learning_rate" in group else None
        plan = self._plans[id(param)] = ParamPlan(param.impl, getattr(param, "regularizer", None),
                                                  group_ratio, self._regularizer_of(param))
        return plan

    def _plan_of(self, param) -> ParamPlan:
        """param's plan, checked (made again if it no longer holds) and ready to run."""
        impl = param.impl
        plan = self._plans.get(id(param))
        if plan is None or not plan.holds(param, impl):
            plan = self._new_plan(param)
        self._plan_ready(plan, param)
        return plan

    def _plan_ready(self, plan: ParamPlan, param) -> None:
        """Refreshes plan's learning rate when the rate or param's ratio changed,
        and makes its update on first use."""
        lr, ratio = self._lr_value, lr_ratio(param, plan)
        if plan.lr != lr or plan.ratio != ratio:
            self._plan_lr(plan, lr, ratio)
        if plan.run is None:
            plan.run = self._updater(param)

    # -- the step -------------------------------------------------------------
    @no_grad()
    def step(self) -> None:
        """Updates every parameter that has a gradient, in place. Parameters
        without a gradient (unused in the loss) or with stop_gradient=True are
        skipped."""
        self._apply_optimize([(param, grad) for param in self._parameter_list
                              if not param.stop_gradient and (grad := param.grad) is not None])

    def minimize(self, loss: Tensor, startup_program=None, parameters=None, no_grad_set=None):
        """Applies the gradients already computed (Paddle's dygraph ``minimize``:
        call ``loss.backward()`` first): :meth:`backward` then
        :meth:`apply_gradients`. Returns ``(optimize_ops, params_grads)``, with
        no ops in dynamic-graph mode. Gradients are not cleared."""
        params_grads = self.backward(loss, startup_program, parameters, no_grad_set)
        return self.apply_gradients(params_grads), params_grads

    def backward(self, loss: Tensor, startup_program=None, parameters=None, no_grad_set=None,
                 callbacks=None) -> list:
        """The ``(parameter, gradient)`` pairs :meth:`apply_gradients` would use
        (Paddle's dygraph ``Optimizer.backward``: it reads the gradients that
        ``loss.backward()`` left, it does not run backward itself).
        ``parameters`` (default: the optimizer's; Tensors or their names) picks
        among the optimizer's parameters; those with ``stop_gradient=True``,
        without a gradient, or in ``no_grad_set`` (Tensors or their names) are
        left out. ``startup_program`` and ``callbacks`` belong to the static
        graph: accepted and not used, as in Paddle's dynamic-graph mode.

        >>> loss.backward()
        >>> pairs = opt.backward(loss)
        >>> opt.apply_gradients(pairs)
        """
        who = f"{type(self).__name__}.backward"
        if not isinstance(loss, Tensor):
            raise TypeError(f"{who}: argument 'loss' expected a Tensor, got {type(loss).__name__}")
        if parameters is None:
            chosen = self._parameter_list
        else:  # Tensors or their names (Paddle takes either), all of this optimizer's
            by_name = {p.name: p for p in self._parameter_list}
            if isinstance(parameters, (list, tuple)) and any(isinstance(p, str) for p in parameters):
                missing = [p for p in parameters if isinstance(p, str) and p not in by_name]
                if missing:
                    raise ValueError(f"{who}: argument 'parameters' names {missing}, which are not "
                                     f"parameters of this optimizer")
                parameters = [by_name[p] if isinstance(p, str) else p for p in parameters]
            chosen = _check_parameters(who, parameters)
            known = {id(p) for p in self._parameter_list}
            for p in chosen:
                if id(p) not in known:
                    raise ValueError(f"{who}: parameter {p.name!r} is not one this optimizer was given")
        if no_grad_set is not None and not isinstance(no_grad_set, (set, frozenset, list, tuple)):
            raise TypeError(f"{who}: argument 'no_grad_set' expected None or a list/set of Tensors or "
                            f"names, got {type(no_grad_set).__name__}")
        skip = set()
        for item in no_grad_set or ():
            if not isinstance(item, (Tensor, str)):
                raise TypeError(f"{who}: argument 'no_grad_set' expected Tensors or names (str), got "
                                f"{type(item).__name__}")
            skip.add(item if isinstance(item, str) else id(item))
        return [(p, p.grad) for p in chosen
                if p.grad is not None and not p.stop_gradient and id(p) not in skip and p.name not in skip]

    def apply_gradients(self, params_grads) -> list:
        """Updates each parameter of ``params_grads`` (``(parameter, gradient)``
        pairs, e.g. from :meth:`backward`) with the given gradient, through the
        optimizer's gradient clipping, weight decay and learning rate, in place.
        Every pair is checked before anything changes: each parameter must be
        one of this optimizer's, each gradient a Tensor of its shape (or None:
        skipped). Returns the optimize ops: none in dynamic-graph mode.

        >>> opt.apply_gradients([(w, eager.ones_like(w))])   # w -= lr * 1 with SGD
        """
        who = f"{type(self).__name__}.apply_gradients"
        if not isinstance(params_grads, (list, tuple)):
            raise TypeError(f"{who}: argument 'params_grads' expected a list of (parameter, gradient) "
                            f"pairs, got {type(params_grads).__name__}")
        known = {id(p) for p in self._parameter_list}
        pairs = []
        for i, pair in enumerate(params_grads):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise TypeError(f"{who}: item {i} expected a (parameter, gradient) pair, got "
                                f"{type(pair).__name__}")
            param, grad = pair
            if not isinstance(param, Tensor) or id(param) not in known:
                raise ValueError(f"{who}: item {i}: the parameter is not one this optimizer was given")
            if grad is not None:
                if not isinstance(grad, Tensor):
                    raise TypeError(f"{who}: item {i} ({param.name!r}): the gradient expected a Tensor or "
                                    f"None, got {type(grad).__name__}")
                if grad.shape != param.shape:
                    raise ValueError(f"{who}: item {i} ({param.name!r}): the gradient expected shape "
                                     f"{param.shape}, got {grad.shape}")
                pairs.append((param, grad))
        with no_grad():
            self._apply_optimize(pairs)
        return []

    def append_regularization_ops(self, parameters_and_grads, regularization=None) -> list:
        """``(parameter, gradient + decay term)`` for each pair, as Paddle's: a
        parameter's own ``regularizer`` (its ParamAttr's) wins over
        ``regularization`` (an ``L1Decay``/``L2Decay`` or None); a pair without
        a gradient or without either regularizer comes back as given (so does
        one whose own L2Decay Momentum's op adds itself). The new
        gradients are new tensors (the given ones are left as they are); nothing
        is updated.

        >>> opt.append_regularization_ops([(w, g)], eager.regularizer.L2Decay(0.1))  # [(w, g + 0.1 * w)]
        """
        who = f"{type(self).__name__}.append_regularization_ops"
        if regularization is not None and not isinstance(regularization, WeightDecayRegularizer):
            raise TypeError(f"{who}: argument 'regularization' expected None or an "
                            f"eager.regularizer.L1Decay/L2Decay, got {type(regularization).__name__}")
        pairs = []
        for i, pair in enumerate(parameters_and_grads):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise TypeError(f"{who}: item {i} expected a (parameter, gradient) pair, got "
                                f"{type(pair).__name__}")
            param, grad = pair
            if not isinstance(param, Tensor) or not (grad is None or isinstance(grad, Tensor)):
                raise TypeError(f"{who}: item {i} expected a (Tensor, Tensor or None) pair, got "
                                f"({type(param).__name__}, {type(grad).__name__})")
            pairs.append((param, grad))
        out = []
        with no_grad():
            for param, grad in pairs:
                own = getattr(param, "regularizer", None)
                if isinstance(own, self._fused_own_decay):  # Momentum's op adds it, as Paddle's
                    out.append((param, grad))
                    continue
                regularizer = own or regularization
                if grad is not None and regularizer is not None:
                    grad = _decayed(regularizer, param, grad)
                out.append((param, grad))
        return out

    def _apply_optimize(self, params_grads) -> None:
        recorder = MODES.recorder  # the profiler's (eager.profiler): the update is one span
        if recorder is None:
            return self._run_updates(params_grads)
        start = time.perf_counter_ns()
        try:
            return self._run_updates(params_grads)
        finally:
            recorder.add_span(f"{type(self).__name__}.step", "Optimization", start)

    def _run_updates(self, params_grads) -> None:
        who = type(self).__name__
        if self._hyper_tensors:  # first: a bad value raises before anything changes
            self._read_hyper_tensors()
        if self._lr_scheduler is not None:
            self._lr_value = self._lr_scheduler()
        if self._grad_clip is not None or self._group_clips:
            params_grads = self._clipped(params_grads)
        self._step_count += 1
        self._check_plans()
        if self._paddle_style:
            return self._run_paddle_style(params_grads)
        plans, lr, dense_only = self._plans, self._lr_value, not self._takes_rows
        pending = [] if self._use_multi_tensor else None  # (param, grad, plan) for _update_many
        for param, grad in params_grads:
            if grad is None:
                continue
            # _plan_of, inline: this loop is the step's per-parameter Python.
            impl = param.impl
            plan = plans.get(id(param))
            if plan is None or plan.impl is not impl or plan.array is not impl.array \
                    or plan.own is not getattr(param, "regularizer", None):
                plan = self._new_plan(param)
            regularizer = plan.regularizer
            if regularizer is not None or dense_only:
                grad = _dense(grad)
            if regularizer is not None:
                # The sum would broadcast a gradient of the wrong shape: check first
                # (without decay, the fused op's InferMeta checks it).
                _check_grad(who, param, grad)
                grad = _decayed(regularizer, param if grad.impl.dtype is impl.dtype else
                                self._decay_target(param), grad)
            if pending is not None and grad.impl.kind is TensorKind.DENSE:
                pending.append((param, grad, plan))
            else:
                ratio = plan.group_ratio
                if ratio is None:
                    attr = getattr(param, "optimize_attr", None)
                    ratio = 1.0 if attr is None else attr["learning_rate"]
                if plan.lr != lr or plan.ratio != ratio or plan.run is None:
                    self._plan_ready(plan, param)
                try:
                    plan.run(grad.impl, plan.lr_input)
                except PhiError as error:  # name the parameter the user knows
                    raise type(error)(f"{who}.step: parameter {param.name!r}: {error}") from None
            grad = None  # a clipped or decayed gradient goes before the next is made
        if pending:
            self._update_many(who, pending)

    # -- Paddle's extension points: a subclass that defines _append_optimize_op ----
    def _run_paddle_style(self, params_grads) -> None:
        """A step as Paddle's: the (clipped) gradients get their weight decay,
        ``_create_accumulators(None, parameters)`` runs, then
        ``_append_optimize_op(None, (param, grad))`` for each parameter."""
        pairs = []
        for param, grad in params_grads:
            if grad is None:
                continue
            regularizer = self._regularizer_of(param)
            if regularizer is not None:
                grad = _dense(grad)
                _check_grad(type(self).__name__, param, grad)
                grad = _decayed(regularizer, param, grad)
            pairs.append((param, grad))
        self._create_accumulators(None, [param for param, _ in pairs])
        for pair in pairs:
            self._append_optimize_op(None, pair)

    def _create_accumulators(self, block, parameters) -> None:
        """Paddle's hook: a subclass adds its accumulators here
        (:meth:`_add_accumulator`); called before every Paddle-style step."""

    def _append_optimize_op(self, block, param_and_grad) -> None:
        """Paddle's hook: updates one ``(param, grad)`` pair in place. A subclass
        overrides it (with :meth:`_get_accumulator`, :meth:`_create_param_lr` and
        eager ops) to define its own rule; this one runs the optimizer's own
        update, so ``super()._append_optimize_op(block, (param, grad))`` works."""
        param, grad = param_and_grad
        self._update_one(type(self).__name__, param, grad)

    def _add_accumulator(self, name: str, param, dtype=None, fill_value=0.0, shape=None, type=None,
                         device=None) -> Tensor:
        """Adds (once; later calls return it) the accumulator ``name`` of
        ``param``: ``shape`` (param's by default) filled with ``fill_value``, of
        ``dtype`` (param's by default), on param's device. It is saved by
        :meth:`state_dict` as "<param>_<name>_0". ``type`` and ``device`` are
        Paddle's static-graph arguments, not used."""
        acc = self._accumulators.get((name, id(param)))
        if acc is not None:
            return acc
        if not isinstance(param, Tensor):
            raise TypeError(f"{builtins.type(self).__name__}._add_accumulator: argument 'param' expected a "
                            f"Tensor, got {builtins.type(param).__name__}")
        dims = tuple(param.shape if shape is None else shape)
        acc_dtype = param.impl.dtype if dtype is None else to_dtype(
            dtype, f"{builtins.type(self).__name__}._add_accumulator", "dtype")
        acc = self._accumulators[(name, id(param))] = Tensor(phi_api.full(dims, fill_value, acc_dtype,
                                                                           param.impl.place))
        acc.name = f"{param.name}_{name}_0"
        if name not in self._added_accumulators and all(name != n for n, _, _ in self._accumulator_specs):
            self._added_accumulators = [*self._added_accumulators, name]
        return acc

    def _global_learning_rate(self, program=None) -> Tensor:
        """The learning rate now, as Paddle's: a 0-D Tensor of the optimizer's
        dtype (its first parameter's)."""
        return to_tensor(self._lr_value, dtype=self._dtype or "float32")

    def _create_param_lr(self, param_and_grad) -> Tensor:
        """The learning rate of ``param_and_grad[0]``: the global one times its
        group's or ParamAttr's ``learning_rate``, a 0-D Tensor as Paddle's."""
        param = param_and_grad[0]
        ratio = self._param_lr(param)
        lr = self._lr_value * ratio
        return to_tensor(lr, dtype=param.dtype if param.dtype.is_floating_point else "float32")

    def _accumulator_names(self) -> list:
        """The accumulators' names: the optimizer's own, then those added by
        :meth:`_add_accumulator`."""
        return [name for name, _, _ in self._accumulator_specs] + list(self._added_accumulators)

    def _clipped(self, params_grads):
        """The pairs with their gradients clipped by ``grad_clip``, as an iterator.
        The built-in clips give one clipped gradient at a time
        (ClipGradBase._one_by_one), each made after the previous update; the
        first of each clip call (with a global norm) comes before the step
        counts, so a clip that fails leaves the optimizer as it was. With
        parameter groups the clip runs once per group, as Paddle's step does: a
        global norm is each group's own, and a group's 'grad_clip' (a clip or
        None) replaces the optimizer's for its parameters."""
        pairs = [(param, _dense(grad)) for param, grad in params_grads]
        if self._param_groups:
            buckets = {id(group): [] for group in self._param_groups}
            loose = []  # parameters outside every group (none unless added oddly)
            for pair in pairs:
                group = self._group_of.get(id(pair[0]))
                (loose if group is None else buckets[id(group)]).append(pair)
            batches = [(group.get("grad_clip", self._grad_clip), buckets[id(group)]) for group in self._param_groups]
            if loose:
                batches.append((self._grad_clip, loose))
        else:
            batches = [(self._grad_clip, pairs)]
        del pairs
        started = []
        for clip, batch in batches:  # every group's clip runs, also a group without gradients
            # (a collective norm joins on every rank); a group whose 'grad_clip' is None is not clipped
            iterator = iter(batch) if clip is None else clip._one_by_one(batch)
            first = next(iterator, None)
            if first is not None:
                started.append((first, iterator))
        first = batches = None
        return _then_each(started)

    def _update_one(self, who: str, param, grad) -> None:
        try:
            self._update(param, grad)
        except PhiError as error:  # name the parameter the user knows
            raise type(error)(f"{who}.step: parameter {param.name!r}: {error}") from None

    # -- the multi-tensor update (use_multi_tensor=True; see multi_tensor.py) ----
    def _update_many(self, who: str, items) -> None:
        """Updates the parameters (``items``: (param, grad, its checked plan)) that
        share a multi-tensor key (:meth:`_multi_hyper`) with one fused call per
        group, the others one by one. The key's hyperparameter part is kept in
        the plan (``multi``: it rests on what the plan rests on) unless the
        optimizer calls a callable for it (:meth:`_multi_hyper_kept`)."""
        groups: dict = {}
        kept = self._multi_hyper_kept()
        for param, grad, plan in items:
            hyper = plan.multi if kept else None
            if hyper is None:
                hyper = self._multi_hyper(param)
                if kept:
                    plan.multi = hyper
            if hyper is False:
                self._update_one(who, param, grad)
                continue
            self._plan_ready(plan, param)
            key = (plan.lr_key,) + hyper
            found = groups.get(key)
            if found is None:
                groups[key] = [(param, grad)]
            else:
                found.append((param, grad))
        for key in [k for k in self._flat_groups if k not in groups]:  # settings changed: gone
            self._flat_groups.pop(key).release()
        for key in [k for k in self._flat_seen if k not in groups]:
            del self._flat_seen[key]
        for key, items in groups.items():
            if len(items) < 2 or not self._update_group(key, items):
                for param, grad in items:
                    self._update_one(who, param, grad)

    def _update_group(self, key: tuple, items) -> bool:
        """One fused call for ``items`` through their FlatGroup; False when they
        have none (yet) and are updated one by one by the caller. A group is made
        when the gradients are the same ``.grad`` buffers as at the previous step
        (see multi_tensor.py), and dropped when its buffers no longer hold."""
        params = [param for param, _ in items]
        grads = [grad for _, grad in items]
        states = [self._state(param) for param in params]
        group = self._flat_groups.get(key)
        if group is not None:
            if group.holds(params, states):
                grad = group.flat_grad(grads)
                if grad is not None:
                    return self._run_group(group, grad, key)
            group.release()
            del self._flat_groups[key]
        seen = tuple(id(grad.impl) for grad in grads) if stable_grads(params, grads) else None
        if seen is None or seen != self._flat_seen.get(key):
            self._flat_seen[key] = seen
            return False
        del self._flat_seen[key]
        group = FlatGroup.make(params, states, tuple(s for _, _, s in self._accumulator_specs), grads)
        if group is None:
            return False
        self._flat_groups[key] = group
        for param in params:  # their arrays are views of the group's buffer now, same dtype and device
            plan = self._plans.get(id(param))
            if plan is not None and plan.impl is param.impl:
                plan.array = param.impl.array
        return self._run_group(group, group.flat_grad(grads), key)

    def _run_group(self, group, grad, key: tuple) -> bool:
        try:
            self._update_flat(group, grad, key)
        except PhiError:  # checked before anything is written: the one-by-one update reports it
            group.release()
            del self._flat_groups[key]
            return False
        group.wrote()
        return True

    def _multi_hyper(self, param):
        """The hyperparameter part of param's multi-tensor key, or False when
        param updates on its own (a master weight, or a state of another dtype).
        The whole key (_update_many) is the learning-rate tensor's (dtype, place,
        ratio), which stays when an LRScheduler changes the rate, then this part
        (_hyper_key); parameters with equal keys update together."""
        if self._master_weight(param) is not None or \
                optimizer_state_dtype(param.impl.dtype) is not param.impl.dtype:
            return False
        return self._hyper_key(param)

    def _multi_hyper_kept(self) -> bool:
        """Whether a plan may keep its _multi_hyper: True when the key reads only
        what the plans rest on (settings, groups, the parameter's own
        regularizer, dtype and multi_precision)."""
        return True

    def _hyper_key(self, param) -> tuple:
        return ()

    def _update_flat(self, group, grad, key: tuple) -> None:
        """The fused op on a group's flat buffers (SGD's: the plain update)."""
        phi_api.sgd_(group.param_buffer.flat, self._lr_input(group.params[0]), grad, None, False)

    def _release_flat_groups(self) -> None:
        for group in self._flat_groups.values():
            group.release()
        self._flat_groups.clear()
        self._flat_seen.clear()

    def _regularizer_of(self, param):
        """The decay added to param's gradient before the update: its group's
        'weight_decay' when the group sets one, else its own regularizer, else
        the optimizer's (Paddle's order of precedence)."""
        group = self._group_of.get(id(param))
        if group is not None and "weight_decay" in group:
            return group["weight_decay"]
        own = getattr(param, "regularizer", None)
        return self.regularization if own is None else own

    def _param_lr(self, param) -> float:
        """The factor on the learning rate for param: its group's 'learning_rate'
        when the group sets one (Paddle: a multiplier of the optimizer's rate),
        else its ParamAttr's learning_rate (1.0 by default)."""
        group = self._group_of.get(id(param))
        if group is not None and "learning_rate" in group:
            return group["learning_rate"]
        return _param_lr(param)

    def _hyper(self, param, name: str):
        """The hyperparameter ``name`` for param: its group's, else the optimizer's."""
        group = self._group_of.get(id(param))
        if group is not None and name in group:
            return group[name]
        return getattr(self, "_" + name)

    def add_param_group(self, param_group: dict) -> None:
        """Adds a parameter group (a dict with 'params' and optionally its own
        'learning_rate' multiplier, 'weight_decay', 'grad_clip' and hyperparameters).

        >>> opt.add_param_group({"params": head.parameters(), "learning_rate": 0.1})
        """
        who = f"{type(self).__name__}.add_param_group"
        if not isinstance(param_group, dict):
            raise TypeError(f"{who}: argument 'param_group' expected a dict with 'params', got "
                            f"{type(param_group).__name__}")
        params, groups = _check_parameter_groups(who, [param_group], self._group_keys)
        known = {id(p) for p in self._parameter_list}
        for p in params:
            if id(p) in known:
                raise ValueError(f"{who}: parameter {p.name!r} is already in another group")
        self._parameter_list.extend(params)
        self._param_groups.extend(groups)
        for p in params:
            self._group_of[id(p)] = groups[0]
        self._group_clips = self._group_clips or "grad_clip" in groups[0]

    def _update(self, param: Tensor, grad: Tensor) -> None:
        """Writes the new value of ``param`` (and its state) in place through its
        plan's fused phi op; never modifies ``grad``."""
        plan = self._plan_of(param)
        plan.run(grad.impl, plan.lr_input)

    def _updater(self, param):
        """param's update as ``run(grad, learning_rate)`` (phi tensors), with every
        other argument of the fused op bound: its DenseTensor, accumulators,
        master weight and hyperparameters as they are now (plan.py says when it
        is made again). SGD's is the plain update."""
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        return lambda grad, lr: phi_api.sgd_(impl, lr, grad, master, multi)

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Resets the gradients of all parameters: to zeros (default, as Paddle), or to
        None with ``set_to_zero=False`` (cheaper: the next backward writes a new one)."""
        for param in self._parameter_list:
            param.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    # -- state ----------------------------------------------------------------
    def _get_accumulator(self, name: str, param) -> Tensor:
        """The live accumulator ``name`` of ``param`` (Paddle's semi-private
        reader, which scripts and Paddle's own tests call); it is not made here:
        one that no step has made yet raises, as Paddle's does."""
        acc = self._accumulators.get((name, id(param)))
        if acc is None:
            known = self._accumulator_names()
            raise ValueError(f"{type(self).__name__}._get_accumulator: accumulator {name!r} does not exist for "
                             f"parameter {getattr(param, 'name', param)!r} (this optimizer keeps {known}, made "
                             f"at a parameter's first step)")
        return acc

    # Paddle keys a float16 parameter's state under its master weight's name; eager
    # keeps one state per parameter (float32 under multi_precision), so both read it.
    _get_accumulator_master = _get_accumulator

    def _state(self, param) -> tuple:
        """param's accumulators (DenseTensors in ``_accumulator_specs`` order),
        made on first use by phi's full on param's device."""
        state = self._states.get(id(param))
        if state is None:
            state = self._states[id(param)] = tuple(
                self._accumulator(name, param).impl for name, _, _ in self._accumulator_specs)
        return state

    def _accumulator(self, name: str, param) -> Tensor:
        key = (name, id(param))
        acc = self._accumulators.get(key)
        if acc is None:
            fill, scalar = next((f, s) for n, f, s in self._accumulator_specs if n == name)
            if isinstance(fill, str):  # a hyperparameter (a beta power starts at beta)
                fill = self._hyper(param, fill)
            dims, dtype = self._accumulator_meta(name, param, scalar)
            acc = self._accumulators[key] = Tensor(phi_api.full(dims, fill, dtype, param.impl.place))
            acc.name = f"{param.name}_{name}_0"  # Paddle's accumulator names
        return acc

    def _accumulator_meta(self, name: str, param, scalar: bool) -> tuple:
        """(dims, dtype) of param's accumulator ``name``: one element (``scalar``) or
        param's dims, in the state dtype. ASGD's stored gradients and step count
        differ (eager/optimizer/asgd.py)."""
        return ((1,) if scalar else tuple(param.impl.dims)), optimizer_state_dtype(param.impl.dtype)

    def _decay_target(self, param):
        """What a float32 (master) gradient of a float16/bfloat16 param is decayed
        with: the float32 master weight, else param cast to float32 (as Paddle)."""
        master = self._master_weight(param)
        return Tensor(master if master is not None else phi_api.cast(param.impl, DataType.FLOAT32))

    def _master_weight(self, param):
        """The float32 copy a float16 or bfloat16 parameter is updated on under
        ``multi_precision`` (made from the parameter on first use), else None."""
        if not self._multi_precision or param.impl.dtype not in HALF_TYPES:
            return None
        master = self._master_weights.get(id(param))
        if master is None:
            master = self._master_weights[id(param)] = Tensor(phi_api.cast(param.impl, DataType.FLOAT32))
            master.name = f"{param.name}_fp32_master_0"
        return master.impl

    def state_dict(self) -> dict:
        """The optimizer's state as NumPy copies, in Paddle's layout: each
        accumulator under "<param name>_<accumulator>_0" (``w_moment1_0``), the
        master weights under "master_weights" ({param name: array}), plus the
        step count "@step" and the learning rate "@lr". Accumulators not made yet
        (no step taken for that parameter) are absent."""
        names = self._parameter_names("state_dict")
        state = {}
        acc_names = self._accumulator_names()
        for param in self._parameter_list:
            for acc_name in acc_names:
                acc = self._accumulators.get((acc_name, id(param)))
                if acc is not None:
                    state[f"{names[id(param)]}_{acc_name}_0"] = np.array(acc.numpy(), copy=True)
        masters = {names[id(p)]: np.array(self._master_weights[id(p)].numpy(), copy=True)
                   for p in self._parameter_list if id(p) in self._master_weights}
        if masters:
            state[_MASTER_KEY] = masters
        state[_STEP_KEY] = self._step_count
        state[_LR_KEY] = self.get_lr()
        if self._lr_scheduler is not None:
            state[_SCHEDULER_KEY] = self._lr_scheduler.state_dict()
        return state

    def get_opti_var_name_list(self) -> list:
        """The names of the accumulators made so far, as the keys of
        :meth:`state_dict` ("<param name>_<accumulator>_0", each parameter's in
        turn); empty before the first step, as in Paddle."""
        names = self._parameter_names("get_opti_var_name_list")
        return [f"{names[id(param)]}_{acc_name}_0" for param in self._parameter_list
                for acc_name in self._accumulator_names() if (acc_name, id(param)) in self._accumulators]

    def set_state_dict(self, state_dict) -> None:
        """Restores what :meth:`state_dict` returned, matching parameters by name.

        Every entry is checked before any is applied: accumulators and master
        weights must be Tensors or NumPy arrays of exactly the expected shape and
        dtype (beta powers within [0, 1]), "@lr" a positive finite number and
        "@step" a non-negative int. A bad entry raises an error naming its key,
        what was expected and what came, and leaves the learning rate, the step
        count and every accumulator as they were. Values are copied into the
        existing state buffers; keys of parameters the optimizer does not hold
        are ignored, as in Paddle.
        """
        who = f"{type(self).__name__}.set_state_dict"
        if not isinstance(state_dict, dict):
            raise TypeError(f"{who}: argument 'state_dict' expected a dict, got {type(state_dict).__name__}")
        names = self._parameter_names("set_state_dict")
        step = state_dict.get(_STEP_KEY, self._step_count)
        if isinstance(step, (bool, np.bool_)) or not isinstance(step, (numbers.Integral, np.integer)) \
                or step < 0:
            raise ValueError(f"{who}: {_STEP_KEY!r} expected a non-negative int, got {_describe(step)}")
        scheduler_state = None
        if self._lr_scheduler is not None:
            # The scheduler drives the rate: '@lr' is what it gave, restored with it.
            lr = None
            if _SCHEDULER_KEY in state_dict:
                scheduler_state = self._lr_scheduler._staged(state_dict[_SCHEDULER_KEY])
        else:
            lr = state_dict.get(_LR_KEY, self._lr_value)
            if isinstance(lr, (bool, np.bool_)) or not isinstance(lr, (numbers.Real, np.floating, np.integer)) \
                    or not (lr >= 0 and math.isfinite(lr)):
                raise ValueError(f"{who}: {_LR_KEY!r} expected a finite float >= 0, got {_describe(lr)}")
        masters = state_dict.get(_MASTER_KEY, {})
        if not isinstance(masters, dict):
            raise TypeError(f"{who}: {_MASTER_KEY!r} expected a dict of parameter name -> array, got "
                            f"{_describe(masters)}")
        numbered = _numbered_keys(state_dict)
        if self._paddle_style:  # its accumulators exist once made (Paddle's are made at the first step)
            self._create_accumulators(None, list(self._parameter_list))
        added = [(name, None, None) for name in self._added_accumulators]
        staged = []  # (accumulator key or id of a master weight's param, param, DenseTensor)
        for param in self._parameter_list:
            name = names[id(param)]
            for acc_name, _, scalar in tuple(self._accumulator_specs) + tuple(added):
                key = _accumulator_key(who, numbered, f"{name}_{acc_name}")
                if key is not None:
                    if scalar is None:  # added by _add_accumulator: its own dims and dtype
                        acc = self._accumulators.get((acc_name, id(param)))
                        if acc is None:
                            continue
                        dims, dtype = tuple(acc.impl.dims), acc.impl.dtype
                    else:
                        dims, dtype = self._accumulator_meta(acc_name, param, scalar)
                    value = _staged_value(who, key, state_dict[key], dims, dtype, param,
                                          unit_interval=acc_name.endswith(("_pow_acc", "_pow"))
                                          or acc_name == "mu_product")
                    staged.append((acc_name, param, value))
            if name in masters:
                if self._master_weight(param) is None:
                    raise ValueError(f"{who}: {_MASTER_KEY!r} holds {name!r}, but this optimizer keeps "
                                     f"no master weight for it (multi_precision with a float16 "
                                     f"parameter)")
                value = _staged_value(who, f"{_MASTER_KEY}[{name!r}]", masters[name],
                                      tuple(param.impl.dims), DataType.FLOAT32, param)
                staged.append((None, param, value))
        # Everything checked and converted: apply.
        self._release_flat_groups()  # the beta powers of a group share one array
        self._step_count = int(step)
        if scheduler_state is not None:
            self._lr_scheduler._apply(scheduler_state)
        if lr is not None:
            self._lr_value = float(lr)
        for acc_name, param, value in staged:
            target = self._master_weight(param) if acc_name is None else self._accumulator(acc_name, param).impl
            phi_api.assign_out_(value, target)

    def _parameter_names(self, who: str) -> dict:
        """id(param) -> name; two parameters of one name would share state-dict keys."""
        names, seen = {}, {}
        for param in self._parameter_list:
            name = param.name
            if name in seen:
                raise ValueError(f"{type(self).__name__}.{who}: two parameters are named {name!r} "
                                 f"(positions {seen[name]} and {len(names)}); the state dict keys "
                                 f"accumulators by parameter name, so give them distinct names")
            seen[name] = len(names)
            names[id(param)] = name
        return names

    def __repr__(self):
        return (f"{type(self).__name__}(learning_rate={self.get_lr()}, "
                f"parameters={len(self._parameter_list)})")


class SGD(Optimizer):
    """Stochastic gradient descent: param -= lr * grad (Paddle's ``sgd_``).

    ``multi_precision=True`` keeps a float32 master copy of each float16
    parameter, updates it and rounds it into the parameter.
    ``use_multi_tensor=True`` (not in Paddle's SGD; its Momentum and Adam have
    it) updates the parameters that share a dtype, device and learning rate
    with one fused call on flat buffers (see eager/optimizer/multi_tensor.py);
    the values are the same bit for bit.

    >>> opt = eager.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    """

    def __init__(self, learning_rate: float = 0.001, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision: bool = False, name=None,
                 use_multi_tensor: bool = False):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._multi_precision = to_bool(multi_precision, "SGD", "multi_precision")
        self._use_multi_tensor = to_bool(use_multi_tensor, "SGD", "use_multi_tensor")


class Momentum(Optimizer):
    """SGD with momentum, Paddle's rule (``momentum_``):

    velocity = momentum * velocity + grad
    param -= lr * velocity                        (use_nesterov=False)
    param -= lr * (grad + momentum * velocity)    (use_nesterov=True)

    ``rescale_grad`` multiplies the gradient first. An L2 ``weight_decay`` (a
    float or ``L2Decay``) runs inside the fused kernel, as in Paddle.
    ``use_multi_tensor=True`` updates the parameters that share a dtype,
    device, learning rate and hyperparameters with one fused call on flat
    buffers (see eager/optimizer/multi_tensor.py); the values are the same bit
    for bit.
    """

    _accumulator_specs = (("velocity", 0.0, False),)
    _takes_rows = False
    _group_keys = {"momentum": "_check_nonneg", "use_nesterov": "_check_flag", "rescale_grad": "_check_nonneg"}
    _plan_reads = Optimizer._plan_reads + ("_momentum", "_use_nesterov", "_rescale_grad")
    _fused_own_decay = (L2Decay,)

    def __init__(self, learning_rate: float = 0.001, momentum: float = 0.9, parameters=None,
                 use_nesterov: bool = False, weight_decay=None, grad_clip=None,
                 multi_precision: bool = False, rescale_grad: float = 1.0,
                 use_multi_tensor: bool = False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._momentum = _check_finite("Momentum", "momentum", momentum, positive=False)
        self._use_nesterov = to_bool(use_nesterov, "Momentum", "use_nesterov")
        self._rescale_grad = _check_finite("Momentum", "rescale_grad", rescale_grad, positive=True)
        self._multi_precision = to_bool(multi_precision, "Momentum", "multi_precision")
        self._use_multi_tensor = to_bool(use_multi_tensor, "Momentum", "use_multi_tensor")

    def _regularizer_of(self, param):
        decay = super()._regularizer_of(param)
        # L2 runs inside the kernel (regularization_method="l2_decay"): g + coeff * param.
        return None if isinstance(decay, L2Decay) else decay

    def _updater(self, param):
        decay = Optimizer._regularizer_of(self, param)
        (velocity,) = self._state(param)
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        mu, nesterov = self._hyper(param, "momentum"), self._hyper(param, "use_nesterov")
        rescale = self._hyper(param, "rescale_grad")
        if isinstance(decay, L2Decay):  # its coeff read at each step, as before plans
            return lambda grad, lr: phi_api.momentum_(impl, grad, velocity, lr, master, mu, nesterov,
                                                      "l2_decay", decay.coeff, multi, rescale)
        return lambda grad, lr: phi_api.momentum_(impl, grad, velocity, lr, master, mu, nesterov, "", 0.0,
                                                  multi, rescale)

    def _hyper_key(self, param) -> tuple:
        decay = Optimizer._regularizer_of(self, param)
        fused = isinstance(decay, L2Decay)
        return (self._hyper(param, "momentum"), self._hyper(param, "use_nesterov"),
                "l2_decay" if fused else "", decay.coeff if fused else 0.0,
                self._hyper(param, "rescale_grad"))

    def _update_flat(self, group, grad, key: tuple) -> None:
        mu, nesterov, method, coeff, rescale = key[1:]
        phi_api.momentum_(group.param_buffer.flat, grad, group.state(0), self._lr_input(group.params[0]),
                          None, mu, nesterov, method, coeff, False, rescale)


class Adam(Optimizer):
    """Adam, with Paddle's formulation (``adam_``; epsilon scaled by the bias
    correction, which torch.optim.Adam's form equals):

    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
    param -= lr_t * m / (sqrt(v) + epsilon * sqrt(1 - beta2^t))

    beta1^t and beta2^t are the accumulators ``beta1_pow_acc``/``beta2_pow_acc``
    (advanced by the kernel). ``weight_decay`` adds L2 (or L1) decay to the
    gradient; AdamW decays the parameter instead. ``lazy_mode`` matters only
    for sparse (SelectedRows) gradients (``Embedding(sparse=True)``): with it
    only the rows the gradient holds move (their moments too), without it the
    update is the dense one. ``use_multi_tensor=True`` updates the parameters
    that share a dtype, device, learning rate and hyperparameters with one
    fused call on flat buffers (see eager/optimizer/multi_tensor.py); the
    values are the same bit for bit.
    """

    _accumulator_specs = (("moment1", 0.0, False), ("moment2", 0.0, False),
                          ("beta1_pow_acc", "beta1", True), ("beta2_pow_acc", "beta2", True))
    _group_keys = {"beta1": "_check_unit", "beta2": "_check_unit", "epsilon": "_check_nonneg",
                   "lazy_mode": "_check_flag"}
    _plan_reads = Optimizer._plan_reads + ("_beta1", "_beta2", "_epsilon", "_lazy_mode")

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay=None, grad_clip=None,
                 lazy_mode: bool = False, multi_precision: bool = False,
                 use_multi_tensor: bool = False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        who = type(self).__name__
        self._beta1 = self._hyper_argument("beta1", beta1, _check_unit)
        self._beta2 = self._hyper_argument("beta2", beta2, _check_unit)
        self._epsilon = self._hyper_argument("epsilon", epsilon, _check_nonneg)
        self._lazy_mode = to_bool(lazy_mode, who, "lazy_mode")
        self._multi_precision = to_bool(multi_precision, who, "multi_precision")
        self._use_multi_tensor = to_bool(use_multi_tensor, who, "use_multi_tensor")
        # The beta powers start at beta (the correction of step 1), as in Paddle.

    def _updater(self, param):
        m1, m2, b1p, b2p = self._state(param)
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        beta1, beta2, epsilon, lazy_mode = Adam._hyper_key(self, param)
        return lambda grad, lr: phi_api.adam_(impl, grad, lr, m1, m2, b1p, b2p, master, beta1, beta2, epsilon,
                                              multi, lazy_mode)

    def _hyper_key(self, param) -> tuple:
        return (self._hyper(param, "beta1"), self._hyper(param, "beta2"), self._hyper(param, "epsilon"),
                self._hyper(param, "lazy_mode"))

    def _update_flat(self, group, grad, key: tuple) -> None:
        beta1, beta2, epsilon, lazy_mode = key[1:]
        phi_api.adam_(group.param_buffer.flat, grad, self._lr_input(group.params[0]), group.state(0),
                      group.state(1), group.state(2), group.state(3), None, beta1, beta2, epsilon, False,
                      lazy_mode)


class AdamW(Adam):
    """Adam with decoupled weight decay (Paddle's ``paddle.optimizer.AdamW``, op
    ``adamw_``): param *= 1 - lr * weight_decay before the Adam step.

    ``weight_decay``: the coefficient (default 0.01), a float or a one-element
    float Tensor (read at every step). ``apply_decay_param_fun``:
    called with a parameter's name, False exempts it from the decay (biases and
    norms, typically). ``lr_ratio``: called with a parameter, returns a factor
    for its learning rate (decay and step). A parameter's own ``regularizer``
    is still added to its gradient, as in Paddle. ``use_multi_tensor=True``
    (not in Paddle's AdamW) updates the parameters that share a dtype, device,
    learning rate, decay and hyperparameters with one fused call on flat
    buffers (see eager/optimizer/multi_tensor.py), bit for bit as one by one.
    """

    _group_keys = dict(Adam._group_keys, weight_decay="_check_coeff")
    _plan_reads = Adam._plan_reads + ("_coeff", "_lr_ratio", "_apply_decay_param_fun")

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay: float = 0.01, lr_ratio=None,
                 apply_decay_param_fun=None, grad_clip=None, lazy_mode: bool = False,
                 multi_precision: bool = False, name=None, use_multi_tensor: bool = False):
        if not isinstance(weight_decay, Tensor):
            _refuse_int("AdamW", "weight_decay", weight_decay, "a float or a Tensor")
            _check_nonneg("AdamW", "weight_decay", weight_decay)
        for arg, fn in (("lr_ratio", lr_ratio), ("apply_decay_param_fun", apply_decay_param_fun)):
            if fn is not None and not callable(fn):
                raise TypeError(f"AdamW: argument '{arg}' expected a callable or None, got "
                                f"{type(fn).__name__}")
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, use_multi_tensor, name=name)
        # A Tensor coefficient (Paddle's "float|Tensor") is read at every step, as a Tensor beta.
        self._coeff = self._hyper_argument("weight_decay", weight_decay, _check_nonneg, attr="_coeff")
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun

    def _regularizer_of(self, param):
        # 'weight_decay' (the optimizer's or a group's) is the decoupled coefficient;
        # only a parameter's own regularizer is added to its gradient.
        return getattr(param, "regularizer", None)

    def _updater(self, param):
        m1, m2, b1p, b2p = self._state(param)
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        beta1, beta2, epsilon, lazy_mode = Adam._hyper_key(self, param)
        group = self._group_of.get(id(param))
        coeff = group["weight_decay"] if group is not None and "weight_decay" in group else self._coeff
        decays, ratio_of = self._apply_decay_param_fun, self._lr_ratio

        def run(grad, lr):  # the two callables are asked at every step, as Paddle's AdamW does
            with_decay = coeff > 0 and (decays is None or bool(decays(param.name)))
            ratio = 1.0 if ratio_of is None else ratio_of(param)
            phi_api.adamw_(impl, grad, lr, m1, m2, b1p, b2p, master, beta1, beta2, epsilon, ratio, coeff,
                           with_decay, multi, lazy_mode)
        return run

    def _multi_hyper_kept(self) -> bool:
        # lr_ratio and apply_decay_param_fun are asked at every step (as its update does)
        return self._lr_ratio is None and self._apply_decay_param_fun is None

    def _hyper_key(self, param) -> tuple:
        group = self._group_of.get(id(param))
        coeff = group["weight_decay"] if group is not None and "weight_decay" in group else self._coeff
        with_decay = coeff > 0 and (self._apply_decay_param_fun is None
                                    or bool(self._apply_decay_param_fun(param.name)))
        ratio = 1.0 if self._lr_ratio is None else self._lr_ratio(param)
        return super()._hyper_key(param) + (ratio, coeff, with_decay)

    def _update_flat(self, group, grad, key: tuple) -> None:
        beta1, beta2, epsilon, lazy_mode, ratio, coeff, with_decay = key[1:]
        phi_api.adamw_(group.param_buffer.flat, grad, self._lr_input(group.params[0]), group.state(0),
                       group.state(1), group.state(2), group.state(3), None, beta1, beta2, epsilon, ratio,
                       coeff, with_decay, False, lazy_mode)


class Adamax(Optimizer):
    """Adamax (Adam with the infinity norm), Paddle's rule (``adamax_``):

    moment = beta1 * moment + (1 - beta1) * grad
    inf_norm = max(beta2 * inf_norm + epsilon, |grad|)
    param -= lr / (1 - beta1^t) * moment / inf_norm

    (torch.optim.Adamax adds epsilon to |grad| instead.) Accumulators
    ``moment``, ``inf_norm`` and ``beta1_pow_acc``. A SelectedRows gradient
    is made dense.

    >>> opt = eager.optimizer.Adamax(learning_rate=0.002, parameters=net.parameters())
    """

    _accumulator_specs = (("moment", 0.0, False), ("inf_norm", 0.0, False),
                          ("beta1_pow_acc", "beta1", True))
    _takes_rows = False
    _group_keys = {"beta1": "_check_unit", "beta2": "_check_unit", "epsilon": "_check_nonneg"}
    _plan_reads = Optimizer._plan_reads + ("_beta1", "_beta2", "_epsilon")

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, parameters=None, weight_decay=None, grad_clip=None,
                 name=None, multi_precision: bool = False):
        # multi_precision (not in Paddle 2.6's Adamax) after name, so Paddle's positional order holds
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1 = self._hyper_argument("beta1", beta1, _check_unit)
        self._beta2 = self._hyper_argument("beta2", beta2, _check_unit)
        self._epsilon = self._hyper_argument("epsilon", epsilon, _check_nonneg)
        self._multi_precision = to_bool(multi_precision, "Adamax", "multi_precision")

    def _updater(self, param):
        moment, inf_norm, b1p = self._state(param)
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        beta1, beta2 = self._hyper(param, "beta1"), self._hyper(param, "beta2")
        epsilon = self._hyper(param, "epsilon")
        return lambda grad, lr: phi_api.optimizer.adamax_(impl, grad, lr, moment, inf_norm, b1p, master, beta1,
                                                          beta2, epsilon, multi)


class Adagrad(Optimizer):
    """Adagrad, Paddle's rule (``adagrad_``):

    moment += grad * grad
    param -= lr * grad / (sqrt(moment) + epsilon)

    ``initial_accumulator_value`` fills ``moment`` at the start. This is
    torch.optim.Adagrad with lr_decay=0 (whose eps defaults to 1e-10).

    >>> opt = eager.optimizer.Adagrad(learning_rate=0.1, parameters=net.parameters())
    """

    _takes_rows = False
    _group_keys = {"epsilon": "_check_nonneg", "initial_accumulator_value": "_check_nonneg"}
    _plan_reads = Optimizer._plan_reads + ("_epsilon",)

    def __init__(self, learning_rate: float, epsilon: float = 1e-6, parameters=None,
                 weight_decay=None, grad_clip=None, name=None, initial_accumulator_value: float = 0.0,
                 multi_precision: bool = False):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon = _check_finite("Adagrad", "epsilon", epsilon, positive=False)
        self._initial_accumulator_value = _check_finite(
            "Adagrad", "initial_accumulator_value", initial_accumulator_value, positive=False)
        self._multi_precision = to_bool(multi_precision, "Adagrad", "multi_precision")
        self._accumulator_specs = (("moment", "initial_accumulator_value", False),)

    def _updater(self, param):
        (moment,) = self._state(param)
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        epsilon = self._hyper(param, "epsilon")
        return lambda grad, lr: phi_api.optimizer.adagrad_(impl, grad, moment, lr, master, epsilon, multi)


class Adadelta(Optimizer):
    """Adadelta, Paddle's rule (``adadelta_``), with rho the decay of both averages:

    avg_squared_grad = rho * avg_squared_grad + (1 - rho) * grad^2
    update = sqrt((avg_squared_update + epsilon) / (avg_squared_grad + epsilon)) * grad
    avg_squared_update = rho * avg_squared_update + (1 - rho) * update^2
    param -= lr * update

    The learning rate scales the step as in Paddle >= 2.5 and torch.optim.Adadelta
    (Paddle's default learning_rate is 0.001, torch's 1.0).

    >>> opt = eager.optimizer.Adadelta(learning_rate=1.0, parameters=net.parameters())
    """

    # Paddle names these two with a leading underscore, so their state-dict keys
    # read "<param>__avg_squared_grad_0"; the same keys load Paddle's state.
    _accumulator_specs = (("_avg_squared_grad", 0.0, False), ("_avg_squared_update", 0.0, False))
    _takes_rows = False
    _group_keys = {"epsilon": "_check_nonneg", "rho": "_check_rho"}
    _plan_reads = Optimizer._plan_reads + ("_epsilon", "_rho")

    def __init__(self, learning_rate: float = 0.001, epsilon: float = 1e-6, rho: float = 0.95,
                 parameters=None, weight_decay=None, grad_clip=None, name=None,
                 multi_precision: bool = False):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon = _check_finite("Adadelta", "epsilon", epsilon, positive=False)
        self._rho = _check_rho("Adadelta", "rho", rho)
        self._multi_precision = to_bool(multi_precision, "Adadelta", "multi_precision")

    def _updater(self, param):
        asg, asu = self._state(param)
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        rho, epsilon = self._hyper(param, "rho"), self._hyper(param, "epsilon")
        return lambda grad, lr: phi_api.optimizer.adadelta_(impl, grad, asg, asu, lr, master, rho, epsilon, multi)


class RMSProp(Optimizer):
    """RMSProp, Paddle's rule (``rmsprop_``):

    mean_square = rho * mean_square + (1 - rho) * grad^2
    mean_grad = rho * mean_grad + (1 - rho) * grad                      (centered)
    moment = momentum * moment + lr * grad / sqrt(mean_square - mean_grad^2 + epsilon)
                                   (sqrt(mean_square + epsilon) when not centered)
    param -= moment

    Differences from torch.optim.RMSprop: epsilon sits inside the square root
    and the learning rate inside the momentum buffer (the same as torch's only
    while the learning rate is constant and epsilon negligible).

    >>> opt = eager.optimizer.RMSProp(learning_rate=0.01, parameters=net.parameters())
    """

    _accumulator_specs = (("momentum", 0.0, False), ("mean_square", 0.0, False),
                          ("mean_grad", 0.0, False))
    _takes_rows = False
    _group_keys = {"rho": "_check_rho", "epsilon": "_check_nonneg", "momentum": "_check_nonneg",
                   "centered": "_check_flag"}
    _plan_reads = Optimizer._plan_reads + ("_rho", "_epsilon", "_momentum", "_centered")

    def __init__(self, learning_rate: float, rho: float = 0.95, epsilon: float = 1e-6,
                 momentum: float = 0.0, centered: bool = False, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, multi_precision: bool = False):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._rho = _check_rho("RMSProp", "rho", rho)
        self._epsilon = _check_finite("RMSProp", "epsilon", epsilon, positive=False)
        self._momentum = _check_finite("RMSProp", "momentum", momentum, positive=False)
        self._centered = to_bool(centered, "RMSProp", "centered")
        self._multi_precision = to_bool(multi_precision, "RMSProp", "multi_precision")

    def _updater(self, param):
        moment, mean_square, mean_grad = self._state(param)
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        epsilon, rho = self._hyper(param, "epsilon"), self._hyper(param, "rho")
        momentum, centered = self._hyper(param, "momentum"), self._hyper(param, "centered")
        return lambda grad, lr: phi_api.optimizer.rmsprop_(impl, mean_square, grad, moment, lr, mean_grad, master,
                                                           epsilon, rho, momentum, centered, multi)


class Lamb(Optimizer):
    """Lamb (layer-wise adaptive moments), Paddle's rule (``lamb_``), one trust
    ratio per parameter:

    m = beta1 * m + (1 - beta1) * grad;  v = beta2 * v + (1 - beta2) * grad^2
    r = (m / (1 - beta1^t)) / (sqrt(v / (1 - beta2^t)) + epsilon) + lamb_weight_decay * param
    param -= lr * (||param|| / ||r||) * r          (ratio 1 when a norm is 0)

    ``exclude_from_weight_decay_fn(param)`` returning True drops the decay term
    for that parameter. As in Paddle, a parameter without decay (excluded, or
    ``lamb_weight_decay=0``) takes the plain step (ratio 1) unless
    ``always_adapt=True``. Lamb has no ``weight_decay`` argument (as Paddle); a
    parameter group's 'weight_decay', else the parameter's own regularizer, is
    still added to its gradient (Paddle's regularizer).

    >>> opt = eager.optimizer.Lamb(learning_rate=0.002, parameters=net.parameters())
    """

    _accumulator_specs = (("moment1", 0.0, False), ("moment2", 0.0, False),
                          ("beta1_pow_acc", "beta1", True), ("beta2_pow_acc", "beta2", True))
    _takes_rows = False
    _group_keys = {"beta1": "_check_unit", "beta2": "_check_unit", "epsilon": "_check_nonneg",
                   "lamb_weight_decay": "_check_nonneg"}
    _plan_reads = Optimizer._plan_reads + ("_lamb_weight_decay", "_beta1", "_beta2", "_epsilon", "_exclude_fn",
                                           "_always_adapt")

    def __init__(self, learning_rate: float = 0.001, lamb_weight_decay: float = 0.01,
                 beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-6, parameters=None,
                 grad_clip=None, exclude_from_weight_decay_fn=None, multi_precision: bool = False,
                 always_adapt: bool = False, name=None):
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._lamb_weight_decay = _check_finite("Lamb", "lamb_weight_decay", lamb_weight_decay,
                                                positive=False)
        self._beta1 = self._hyper_argument("beta1", beta1, _check_unit)
        self._beta2 = self._hyper_argument("beta2", beta2, _check_unit)
        self._epsilon = self._hyper_argument("epsilon", epsilon, _check_nonneg)
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError(f"Lamb: argument 'exclude_from_weight_decay_fn' expected a callable or "
                            f"None, got {type(exclude_from_weight_decay_fn).__name__}")
        self._exclude_fn = exclude_from_weight_decay_fn
        self._multi_precision = to_bool(multi_precision, "Lamb", "multi_precision")
        self._always_adapt = to_bool(always_adapt, "Lamb", "always_adapt")

    def _updater(self, param):
        m1, m2, b1p, b2p = self._state(param)
        impl, master, multi = param.impl, self._master_weight(param), self._multi_precision
        decay = self._hyper(param, "lamb_weight_decay")
        beta1, beta2 = self._hyper(param, "beta1"), self._hyper(param, "beta2")
        epsilon, excluded, adapt = self._hyper(param, "epsilon"), self._exclude_fn, self._always_adapt

        def run(grad, lr):  # exclude_from_weight_decay_fn is asked at every step
            phi_api.optimizer.lamb_(impl, grad, lr, m1, m2, b1p, b2p, master,
                                    0.0 if excluded is not None and excluded(param) else decay,
                                    beta1, beta2, epsilon, adapt, multi)
        return run


def _check_rho(who: str, arg: str, value) -> float:
    return _check_unit(who, arg, value, open_low=True)


def _refuse_int(who: str, arg: str, value, expected: str) -> None:
    """A TypeError for an int (or bool) where Paddle's constructor asks for a
    float: Paddle refuses ``learning_rate=1`` and AdamW's ``weight_decay=1``."""
    if isinstance(value, (numbers.Integral, np.bool_)):
        raise TypeError(f"{who}: argument '{arg}' expected {expected}, got int {value!r} (write {float(value)!r})")


def _check_coeff(who: str, value) -> float:
    """AdamW's weight_decay in the (who, value) form of the group checks
    (_check_weight_decay's): a finite float >= 0."""
    return _check_finite(who, "weight_decay", value, positive=False)


def _then(first, rest):
    """first, then the items of rest, holding first only until it is taken."""
    yield first
    del first
    yield from rest


def _then_each(started):
    """For each (first, rest) of ``started`` in order: first, then rest's items,
    holding each first only until it is taken."""
    started.reverse()
    while started:
        first, rest = started.pop()
        chain = _then(first, rest)
        first = None
        yield from chain


def _decayed(regularizer, param, grad):
    """grad + regularizer(param, grad), a new tensor (grad is left as it is).
    The term of a built-in L1Decay/L2Decay is a fresh tensor of grad's dtype
    and dims that nothing else holds, so grad is added into its buffer
    (term + grad is grad + term bit for bit): one parameter-sized allocation
    per decayed parameter instead of two. Any other regularizer's term may be
    held elsewhere, and gets a new sum."""
    term = regularizer(param, grad)
    if type(regularizer) in _OWN_TERM_DECAYS and term.impl.kind is TensorKind.DENSE \
            and term.impl.owns_buffer_alone():
        phi_api.accumulate_(term.impl, grad.impl)
        return term
    return _F.add(grad, term)


_OWN_TERM_DECAYS = (L1Decay, L2Decay)


def _numbered_keys(state_dict) -> dict:
    """{"<param>_<accumulator>": [its keys "<param>_<accumulator>_<n>"]} of a
    state dict: Paddle numbers each accumulator's name by a process-wide counter,
    so a second model built in the process saves "w_0_moment1_1", not "_0"; and
    names a float16 parameter's state after its master weight."""
    numbered = {}
    for key in state_dict:
        if isinstance(key, str):
            base, sep, number = key.rpartition("_")
            if sep and number.isdigit():
                # A float16 parameter's state under multi_precision is its master
                # weight's in Paddle: "w_0_fp32_master_0_moment1_0".
                master = _PADDLE_MASTER_STATE.match(base)
                numbered.setdefault(f"{master[1]}_{master[2]}" if master else base, []).append(key)
    return numbered


_PADDLE_MASTER_STATE = re.compile(r"^(.+?)_fp32_master_\d+_(.+)$")


def _accumulator_key(who: str, numbered: dict, base: str):
    """The key holding accumulator ``base`` ("<param>_<accumulator>"): "_0"
    (eager's, and Paddle's first) when there, else the one numbered key; None
    when absent. Two other numbers are ambiguous: ValueError."""
    keys = numbered.get(base)
    if not keys:
        return None
    if f"{base}_0" in keys or len(keys) == 1:
        return f"{base}_0" if f"{base}_0" in keys else keys[0]
    raise ValueError(f"{who}: the state dict holds {sorted(keys)} for one accumulator; keep one of them")


def _dense(grad):
    """grad, or the dense form of a SelectedRows gradient: every update rule here
    gives a row missing from it the same update as a zero row, so it is exact."""
    if grad is None or grad.impl.kind is TensorKind.DENSE:
        return grad
    return Tensor(phi_api.selected_rows_to_dense(grad.impl))


def _check_grad(who: str, param, grad) -> None:
    """grad has param's dims and dtype, or is float32 for a float16/bfloat16
    param (amp's master_grad)."""
    g, p = grad.impl, param.impl
    if tuple(g.dims) != tuple(p.dims) or not grad_dtype_fits(p.dtype, g.dtype):
        raise ValueError(f"{who}.step: the gradient of parameter {param.name!r} is {g.dtype}"
                         f"{list(g.dims)}, expected {p.dtype}{list(p.dims)} like the parameter")


def _staged_value(who: str, key: str, value, dims: tuple, dtype: DataType, param, unit_interval=False):
    """A state-dict entry checked against the state it restores and converted to
    a DenseTensor on param's device; raises naming the key."""
    expected = f"a Tensor or numpy array of {dtype}{list(dims)}"
    if isinstance(value, Tensor):
        got_dims, got_dtype = tuple(value.impl.dims), value.impl.dtype
    elif isinstance(value, np.ndarray):
        got_dims = value.shape
        try:
            got_dtype = DataType.from_numpy(value.dtype)
        except TypeError:
            got_dtype = value.dtype
    else:
        raise TypeError(f"{who}: {key!r} expected {expected}, got {_describe(value)}")
    if got_dims != dims or got_dtype is not dtype:
        raise ValueError(f"{who}: {key!r} expected {expected}, got {type(value).__name__} of "
                         f"{got_dtype}{list(got_dims)}")
    tensor = to_tensor(value, place=param.impl.place)  # a conversion point: data to a tensor
    if unit_interval:
        # A beta power outside [0, 1] would make the bias correction NaN or negative.
        pow_value = tensor.item()
        if not 0.0 <= pow_value <= 1.0:
            raise ValueError(f"{who}: {key!r} expected a beta power in [0, 1], got {pow_value!r}")
    return tensor.impl


def _describe(value) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def _param_lr(param) -> float:
    attr = getattr(param, "optimize_attr", None)
    return 1.0 if attr is None else attr["learning_rate"]


class HyperparameterNotSetError(TypeError, ValueError):
    """A learning rate or hyperparameter given as None. A TypeError by eager's
    rule for wrong kinds, and a ValueError as Paddle's "... is not set" of SGD,
    Momentum, RMSProp, Adadelta, Lamb and LBFGS."""


def _not_set(who: str, arg: str, value, expected: str) -> None:
    """Raises HyperparameterNotSetError when value is None (on the failure path of a check)."""
    if value is None:
        raise HyperparameterNotSetError(f"{who}: argument '{arg}' is not set: expected {expected}, got None")


def _check_finite(who: str, arg: str, value, positive: bool) -> float:
    bound = "a positive finite float" if positive else "a finite float >= 0"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # the wrong kind
        _not_set(who, arg, value, bound)
        raise TypeError(f"{who}: argument '{arg}' expected {bound}, got {value!r}")
    if not math.isfinite(value) or (value <= 0 if positive else value < 0):
        raise ValueError(f"{who}: argument '{arg}' expected {bound}, got {value!r}")
    return float(value)


def _check_weight_decay(who: str, weight_decay):
    """The optimizer's regularizer: None, an L1Decay/L2Decay, or L2Decay(float)."""
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    expected = "a finite float >= 0, an eager.regularizer.L1Decay/L2Decay or None"
    if isinstance(weight_decay, bool) or not isinstance(weight_decay, numbers.Real):  # the wrong kind
        raise TypeError(f"{who}: argument 'weight_decay' expected {expected}, got {weight_decay!r}")
    if not (weight_decay >= 0 and math.isfinite(weight_decay)):  # a number out of range
        raise ValueError(f"{who}: argument 'weight_decay' expected {expected}, got {weight_decay!r}")
    return L2Decay(float(weight_decay)) if weight_decay else None


def _check_learning_rate(who: str, value) -> float:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        _not_set(who, "learning_rate", value, "a float")
        raise TypeError(f"{who}: argument 'learning_rate' expected a float, got {value!r}")
    # 0 is a rate (Paddle and torch take it: the step changes nothing, as a scheduler's 0 does);
    # a negative one would ascend, which torch refuses and Paddle takes silently.
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError(f"{who}: argument 'learning_rate' expected a finite float >= 0, got {value!r}")
    return float(value)


def _check_parameter_groups(who: str, parameters, group_keys: dict) -> tuple:
    """(every parameter, the groups): ``parameters`` is a list of Tensors (no
    group) or a list of dicts, each with 'params' (a list of Tensors, or one) and
    optionally 'learning_rate' (a multiplier of the optimizer's rate, as
    Paddle), 'weight_decay' (float, L1Decay/L2Decay or None), 'grad_clip' (a
    clip or None, for the group's gradients) and the keys in group_keys. Each
    group is a new dict holding the checked values."""
    if parameters is None or isinstance(parameters, Tensor):
        return _check_parameters(who, parameters), []
    try:
        items = list(parameters)
    except TypeError:
        raise TypeError(f"{who}: argument 'parameters' expected a list of Tensors or of parameter "
                        f"group dicts, got {type(parameters).__name__}") from None
    if not items or not any(isinstance(item, dict) for item in items):
        return _check_parameters(who, items), []
    groups, params = [], []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise TypeError(f"{who}: argument 'parameters' mixes Tensors and parameter group dicts "
                            f"(position {index} is {type(item).__name__}); pass one kind")
        if "params" not in item:
            raise ValueError(f"{who}: parameter group {index} has no 'params' key")
        allowed = {"params", "learning_rate", "weight_decay", "grad_clip", *group_keys}
        unknown = sorted(set(item) - allowed)
        if unknown:
            raise ValueError(f"{who}: parameter group {index} has unknown keys {unknown}; expected "
                             f"some of {sorted(allowed)}")
        group_params = item["params"]
        # Paddle wraps a group's lone Tensor in a list (a top-level Tensor stays an error) and
        # refuses a set, whose order would change from run to run.
        if isinstance(group_params, Tensor):
            group_params = [group_params]
        elif isinstance(group_params, (set, frozenset)):
            raise TypeError(f"{who}: parameter group {index} 'params' expected an ordered collection "
                            f"(a list) of Tensors, got a set")
        group = {"params": _check_parameters(f"{who}: parameter group {index}", group_params)}
        if "learning_rate" in item:
            value = item["learning_rate"]
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
                    value >= 0 and math.isfinite(value)):
                raise ValueError(f"{who}: parameter group {index} 'learning_rate' expected a finite "
                                 f"float >= 0 (a multiplier of the optimizer's rate), got {value!r}")
            group["learning_rate"] = float(value)
        if "grad_clip" in item:
            clip = item["grad_clip"]
            if clip is not None and not isinstance(clip, ClipGradBase):
                raise TypeError(f"{who}: parameter group {index} 'grad_clip' expected None, "
                                f"eager.nn.ClipGradByValue, ClipGradByNorm or ClipGradByGlobalNorm, got "
                                f"{type(clip).__name__}")
            group["grad_clip"] = clip
        if "weight_decay" in item:
            check = globals()[group_keys.get("weight_decay", "_check_weight_decay")]
            group["weight_decay"] = check(f"{who}: parameter group {index}", item["weight_decay"])
        for key, check in group_keys.items():
            if key in item and key != "weight_decay":
                group[key] = globals()[check](f"{who}: parameter group {index}", key, item[key])
        groups.append(group)
        params.extend(group["params"])
    seen = set()
    for p in params:
        if id(p) in seen:
            raise ValueError(f"{who}: parameter {p.name!r} is in two parameter groups")
        seen.add(id(p))
    return params, groups


def _check_unit(who: str, arg: str, value, open_low: bool = False) -> float:
    """A float in [0, 1), or in (0, 1) with open_low."""
    bound = f"a float in {'(0, 1)' if open_low else '[0, 1)'}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # the wrong kind
        _not_set(who, arg, value, bound)
        raise TypeError(f"{who}: argument '{arg}' expected {bound}, got {value!r}")
    if not ((0 < value < 1) if open_low else (0 <= value < 1)):
        raise ValueError(f"{who}: argument '{arg}' expected a float in {'(0, 1)' if open_low else '[0, 1)'}, "
                         f"got {value!r}")
    return float(value)


def _check_nonneg(who: str, arg: str, value) -> float:
    return _check_finite(who, arg, value, positive=False)


def _tensor_hyper(who: str, arg: str, tensor: Tensor) -> float:
    """The value of a hyperparameter given as a Tensor: one element of a
    floating dtype (its shape [] or [1], ...)."""
    if tensor.size != 1 or not tensor.is_floating_point():
        raise TypeError(f"{who}: argument '{arg}' expected a float or a one-element float Tensor, got a "
                        f"Tensor of {tensor.dtype} with shape {tensor.shape}")
    return tensor.item()  # a conversion point: the kernels take the value as an attribute


def _check_flag(who: str, arg: str, value) -> bool:
    return to_bool(value, who, arg)


def _check_parameters(who: str, parameters) -> list:
    if parameters is None:
        raise ValueError(
            f"{who}: argument 'parameters' is required in dynamic-graph mode, e.g. "
            f"parameters=model.parameters()")
    if isinstance(parameters, Tensor):
        raise TypeError(f"{who}: argument 'parameters' expected a list of Tensors, got one Tensor; "
                        f"wrap it in a list")
    try:
        params = list(parameters)
    except TypeError:
        raise TypeError(f"{who}: argument 'parameters' expected a list of Tensors, got "
                        f"{type(parameters).__name__}") from None
    seen = set()
    for index, p in enumerate(params):
        if isinstance(p, dict):
            raise TypeError(f"{who}: argument 'parameters' holds a dict at position {index} among "
                            f"Tensors; pass either Tensors or parameter group dicts")
        if not isinstance(p, Tensor):
            raise TypeError(f"{who}: argument 'parameters' expected a list of Tensors, position "
                            f"{index} is {type(p).__name__}")
        if not p.is_leaf:
            raise ValueError(f"{who}: argument 'parameters' position {index} is not a leaf tensor "
                             f"(it was computed by an op); optimize leaves such as layer parameters")
        if id(p) in seen:
            raise ValueError(f"{who}: argument 'parameters' lists the same tensor twice "
                             f"(position {index})")
        seen.add(id(p))
    # An empty list is taken, as Paddle takes it (a pipeline stage without parameters builds its
    # optimizer from model.parameters()); its step updates nothing.
    return params


__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Lamb", "Momentum", "Optimizer", "RMSProp", "SGD"]
