"""eager.jit.set_verbosity / set_code_level (Paddle's dy2static logging): which
messages each verbosity logs, the code each stage prints (checked against the
trace to_static keeps), where they go (the logger on stderr, stdout on request),
the environment variables and their priority, and bad arguments."""
import doctest
import inspect

import numpy as np
import pytest

import eager
from eager.jit import logging_utils
from eager.jit.static_function import Trace

# (read by the function under test: a change fails its trace's guard)
FACTOR = 2.0


@pytest.fixture(autouse=True)
def _reset_logging(monkeypatch):
    monkeypatch.delenv(logging_utils.VERBOSITY_ENV_NAME, raising=False)
    monkeypatch.delenv(logging_utils.CODE_LEVEL_ENV_NAME, raising=False)
    eager.jit.set_verbosity(None)
    eager.jit.set_code_level(None)
    yield
    eager.jit.set_verbosity(None)
    eager.jit.set_code_level(None)


def _trace_of(static_function) -> Trace:
    traces = [entry for entry in static_function._cache.values() if type(entry) is Trace]
    assert len(traces) == 1
    return traces[0]


def _scaled(x):
    return eager.exp(x) * FACTOR


def test_default_logs_and_prints_nothing(capsys):
    f = eager.jit.to_static(lambda x: eager.exp(x) + 1.0)
    for _ in range(3):
        f(eager.ones([2]))
    assert f.replays == 2
    assert capsys.readouterr() == ("", "")
    assert eager.jit.get_verbosity() == -1 and eager.jit.get_code_level() == -1


def test_verbosity_1_logs_each_capture_outcome_and_level_2_the_guard(capsys, monkeypatch):
    eager.jit.set_verbosity(1, also_to_stdout=True)
    f = eager.jit.to_static(_scaled)
    f(eager.ones([3]))
    out, err = capsys.readouterr()
    assert out.count("\n") == 1
    assert out.startswith("Dynamic-to-Static INFO: (Level 1) _scaled: captured a trace of 2 kernel calls")
    assert "Dynamic-to-Static INFO: (Level 1) _scaled: captured a trace of 2 kernel calls" in err  # the logger
    f(eager.ones([3]))  # a replay logs nothing
    assert capsys.readouterr() == ("", "")
    monkeypatch.setitem(globals(), "FACTOR", 3.0)
    np.testing.assert_allclose(f(eager.ones([3])).numpy(), np.full(3, 3.0 * np.e), rtol=1e-6)
    out = capsys.readouterr().out
    assert "guard failed" not in out and "captured a trace" in out  # level 2 is above 1
    eager.jit.set_verbosity(2, also_to_stdout=True)
    monkeypatch.setitem(globals(), "FACTOR", 4.0)
    f(eager.ones([3]))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("Dynamic-to-Static INFO: (Level 2) _scaled: the state its trace depends on changed "
                        "(the guard failed); capturing again")
    assert lines[1].startswith("Dynamic-to-Static INFO: (Level 1) _scaled: captured a trace")


def test_verbosity_logs_a_signature_that_runs_eagerly_for_good(capsys):
    eager.jit.set_verbosity(1)
    f = eager.jit.to_static(lambda x: eager.exp(x).numpy())
    with pytest.warns(RuntimeWarning, match="runs eagerly"):
        f(eager.ones([2]))
    out, err = capsys.readouterr()
    assert out == ""  # also_to_stdout False
    assert f"(Level 1) {f.__qualname__} runs eagerly for this input signature from now on:" in err


def test_environment_variable_decides_until_a_level_is_set(capsys, monkeypatch):
    monkeypatch.setenv("TRANSLATOR_VERBOSITY", "1")
    assert eager.jit.get_verbosity() == 1
    f = eager.jit.to_static(lambda x: x * 2.0)
    f(eager.ones([2]))
    assert f"(Level 1) {f.__qualname__}: captured" in capsys.readouterr().err
    eager.jit.set_verbosity(0)  # a set level wins over the environment
    eager.jit.to_static(lambda x: x * 2.0)(eager.ones([2]))
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("TRANSLATOR_CODE_LEVEL", "3")
    assert eager.jit.get_code_level() == 3
    monkeypatch.setenv("TRANSLATOR_CODE_LEVEL", "three")
    with pytest.raises(ValueError, match="environment variable TRANSLATOR_CODE_LEVEL expected an int, got 'three'"):
        eager.jit.get_code_level()


