"""Paddle's module paths (paddle.nn.layer.common, paddle.optimizer.adam,
paddle.base.dygraph, ...) reach eager's own objects, by attribute and by import
statement, and eager.base's dygraph pieces behave as Paddle's."""
import doctest
import importlib

import numpy as np
import pytest

import eager
import eager.nn as nn
import eager.nn.functional as F
from eager.jit.traced_layer import TracedLayer
from eager.nn.quant.quant_layers import MovingAverageAbsMaxScale

import fresh_python

# (module path, name, the canonical object): the path's name must be that object.
CASES = [
    ("eager.nn.layer.common", "Linear", nn.Linear),
    ("eager.nn.layer.common", "Dropout", nn.Dropout),
    ("eager.nn.layer.common", "Embedding", nn.Embedding),
    ("eager.nn.layer.common", "Pad2D", nn.Pad2D),
    ("eager.nn.layer.activation", "ReLU", nn.ReLU),
    ("eager.nn.layer.activation", "GELU", nn.GELU),
    ("eager.nn.layer.container", "Sequential", nn.Sequential),
    ("eager.nn.layer.container", "LayerDict", nn.LayerDict),
    ("eager.nn.layer.conv", "Conv2D", nn.Conv2D),
    ("eager.nn.layer.distance", "PairwiseDistance", nn.PairwiseDistance),
    ("eager.nn.layer.layers", "Layer", nn.Layer),
    ("eager.nn.layer.loss", "CrossEntropyLoss", nn.CrossEntropyLoss),
    ("eager.nn.layer.norm", "BatchNorm", nn.BatchNorm),
    ("eager.nn.layer.norm", "SyncBatchNorm", nn.SyncBatchNorm),
    ("eager.nn.layer.pooling", "MaxPool2D", nn.MaxPool2D),
    ("eager.nn.layer.rnn", "LSTM", nn.LSTM),
    ("eager.nn.layer.transformer", "Transformer", nn.Transformer),
    ("eager.nn.layer.vision", "PixelShuffle", nn.PixelShuffle),
    ("eager.nn.layer", "Layer", nn.Layer),
    ("eager.nn.layer", "ParamAttr", eager.ParamAttr),
    ("eager.nn.functional.common", "linear", F.linear),
    ("eager.nn.functional.common", "dropout", F.dropout),
    ("eager.nn.functional.common", "pad", F.pad),
    ("eager.nn.functional.common", "interpolate", F.interpolate),
    ("eager.nn.functional.common", "label_smooth", F.label_smooth),
    ("eager.nn.functional.distance", "pairwise_distance", F.pairwise_distance),
    ("eager.nn.functional.distance", "pdist", eager.pdist),
    ("eager.nn.functional", "pdist", eager.pdist),
    ("eager.nn.functional.loss", "rnnt_loss", F.rnnt_loss),
    ("eager.nn.functional.loss", "margin_cross_entropy", F.margin_cross_entropy),
    ("eager.nn.initializer.kaiming", "KaimingNormal", nn.initializer.KaimingNormal),
    ("eager.nn.initializer.xavier", "XavierUniform", nn.initializer.XavierUniform),
    ("eager.nn.initializer.constant", "Constant", nn.initializer.Constant),
    ("eager.nn.initializer.normal", "TruncatedNormal", nn.initializer.TruncatedNormal),
    ("eager.nn.initializer.initializer", "calculate_gain", nn.initializer.calculate_gain),
    ("eager.nn.initializer.lazy_init", "LazyGuard", nn.initializer.LazyGuard),
    ("eager.nn.initializer", "Bilinear", nn.initializer.Bilinear),
    ("eager.optimizer.adam", "Adam", eager.optimizer.Adam),
    ("eager.optimizer.adamw", "AdamW", eager.optimizer.AdamW),
    ("eager.optimizer.sgd", "SGD", eager.optimizer.SGD),
    ("eager.optimizer.momentum", "Momentum", eager.optimizer.Momentum),
    ("eager.optimizer.rmsprop", "RMSProp", eager.optimizer.RMSProp),
    ("eager.optimizer.lr", "StepDecay", eager.optimizer.lr.StepDecay),
    ("eager.io.dataloader.dataset", "TensorDataset", eager.io.TensorDataset),
    ("eager.io.dataloader.sampler", "RandomSampler", eager.io.RandomSampler),
    ("eager.io.dataloader.batch_sampler", "DistributedBatchSampler", eager.io.DistributedBatchSampler),
    ("eager.io.dataloader.collate", "default_collate_fn", eager.io.default_collate_fn),
    ("eager.io.dataloader.worker", "get_worker_info", eager.io.get_worker_info),
    ("eager.io.dataloader", "DataLoader", eager.io.DataLoader),
    ("eager.vision.models.resnet", "resnet18", eager.vision.models.resnet18),
    ("eager.tensor.math", "frexp", eager.frexp),
    ("eager.tensor.linalg", "cond", eager.linalg.cond),
    ("eager.incubate.autograd.functional", "Jacobian", eager.incubate.autograd.Jacobian),
    ("eager.incubate.autograd.primapi", "forward_grad", eager.incubate.autograd.forward_grad),
    ("eager.incubate.autograd.utils", "prim_enabled", eager.incubate.autograd.prim_enabled),
    ("eager.jit.api", "to_static", eager.jit.to_static),
    ("eager.jit.api", "save", eager.jit.save),
    ("eager.jit.api", "TracedLayer", TracedLayer),
    ("eager.nn.quant", "QuantStub", MovingAverageAbsMaxScale),
    ("eager.nn.quant.quant_layers", "QuantStub", MovingAverageAbsMaxScale),
    ("eager.base", "set_flags", eager.set_flags),
    ("eager.base", "CUDAPlace", eager.CUDAPlace),
    ("eager.base", "ParamAttr", eager.ParamAttr),
    ("eager.base.core", "CPUPlace", eager.CPUPlace),
    ("eager.base.framework", "get_flags", eager.get_flags),
    ("eager.base.dygraph", "no_grad_", eager.no_grad),  # base.dygraph.no_grad is the function form, as Paddle's
    ("eager.base.unique_name", "guard", eager.utils.unique_name.guard),
]


