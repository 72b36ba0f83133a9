"""Regression cases from a third pass over Paddle's high-level API tests
(test/legacy_test: test_model, test_callbacks, test_callback_early_stopping,
test_callback_reduce_lr_on_plateau, test_progressbar), each checked against
the real Paddle 2.6.2: Model.fit/evaluate/predict with batch_size (int and
pair), epochs, eval_freq, log_freq, save_dir/save_freq, verbose 0-3,
drop_last, shuffle, accumulate_grad_batches, num_iters, DataLoaders;
train_batch/eval_batch/predict_batch with lists, arrays and Tensors, with and
without loss/metrics, a loss given as a function, metric lists; summary. The
printed lines (timings masked), weights, results and checkpoint files agree
except for rows already in docs/training.md (evaluation loss mean, verbose=1
display, .pdopt for SGD, predict's lists, count checks).

Found and fixed:
- ProgressBar(verbose=3) raised ValueError; Paddle 2.6.2 writes the plain
  lines of verbose=2 (and verbose=0 writes nothing).
- ProgressBar's values: eager wrote every real number with 4 decimals;
  Paddle writes only Python, float32 and float64 floats (and one-element
  float32/float64 arrays) so, and the rest with str(): np.float16(0.5) is
  '0.5', np.array([1]) is '[1]' (ProgressBar driven with a fake clock over 400
  random settings: num, verbose 2/3, widths, step times from 0.4 ms to
  4000 s, value kinds: text equal to Paddle's).
- callbacks.ReduceLROnPlateau's message lacked the blank line Paddle writes
  before it ('\nEpoch 2: ReduceLROnPlateau reducing learning rate to 0.05.').

Documented (docs/training.md): evaluate's metrics leave out eval_batch calls
made before it (Paddle 2.6.2 counts them: it resets metrics only at the end
of a loop). Paddle quirks left: train_batch(x_array, y_array) (arrays not in
lists) fails in Paddle with NumPy's truth-value error, eager takes them;
fit(epochs=0) is an AssertionError in Paddle (ProgBarLogger), a ValueError
naming the argument here; Accuracy(name=[...]) makes names like "['a']_top1"
in Paddle, a TypeError here.
"""
import io
import time

import numpy as np
import pytest

import eager as paddle
from eager.hapi.progressbar import ProgressBar


@pytest.fixture
def fake_clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])
    return now


def _drive(clock, verbose, updates, num=4):
    out = io.StringIO()
    bar = ProgressBar(num=num, verbose=verbose, file=out)
    for step, values in updates:
        clock[0] += 0.02
        bar.update(step, values)
    return out.getvalue()


@pytest.mark.parametrize("verbose", [2, 3])
def test_progressbar_verbose_3_writes_plain_lines_as_verbose_2(fake_clock, verbose):
    text = _drive(fake_clock, verbose, [(2, [("loss", 0.5)]), (4, [("loss", 0.25)])])
    # text from Paddle 2.6.2 (a 20 ms tick before each update)
    assert text == "step 2/4 - loss: 0.5000 - 10ms/step\nstep 4/4 - loss: 0.2500 - 10ms/step\n"


def test_progressbar_verbose_0_writes_nothing(fake_clock):
    assert _drive(fake_clock, 0, [(2, [("loss", 0.5)]), (4, [("loss", 0.25)])]) == ""


def test_progressbar_bad_verbose_is_a_clear_error():
    with pytest.raises(ValueError, match="ProgressBar: argument 'verbose'"):
        ProgressBar(num=3, verbose=4)


def test_progressbar_formats_only_float32_float64_as_decimals(fake_clock):
    values = [("loss", [np.float16(0.5)]), ("a", np.array([1])), ("b", np.array(0.5, np.float16)),
              ("c", np.array([[0.125]], np.float32)), ("d", np.int64(3)), ("e", [np.array([2.0]), 1e-4])]
    text = _drive(fake_clock, 2, [(1, values)], num=1)
    # text from Paddle 2.6.2
    assert text == ("step 1/1 - loss: 0.5 - a: [1] - b: 0.5 - c: 0.1250 - d: 3 - e: 2.0000 1.0000e-04"
                    " - 20ms/step\n")


def test_reduce_lr_on_plateau_message_opens_with_a_blank_line(capsys):
    x = np.random.RandomState(0).rand(8, 4).astype("float32")
    y = np.zeros((8, 1), "int64")
    data = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
    net = paddle.nn.Linear(4, 3)
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()), paddle.nn.CrossEntropyLoss())
    # min_delta so large that no epoch improves on the first: a cut after epoch 2 (0.1 -> 0.05)
    callback = paddle.callbacks.ReduceLROnPlateau("loss", factor=0.5, patience=0, verbose=1, min_delta=100.0,
                                                  min_lr=0.05)
    model.fit(data, data, batch_size=8, epochs=3, verbose=0, callbacks=[callback])
    # text from Paddle 2.6.2: one cut (the rate then sits at min_lr)
    assert capsys.readouterr().out == "\nEpoch 2: ReduceLROnPlateau reducing learning rate to 0.05.\n"
