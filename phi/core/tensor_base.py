"""TensorBase: what every phi tensor type offers (Paddle's phi::TensorBase)."""
from __future__ import annotations

import abc

from ..common.tensor_kind import TensorKind


class TensorBase(abc.ABC):
    """An n-dimensional array with a dtype, a layout and a place.

    DenseTensor and SelectedRows implement it; ``kind`` says which, and is part
    of the key a kernel is selected by. The eager Tensor holds any of them as
    its ``impl`` and reads only what is declared here.
    """

    __slots__ = ()
    kind: TensorKind

    @property
    @abc.abstractmethod
    def dims(self) -> tuple: ...

    @property
    @abc.abstractmethod
    def dtype(self): ...

    @property
    @abc.abstractmethod
    def layout(self): ...

    @property
    @abc.abstractmethod
    def place(self): ...

    @property
    def numel(self) -> int:
        count = 1
        for d in self.dims:
            count *= d
        return count

    @abc.abstractmethod
    def initialized(self) -> bool: ...

    @property
    @abc.abstractmethod
    def dispatch_key(self) -> tuple:
        """``(array type, NumPy dtype)`` of the arrays this tensor computes with:
        with ``kind``, what selects its kernel (the array type stands for the
        backend). The key of a DispatchTable; no array leaves phi through it."""

    def owns_buffer_alone(self) -> bool:
        """Whether nothing else can reach this tensor's buffers (see DenseTensor);
        False unless a subclass can tell, which only costs the caller a copy."""
        return False
