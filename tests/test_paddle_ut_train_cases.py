"""Regression cases found by re-telling Paddle's own unit tests of the training
stack (test/legacy_test: optimizers, lr schedulers, amp, gradient clip,
regularizers, io, hapi, metric, autograd, save/load) against eager, each
checked with the real Paddle 2.6.2.

Found and fixed:
- LRScheduler's base get_lr() raised TypeError; Paddle raises
  NotImplementedError (test_lr_scheduler: LRScheduler().step()).
- CosineAnnealingWarmRestarts(T_0=1.0) / (T_mult=1.0) raised TypeError; Paddle
  refuses a float period with ValueError (test_lr_scheduler).
"""
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
