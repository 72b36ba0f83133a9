"""cuBLAS called directly for the GPU's plain matrix products and column sums.

A small model's GPU step is bound by the host (docs/gpu.md): every CuPy call
costs it 10-40 us however small the arrays. Two of the dearest calls in a
training step are matmul and the bias gradient's column sum. Measured on an
H200 (CuPy 14.2, float32, the MLP's shapes): ``a @ b`` costs the host 18-31 us,
of which cuBLAS's sgemm is 12-23 us. The rest is CuPy's gufunc dispatch and
tensordot's layout logic. ``a.sum(axis=0)`` costs 21 us, and the same sums as
a gemv against a ones vector 9 us. Here each is one call into CuPy's own cuBLAS
bindings (``cupy_backends.cuda.libs.cublas``) on a handle of our own per thread
and device (host pointer mode, set to the current stream at every call), so
CuPy's handle and its settings are never touched.

:func:`matmul` takes the product of two 2-D float32 or float64 matrices, each
C- or F-contiguous (a transposed view is F-contiguous), into a new C-contiguous
array or a C-contiguous ``out``. Its values are CuPy's matmul's bit for bit, as
CuPy issues the same sgemm/dgemm (checked on the H200 at five shapes). Anything
else takes ``xp.matmul``: other dtypes, other layouts, empty dimensions, sizes
past cuBLAS's 32-bit integers, and an array module without the bindings.
:func:`column_sums` gives ``a.sum(axis=0)`` of a C-contiguous float32 or float64
matrix. Its values come from cuBLAS's gemv, whose order of addition is not
CuPy's reduction's, so they can differ from ``a.sum(axis=0)`` in the last bits,
as any two GPU reductions may.

Row-major and column-major: cuBLAS reads column-major matrices, and a
row-major (C-contiguous) r x c matrix is the column-major c x r matrix, its
transpose. So C = A @ B (row-major) is computed as C^T = B^T A^T (column-major):
the operands swap places, and an F-contiguous operand is passed transposed.
"""
from __future__ import annotations

import importlib
import threading

import numpy as np

_INT_MAX = 2 ** 31 - 1
_HOST_SCALARS = {np.dtype(np.float32): (np.ones((), np.float32), np.zeros((), np.float32)),
                 np.dtype(np.float64): (np.ones((), np.float64), np.zeros((), np.float64))}
# Per array module: CuPy's cuBLAS bindings or None. Per thread and device: (handle,
# {dtype: ones vector}), as cuBLAS asks for a handle per thread (two threads on other
# streams would otherwise race between one's setStream and its call). Filled on first use.
_BINDINGS: dict = {}
_PER_THREAD = threading.local()


def _bindings(xp):
    """CuPy's cuBLAS bindings module, or None where ``xp`` has none (checked once)."""
    bindings = _BINDINGS.get(xp, False)
    if bindings is False:
        try:  # (imported by name: CuPy, and with it its bindings, is optional)
            bindings = importlib.import_module("cupy_backends.cuda.libs.cublas")
        except ImportError:
            bindings = None
        _BINDINGS[xp] = bindings
    return bindings


class _Handle:
    """A cuBLAS handle in host pointer mode and its device's ones vectors (dtype ->
    vector); destroyed with the thread that made it."""

    __slots__ = ("bindings", "handle", "ones")

    def __init__(self, bindings):
        self.bindings = bindings
        self.handle = bindings.create()
        bindings.setPointerMode(self.handle, bindings.CUBLAS_POINTER_MODE_HOST)
        self.ones = {}

    def __del__(self):
        try:
            self.bindings.destroy(self.handle)
        except Exception:  # noqa: BLE001  (interpreter shutdown: CUDA may be gone already)
            pass


def _handle(xp, bindings):
    """This thread's _Handle for its current device (cuBLAS handles belong to the
    device current at creation), set to the current stream."""
    handles = getattr(_PER_THREAD, "handles", None)
    if handles is None:
        handles = _PER_THREAD.handles = {}
    device = xp.cuda.runtime.getDevice()
    entry = handles.get(device)
    if entry is None:
        entry = handles[device] = _Handle(bindings)
    bindings.setStream(entry.handle, xp.cuda.get_current_stream().ptr)
    return entry


