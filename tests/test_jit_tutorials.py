"""What Paddle's dynamic-to-static tutorials (docs/guides/jit/basic_usage) reach beyond
tests/test_jit_save.py: InputSpec.from_numpy/batch/unbatch, static.BuildStrategy handed
to to_static, jit.save without input_spec after calls of a to_static forward (Paddle
saves the last call's program), and paddle.load of a jit.save path prefix."""
import doctest
import importlib
import warnings

import numpy as np
import pytest

import eager
from eager import nn
from eager.jit import InputSpec
from eager.static import BuildStrategy

RNG = np.random.default_rng(11)


class _Linear(nn.Layer):
    def __init__(self):
        super().__init__()
        self._linear = nn.Linear(6, 3)

    @eager.jit.to_static
    def forward(self, x):
        return self._linear(x)


def _reference(layer, x):
    """The linear layer by hand in NumPy: x @ W + b."""
    return x @ layer._linear.weight.numpy() + layer._linear.bias.numpy()


@pytest.mark.parametrize("module", ["eager.jit.input_spec", "eager.static.build_strategy"])
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), extraglobs={"eager": eager, "np": np},
                             optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.attempted >= 3 and result.failed == 0, result


def test_input_spec_from_numpy_batch_and_unbatch():
    spec = InputSpec.from_numpy(np.ones((2, 5), np.int32), name="ids")
    assert (spec.shape, spec.dtype, spec.name) == ((2, 5), eager.int32, "ids")
    spec = InputSpec([64], "float32")
    assert spec.batch(4) is spec and spec.shape == (4, 64)
    assert InputSpec([3]).batch([None]).shape == (None, 3)
    assert InputSpec([3]).batch(-1).shape == (None, 3)
    assert spec.unbatch() is spec and spec.shape == (64,)
    with pytest.raises(TypeError, match=r"from_numpy: argument 'ndarray' expected a numpy.ndarray, got list"):
        InputSpec.from_numpy([1.0, 2.0])
    with pytest.raises(TypeError, match="InputSpec.batch: argument 'batch_size' expected an int, got float"):
        InputSpec([3]).batch(2.0)
    with pytest.raises(ValueError, match=r"must hold one size, got \[2, 3\]"):
        InputSpec([3]).batch([2, 3])
    with pytest.raises(ValueError, match="expected a size >= 0, or None or -1"):
        InputSpec([3]).batch(-4)
    with pytest.raises(ValueError, match=r"InputSpec.unbatch: the spec's shape is \(\)"):
        InputSpec([]).unbatch()


def test_build_strategy_holds_paddles_options_and_goes_to_to_static():
    strategy = BuildStrategy()
    assert strategy.enable_addto is False and strategy.fuse_bn_add_act_ops is True
    strategy.enable_addto = True
    strategy.fuse_elewise_add_act_ops = True
    assert strategy.enable_addto and strategy.fuse_elewise_add_act_ops
    assert BuildStrategy().enable_addto is False  # each object its own options
    assert eager.base.BuildStrategy is BuildStrategy  # Paddle 2.6's paddle.base.BuildStrategy
    with pytest.raises(AttributeError, match="'BuildStrategy' object has no attribute 'enable_adto'"):
        strategy.enable_adto = True
    with pytest.raises(AttributeError, match="no attribute 'not_an_option'"):
        strategy.not_an_option
    layer = nn.Linear(4, 2)
    model = eager.jit.to_static(layer, build_strategy=strategy)
    x = RNG.standard_normal((3, 4)).astype("float32")
    np.testing.assert_allclose(model(eager.to_tensor(x)).numpy(),
                               x @ layer.weight.numpy() + layer.bias.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="to_static: argument 'build_strategy' expected None or a "
                                        "paddle.static.BuildStrategy, got dict"):
        eager.jit.to_static(nn.Linear(4, 2), build_strategy={"enable_addto": True})


def test_save_without_input_spec_takes_the_last_call_with_the_batch_free(tmp_path):
    eager.seed(3)
    layer = _Linear()
    with pytest.raises(ValueError, match="'input_spec' is needed.*or a call of the to_static forward"):
        eager.jit.save(layer, str(tmp_path / "never_called"))
    layer(eager.to_tensor(RNG.standard_normal((16, 6)).astype("float32")))
    eager.jit.save(layer, str(tmp_path / "linear"))
    loaded = eager.jit.load(str(tmp_path / "linear"))
    loaded.eval()
    for batch in (1, 5):  # trained on batches of 16, predicts other sizes, as in Paddle
        x = RNG.standard_normal((batch, 6)).astype("float32")
        np.testing.assert_allclose(loaded(eager.to_tensor(x)).numpy(), _reference(layer, x), rtol=1e-5, atol=1e-6)


