"""``eager.amp.debugging``: Paddle 2.x's numerics debugging tools.

- The tensor checker (:class:`TensorCheckerConfig`, :func:`enable_tensor_checker`,
  :func:`disable_tensor_checker`): every op the calling thread runs hands its
  outputs to the checker, which, per :class:`DebugMode`, stops at the first op
  that makes a NaN or Inf, reports such ops and goes on, also reports float32
  values float16 cannot hold, or reports every op.
- :func:`check_numerics`: the NaN/Inf/zero counts and max/min/mean of one tensor.
- Operator statistics (:func:`enable_operator_stats_collection`,
  :func:`disable_operator_stats_collection`, :func:`collect_operator_stats`):
  how many times each op ran in float16, bfloat16, float32 or another dtype,
  printed as Paddle's table.

Both hook into the one mode check of the generated ops
(eager.autograd.op_modes): while a tool is on in a thread, that thread's ops go
through ``MODES.call``; with every tool off an op pays one attribute read, as
before. The tools are per thread, like anomaly mode and auto_cast.

>>> config = eager.amp.debugging.TensorCheckerConfig(
...     enable=True, debug_mode=eager.amp.debugging.DebugMode.CHECK_NAN_INF_AND_ABORT)
>>> eager.amp.debugging.enable_tensor_checker(config)
>>> y = eager.log(eager.to_tensor([-1.0]))   # RuntimeError naming op 'log'
>>> eager.amp.debugging.disable_tensor_checker()
"""
from __future__ import annotations

import contextlib
import enum
import functools
import os
import traceback

import numpy as np

from phi.api import copy_to
from phi.common import DataType
from phi.common.tensor_kind import TensorKind

from ..arguments import describe, to_bool
from ..autograd.engine import queue_callback
from ..autograd.op_modes import MODES
from ..autograd.py_layer import PyLayer
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor
from .amp_lists import PADDLE_OP_NAMES
from .auto_cast import check_op_list

__all__ = [
    "DebugMode", "TensorCheckerConfig", "check_layer_numerics", "check_numerics", "collect_operator_stats",
    "disable_operator_stats_collection", "disable_tensor_checker", "enable_operator_stats_collection",
    "enable_tensor_checker",
]

_FLOAT16_MAX = float(np.finfo(np.float16).max)       # 65504: larger float32 values overflow float16
_FLOAT16_TINY = float(np.finfo(np.float16).smallest_subnormal)  # smaller nonzero ones become 0
_SHORT_DTYPES = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64"}


class DebugMode(enum.Enum):
    """What the tensor checker (and :func:`check_numerics`) does with the
    tensors it looks at:

    - ``CHECK_NAN_INF_AND_ABORT``: raise RuntimeError at the first tensor with NaN/Inf.
    - ``CHECK_NAN_INF``: report tensors with NaN/Inf and go on.
    - ``CHECK_ALL_FOR_OVERFLOW``: as CHECK_NAN_INF, and also report float32
      tensors holding values outside float16's range (overflow to Inf, or
      nonzero values that become 0).
    - ``CHECK_ALL``: report every tensor.
    """

    CHECK_NAN_INF_AND_ABORT = 0
    CHECK_NAN_INF = 1
    CHECK_ALL_FOR_OVERFLOW = 2
    CHECK_ALL = 3


def _check_mode(who: str, debug_mode) -> DebugMode:
    if not isinstance(debug_mode, DebugMode):
        raise TypeError(f"{who}: argument 'debug_mode' expected a paddle.amp.debugging.DebugMode "
                        f"(e.g. DebugMode.CHECK_NAN_INF), got {describe(debug_mode)}")
    return debug_mode


def _op_list(who: str, arg: str, ops) -> frozenset:
    """Forward op names (eager's or Paddle's, as auto_cast's lists) and backward
    op names (``matmul_grad``: the tensor checker sees grad nodes by them)."""
    if ops is None:
        return frozenset()
    if not isinstance(ops, (list, tuple)):
        raise ValueError(f"{who}: argument '{arg}' expected None or a list or tuple of op names, "
                         f"got {describe(ops)}")
    backward = frozenset(op for op in ops if isinstance(op, str) and op.endswith("_grad")
                         and callable(getattr(_F, op, None)))
    return check_op_list(who, arg, [op for op in ops if op not in backward]) | backward