def test_code_level_1_prints_the_recorded_kernel_list(capsys):
    eager.jit.set_code_level(1, also_to_stdout=True)
    net = eager.nn.Linear(3, 2)
    f = eager.jit.to_static(lambda x: eager.exp(net(x)))
    with eager.no_grad():
        f(eager.ones([4, 3]))
    out = capsys.readouterr().out
    assert out.startswith(f"Dynamic-to-Static INFO: After stage 1 'kernel list', the code of {f.__qualname__}'s "
                          f"trace:\n")
    lines = out.splitlines()[1:]
    assert lines[0] == "inputs: s0"
    # s1, s2: the Linear's weight and bias, read from the state
    assert lines[1] == "   0: s3 = linear(s0, s1, s2)  # s3: float32[4, 2]"
    assert lines[2] == "   1: s4 = exp(s3)  # s4: float32[4, 2]"
    assert len(lines) == 3


def test_code_levels_2_3_and_100_print_the_code_the_trace_runs(capsys):
    f = eager.jit.to_static(_scaled)
    for level, want in [(2, lambda t: "# kernel program\n" + t.run.source),
                        (3, lambda t: t.replay.source),
                        (100, lambda t: "# kernel program\n" + t.run.source + "\n# replay step\n" + t.replay.source)]:
        f._cache.clear()
        eager.jit.set_code_level(level, also_to_stdout=True)
        with eager.no_grad():
            f(eager.ones([2]))
        out = capsys.readouterr().out
        header, code = out.split("\n", 1)
        stage = {2: "stage 2 'kernel program'", 3: "stage 3 'replay step'", 100: "the last stage 'replay step'"}[level]
        assert header == f"Dynamic-to-Static INFO: After {stage}, the code of _scaled's trace:"
        assert code == want(_trace_of(f))
    eager.jit.set_code_level(4, also_to_stdout=True)  # no stage of that number: nothing
    f._cache.clear()
    f(eager.ones([2]))
    assert capsys.readouterr().out == ""


def test_code_level_of_a_forward_only_trace_shows_its_backward_programs(capsys):
    eager.jit.set_code_level(2, also_to_stdout=True)
    net = eager.nn.Linear(2, 2)
    f = eager.jit.to_static(lambda t: eager.exp(net(t)))
    f(eager.ones([1, 2]))  # (the first capture, which makes the parameters' grad nodes, is not kept)
    f(eager.ones([1, 2]))
    trace = _trace_of(f)
    assert trace.grad is not None and len(trace.grad.programs) == 1
    out = capsys.readouterr().out
    assert "# forward program\n" + trace.run.source in out
    for mask, program in trace.grad.programs.items():
        assert f"# backward program for the incoming gradients {list(mask)}\n" + program.source in out


@pytest.mark.parametrize("function", ["set_verbosity", "set_code_level"])
def test_bad_arguments_are_refused_and_change_nothing(function):
    setter = getattr(eager.jit, function)
    getter = getattr(eager.jit, function.replace("set_", "get_"))
    setter(2)
    with pytest.raises(TypeError, match=rf"{function}: argument 'level' expected an int .*got str '3'"):
        setter("3")
    with pytest.raises(TypeError, match=rf"{function}: argument 'level' expected an int .*got bool True"):
        setter(True)
    with pytest.raises(TypeError, match=rf"{function}: argument 'also_to_stdout' expected a bool, got int 1"):
        setter(3, also_to_stdout=1)
    assert getter() == 2


def test_paddle_names_and_defaults():
    assert str(inspect.signature(eager.jit.set_verbosity)) == "(level=0, also_to_stdout=False) -> 'None'"
    assert str(inspect.signature(eager.jit.set_code_level)) == "(level=100, also_to_stdout=False) -> 'None'"
    assert {"set_verbosity", "set_code_level"} <= set(eager.jit.__all__)


def test_docstring_examples_run():
    result = doctest.testmod(logging_utils, extraglobs={"eager": eager}, report=False)
    assert result.attempted >= 6 and result.failed == 0, result
