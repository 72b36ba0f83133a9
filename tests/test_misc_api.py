"""Small Paddle 2.x names a training script meets: Tensor attributes (memory layout,
kinds, persistable, apply/apply_, cauchy_/geometric_ and their paddle.* forms),
paddle.dtype, check_shape, the GPU generators' states, LazyGuard,
set_global_initializer, eager.device's streams, LinearLR, eager.utils (try_import,
deprecated, require_version, dlpack), eager.hub, vision.image_load, hapi.Model and
jit.ignore_module."""
import inspect
import math
import signal
import sys
import warnings

import numpy as np
import pytest

import eager
from eager.nn import initializer as init
from eager.utils import dlpack
from phi.core import DenseTensor, SelectedRows


# -- Tensor: memory layout ---------------------------------------------------------------------

def test_nbytes_and_strides_follow_the_layout():
    x = eager.zeros([2, 3], dtype="float64")
    assert x.nbytes == 2 * 3 * 8
    assert x.strides == [3, 1]
    assert x.transpose([1, 0]).strides == [1, 3]
    assert eager.zeros([4, 6])[:, ::2].strides == [6, 2]
    assert eager.to_tensor(1.5).strides == []


def test_offset_and_data_ptr_locate_a_view_in_its_base():
    x = eager.to_tensor(np.arange(12, dtype=np.int64).reshape(3, 4))
    assert x.offset == 0
    row = x[1:]
    assert row.offset == 4 * 8                      # one row of four int64 in
    assert row.data_ptr() - x.data_ptr() == 32
    column = x[:, 2:]
    assert column.offset == 2 * 8 and column.strides == [4, 1]


def test_value_and_get_tensor_reach_the_same_buffer():
    x = eager.to_tensor([1.0, 2.0, 3.0])
    assert x.value() is x
    handle = x.get_tensor()
    np.testing.assert_array_equal(np.array(handle), [1.0, 2.0, 3.0])
    assert handle.shape() == [3] and handle._dtype() == eager.float32 and handle.lod() == []
    version = x.inplace_version
    handle.set(np.array([4.0, 5.0, 6.0], np.float32), eager.CPUPlace())
    np.testing.assert_array_equal(x.numpy(), [4.0, 5.0, 6.0])
    assert x.inplace_version == version + 1
    with pytest.raises(ValueError, match="expected shape"):
        handle.set(np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="argument 'place'"):
        handle.set(np.zeros(3, np.float32), eager.CUDAPlace(0))
    np.testing.assert_array_equal(x.numpy(), [4.0, 5.0, 6.0])


def test_kind_queries_of_dense_and_sparse_rows():
    x = eager.zeros([2])
    assert x.is_dense() and not x.is_dist() and not x.is_selected_rows()
    assert x.type is eager.tensor_queries.VarType.LOD_TENSOR
    rows = eager.Tensor(SelectedRows(np.array([1]), DenseTensor(np.ones((1, 3), "float32")), height=4))
    assert not rows.is_dense() and rows.is_selected_rows()
    assert rows.type is eager.tensor_queries.VarType.SELECTED_ROWS
    with pytest.raises(TypeError, match="strides: expected a dense tensor"):
        rows.strides  # noqa: B018


def test_persistable_defaults_and_setter():
    x = eager.zeros([2])
    assert x.persistable is False
    assert eager.nn.Linear(2, 2).weight.persistable is True
    x.persistable = True
    assert x.persistable is True
    with pytest.raises(TypeError, match="persistable: expected a bool"):
        x.persistable = 1


# -- Tensor: apply, apply_ and the random fills --------------------------------------------------

def test_apply_returns_the_function_of_the_tensor():
    x = eager.to_tensor([1.0, 2.0, 3.0])
    y = x.apply(lambda t: 3 * t + 2)
    np.testing.assert_allclose(y.numpy(), [5.0, 8.0, 11.0])
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="must return a Tensor"):
        x.apply(lambda t: 1.0)


def test_apply_inplace_writes_into_the_tensor():
    x = eager.to_tensor([1.0, 2.0, 3.0])
    buffer_id, version = x.impl.buffer_id, x.inplace_version
    assert x.apply_(lambda t: t * t) is x
    np.testing.assert_array_equal(x.numpy(), [1.0, 4.0, 9.0])
    assert x.impl.buffer_id == buffer_id and x.inplace_version == version + 1
    with pytest.raises(ValueError, match=r"shape \[3\]"):
        x.apply_(lambda t: t[:2])
    np.testing.assert_array_equal(x.numpy(), [1.0, 4.0, 9.0])