class TensorCheckerConfig:
    """What the tensor checker checks and how (pass it to :func:`enable_tensor_checker`).

    Args:
        enable (bool): whether :func:`enable_tensor_checker` turns checking on.
        debug_mode (DebugMode): what to do with the outputs (default
            ``CHECK_NAN_INF_AND_ABORT``).
        output_dir (str, optional): a folder to append the reports to (file
            ``worker_<device>``, e.g. ``worker_cpu``, ``worker_gpu.0``); None prints them.
        checked_op_list (list|tuple, optional): check only these ops (eager's or
            Paddle's op names, e.g. ``['matmul', 'elementwise_add']``; backward
            ops by their names, e.g. ``'matmul_grad'``).
        skipped_op_list (list|tuple, optional): never check these ops.
        debug_step (list|tuple, optional): ``[start, end]``: check only from the
            start-th to the (end-1)-th call of :func:`enable_tensor_checker` with
            this config (counted from 0; one call per training step).
        stack_height_limit (int): above 0, the error of ``CHECK_NAN_INF_AND_ABORT``
            shows the Python stack that called the op; 0 leaves it out.

    >>> config = TensorCheckerConfig(enable=True, debug_mode=DebugMode.CHECK_NAN_INF,
    ...                              checked_op_list=["divide"], debug_step=[0, 5])
    """

    def __init__(self, enable, debug_mode=DebugMode.CHECK_NAN_INF_AND_ABORT, output_dir=None,
                 checked_op_list=None, skipped_op_list=None, debug_step=None, stack_height_limit=1):
        who = "TensorCheckerConfig"
        self.enable = to_bool(enable, who, "enable")
        self.debug_mode = _check_mode(who, debug_mode)
        if output_dir is not None and not isinstance(output_dir, (str, os.PathLike)):
            raise TypeError(f"{who}: argument 'output_dir' expected None or a folder path (str), "
                            f"got {describe(output_dir)}")
        self.output_dir = None if output_dir is None else os.fspath(output_dir)
        self.checked_op_list = checked_op_list
        self.skipped_op_list = skipped_op_list
        self._checked = _op_list(who, "checked_op_list", checked_op_list)
        self._skipped = _op_list(who, "skipped_op_list", skipped_op_list)
        self.start_step = self.end_step = None
        if debug_step is not None:
            if (not isinstance(debug_step, (list, tuple)) or len(debug_step) != 2
                    or not all(isinstance(s, int) and not isinstance(s, bool) for s in debug_step)
                    or debug_step[1] <= debug_step[0]):
                raise ValueError(f"{who}: argument 'debug_step' expected None or a list or tuple "
                                 f"[start, end] of two ints with end > start, got {debug_step!r}")
            self.start_step, self.end_step = max(debug_step[0], 0), debug_step[1]
        self.debug_step = debug_step
        if not isinstance(stack_height_limit, int) or isinstance(stack_height_limit, bool):
            raise ValueError(f"{who}: argument 'stack_height_limit' expected an int, "
                             f"got {describe(stack_height_limit)}")
        self.stack_height_limit = stack_height_limit
        self.current_step_id = 0  # calls of enable_tensor_checker with this config so far

    def update_and_check_step_id(self) -> bool:
        """Counts one step (a call of :func:`enable_tensor_checker`) and says
        whether the checker is on for it."""
        if not self.enable:
            return False
        step = self.current_step_id
        self.current_step_id += 1
        return self.start_step is None or self.start_step <= step < self.end_step

    def _wants(self, op: str) -> bool:
        return (not self._checked or op in self._checked) and op not in self._skipped


def enable_tensor_checker(checker_config) -> None:
    """Turns the tensor checker on in the calling thread with ``checker_config``
    (a :class:`TensorCheckerConfig`), or off when the config is disabled or this
    call's step is outside its ``debug_step``. Call it once per training step,
    with :func:`disable_tensor_checker` at the step's end.

    >>> config = TensorCheckerConfig(enable=True, debug_mode=DebugMode.CHECK_NAN_INF)
    >>> enable_tensor_checker(config)
    >>> res = eager.pow(x, y)            # reports NaN/Inf in pow's output and goes on
    >>> disable_tensor_checker()
    """
    if not isinstance(checker_config, TensorCheckerConfig):
        raise TypeError(f"enable_tensor_checker: argument 'checker_config' expected a "
                        f"paddle.amp.debugging.TensorCheckerConfig, got {describe(checker_config)}")
    MODES.set_checker(checker_config if checker_config.update_and_check_step_id() else None)


def disable_tensor_checker() -> None:
    """Turns the tensor checker off in the calling thread."""
    MODES.set_checker(None)


