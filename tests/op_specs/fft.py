"""The op table of the fft group: fft_c2c, fft_r2c, fft_c2r and their gradients.

The forward references are numpy.fft in complex128 (fftn / ifftn cropped to the
onesided bins, irfftn, and hfft after fftn for the forward real transform); the
gradients' references are the vector-Jacobian products of those references built
one basis vector at a time (:func:`_vjp`), with the project's convention for
complex inputs (d/d re + i d/d im of the real loss sum(re g * re f + im g * im f)).

Complex inputs and outputs are outside gradcheck's reach, so these rows have
grad=False; tests/test_fft.py checks every primitive's first and second
derivatives against finite differences through its real and imaginary parts.
"""
from __future__ import annotations

import numpy as np

import eager
from eager.generated import forward_api as F

from .core import FLOATS, Case, OpSpec

COMPLEX = ("complex64", "complex128")
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def _with_imaginary(arrays, attrs):
    """Complex inputs get an imaginary part (the table draws real values)."""
    return [a + 1j * np.sin(2.0 * a.real + 0.5).astype(a.dtype) if a.dtype.kind == "c" else a for a in arrays]


def _last(axes, ndim):
    return axes[-1] % ndim


def _c2c_ref(x, axes, normalization, forward):
    return (np.fft.fftn if forward else np.fft.ifftn)(x.astype(np.complex128), axes=axes, norm=normalization)


def _r2c_ref(x, axes, normalization, forward, onesided):
    full = (np.fft.fftn if forward else np.fft.ifftn)(x.astype(np.complex128), axes=axes, norm=normalization)
    if onesided:
        axis = _last(axes, x.ndim)
        full = np.take(full, np.arange(x.shape[axis] // 2 + 1), axis=axis)
    return full


def _c2r_ref(x, axes, normalization, forward, last_dim_size=0):
    axis = _last(axes, x.ndim)
    n = last_dim_size or 2 * (x.shape[axis] - 1)
    x = x.astype(np.complex128)
    leading = [a % x.ndim for a in axes[:-1]]
    if forward:
        if leading:
            x = np.fft.fftn(x, axes=leading, norm=normalization)
        return np.fft.hfft(x, n, axis=axis, norm=normalization)
    return np.fft.irfftn(x, [x.shape[a] for a in leading] + [n], axes=leading + [axis], norm=normalization)


def ref_fft_c2c(x, axes, normalization, forward):
    return _c2c_ref(x, axes, normalization, forward).astype(x.dtype)


def ref_fft_r2c(x, axes, normalization, forward, onesided):
    return _r2c_ref(x, axes, normalization, forward, onesided).astype(_COMPLEX_OF[x.dtype])


def ref_fft_c2r(x, axes, normalization, forward, last_dim_size=0):
    return _c2r_ref(x, axes, normalization, forward, last_dim_size).astype(_REAL_OF[x.dtype])


def _vjp(f, x_shape, x_complex: bool, g):
    """The gradient of the real loss <g, f(x)> with respect to x, f linear over the reals:
    entry k is <g, f(e_k)> (plus i <g, f(i e_k)> for a complex x)."""
    g = np.asarray(g, np.complex128)
    size = int(np.prod(x_shape, dtype=np.int64))
    out = np.zeros(size, np.complex128 if x_complex else np.float64)

    def inner(image):
        image = np.asarray(image, np.complex128)
        return float(np.sum(g.real * image.real + g.imag * image.imag))

    for k in range(size):
        basis = np.zeros(size, np.complex128 if x_complex else np.float64)
        basis[k] = 1.0
        out[k] = inner(f(basis.reshape(x_shape)))
        if x_complex:
            basis[k] = 1j
            out[k] += 1j * inner(f(basis.reshape(x_shape)))
    return out.reshape(x_shape)


def ref_fft_c2c_grad(out_grad, axes, normalization, forward):
    return _vjp(lambda v: _c2c_ref(v, axes, normalization, forward), out_grad.shape, True,
                out_grad).astype(out_grad.dtype)


def ref_fft_r2c_grad(x, out_grad, axes, normalization, forward, onesided):
    return _vjp(lambda v: _r2c_ref(v, axes, normalization, forward, onesided), x.shape, False,
                out_grad).astype(x.dtype)


def ref_fft_c2r_grad(out_grad, axes, normalization, forward):
    axis = _last(axes, out_grad.ndim)
    n = out_grad.shape[axis]
    shape = list(out_grad.shape)
    shape[axis] = n // 2 + 1
    return _vjp(lambda v: _c2r_ref(v, axes, normalization, forward, n), tuple(shape), True,
                out_grad).astype(_COMPLEX_OF[out_grad.dtype])


def _close(reference):
    """A check comparing with ``reference`` at the precision of the result (test_ops'
    tolerances are exact for complex dtypes): single precision within a few ulp of the
    largest value, double to rounding."""
    def check(got, *inputs, **attrs):
        want = reference(*inputs, **attrs)
        single = got.dtype in (np.float32, np.complex64)
        tol = 2e-6 if single else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, float(np.abs(want).max(initial=0))))
    return check


