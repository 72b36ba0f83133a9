"""eager.amp.debugging: the tensor checker, check_numerics and operator statistics."""
import threading

import numpy as np
import pytest

import eager as paddle
from eager.amp import debugging as D
from eager.amp.debugging import DebugMode
from eager.autograd.op_modes import MODES


@pytest.fixture(autouse=True)
def _tools_off():
    yield
    D.disable_tensor_checker()
    MODES.set_stats(None)
    assert MODES.active == 0  # every tool off: the ops' fast path again


def _stats_rows(capsys):
    """The printed table's rows as {op: [fp16, bf16, fp32, other]}."""
    rows = {}
    for line in capsys.readouterr().out.splitlines():
        if line.startswith("  "):
            name, *cells = (cell.strip() for cell in line.split("|"))
            rows[name] = [int(c) for c in cells]
    return rows


# -- operator statistics -------------------------------------------------------
def test_stats_count_ops_by_dtype_under_auto_cast(capsys):
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((2, 4)).astype("float32"))
    w = paddle.to_tensor(rng.standard_normal((4, 3)).astype("float32"))
    idx = paddle.to_tensor(np.array([1, 0], dtype="int64"))
    with D.collect_operator_stats():
        with paddle.amp.auto_cast():
            h = paddle.matmul(x, w)      # white: x and w cast (2 casts from float32), matmul in float16
            a = paddle.nn.functional.relu(h)  # float16 input: float16
            s = paddle.nn.functional.softmax(a)  # black: one cast from float16, softmax in float32
        t = s + s                        # outside auto_cast: float32
        j = idx + idx                    # int64: other
    assert MODES.active == 0
    # Hand count: what ran in which dtype.
    assert _stats_rows(capsys) == {
        "cast": [1, 0, 2, 0],
        "matmul": [1, 0, 0, 0],
        "relu": [1, 0, 0, 0],
        "softmax": [0, 0, 1, 0],
        "add": [0, 0, 1, 1],
    }
    assert (h.dtype, s.dtype, t.dtype, j.dtype) == (paddle.float16, paddle.float32, paddle.float32, paddle.int64)


def test_stats_table_layout_and_enable_disable(capsys):
    D.disable_operator_stats_collection()  # off: prints nothing
    assert capsys.readouterr().out == ""
    D.enable_operator_stats_collection()
    paddle.ones([2]) * 3.0
    D.enable_operator_stats_collection()  # starts over
    paddle.full([2], 1.0, dtype="float16")
    D.disable_operator_stats_collection()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("<") and " op list " in lines[0] and len(lines[0]) == 122
    assert "FP16 Calls" in lines[1] and "BF16 Calls" in lines[1] and "Other Calls" in lines[1]
    assert lines[2].split("|")[0].strip() == "full" and [c.strip() for c in lines[2].split("|")[1:]] == \
        ["1", "0", "0", "0"]
    assert " op count: 1 " in lines[3]


def test_stats_stop_on_an_exception_in_the_block(capsys):
    with pytest.raises(ZeroDivisionError):
        with D.collect_operator_stats():
            paddle.ones([2]).exp()
            1 / 0
    assert MODES.active == 0
    assert _stats_rows(capsys) == {"exp": [0, 0, 1, 0], "full": [0, 0, 1, 0]}  # ones runs full


# -- the tensor checker -------------------------------------------------------
def _net(x):
    y = x * 2.0            # finite
    z = paddle.log(y)      # log(0) = -inf, log(-2) = nan: the first op to make one
    return paddle.exp(z) + 1.0


def test_abort_mode_stops_at_the_first_op_with_nan_inf():
    x = paddle.to_tensor([1.0, 0.0, -1.0])
    D.enable_tensor_checker(D.TensorCheckerConfig(True))
    with pytest.raises(RuntimeError, match=r"^log: there are NaN or Inf values \(num_nan=1, num_inf=1, "
                                           r"num_zero=0\).*op=log.*dtype=fp32") as info:
        _net(x)
    assert "test_amp_debugging.py" in str(info.value)  # the stack that called the op
    D.enable_tensor_checker(D.TensorCheckerConfig(True, stack_height_limit=0))
    with pytest.raises(RuntimeError) as info:
        _net(x)
    assert "called from" not in str(info.value)


