"""Regression cases found by re-telling Paddle's own unit tests of the
initializers, save/load, parameters and gradient clipping (dygraph parts of
test_initializer, test_initializer_nn, test_nn_init_function,
test_paddle_save_load, test_paddle_save_load_binary, test_create_parameter,
test_parameter, test_gradient_clip, test_clip_grad_norm_,
test_clip_grad_value_, test_nn_utils) against eager, each checked with the
real Paddle 2.6.2.

Found and fixed:
- The random initializers (Uniform, Normal, TruncatedNormal, Xavier*,
  Kaiming*, Orthogonal) and Bilinear cast their draws to an integer or bool
  parameter silently (all 0, all True); Paddle 2.6.2 has no kernel for them
  (RuntimeError; Bilinear: TypeError). They raise UnsupportedDtypeError now,
  a TypeError and a RuntimeError naming the initializer and the dtype.
- Orthogonal of a 1-D weight and Dirac of a non-conv filter or groups that do
  not divide the output channels raised a plain ValueError; Paddle asserts
  (test_initializer expects AssertionError): AssertedArgumentError now, both;
  so are Uniform(low > high) and Dirac(groups < 1), which Paddle asserts too.
- Constant(True) was refused (TypeError); Paddle fills 1.0 (a bool
  parameter's True).
- paddle.save to a path that is no file name (an int) or a text-mode file, and of an object
  holding a Layer raised TypeError only; Paddle raises ValueError
  (test_paddle_save_load): ArgumentKindError now, both.
- paddle.async_save and paddle.clear_async_save_task_queue were missing
  (test_paddle_save_load's TestAsyncSaveLoad); added, copying the values at
  the call (Paddle's thread writes the live tensors) and raising a failed
  write from clear_async_save_task_queue.
- paddle.save(obj, path, use_binary_format=True) of a dict saved it; Paddle's
  binary format holds one Tensor and raises NotImplementedError
  (test_paddle_save_load_binary): eager does too.
- paddle.save of a dict with int (or float, None, tuple) keys raised
  TypeError; Paddle saves and loads them: eager's format keeps such keys.
- nn.clip.set_gradient_clip (test_gradient_clip) was a bare AttributeError;
  it and append_gradient_clip_ops now say they are static-graph API (Paddle
  2.6.2's dygraph asserts).
- weight_norm with a dim outside [-R, R) raised a plain ValueError; Paddle
  asserts (AssertionError): AssertedArgumentError now (a non-int dim is a
  TypeError).
- Layer.set_state_dict matched the dict against self.state_dict(), so a
  subclass overriding state_dict to rename keys (and set_state_dict to
  rename them back, test_state_dict_convert) loaded nothing; it matches the
  layer's own entries now, as Paddle's _state_dict_impl.
- The fluid-era initializer classes Paddle 2.6.2 keeps in
  paddle.nn.initializer (UniformInitializer with seed and diag_*,
  NormalInitializer, TruncatedNormalInitializer, XavierInitializer,
  MSRAInitializer, ConstantInitializer, NumpyArrayInitializer; used by
  test_initializer) were missing; added.
"""
import numpy as np
import pytest

import eager as paddle
from eager.nn import initializer as I

pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize("init", [I.Uniform(), I.Normal(), I.TruncatedNormal(), I.XavierUniform(),
                                  I.XavierNormal(), I.KaimingUniform(), I.KaimingNormal(), I.Orthogonal(),
                                  I.Bilinear()], ids=repr)
@pytest.mark.parametrize("dtype", ["int32", "int64", "bool", "uint8"])
def test_drawing_initializers_refuse_integer_and_bool_parameters(init, dtype):
    with pytest.raises(TypeError, match=type(init).__name__) as info:
        paddle.create_parameter([4, 1, 4, 4], dtype, default_initializer=init)
    assert isinstance(info.value, RuntimeError)  # Paddle 2.6.2's missing kernel
    target = paddle.zeros([4, 1, 4, 4], dtype=dtype)
    with pytest.raises(TypeError, match=dtype):
        init(target)
    assert not target.numpy().any()  # left as it was


def test_constant_assign_dirac_still_fill_integer_parameters():
    w = paddle.create_parameter([2, 2, 3], "int64", default_initializer=I.Constant(3))
    assert w.numpy().tolist() == np.full([2, 2, 3], 3).tolist()
    w = paddle.create_parameter([2, 2], "int32", default_initializer=I.Assign([[1, 2], [3, 4]]))
    assert w.numpy().tolist() == [[1, 2], [3, 4]]
    w = paddle.create_parameter([2, 2, 3], "int32", default_initializer=I.Dirac())
    assert w.numpy()[:, :, 1].tolist() == [[1, 0], [0, 1]] and w.numpy().sum() == 2


