"""Process-wide settings, as Paddle's ``paddle.framework``: the default dtype,
the default device and how tensors print.

Each setting is global to the process (as in Paddle), not per thread: set it
once at the start of a program. It imports only phi, so every eager module
may read it.

>>> eager.set_default_dtype("float64")
>>> print(eager.zeros([2]).dtype)
paddle.float64
>>> eager.set_default_dtype("float32")
"""
from __future__ import annotations

import importlib
import numbers
import threading
from dataclasses import dataclass, replace

import numpy as np

from phi.api.support import FLAGS
from phi.common import CPUPlace, DataType, GPUPlace, Place
from phi.common.data_type import default_float_dtype, set_default_float_dtype

__all__ = ["get_default_dtype", "set_default_dtype", "get_device", "set_device", "set_printoptions",
           "disable_static", "enable_static", "in_dynamic_mode", "in_dynamic_or_pir_mode", "in_pir_mode",
           "use_pir_api", "get_flags", "set_flags"]

_LOCK = threading.Lock()
_FLOATS = {"float16": DataType.FLOAT16, "bfloat16": DataType.BFLOAT16, "float32": DataType.FLOAT32,
           "float64": DataType.FLOAT64}


# -- default dtype ---------------------------------------------------------------------

def set_default_dtype(d) -> None:
    """Sets the dtype that Python floats and creation ops without a ``dtype`` get:
    'float16', 'bfloat16' (Paddle 2.5+; needs ml_dtypes), 'float32' (the initial
    one) or 'float64', as a name, a NumPy type
    (``np.float64``) or an eager dtype (``eager.float64``). Layers made afterwards
    create their parameters in it. Process-global, as in Paddle.

    >>> eager.set_default_dtype("float64")
    >>> eager.to_tensor([1.0]).dtype, eager.rand([2]).dtype
    (paddle.float64, paddle.float64)
    >>> eager.set_default_dtype("float32")
    """
    if isinstance(d, DataType):
        name = d.value
    elif isinstance(d, type) and issubclass(d, np.generic):
        name = d.__name__
    elif isinstance(d, np.dtype):
        name = d.name
    elif isinstance(d, str):
        name = d
    else:
        name = None
    if name not in _FLOATS:
        shown = d.__name__ if isinstance(d, type) else repr(d)
        raise TypeError(f"set_default_dtype: argument 'd' expected one of 'float16', 'bfloat16', "
                        f"'float32', 'float64' (Paddle's default dtypes), got {shown}")
    with _LOCK:
        set_default_float_dtype(_FLOATS[name])


def get_default_dtype() -> str:
    """The default dtype's name: 'float32' unless :func:`set_default_dtype` changed it.

    >>> eager.get_default_dtype()
    'float32'
    """
    return default_float_dtype().value


def default_dtype() -> DataType:
    """The default dtype as a DataType (for eager's own modules)."""
    return default_float_dtype()


# -- default device --------------------------------------------------------------------

_place = [CPUPlace()]


def gpu_count() -> int:
    """How many GPUs CuPy sees; 0 without CuPy or without a usable driver."""
    try:
        cupy = importlib.import_module("cupy")
    except ImportError:
        return 0
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # CuPy installed, but no CUDA driver or device
        return 0


def _parse_device(device, op: str = "set_device") -> Place:
    if isinstance(device, Place):
        return device
    if not isinstance(device, str):
        raise ValueError(f"{op}: argument 'device' expected a str such as 'cpu', 'gpu' or "
                         f"'gpu:0', got {type(device).__name__} {device!r}")
    text = device.strip().lower()
    if text == "cpu":
        return CPUPlace()
    if text == "gpu":
        return GPUPlace(0)
    if text.startswith("gpu:") and text[4:].isdigit():
        return GPUPlace(int(text[4:]))
    raise ValueError(f"{op}: argument 'device' expected 'cpu', 'gpu' or 'gpu:N' "
                     f"(N a device id), got {device!r}")


def parse_device(op: str, device) -> Place:
    """``device`` ('cpu', 'gpu', 'gpu:N' or a Place) as a Place that exists: a GPU
    needs CuPy and a visible device with that id, and so does pinned memory
    (CUDAPinnedPlace: CUDA allocates it), else ValueError naming ``op``."""
    place = _parse_device(device, op)
    if place.is_cuda_pinned_place():
        require_pinned_memory(op)
    elif place.is_gpu_place():
        count = gpu_count()
        if count == 0:
            raise ValueError(
                f"{op}: device {device!r} is a GPU, but no GPU is available: GPU tensors "
                f"need CuPy (`pip install cupy-cuda12x`, matching your CUDA) and a visible "
                f"NVIDIA device")
        if place.device_id >= count:
            raise ValueError(f"{op}: device {device!r} does not exist: {count} GPU(s) "
                             f"visible (ids 0 to {count - 1})")
    return place