@pytest.mark.parametrize("method", ["apply", "apply_"])
def test_apply_refuses_a_tensor_that_requires_grad(method):
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match="Cannot apply function on a tensor that required gradient"):
        getattr(x, method)(lambda t: t * 2)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])


def test_cauchy_fill_has_the_median_and_quartiles_of_its_law():
    eager.seed(7)
    x = eager.zeros([20000], dtype="float64")
    assert x.cauchy_(loc=1.5, scale=2.0) is x
    values = x.numpy()
    # the Cauchy law's quartiles are loc -/+ scale
    np.testing.assert_allclose(np.quantile(values, [0.25, 0.5, 0.75]), [-0.5, 1.5, 3.5], atol=0.15)
    eager.seed(7)
    np.testing.assert_array_equal(eager.zeros([20000], dtype="float64").cauchy_(1.5, 2.0).numpy(), values)
    with pytest.raises(ValueError, match="'scale' expected a number > 0"):
        x.cauchy_(scale=0.0)
    with pytest.raises(TypeError, match="cauchy_: expected a floating-point tensor"):
        eager.zeros([2], dtype="int64").cauchy_()


def test_geometric_fill_counts_trials_to_the_first_success():
    eager.seed(3)
    p = 0.3
    values = eager.zeros([20000], dtype="float64").geometric_(p).numpy()
    assert np.all(values == np.round(values)) and values.min() >= 1
    assert abs(values.mean() - 1 / p) < 0.1                           # mean 1/p, std 2.8 / sqrt(20000)
    assert abs(np.mean(values == 1) - p) < 0.02                        # P(X = 1) = p
    assert abs(np.mean(values == 2) - (1 - p) * p) < 0.02              # P(X = 2) = (1 - p) p
    np.testing.assert_array_equal(eager.zeros([5]).geometric_(1.0).numpy(), np.ones(5))
    per_element = eager.zeros([2, 3]).geometric_(eager.to_tensor([1.0, 1.0, 1.0])).numpy()
    np.testing.assert_array_equal(per_element, np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"probability in \(0, 1\]"):
        eager.zeros([2]).geometric_(0.0)
    with pytest.raises(ValueError, match="probabilities in"):
        eager.zeros([2]).geometric_(eager.to_tensor([0.5, 1.5]))


RANDOM_FILLS = [
    ("uniform_", lambda t: t.uniform_(0.0, 1.0)),
    ("normal_", lambda t: t.normal_()),
    ("exponential_", lambda t: t.exponential_(2.0)),
    ("bernoulli_", lambda t: t.bernoulli_(0.5)),
    ("cauchy_", lambda t: t.cauchy_()),
    ("geometric_", lambda t: t.geometric_(0.5)),
    ("log_normal_", lambda t: t.log_normal_()),
    ("gaussian_", lambda t: eager.tensor.random.gaussian_(t)),
    ("cauchy_", lambda t: eager.cauchy_(t)),
    ("normal_", lambda t: eager.normal_(t)),
]


@pytest.mark.parametrize("op, fill", RANDOM_FILLS, ids=[f"{op}-{i}" for i, (op, _) in enumerate(RANDOM_FILLS)])
def test_random_fill_of_a_grad_leaf_names_the_called_op_and_changes_nothing(op, fill):
    """The leaf rule's error names the fill the user called (not the setitem_ that
    writes), and comes before a sample is drawn: x and the generator are untouched."""
    x = eager.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    eager.seed(5)
    expected_next = eager.rand([4]).numpy()
    eager.seed(5)
    with pytest.raises(eager.errors.AutogradError, match=rf"^{op}: a leaf tensor with stop_gradient=False"):
        fill(x)
    with pytest.raises(eager.errors.AutogradError, match=rf"^{op}: this tensor is a view"):
        fill(x[1:])
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(eager.rand([4]).numpy(), expected_next)
    with eager.no_grad():
        assert fill(x) is x                     # allowed while nothing is recorded
    assert x.shape == [3] and not x.stop_gradient