# -- looking at a tensor ------------------------------------------------------
def _host_values(tensor: Tensor) -> np.ndarray:
    """The stored values of ``tensor`` as a NumPy array (copied from the device)."""
    impl = tensor.impl
    if impl.kind is not TensorKind.DENSE:  # rows or a sparse tensor: the values it stores
        impl = impl.value if impl.kind is TensorKind.SELECTED_ROWS else impl.values
    array = impl.array
    if not isinstance(array, np.ndarray):
        array = copy_to(impl, "cpu").array
    return array


def _stats(values: np.ndarray) -> tuple:
    """(num_nan, num_inf, num_zero), (max, min, mean): max and min leave NaN out,
    the mean does not; NaN where there are no values."""
    values = np.asarray(values, dtype=np.float64)
    nan = np.isnan(values)
    num_nan, num_inf = int(nan.sum()), int(np.isinf(values).sum())
    num_zero = int((values == 0).sum())
    kept = values[~nan]
    largest, smallest = (float(kept.max()), float(kept.min())) if kept.size else (float("nan"),) * 2
    with np.errstate(invalid="ignore"):
        mean = float(values.mean()) if values.size else float("nan")
    return (num_nan, num_inf, num_zero), (largest, smallest, mean)


def _device(tensor: Tensor) -> str:
    place = tensor.impl.place
    return f"gpu:{place.device_id}" if place.is_gpu_place() else "cpu"


def _line(level: str, op: str, name: str, tensor: Tensor, values: np.ndarray, counts, extrema,
          extra: str = "") -> str:
    dtype = tensor.impl.dtype.value
    num_nan, num_inf, num_zero = counts
    largest, smallest, mean = extrema
    return (f"[PRECISION] [{level}] in [device={_device(tensor)}, op={op}, tensor={name}, "
            f"dtype={_SHORT_DTYPES.get(dtype, dtype)}], numel={values.size}, num_nan={num_nan}, "
            f"num_inf={num_inf}, num_zero={num_zero}{extra}, max={largest:e}, min={smallest:e}, mean={mean:e}")


def _emit(line: str, output_dir, tensor: Tensor) -> None:
    if output_dir is None:
        print(line, flush=True)
        return
    os.makedirs(output_dir, exist_ok=True)
    with open(os.path.join(output_dir, "worker_" + _device(tensor).replace(":", ".")), "a") as log:
        log.write(line + "\n")


_INTERNAL = (os.path.join("eager", "generated", ""), os.path.join("eager", "autograd", "op_modes.py"),
             os.path.join("eager", "amp", "debugging.py"))


def _caller_stack() -> str:
    frames = traceback.extract_stack()
    while frames and any(part in frames[-1].filename for part in _INTERNAL):
        frames.pop()
    return "".join(traceback.format_list(frames))


def _look(op: str, name: str, tensor: Tensor, mode: DebugMode, output_dir, stack: bool):
    """Checks one tensor per ``mode``; returns its (counts, extrema)."""
    values = _host_values(tensor)
    counts, extrema = _stats(values)
    bad = counts[0] or counts[1]
    if bad and mode is DebugMode.CHECK_NAN_INF_AND_ABORT:
        dtype = tensor.impl.dtype.value
        message = (f"{op}: there are NaN or Inf values (num_nan={counts[0]}, num_inf={counts[1]}, "
                   f"num_zero={counts[2]}) in [device={_device(tensor)}, op={op}, tensor={name}, "
                   f"dtype={_SHORT_DTYPES.get(dtype, dtype)}] (tensor checker, DebugMode.CHECK_NAN_INF_AND_ABORT)")
        if stack:
            message += ". The op was called from:\n" + _caller_stack()
        raise RuntimeError(message)
    if bad:
        _emit(_line("ERROR", op, name, tensor, values, counts, extrema), output_dir, tensor)
    elif mode is DebugMode.CHECK_ALL_FOR_OVERFLOW and tensor.impl.dtype is DataType.FLOAT32:
        size = np.abs(values)
        over, under = int((size > _FLOAT16_MAX).sum()), int(((size < _FLOAT16_TINY) & (size > 0)).sum())
        if over or under:
            _emit(_line("WARNING", op, name, tensor, values, counts, extrema,
                        f", num_fp16_overflow={over}, num_fp16_underflow={under}"), output_dir, tensor)
    elif mode is DebugMode.CHECK_ALL:
        _emit(_line("INFO", op, name, tensor, values, counts, extrema), output_dir, tensor)
    return counts, extrema


