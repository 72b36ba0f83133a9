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
- prepare(amp_configs={'level': 'O2', 'use_pure_fp16': True}) (and
  {'use_pure_fp16': True}, taken as 'O2') was accepted; Paddle 2.6.2 raises
  ValueError (the level alone decides). A dict with level 'O0' is off whatever
  its other keys, as Paddle reads none of them (test_hapi_amp).
- ProgressBar(-1) and ProgressBar(0) raised ValueError / were accepted; Paddle
  raises TypeError for a count below 1. update(1e4, ...) with a float step
  failed in the format; Paddle prints it as %d (test_progressbar).
- DataLoader(batch_size='2') (and num_workers/prefetch_factor/timeout given a
  string) raised ValueError; Paddle raises TypeError for a value that is not a
  number (a bad number stays a ValueError) (test_multiprocess_dataloader_exception).
- summary tables of vision models listed layers in another order than Paddle's:
  ResNet's BasicBlock/BottleneckBlock ran the downsample shortcut before the
  main branch, InceptionV3's InceptionC/E ran branch1x1 last and InceptionD its
  3x3 branch after the 7x7 one; now Paddle's order (summary of 18 vision models
  equal row by row to Paddle 2.6.2's; forward hooks see the same order).
- `from paddle.io.dataloader import Dataset` (and the other names Paddle's
  paddle.io.dataloader re-exports: samplers, datasets, get_worker_info,
  random_split) and `from paddle.hapi.callbacks import VisualDL,
  WandbCallback` failed with ImportError.
- Model.fit/evaluate/predict over a Dataset of dict samples raised TypeError;
  Paddle flattens a batch with paddle.utils.flatten, a dict's values in the
  order of its sorted keys (differential of Model over dict, tuple and nested
  samples).
