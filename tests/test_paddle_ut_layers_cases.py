"""Regressions found by re-telling the dygraph parts of Paddle's own unit tests
(test/legacy_test) about the Layer API (containers, named members, hooks,
apply/children, trainable) under ``import eager as paddle`` and checking each
disagreement against the real Paddle 2.6.2.

Found:
- ``Parameter.trainable = "1"`` (any non-bool) was accepted and made the
  parameter trainable by truthiness; Paddle 2.6.2 raises ValueError
  (test_imperative_layer_trainable).
- ``LayerDict.update`` with a pair of the wrong length (a 3-tuple) raised
  TypeError; Paddle 2.6.2 (and dict.update) raise ValueError
  (test_imperative_container_layerdict).
- add_parameter/register_buffer/add_sublayer with a non-str name raised
  ValueError (Paddle: TypeError); an empty name or one with '.' raised only
  ValueError (Paddle: KeyError; now both); add_parameter over an existing
  attribute silently replaced it (Paddle: KeyError) (test_base_layer).
  remove_weight_norm relied on the replacing and now deletes the hook's weight.
- Layer.to(dtype='double') (NumPy's aliases 'double'/'float'/'half'/'single')
  was refused; Paddle reads the string as NumPy does (test_base_layer TestLayerTo).
- Tensor._set_grad_ivar and base.framework.EagerParamBase, which Paddle's
  TestLayerTo uses, were missing (added: the .grad setter, and Parameter).
- set_flags({'FLAGS_sort_sum_gradient': ...}) was refused; Paddle's dygraph
  tests set it everywhere (now kept without effect: eager's sums have one order).
- Tensor.gradient() of a sparse (SelectedRows) gradient returned the dense
  array; Paddle 2.6.2 returns (values, rows) (test_imperative_selected_rows).
- UpsamplingNearest2D/UpsamplingBilinear2D(size=12) kept the int: Paddle stores
  [12, 12] and prints it (test_imperative_layers; the other 110 reprs agree).

Newer than 2.6.2 and left out: named_sublayers/named_parameters/named_buffers
``remove_duplicate``, Sequential.append/insert/extend, forward hooks'
``with_kwargs``/``always_call``. Two parameters given one ParamAttr name is a
documented difference (docs/nn.md).
"""
import numpy as np
import pytest

import eager as paddle

pytestmark = pytest.mark.usefixtures("device")


def test_parameter_trainable_refuses_non_bool():
    linear = paddle.nn.Linear(3, 2)
    with pytest.raises(ValueError, match="trainable"):
        linear.weight.trainable = "1"
    with pytest.raises(ValueError, match="trainable"):
        linear.weight.trainable = 0
    # the failed assignment leaves the parameter as it was
    assert linear.weight.trainable and not linear.weight.stop_gradient
    linear.weight.trainable = False
    assert linear.weight.stop_gradient
    x = paddle.to_tensor(np.ones((1, 3), "float32"))
    linear.bias.trainable = False
    assert linear(x).stop_gradient


def test_layer_dict_update_wrong_length_pair_is_value_error():
    layers = paddle.nn.LayerDict()
    with pytest.raises(ValueError, match="length 3"):
        layers.update([("a", paddle.nn.ReLU(), "a"), ("b", paddle.nn.ReLU())])
    assert len(layers) == 0
    with pytest.raises(TypeError):
        layers.update(1)
    layers.update([["a", paddle.nn.ReLU()], ("b", paddle.nn.Sigmoid())])
    assert list(layers.keys()) == ["a", "b"]


@pytest.mark.parametrize("method", ["add_parameter", "register_buffer", "add_sublayer"])
def test_member_name_errors(method):
    net = paddle.nn.Layer()
    value = {"add_parameter": net.create_parameter(shape=[1]),
             "register_buffer": paddle.to_tensor(np.zeros([1])),
             "add_sublayer": paddle.nn.ReLU()}[method]
    with pytest.raises(TypeError, match="name"):
        getattr(net, method)(10, value)
    for bad in ("a.b", ""):
        with pytest.raises(KeyError):
            getattr(net, method)(bad, value)
        with pytest.raises(ValueError, match=method):
            getattr(net, method)(bad, value)
    assert not net._parameters and not net._buffers and not net._sub_layers