def test_nan_inf_mode_reports_and_goes_on(capsys):
    x = paddle.to_tensor([1.0, 0.0, -1.0])
    D.enable_tensor_checker(D.TensorCheckerConfig(True, DebugMode.CHECK_NAN_INF))
    out = _net(x)
    D.disable_tensor_checker()
    lines = capsys.readouterr().out.splitlines()
    ops = [line.split("op=")[1].split(",")[0] for line in lines]
    assert ops == ["log", "exp", "scale"]  # x * 2.0 is finite; + 1.0 is scale's number case
    assert all(line.startswith("[PRECISION] [ERROR]") for line in lines)
    assert "num_nan=1, num_inf=1, num_zero=0, max=6.931472e-01, min=-inf, mean=nan" in lines[0]
    np.testing.assert_array_equal(np.isnan(out.numpy()), [False, False, True])


def test_overflow_mode_reports_float32_values_float16_cannot_hold(capsys):
    D.enable_tensor_checker(D.TensorCheckerConfig(True, DebugMode.CHECK_ALL_FOR_OVERFLOW))
    x = paddle.to_tensor([1.0, 70000.0, 1e-9, 0.0])   # one overflows float16, one becomes 0
    y = x * 1.0
    paddle.log(paddle.to_tensor([-1.0]))              # NaN: an error line
    paddle.to_tensor([1.0, 2.0]) * 1.0                # nothing to say
    paddle.to_tensor([70000.0], dtype="float64") * 1.0  # float64: not for float16
    D.disable_tensor_checker()
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("[PRECISION] [WARNING]") and "op=scale" in lines[0]
    assert "num_fp16_overflow=1, num_fp16_underflow=1" in lines[0]
    assert lines[1].startswith("[PRECISION] [ERROR]") and "op=log" in lines[1] and "num_nan=1" in lines[1]
    assert y.shape == [4]


def test_check_all_mode_reports_every_op_and_op_lists(capsys):
    x = paddle.to_tensor([1.0, 2.0])
    D.enable_tensor_checker(D.TensorCheckerConfig(True, DebugMode.CHECK_ALL))
    paddle.exp(paddle.log(x))
    D.enable_tensor_checker(D.TensorCheckerConfig(True, DebugMode.CHECK_ALL, checked_op_list=["log", "exp"],
                                                  skipped_op_list=("exp",)))
    paddle.exp(paddle.sqrt(paddle.log(x)))
    D.enable_tensor_checker(D.TensorCheckerConfig(True, DebugMode.CHECK_ALL,
                                                  skipped_op_list=["elementwise_add"]))  # Paddle's name
    paddle.exp(x + x)
    D.disable_tensor_checker()
    paddle.log(x)
    lines = capsys.readouterr().out.splitlines()
    ops = [line.split("op=")[1].split(",")[0] for line in lines]
    assert ops == ["log", "exp", "log", "exp"]
    assert all(line.startswith("[PRECISION] [INFO]") for line in lines)
    assert "numel=2, num_nan=0, num_inf=0, num_zero=1, max=6.931472e-01, min=0.000000e+00" in lines[0]


def test_skipped_op_is_not_checked_in_abort_mode():
    D.enable_tensor_checker(D.TensorCheckerConfig(True, skipped_op_list=["log"]))
    out = paddle.log(paddle.to_tensor([0.0]))
    assert np.isneginf(out.numpy()).all()
    with pytest.raises(RuntimeError, match="^exp"):
        paddle.exp(paddle.to_tensor([1000.0]))