def require_pinned_memory(op: str) -> None:
    """ValueError naming ``op`` unless pinned (page-locked) host memory can be
    made: CuPy allocates it through CUDA, so it needs CuPy and a visible NVIDIA
    device, as Paddle's CPU-only build refuses CUDAPinnedPlace."""
    if gpu_count() == 0:
        raise ValueError(
            f"{op}: pinned memory (CUDAPinnedPlace) is page-locked host memory that CUDA "
            f"allocates, but no GPU is available: it needs the GPU extra (`pip install "
            f"eager-phi[gpu]`, or a cupy-cudaXXx wheel matching your CUDA) and a visible "
            f"NVIDIA device")


def parse_default_device(op: str, device) -> Place:
    """``device`` as :func:`parse_device` reads it, for the default place of new
    tensors: the CPU or a GPU. Pinned memory is refused (ValueError naming ``op``):
    it holds copies made for transfers, not the tensors ops create."""
    place = _parse_device(device, op)
    if place.is_cuda_pinned_place():
        raise ValueError(f"{op}: argument 'device' cannot be CUDAPinnedPlace(): new tensors go to "
                         f"'cpu' or 'gpu:N'; put a tensor in pinned memory with "
                         f"to_tensor(data, place=CUDAPinnedPlace()) or Tensor.pin_memory()")
    return parse_device(op, device)  # (its errors quote the device as it was given)


def set_device(device) -> Place:
    """Makes ``device`` ('cpu', 'gpu' or 'gpu:N') the place where ``to_tensor`` and
    creation ops put tensors when no ``place`` is given; returns that Place.
    'cpu' is the initial device. A GPU needs CuPy and a visible device, else
    this raises ValueError and the device stays as it was.

    >>> eager.set_device("cpu")
    Place(cpu)
    >>> eager.get_device()
    'cpu'
    """
    place = parse_default_device("set_device", device)
    with _LOCK:
        _place[0] = place
    return place


def get_device() -> str:
    """The current default device as a string: 'cpu' or 'gpu:N'.

    >>> eager.get_device()
    'cpu'
    """
    place = _place[0]
    return "cpu" if place.is_cpu_place() else f"gpu:{place.device_id}"


def current_place() -> Place:
    """The default place for new tensors (for eager's own modules)."""
    return _place[0]


# -- print options ---------------------------------------------------------------------

@dataclass(frozen=True)
class PrintOptions:
    """How a Tensor prints (Paddle's defaults)."""

    precision: int = 8
    threshold: int = 1000
    edgeitems: int = 3
    sci_mode: bool = False
    linewidth: int = 80


_print_options = [PrintOptions()]


def _check_count(arg: str, value, minimum: int) -> None:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < minimum:
        raise TypeError(f"set_printoptions: argument '{arg}' expected an int >= {minimum}, got {value!r}")


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None,
                     linewidth=None) -> None:
    """Sets how tensors print; an argument left None keeps its current value.

    ``precision``: digits after the point (8); ``threshold``: above this many
    elements only the edges print (1000); ``edgeitems``: how many at each edge
    (3); ``sci_mode``: scientific notation for floats (False); ``linewidth``:
    characters per line (80; a line holds at least one item, so 0 prints one
    item a line).

    >>> eager.set_printoptions(precision=2)
    >>> print(eager.to_tensor([1.0, 0.123456]))
    Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
           [1.  , 0.12])
    >>> eager.set_printoptions(precision=8)
    """
    changes = {}
    for arg, value, minimum in (("precision", precision, 0), ("threshold", threshold, 0),
                                ("edgeitems", edgeitems, 1), ("linewidth", linewidth, 0)):
        if value is not None:
            _check_count(arg, value, minimum)
            changes[arg] = int(value)
    if sci_mode is not None:
        # Paddle 2.6 takes 0 and 1 too (its core converts the value to bool)
        if not isinstance(sci_mode, (bool, np.bool_)) and not (
                isinstance(sci_mode, numbers.Integral) and sci_mode in (0, 1)):
            raise TypeError(f"set_printoptions: argument 'sci_mode' expected a bool (or 0 or 1), got {sci_mode!r}")
        changes["sci_mode"] = bool(sci_mode)
    with _LOCK:
        _print_options[0] = replace(_print_options[0], **changes)


def print_options() -> PrintOptions:
    """The current print options (read by Tensor's repr)."""
    return _print_options[0]


# -- execution mode ----------------------------------------------------------------------

def in_dynamic_mode() -> bool:
    """True: eager runs every op as it is called (Paddle's dynamic graph mode), always.

    >>> eager.in_dynamic_mode()
    True
    """
    return True


