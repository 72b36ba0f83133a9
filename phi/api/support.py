"""Runtime support for the generated phi API."""
from __future__ import annotations

import numpy as np

from ..backends.gpu_context import import_cupy
from ..common.data_type import DataType
from ..common.tensor_kind import TensorKind
from ..core.dense_tensor import ArraySpec, DenseTensor
from ..core.errors import (InvalidArgumentError, NoDataError, NotFoundError, PhiError, PreconditionNotMetError,
                           UnimplementedError)
from ..core.kernel_registry import KERNELS
from ..core.tensor_base import TensorBase


class Flags:
    """Debug switches. ``check_infer_meta`` compares every kernel result with what
    InferMeta predicted (the test suite turns it on)."""

    __slots__ = ("check_infer_meta",)

    def __init__(self):
        self.check_infer_meta = False


FLAGS = Flags()


def array_type_of(place):
    """The array type a place computes with: numpy.ndarray (the CPU, and pinned
    host memory, whose results are the CPU's) or cupy.ndarray."""
    if not place.is_gpu_place():
        return np.ndarray
    return import_cupy().ndarray


def as_array(value, array_type):
    """NumPy ufuncs return scalars for 0-d inputs; phi keeps 0-d arrays."""
    if array_type is np.ndarray:
        return np.asarray(value)
    return import_cupy().asarray(value)


def off_place(tensors, array_type) -> bool:
    """Whether any tensor of a Tensor[] input holds an array other than ``array_type``."""
    for t in tensors:
        if type(t.array) is not array_type:
            return True
    return False


def same_place(names: tuple, values: tuple) -> tuple:
    """``values`` (an op's tensor inputs, by argument ``names``; a Tensor[] input is
    a list, an optional one may be None) on one place, or an InvalidArgumentError
    naming both places (the generated caller adds the op's name).

    The generated phi API calls this only when an input's array type differs
    from the kernel's (its hot path compares types). A 0-d CPU tensor beside GPU
    tensors is moved to the device (Paddle accepts a CPU scalar tensor there);
    any other mix is an error, since moving it would hide a transfer per call.
    """
    flat = [(f"{n}[{i}]" if isinstance(v, list) else n, t) for n, v in zip(names, values)
            for i, t in enumerate(v if isinstance(v, list) else (v,)) if t is not None]
    empty = next((n for n, t in flat if type(t.array) is ArraySpec), None)
    if empty is not None:  # its array type differs from the others' because it has no array
        raise NoDataError(f"argument '{empty}' holds no data (shape and dtype only: not initialized; a "
                          f"parameter made under LazyGuard gets its values from initialize())")
    device = next((t for _, t in flat if type(t.array) is not np.ndarray), None)
    if device is None:
        return values
    device_type = type(device.array)
    device_name = next(n for n, t in flat if t is device)

    def move(name, t):
        if t is None or type(t.array) is device_type:
            return t
        if type(t.array) is np.ndarray and t.array.ndim == 0:
            with import_cupy().cuda.Device(device.place.device_id):  # the GPU inputs' device
                return DenseTensor(as_array(t.array, device_type))
        raise InvalidArgumentError(
            f"argument '{name}' is on {t.place} but argument '{device_name}' is on {device.place}; "
            f"an op's tensor inputs must share a place (move one with .cuda(), .cpu() or .to())")

    return tuple([move(f"{n}[{i}]", t) for i, t in enumerate(v)] if isinstance(v, list) else move(n, v)
                 for n, v in zip(names, values))


def verify_infer_meta(op: str, metas, arrays) -> None:
    """Raises if a kernel's result disagrees with its InferMeta (a bug in one of them).

    A result is an array, or a TensorBase (a kernel of another tensor kind may
    return a SelectedRows), whose dims are those of the tensor it stands for.
    """
    for index, (meta, array) in enumerate(zip(metas, arrays)):
        if array is None:
            continue
        if isinstance(array, list):  # a Tensor[] output: one MetaTensor per element
            if len(meta) != len(array):
                raise PreconditionNotMetError(
                    f"{op}: output {index} has {len(array)} tensors but InferMeta said {len(meta)}")
            verify_infer_meta(op, meta, array)
            continue
        if isinstance(array, TensorBase):
            dims, dtype = tuple(array.dims), array.dtype
        else:
            dims, dtype = tuple(array.shape), DataType.from_numpy(array.dtype)
        if (meta.dims is not None and tuple(meta.dims) != dims) or \
                (meta.dtype is not None and dtype is not meta.dtype):
            raise PreconditionNotMetError(
                f"{op}: output {index} is {dtype}{list(dims)} but InferMeta said {meta.dtype}{list(meta.dims)}"
            )


# -- tensors of other kinds -----------------------------------------------------------
# The generated phi API serves a DenseTensor inline (its hot path). When the
# tensor that selects the kernel is of another kind (a SelectedRows), the
# generated function hands the whole call to call_kernel_of_kind, which selects
# the kernel registered for that kind under the same name.

def kernel_input(value):
    """What a kernel receives for an argument: a DenseTensor as its array, a tensor
    of another kind as itself (a SelectedRows kernel reads rows, value and height),
    a list of tensors element by element, anything else (an attribute) as it is."""
    if isinstance(value, TensorBase):
        return value.array if value.kind is TensorKind.DENSE else value
    if isinstance(value, list) and value and isinstance(value[0], TensorBase):
        return [kernel_input(v) for v in value]
    return value


def wrap_result(value, array_type):
    """A kernel result as a phi tensor: an array becomes a DenseTensor (on the
    call's array type), a TensorBase stays as it is, None (masked out) stays None."""
    if value is None or isinstance(value, TensorBase):
        return value
    if isinstance(value, list):
        return [wrap_result(v, array_type) for v in value]
    return DenseTensor(value if type(value) is array_type else as_array(value, array_type))


def call_kernel_of_kind(op: str, kernel_name: str, selector, args: tuple, metas: list,
                        inputs: dict, **kernel_kwargs):
    """Runs op ``op`` for a ``selector`` tensor of a kind other than dense.

    The kernel is the one registered as ``kernel_name`` for ``selector.kind``
    (``register_kernel(..., kind=...)``) and the backend and dtype of its
    arrays. ``args`` are the kernel's arguments as the op got them (tensors and
    attributes); ``metas`` what InferMeta predicted, one per output; ``inputs``
    the op's tensor inputs by name, for error messages. Returns what the
    generated function returns: one tensor, or a tuple for several outputs.

    No kernel for the kind is an UnimplementedError that names the op and says
    how to get a dense tensor, raised before anything runs.
    """
    array_type, np_dtype = selector.dispatch_key
    try:
        kernel = KERNELS.dispatch_table(kernel_name, selector.kind)[array_type, np_dtype]
    except NotFoundError as error:
        hint = ("phi.api.selected_rows_to_dense" if selector.kind is TensorKind.SELECTED_ROWS
                else "to_dense() (or use the sparse ops of eager.sparse)")
        raise UnimplementedError(
            f"no kernel for a {selector.kind} input ({error.args[0]}); convert it with "
            f"{hint} first").in_op(op, **inputs) from None
    try:
        results = kernel(*[kernel_input(a) for a in args], **kernel_kwargs)
    except PhiError as error:
        raise error.in_op(op, **inputs) from None
    results = [results] if len(metas) == 1 else list(results)
    outputs = [wrap_result(r, array_type) for r in results]
    if FLAGS.check_infer_meta:
        verify_infer_meta(op, metas, outputs)
    return outputs[0] if len(outputs) == 1 else tuple(outputs)