def test_cauchy_and_geometric_functions_fill_x_in_place_with_their_laws():
    stats = pytest.importorskip("scipy.stats")
    eager.seed(11)
    x = eager.zeros([4000], dtype="float64")
    version, buffer_id = x.inplace_version, x.impl.buffer_id
    assert eager.cauchy_(x, loc=-1.0, scale=0.5) is x
    assert x.inplace_version == version + 1 and x.impl.buffer_id == buffer_id
    assert stats.kstest(x.numpy(), stats.cauchy(loc=-1.0, scale=0.5).cdf).pvalue > 1e-3
    # the function and the method draw the same numbers from eager's generator
    eager.seed(11)
    np.testing.assert_array_equal(eager.zeros([4000], dtype="float64").cauchy_(-1.0, 0.5).numpy(), x.numpy())
    y = eager.geometric_(x=eager.zeros([4000], dtype="float64"), probs=0.25)
    values = y.numpy().astype(np.int64)
    counts = np.bincount(values, minlength=22)[1:]  # counts[k - 1]: how many draws are k
    # chi-square goodness of fit over k = 1..20 and the tail k > 20 lumped together
    want = np.append(stats.geom.pmf(np.arange(1, 21), 0.25), stats.geom.sf(20, 0.25)) * values.size
    got = np.append(counts[:20], counts[20:].sum())
    assert stats.chisquare(got, want).pvalue > 1e-3
    assert list(inspect.signature(eager.cauchy_).parameters) == ["x", "loc", "scale", "name"]
    assert list(inspect.signature(eager.geometric_).parameters) == ["x", "probs", "name"]


def test_cauchy_fill_passes_no_gradient_to_the_values_it_overwrites():
    w = eager.to_tensor([1.0, 2.0], dtype="float64", stop_gradient=False)
    y = w * 3.0
    eager.cauchy_(y)
    (y * y).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    z = w * 3.0
    eager.geometric_(z, 0.5)
    z.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])


def test_cauchy_and_geometric_functions_check_their_arguments_first():
    x = eager.to_tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="cauchy_: argument 'x' expected a Tensor"):
        eager.cauchy_(np.zeros(2))
    with pytest.raises(TypeError, match="geometric_: argument 'x' expected a Tensor"):
        eager.geometric_([0.0], 0.5)
    with pytest.raises(ValueError, match="cauchy_: argument 'scale' expected a number > 0, got -1"):
        eager.cauchy_(x, scale=-1.0)
    with pytest.raises(ValueError, match=r"geometric_: argument 'probs' expected a probability in \(0, 1\], got 2"):
        eager.geometric_(x, 2.0)
    with pytest.raises(TypeError, match="geometric_: expected a floating-point tensor"):
        eager.geometric_(eager.to_tensor([1, 2]), 0.5)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    assert x.inplace_version == 0


# -- framework names -----------------------------------------------------------------------------

def test_dtype_is_the_type_of_dtypes():
    assert isinstance(eager.ones([1]).dtype, eager.dtype)
    assert isinstance(eager.float16, eager.dtype)


def test_check_shape_accepts_ints_and_int_tensors_only():
    assert eager.check_shape([2, eager.to_tensor(3)], "zeros") is None
    assert eager.check_shape(eager.to_tensor([2, 3], dtype="int32"), "zeros") is None
    with pytest.raises(TypeError, match="zeros: argument 'shape' expected list, tuple, Tensor, got str"):
        eager.check_shape("2x3", "zeros")
    with pytest.raises(TypeError, match="zeros: element of shape expected int, Tensor, got float 2.0"):
        eager.check_shape([2.0], "zeros")
    with pytest.raises(TypeError, match="dtype paddle.int32, paddle.int64, got paddle.float32"):
        eager.check_shape(eager.to_tensor([2.0]), "ones")


def test_disable_signal_handler_leaves_pythons_handlers():
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGSEGV)}
    assert eager.disable_signal_handler() is None
    assert {s: signal.getsignal(s) for s in before} == before