def test_orthogonal_and_dirac_shape_errors_are_assertions():
    attr = paddle.ParamAttr(initializer=I.Orthogonal())
    with pytest.raises(AssertionError, match="Orthogonal"):  # a bias is 1-D
        paddle.nn.Linear(10, 10, bias_attr=attr)
    attr = paddle.ParamAttr(initializer=I.Dirac(groups=2))
    with pytest.raises(AssertionError, match="Dirac"):
        paddle.nn.Linear(10, 10, weight_attr=attr)
    with pytest.raises(AssertionError, match="groups"):
        paddle.nn.Conv2D(5, 9, (3, 3), weight_attr=attr)
    with pytest.raises(ValueError):  # also the ValueError of eager's other argument checks
        I.Orthogonal()((3,))


def test_uniform_low_above_high_and_dirac_groups_are_assertions():
    with pytest.raises(AssertionError, match="low <= high"):  # Paddle 2.6.2 asserts both
        I.Uniform(2.0, 1.0)
    with pytest.raises(AssertionError, match="groups"):
        I.Dirac(groups=0)


def test_constant_takes_a_bool_value():
    w = paddle.create_parameter([2, 3], "bool", default_initializer=I.Constant(True))
    assert w.numpy().tolist() == [[True] * 3] * 2
    layer = paddle.nn.Linear(2, 2, weight_attr=I.Constant(True))  # Paddle 2.6.2: 1.0
    assert layer.weight.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_save_to_a_non_path_is_a_value_error_too(tmp_path):
    with pytest.raises(ValueError, match="argument 'path'"):  # Paddle 2.6.2: ValueError
        paddle.save(4, 3)
    with pytest.raises(TypeError, match="argument 'path'"):
        paddle.save({"a": 1}, None)
    with open(tmp_path / "text", "w") as text_file:  # Paddle 2.6.2: ValueError
        with pytest.raises(ValueError, match="binary mode"):
            paddle.save({"a": 1}, text_file)


def test_save_of_a_layer_is_a_value_error_too(tmp_path):
    layers = (paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="state_dict"):  # Paddle 2.6.2: ValueError
        paddle.save(layers, str(tmp_path / "layer.pdmodel"))
    assert not (tmp_path / "layer.pdmodel").exists()


def test_async_save_writes_the_state_at_the_call(tmp_path):
    layer = paddle.nn.Linear(3, 2)
    weight = layer.weight.numpy().copy()
    path = str(tmp_path / "sub" / "linear.pdparams")
    paddle.async_save(layer.state_dict(), path, sync_other_task=True)
    with paddle.no_grad():
        layer.weight.set_value(np.zeros([3, 2], "float32"))  # a step after the call
    paddle.clear_async_save_task_queue()
    np.testing.assert_array_equal(paddle.load(path)["weight"].numpy(), weight)
    tensor = paddle.to_tensor([1.0, 2.0])
    paddle.framework.async_save(tensor, str(tmp_path / "t"))
    paddle.clear_async_save_task_queue()
    assert paddle.load(str(tmp_path / "t")).numpy().tolist() == [1.0, 2.0]


def test_async_save_takes_dicts_and_tensors_only(tmp_path):
    with pytest.raises(TypeError, match="async_save"):  # Paddle 2.6.2: TypeError
        paddle.async_save((1, 2, 3), str(tmp_path / "tuple.pdparams"))
    with pytest.raises(TypeError, match="sync_other_task"):
        paddle.async_save({"a": 1}, str(tmp_path / "a"), sync_other_task="yes")


def test_clear_async_save_task_queue_raises_a_failed_write(tmp_path):
    (tmp_path / "file").write_text("x")
    paddle.async_save({"a": paddle.ones([2])}, str(tmp_path / "file" / "inside.pdparams"))  # a file as dir
    with pytest.raises(OSError):
        paddle.clear_async_save_task_queue()
    paddle.clear_async_save_task_queue()  # the failure is reported once


def test_save_with_use_binary_format_takes_a_tensor_only(tmp_path):
    path = str(tmp_path / "temp")
    with pytest.raises(NotImplementedError, match="use_binary_format"):  # Paddle 2.6.2 too
        paddle.save({}, path, use_binary_format=True)
    assert not (tmp_path / "temp").exists()
    paddle.save(paddle.to_tensor([1.0, 2.0]), path, use_binary_format=True)
    assert paddle.load(path, return_numpy=True).tolist() == [1.0, 2.0]


