"""What ``to_static`` tells about its work: Paddle's ``paddle.jit.set_verbosity``
and ``paddle.jit.set_code_level``.

Paddle's converter logs its decisions and prints the function's source after
each AST transformer. eager transcribes no source: a capture records the
kernels a call runs and compiles them (docs/jit.md), so what there is to show
are the capture's decisions and the code a replay runs, in stages:

* verbosity (``set_verbosity(level)``, else the ``TRANSLATOR_VERBOSITY``
  environment variable, else -1: silent) logs the messages of level <= it:
  level 1, each capture's outcome (a trace kept, with its kernel count; not
  replayable, and why; the state still changing) and each signature that runs
  eagerly for good; level 2 adds why a call captures again (the trace's guard
  failed) or runs eagerly once (an input aliases the state);
* the code level (``set_code_level(level)``, else ``TRANSLATOR_CODE_LEVEL``,
  else -1: none) prints, when a capture makes a trace, the code of the stage of
  that number: 1 the recorded kernel list, 2 the compiled kernel program, 3 the
  replay step (the function a replay runs, which calls the program); 100, the
  last stage, prints the final code, the program and the replay step together.

Messages go to the ``Dynamic-to-Static`` logger (Paddle's name), which writes
to ``sys.stderr`` at INFO; ``also_to_stdout=True`` also prints them to stdout.
"""
from __future__ import annotations

import logging
import os
import sys

VERBOSITY_ENV_NAME = "TRANSLATOR_VERBOSITY"
CODE_LEVEL_ENV_NAME = "TRANSLATOR_CODE_LEVEL"
# The code level of the final code (Paddle's LOG_AllTransformer).
LOG_ALL_STAGES = 100
# The stages whose code a capture can show, by code level.
STAGES = {1: "kernel list", 2: "kernel program", 3: "replay step"}
LOGGER_NAME = "Dynamic-to-Static"


class _StderrHandler(logging.StreamHandler):
    """A StreamHandler that writes to whatever ``sys.stderr`` is when a record
    comes (so that a redirected or captured stderr sees it)."""

    def __init__(self):
        super().__init__(sys.stderr)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):  # StreamHandler's __init__ sets it; the property decides
        pass


def _make_logger() -> logging.Logger:
    logger = logging.getLogger(LOGGER_NAME)
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return logger


LOGGER = _make_logger()


class _Settings:
    """The levels set by the functions below (None: read the environment) and
    whether messages and code also go to stdout."""

    __slots__ = ("verbosity", "code_level", "log_to_stdout", "code_to_stdout")

    def __init__(self):
        self.verbosity = None
        self.code_level = None
        self.log_to_stdout = False
        self.code_to_stdout = False


SETTINGS = _Settings()


def _check_level(who: str, level):
    if level is not None and (isinstance(level, bool) or not isinstance(level, int)):
        raise TypeError(f"{who}: argument 'level' expected an int (or None: the {_ENV[who]} environment "
                        f"variable decides), got {type(level).__name__} {level!r}")


def _check_stdout(who: str, also_to_stdout):
    if not isinstance(also_to_stdout, bool):
        raise TypeError(f"{who}: argument 'also_to_stdout' expected a bool, got {type(also_to_stdout).__name__} "
                        f"{also_to_stdout!r}")


_ENV = {"set_verbosity": VERBOSITY_ENV_NAME, "set_code_level": CODE_LEVEL_ENV_NAME}


def _from_env(name: str) -> int:
    text = os.environ.get(name)
    if text is None or not text.strip():
        return -1
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"eager.jit: environment variable {name} expected an int, got {text!r}") from None


def set_verbosity(level=0, also_to_stdout=False) -> None:
    """Sets how much ``to_static`` logs (Paddle's ``paddle.jit.set_verbosity``):
    messages of level <= ``level`` go to the ``Dynamic-to-Static`` logger (and to
    stdout too with ``also_to_stdout=True``). Level 1 tells each capture's
    outcome and each signature that runs eagerly for good; level 2 also why a
    call captures again or runs eagerly once; 0 (the default) and below log
    nothing. ``level=None`` hands the choice back to the ``TRANSLATOR_VERBOSITY``
    environment variable, which a set level overrides.

    >>> eager.jit.set_verbosity(1)
    >>> eager.jit.get_verbosity()
    1
    >>> eager.jit.set_verbosity(None)
    """
    _check_level("set_verbosity", level)
    _check_stdout("set_verbosity", also_to_stdout)
    SETTINGS.verbosity = level
    SETTINGS.log_to_stdout = also_to_stdout


def get_verbosity() -> int:
    """The verbosity in force: the one set by :func:`set_verbosity`, else the
    ``TRANSLATOR_VERBOSITY`` environment variable, else -1."""
    level = SETTINGS.verbosity
    return _from_env(VERBOSITY_ENV_NAME) if level is None else level


