"""The ``paddle.static`` helpers that Paddle 2.6.2 also runs in dygraph mode, where
they place nothing: ``name_scope`` and ``device_guard`` (context managers that
change no op of their block) and ``cpu_places`` / ``cuda_places`` (lists of places).

>>> with eager.static.name_scope("encoder"), eager.static.device_guard("cpu"):
...     y = eager.ones([2]) + 1          # runs as it would outside the blocks
>>> eager.static.cpu_places(2)
[Place(cpu), Place(cpu)]
"""
from __future__ import annotations

import contextlib
import os

from phi.common import CPUPlace, GPUPlace

from ..arguments import describe
from ..device.build import is_compiled_with_cuda
from ..framework import gpu_count

_DEVICES = ("cpu", "gpu", "xpu", "")


@contextlib.contextmanager
def name_scope(prefix=None):
    """Paddle's ``paddle.static.name_scope(prefix=None)``: names the ops of a
    static program; in dygraph mode (eager's only mode) it does nothing, as in
    Paddle 2.6.2 (``prefix`` is not checked there either). Yields None."""
    yield


@contextlib.contextmanager
def device_guard(device=None):
    """Paddle's ``paddle.static.device_guard(device=None)``: places the ops of a
    static program on ``device`` ('cpu', 'gpu', 'gpu:N', 'xpu', 'xpu:N', '' or
    None). In dygraph mode Paddle 2.6.2 checks the name and places nothing: the
    ops of the block run where they would anyway (use ``eager.set_device`` or
    ``place=`` to choose). Errors come when the block is entered, as in Paddle."""
    who = "device_guard"
    if device is not None and not isinstance(device, str):
        raise TypeError(f"{who}: argument 'device' expected a str ('cpu', 'gpu', 'gpu:N', 'xpu', 'xpu:N') "
                        f"or None, got {describe(device)}")
    name, index = device, None
    if device and ":" in device:
        name, index = device.split(":", 1)
        if name == "cpu":
            raise ValueError(f"{who}: argument 'device' {device!r}: should not set device id for cpu")
        if not index.isdigit():
            raise ValueError(f"{who}: argument 'device' {device!r}: the device id after ':' must be an "
                             f"integer >= 0")
    if name is not None and name not in _DEVICES:
        raise ValueError(f"{who}: argument 'device' expected 'cpu', 'xpu', 'gpu' (optionally with ':N'), an "
                         f"empty string or None, got {device!r}")
    yield


def cpu_places(device_count=None) -> list:
    """``device_count`` CPU places (Paddle's ``paddle.static.cpu_places``); None
    reads the ``CPU_NUM`` environment variable, 1 when it is not set."""
    who = "cpu_places"
    if device_count is None:
        text = os.environ.get("CPU_NUM", "1")
        try:
            device_count = int(text)
        except ValueError:
            raise ValueError(f"{who}: the CPU_NUM environment variable expected an integer, got {text!r}") from None
    elif isinstance(device_count, bool) or not isinstance(device_count, int):
        raise TypeError(f"{who}: argument 'device_count' expected an int or None, got {describe(device_count)}")
    return [CPUPlace()] * device_count  # a negative count gives [], as in Paddle


def cuda_places(device_ids=None) -> list:
    """GPU places (Paddle's ``paddle.static.cuda_places``): one per id of
    ``device_ids`` (an int, or a list/tuple of ints); None gives those of the
    ``FLAGS_selected_gpus`` environment variable ('0,1,...'), else every visible GPU.
    Without a GPU it fails as in Paddle (AssertionError: not compiled with CUDA)."""
    who = "cuda_places"
    if not is_compiled_with_cuda():
        raise AssertionError(f"{who}: Not compiled with CUDA (eager sees no GPU: CuPy is missing or finds "
                             f"no device)")
    if device_ids is None:
        selected = os.getenv("FLAGS_selected_gpus")
        device_ids = [int(s) for s in selected.split(",")] if selected else range(gpu_count())
    elif not isinstance(device_ids, (list, tuple)):
        device_ids = [device_ids]
    for device_id in device_ids:
        if isinstance(device_id, bool) or not isinstance(device_id, int):
            raise TypeError(f"{who}: argument 'device_ids' expected ints, got {describe(device_id)}")
    return [GPUPlace(device_id) for device_id in device_ids]


__all__ = ["cpu_places", "cuda_places", "device_guard", "name_scope"]
