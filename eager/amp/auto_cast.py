"""``auto_cast`` (also ``amp_guard``): run the ops of a ``with`` block in mixed
precision, Paddle 2.x's dynamic-graph AMP.

Inside the block each generated op (through eager.autograd.op_modes) casts its
floating inputs before it runs: ops of the white list to the amp dtype
(float16, or bfloat16 with ``dtype='bfloat16'``), ops of the black list to
float32, others per ``use_promote`` (float32 when any floating input is
float32, else the amp dtype). The casts are
recorded ``cast`` ops, so gradients flow back to float32 leaves in float32.
The mode is per thread, like grad mode; ``auto_cast(enable=False)`` inside a
block turns it off for its own block.

>>> with eager.amp.auto_cast():
...     y = eager.matmul(x, w)      # float16
...     loss = y.mean()             # mean is black-listed: float32
"""
from __future__ import annotations

import functools
import threading
import weakref

from phi.common import DataType
from phi.common.data_type import HALF_TYPES, BFloat16Unavailable, bfloat16_numpy_dtype

from ..arguments import describe, to_bool
from ..autograd.engine import add_backward_final_hook
from ..autograd.grad_mode import no_grad
from ..autograd.meta import own_grad
from ..autograd.op_modes import MODES
from ..framework import _parse_device, current_place
from ..generated import forward_api as _F
from ..tensor import Tensor
from .amp_lists import LEVELS, PADDLE_OP_NAMES, lists_for

_AMP_FLOATS = frozenset({DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16})  # what auto_cast casts (float64 stays)
_DTYPES = {"float16": DataType.FLOAT16, "bfloat16": DataType.BFLOAT16}


def is_float16_supported(device=None) -> bool:
    """Whether auto_cast and decorate can use float16 on ``device`` (None: the
    current one). True here: float16 kernels run on NumPy (CPU) and CuPy (GPU)."""
    _check_device("is_float16_supported", device)
    return True


def is_bfloat16_supported(device=None) -> bool:
    """Whether auto_cast and decorate can use bfloat16 on ``device`` (None: the
    current one): True on the CPU when the optional ml_dtypes package (NumPy's
    bfloat16 dtype) is installed; False without it, and on a GPU (CuPy has no
    bfloat16)."""
    place = _check_device("is_bfloat16_supported", device)
    if not (current_place() if place is None else place).is_cpu_place():
        return False
    try:
        bfloat16_numpy_dtype()
    except BFloat16Unavailable:
        return False
    return True


def _check_device(who: str, device):
    """The Place ``device`` names (None for None); a name that is no device, or not
    a str, is the ValueError Paddle raises."""
    return None if device is None else _parse_device(device, who)


def _op_names() -> frozenset:
    """The forward ops a custom list may name (eager's names, and depthwise_conv2d:
    a conv2d whose groups are its input channels)."""
    return frozenset(name for name in _F.__all__ if not name.endswith("_")) | {"depthwise_conv2d"}


def check_level(who: str, level) -> str:
    if not isinstance(level, str) or level not in LEVELS:
        raise ValueError(f"{who}: argument 'level' expected one of 'O0', 'OD', 'O1', 'O2', got {level!r}")
    return level


def check_amp_dtype(who: str, dtype) -> str:
    """'float16' or 'bfloat16' (a DataType is accepted too); bfloat16 needs the
    optional ml_dtypes package (a TypeError naming it otherwise)."""
    name = dtype.value if isinstance(dtype, DataType) else dtype
    if name not in _DTYPES:
        raise ValueError(f"{who}: argument 'dtype' expected 'float16' or 'bfloat16', got {dtype!r}")
    if name == "bfloat16":
        try:
            bfloat16_numpy_dtype()
        except BFloat16Unavailable as error:
            raise BFloat16Unavailable(f"{who}: argument 'dtype' is 'bfloat16': {error}") from None
    return name