def test_save_without_input_spec_keeps_the_call_shape_where_the_forward_needs_it(tmp_path):
    class BatchScaled(nn.Layer):
        @eager.jit.to_static
        def forward(self, x):
            return x * float(x.shape[0])

    layer = BatchScaled()
    layer(eager.ones([4, 3]))
    eager.jit.save(layer, str(tmp_path / "scaled"))
    loaded = eager.jit.load(str(tmp_path / "scaled"))
    x = RNG.standard_normal((4, 3)).astype("float32")
    np.testing.assert_allclose(loaded(eager.to_tensor(x)).numpy(), x * 4.0, rtol=1e-6)
    with pytest.raises(ValueError, match=r"input 0 expected float32\[4, 3\]"):
        loaded(eager.ones([2, 3]))


def test_load_of_a_jit_save_prefix_gives_its_parameters_as_numpy(tmp_path):
    eager.seed(5)
    layer = _Linear()
    prefix = str(tmp_path / "model" / "linear")
    eager.jit.save(layer, prefix, input_spec=[InputSpec([None, 6], "float32")])
    state = eager.load(prefix)
    assert sorted(state) == ["_linear.bias", "_linear.weight"]
    assert all(type(v) is np.ndarray for v in state.values())
    np.testing.assert_array_equal(state["_linear.weight"], layer._linear.weight.numpy())
    np.testing.assert_array_equal(state["_linear.bias"], layer._linear.bias.numpy())
    other = _Linear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        other.set_state_dict(state)
    x = RNG.standard_normal((2, 6)).astype("float32")
    np.testing.assert_allclose(other(eager.to_tensor(x)).numpy(), _reference(layer, x), rtol=1e-5, atol=1e-6)
    with pytest.raises(FileNotFoundError, match="there is no file"):
        eager.load(str(tmp_path / "model" / "absent"))


def test_save_after_a_call_frees_the_batch_of_2d_inputs_and_keeps_a_1d_bias(tmp_path):
    class AddBias(nn.Layer):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(10, 3)

        @eager.jit.to_static
        def forward(self, x, y):
            return self.linear(x) + y

    eager.seed(6)
    net = AddBias()
    net(eager.randn([4, 10]), eager.randn([3]))
    eager.jit.save(net, str(tmp_path / "add_bias"))
    loaded = eager.jit.load(str(tmp_path / "add_bias"))
    x, y = RNG.standard_normal((2, 10)).astype("float32"), RNG.standard_normal(3).astype("float32")
    want = x @ net.linear.weight.numpy() + net.linear.bias.numpy() + y
    np.testing.assert_allclose(loaded(eager.to_tensor(x), eager.to_tensor(y)).numpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"input 1 expected float32\[3\]"):
        loaded(eager.to_tensor(x), eager.ones([2]))


def test_a_to_static_method_of_a_layer_saves_with_the_layers_parameters(tmp_path):
    class TwoHeads(nn.Layer):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(10, 3)

        def forward(self, x):
            return self.linear(x)

        def another_func(self, x):
            return self.linear(x) * 2

    eager.seed(7)
    net = TwoHeads()
    net.eval()
    static_func = eager.jit.to_static(net.another_func, input_spec=[InputSpec([None, 10], "float32")])
    prefix = str(tmp_path / "another_func")
    eager.jit.save(static_func, prefix)
    x = RNG.standard_normal((5, 10)).astype("float32")
    want = (x @ net.linear.weight.numpy() + net.linear.bias.numpy()) * 2
    np.testing.assert_allclose(eager.jit.load(prefix)(eager.to_tensor(x)).numpy(), want, rtol=1e-5, atol=1e-6)
    assert sorted(eager.load(prefix)) == ["linear.bias", "linear.weight"]
    eager.jit.save(net.another_func, str(tmp_path / "plain_method"), input_spec=[InputSpec([None, 10])])
    np.testing.assert_allclose(eager.jit.load(str(tmp_path / "plain_method"))(eager.to_tensor(x)).numpy(), want,
                               rtol=1e-5, atol=1e-6)
    assert net.training is False  # the traces left the layer's mode as it was


