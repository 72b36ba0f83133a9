"""Gaps found by running Paddle's own tutorials (docs/guides, docs/practices) with
``import paddle`` giving eager: each test pins the Paddle 2.6 behaviour a tutorial
relied on, against NumPy or hand-written references."""
import numpy as np
import pytest

import eager
from eager import nn

pytestmark = pytest.mark.usefixtures("device")

INT_DTYPES = ["int32", "int64", "int16", "int8", "uint8"]


# -- pow on integer tensors (dynamic_graph.ipynb: paddle.pow(int64 tensor, i)) -------------

@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("exponent", [0, 1, 2, 3])
def test_pow_of_an_integer_tensor_is_an_integer_power_in_its_dtype(dtype, exponent):
    data = np.array([[0, 1, 2], [3, 4, 5]], dtype)
    out = eager.pow(eager.to_tensor(data), exponent)
    assert out.dtype == getattr(eager, dtype)
    want = np.array([[int(v) ** exponent for v in row] for row in data.tolist()], dtype)
    np.testing.assert_array_equal(out.numpy(), want)


def test_pow_of_an_integer_tensor_truncates_a_float_exponent_as_paddle_casts_it():
    # Paddle's kernel casts the exponent to x's type first: 2.7 acts as 2.
    x = eager.to_tensor(np.array([1, 2, 3, 7], "int64"))
    out = eager.pow(x, 2.7)
    assert out.dtype == eager.int64
    np.testing.assert_array_equal(out.numpy(), [1, 4, 9, 49])


def test_pow_of_an_integer_tensor_is_exact_where_float64_is_not():
    x = eager.to_tensor(np.array([3037000499], "int64"))  # its square is just below 2**63
    assert int(eager.pow(x, 2).numpy()[0]) == 3037000499 ** 2


def test_pow_of_an_integer_tensor_refuses_a_negative_exponent_before_writing():
    x = eager.to_tensor(np.array([1, 2, 3], "int64"))
    with pytest.raises(ValueError, match=r"pow: argument 'y' \(-1\) is a negative exponent for an integer tensor"):
        eager.pow(x, -1)
    with pytest.raises(ValueError, match="negative exponent"):
        x.pow_(-2)
    np.testing.assert_array_equal(x.numpy(), [1, 2, 3])  # the inplace form left x alone


def test_pow_inplace_on_an_integer_tensor():
    x = eager.to_tensor(np.array([1, 2, 3], "int32"))
    assert x.pow_(3) is x
    np.testing.assert_array_equal(x.numpy(), np.array([1, 8, 27], "int32"))
    assert x.dtype == eager.int32


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_tensor_to_an_integer_number_keeps_its_dtype(dtype):
    # Paddle's Tensor.__pow__: an int (or NumPy integer) exponent runs pow on x as it is.
    data = np.array([0, 1, 2, 5], dtype)
    for exponent in (2, np.int64(3)):
        out = eager.to_tensor(data) ** exponent
        assert out.dtype == getattr(eager, dtype)
        np.testing.assert_array_equal(out.numpy(), np.power(data, data.dtype.type(exponent)))


def test_integer_tensor_to_a_float_number_is_float32():
    # ... and a Python float exponent casts x to float32 first.
    data = np.array([1, 2, 3], "int64")
    out = eager.to_tensor(data) ** 0.5
    assert out.dtype == eager.float32
    np.testing.assert_allclose(out.numpy(), np.sqrt(data.astype("float32")), rtol=1e-6)


def test_bool_tensor_to_a_number_is_still_float32():
    out = eager.to_tensor(np.array([True, False])) ** 2
    assert out.dtype == eager.float32
    np.testing.assert_array_equal(out.numpy(), [1.0, 0.0])


def test_float_pow_keeps_its_gradient():
    # The integer kernel leaves floating pow alone: d/dx x**3 = 3 x**2, against finite differences.
    data = np.array([0.5, -1.25, 2.0], "float64")
    x = eager.to_tensor(data, stop_gradient=False)
    (eager.pow(x, 3).sum()).backward()
    h = 1e-6
    numeric = [((data + h * e) ** 3 - (data - h * e) ** 3).sum() / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-6)


# -- a layer's name is only a label (GAN_with_MINIST.ipynb: nn.ReLU(True)) ----------------