def in_pir_mode() -> bool:
    """False: Paddle's query for static mode under its PIR program representation
    (eager has no static mode), as ``paddle.framework.in_pir_mode()`` answers in
    dynamic mode.

    >>> eager.framework.in_pir_mode()
    False
    """
    return False


def use_pir_api() -> bool:
    """False: whether Paddle's static graph would be built as PIR (Paddle 2.6's
    default is the old program; eager builds none).

    >>> eager.framework.use_pir_api()
    False
    """
    return False


def in_dynamic_or_pir_mode() -> bool:
    """True: dynamic mode or PIR static mode, Paddle's test before its dygraph
    fast path; eager is always in dynamic mode.

    >>> eager.framework.in_dynamic_or_pir_mode()
    True
    """
    return True


def disable_static(place=None) -> None:
    """Paddle's switch back to dynamic mode. Dynamic mode is the only mode, so this
    changes nothing but the default device when ``place`` ('cpu', 'gpu', 'gpu:N'
    or a Place) is given, as Paddle's ``disable_static(place)`` does.

    >>> eager.disable_static()
    >>> eager.in_dynamic_mode()
    True
    """
    if place is not None:
        chosen = parse_default_device("disable_static", place)
        with _LOCK:
            _place[0] = chosen


def enable_static() -> None:
    """Refused: eager has no static graph mode (no Program, Executor or
    ``paddle.static.data``), so this raises RuntimeError rather than let a script
    go on as if its graph were being built. To compile a function or layer, keep
    dynamic mode and wrap it with ``eager.jit.to_static``.
    """
    raise RuntimeError("enable_static: eager has only the dynamic graph mode, so static mode cannot "
                       "be enabled; remove the call and use eager.jit.to_static(layer_or_function) "
                       "to trace and compile a model")


# -- flags -------------------------------------------------------------------------------

def _flag_names() -> dict:
    """Paddle-style names ('FLAGS_check_infer_meta') of phi's FLAGS, to the attribute."""
    return {f"FLAGS_{name}": name for name in type(FLAGS).__slots__}


# Paddle flags that training scripts set at start-up to tune cuDNN or oneDNN, which
# eager does not use (its GPU kernels are CuPy's), or Paddle's allocator and garbage
# collection (eager's arrays are NumPy's or CuPy's, freed by reference counting):
# accepted, kept and read back, with no effect, so that such a script runs unchanged.
# The values are Paddle 2.6's defaults.
# FLAGS_use_stride_kernel (Paddle's switch for view ops that share memory) is kept for
# the same reason: eager's view ops (view, as_strided, unfold, ...) always share memory.
# FLAGS_sort_sum_gradient (Paddle's switch to sum a tensor's incoming gradients in a fixed
# order) likewise: eager's engine always sums them in one order, run after run.
_PADDLE_ONLY_FLAGS = {
    "FLAGS_cudnn_deterministic": False,
    "FLAGS_cudnn_exhaustive_search": False,
    "FLAGS_cudnn_batchnorm_spatial_persistent": False,
    "FLAGS_conv_workspace_size_limit": 512,
    "FLAGS_embedding_deterministic": 0,
    "FLAGS_use_mkldnn": False,
    "FLAGS_use_stride_kernel": True,
    "FLAGS_sort_sum_gradient": False,
    "FLAGS_eager_delete_tensor_gb": 0.0,
    "FLAGS_fast_eager_deletion_mode": True,
    "FLAGS_memory_fraction_of_eager_deletion": 1.0,
    "FLAGS_allocator_strategy": "auto_growth",
    "FLAGS_fraction_of_gpu_memory_to_use": 0.92,
    "FLAGS_gpu_memory_limit_mb": 0,
    "FLAGS_initial_cpu_memory_in_mb": 500,
    "FLAGS_use_pinned_memory": True,
    "FLAGS_paddle_num_threads": 1,
    "FLAGS_benchmark": False,
    "FLAGS_call_stack_level": 1,
    "FLAGS_check_nan_inf_level": 0,  # kept and read back: eager's nan/inf check always raises (see below)
}
_paddle_only_values = dict(_PADDLE_ONLY_FLAGS)

# Paddle's switch of the nan/inf check after every op (its FLAGS_check_nan_inf, which Paddle's
# own docstring examples and debugging scripts set), served by eager's anomaly mode: set
# True, the thread that sets it runs as inside eager.autograd.detect_anomaly() (every op's
# results checked, forward and backward, the error naming the op) until it is set False.
# FLAGS_check_nan_inf_level (Paddle's choice between raising and only printing statistics)
# is kept and read back: eager always raises.
_NAN_INF_FLAG = "FLAGS_check_nan_inf"
_nan_inf_guard = [None]  # the detect_anomaly() entered by set_flags while the flag is on