def check_op_list(who: str, arg: str, ops) -> frozenset:
    """A custom list (set, list or tuple of op names, or None) as eager op names;
    Paddle's own names (elementwise_add, reduce_sum, ...) are accepted."""
    if ops is None:
        return frozenset()
    if isinstance(ops, str) or not isinstance(ops, (set, frozenset, list, tuple)):
        raise TypeError(f"{who}: argument '{arg}' expected None or a set, list or tuple of op names, "
                        f"got {describe(ops)}")
    known, names, unknown = _op_names(), set(), []
    for op in ops:
        if not isinstance(op, str):
            raise TypeError(f"{who}: argument '{arg}' expected op names (str), got {describe(op)} in it")
        name = PADDLE_OP_NAMES.get(op, op)
        if name not in known:
            unknown.append(op)
        names.add(name)
    if unknown:
        raise ValueError(f"{who}: argument '{arg}' names {sorted(unknown)}, which are not ops "
                         f"(eager.ops lists the op names; Paddle's elementwise_add, reduce_sum, ... "
                         f"are accepted too)")
    return frozenset(names)


class AmpState:
    """One auto_cast block's settings: what :meth:`cast_inputs` does to an op's inputs."""

    __slots__ = ("level", "dtype", "white", "black", "use_promote")

    def __init__(self, level: str, dtype: DataType, white: frozenset, black: frozenset, use_promote: bool):
        self.level, self.dtype, self.white, self.black = level, dtype, white, black
        self.use_promote = use_promote

    def target(self, op: str, args: tuple):
        """The dtype op runs in (its floating float16/float32 inputs cast to it),
        or None to leave them as they are."""
        if op == "cast":  # an explicit cast says its dtype itself
            return None
        if op == "conv2d" and _depthwise(args):
            op = "depthwise_conv2d"  # Paddle's own op for it, in neither default list
        if op in self.white:
            return self.dtype
        if op in self.black or self.level == "OD":
            return DataType.FLOAT32
        if self.level == "O2" and not self.use_promote:
            return self.dtype
        # Promote: float32 when any floating input is float32, else the amp dtype.
        for arg in args:
            for t in (arg if isinstance(arg, (list, tuple)) else (arg,)):
                if isinstance(t, Tensor) and t.impl.dtype is DataType.FLOAT32:
                    return DataType.FLOAT32
        return self.dtype

    def linear(self, x: Tensor, weight: Tensor, bias) -> Tensor:
        """``linear`` under auto_cast, as Paddle's dygraph runs it: ``matmul``
        (white list: the amp dtype) and then ``add`` (promoted: float32 with a
        float32 bias at O1, OD and O2 with use_promote), each through its own
        cast, so the lists naming ``matmul`` or ``add`` decide."""
        out = _F.matmul(x, weight, False, False)
        return out if bias is None else _F.add(out, bias)

    def cast_inputs(self, op: str, args: tuple) -> tuple:
        dtype = self.target(op, args)
        if dtype is None:
            return args
        out = list(args)
        for index, arg in enumerate(args):
            if isinstance(arg, Tensor):
                out[index] = _cast(arg, dtype)
            elif isinstance(arg, (list, tuple)) and arg and any(isinstance(t, Tensor) for t in arg):
                out[index] = type(arg)(_cast(t, dtype) if isinstance(t, Tensor) else t for t in arg)
        return tuple(out)


def _depthwise(args: tuple) -> bool:
    """Whether conv2d's arguments (input, filter, ..., groups, data_format) make the
    convolution Paddle runs as its depthwise_conv2d op: groups equal to the input's
    channels (more than one), the output channels a multiple of them."""
    x, weight, groups, data_format = args[0], args[1], args[6], args[7]
    channels = x.impl.dims[-1 if data_format == "NHWC" else 1]
    return groups == channels != 1 and weight.impl.dims[0] % channels == 0


def _cast(tensor: Tensor, dtype: DataType) -> Tensor:
    """tensor in dtype through the recorded cast op, when it is float16/float32
    and differs (float64, integer and bool tensors stay)."""
    have = tensor.impl.dtype
    if have is dtype or have not in _AMP_FLOATS:
        return tensor
    return MODES.call("cast", _F.cast, (tensor, dtype), False)  # not cast again; checked in anomaly mode


