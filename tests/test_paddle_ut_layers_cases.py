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