def _layout(a):
    """(transposed for cuBLAS, leading dimension) of a 2-D operand, or None when it
    is neither C- nor F-contiguous. A C-contiguous r x c matrix is read as its
    column-major transpose (not transposed back, ld c); an F-contiguous one is
    column-major already (transposed, ld r)."""
    flags = a.flags
    if flags.c_contiguous:
        return 0, max(a.shape[1], 1)
    if flags.f_contiguous:
        return 1, max(a.shape[0], 1)
    return None


def matmul(xp, a, b, out=None):
    """``xp.matmul(a, b, out=out)``, by one cuBLAS gemm where it can (see the module doc)."""
    bindings = _bindings(xp)
    dtype = a.dtype
    if (bindings is None or a.ndim != 2 or b.ndim != 2 or b.dtype != dtype or dtype not in _HOST_SCALARS
            or out is not None and (out.dtype != dtype or not out.flags.c_contiguous)):
        return xp.matmul(a, b, out=out)
    (m, k), (k2, n) = a.shape, b.shape
    if k != k2 or not (0 < m <= _INT_MAX and 0 < n <= _INT_MAX and 0 < k <= _INT_MAX):
        return xp.matmul(a, b, out=out)
    layout_a, layout_b = _layout(a), _layout(b)
    if layout_a is None or layout_b is None:
        return xp.matmul(a, b, out=out)
    if out is None:
        out = xp.empty((m, n), dtype)
    elif out.shape != (m, n):
        return xp.matmul(a, b, out=out)
    handle = _handle(xp, bindings).handle
    one, zero = _HOST_SCALARS[dtype]
    gemm = bindings.sgemm if dtype == np.float32 else bindings.dgemm
    # Column-major C^T (n x m) = op(B^T) (n x k) @ op(A^T) (k x m); see the module doc.
    gemm(handle, layout_b[0], layout_a[0], n, m, k, one.ctypes.data, b.data.ptr, layout_b[1],
         a.data.ptr, layout_a[1], zero.ctypes.data, out.data.ptr, n)
    return out


def _ones(xp, cache, dtype, length):
    """A device vector of at least ``length`` ones of ``dtype`` (one per handle and
    dtype, grown by doubling, never written)."""
    ones = cache.get(dtype)
    if ones is None or ones.size < length:
        ones = cache[dtype] = xp.ones(max(length, 2 * (0 if ones is None else ones.size), 64), dtype)
    return ones


def column_sums(xp, a, out=None):
    """``a.sum(axis=0)`` of a 2-D matrix (into ``out`` when given), by one cuBLAS
    gemv against a ones vector where it can (see the module doc)."""
    bindings = _bindings(xp)
    dtype = a.dtype
    rows, cols = a.shape if a.ndim == 2 else (0, 0)
    if (bindings is None or a.ndim != 2 or dtype not in _HOST_SCALARS or not a.flags.c_contiguous
            or not (0 < rows <= _INT_MAX and 0 < cols <= _INT_MAX)
            or out is not None and (out.dtype != dtype or out.shape != (cols,) or not out.flags.c_contiguous)):
        return a.sum(axis=0) if out is None else xp.sum(a, axis=0, out=out)
    entry = _handle(xp, bindings)
    handle, ones = entry.handle, _ones(xp, entry.ones, dtype, rows)
    if out is None:
        out = xp.empty((cols,), dtype)
    one, zero = _HOST_SCALARS[dtype]
    gemv = bindings.sgemv if dtype == np.float32 else bindings.dgemv
    # Column-major, a is the cols x rows matrix a^T: out = a^T @ ones, the sum of each column of a.
    gemv(handle, 0, cols, rows, one.ctypes.data, a.data.ptr, cols, ones.data.ptr, 1, zero.ctypes.data,
         out.data.ptr, 1)
    return out


__all__ = ["column_sums", "matmul"]