def _set_check_nan_inf(on: bool) -> None:
    if on == (_nan_inf_guard[0] is not None):
        return
    if on:
        # eager.autograd is a layer above this module (which only phi may import statically)
        guard = importlib.import_module("eager.autograd").detect_anomaly()
        guard.__enter__()
        _nan_inf_guard[0] = guard
    else:
        guard, _nan_inf_guard[0] = _nan_inf_guard[0], None
        guard.__exit__(None, None, None)


def _flag_attribute(op: str, name) -> str:
    """phi's FLAGS attribute of ``name``, or ``name`` itself for a Paddle-only flag."""
    names = _flag_names()
    if not isinstance(name, str):
        raise TypeError(f"{op}: a flag name must be a str such as 'FLAGS_check_infer_meta', "
                        f"got {type(name).__name__} {name!r}")
    if name in _PADDLE_ONLY_FLAGS or name == _NAN_INF_FLAG:
        return name
    if name not in names:
        raise ValueError(f"{op}: unknown flag {name!r}; eager has the flags {sorted([*names, _NAN_INF_FLAG])} "
                         f"and accepts, without effect, {sorted(_PADDLE_ONLY_FLAGS)}")
    return names[name]


def _flag_value(attribute: str):
    if attribute == _NAN_INF_FLAG:
        return _nan_inf_guard[0] is not None
    if attribute in _PADDLE_ONLY_FLAGS:
        return _paddle_only_values[attribute]
    return getattr(FLAGS, attribute)


def get_flags(flags) -> dict:
    """The values of the named flags ('FLAGS_<name>', a str or a list/tuple of them)
    as a dict, as Paddle's ``paddle.get_flags``. eager's flags are phi's debug
    switches and ``FLAGS_check_nan_inf`` (see :func:`set_flags`); Paddle's
    cuDNN/oneDNN tuning flags (``FLAGS_cudnn_deterministic``, ...) are kept and
    read back but have no effect (eager uses neither library);
    an unknown name raises ValueError listing the known ones.

    >>> list(eager.get_flags(["FLAGS_check_infer_meta"]))
    ['FLAGS_check_infer_meta']
    """
    names = [flags] if isinstance(flags, str) else flags
    if not isinstance(names, (list, tuple)):
        raise TypeError(f"get_flags: argument 'flags' expected a str or a list/tuple of str, got "
                        f"{type(flags).__name__} {flags!r}")
    return {name: _flag_value(_flag_attribute("get_flags", name)) for name in names}


def set_flags(flags) -> None:
    """Sets flags from a dict ``{'FLAGS_<name>': value}``, as Paddle's
    ``paddle.set_flags``; every name and value is checked before any is set.
    ``FLAGS_check_nan_inf`` set True turns on eager's anomaly mode
    (``eager.autograd.detect_anomaly``) in the calling thread until it is set
    False: every op's results are checked for NaN/Inf, forward and backward.

    >>> before = eager.get_flags("FLAGS_check_infer_meta")
    >>> eager.set_flags({"FLAGS_check_infer_meta": True})
    >>> eager.set_flags(before)
    """
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags: argument 'flags' expected a dict {{name: value}}, got "
                        f"{type(flags).__name__} {flags!r}")
    updates = {}
    for name, value in flags.items():
        attribute = _flag_attribute("set_flags", name)
        current = _flag_value(attribute)
        if isinstance(current, bool):
            if not isinstance(value, (bool, np.bool_)) and value not in (0, 1):
                raise TypeError(f"set_flags: flag {name!r} expected a bool, got {value!r}")
            value = bool(value)
        elif isinstance(current, int) and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
            raise TypeError(f"set_flags: flag {name!r} expected an int, got {value!r}")
        elif isinstance(current, int):
            value = int(value)
        elif isinstance(current, float):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
                raise TypeError(f"set_flags: flag {name!r} expected a float, got {value!r}")
            value = float(value)
        elif isinstance(current, str) and not isinstance(value, str):
            raise TypeError(f"set_flags: flag {name!r} expected a str, got {value!r}")
        updates[attribute] = value
    with _LOCK:
        for attribute, value in updates.items():
            if attribute == _NAN_INF_FLAG:
                _set_check_nan_inf(value)
            elif attribute in _PADDLE_ONLY_FLAGS:
                _paddle_only_values[attribute] = value
            else:
                setattr(FLAGS, attribute, value)


# -- names Paddle also lists under paddle.framework ------------------------------------

# These live in upper layers (nn, autograd, serialization), which this module may not
# import: they are looked up on the top-level package on first use instead.
_FROM_UPPER_LAYERS = frozenset({"ParamAttr", "seed", "save", "load", "async_save", "clear_async_save_task_queue", "no_grad", "enable_grad", "grad",
                                "set_grad_enabled", "is_grad_enabled", "CUDAPlace",
                                "CUDAPinnedPlace"})


def __getattr__(name):
    if name in _FROM_UPPER_LAYERS:
        return getattr(importlib.import_module("eager"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
