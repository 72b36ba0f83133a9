"""Regression cases found by re-telling Paddle's own unit tests of the
learning-rate schedulers, metrics, summary/flops and the optimizers' extras
(test/legacy_test: test_lr_scheduler, ...) against eager, each checked with
the real Paddle 2.6.2.

Found and fixed:
- A scheduler's set_state_dict given a dict without one of its keys
  ('last_epoch', 'last_lr', ReduceOnPlateau's counters) kept its state
  silently; Paddle raises RuntimeError naming the key. LinearWarmup over a
  schedule given a dict without 'LinearWarmup_LR' did too (KeyError in
  Paddle). Now StateDictKeyError, a RuntimeError and a KeyError; the T_cur and
  T_i that eager's CosineAnnealingWarmRestarts saves beyond Paddle stay
  optional, so Paddle's state dicts still load.
- LinearWarmup(start_lr=0.5, end_lr=0.5) (or an end_lr below start_lr) was
  taken; Paddle 2.6.2 asserts end_lr > start_lr. Now a ValueError naming
  end_lr (found by a sweep of bad arguments of the 17 schedulers).
- PiecewiseDecay refused float boundaries (TypeError); Paddle takes them
  (test_callback_reduce_lr_on_plateau builds one), and with fractional epochs
  (step(epoch + i / iters)) a boundary of 1.5 is meaningful.

Also compared and agreeing (no change): test_lr_scheduler's dygraph parts
(every scheduler against its NumPy reference through Adam.get_lr, 22
settings; ReduceOnPlateau in all four mode/threshold_mode pairs with
state_dict round trips; CosineAnnealingWarmRestarts with step(epoch) and
step(); LinearWarmup over PiecewiseDecay and NaturalExpDecay; the error
checks); 400 random schedules of the 16 step schedulers (step(), step(int),
step(float), last_epoch, state_dict) and 200 ReduceOnPlateau runs with float,
NumPy and Tensor metrics, equal to Paddle 2.6.2 up to the documented
differences; verbose lines; custom LRScheduler subclasses with state_keys;
test_metrics (Accuracy top-k, one-hot and 3-d labels, Precision, Recall, Auc,
name/reset/compute) and 40 random metric draws; test_accuracy_op's dygraph
API; summary of 9 custom nets (tables and dicts) and flops with custom_ops /
print_detail; the ReduceLROnPlateau callback (unknown mode, missing monitor,
a schedule as learning rate).

Paddle quirks left (eager keeps its behaviour; docs/training.md rows):
ReduceOnPlateau.step of a shape-[1] Tensor fails in Paddle under NumPy 2;
OneCycleLR with an empty first phase divides by zero; PiecewiseDecay takes
decreasing boundaries; a custom get_lr may return a Tensor or a negative
rate; Paddle refuses NumPy numbers as scheduler arguments; an optimizer
with a schedule needs 'LR_Scheduler' in set_state_dict (KeyError); flops'
table prints np.int64(...) shapes under NumPy 2.
"""
import numpy as np
import pytest

import eager as paddle

lr = paddle.optimizer.lr


@pytest.mark.parametrize("state", [{}, {"last_epoch": 3}, {"last_lr": 0.1}])
def test_scheduler_set_state_dict_refuses_a_missing_key(state):
    sched = lr.StepDecay(0.5, step_size=2)
    with pytest.raises(RuntimeError, match="StepDecay.set_state_dict: argument 'state_dict' has no entry"):
        sched.set_state_dict(state)
    assert (sched.last_epoch, sched.last_lr) == (0, 0.5)       # unchanged


def test_reduce_on_plateau_set_state_dict_refuses_a_missing_counter():
    sched = lr.ReduceOnPlateau(1.0)
    with pytest.raises(RuntimeError, match="'cooldown_counter'"):
        sched.set_state_dict({"last_epoch": 2, "last_lr": 0.5, "best": 1.0, "num_bad_epochs": 0})
    assert sched.last_lr == 1.0


def test_linear_warmup_set_state_dict_needs_the_inner_schedule():
    sched = lr.LinearWarmup(lr.StepDecay(0.5, 2), warmup_steps=3, start_lr=0.0, end_lr=0.5)
    with pytest.raises(KeyError, match="LinearWarmup_LR"):
        sched.set_state_dict({"last_epoch": 5, "last_lr": 0.5})
    assert sched.last_epoch == 0
    # A Paddle CosineAnnealingWarmRestarts state dict (no T_cur / T_i) still loads.
    cawr = lr.CosineAnnealingWarmRestarts(0.5, T_0=2)
    cawr.set_state_dict({"last_epoch": 3, "last_lr": 0.25})
    assert (cawr.last_epoch, cawr.last_lr) == (3, 0.25)


@pytest.mark.parametrize("start_lr, end_lr", [(0.5, 0.5), (1.5, 0.5), (0.1, 0.0)])
def test_linear_warmup_refuses_an_end_lr_not_above_start_lr(start_lr, end_lr):
    with pytest.raises(ValueError, match="LinearWarmup: argument 'end_lr' expected a rate greater than start_lr"):
        lr.LinearWarmup(0.5, warmup_steps=3, start_lr=start_lr, end_lr=end_lr)


def test_piecewise_decay_takes_float_boundaries():
    sched = lr.PiecewiseDecay([1.5, 2.5], [0.1, 0.2, 0.3])
    rates = []
    for epoch in [0, 1, 1.4, 1.5, 2, 2.49, 2.5, 3]:
        sched.step(epoch)
        rates.append(sched())
    # values from Paddle 2.6.2
    assert rates == [0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 0.3, 0.3]
    assert sched.boundaries == [1.5, 2.5]


def test_optimizer_set_state_dict_refuses_a_scheduler_state_without_last_lr():
    layer = paddle.nn.Linear(2, 2)
    sched = lr.StepDecay(0.5, step_size=1, gamma=0.5)
    opt = paddle.optimizer.SGD(learning_rate=sched, parameters=layer.parameters())
    with pytest.raises(RuntimeError, match="'last_lr'"):
        opt.set_state_dict({"LR_Scheduler": {"last_epoch": 2}})
    assert (sched.last_epoch, sched.last_lr, opt.get_lr()) == (0, 0.5, 0.5)
