"""Tensors, meta, kernel keys and the kernel registry."""
from .dense_tensor import ArraySpec, DenseTensor, VersionCounter
from .errors import (
    AxisError, InvalidArgumentError, InvalidDtypeError, InvalidTypeError, NegativeCountError, NotFoundError,
    OutOfRangeError, PhiError, PreconditionNotMetError, UnimplementedError, UnsupportedDtypeError,
    UnsupportedInputDtypeError,
)
from .kernel_registry import KERNELS, Kernel, KernelFactory, KernelKey, register_kernel
from .meta_tensor import MetaTensor
from .selected_rows import SelectedRows
from .tensor_base import TensorBase