def test_debug_step_and_disabled_config():
    config = D.TensorCheckerConfig(True, debug_step=[1, 3])
    bad = paddle.to_tensor([0.0])
    checked = []
    for _ in range(5):
        D.enable_tensor_checker(config)
        try:
            paddle.log(bad)
            checked.append(False)
        except RuntimeError:
            checked.append(True)
        D.disable_tensor_checker()
    assert checked == [False, True, True, False, False]
    D.enable_tensor_checker(D.TensorCheckerConfig(False))
    assert MODES.active == 0
    paddle.log(bad)


def test_output_dir_gets_the_report(tmp_path, capsys):
    D.enable_tensor_checker(D.TensorCheckerConfig(True, DebugMode.CHECK_NAN_INF, output_dir=str(tmp_path / "logs")))
    paddle.log(paddle.to_tensor([0.0]))
    paddle.log(paddle.to_tensor([-1.0]))
    D.disable_tensor_checker()
    assert capsys.readouterr().out == ""
    lines = (tmp_path / "logs" / "worker_cpu").read_text().splitlines()
    assert len(lines) == 2 and "num_inf=1" in lines[0] and "num_nan=1" in lines[1]


def test_backward_gradients_are_checked(capsys):
    x = paddle.to_tensor([1.0, 0.0], stop_gradient=False)
    y = paddle.to_tensor([0.2, 0.0])
    res = paddle.pow(x, y)   # d/dx = y * x ** (y - 1): 0 * 0 ** -1 = NaN
    D.enable_tensor_checker(D.TensorCheckerConfig(True, DebugMode.CHECK_NAN_INF))
    res.sum().backward(retain_graph=True)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and "op=elementwise_pow_grad" in lines[0] and "num_nan=1" in lines[0]
    grad = x.grad.numpy().copy()
    D.enable_tensor_checker(D.TensorCheckerConfig(True, skipped_op_list=["elementwise_pow_grad"]))
    res.sum().backward(retain_graph=True)   # a backward op skipped by name
    np.testing.assert_array_equal(x.grad.numpy(), 2 * grad)
    grad = x.grad.numpy().copy()
    D.enable_tensor_checker(D.TensorCheckerConfig(True))
    with pytest.raises(RuntimeError, match="^elementwise_pow_grad: there are NaN or Inf values"):
        res.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), grad)  # the failed backward left .grad as it was
    z = paddle.pow(x, 0.5)   # with create_graph the backward runs ops: d/dx at 0 = 0.5 * 0 ** -0.5 = Inf
    with pytest.raises(RuntimeError, match=r"^pow: there are NaN or Inf values \(num_nan=0, num_inf=1"):
        paddle.grad([z.sum()], [x], create_graph=True)


def test_checker_is_per_thread():
    D.enable_tensor_checker(D.TensorCheckerConfig(True))
    seen = []

    def other():
        seen.append(float(paddle.log(paddle.to_tensor([0.0])).numpy()[0]))  # not checked here
        D.enable_tensor_checker(D.TensorCheckerConfig(True))
        try:
            paddle.log(paddle.to_tensor([0.0]))
        except RuntimeError as error:
            seen.append(str(error).split(":")[0])
        D.disable_tensor_checker()

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen == [float("-inf"), "log"]
    with pytest.raises(RuntimeError):  # still on in this thread
        paddle.log(paddle.to_tensor([0.0]))
    D.disable_tensor_checker()
    assert MODES.active == 0


def test_stats_are_per_thread(capsys):
    D.enable_operator_stats_collection()
    thread = threading.Thread(target=lambda: paddle.exp(paddle.to_tensor([1.0])))
    thread.start()
    thread.join()
    paddle.to_tensor([1.0]).sqrt()
    D.disable_operator_stats_collection()
    assert _stats_rows(capsys) == {"sqrt": [0, 0, 1, 0]}


