"""Place: where a tensor's memory lives."""
from __future__ import annotations

from .backend import Backend


class Place:
    """Base of CPUPlace, GPUPlace and CUDAPinnedPlace; places compare and hash by
    value. ``backend`` is the kind of kernels that compute on the place's memory."""

    __slots__ = ()
    backend: Backend

    def is_cpu_place(self) -> bool:
        """True for the host's pageable memory (CPUPlace)."""
        return self.backend is Backend.CPU

    def is_gpu_place(self) -> bool:
        """True for a GPU's memory (GPUPlace, Paddle's CUDAPlace)."""
        return self.backend is Backend.GPU

    def is_cuda_pinned_place(self) -> bool:
        """True for page-locked host memory (CUDAPinnedPlace)."""
        return False

    def _equals(self, other) -> bool:
        """Whether ``other`` is the same place (Paddle's spelling of ``==``)."""
        return self == other


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


class CUDAPinnedPlace(Place):
    """Page-locked ("pinned") host memory, allocated through CUDA so that the GPU
    can copy from and to it directly. ``CUDAPinnedPlace()`` always returns the
    same object; it prints as Paddle prints it, ``Place(gpu_pinned)``.

    The memory is the host's: kernels computing on it are the CPU's (NumPy), so
    its ``backend`` is the CPU's, but it is no CPU place: ``is_cpu_place()`` and
    ``is_gpu_place()`` are False, ``is_cuda_pinned_place()`` is True.
    """

    __slots__ = ()
    backend = Backend.CPU
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def is_cpu_place(self) -> bool:
        """False: pinned memory is host memory, but not the CPU place."""
        return False

    def is_cuda_pinned_place(self) -> bool:
        """True."""
        return True

    def __eq__(self, other):
        return isinstance(other, CUDAPinnedPlace)

    def __hash__(self):
        return hash("gpu_pinned")

    def __repr__(self):
        return "Place(gpu_pinned)"


def convert_place(value) -> Place:
    """A Place from a Place or a string: "cpu", "gpu", "gpu:1", "gpu_pinned"."""
    if isinstance(value, Place):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "cpu":
            return CPUPlace()
        if text in ("gpu", "cuda"):
            return GPUPlace(0)
        if text == "gpu_pinned":
            return CUDAPinnedPlace()
        for prefix in ("gpu:", "cuda:"):
            if text.startswith(prefix) and text[len(prefix):].isdigit():
                return GPUPlace(int(text[len(prefix):]))
    raise ValueError(
        f"cannot interpret {value!r} as a place; expected CPUPlace(), GPUPlace(id), "
        f"CUDAPinnedPlace(), 'cpu', 'gpu:N' or 'gpu_pinned'"
    )