def test_cuda_rng_state_round_trip_and_without_a_gpu(monkeypatch):
    states = eager.get_cuda_rng_state()
    assert len(states) == eager.device.cuda.device_count()
    if states:
        eager.set_device("gpu:0")
        try:
            a = eager.randn([5]).numpy()
            eager.set_cuda_rng_state(states)
            b = eager.randn([5]).numpy()
        finally:
            eager.set_device("cpu")
        eager.set_cuda_rng_state(states)
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="one state per GPU"):
        eager.set_cuda_rng_state(states + eager.get_rng_state()[:1])
    monkeypatch.setattr(init, "gpu_count", lambda: 0)
    assert eager.get_cuda_rng_state() == []
    eager.set_cuda_rng_state([])
    with pytest.raises(TypeError, match="set_cuda_rng_state: argument 'state_list'"):
        eager.set_cuda_rng_state("state")


def test_lazy_guard_builds_the_same_parameters():
    with eager.LazyGuard():
        guarded = eager.nn.Linear(3, 4)
    assert guarded.weight.shape == [3, 4] and not guarded.weight._is_initialized()
    eager.seed(11)
    for p in guarded.parameters():  # the draws happen here, in creation order
        p.initialize()
    eager.seed(11)
    plain = eager.nn.Linear(3, 4)
    np.testing.assert_array_equal(guarded.weight.numpy(), plain.weight.numpy())
    np.testing.assert_array_equal(guarded.bias.numpy(), plain.bias.numpy())


def test_global_initializer_replaces_the_layers_default_but_not_attr():
    try:
        init.set_global_initializer(init.Constant(0.5), init.Constant(-1.0))
        layer = eager.nn.Linear(2, 3)
        np.testing.assert_array_equal(layer.weight.numpy(), np.full((2, 3), 0.5, np.float32))
        np.testing.assert_array_equal(layer.bias.numpy(), np.full(3, -1.0, np.float32))
        embedding = eager.nn.Embedding(4, 2)          # its own default is XavierUniform
        np.testing.assert_array_equal(embedding.weight.numpy(), np.full((4, 2), 0.5, np.float32))
        chosen = eager.nn.Linear(2, 3, weight_attr=eager.ParamAttr(initializer=init.Constant(2.0)))
        np.testing.assert_array_equal(chosen.weight.numpy(), np.full((2, 3), 2.0, np.float32))
        np.testing.assert_array_equal(eager.create_parameter([2], "float32").numpy(), [0.5, 0.5])
        init.set_global_initializer(None)
        assert not np.all(eager.nn.Linear(2, 3).weight.numpy() == 0.5)
        with pytest.raises(TypeError, match="'weight_init' expected an Initializer or None"):
            init.set_global_initializer("xavier")
    finally:
        init.set_global_initializer(None)


# -- eager.device streams --------------------------------------------------------------------------

def test_cpu_synchronizes_at_once_and_has_no_streams():
    assert eager.device.synchronize() is None
    assert eager.device.synchronize("cpu") is None
    for make in (eager.device.Stream, eager.device.Event, eager.device.current_stream):
        with pytest.raises(TypeError, match="device should be gpu_place or custom_place"):
            make("cpu")
    with eager.device.stream_guard(None) as stream:
        assert stream is None
        np.testing.assert_array_equal((eager.ones([2]) + 1).numpy(), [2.0, 2.0])
    with pytest.raises(TypeError, match="stream_guard: argument 'stream'"):
        eager.device.stream_guard("s")


def test_stream_guard_makes_a_gpu_stream_current():
    if eager.device.cuda.device_count() == 0:
        pytest.skip("no GPU (real or fake) visible")
    stream = eager.device.Stream("gpu:0")
    before = eager.device.current_stream(0)
    with eager.device.stream_guard(stream) as entered:
        assert entered is stream
        assert eager.device.current_stream(0) == stream
        y = eager.to_tensor([1.0, 2.0], place="gpu:0") * 2.0
        stream.synchronize()
    assert eager.device.current_stream(0) == before
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])
    eager.device.synchronize(0)
    with pytest.raises(ValueError, match="priority"):
        eager.device.Stream("gpu:0", priority=3)


# -- optimizer.lr.LinearLR ---------------------------------------------------------------------