def _check_outputs(config: TensorCheckerConfig, op: str, outputs) -> None:
    """The tensor checker's look at the outputs an op returned (from MODES.call)."""
    if not config._wants(op):
        return
    for index, out in enumerate(outputs):
        if isinstance(out, Tensor) and out.impl.dtype.is_floating_point:
            _look(op, f"out[{index}]", out, config.debug_mode, config.output_dir, config.stack_height_limit > 0)


MODES.register_debug_check(_check_outputs)


def check_numerics(tensor, op_type, var_name, debug_mode=DebugMode.CHECK_NAN_INF_AND_ABORT):
    """Counts the NaN, Inf and zero values of ``tensor`` and finds its max, min
    and mean, reporting it per ``debug_mode`` as the tensor checker would
    (``CHECK_NAN_INF_AND_ABORT`` raises RuntimeError when it holds NaN or Inf).

    Args:
        tensor (Tensor): the tensor to look at.
        op_type (str): the op or API that made it (for the report).
        var_name (str): its name (for the report).
        debug_mode (DebugMode): default ``CHECK_NAN_INF_AND_ABORT``.

    Returns:
        (Tensor, Tensor): ``stats``, int64 [num_nan, num_inf, num_zero], and
        ``values``, float32 [max, min, mean] (max and min leave NaN out).

    >>> x = eager.to_tensor([1.0, 0.0, float("inf")])
    >>> stats, values = check_numerics(x, "pow", "x", DebugMode.CHECK_NAN_INF)
    >>> stats.numpy(), values.numpy()
    (array([0, 1, 1]), array([inf,  0., inf], dtype=float32))
    """
    who = "check_numerics"
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{who}: argument 'tensor' expected a Tensor, got {describe(tensor)}")
    for arg, value in (("op_type", op_type), ("var_name", var_name)):
        if not isinstance(value, str):
            raise TypeError(f"{who}: argument '{arg}' expected a str, got {describe(value)}")
    mode = _check_mode(who, debug_mode)
    counts, extrema = _look(op_type, var_name, tensor, mode, None, False)
    place = tensor.impl.place
    return (to_tensor(np.array(counts, dtype=np.int64), place=place),
            to_tensor(np.array(extrema, dtype=np.float32), place=place))


# -- a layer's numerics (check_layer_numerics) -----------------------------------
class _LayerOutput(PyLayer):
    """Identity on a checked layer's output; its backward, the first of the
    layer's, arranges the check of the parameters' gradients at the end."""

    @staticmethod
    def forward(ctx, x, layer):
        ctx.layer = layer
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        layer = ctx.layer
        queue_callback(lambda: _check_parameter_grads(layer))
        return grad


class _LayerInput(PyLayer):
    """Identity on a checked layer's first input; its backward, the last of the
    layer's, checks the gradient the layer gives back for that input."""

    @staticmethod
    def forward(ctx, x, who):
        ctx.who = who
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        if grad is not None and grad.impl.dtype.is_floating_point:
            _look(ctx.who, "input@GRAD", grad, DebugMode.CHECK_NAN_INF_AND_ABORT, None, False)
        return grad


def _check_parameter_grads(layer) -> None:
    who = f"{type(layer).__name__}_backward"
    for param in layer.parameters():
        grad = param.grad
        if grad is not None and grad.impl.dtype.is_floating_point:
            _look(who, f"{param.name}@GRAD", grad, DebugMode.CHECK_NAN_INF_AND_ABORT, None, False)


def check_layer_numerics(func):
    """Decorator for a Layer's ``forward``: raises RuntimeError at the first
    NaN or Inf the layer makes (Paddle's ``paddle.amp.debugging.check_layer_numerics``).

    In the forward every op the layer runs is checked, as the tensor checker
    with ``DebugMode.CHECK_NAN_INF_AND_ABORT`` (the error names the op, its
    counts and dtype); the thread's own checker, if any, is back afterwards. In
    the backward the gradients the layer gives back are checked: its first
    input's (when that input needs a gradient) as the layer's backward ends,
    its parameters' once the backward pass has finished. The first argument
    of ``forward`` must be a Tensor.

    >>> class Scale(eager.nn.Layer):
    ...     @eager.amp.debugging.check_layer_numerics
    ...     def forward(self, x):
    ...         return 1 / x
    >>> Scale()(eager.to_tensor([0.0]))   # RuntimeError: ... op=divide ... num_inf=1
    """
    if not callable(func):
        raise TypeError(f"check_layer_numerics: expected a Layer's forward function, got {describe(func)}")

    @functools.wraps(func)
    def checked_forward(self, *args, **kwargs):
        who = f"{type(self).__name__}.forward"
        if not args or not isinstance(args[0], Tensor):
            raise TypeError(f"check_layer_numerics: {who} expected a Tensor as its first argument, got "
                            f"{describe(args[0]) if args else 'no positional argument'}")
        first = args[0]
        if not first.stop_gradient:
            first = _LayerInput.apply(first, f"{type(self).__name__}_backward")
        previous = MODES.set_checker(_LAYER_CHECKER)
        try:
            out = func(self, first, *args[1:], **kwargs)
        finally:
            MODES.set_checker(previous)
        if isinstance(out, Tensor) and not out.stop_gradient:
            out = _LayerOutput.apply(out, self)
        return out

    return checked_forward