def set_code_level(level=LOG_ALL_STAGES, also_to_stdout=False) -> None:
    """Makes ``to_static`` print the code of one stage of each trace it makes
    (Paddle's ``paddle.jit.set_code_level``, whose stages are AST transformers):
    1 the recorded kernel list, 2 the compiled kernel program, 3 the replay step;
    100 (the default, the last stage) the final code, program and replay step
    together. The code goes to the ``Dynamic-to-Static`` logger, and to stdout
    too with ``also_to_stdout=True``. A level that names no stage (-1, say)
    prints nothing; ``level=None`` hands the choice back to the
    ``TRANSLATOR_CODE_LEVEL`` environment variable.

    >>> eager.jit.set_code_level(2)
    >>> eager.jit.get_code_level()
    2
    >>> eager.jit.set_code_level(None)
    """
    _check_level("set_code_level", level)
    _check_stdout("set_code_level", also_to_stdout)
    SETTINGS.code_level = level
    SETTINGS.code_to_stdout = also_to_stdout


def get_code_level() -> int:
    """The code level in force: the one set by :func:`set_code_level`, else the
    ``TRANSLATOR_CODE_LEVEL`` environment variable, else -1."""
    level = SETTINGS.code_level
    return _from_env(CODE_LEVEL_ENV_NAME) if level is None else level


def _emit(message: str, to_stdout: bool) -> None:
    LOGGER.info(message)
    if to_stdout:
        print(f"{LOGGER_NAME} INFO: {message}")


def log(level: int, message: str) -> None:
    """Logs ``message`` when the verbosity in force is at least ``level`` (>= 1)."""
    if get_verbosity() >= level:
        _emit(f"(Level {level}) {message}", SETTINGS.log_to_stdout)


def wants_code() -> bool:
    """Whether a new trace's code is to be printed (the code level names a stage)."""
    level = get_code_level()
    return level in STAGES or level == LOG_ALL_STAGES


def _plan(plan) -> str:
    kind = plan[0]
    if kind == "a":
        return f"s{plan[1]}"
    if kind == "n":
        return "_"
    if kind == "c":
        value = plan[1]
        text = repr(value) if isinstance(value, (bool, int, float, complex, str, type(None))) \
            else f"<{type(value).__name__}>"
        return text if len(text) <= 40 else text[:37] + "..."
    inner = ", ".join(_plan(p) for p in plan[2])
    return f"[{inner}]" if plan[1] is list else f"({inner}{',' if len(plan[2]) == 1 else ''})"


def _out(out) -> str:
    if out[0] == "a":
        return f"s{out[1]}"
    return _plan(out) if out[0] == "n" else "(" + ", ".join(_out(o) for o in out[2]) + ")"


def _types(out) -> list:
    if out[0] == "a":
        return [f"s{out[1]}: {out[3]}{list(out[2])}"]
    if out[0] == "n":
        return []
    return [t for o in out[2] for t in _types(o)]


def kernel_list(calls, n_inputs: int) -> str:
    """The recorded kernel calls, one line each: ``index: outs = kernel(args)``
    and each result's dtype and shape; s0..s{n_inputs-1} are the inputs' arrays,
    other slots that no call made are arrays read from the state."""
    lines = [f"inputs: {', '.join(f's{i}' for i in range(n_inputs)) or '(none)'}"]
    for index, call in enumerate(calls):
        args = [_plan(p) for p in call.args] + [f"{k}={_plan(p)}" for k, p in call.kwargs.items()]
        lines.append(f"{index:4d}: {_out(call.outs)} = {call.name}({', '.join(args)})"
                     f"  # {', '.join(_types(call.outs)) or 'no result'}")
    return "\n".join(lines) + "\n"


def log_code(function_name: str, calls, n_inputs: int, programs, replay_source: str) -> None:
    """Prints the code of the stage the code level names, for a new trace of
    ``function_name`` (see the module doc): ``calls`` the recorded kernel calls,
    ``programs`` (title, source) pairs of the compiled kernel programs (the
    forward, then the backwards of a forward-only trace), ``replay_source`` the
    replay step."""
    level = get_code_level()
    program_code = "\n".join(f"# {title}\n{source}" for title, source in programs)
    if level == LOG_ALL_STAGES:
        header = f"After the last stage '{STAGES[3]}', the code of {function_name}'s trace:\n"
        code = program_code + "\n# replay step\n" + replay_source
    elif level in STAGES:
        header = f"After stage {level} '{STAGES[level]}', the code of {function_name}'s trace:\n"
        code = (kernel_list(calls, n_inputs), program_code, replay_source)[level - 1]
    else:
        return
    _emit(header + code.rstrip("\n"), SETTINGS.code_to_stdout)


__all__ = ["CODE_LEVEL_ENV_NAME", "LOGGER", "LOG_ALL_STAGES", "STAGES", "VERBOSITY_ENV_NAME", "get_code_level",
           "get_verbosity", "kernel_list", "log", "log_code", "set_code_level", "set_verbosity", "wants_code"]