def test_linear_lr_ramps_then_holds():
    base, total, start, end = 0.5, 4, 0.25, 1.0
    scheduler = eager.optimizer.lr.LinearLR(base, total_steps=total, start_factor=start, end_factor=end)
    rates = []
    for _ in range(7):
        rates.append(scheduler())
        scheduler.step()
    expected = [base * (start + (end - start) * min(k, total) / total) for k in range(7)]
    np.testing.assert_allclose(rates, expected, rtol=1e-12)
    scheduler.step(2)
    assert math.isclose(scheduler(), expected[2], rel_tol=1e-12)
    restored = eager.optimizer.lr.LinearLR(base, total_steps=total, start_factor=start)
    restored.set_state_dict(scheduler.state_dict())
    assert restored.last_epoch == 2 and restored() == scheduler()
    with pytest.raises(ValueError, match="'start_factor' expected a value in"):
        eager.optimizer.lr.LinearLR(0.1, total_steps=3, start_factor=0.0)
    with pytest.raises(ValueError, match="'total_steps' expected a value > 0"):
        eager.optimizer.lr.LinearLR(0.1, total_steps=0)


# -- eager.utils -------------------------------------------------------------------------------

def test_try_import(monkeypatch):
    assert eager.utils.try_import("math") is math
    monkeypatch.setitem(sys.modules, "cv2", None)  # OpenCV missing, whether or not it is installed
    with pytest.raises(ImportError, match="pip install opencv-python"):
        eager.utils.try_import("cv2")
    with pytest.raises(ImportError, match="pip install no_such_module_xyz"):
        eager.utils.try_import("no_such_module_xyz")
    with pytest.raises(ImportError, match="^custom$"):
        eager.utils.try_import("no_such_module_xyz", "custom")


def test_deprecated_levels():
    def make(level):
        @eager.utils.deprecated(update_to="new_api", since="2.0", reason="renamed", level=level)
        def old_api(x):
            """Doubles."""
            return 2 * x
        return old_api

    quiet = make(0)
    assert 'is deprecated since 2.0' in quiet.__doc__ and "Doubles." in quiet.__doc__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert quiet(2) == 4
    with pytest.warns(DeprecationWarning, match='Please use "new_api" instead'):
        assert make(1)(3) == 6
    with pytest.raises(RuntimeError, match="has been deprecated"):
        make(2)(1)
    with pytest.raises(ValueError, match="'level' expected 0, 1 or 2"):
        eager.utils.deprecated(level=3)


def test_require_version_against_the_installed_version():
    eager.utils.require_version("0.1")
    eager.utils.require_version("0.0.9", "0.1.0")
    with pytest.raises(Exception, match="is required, but 0.1.0 is installed"):
        eager.utils.require_version("0.2")
    with pytest.raises(Exception, match=r"\[0.0.1, 0.0.5\]"):
        eager.utils.require_version("0.0.1", "0.0.5")
    with pytest.raises(TypeError, match="'min_version' expected a str"):
        eager.utils.require_version(1.0)
    with pytest.raises(ValueError, match="'max_version' expected a version like"):
        eager.utils.require_version("0.1", "1.x")


def test_dlpack_round_trip_shares_memory():
    x = eager.to_tensor([1.0, 2.0, 3.0])
    y = dlpack.from_dlpack(dlpack.to_dlpack(x))
    y[0] = 9.0
    np.testing.assert_array_equal(x.numpy(), [9.0, 2.0, 3.0])
    array = np.arange(4, dtype=np.int32)
    t = dlpack.from_dlpack(array)
    array[1] = 7
    assert t.dtype == eager.int32 and t.numpy().tolist() == [0, 7, 2, 3]
    capsule = dlpack.to_dlpack(x)
    dlpack.from_dlpack(capsule)
    with pytest.raises(ValueError, match="consumed already"):
        dlpack.from_dlpack(capsule)
    with pytest.raises(TypeError, match="DLPack capsule or an object with __dlpack__"):
        dlpack.from_dlpack([1, 2])
    with pytest.raises(TypeError, match="to_dlpack: argument 'x' expected a Tensor"):
        dlpack.to_dlpack(np.zeros(2))


def test_dlpack_with_torch():
    torch = pytest.importorskip("torch")
    x = eager.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    t = torch.from_dlpack(dlpack.to_dlpack(x))
    t[1, 1] = -1.0
    assert x.numpy()[1, 1] == -1.0
    source = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    y = dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(source))
    source[0, 0] = 5.0
    assert y.shape == [2, 3] and y.dtype == eager.float64 and y.numpy()[0, 0] == 5.0
    z = dlpack.from_dlpack(torch.tensor([True, False]))
    assert z.dtype == eager.bool and z.numpy().tolist() == [True, False]