@pytest.mark.parametrize("make, scope", [
    (lambda: nn.ReLU(True), "re_lu_"),   # PyTorch's inplace=True lands on Paddle's name
    (lambda: nn.LeakyReLU(0.2, True), "leaky_re_lu_"),
    (lambda: nn.Sigmoid(1), "sigmoid_"),
    (lambda: nn.Dropout(0.5, None, "upscale_in_train", True), "dropout_"),
    (lambda: nn.Linear(2, 3, name=False), "linear_"),
])
def test_built_in_layers_take_any_name_as_paddle_does(make, scope):
    # Paddle's layers only store name: the scope stays the class's.
    assert make().full_name().startswith(scope)


def test_a_layer_name_that_is_a_str_only_labels_the_repr():
    # Paddle 2.6.2: nn.Linear(1, 1, name="proj").full_name() == "linear_N"; the name shows in repr only
    assert nn.ReLU(name="act").full_name().startswith("re_lu_")
    assert nn.Linear(1, 1, name="proj").full_name().startswith("linear_")
    assert repr(nn.ReLU(name="act")) == "ReLU(name=act)"


def test_relu_given_true_as_its_name_still_computes_relu():
    data = np.array([-1.0, 0.0, 2.5], "float32")
    out = nn.ReLU(True)(eager.to_tensor(data))
    np.testing.assert_array_equal(out.numpy(), np.maximum(data, 0))


def test_layer_itself_still_refuses_a_name_scope_that_is_not_a_str():
    with pytest.raises(TypeError, match="Layer: argument 'name_scope' expected a non-empty str, got True"):
        nn.Layer(name_scope=True)


# -- index arrays that do not broadcast (tensor_index_cn.md) -------------------------------

def test_index_arrays_that_do_not_broadcast_raise_value_error_as_paddle():
    a = eager.arange(8).reshape((4, 2))
    for index in (([0, 2, 1], [0, 1]), (np.array([0, 2, 1]), np.array([0, 1]))):
        with pytest.raises(ValueError, match=r"getitem: argument 'index' .* cannot index x of shape \[4, 2\]: "
                                             r"shape mismatch"):
            a[index]
        with pytest.raises(ValueError, match="setitem: argument 'index' .* shape mismatch"):
            a[index] = 1
    np.testing.assert_array_equal(a.numpy(), np.arange(8).reshape(4, 2))  # nothing written


def test_an_index_out_of_range_is_still_an_index_error():
    a = eager.arange(8).reshape((4, 2))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 4"):
        a[5]
    with pytest.raises(IndexError):
        a[[0, 4]]


def test_index_arrays_that_broadcast_still_gather():
    data = np.arange(12).reshape(3, 4)
    a = eager.to_tensor(data)
    rows, cols = np.array([[0], [2]]), np.array([1, 3])
    np.testing.assert_array_equal(a[rows, cols].numpy(), data[rows, cols])


# -- Model.save(path, training=False): the inference model (model_save_load_cn.ipynb) -----

def _mlp():
    eager.seed(3)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def test_model_save_for_inference_with_inputs_round_trips_through_jit_load(tmp_path):
    net = _mlp()
    model = eager.Model(net, inputs=[eager.static.InputSpec([None, 4], "float32", name="x")])
    path = str(tmp_path / "sub" / "infer")
    model.save(path, training=False)
    assert (tmp_path / "sub" / "infer.pdmodel").is_file() and (tmp_path / "sub" / "infer.pdiparams").is_file()
    assert not (tmp_path / "sub" / "infer.pdparams").exists()  # not the training checkpoint
    loaded = eager.jit.load(path)
    loaded.eval()
    data = np.random.default_rng(0).normal(size=(5, 4)).astype("float32")
    w1, b1, w2, b2 = (p.numpy() for p in net.parameters())
    want = np.maximum(data @ w1 + b1, 0) @ w2 + b2  # the network by hand
    np.testing.assert_allclose(loaded(eager.to_tensor(data)).numpy(), want, rtol=1e-5, atol=1e-6)