class _ListInput(nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(10, 3)

    def forward(self, inputs):
        x, y = inputs[0], inputs[1]
        return self.linear(x) + y


class _DictInput(nn.Layer):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(10, 3)

    def forward(self, x, bias_info):
        return self.linear(x) + bias_info["x"]


def _linear_plus(layer, x, y):
    return x @ layer.linear.weight.numpy() + layer.linear.bias.numpy() + y


def test_nested_input_specs_save_and_the_loaded_layer_takes_the_same_nesting(tmp_path):
    eager.seed(9)
    x, y = RNG.standard_normal((4, 10)).astype("float32"), RNG.standard_normal(3).astype("float32")
    lst = _ListInput()
    eager.jit.save(lst, str(tmp_path / "list"), input_spec=[[InputSpec([None, 10]), InputSpec([3])]])
    loaded = eager.jit.load(str(tmp_path / "list"))
    np.testing.assert_allclose(loaded([eager.to_tensor(x), eager.to_tensor(y)]).numpy(), _linear_plus(lst, x, y),
                               rtol=1e-5, atol=1e-6)
    dct = eager.jit.to_static(_DictInput(), input_spec=[InputSpec([None, 10]), {"x": InputSpec([3], name="b")}])
    eager.jit.save(dct, str(tmp_path / "dict"))
    loaded = eager.jit.load(str(tmp_path / "dict"))
    np.testing.assert_allclose(loaded(eager.to_tensor(x), {"x": eager.to_tensor(y)}).numpy(),
                               _linear_plus(dct, x, y), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match=r"argument 1 expected a dict with keys \['x'\], as its input spec, got "
                                        r"\['y'\]"):
        loaded(eager.to_tensor(x), {"y": eager.to_tensor(y)})
    with pytest.raises(TypeError, match="argument 1 expected a dict with keys"):
        loaded(eager.to_tensor(x), eager.to_tensor(y))
    with pytest.raises(TypeError, match="takes 2 argument"):
        loaded(eager.to_tensor(x))
    with pytest.raises(TypeError, match=r"input_spec\[1\]\['x'\] expected an InputSpec or a Tensor \(or a list, "
                                        r"tuple or str-keyed dict of them\), got int"):
        eager.jit.save(_DictInput(), str(tmp_path / "bad"), input_spec=[InputSpec([None, 10]), {"x": 3}])


def test_a_layer_loaded_from_nested_specs_fine_tunes(tmp_path):
    eager.seed(10)
    lst = _ListInput()
    eager.jit.save(lst, str(tmp_path / "list"), input_spec=[[InputSpec([None, 10]), InputSpec([3])]])
    loaded = eager.jit.load(str(tmp_path / "list"))
    loaded.train()
    x, y = RNG.standard_normal((5, 10)).astype("float32"), RNG.standard_normal(3).astype("float32")
    loaded([eager.to_tensor(x), eager.to_tensor(y)]).sum().backward()
    grads = {p.shape[0] if len(p.shape) == 1 else tuple(p.shape): p.grad.numpy() for p in loaded.parameters()}
    # d(sum(x @ W + b + y))/dW = x^T @ ones, /db = the batch size in every entry
    np.testing.assert_allclose(grads[(10, 3)], x.T @ np.ones((5, 3), "float32"), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grads[3], np.full(3, 5.0, "float32"), rtol=1e-6)


def test_the_other_to_static_methods_of_a_layer_are_saved_and_loaded_as_its_methods(tmp_path):
    spec = [InputSpec([None, 6], "float32")]

    class TwoWays(nn.Layer):
        def __init__(self):
            super().__init__()
            self._linear = nn.Linear(6, 3)
            self._linear_2 = nn.Linear(6, 3)

        @eager.jit.to_static(input_spec=spec)
        def forward(self, x):
            return self._linear(x)

        @eager.jit.to_static(input_spec=spec)
        def another_forward(self, x):
            return self._linear_2(x) * 3.0

        @eager.jit.to_static
        def never_called(self, x):
            return x

    eager.seed(12)
    net = TwoWays()
    prefix = str(tmp_path / "two_ways")
    with pytest.warns(UserWarning, match="TwoWays.never_called is a to_static method without an input_spec"):
        eager.jit.save(net, prefix)
    loaded = eager.jit.load(prefix)
    loaded.eval()
    x = RNG.standard_normal((4, 6)).astype("float32")
    w2, b2 = net._linear_2.weight.numpy(), net._linear_2.bias.numpy()
    np.testing.assert_allclose(loaded(eager.to_tensor(x)).numpy(), _reference(net, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loaded.another_forward(eager.to_tensor(x)).numpy(), (x @ w2 + b2) * 3.0,
                               rtol=1e-5, atol=1e-6)
    assert not hasattr(loaded, "never_called")
    assert len(loaded.parameters()) == 4  # the method shares the layer's parameters
    # one set of parameters: a change to the loaded layer's shows in the method
    state = dict(loaded.named_parameters())
    state["_linear_2.bias"].set_value(np.full(3, 1.0, "float32"))
    np.testing.assert_allclose(loaded.another_forward(eager.to_tensor(x)).numpy(), (x @ w2 + 1.0) * 3.0,
                               rtol=1e-5, atol=1e-6)