def test_add_parameter_refuses_existing_attribute():
    net = paddle.nn.Layer()
    param = net.create_parameter(shape=[1])
    net.test_param = 10
    with pytest.raises(KeyError, match="test_param"):
        net.add_parameter("test_param", param)
    assert net.test_param == 10 and "test_param" not in net._parameters
    net.add_parameter("w", param)
    net.add_parameter("w", net.create_parameter(shape=[2]))  # a parameter may replace a parameter
    assert net.w.shape == [2]


def test_remove_weight_norm_restores_parameter():
    linear = paddle.nn.Linear(3, 2)
    w = linear.weight.numpy().copy()
    paddle.nn.utils.weight_norm(linear)
    paddle.nn.utils.remove_weight_norm(linear)
    assert sorted(n for n, _ in linear.named_parameters()) == ["bias", "weight"]
    np.testing.assert_allclose(linear.weight.numpy(), w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("alias, expected", [("double", "float64"), ("float", "float64"),
                                             ("half", "float16"), ("single", "float32")])
def test_layer_to_numpy_dtype_aliases(alias, expected):
    linear = paddle.nn.Linear(2, 2)
    linear.register_buffer("buf", paddle.to_tensor([0.0], dtype="float32"))
    w = linear.weight.numpy().astype(expected)
    linear.to(dtype=alias)
    assert linear.weight.dtype == getattr(paddle, expected)
    assert linear.buf.dtype == getattr(paddle, expected)
    np.testing.assert_array_equal(linear.weight.numpy(), w)
    with pytest.raises(TypeError, match="xyz"):
        linear.to(dtype="xyz")


def test_set_grad_ivar_and_eager_param_base():
    linear = paddle.nn.Linear(2, 2)
    grad = np.arange(4, dtype="float32").reshape(2, 2)
    linear.weight._set_grad_ivar(paddle.to_tensor(grad))
    linear.to(dtype="float64")
    assert linear.weight._grad_ivar().dtype == paddle.float64
    np.testing.assert_array_equal(linear.weight.grad.numpy(), grad)
    assert all(isinstance(p, paddle.base.framework.EagerParamBase) for p in linear.parameters())
    with pytest.raises(ValueError, match="grad"):
        linear.weight._set_grad_ivar(paddle.zeros([3]))


def test_sort_sum_gradient_flag_is_accepted():
    before = paddle.get_flags(["FLAGS_sort_sum_gradient"])
    assert before == {"FLAGS_sort_sum_gradient": False}  # Paddle 2.6.2's default
    paddle.set_flags({"FLAGS_sort_sum_gradient": True})
    try:
        assert paddle.get_flags("FLAGS_sort_sum_gradient") == {"FLAGS_sort_sum_gradient": True}
    finally:
        paddle.set_flags(before)


def test_sparse_gradient_is_values_and_rows():
    emb = paddle.nn.Embedding(5, 2, sparse=True)
    emb(paddle.to_tensor([[1, 3], [3, 1]])).sum().backward()
    values, rows = emb.weight.gradient()  # value from Paddle 2.6.2: rows [1 3 3 1], values 4 x 2 ones
    np.testing.assert_array_equal(rows, [1, 3, 3, 1])
    np.testing.assert_array_equal(values, np.ones((4, 2), "float32"))
    dense = paddle.nn.Embedding(5, 2)
    dense(paddle.to_tensor([1, 1])).sum().backward()
    np.testing.assert_array_equal(dense.weight.gradient()[1], [2.0, 2.0])


@pytest.mark.parametrize("cls", ["UpsamplingNearest2D", "UpsamplingBilinear2D"])
def test_2d_upsampling_int_size_is_square(cls):
    layer = getattr(paddle.nn, cls)(size=3)
    assert layer.size == [3, 3]
    assert str(layer) == f"{cls}(size=[3, 3], data_format=NCHW)"  # Paddle 2.6.2's repr
    assert layer(paddle.ones([1, 1, 2, 2])).shape == [1, 1, 3, 3]