@pytest.mark.parametrize("path,name,expected", CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_a_paddle_path_gives_eagers_own_object(path, name, expected):
    assert getattr(importlib.import_module(path), name) is expected
    # ... and attribute access from the top reaches the same module.
    module = eager
    for part in path.split(".")[1:]:
        module = getattr(module, part)
    assert getattr(module, name) is expected


@pytest.mark.parametrize("package", ["eager.nn.layer", "eager.nn.initializer", "eager.io.dataloader",
                                     "eager.incubate.autograd", "eager.optimizer"])
def test_every_file_module_re_exports_objects_defined_elsewhere(package):
    """A file-named module holds no implementation: each name in its __all__ is an
    object whose home module is another one (no copies under Paddle's file names)."""
    files = importlib.import_module(package)._PADDLE_FILES
    assert files
    for file in files:
        module = importlib.import_module(f"{package}.{file}")
        assert module.__all__, module.__name__
        for name in module.__all__:
            assert getattr(module, name).__module__ != module.__name__, f"{module.__name__}.{name}"


def test_the_layer_module_keeps_its_names_and_errors():
    assert nn.layer.Layer.__module__ == "eager.nn.layer"
    with pytest.raises(AttributeError, match="module 'eager.nn.layer' has no attribute 'nothing'"):
        nn.layer.nothing
    with pytest.raises(AttributeError, match="module 'eager.optimizer' has no attribute 'adamx'"):
        eager.optimizer.adamx
    with pytest.raises(AttributeError, match="'eager.nn.functional.common' has no attribute 'softmax'"):
        F.common.softmax


# Each is a whole program: its first statement is the first import of eager.
PROGRAMS = {
    "nn.layer": "from eager.nn.layer.transformer import Transformer\nimport eager.nn.layer.loss\n"
                "assert Transformer is eager.nn.Transformer\n"
                "assert eager.nn.layer.loss.CrossEntropyLoss is eager.nn.CrossEntropyLoss",
    "initializer": "import eager.nn.initializer.kaiming as k\nimport eager\n"
                   "assert k.KaimingNormal is eager.nn.initializer.KaimingNormal",
    "optimizer": "from eager.optimizer.adam import Adam\nimport eager\nassert Adam is eager.optimizer.Adam",
    "io": "from eager.io.dataloader.batch_sampler import BatchSampler\nimport eager\n"
          "assert BatchSampler is eager.io.BatchSampler",
    "tensor": "from eager.tensor.random import gaussian_\nimport eager.tensor.math\n"
              "assert eager.tensor.math.frexp is eager.frexp and eager.tensor.math is eager.tensor.random\n"
              "assert eager.tensor.math.__spec__.name == 'eager.tensor_namespace'",
    "incubate": "from eager.incubate.autograd.functional import vjp\nimport eager\n"
                "assert vjp is eager.incubate.autograd.vjp",
    "base": "import eager.base as base\nfrom eager.base.dygraph.base import to_variable\nimport eager\n"
            "assert to_variable is base.dygraph.to_variable and base.core.get_xpu_device_count() == 0",
    "jit": "import eager.jit.api\nimport eager.device.xpu\nassert eager.jit.api.load is eager.jit.load",
}


def test_import_statements_work_as_a_programs_first_import():
    # All programs run at once (each interpreter spends most of its time importing), on
    # bytecode compiled once for them all (tests/fresh_python.py).
    fresh_python.warm_cache()
    running = {key: fresh_python.start(code) for key, code in PROGRAMS.items()}
    failed = {}
    for key, process in running.items():
        output, _ = process.communicate(timeout=300)
        if process.returncode:
            failed[key] = output[-2000:]
    assert not failed, failed


def test_import_of_a_name_paddle_does_not_have_fails_as_usual():
    for path in ("eager.tensor.nothing", "eager.nn.layer.nothing", "eager.base.executor"):
        with pytest.raises(ModuleNotFoundError, match=f"No module named '{path}'"):
            importlib.import_module(path)


@pytest.mark.parametrize("module,name", [("eager.base", "Program"), ("eager.base", "Executor"),
                                         ("eager.base", "DataFeeder"), ("eager.base.core", "VarDesc"),
                                         ("eager.base.framework", "program_guard"), ("eager.static", "Executor"),
                                         ("eager.static", "program_guard"), ("eager.static", "data"),
                                         ("eager.static.nn", "fc"), ("eager.static.nn", "sequence_pool")])
def test_static_graph_names_say_so(module, name):
    with pytest.raises(AttributeError, match=f"{module}.{name} is part of Paddle's static-graph API.*dynamic "
                                             f"graph mode only"):
        getattr(importlib.import_module(module), name)
    assert not hasattr(importlib.import_module(module), name)


def test_other_missing_base_names_are_plain_attribute_errors():
    with pytest.raises(AttributeError, match="^module 'eager.base' has no attribute 'nothing'$"):
        eager.base.nothing
    with pytest.raises(AttributeError, match="^module 'eager.base.core' has no attribute 'set_nan_inf_debug_path'$"):
        eager.base.core.set_nan_inf_debug_path
    with pytest.raises(AttributeError, match="^module 'eager.static' has no attribute 'nothing'$"):
        eager.static.nothing
    with pytest.raises(AttributeError, match="^module 'eager.static.nn' has no attribute 'nothing'$"):
        eager.static.nn.nothing


def test_to_variable_converts_as_numpy_array_does():
    to_variable = eager.base.dygraph.to_variable
    t = to_variable([[1.5, 2.0], [3.0, -4.25]])
    expected = np.array([[1.5, 2.0], [3.0, -4.25]])
    assert t.dtype == eager.float64 and t.stop_gradient
    np.testing.assert_array_equal(t.numpy(), expected)
    ints = to_variable((1, 2, 3))
    assert ints.dtype == eager.int64
    np.testing.assert_array_equal(ints.numpy(), [1, 2, 3])
    cast = to_variable(np.array([0.5, 1.5]), dtype="float32")
    assert cast.dtype == eager.float32
    np.testing.assert_array_equal(cast.numpy(), np.float32([0.5, 1.5]))
    x = eager.ones([2])
    assert to_variable(x) is x


def test_to_variable_rejects_other_types():
    with pytest.raises(TypeError, match="to_variable: argument 'value' expected a list, tuple, numpy.ndarray or "
                                        "Tensor, got int"):
        eager.base.dygraph.to_variable(3)


def test_guard_restores_the_device_and_gives_fresh_names():
    before = eager.get_device()
    outside = nn.Linear(2, 2).full_name()
    with eager.base.dygraph.guard("cpu"):
        assert eager.get_device() == "cpu"
        assert nn.Linear(2, 2).full_name() == "linear_0"
        assert nn.Linear(2, 2).full_name() == "linear_1"
    assert eager.get_device() == before
    # the counters outside the block go on from where they were
    assert nn.Linear(2, 2).full_name() == f"linear_{int(outside.rsplit('_', 1)[1]) + 1}"


def test_guard_rejects_an_unknown_place_before_changing_anything():
    before = eager.get_device()
    with pytest.raises(ValueError, match="guard: argument 'device' expected 'cpu', 'gpu' or 'gpu:N'.*got 'xpu:0'"):
        with eager.base.dygraph.guard("xpu:0"):
            pass
    assert eager.get_device() == before


def test_dygraph_mode_switches():
    assert eager.base.dygraph.enabled() is True and eager.base.in_dygraph_mode() is True
    eager.base.enable_dygraph()
    with pytest.raises(RuntimeError, match="static mode cannot be enabled"):
        eager.base.disable_dygraph()


def test_stride_kernel_flag_is_accepted_and_read_back():
    before = eager.base.get_flags("FLAGS_use_stride_kernel")
    assert before == {"FLAGS_use_stride_kernel": True}
    eager.base.set_flags({"FLAGS_use_stride_kernel": True})
    # views share memory whatever the flag says
    x = eager.ones([2, 3])
    eager.view(x, [3, 2])[0, 0] = 5.0
    assert x.numpy()[0, 0] == 5.0
    with pytest.raises(TypeError, match="flag 'FLAGS_use_stride_kernel' expected a bool"):
        eager.base.set_flags({"FLAGS_use_stride_kernel": "yes"})


def test_xpu_has_no_devices():
    assert eager.device.xpu.device_count() == 0
    assert eager.base.core.get_xpu_device_count() == 0
    for device in (None, 0):
        with pytest.raises(ValueError, match="synchronize: argument 'device' expected an XPU, but eager has no "
                                             "XPU devices"):
            eager.device.xpu.synchronize(device)


def test_a_paddle_1x_style_dygraph_program_runs():
    # The example of Paddle's nn.BatchNorm, through the paths it imports.
    from eager.base.dygraph.base import to_variable
    data = np.random.default_rng(0).random((3, 10, 3, 7)).astype("float32")
    with eager.base.dygraph.guard():
        x = to_variable(data)
        out = nn.layer.norm.BatchNorm(10)(x)
    mean = data.mean(axis=(0, 2, 3), keepdims=True)
    var = data.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(out.numpy(), (data - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("module", ["eager.base", "eager.base.core", "eager.base.framework", "eager.base.dygraph",
                                    "eager.base.dygraph.base", "eager.device.xpu"])
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), extraglobs={"eager": eager, "np": np})
    assert result.attempted and not result.failed


def test_paddle_tensor_namespace_has_fill_constant_stft_and_the_functional_random_fills():
    # Names Paddle 2.6 keeps under paddle.tensor (found missing by running its docstring examples).
    out = eager.tensor.fill_constant([2, 3], "float32", 1.5)
    assert out.shape == [2, 3] and out.dtype == eager.float32 and out.stop_gradient
    np.testing.assert_array_equal(out.numpy(), np.full((2, 3), 1.5, np.float32))
    np.testing.assert_array_equal(eager.tensor.fill_constant([2], "int64", 2.7).numpy(), [2, 2])  # Paddle's
    target = eager.zeros([4], "float64")
    assert eager.tensor.fill_constant([4], "float64", -1.0, out=target) is target
    np.testing.assert_array_equal(target.numpy(), [-1.0] * 4)
    x = eager.zeros([500], "float64")
    assert eager.tensor.uniform_(x, 2.0, 3.0) is x and 2.0 <= x.numpy().min() and x.numpy().max() < 3.0
    assert eager.tensor.exponential_(x, 4.0) is x and x.numpy().min() >= 0 and 0.15 < x.numpy().mean() < 0.35
    with pytest.raises(TypeError, match="uniform_: argument 'x' expected a Tensor, got list"):
        eager.tensor.uniform_([1.0, 2.0])
    assert eager.tensor.stft is eager.signal.stft and eager.tensor.istft is eager.signal.istft