def _attrs(axes, normalization, forward, **more):
    return {"axes": axes, "normalization": normalization, "forward": forward, **more}


C2C_CASES = (
    Case(((3, 4),), _attrs([1], "backward", True)),
    Case(((3, 4),), _attrs([0, 1], "ortho", True)),
    Case(((3, 4),), _attrs([-1, 0], "forward", False)),
    Case(((5,),), _attrs([0], "backward", False)),
    Case(((2, 3, 4),), _attrs([2, 0], "ortho", False)),
    Case(((2, 3, 4),), _attrs([0, 1, 2], "forward", True)),
    Case(((0, 3),), _attrs([1], "backward", True)),
)

R2C_CASES = (
    Case(((3, 4),), _attrs([1], "backward", True, onesided=True)),
    Case(((3, 5),), _attrs([0, 1], "ortho", True, onesided=True)),
    Case(((3, 5),), _attrs([1, 0], "forward", False, onesided=True)),
    Case(((4, 3),), _attrs([-1], "backward", False, onesided=False)),
    Case(((2, 3, 4),), _attrs([2, 0], "ortho", True, onesided=False)),
    Case(((6,),), _attrs([0], "forward", True, onesided=True)),
    Case(((0, 4),), _attrs([1], "backward", True, onesided=True)),
)

# (input shape, attributes): the input holds n//2+1 bins along the last axis in axes.
C2R_CASES = (
    Case(((3, 3),), _attrs([1], "backward", False)),             # n = 2 * (3 - 1) = 4
    Case(((3, 3),), _attrs([1], "backward", False, last_dim_size=5)),
    Case(((3, 4),), _attrs([0, 1], "ortho", True, last_dim_size=7)),
    Case(((3, 4),), _attrs([1, 0], "forward", True)),            # the halved axis is 0: n = 4
    Case(((2, 3, 3),), _attrs([0, 2], "ortho", False, last_dim_size=4)),
    Case(((1,),), _attrs([0], "backward", True, last_dim_size=1)),
    Case(((0, 3),), _attrs([1], "backward", False)),
)


def _grad_cases(cases, shape_of):
    return tuple(Case(shape_of(c), {k: v for k, v in c.attrs.items() if k != "last_dim_size"})
                 for c in cases)


def _out_shape_r2c(case):
    (shape,) = case.shapes
    out = list(shape)
    if case.attrs["onesided"]:
        axis = _last(case.attrs["axes"], len(shape))
        out[axis] = shape[axis] // 2 + 1
    return (shape, tuple(out))


def _out_shape_c2r(case):
    (shape,) = case.shapes
    axis = _last(case.attrs["axes"], len(shape))
    out = list(shape)
    out[axis] = case.attrs.get("last_dim_size") or 2 * (shape[axis] - 1)
    return (tuple(out),)


def _complex_second(arrays, attrs):
    """r2c_grad: x real, out_grad complex (drawn real, given an imaginary part)."""
    x, g = arrays
    g = g.astype(_COMPLEX_OF[g.dtype])
    return [x, g + 1j * np.cos(3.0 * g.real).astype(g.dtype)]


SPECS: list = [
    OpSpec("fft_c2c", eager.ops.fft_c2c, ref_fft_c2c, ("real",), C2C_CASES, dtypes=COMPLEX, grad=False,
           check=_close(ref_fft_c2c), prepare=_with_imaginary),
    OpSpec("fft_r2c", eager.ops.fft_r2c, ref_fft_r2c, ("real",), R2C_CASES, dtypes=FLOATS, grad=False,
           check=_close(ref_fft_r2c)),
    OpSpec("fft_c2r", eager.ops.fft_c2r, ref_fft_c2r, ("real",), C2R_CASES, dtypes=COMPLEX, grad=False,
           check=_close(ref_fft_c2r), prepare=_with_imaginary),
    OpSpec("fft_c2c_grad", F.fft_c2c_grad, ref_fft_c2c_grad, ("real",), C2C_CASES[:-1], dtypes=COMPLEX,
           grad=False, check=_close(ref_fft_c2c_grad), prepare=_with_imaginary),
    OpSpec("fft_r2c_grad", F.fft_r2c_grad, ref_fft_r2c_grad, ("real", "real"),
           _grad_cases(R2C_CASES[:-1], _out_shape_r2c), dtypes=FLOATS, grad=False,
           check=_close(ref_fft_r2c_grad), prepare=_complex_second),
    OpSpec("fft_c2r_grad", F.fft_c2r_grad, ref_fft_c2r_grad, ("real",),
           _grad_cases(C2R_CASES[:-1], _out_shape_c2r), dtypes=FLOATS, grad=False,
           check=_close(ref_fft_c2r_grad)),
]
