"""phi: the operator library. Tensors, kernels and InferMeta, with no autograd.

Usable on its own through :mod:`phi.api` (generated from ops.yaml and
backward.yaml): ``phi.api.add(DenseTensor(a), DenseTensor(b))``.
"""
from . import kernels  # noqa: F401  (registers kernels)
from .common import (
    Backend, CPUPlace, CUDAPinnedPlace, DataLayout, DataType, GPUPlace, IntArray, Place, Scalar, convert_dtype,
    convert_place,
)
from .core import KERNELS, DenseTensor, MetaTensor, register_kernel
