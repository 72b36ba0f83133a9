"""Place: where a tensor's memory lives."""
from __future__ import annotations

from .backend import Backend


class Place:
    """Base of CPUPlace and GPUPlace; places compare and hash by value."""

    __slots__ = ()
    backend: Backend

    def is_cpu_place(self) -> bool:
        return self.backend is Backend.CPU

    def is_gpu_place(self) -> bool:
        return self.backend is Backend.GPU


class CPUPlace(Place):
    """The host. ``CPUPlace()`` always returns the same object."""

    __slots__ = ()
    backend = Backend.CPU
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash("cpu")

    def __repr__(self):
        return "Place(cpu)"


class GPUPlace(Place):
    """An NVIDIA GPU, by device id; backed by CuPy."""

    __slots__ = ("device_id",)
    backend = Backend.GPU

    def __init__(self, device_id: int = 0):
        if not isinstance(device_id, int) or isinstance(device_id, bool) or device_id < 0:
            raise ValueError(f"GPUPlace: device_id must be a non-negative int, got {device_id!r}")
        self.device_id = device_id

    def __eq__(self, other):
        return isinstance(other, GPUPlace) and other.device_id == self.device_id

    def __hash__(self):
        return hash(("gpu", self.device_id))

    def __repr__(self):
        return f"Place(gpu:{self.device_id})"


def convert_place(value) -> Place:
    """A Place from a Place or a string: "cpu", "gpu", "gpu:1"."""
    if isinstance(value, Place):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "cpu":
            return CPUPlace()
        if text in ("gpu", "cuda"):
            return GPUPlace(0)
        for prefix in ("gpu:", "cuda:"):
            if text.startswith(prefix) and text[len(prefix):].isdigit():
                return GPUPlace(int(text[len(prefix):]))
    raise ValueError(
        f"cannot interpret {value!r} as a place; expected CPUPlace(), GPUPlace(id), "
        f"'cpu' or 'gpu:N'"
    )
