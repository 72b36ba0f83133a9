"""Process-wide settings (Paddle's paddle.framework): default dtype, default device,
print options; and eager.utils.run_check."""
import sys
import threading

import numpy as np
import pytest

import eager
from eager import framework
from eager.arguments import to_place
from phi.common import CPUPlace, DataType, GPUPlace


@pytest.fixture(autouse=True)
def restore_settings():
    dtype, place, options = eager.get_default_dtype(), framework.current_place(), framework.print_options()
    yield
    eager.set_default_dtype(dtype)
    framework._place[0] = place
    framework._print_options[0] = options


# -- default dtype ---------------------------------------------------------------------

def test_default_dtype_starts_as_float32():
    assert eager.get_default_dtype() == "float32"
    assert eager.to_tensor(1.5).dtype is DataType.FLOAT32
    assert eager.zeros([2]).dtype is DataType.FLOAT32


@pytest.mark.parametrize("given, name", [
    ("float64", "float64"), ("float16", "float16"), ("float32", "float32"),
    (np.float64, "float64"), (np.dtype("float16"), "float16"), (eager.float64, "float64"),
])
def test_set_default_dtype_accepts_names_numpy_types_and_dtypes(given, name):
    eager.set_default_dtype(given)
    assert eager.get_default_dtype() == name
    assert isinstance(eager.get_default_dtype(), str)


@pytest.mark.parametrize("bad", ["int32", "int64", "bool", np.int32, "complex64", None, 3, "float"])
def test_set_default_dtype_refuses_non_floating_dtypes(bad):
    eager.set_default_dtype("float64")
    with pytest.raises(TypeError, match="set_default_dtype: argument 'd' expected one of 'float16'"):
        eager.set_default_dtype(bad)
    assert eager.get_default_dtype() == "float64"  # unchanged


CREATION_OPS = {
    "zeros": lambda: eager.zeros([2, 3]),
    "ones": lambda: eager.ones([2]),
    "full": lambda: eager.full([2], 1.5),
    "full int value": lambda: eager.full([2], 3),
    "empty": lambda: eager.empty([2]),
    "eye": lambda: eager.eye(3),
    "linspace": lambda: eager.linspace(0, 1, 5),
    "logspace": lambda: eager.logspace(0, 1, 5),
    "arange float args": lambda: eager.arange(0.0, 1.0, 0.25),
    "arange float step": lambda: eager.arange(0, 1, 0.25),
    "rand": lambda: eager.rand([3]),
    "randn": lambda: eager.randn([3]),
    "standard_normal": lambda: eager.standard_normal([3]),
    "uniform": lambda: eager.uniform([3]),
    "normal": lambda: eager.normal(0.0, 1.0, [3]),
    "to_tensor float": lambda: eager.to_tensor(1.5),
    "to_tensor float list": lambda: eager.to_tensor([[1.0, 2.0], [3.0, 4.0]]),
    "to_tensor mixed list": lambda: eager.to_tensor([1, 2.5]),
}


@pytest.mark.parametrize("name", list(CREATION_OPS))
@pytest.mark.parametrize("default", ["float64", "float16"])
def test_creation_ops_without_dtype_honour_the_default(name, default):
    if default == "float16" and name in ("logspace", "linspace", "arange float args", "arange float step",
                                         "normal", "eye"):
        default = "float64"  # one float16 pass over the plain fills and samplers is enough
    eager.set_default_dtype(default)
    out = CREATION_OPS[name]()
    assert out.dtype is DataType(default)
    assert out.numpy().dtype == np.dtype(default)
    eager.set_default_dtype("float32")
    assert CREATION_OPS[name]().dtype is DataType.FLOAT32


def test_values_are_right_in_the_default_dtype():
    eager.set_default_dtype("float64")
    np.testing.assert_array_equal(eager.arange(0.0, 1.0, 0.25).numpy(), np.arange(0.0, 1.0, 0.25))
    np.testing.assert_array_equal(eager.linspace(0, 1, 5).numpy(), np.linspace(0.0, 1.0, 5))
    np.testing.assert_array_equal(eager.eye(2).numpy(), np.eye(2))
    third = eager.to_tensor(1.0 / 3.0).item()
    assert third == 1.0 / 3.0  # kept in float64, not rounded through float32
    sample = eager.rand([1000]).numpy()
    assert sample.dtype == np.float64 and 0.0 <= sample.min() and sample.max() < 1.0