def test_model_save_for_inference_takes_the_first_batch_shapes_with_a_warning(tmp_path):
    net = _mlp()
    model = eager.Model(net)
    model.prepare(eager.optimizer.SGD(0.1, parameters=model.parameters()), nn.CrossEntropyLoss())
    x = np.random.default_rng(1).normal(size=(6, 4)).astype("float32")
    y = np.array([[0], [1], [2], [0], [1], [2]], "int64")
    model.train_batch([x], [y])
    path = str(tmp_path / "infer")
    with pytest.warns(UserWarning, match=r"first batch run: \[\[6, 4\]\]"):
        model.save(path, training=False)
    loaded = eager.jit.load(path)
    loaded.eval()
    np.testing.assert_allclose(loaded(eager.to_tensor(x)).numpy(), net(eager.to_tensor(x)).numpy(), rtol=1e-5)


def test_model_save_for_inference_before_any_batch_raises_and_writes_nothing(tmp_path):
    model = eager.Model(_mlp())
    with pytest.raises(RuntimeError, match=r"Model.save: saving an inference model \(training=False\) needs"):
        model.save(str(tmp_path / "d" / "infer"), training=False)
    assert not (tmp_path / "d").exists()


def test_model_save_for_training_still_writes_the_checkpoint(tmp_path):
    model = eager.Model(_mlp())
    model.prepare(eager.optimizer.SGD(0.1, parameters=model.parameters()))
    model.save(str(tmp_path / "ckpt"))
    assert (tmp_path / "ckpt.pdparams").is_file() and (tmp_path / "ckpt.pdopt").is_file()
    assert not (tmp_path / "ckpt.pdmodel").exists()


# -- Model.predict over an array of batches (super_resolution_sub_pixel.ipynb) -------------

@pytest.mark.parametrize("as_tensor", [False, True])
def test_model_predict_iterates_an_array_as_its_batches(as_tensor):
    # Paddle takes any non-Dataset test_data as the batches themselves: img[None] is one batch.
    net = _mlp()
    model = eager.Model(net)
    batches = np.random.default_rng(2).normal(size=(2, 5, 4)).astype("float32")   # 2 batches of 5
    data = eager.to_tensor(batches) if as_tensor else batches
    (outs,) = model.predict(data, verbose=0)
    assert len(outs) == 2
    w1, b1, w2, b2 = (p.numpy() for p in net.parameters())
    for got, batch in zip(outs, batches):
        np.testing.assert_allclose(got, np.maximum(batch @ w1 + b1, 0) @ w2 + b2, rtol=1e-5, atol=1e-6)


def test_model_still_refuses_a_non_iterable_or_a_str():
    model = eager.Model(_mlp())
    with pytest.raises(TypeError, match="Model.predict: argument 'test_data' expected an eager.io.Dataset"):
        model.predict(42)
    with pytest.raises(TypeError, match="argument 'test_data'"):
        model.predict("data.npy")


# -- to_grayscale of a PIL image of any mode (image_segmentation.ipynb: T.Grayscale on 'L') -

def test_grayscale_of_a_pil_l_image_is_the_image_itself():
    Image = pytest.importorskip("PIL.Image")
    from eager.vision import transforms as T
    from eager.vision.transforms import functional as VF
    data = np.random.default_rng(4).integers(0, 256, (7, 5), dtype=np.uint8)
    out = T.Grayscale()(Image.fromarray(data, "L"))
    assert out.mode == "L"
    np.testing.assert_array_equal(np.asarray(out), data)
    three = VF.to_grayscale(Image.fromarray(data, "L"), num_output_channels=3)
    assert three.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(three), np.repeat(data[:, :, None], 3, axis=2))


def test_grayscale_of_a_pil_rgba_image_is_the_luma_of_its_rgb():
    Image = pytest.importorskip("PIL.Image")
    from eager.vision.transforms import functional as VF
    data = np.random.default_rng(5).integers(0, 256, (6, 4, 4), dtype=np.uint8)
    out = np.asarray(VF.to_grayscale(Image.fromarray(data, "RGBA")))
    rgb = data[:, :, :3].astype(np.float64)
    want = rgb @ np.array([0.299, 0.587, 0.114])   # the luma by hand
    assert np.abs(out.astype(np.float64) - want).max() <= 1.0


def test_grayscale_still_refuses_a_one_channel_numpy_array():
    from eager.vision.transforms import functional as VF
    with pytest.raises(ValueError, match=r"to_grayscale: argument 'img' expected an RGB image of 3 channels"):
        VF.to_grayscale(np.zeros((4, 4), np.uint8))