def test_save_keeps_dict_keys_that_are_not_strs(tmp_path):
    path = str(tmp_path / "labels.pdparams")
    obj = {0: "cat", 1: paddle.to_tensor([1.0]), 2.5: None, None: [1], (1, "a"): {3: 4}, "w": 5}
    paddle.save(obj, path)  # Paddle 2.6.2 pickles them and loads the same keys
    loaded = paddle.load(path)
    assert list(loaded) == [0, 1, 2.5, None, (1, "a"), "w"]
    assert loaded[0] == "cat" and loaded[1].numpy().tolist() == [1.0] and loaded[(1, "a")] == {3: 4}


def test_static_graph_clip_names_say_so():
    with pytest.raises(AttributeError, match="static-graph"):  # Paddle 2.6.2's dygraph asserts
        paddle.nn.clip.set_gradient_clip(paddle.nn.ClipGradByGlobalNorm(1.0))
    assert not hasattr(paddle.nn.clip, "append_gradient_clip_ops")


def test_weight_norm_dim_out_of_range_is_an_assertion():
    conv = paddle.nn.Conv2D(2, 3, 3)
    with pytest.raises(AssertionError, match="dim"):  # Paddle 2.6.2 asserts [-R, R)
        paddle.nn.utils.weight_norm(conv, dim=5)
    with pytest.raises(ValueError):
        paddle.nn.utils.weight_norm(conv, dim=-5)
    assert [n for n, _ in conv.named_parameters()] == ["weight", "bias"]  # left as it was
    with pytest.raises(TypeError, match="dim"):
        paddle.nn.utils.weight_norm(conv, dim=1.5)


class _RenamingModel(paddle.nn.Layer):
    """Saves its weight transposed under another key, as Paddle's test_state_dict_convert."""

    def __init__(self):
        super().__init__()
        self.linear = paddle.nn.Linear(3, 4)

    @paddle.no_grad()
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True):
        st = super().state_dict(destination, include_sublayers, structured_name_prefix, use_hook)
        st["linear.new_weight"] = paddle.transpose(st.pop("linear.weight"), [1, 0])
        return st

    @paddle.no_grad()
    def set_state_dict(self, state_dict, use_structured_name=True):
        state_dict["linear.weight"] = paddle.transpose(state_dict.pop("linear.new_weight"), [1, 0])
        return super().set_state_dict(state_dict)


def test_set_state_dict_matches_the_layers_own_keys_not_an_override():
    source, target = _RenamingModel(), _RenamingModel()
    missing, unexpected = target.set_state_dict(source.state_dict())
    assert missing == [] and unexpected == []
    np.testing.assert_array_equal(target.linear.weight.numpy(), source.linear.weight.numpy())
    np.testing.assert_array_equal(target.linear.bias.numpy(), source.linear.bias.numpy())


def test_fluid_era_initializer_classes():
    # test_initializer builds them; Paddle 2.6.2 keeps them in paddle.nn.initializer
    a = paddle.create_parameter([5, 10], "float32", default_initializer=I.UniformInitializer(-4.2, 3.1, 123))
    b = paddle.create_parameter([5, 10], "float32", default_initializer=I.UniformInitializer(-4.2, 3.1, 123))
    np.testing.assert_array_equal(a.numpy(), b.numpy())  # its own seed: the same draw each time
    assert a.numpy().min() >= -4.2 and a.numpy().max() < 3.1
    w = I.UniformInitializer(-0.5, 0.5, diag_num=4, diag_step=3, diag_val=7.0)((5, 10))
    assert np.flatnonzero(w.reshape(-1) == 7.0).tolist() == [0, 4, 8, 12]
    limit = np.sqrt(6.0 / (12 + 23))
    w = I.XavierInitializer(uniform=True, fan_in=12, fan_out=23, seed=134)((200, 300))
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    w = I.MSRAInitializer(uniform=False, fan_in=4)((400, 400))
    assert abs(w.std() - np.sqrt(2.0 / 4)) < 0.01
    w = I.NormalInitializer(2.3, 1.9, 123)((20000,))
    assert abs(w.mean() - 2.3) < 0.05 and abs(w.std() - 1.9) < 0.05
    w = I.TruncatedNormalInitializer(0.0, 1.0, 5)((20000,))
    assert np.abs(w).max() <= 2.0
    assert I.NumpyArrayInitializer(np.array([1.0, 2.0]))((2,)).tolist() == [1.0, 2.0]
    assert I.ConstantInitializer(2.5, force_cpu=True)((2,)).tolist() == [2.5, 2.5]
    with pytest.raises(TypeError, match="seed"):
        I.UniformInitializer(seed=-1)


def test_framework_lists_the_async_save_names():
    assert paddle.framework.async_save is paddle.async_save
    assert paddle.framework.clear_async_save_task_queue is paddle.clear_async_save_task_queue