_LAYER_CHECKER = TensorCheckerConfig(enable=True, debug_mode=DebugMode.CHECK_NAN_INF_AND_ABORT,
                                     stack_height_limit=0)


# -- operator statistics ------------------------------------------------------
def enable_operator_stats_collection() -> None:
    """Starts counting, in the calling thread, each op's calls by the dtype it
    runs in (float16, bfloat16, float32 or other: its first floating input after
    auto_cast's casts); previous counts are dropped. Pair it with
    :func:`disable_operator_stats_collection`, which prints the table.

    >>> enable_operator_stats_collection()
    >>> with eager.amp.auto_cast():
    ...     out = model(x)
    >>> disable_operator_stats_collection()   # prints the per-op table
    """
    MODES.set_stats({})


def disable_operator_stats_collection() -> None:
    """Stops counting in the calling thread and prints the table of calls per op
    and dtype (nothing when counting was off); :func:`get_low_precision_op_list`
    gives the counts afterwards."""
    global _last_stats
    stats = MODES.set_stats(None)
    if stats is not None:
        _last_stats = stats
        _print_operator_stats(stats)


_last_stats = {}  # the last finished collection's counts, which Paddle's core keeps for its getter

# Paddle's names of eager's ops in its statistics (its fluid kernel names, as Paddle 2.6.2 prints them).
_PADDLE_STATS_NAMES = {
    **{ours: paddle for paddle, ours in PADDLE_OP_NAMES.items()
       if paddle.startswith(("elementwise_", "reduce_")) or paddle in ("matmul_v2", "lookup_table_v2")},
    "cast": "transfer_dtype", "reshape": "reshape2", "transpose": "transpose2", "full": "fill_constant",
}


def get_low_precision_op_list() -> dict:
    """Paddle's ``core.get_low_precision_op_list()``: the operator statistics of
    the calling thread's running collection, else of the last one finished, as
    ``{op: "fp16,bf16,fp32,other"}`` call counts, keyed by eager's op names and by
    Paddle's names of them (``elementwise_add``, ``matmul_v2``, ``reduce_mean``,
    ``transfer_dtype``, ``reshape2``, ``transpose2``, ``fill_constant``, ...).

    >>> with eager.amp.debugging.collect_operator_stats():
    ...     y = eager.ones([2, 2]) + eager.ones([2, 2])
    >>> eager.base.core.get_low_precision_op_list()["elementwise_add"]
    '0,0,1,0'
    """
    stats = MODES.stats()
    stats = _last_stats if stats is None else stats
    table = {op: ",".join(str(n) for n in counts) for op, counts in stats.items()}
    for op, paddle in _PADDLE_STATS_NAMES.items():
        if op in table:
            table[paddle] = table[op]
    return table


@contextlib.contextmanager
def collect_operator_stats():
    """Context manager: counts the ops of its block by dtype and prints the
    table when the block ends.

    >>> with eager.amp.debugging.collect_operator_stats():
    ...     with eager.amp.auto_cast(level="O2"):
    ...         out = conv(x)
    """
    enable_operator_stats_collection()
    try:
        yield
    finally:
        disable_operator_stats_collection()


def _print_operator_stats(stats: dict) -> None:
    width = 17
    print("<" + " op list ".center(120, "-") + ">")
    print("<" + " Op Name ".center(40, "-"), "|", " FP16 Calls ".center(width, "-"), "|",
          " BF16 Calls ".center(width, "-"), "|", " FP32 Calls".center(width, "-"), "|",
          " Other Calls ".center(width, "-") + ">")
    for op in sorted(stats):
        print("  " + op.ljust(40) + "|" + "|".join("  " + str(n).ljust(width) for n in stats[op]).rstrip())
    print("<" + f" op count: {len(stats)} ".center(120, "-") + ">\n")