# -- check_numerics -------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_check_numerics_against_numpy(dtype, capsys):
    data = np.array([[1.5, 0.0, -3.0], [np.inf, np.nan, 0.0]], dtype=dtype)
    stats, values = D.check_numerics(paddle.to_tensor(data), "my_op", "v", DebugMode.CHECK_NAN_INF)
    assert stats.dtype == paddle.int64 and values.dtype == paddle.float32
    assert stats.shape == [3] and values.shape == [3]
    np.testing.assert_array_equal(stats.numpy(), [np.isnan(data).sum(), np.isinf(data).sum(), (data == 0).sum()])
    finite_or_inf = data[~np.isnan(data)]
    np.testing.assert_array_equal(values.numpy()[:2], [finite_or_inf.max(), finite_or_inf.min()])
    assert np.isnan(values.numpy()[2])  # the mean keeps NaN
    line = capsys.readouterr().out
    assert line.startswith("[PRECISION] [ERROR] in [device=cpu, op=my_op, tensor=v, dtype=")
    clean = np.array([1.0, -2.0, 4.0], dtype=dtype)
    stats, values = D.check_numerics(paddle.to_tensor(clean), "my_op", "v")  # abort mode: nothing wrong
    np.testing.assert_array_equal(stats.numpy(), [0, 0, 0])
    np.testing.assert_allclose(values.numpy(), [4.0, -2.0, clean.mean()], rtol=1e-6)
    assert capsys.readouterr().out == ""


def test_check_numerics_abort_and_check_all(capsys):
    with pytest.raises(RuntimeError, match=r"^my_op: there are NaN or Inf values \(num_nan=0, num_inf=1"):
        D.check_numerics(paddle.to_tensor([1.0, np.inf]), "my_op", "v")
    D.check_numerics(paddle.to_tensor([1, 0, 2]), "ints", "i", DebugMode.CHECK_ALL)
    assert "[INFO]" in capsys.readouterr().out


# -- errors ------------------------------------------------------------------------
def test_errors_name_the_argument():
    with pytest.raises(TypeError, match="TensorCheckerConfig: argument 'debug_mode' expected"):
        D.TensorCheckerConfig(True, debug_mode=1)
    with pytest.raises(ValueError, match="TensorCheckerConfig: argument 'checked_op_list' expected None or a list"):
        D.TensorCheckerConfig(True, checked_op_list="log")
    with pytest.raises(ValueError, match=r"argument 'skipped_op_list' names \['no_such_op'\]"):
        D.TensorCheckerConfig(True, skipped_op_list=["no_such_op"])
    with pytest.raises(ValueError, match="argument 'debug_step' expected"):
        D.TensorCheckerConfig(True, debug_step=[3, 1])
    with pytest.raises(ValueError, match="argument 'debug_step' expected"):
        D.TensorCheckerConfig(True, debug_step=5)
    with pytest.raises(ValueError, match="argument 'stack_height_limit' expected an int"):
        D.TensorCheckerConfig(True, stack_height_limit="1")
    with pytest.raises(TypeError, match="argument 'output_dir'"):
        D.TensorCheckerConfig(True, output_dir=3)
    with pytest.raises(TypeError, match="enable_tensor_checker: argument 'checker_config' expected"):
        D.enable_tensor_checker(DebugMode.CHECK_ALL)
    with pytest.raises(TypeError, match="check_numerics: argument 'tensor' expected a Tensor"):
        D.check_numerics(np.ones(2), "op", "v")
    with pytest.raises(TypeError, match="check_numerics: argument 'var_name' expected a str"):
        D.check_numerics(paddle.ones([2]), "op", 1)
    with pytest.raises(TypeError, match="check_numerics: argument 'debug_mode'"):
        D.check_numerics(paddle.ones([2]), "op", "v", 3)
    assert MODES.active == 0


