"""MetaTensor: the dims/dtype/layout an InferMeta function reads and writes."""
from __future__ import annotations

from ..common.backend import DataLayout
from ..common.data_type import dtype_name


class MetaTensor:
    """Meta information only, no buffer. InferMeta reads inputs and sets outputs.

    Any object with ``dims`` and ``dtype`` (a DenseTensor) can be read as an
    input MetaTensor; outputs are MetaTensor objects the caller passes in.
    """

    __slots__ = ("dims", "dtype", "layout")

    def __init__(self, dims=None, dtype=None, layout=DataLayout.ALL_LAYOUT):
        self.dims = dims
        self.dtype = dtype
        self.layout = layout

    def set_dims(self, dims) -> None:
        self.dims = tuple(dims)

    def set_dtype(self, dtype) -> None:
        self.dtype = dtype

    def share_meta(self, other) -> None:
        # dims of DenseTensor and MetaTensor are tuples already; InferMeta runs per op call.
        self.dims = other.dims
        self.dtype = other.dtype
        self.layout = other.layout

    @property
    def ndim(self) -> int:
        return len(self.dims)

    def __repr__(self):
        return f"MetaTensor(dims={list(self.dims) if self.dims is not None else None}, dtype={dtype_name(self.dtype)})"