# -- eager.hub ---------------------------------------------------------------------------------

@pytest.fixture
def hub_repo(tmp_path):
    (tmp_path / "helper.py").write_text("def width():\n    return 3\n")
    (tmp_path / "hubconf.py").write_text(
        "import eager\n"
        "from helper import width\n"
        "dependencies = ['numpy']\n"
        "def tiny(out_features=2):\n"
        "    '''A tiny linear model.'''\n"
        "    return eager.nn.Linear(width(), out_features)\n"
        "def _private():\n"
        "    return None\n")
    return tmp_path


def test_hub_lists_helps_and_loads_a_local_repo(hub_repo):
    assert eager.hub.list(str(hub_repo), source="local") == ["tiny", "width"]
    assert eager.hub.help(hub_repo, "tiny", source="local") == "A tiny linear model."
    model = eager.hub.load(str(hub_repo), "tiny", source="local", out_features=4)
    assert isinstance(model, eager.nn.Linear) and model.weight.shape == [3, 4]
    assert eager.hub.load(str(hub_repo), "_private", source="local") is None  # Paddle 2.6.2 loads it too
    with pytest.raises(RuntimeError, match="Cannot find callable missing in hubconf"):
        eager.hub.load(str(hub_repo), "missing", source="local")


def test_hub_refuses_downloads_and_bad_repos(hub_repo, tmp_path_factory):
    for source in ("github", "gitee"):
        with pytest.raises(RuntimeError, match="never downloads"):
            eager.hub.list("PaddlePaddle/PaddleClas:develop", source=source)
    with pytest.raises(ValueError, match='Unknown source: "hf"'):
        eager.hub.list(str(hub_repo), source="hf")
    with pytest.raises(FileNotFoundError, match="has no hubconf.py"):
        eager.hub.list(str(tmp_path_factory.mktemp("empty")), source="local")
    (hub_repo / "hubconf.py").write_text("dependencies = ['no_such_module_xyz']\ndef m():\n    return 1\n")
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_module_xyz"):
        eager.hub.load(str(hub_repo), "m", source="local")


# -- vision.image_load, hapi, jit ----------------------------------------------------------------

def test_image_load_backends(tmp_path):
    image_module = pytest.importorskip("PIL.Image")
    pixels = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    path = tmp_path / "x.png"
    image_module.fromarray(pixels).save(path)
    np.testing.assert_array_equal(np.asarray(eager.vision.image_load(str(path))), pixels)
    bgr = eager.vision.image_load(path, backend="cv2")            # OpenCV's layout, with or without OpenCV
    assert isinstance(bgr, np.ndarray) and bgr.dtype == np.uint8
    np.testing.assert_array_equal(bgr, pixels[:, :, ::-1])
    gray_path = tmp_path / "g.png"
    image_module.fromarray(pixels[:, :, 0]).save(gray_path)
    np.testing.assert_array_equal(eager.vision.image_load(gray_path, backend="cv2"),
                                  np.repeat(pixels[:, :, :1], 3, axis=2))
    as_tensor = eager.vision.image_load(path, backend="tensor")
    np.testing.assert_array_equal(as_tensor.numpy(), pixels.transpose(2, 0, 1))
    with pytest.raises(ValueError, match="'backend' expected one of"):
        eager.vision.image_load(str(path), backend="skimage")
    with pytest.raises(FileNotFoundError, match="no file at"):
        eager.vision.image_load(str(tmp_path / "missing.png"))


def test_hapi_and_jit_names():
    assert eager.hapi.Model is eager.Model
    assert eager.hapi.summary is eager.summary and eager.hapi.flops is eager.flops
    eager.jit.ignore_module([math, math])
    assert sum(m is math for m in eager.jit.IGNORED_MODULES) == 1
    with pytest.raises(TypeError, match="ignore_module: argument 'modules' expected a list of modules"):
        eager.jit.ignore_module(["math"])


# -- as_strided and unfold: views ------------------------------------------------------------------