class _MasterGrad:
    """decorate(master_grad=True)'s process-wide state, as Paddle's amp global
    state: the parameters (id -> parameter) whose float16/bfloat16 gradients
    become float32 at the end of each backward pass that follows an auto_cast
    entry, and whether that pass's hook is registered already."""

    def __init__(self):
        # weak: a model dropped by the script is not kept alive (Paddle's list keeps it)
        self.params = weakref.WeakValueDictionary()
        self.registered = False

    def arm(self) -> None:
        """Registers the final hook of the next backward pass (auto_cast entry,
        as in Paddle: the hooks are dropped once run, so every step arms it)."""
        if self.params and not self.registered:
            add_backward_final_hook(self.set_master_grads)
            self.registered = True

    def set_master_grads(self) -> None:
        """Each parameter's float16/bfloat16 ``.grad`` becomes a float32 copy (a
        buffer of its own, so later passes accumulate into it in float32)."""
        self.registered = False
        with no_grad():
            for param in list(self.params.values()):
                meta = param._meta
                grad = None if meta is None else meta.grad
                if grad is not None and grad.impl.dtype in HALF_TYPES:
                    meta.grad = own_grad(_F.cast(grad, DataType.FLOAT32))


MASTER_GRAD = _MasterGrad()


class auto_cast:
    """Context manager (and decorator) for automatic mixed precision.

    ``enable``: False leaves ops as they are (also inside an enclosing block).
    ``custom_white_list`` / ``custom_black_list``: op names (eager's, or Paddle's
    such as 'elementwise_add') to add to the white (amp dtype) or black (float32)
    list. ``level``: 'O1' (white list in the amp dtype, black list in float32,
    others promoted), 'O2' (everything in the amp dtype but the black list; with
    ``use_promote``, an op with a float32 input runs in float32), 'OD' (only the
    white list in the amp dtype) or 'O0' (off), in any case as in Paddle. ``dtype``:
    'float16' or 'bfloat16' (any case; on the CPU, with ml_dtypes installed: see
    is_bfloat16_supported).

    >>> with eager.amp.auto_cast(custom_black_list={"matmul"}):
    ...     y = eager.matmul(x, w)     # float32 now
    """

    def __init__(self, enable=True, custom_white_list=None, custom_black_list=None, level="O1",
                 dtype="float16", use_promote=True):
        who = "auto_cast"
        enable = to_bool(enable, who, "enable")
        use_promote = to_bool(use_promote, who, "use_promote")
        # Paddle's amp_guard upper-cases the level and lower-cases the dtype ('o1', 'BFLOAT16' work)
        if isinstance(level, str) and level.upper() in LEVELS:
            level = level.upper()
        if isinstance(dtype, str) and dtype.lower() in _DTYPES:
            dtype = dtype.lower()
        level = check_level(who, level)
        white = check_op_list(who, "custom_white_list", custom_white_list)
        black = check_op_list(who, "custom_black_list", custom_black_list)
        both = white & black
        if both:
            raise ValueError(f"{who}: ops {sorted(both)} are in both custom_white_list and custom_black_list")
        self._state = None
        if enable and level != "O0":
            name = check_amp_dtype(who, dtype)
            white, black = lists_for(level, name, white, black)
            self._state = AmpState(level, _DTYPES[name], white, black, use_promote)
        elif enable:
            check_amp_dtype(who, dtype)
        self._saved = {}  # thread id -> the states to restore (one object may be entered in several threads)

    def __enter__(self):
        MASTER_GRAD.arm()
        self._saved.setdefault(threading.get_ident(), []).append(MODES.set_amp(self._state))
        return self

    def __exit__(self, *exc):
        saved = self._saved[threading.get_ident()]
        MODES.set_amp(saved.pop())
        if not saved:
            del self._saved[threading.get_ident()]
        return False

    def __call__(self, fn):
        state = self._state

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            MASTER_GRAD.arm()
            previous = MODES.set_amp(state)
            try:
                return fn(*args, **kwargs)
            finally:
                MODES.set_amp(previous)

        return wrapper


amp_guard = auto_cast


def amp_state():
    """This thread's auto_cast settings (an AmpState with level, dtype, white,
    black, use_promote), or None outside auto_cast."""
    return MODES.amp()