- ProgBarLogger over batches of unknown number (a DataLoader of an
  IterableDataset) wrote the last step's line twice at the end of each epoch
  and evaluation and 'Eval samples: N'; Paddle writes no closing line and no
  sample count then. predict's closing line followed Paddle's other rule (none
  when the last step's periodic line was written, verbose=2).
- summary(net, [(2, 3)], dtypes=['float32', 'float32']) (more dtypes than
  inputs) raised ValueError; Paddle pairs inputs and dtypes with zip and
  ignores the rest (fewer dtypes than inputs stays a ValueError).

Checked and agreeing (no change): fit/evaluate/predict against a hand-written
loop, DistributedBatchSampler(num_replicas=2, rank=0) in fit, num_iters, batch
size (64, 64), train_batch/predict_batch values, accumulation with update=False,
save/load (training=True/False), LRScheduler by_step/by_epoch with
LinearWarmup(PiecewiseDecay), summary of RNNs/dict/list inputs/dtypes, and
paddle.flops of 14 vision models (LeNet ... inception_v3) and pooling/norm/
transposed-conv stacks: totals and every table row equal to Paddle 2.6.2's
(BatchNorm1D/3D counting is the documented difference); callbacks
(ProgBarLogger verbose 0-3 lines, EarlyStopping, ModelCheckpoint,
ReduceLROnPlateau, LRScheduler by step/epoch) on one run with Paddle's weights,
and EarlyStopping and ReduceLROnPlateau driven with 300 random settings and
value sequences each (stop epochs, saves, learning rates, messages); samplers
(Sequence, Random with replacement/num_samples/generator, SubsetRandom,
Weighted, BatchSampler, DistributedBatchSampler with num_replicas/rank),
TensorDataset, ComposeDataset, ChainDataset, Subset, ConcatDataset,
random_split, collate of nested tuples/dicts/strings/numbers, get_worker_info
and worker_init_fn splitting an IterableDataset, persistent_workers, timeout,
use_shared_memory, autotune.set_config; batch order of map-style and iterable
loaders with 0-3 workers; training losses with 0 and 2 workers; checkpoints
written by Paddle's Model.save read by Model.load (predictions and the next
Adam step equal); hub.load/list/help of a local repository.
"""
import numpy as np
import pytest

import eager as paddle
from eager.hapi.progressbar import ProgressBar
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



def _amp_model():
    net = _Linear20()
    model = paddle.Model(net)
    return model, paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())


@pytest.mark.parametrize("cfg", [{"level": "O2", "use_pure_fp16": True}, {"use_pure_fp16": True},
                                 {"level": "O1", "use_pure_fp16": False}])
def test_amp_configs_use_pure_fp16_is_refused_as_paddle(cfg):
    model, opt = _amp_model()
    with pytest.raises(ValueError, match="use_pure_fp16"):
        model.prepare(optimizer=opt, loss=paddle.nn.CrossEntropyLoss(), amp_configs=cfg)


def test_amp_configs_level_o0_reads_no_other_key():
    model, opt = _amp_model()
    model.prepare(optimizer=opt, loss=paddle.nn.CrossEntropyLoss(),
                  amp_configs={"level": "O0", "use_pure_fp16": True, "test": 0})
    assert model._amp_level == "O0"


@pytest.mark.parametrize("num", [-1, 0])
def test_progressbar_count_below_one_is_type_error(num):
    with pytest.raises(TypeError, match="ProgressBar: argument 'num'"):
        ProgressBar(num)


def test_progressbar_float_step_prints_truncated(capsys):
    bar = ProgressBar(50, verbose=2)
    bar.update(1e4, [("loss", 0.5)])
    bar.update(7.9, [("loss", 0.5)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("step 10000/50 - loss: 0.5000")
    assert lines[1].startswith("step  7/50 - loss: 0.5000")


@pytest.mark.parametrize("kwargs", [dict(batch_size="2"), dict(num_workers="1"), dict(prefetch_factor="2"),
                                    dict(timeout="1")])
def test_dataloader_count_of_wrong_kind_is_type_error(kwargs):
    dataset = paddle.io.TensorDataset([paddle.zeros([4, 2])])
    with pytest.raises(TypeError, match=f"DataLoader: argument '{next(iter(kwargs))}'"):
        paddle.io.DataLoader(dataset, **kwargs)


@pytest.mark.parametrize("kwargs", [dict(batch_size=0), dict(num_workers=-1), dict(prefetch_factor=0),
                                    dict(timeout=-1)])
def test_dataloader_bad_count_stays_value_error(kwargs):
    dataset = paddle.io.TensorDataset([paddle.zeros([4, 2])])
    with pytest.raises(ValueError, match=f"DataLoader: argument '{next(iter(kwargs))}'"):
        paddle.io.DataLoader(dataset, **kwargs)


def _call_order(net, x):
    order = []
    for name, layer in net.named_sublayers():
        layer.register_forward_post_hook(lambda layer, inputs, output, name=name: order.append(name))
    net(x)
    return order


def test_resnet_blocks_run_the_shortcut_after_the_main_branch_as_paddle():
    from eager.vision.models.resnet import BasicBlock, BottleneckBlock
    for block, last in ((BasicBlock, "bn2"), (BottleneckBlock, "bn3")):
        inplanes, planes = 4, 2
        out = planes * block.expansion
        downsample = paddle.nn.Sequential(paddle.nn.Conv2D(inplanes, out, 1, stride=2),
                                          paddle.nn.BatchNorm2D(out))
        order = _call_order(block(inplanes, planes, stride=2, downsample=downsample), paddle.rand([1, 4, 6, 6]))
        assert order.index(last) < order.index("downsample.0") < order.index("downsample")


def test_inception_blocks_run_their_branches_in_paddles_order():
    from eager.vision.models.inceptionv3 import InceptionC, InceptionD, InceptionE
    order = _call_order(InceptionC(8, 4), paddle.rand([1, 8, 5, 5]))
    assert order.index("branch1x1") < order.index("branch7x7_1") < order.index("branch7x7dbl_1") \
        < order.index("branch_pool")
    order = _call_order(InceptionD(8), paddle.rand([1, 8, 7, 7]))
    assert order.index("branch3x3_2") < order.index("branch7x7x3_1") < order.index("branch_pool")
    order = _call_order(InceptionE(8), paddle.rand([1, 8, 3, 3]))
    assert order.index("branch1x1") < order.index("branch3x3_1") < order.index("branch3x3_2b") \
        < order.index("branch3x3dbl_1") < order.index("branch_pool")


@pytest.mark.parametrize("name", ["ChainDataset", "ComposeDataset", "ConcatDataset", "Dataset",
                                  "DistributedBatchSampler", "RandomSampler", "Sampler", "SequenceSampler", "Subset",
                                  "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "get_worker_info",
                                  "random_split"])
def test_io_dataloader_package_reexports_paddles_names(name):
    import eager.io.dataloader as dataloader
    assert getattr(dataloader, name) is getattr(paddle.io, name)


def test_hapi_callbacks_holds_the_tracker_callbacks():
    import eager.hapi.callbacks as callbacks
    assert callbacks.VisualDL is paddle.callbacks.VisualDL
    assert callbacks.WandbCallback is paddle.callbacks.WandbCallback
    with pytest.raises(AttributeError):
        callbacks.NoSuchCallback


class _Sum2(paddle.nn.Layer):
    def __init__(self, weight):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 3)
        self.fc.set_state_dict({"weight": weight, "bias": np.zeros(3, "float32")})

    def forward(self, a, b):
        return self.fc(a - 2 * b)


def test_model_takes_dict_samples_by_sorted_keys():
    rng = np.random.RandomState(0)
    a, b = rng.rand(6, 4).astype("float32"), rng.rand(6, 4).astype("float32")
    y = rng.randint(0, 3, (6, 1)).astype("int64")
    weight = np.linspace(-1, 1, 12).reshape(4, 3).astype("float32")

    class DictSamples(paddle.io.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):  # not in sorted order: the keys are sorted, as Paddle's flatten does
            return {"y": y[i], "b": b[i], "a": a[i]}

    model = paddle.Model(_Sum2(weight))
    model.prepare(loss=paddle.nn.CrossEntropyLoss())
    loss = model.evaluate(DictSamples(), batch_size=6, verbose=0)["loss"][0]
    logits = (a - 2 * b).astype("float64") @ weight
    log_softmax = logits - logits.max(1, keepdims=True)
    log_softmax -= np.log(np.exp(log_softmax).sum(1, keepdims=True))
    np.testing.assert_allclose(loss, -log_softmax[np.arange(6), y[:, 0]].mean(), rtol=1e-5)
    (out,) = model.predict(DictSamples(), batch_size=4, stack_outputs=True, verbose=0)
    np.testing.assert_allclose(out, logits, rtol=1e-5, atol=1e-6)


class _Rows(paddle.io.IterableDataset):
    def __iter__(self):
        rng = np.random.RandomState(0)
        for _ in range(8):
            yield rng.rand(4).astype("float32"), rng.randint(0, 3, (1,)).astype("int64")


def _fitted_lines(capsys, run):
    import re
    capsys.readouterr()
    run()
    return [re.sub(r" - \d+(ms|us|s)/step$", "", line) for line in capsys.readouterr().out.splitlines()]


def test_progbar_unknown_steps_writes_no_closing_line_as_paddle(capsys):
    paddle.seed(0)
    net = paddle.nn.Linear(4, 3)
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()), paddle.nn.CrossEntropyLoss())
    loader = paddle.io.DataLoader(_Rows(), batch_size=3)
    lines = _fitted_lines(capsys, lambda: model.fit(loader, loader, epochs=1, verbose=2, log_freq=1))
    steps = [line.split(" - ")[0] for line in lines if line.startswith("step")]
    # Paddle 2.6.2: step 1..3 once for training, once for evaluation; no repeat, no sample count
    assert steps == ["step   1", "step   2", "step   3"] * 2
    assert not any(line.startswith("Eval samples") for line in lines)


def test_progbar_predict_closing_line_as_paddle(capsys):
    model = paddle.Model(paddle.nn.Linear(4, 3))
    model.prepare()
    data = paddle.io.TensorDataset([paddle.ones([20, 4])])
    # Paddle 2.6.2: no line at all when the last step is a multiple of log_freq
    for log_freq, expected in ((10, []), (3, ["step  3/10", "step  6/10", "step  9/10", "step 10/10"])):
        logger = paddle.callbacks.ProgBarLogger(log_freq=log_freq, verbose=2)
        lines = _fitted_lines(capsys, lambda: model.predict(data, batch_size=2, verbose=2, callbacks=[logger]))
        assert [line for line in lines if line.startswith("step")] == expected
        assert lines[-1] == "Predict samples: 20"


def test_summary_ignores_extra_dtypes_as_paddle():
    # Paddle 2.6.2: {'total_params': 8, 'trainable_params': 8} for both calls
    assert paddle.summary(paddle.nn.Linear(3, 2), [(2, 3)], dtypes=["float32", "float32"]) == \
        {"total_params": 8, "trainable_params": 8}
    assert paddle.summary(paddle.nn.Linear(3, 2), (2, 3), dtypes=("float32", "int32", "int64")) == \
        {"total_params": 8, "trainable_params": 8}