def test_to_static_function_runs_its_ops_eagerly_under_the_tools(capsys):
    @paddle.jit.to_static
    def step(x):
        return paddle.log(x) * 2.0

    x = paddle.to_tensor([1.0, 0.0])
    for _ in range(3):
        step(x)  # captured and replayed while no tool is on
    D.enable_tensor_checker(D.TensorCheckerConfig(True))
    with pytest.raises(RuntimeError, match="^log: there are NaN or Inf"):
        step(x)
    D.disable_tensor_checker()
    with D.collect_operator_stats():
        step(x)
    assert _stats_rows(capsys) == {"log": [0, 0, 1, 0], "scale": [0, 0, 1, 0]}


# -- check_layer_numerics -------------------------------------------------------------

class _Checked(paddle.nn.Layer):
    """y = x @ w + b, or (bad=True) 1 / x * w + b, with the forward checked."""

    def __init__(self, bad=False):
        super().__init__()
        self.w = self.create_parameter([2, 3])
        self.b = self.create_parameter([2, 3])
        self.bad = bad

    @D.check_layer_numerics
    def forward(self, x):
        return (1 / x * self.w if self.bad else x @ self.w) + self.b


def test_check_layer_numerics_passes_finite_values_through_unchanged():
    x = paddle.rand([4, 2, 2])
    x[0] = 0.0
    layer = _Checked()
    out = layer(x)
    np.testing.assert_allclose(out.numpy(), x.numpy() @ layer.w.numpy() + layer.b.numpy(), rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(layer.b.grad.numpy(), np.full([2, 3], 4.0))
    np.testing.assert_allclose(layer.w.grad.numpy(), x.numpy().sum(axis=(0, 1))[:, None].repeat(3, 1), rtol=1e-6)
    assert x.stop_gradient and x.grad is None  # the input is left as it was
    assert MODES.checker() is None


def test_check_layer_numerics_stops_at_the_forward_op_that_makes_inf():
    x = paddle.to_tensor([[1.0, 2.0], [0.0, 4.0]])
    with pytest.raises(RuntimeError, match=r"num_inf=1, num_zero=0\) in \[device=cpu, op=divide, "
                                           r"tensor=out\[0\], dtype=fp32\]"):
        _Checked(bad=True)(x)
    assert MODES.checker() is None  # the thread's checker is back


def test_check_layer_numerics_keeps_the_thread_checker():
    config = D.TensorCheckerConfig(enable=True, debug_mode=DebugMode.CHECK_NAN_INF)
    D.enable_tensor_checker(config)
    _Checked()(paddle.rand([1, 2, 2]))
    assert MODES.checker() is config


class _Sqrt(paddle.nn.Layer):
    """sqrt(x) + sqrt(w): finite forward at 0, infinite gradient there."""

    def __init__(self, w):
        super().__init__()
        self.w = self.create_parameter([3], default_initializer=paddle.nn.initializer.Assign(w))

    @D.check_layer_numerics
    def forward(self, x):
        return paddle.sqrt(x) + paddle.sqrt(self.w)


def test_check_layer_numerics_checks_the_gradient_of_the_input():
    x = paddle.to_tensor([0.0, 1.0, 4.0], stop_gradient=False)
    out = _Sqrt(np.ones(3, "float32"))(x)
    np.testing.assert_allclose(out.numpy(), [1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match=r"num_inf=1.*op=_Sqrt_backward, tensor=input@GRAD"):
        out.sum().backward()
    assert x.grad is None  # the backward stopped before writing gradients


def test_check_layer_numerics_checks_the_gradients_of_the_parameters():
    layer = _Sqrt(np.array([1.0, 0.0, 0.0], "float32"))
    out = layer(paddle.ones([3]))
    with pytest.raises(RuntimeError, match=rf"num_inf=2.*tensor={layer.w.name}@GRAD"):
        out.sum().backward()


def test_check_layer_numerics_wants_a_tensor_first():
    with pytest.raises(TypeError, match=r"check_layer_numerics: _Checked.forward expected a Tensor as its first "
                                        r"argument, got list"):
        _Checked()([1.0, 2.0])
    with pytest.raises(TypeError, match="check_layer_numerics: expected a Layer's forward function"):
        D.check_layer_numerics(3)
