"""TensorBase: what every phi tensor type offers (Paddle's phi::TensorBase)."""
from __future__ import annotations

import abc


class TensorBase(abc.ABC):
    """An n-dimensional array with a dtype, a layout and a place.

    DenseTensor is the one implementation today; sparse or distributed tensors
    would be others, and the eager Tensor holds any of them as its ``impl``.
    """

    __slots__ = ()

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
