"""Paddle 2.x positional order of nn / vision signatures: a Paddle script passes
arguments positionally, so a parameter in the wrong place silently takes another
one's value. Each fix is called the Paddle way (positionally and by keyword) and
its value checked against NumPy."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from phi.core import SelectedRows

# Paddle 2.x's positional parameters (name=None last where Paddle has it), from
# Paddle 2.x's generated API reference.
PADDLE_2X = {
    "nn.Embedding": ["num_embeddings", "embedding_dim", "padding_idx", "sparse", "weight_attr", "name"],
    "nn.functional.embedding": ["x", "weight", "padding_idx", "sparse", "name"],
    "nn.BatchNorm": ["num_channels", "act", "is_test", "momentum", "epsilon", "param_attr", "bias_attr", "dtype",
                     "data_layout", "in_place", "moving_mean_name", "moving_variance_name",
                     "do_model_average_for_mean_and_var", "use_global_stats", "trainable_statistics"],
    "vision.models.MobileNetV3Small": ["scale", "num_classes", "with_pool"],
    "vision.models.MobileNetV3Large": ["scale", "num_classes", "with_pool"],
    "nn.functional.max_pool2d": ["x", "kernel_size", "stride", "padding", "return_mask", "ceil_mode", "data_format",
                                 "name"],
    "nn.MaxPool2D": ["kernel_size", "stride", "padding", "return_mask", "ceil_mode", "data_format", "name"],
    "nn.functional.conv2d_transpose": ["x", "weight", "bias", "stride", "padding", "output_padding", "dilation",
                                       "groups", "output_size", "data_format", "name"],
    "nn.SimpleRNN": ["input_size", "hidden_size", "num_layers", "direction", "time_major", "dropout", "activation"],
    "nn.LSTM": ["input_size", "hidden_size", "num_layers", "direction", "time_major", "dropout", "weight_ih_attr"],
    "nn.SyncBatchNorm": ["num_features", "momentum", "epsilon", "weight_attr", "bias_attr", "data_format", "name"],
}


def _resolve(path):
    obj = eager
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("path", sorted(PADDLE_2X))
def test_positional_parameters_follow_paddle_2x(path):
    obj = _resolve(path)
    params = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj).parameters
    names = [n for n, p in params.items() if n != "self" and p.kind is p.POSITIONAL_OR_KEYWORD]
    expected = PADDLE_2X[path]
    assert names[:len(expected)] == expected


def test_embedding_layer_sparse_and_weight_attr_positionally():
    init = eager.ParamAttr(initializer=eager.nn.initializer.Assign(np.arange(12.0).reshape(4, 3)))
    ids = eager.to_tensor([[3, 0], [1, 3]])
    for emb in (eager.nn.Embedding(4, 3, None, True, init),
                eager.nn.Embedding(4, 3, padding_idx=None, sparse=True, weight_attr=init)):
        out = emb(ids)
        np.testing.assert_array_equal(out.numpy(), np.arange(12.0).reshape(4, 3)[[[3, 0], [1, 3]]])
        out.sum().backward()
        grad = emb.weight.grad
        assert isinstance(grad.impl, SelectedRows)
        np.testing.assert_array_equal(_dense(grad), [[1, 1, 1], [1, 1, 1], [0, 0, 0], [2, 2, 2]])
    dense = eager.nn.Embedding(4, 3, 0, False)
    assert dense.weight.numpy()[0].tolist() == [0.0, 0.0, 0.0]
    dense(ids).sum().backward()
    assert not isinstance(dense.weight.grad.impl, SelectedRows)


def _dense(grad):
    """A SelectedRows gradient summed into its dense table."""
    sr = grad.impl
    out = np.zeros(sr.dims)
    np.add.at(out, np.asarray(sr.rows), eager.Tensor(sr.value).numpy())
    return out


def test_embedding_layer_max_norm_is_keyword_after_name():
    emb = eager.nn.Embedding(2, 2, None, False, None, None, max_norm=1.0)
    with eager.no_grad():
        emb.weight.set_value(np.array([[3.0, 4.0], [0.3, 0.4]], np.float32))
    out = emb(eager.to_tensor([0, 1])).numpy()
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-5)


def test_functional_embedding_sparse_positionally():
    table = np.arange(8.0).reshape(4, 2)
    for call in (lambda w, i: F.embedding(i, w, None, True), lambda w, i: F.embedding(i, w, sparse=True)):
        w = eager.to_tensor(table, stop_gradient=False)
        ids = eager.to_tensor([2, 2, 0])
        out = call(w, ids)
        np.testing.assert_array_equal(out.numpy(), table[[2, 2, 0]])
        out.sum().backward()
        assert isinstance(w.grad.impl, SelectedRows)
    w = eager.to_tensor(table, stop_gradient=False)
    out = F.embedding(eager.to_tensor([1, 3]), w, -1, False, None)
    np.testing.assert_array_equal(out.numpy(), [table[1], [0.0, 0.0]])
    out.sum().backward()
    assert not isinstance(w.grad.impl, SelectedRows)
    np.testing.assert_array_equal(w.grad.numpy(), [[0, 0], [1, 1], [0, 0], [0, 0]])


def _bn_reference(x, mean, var, eps):
    return (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + eps)


def test_batch_norm_paddle_2x_positional_arguments():
    x = np.random.default_rng(0).normal(size=(2, 3, 2, 2))
    # Positions 13 and 14 are use_global_stats and trainable_statistics (after in_place,
    # moving_mean_name, moving_variance_name and do_model_average_for_mean_and_var).
    bn = eager.nn.BatchNorm(3, None, False, 0.9, 1e-5, None, None, "float64", "NCHW", False, "bn_mean", "bn_var",
                            False, True, False)
    assert (bn._mean.name, bn._variance.name) == ("bn_mean", "bn_var")
    bn.train()
    out = bn(eager.to_tensor(x)).numpy()   # use_global_stats: the running (0, 1) statistics even in training
    np.testing.assert_allclose(out, _bn_reference(x, np.zeros(3), np.ones(3), 1e-5), rtol=1e-12)
    kw = eager.nn.BatchNorm(3, dtype="float64", in_place=True, moving_mean_name="m",
                            do_model_average_for_mean_and_var=True, use_global_stats=False)
    kw.train()
    out = kw(eager.to_tensor(x)).numpy()   # batch statistics
    np.testing.assert_allclose(out, _bn_reference(x, x.mean((0, 2, 3)), x.var((0, 2, 3)), 1e-5), rtol=1e-10)
    assert kw._mean.name == "m"
    # trainable_statistics (position 14): batch statistics in eval mode too.
    ts = eager.nn.BatchNorm(3, None, False, 0.9, 1e-5, None, None, "float64", "NCHW", False, None, None, False,
                            False, True)
    ts.eval()
    np.testing.assert_allclose(ts(eager.to_tensor(x)).numpy(),
                               _bn_reference(x, x.mean((0, 2, 3)), x.var((0, 2, 3)), 1e-5), rtol=1e-10)


def test_batch_norm_rejects_bad_new_arguments():
    with pytest.raises(TypeError, match=r"BatchNorm: argument 'in_place' expected a bool, got 'yes'"):
        eager.nn.BatchNorm(3, in_place="yes")
    with pytest.raises(TypeError, match=r"BatchNorm: argument 'moving_mean_name' expected None or a str, got 3"):
        eager.nn.BatchNorm(3, moving_mean_name=3)
    with pytest.raises(TypeError, match=r"BatchNorm: argument 'do_model_average_for_mean_and_var' expected a bool"):
        eager.nn.BatchNorm(3, do_model_average_for_mean_and_var=None)


@pytest.mark.parametrize("cls", ["MobileNetV3Small", "MobileNetV3Large"])
def test_mobilenet_v3_num_classes_and_with_pool_positionally(cls):
    model_cls = getattr(eager.vision.models, cls)
    for model in (model_cls(0.35, 7, False), model_cls(scale=0.35, num_classes=7, with_pool=False)):
        assert model.num_classes == 7 and model.with_pool is False
        # the classifier's width is Paddle's: 1024 (Small) or 1280 (Large) times scale, rounded to 8
        assert model.classifier[3].weight.shape == [360 if cls == "MobileNetV3Small" else 448, 7]
        assert not hasattr(model, "avgpool")
    assert model_cls(0.35, 5, True, last_channel=64).classifier[3].weight.shape == [64, 5]
    out = model_cls(0.35, 3)(eager.rand([1, 3, 32, 32]))
    assert out.shape == [1, 3]