def test_what_the_default_dtype_does_not_change():
    eager.set_default_dtype("float64")
    assert eager.arange(5).dtype is DataType.INT64           # integer arguments
    assert eager.to_tensor([1, 2]).dtype is DataType.INT64    # Python ints
    assert eager.to_tensor(True).dtype is DataType.BOOL
    assert eager.randint(0, 5, [3]).dtype is DataType.INT64
    assert eager.randperm(4).dtype is DataType.INT64
    assert eager.zeros([2], dtype="float32").dtype is DataType.FLOAT32  # an explicit dtype wins
    assert eager.to_tensor([1.0], dtype="float32").dtype is DataType.FLOAT32
    assert eager.to_tensor(np.ones(2, "float32")).dtype is DataType.FLOAT32  # NumPy keeps its dtype
    assert eager.to_tensor(np.float32(2.0)).dtype is DataType.FLOAT32
    x = eager.to_tensor(np.ones(2, "float32"))
    assert eager.zeros_like(x).dtype is DataType.FLOAT32       # *_like follow x
    assert eager.full_like(x, 2.0).dtype is DataType.FLOAT32
    assert (x * 2.5).dtype is DataType.FLOAT32
    eager.set_default_dtype("float32")
    assert eager.to_tensor(np.ones(2)).dtype is DataType.FLOAT64  # a float64 array stays float64


@pytest.mark.parametrize("default, expected", [("float16", DataType.COMPLEX64), ("float32", DataType.COMPLEX64),
                                               ("float64", DataType.COMPLEX128)])
def test_python_complex_follows_the_default_dtype(default, expected):
    eager.set_default_dtype(default)
    out = eager.to_tensor([1 + 2j, 3.0])
    assert out.dtype is expected
    np.testing.assert_array_equal(out.numpy(), np.array([1 + 2j, 3.0]))


def test_layers_and_initializers_made_after_set_default_dtype_use_it():
    before = eager.nn.Linear(3, 2)
    eager.set_default_dtype("float64")
    layer = eager.nn.Linear(3, 2)
    assert layer.weight.dtype is DataType.FLOAT64 and layer.bias.dtype is DataType.FLOAT64
    assert before.weight.dtype is DataType.FLOAT32  # made earlier: unchanged
    x = eager.to_tensor(np.arange(6.0).reshape(2, 3))
    out = layer(x)
    np.testing.assert_allclose(out.numpy(), x.numpy() @ layer.weight.numpy() + layer.bias.numpy())
    assert eager.nn.initializer.XavierUniform()((2, 2)).dtype == np.float64
    assert eager.nn.initializer.Constant(1.0)((2,)).dtype == np.float64
    assert eager.nn.Layer()._dtype is DataType.FLOAT64
    assert eager.nn.Layer(dtype="float32").create_parameter([2]).dtype is DataType.FLOAT32
    assert eager.nn.Layer().create_parameter([2], dtype="float32").dtype is DataType.FLOAT32
    conv = eager.nn.Conv2D(1, 1, 3)
    assert conv.weight.dtype is DataType.FLOAT64


def test_the_default_dtype_is_process_global():
    seen = []
    worker = threading.Thread(target=lambda: eager.set_default_dtype("float64"))
    worker.start()
    worker.join()
    assert eager.get_default_dtype() == "float64"
    reader = threading.Thread(target=lambda: seen.append(eager.zeros([1]).dtype))
    reader.start()
    reader.join()
    assert seen == [DataType.FLOAT64]


# -- default device --------------------------------------------------------------------

def test_device_starts_as_cpu_and_set_device_cpu_returns_the_place():
    assert eager.get_device() == "cpu"
    assert eager.set_device("cpu") == CPUPlace()
    assert eager.set_device(" CPU ") == CPUPlace()
    assert eager.get_device() == "cpu"
    assert eager.to_tensor([1.0]).place == CPUPlace()
    assert eager.zeros([1]).place == CPUPlace()


@pytest.mark.parametrize("bad", ["tpu", "gpu:", "gpu:-1", "gpu:a", "xpu:0", "", "cuda:x"])
def test_set_device_refuses_unknown_devices(bad):
    with pytest.raises(ValueError, match="set_device: argument 'device' expected 'cpu', 'gpu' or 'gpu:N'"):
        eager.set_device(bad)
    assert eager.get_device() == "cpu"


def test_set_device_refuses_non_strings():
    with pytest.raises(ValueError, match="set_device: argument 'device' expected a str"):
        eager.set_device(0)


def test_set_device_gpu_without_a_gpu_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(framework, "gpu_count", lambda: 0)
    for device in ("gpu", "gpu:0", "gpu:1"):
        with pytest.raises(ValueError, match="no GPU is available: GPU tensors need CuPy"):
            eager.set_device(device)
    assert eager.get_device() == "cpu"


def test_set_device_gpu_makes_the_gpu_the_default_place(monkeypatch):
    monkeypatch.setattr(framework, "gpu_count", lambda: 2)  # as if CuPy saw two devices
    assert eager.set_device("gpu") == GPUPlace(0)
    assert eager.get_device() == "gpu:0"
    assert eager.set_device("gpu:1") == GPUPlace(1)
    assert eager.get_device() == "gpu:1"
    assert to_place(None, "zeros", "place") == GPUPlace(1)  # what every creation op is given
    assert to_place("cpu", "zeros", "place") == CPUPlace()  # an explicit place wins
    with pytest.raises(ValueError, match="does not exist: 2 GPU"):
        eager.set_device("gpu:2")
    assert eager.get_device() == "gpu:1"
    assert eager.to_tensor([1.0], place="cpu").place == CPUPlace()
    eager.set_device("cpu")
    assert eager.zeros([1]).place == CPUPlace()


