"""Regression cases found by re-telling Paddle's own unit tests of the high-level
API and paddle.io (test/legacy_test: test_model, test_callback_*, test_hapi_amp,
test_batch_sampler, test_dataset, test_sampler, test_dataloader_*, ...) against
eager, each checked with the real Paddle 2.6.2.

Found and fixed:
- summary(net, (1, 1, '2')) raised ValueError; Paddle raises TypeError for a
  dimension that is not a number (floats, bools and dims below 1 stay
  ValueErrors); summary(net, []) died in forward(), Paddle raises ValueError
  (test_model: test_summary_error).
- Model(net, [InputSpec([None, 10], 'float32')]) took a spec without a name;
  Paddle raises ValueError (its feeds are named after the specs)
  (test_model: TestRaiseError.test_input_without_name).
- Model.predict after model._inputs = None raised TypeError (len(None));
  Paddle feeds the whole batch (test_model: test_predict_without_inputs).
- Model.predict(stack_outputs=False) gave one list of batches per output;
  Paddle gives a tuple (list(zip(*batches))).

Checked and agreeing (no change): fit/evaluate/predict against a hand-written
loop, DistributedBatchSampler(num_replicas=2, rank=0) in fit, num_iters, batch
size (64, 64), train_batch/predict_batch values, accumulation with update=False,
save/load (training=True/False), LRScheduler by_step/by_epoch with
LinearWarmup(PiecewiseDecay), summary of RNNs/dict/list inputs/dtypes, and
paddle.flops of 14 vision models (LeNet ... inception_v3) and pooling/norm/
transposed-conv stacks: totals and every table row equal to Paddle 2.6.2's
(BatchNorm1D/3D counting is the documented difference).
"""
import numpy as np
import pytest

import eager as paddle
from eager.static import InputSpec


class _Linear20(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self._fc = paddle.nn.Linear(20, 10)

    def forward(self, x):
        return self._fc(x)


@pytest.mark.parametrize("size, error", [((1, 1, "2"), TypeError), ((1, 1, 2.0), ValueError),
                                         ((1, 1, True), ValueError), ((1, 1, 0), ValueError),
                                         ((-1, -1), ValueError), ([], ValueError)])
def test_summary_bad_input_size_errors_as_paddle(size, error):
    # Paddle 2.6.2: '2' -> TypeError, 2.0/True/0/(-1, -1)/[] -> ValueError
    with pytest.raises(error, match="summary: argument 'input_size'"):
        paddle.summary(paddle.nn.GRU(input_size=2, hidden_size=3, num_layers=3), size)


def test_model_input_spec_without_name_is_value_error():
    with pytest.raises(ValueError, match="InputSpec 0 needs a name"):
        paddle.Model(_Linear20(), [InputSpec([None, 20], "float32")], [InputSpec([None, 1], "int64", "label")])
    with pytest.raises(ValueError, match="'labels'"):
        paddle.Model(_Linear20(), [InputSpec([None, 20], "float32", "x")], [InputSpec([None, 1], "int64")])


def _predict_model():
    paddle.seed(0)
    net = _Linear20()
    model = paddle.Model(net, [InputSpec([None, 20], "float32", "x")])
    model.prepare()
    return net, model


def test_model_predict_with_inputs_reset_to_none_feeds_the_batch():
    net, model = _predict_model()
    x = np.random.RandomState(0).rand(6, 20).astype("float32")
    model._inputs = None
    (out,) = model.predict(paddle.io.TensorDataset([paddle.to_tensor(x)]), batch_size=4, stack_outputs=True,
                           verbose=0)
    weight, bias = net._fc.weight.numpy(), net._fc.bias.numpy()
    np.testing.assert_allclose(out, x @ weight + bias, rtol=1e-5, atol=1e-6)


def test_model_predict_unstacked_outputs_are_tuples_of_batches():
    net, model = _predict_model()
    x = np.random.RandomState(1).rand(6, 20).astype("float32")
    outputs = model.predict(paddle.io.TensorDataset([paddle.to_tensor(x)]), batch_size=4, verbose=0)
    assert isinstance(outputs, list) and len(outputs) == 1
    assert isinstance(outputs[0], tuple) and [b.shape for b in outputs[0]] == [(4, 10), (2, 10)]
