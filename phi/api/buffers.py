"""phi API functions on buffers that are not ops of ops.yaml.

- ``assign_out_(x, out)``: x's values written into out's existing buffer, as an
  inplace op needs (views of out see the change); out's version is bumped.
- ``nan_inf_count(x)``: how many NaN and Inf values x holds, as Python ints
  (anomaly mode; it waits for the device).
"""
from __future__ import annotations

from ..core import KERNELS
from ..core.errors import InvalidArgumentError, describe_tensor

_assign_out_kernel = KERNELS.dispatch_table("assign_out_")
_nan_inf_count_kernel = KERNELS.dispatch_table("nan_inf_count")


def assign_out_(x, out):
    """Writes x into out's buffer (same dims and dtype) and returns out."""
    if tuple(x.dims) != tuple(out.dims) or x.dtype is not out.dtype or x.place != out.place:
        raise InvalidArgumentError(
            f"assign_out_: argument 'x' must match 'out' exactly (no broadcasting or casting): "
            f"expected {describe_tensor(out)}, got {describe_tensor(x)}")
    if x.array is not out.array:
        _assign_out_kernel[type(out.array), out.array.dtype](x.array, out.array)
    out.bump_version()
    return out


def nan_inf_count(x) -> tuple:
    """(number of NaN, number of Inf) in x; (0, 0) for a dtype that cannot hold them."""
    if not (x.dtype.is_floating_point or x.dtype.is_complex) or x.numel == 0:
        return 0, 0
    counts = _nan_inf_count_kernel[type(x.array), x.array.dtype](x.array)
    nan, inf = (int(c) for c in counts.tolist())
    return nan, inf


__all__ = ["assign_out_", "nan_inf_count"]