def test_the_default_place_reaches_to_tensor_and_creation_ops(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)  # as if CuPy were not installed (the suite has a fake)
    monkeypatch.setattr(framework, "gpu_count", lambda: 1)
    eager.set_device("gpu")
    with pytest.raises(ImportError, match="CuPy"):  # the GPU was asked for, so CuPy was needed
        eager.to_tensor([1.0])
    with pytest.raises(ImportError, match="CuPy"):
        eager.zeros([2])


# -- print options ---------------------------------------------------------------------

def _values(tensor) -> str:
    return repr(tensor).split("\n", 1)[1].strip()


def test_repr_header_and_default_format():
    x = eager.to_tensor([[1.0, -2.5], [3.0, 0.125]], stop_gradient=False)
    text = repr(x)
    assert text.startswith("Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n")
    assert _values(x) == ("[[ 1.        , -2.50000000],\n"
                          "        [ 3.        ,  0.12500000]])")
    assert str(x) == text
    param = eager.nn.Linear(1, 1).bias
    assert str(param) == repr(param) and str(param).startswith("Parameter containing:\nTensor(shape=[1]")
    assert _values(eager.to_tensor([1, 2, 3])) == "[1, 2, 3])"
    # Paddle 2.6 pads to the widest item's own width; a narrower non-negative one gets the sign's space
    assert _values(eager.to_tensor([1, -20, 300])) == "[ 1 , -20, 300])"
    assert _values(eager.to_tensor([True, False])) == "[True , False])"


def test_set_printoptions_precision_and_sci_mode():
    x = eager.to_tensor([0.5, 0.123456])
    eager.set_printoptions(precision=3)
    assert _values(x) == "[0.500, 0.123])"
    eager.set_printoptions(sci_mode=True)  # precision stays 3
    assert _values(x) == "[5.000e-01, 1.235e-01])"
    eager.set_printoptions(precision=1, sci_mode=False)
    assert _values(eager.to_tensor([2.0, 0.25])) == "[2. , 0.2])"  # a whole number prints as '2.'


def test_set_printoptions_threshold_and_edgeitems():
    x = eager.arange(10)
    assert _values(x) == "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"
    eager.set_printoptions(threshold=5, edgeitems=2)
    assert _values(x) == "[0, 1, ..., 8, 9])"
    f = eager.arange(0.0, 10.0)
    assert _values(f) == "[0., 1., ..., 8., 9.])"  # widths from the shown items only


def test_set_printoptions_linewidth():
    x = eager.arange(12)
    eager.set_printoptions(linewidth=20)
    lines = repr(x).split("\n")[1:]
    assert len(lines) > 1 and all(len(line) <= 20 for line in lines)
    joined = " ".join(line.strip() for line in lines)
    assert [int(v) for v in joined.strip("[]) ").replace(",", " ").split()] == list(range(12))


@pytest.mark.parametrize("kwargs", [{"precision": -1}, {"precision": 2.5}, {"threshold": "10"},
                                    {"edgeitems": 0}, {"linewidth": True}, {"sci_mode": "yes"}])
def test_set_printoptions_bad_input(kwargs):
    before = framework.print_options()
    with pytest.raises(TypeError, match=f"set_printoptions: argument '{next(iter(kwargs))}'"):
        eager.set_printoptions(**kwargs)
    assert framework.print_options() == before


# -- utils.run_check -------------------------------------------------------------------

def test_run_check_prints_what_worked(capsys, monkeypatch):
    monkeypatch.setattr(framework, "gpu_count", lambda: 0)
    eager.utils.run_check()
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["Running verify eager program ...", "eager works well on 1 CPU.",
                     "eager is installed successfully! Let's start deep learning with eager now."]


@pytest.mark.parametrize("default", ["float16", "float64"])
def test_run_check_works_whatever_the_default_dtype(default, capsys, monkeypatch):
    monkeypatch.setattr(framework, "gpu_count", lambda: 0)
    eager.set_default_dtype(default)
    eager.utils.run_check()
    assert "eager is installed successfully!" in capsys.readouterr().out
    assert eager.get_default_dtype() == default


def test_run_check_names_the_failing_stage(monkeypatch):
    monkeypatch.setattr(framework, "gpu_count", lambda: 0)
    monkeypatch.setattr(eager.optimizer.SGD, "step", lambda self: None)  # an update that does nothing
    with pytest.raises(RuntimeError, match=r"run_check: eager does not work on the CPU .*optimizer step"):
        eager.utils.run_check()


def test_run_check_reports_an_exception_with_its_stage(monkeypatch):
    monkeypatch.setattr(framework, "gpu_count", lambda: 0)

    def broken_backward(self, *args, **kwargs):
        raise ArithmeticError("boom")

    monkeypatch.setattr(eager.Tensor, "backward", broken_backward)
    with pytest.raises(RuntimeError, match="the backward stage raised ArithmeticError: boom"):
        eager.utils.run_check()
