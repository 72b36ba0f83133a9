"""Regression cases found by re-telling Paddle's own unit tests of the training
stack (test/legacy_test: optimizers, lr schedulers, amp, gradient clip,
regularizers, io, hapi, metric, autograd, save/load) against eager, each
checked with the real Paddle 2.6.2.

Found and fixed:
- LRScheduler's base get_lr() raised TypeError; Paddle raises
  NotImplementedError (test_lr_scheduler: LRScheduler().step()).
- CosineAnnealingWarmRestarts(T_0=1.0) / (T_mult=1.0) raised TypeError; Paddle
  refuses a float period with ValueError (test_lr_scheduler).
- Optimizers took an int learning_rate (and AdamW an int weight_decay);
  Paddle's constructors raise TypeError (LBFGS and set_lr take ints)
  (test_adamw_op).
- ClipGradByGlobalNorm/ByNorm/ByValue called on (param, None) pairs returned
  them; Paddle's clips leave them out (test_gradient_clip).
"""
import numpy as np
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


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Momentum", "RMSProp", "Lamb", "Adadelta", "Adagrad",
                                  "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"])
def test_optimizer_refuses_an_int_learning_rate(name):
    # Paddle 2.6.2: "learning rate should be float or LRScheduler" (TypeError) for learning_rate=1
    linear = paddle.nn.Linear(2, 2)
    with pytest.raises(TypeError, match=f"{name}: argument 'learning_rate' expected a float"):
        getattr(paddle.optimizer, name)(learning_rate=1, parameters=linear.parameters())


def test_int_learning_rate_still_taken_where_paddle_takes_it():
    linear = paddle.nn.Linear(2, 2)
    assert paddle.optimizer.LBFGS(learning_rate=1, parameters=linear.parameters()).get_lr() == 1.0
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=linear.parameters())
    opt.set_lr(2)
    assert opt.get_lr() == 2.0


def test_adamw_refuses_an_int_weight_decay():
    # Paddle 2.6.2: "weight_decay should be float or Tensor." (TypeError); SGD's int weight_decay is taken
    linear = paddle.nn.Linear(2, 2)
    with pytest.raises(TypeError, match="AdamW: argument 'weight_decay'"):
        paddle.optimizer.AdamW(learning_rate=0.1, parameters=linear.parameters(), weight_decay=1)
    paddle.optimizer.AdamW(learning_rate=0.1, parameters=linear.parameters(), weight_decay=1.0)


@pytest.mark.parametrize("clip", [paddle.nn.ClipGradByGlobalNorm(0.8), paddle.nn.ClipGradByNorm(0.8),
                                  paddle.nn.ClipGradByValue(max=0.2, min=0.1)])
def test_gradient_clip_leaves_out_pairs_without_gradient(clip):
    # Paddle's clips return only the pairs that have a gradient (test_gradient_clip)
    x = paddle.to_tensor([2.0, 3.0])
    y = paddle.to_tensor([3.0, 4.0])
    out = clip([(x, x), (x, y), (x, None)])
    assert len(out) == 2
    assert clip([(x, None)]) == []
    scale = {"ClipGradByGlobalNorm": 0.8 / np.sqrt(13 + 25), "ClipGradByNorm": None}.get(type(clip).__name__)
    for (_, got), grad in zip(out, ([2.0, 3.0], [3.0, 4.0])):
        grad = np.array(grad)
        if type(clip).__name__ == "ClipGradByNorm":
            want = grad * 0.8 / np.linalg.norm(grad)
        elif scale is not None:
            want = grad * scale
        else:
            want = np.clip(grad, 0.1, 0.2)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