def test_as_strided_is_a_view_with_a_shared_version_counter():
    x = eager.to_tensor(np.arange(6.0))
    y = x.as_strided([3, 2], [1, 1], 8)                       # windows [1, 2], [2, 3], [3, 4] (offset in bytes)
    np.testing.assert_array_equal(y.numpy(), [[1.0, 2.0], [2.0, 3.0], [3.0, 4.0]])
    assert y.impl.buffer_id == x.impl.buffer_id
    version = x.inplace_version
    x[2] = 50.0                                                # seen through both windows reading it
    np.testing.assert_array_equal(y.numpy()[:, 0], [1.0, 50.0, 3.0])
    assert y.inplace_version == x.inplace_version == version + 1
    y[0, 0] = -1.0                                             # a write through the view reaches x
    assert x.numpy()[1] == -1.0
    with pytest.raises(ValueError, match=r"read element 6 of x, which has 6"):
        eager.as_strided(x, [4], [2])
    with pytest.raises(ValueError, match="'stride' expected one step per dimension"):
        eager.as_strided(x, [2, 2], [1])
    with pytest.raises(ValueError, match="'stride' expected non-negative steps"):
        eager.as_strided(x, [2], [-1], 3)


def test_as_strided_gradient_adds_where_elements_are_read_twice():
    x = eager.to_tensor(np.arange(5.0), stop_gradient=False)
    y = eager.as_strided(x, [2, 3], [2, 1])                    # rows x[0:3] and x[2:5]: x[2] read twice
    weights = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    (y * eager.to_tensor(weights)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 2.0, 3.0 + 4.0, 5.0, 6.0])


def test_as_strided_of_a_transposed_tensor_reads_its_row_major_order():
    base = eager.to_tensor(np.arange(6.0).reshape(2, 3))
    x = base.transpose([1, 0])                                 # not contiguous: values [[0, 3], [1, 4], [2, 5]]
    np.testing.assert_array_equal(eager.as_strided(x, [3], [2]).numpy(), [0.0, 1.0, 2.0])


def test_unfold_gives_sliding_windows_as_a_view():
    x = eager.to_tensor(np.arange(12.0).reshape(3, 4), stop_gradient=False)
    windows = x.unfold(1, 2, 1)                                # along the rows: 3 windows of 2
    expected = np.stack([np.arange(12.0).reshape(3, 4)[:, i:i + 2] for i in range(3)], axis=1)
    np.testing.assert_array_equal(windows.numpy(), expected)
    assert windows.shape == [3, 3, 2]
    windows.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.tile([1.0, 2.0, 2.0, 1.0], (3, 1)))
    plain = eager.to_tensor(np.arange(7.0))
    np.testing.assert_array_equal(eager.unfold(plain, 0, 3, 2).numpy(), [[0, 1, 2], [2, 3, 4], [4, 5, 6]])
    assert eager.unfold(plain, 0, 3, 2).impl.buffer_id == plain.impl.buffer_id
    with pytest.raises(ValueError, match=r"unfold: argument 'size' \(8\) exceeds the size of axis 0 \(7\)"):
        plain.unfold(0, 8, 1)
    with pytest.raises(ValueError, match="unfold: argument 'step'"):
        plain.unfold(0, 2, 0)


def test_view_with_a_dtype_reinterprets_the_bytes():
    x = eager.to_tensor(np.array([[1.0, -2.0], [0.5, 4.0]], np.float32))
    raw = eager.view(x, "uint8")
    assert raw.shape == [2, 8] and raw.dtype == eager.uint8
    np.testing.assert_array_equal(raw.numpy(), np.frombuffer(np.array([[1.0, -2.0], [0.5, 4.0]], np.float32)
                                                             .tobytes(), np.uint8).reshape(2, 8))
    assert raw.impl.buffer_id == x.impl.buffer_id
    bits = x.view(eager.int32)                                  # same size: same shape
    assert bits.shape == [2, 2] and bits.numpy()[0, 0] == 0x3F800000
    wide = x.view("float64")                                    # two float32 per float64
    assert wide.shape == [2, 1]
    bits[0, 0] = 0x40400000                                     # the bits of 3.0, written through the view
    assert x.numpy()[0, 0] == 3.0 and x.inplace_version == bits.inplace_version == 1
    with pytest.raises(ValueError, match=r"last axis of x \(3 elements of paddle.float32, 12 bytes\) does not divide"):
        eager.view(eager.ones([3]), "float64")
    with pytest.raises(ValueError, match="a 0-d tensor of paddle.float32"):
        eager.view(eager.to_tensor(1.0), "float64")
