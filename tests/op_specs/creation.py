"""The op table of the creation ops."""
from __future__ import annotations

import math

import numpy as np

import eager
from eager.generated import forward_api as F  # noqa: F401

from .core import FLOATS, INTS, Case, D, OpSpec, linear_vjp

ALL = ("bool",) + INTS + FLOATS


def _np_dtype(dtype, default):
    return np.dtype(default) if dtype is None else dtype.numpy_dtype


# -- references, written from the definitions -----------------------------------------

def ref_arange(start=0, end=None, step=1, dtype=None):
    if end is None:
        start, end = 0, start
    ints = all(isinstance(v, int) for v in (start, end, step))
    out_dtype = _np_dtype(dtype, "int64" if ints else "float32")
    if out_dtype.kind in "iu":
        start, end, step = int(start), int(end), int(step)
    count = max(0, math.ceil((end - start) / step))
    return np.array([start + k * step for k in range(count)], dtype=np.float64).astype(out_dtype)


def ref_linspace(start, stop, num, dtype=None):
    step = (stop - start) / (num - 1) if num > 1 else 0.0
    values = np.array([start + k * step for k in range(num)], dtype=np.float64)
    if num > 1:
        values[-1] = stop
    out_dtype = _np_dtype(dtype, "float32")
    return (np.trunc(values) if out_dtype.kind in "iu" else values).astype(out_dtype)


def ref_logspace(start, stop, num, base=10.0, dtype=None):
    values = np.array([float(base) ** v for v in ref_linspace(start, stop, num, D.FLOAT64)], dtype=np.float64)
    out_dtype = _np_dtype(dtype, "float32")
    return (np.trunc(values) if out_dtype.kind in "iu" else values).astype(out_dtype)


def ref_eye(num_rows, num_columns=None, dtype=None):
    columns = num_rows if num_columns is None else num_columns
    out = np.zeros((num_rows, columns), dtype=_np_dtype(dtype, "float32"))
    for k in range(min(num_rows, columns)):
        out[k, k] = 1
    return out


def ref_triangle(x, diagonal=0, lower=True):
    out = x.copy()
    rows, columns = x.shape[-2:]
    for i in range(rows):
        for j in range(columns):
            drop = (j - i > diagonal) if lower else (j - i < diagonal)
            if drop:
                out[..., i, j] = 0
    return out


def ref_diag(x, offset=0, padding_value=0):
    if x.ndim == 1:
        size = x.shape[0] + abs(offset)
        out = np.full((size, size), padding_value, dtype=x.dtype)
        for k, value in enumerate(x):
            out[k + max(-offset, 0), k + max(offset, 0)] = value
        return out
    rows, columns = x.shape
    return np.array([x[i, i + offset] for i in range(rows) if 0 <= i + offset < columns], dtype=x.dtype)


def ref_diagflat(x, offset=0):
    return ref_diag(x.reshape(-1), offset, 0)


def ref_diag_embed(input, offset=0, dim1=-2, dim2=-1):
    ndim = input.ndim + 1
    first, second = dim1 % ndim, dim2 % ndim
    n = input.shape[-1]
    size = n + abs(offset)
    out_shape = list(input.shape[:-1])
    for axis in sorted((first, second)):
        out_shape.insert(axis, size)
    out = np.zeros(out_shape, dtype=input.dtype)
    for batch in np.ndindex(*input.shape[:-1]):
        for k in range(n):
            index = list(batch)
            position = {first: k + max(-offset, 0), second: k + max(offset, 0)}
            for axis in sorted(position):
                index.insert(axis, position[axis])
            out[tuple(index)] = input[batch + (k,)]
    return out


def ref_meshgrid(*xs):
    sizes = [x.size for x in xs]
    outs = []
    for k, x in enumerate(xs):
        out = np.empty(sizes, dtype=x.dtype)
        for index in np.ndindex(*sizes):
            out[index] = x.reshape(-1)[index[k]]
        outs.append(out)
    return tuple(outs)


def ref_meshgrid_grad(a, b, c, ga, gb, gc):
    xs, grads = (a, b, c), (ga, gb, gc)
    return tuple(linear_vjp(lambda v, k=k: ref_meshgrid(*[v if j == k else xs[j] for j in range(3)])[k],
                            xs[k].shape, grads[k], xs[k].dtype) for k in range(3))


def _complex_of(dtype):
    return np.dtype(np.complex64) if dtype == np.float32 else np.dtype(np.complex128)


def ref_complex(real, imag):
    shape = np.broadcast_shapes(real.shape, imag.shape)
    out = np.empty(shape, _complex_of(real.dtype))
    for index in np.ndindex(*shape):
        r = real[tuple(i if n > 1 else 0 for i, n in zip(index[len(shape) - real.ndim:], real.shape))]
        m = imag[tuple(i if n > 1 else 0 for i, n in zip(index[len(shape) - imag.ndim:], imag.shape))]
        out[index] = complex(r, m)
    return out


def _complex_out_grad(arrays, attrs):
    real, imag, out_grad = arrays
    return [real, imag, (out_grad * (1 - 0.5j)).astype(_complex_of(out_grad.dtype))]


def _shape_only(got, *inputs, **attrs):
    """empty's values are whatever the memory held: nothing to check beyond the
    dtype and shape, which the checker compares before calling this."""


def _empty_ref(shape, dtype=None):
    return np.zeros(shape, _np_dtype(dtype, "float32"))


# -- random ops: what every sample must satisfy ---------------------------------------------
# The checker seeds the generators from the test's identity, so each check sees
# one fixed sample; the moment tolerances are still several standard errors wide.

def _sample_like(shape_and_dtype, default="float32"):
    def reference(*args, **attrs):
        shape, dtype = shape_and_dtype(*args, **attrs)
        return np.empty(tuple(shape), _np_dtype(dtype, default))
    return reference


def check_uniform(got, shape=None, dtype=None, min=-1.0, max=1.0, seed=0):
    values = got.astype(np.float64)
    assert np.all((values >= min) & (values < max)), (values.min(), values.max())
    if values.size >= 500:
        width = max - min
        assert abs(values.mean() - (min + max) / 2) < 0.05 * width
        assert abs(values.var() - width ** 2 / 12) < 0.1 * width ** 2 / 12


def check_normal(got, shape=None, mean=0.0, std=1.0, seed=0, dtype=None):
    values = got.astype(np.float64)
    assert np.all(np.isfinite(values))
    if std == 0:
        np.testing.assert_array_equal(values, np.full(values.shape, mean, got.dtype))
    elif values.size >= 500:
        assert abs(values.mean() - mean) < 0.15 * std, values.mean()
        assert abs(values.std() - std) < 0.08 * std, values.std()


def check_randint(got, *inputs, low=0, high=None, shape=None, dtype=None):
    if high is None:
        low, high = 0, low
    values = got.astype(np.float64) if got.dtype.kind == "f" else got.astype(object)
    assert np.all(values == np.floor(values)) if got.dtype.kind == "f" else True
    assert all(low <= v < high for v in values.reshape(-1)), (low, high)
    if got.size >= 500 and high - low <= 10:
        assert set(np.unique(got).astype(np.int64).tolist()) == set(range(low, high))


def check_randperm(got, n, dtype=None):
    np.testing.assert_array_equal(np.sort(got), np.arange(n, dtype=got.dtype))
    if n >= 20:
        assert np.any(got != np.arange(n)), "a permutation of 20 or more came out sorted"


def check_bernoulli(got, x):
    assert set(np.unique(got).tolist()) <= {0.0, 1.0}
    if got.size >= 500:
        assert abs(got.astype(np.float64).mean() - x.astype(np.float64).mean()) < 0.03


def check_poisson(got, x):
    assert np.all(got >= 0) and np.all(got == np.floor(got))
    if got.size >= 500:
        assert abs(got.astype(np.float64).mean() - x.astype(np.float64).mean()) < 0.07


def _binomial_prepare(arrays, attrs):
    count, prob = arrays  # whole trial counts 5 .. 20 from the drawn positive values
    return [np.round(count * 10).astype(count.dtype), prob]


def check_binomial(got, count, prob):
    count, prob = np.broadcast_arrays(count.astype(np.float64), prob.astype(np.float64))
    assert got.dtype == np.int64 and got.shape == count.shape
    assert np.all((got >= 0) & (got <= count))
    if got.size >= 500:  # the mean of the successes against sum(n p), within 5 standard errors
        assert abs(got.sum() - (count * prob).sum()) < 5 * np.sqrt((count * prob * (1 - prob)).sum())


def check_multinomial(got, x, num_samples=1, replacement=False):
    categories = x.shape[-1]
    assert np.all((got >= 0) & (got < categories))
    rows = got.reshape(-1, num_samples)
    if not replacement:
        for row in rows:
            assert len(set(row.tolist())) == num_samples, row
    elif num_samples >= 1000:
        weights = x.astype(np.float64).reshape(-1, categories)
        for row, w in zip(rows, weights):
            frequencies = np.bincount(row, minlength=categories) / num_samples
            np.testing.assert_allclose(frequencies, w / w.sum(), atol=0.05)


TRIANGLE_CASES = (
    Case(((3, 4),), {"diagonal": 0}),
    Case(((4, 3),), {"diagonal": 1}),
    Case(((2, 3, 4),), {"diagonal": -1}),
    Case(((3, 3),), {"diagonal": 5}),
    Case(((3, 3),), {"diagonal": -5}),
    Case(((0, 3),), {"diagonal": 0}),
    Case(((2, 0, 2),), {"diagonal": 0}),
)

SPECS: list = [
    OpSpec("arange", eager.arange, ref_arange, (),
           (Case((), {"start": 0, "end": 5, "step": 1, "dtype": None}),
            Case((), {"start": 5}),
            Case((), {"start": 0.5, "end": 3, "step": 0.5}),
            Case((), {"start": 10, "end": 2, "step": -3}),
            Case((), {"start": 1, "end": 1}),
            Case((), {"start": 0, "end": 1, "step": 0.1, "dtype": D.FLOAT64}),
            Case((), {"start": 0.5, "end": 4.9, "step": 1.5, "dtype": D.INT32}),
            Case((), {"start": -2, "end": 2, "dtype": D.FLOAT32})),
           dtypes=("float64",), grad=False),
    OpSpec("zeros_like", eager.zeros_like, lambda x, dtype=None: np.zeros(x.shape, _np_dtype(dtype, x.dtype)),
           ("real",), (Case(((3, 4),)), Case(((),)), Case(((0, 2),)), Case(((2, 3),), {"dtype": D.BOOL})),
           dtypes=ALL, grad=False),
    OpSpec("ones_like", eager.ones_like, lambda x, dtype=None: np.ones(x.shape, _np_dtype(dtype, x.dtype)),
           ("real",), (Case(((3, 4),)), Case(((),)), Case(((0, 2),)), Case(((2, 3),), {"dtype": D.INT32})),
           dtypes=ALL, grad=False),
    OpSpec("empty", eager.empty, _empty_ref, (),
           (Case((), {"shape": [2, 3]}), Case((), {"shape": []}), Case((), {"shape": [0, 4], "dtype": D.INT64}),
            Case((), {"shape": [3], "dtype": D.BOOL})),
           dtypes=("float64",), grad=False, check=_shape_only),
    OpSpec("empty_like", eager.empty_like, lambda x, dtype=None: np.zeros(x.shape, _np_dtype(dtype, x.dtype)),
           ("real",), (Case(((3, 4),)), Case(((),)), Case(((0, 2),), {"dtype": D.FLOAT64})),
           dtypes=ALL, grad=False, check=_shape_only),
    OpSpec("eye", eager.eye, ref_eye, (),
           (Case((), {"num_rows": 3}), Case((), {"num_rows": 2, "num_columns": 4}),
            Case((), {"num_rows": 4, "num_columns": 2, "dtype": D.INT32}), Case((), {"num_rows": 0}),
            Case((), {"num_rows": 3, "num_columns": 0, "dtype": D.BOOL})),
           dtypes=("float64",), grad=False),
    OpSpec("linspace", eager.linspace, ref_linspace, (),
           (Case((), {"start": 0, "stop": 1, "num": 5}), Case((), {"start": -1.5, "stop": 2.5, "num": 9,
                                                                   "dtype": D.FLOAT64}),
            Case((), {"start": 3, "stop": -3, "num": 4, "dtype": D.INT64}), Case((), {"start": 2, "stop": 7, "num": 1}),
            Case((), {"start": 0, "stop": 1, "num": 2})),  # num 0: Paddle refuses it (test_creation_sweep_cases)
           dtypes=("float64",), grad=False),
    OpSpec("logspace", eager.logspace, ref_logspace, (),
           (Case((), {"start": 0, "stop": 3, "num": 4}), Case((), {"start": -1, "stop": 1, "num": 5, "base": 2.0,
                                                                   "dtype": D.FLOAT64}),
            Case((), {"start": 0, "stop": 2, "num": 3, "base": 3, "dtype": D.INT32})),
           dtypes=("float64",), grad=False),
    OpSpec("tril", eager.tril, lambda x, diagonal=0: ref_triangle(x, diagonal, True), ("real",), TRIANGLE_CASES,
           dtypes=ALL),
    OpSpec("triu", eager.triu, lambda x, diagonal=0: ref_triangle(x, diagonal, False), ("real",), TRIANGLE_CASES,
           dtypes=ALL),
    OpSpec("clone", eager.clone, lambda x: x.copy(), ("real",), (Case(((3, 4),)), Case(((),)), Case(((0, 2),))),
           dtypes=ALL),

    OpSpec("diag", eager.diag, ref_diag, ("real",),
           (Case(((3,),), {"offset": 0}), Case(((3,),), {"offset": 2, "padding_value": 7}),
            Case(((2,),), {"offset": -1}), Case(((0,),), {"offset": 1}), Case(((3, 4),), {"offset": 0}),
            Case(((3, 4),), {"offset": 2}), Case(((4, 3),), {"offset": -2}), Case(((2, 3),), {"offset": 5}),
            Case(((0, 3),), {"offset": 0})),
           dtypes=ALL),
    OpSpec("diagflat", eager.diagflat, ref_diagflat, ("real",),
           (Case(((2, 2),), {"offset": 0}), Case(((3,),), {"offset": -1}), Case(((),), {"offset": 2}),
            Case(((0, 2),), {"offset": 1})),
           dtypes=ALL),
    OpSpec("diag_embed", eager.diag_embed, ref_diag_embed, ("real",),
           (Case(((2, 3),), {}), Case(((3,),), {"offset": 1}), Case(((2, 3),), {"offset": -1, "dim1": 0, "dim2": 2}),
            Case(((2, 2, 3),), {"offset": 2, "dim1": -1, "dim2": 1}), Case(((0, 2),), {})),
           dtypes=ALL),
    OpSpec("meshgrid", lambda *xs: eager.meshgrid(list(xs)), ref_meshgrid, ("real", "real", "real"),
           (Case(((3,), (2,), (4,))), Case(((), (3,), (1,))), Case(((2,), (0,), (3,)))),
           dtypes=ALL),
    OpSpec("fill", eager.fill, lambda x, value: np.full(x.shape, value, x.dtype), ("real",),
           (Case(((3, 4),), {"value": 2.5}), Case(((),), {"value": -1}), Case(((0, 2),), {"value": 1}),
            Case(((2, 3),), {"value": True})),
           dtypes=ALL),
    OpSpec("zero", eager.zero, lambda x: np.zeros(x.shape, x.dtype), ("real",),
           (Case(((3, 4),)), Case(((),)), Case(((0, 2),))), dtypes=ALL),

    # complex outputs are outside gradcheck's reach: tests/test_creation.py checks the gradients.
    OpSpec("complex", eager.complex, ref_complex, ("real", "real"),
           (Case(((3, 4), (3, 4))), Case(((2, 1), (3,))), Case(((), ())), Case(((0, 2), (2,)))),
           grad=False),

    # -- random ops (phi/kernels/sampling): values checked by their properties -------------
    OpSpec("uniform", eager.uniform, _sample_like(lambda shape, dtype=None, **_: (shape, dtype)), (),
           (Case((), {"shape": [400, 25]}), Case((), {"shape": [3000], "min": 2, "max": 5, "dtype": D.FLOAT64}),
            Case((), {"shape": [2000], "min": -0.5, "max": 0.25, "dtype": D.FLOAT16}),
            Case((), {"shape": []}), Case((), {"shape": [0, 3]}), Case((), {"shape": [500], "seed": 12})),
           dtypes=("float64",), grad=False, check=check_uniform),
    OpSpec("rand", eager.rand, _sample_like(lambda shape, dtype=None, **_: (shape, dtype)), (),
           (Case((), {"shape": [100, 30]}), Case((), {"shape": [2000], "dtype": D.FLOAT64}), Case((), {"shape": []})),
           dtypes=("float64",), grad=False, check=lambda got, **attrs: check_uniform(got, min=0.0, max=1.0)),
    OpSpec("gaussian", eager.gaussian, _sample_like(lambda shape, dtype=None, **_: (shape, dtype)), (),
           (Case((), {"shape": [200, 50], "mean": 1.5, "std": 2.0}), Case((), {"shape": [4000], "dtype": D.FLOAT64}),
            Case((), {"shape": [3000], "mean": -3, "std": 0.5, "dtype": D.FLOAT16}),
            Case((), {"shape": [5], "std": 0.0}), Case((), {"shape": [0]}), Case((), {"shape": [3000], "seed": 3})),
           dtypes=("float64",), grad=False, check=check_normal),
    OpSpec("randn", eager.randn, _sample_like(lambda shape, dtype=None, **_: (shape, dtype)), (),
           (Case((), {"shape": [100, 40]}), Case((), {"shape": [3000], "dtype": D.FLOAT64}), Case((), {"shape": []})),
           dtypes=("float64",), grad=False, check=lambda got, **attrs: check_normal(got)),
    OpSpec("standard_normal", eager.standard_normal, _sample_like(lambda shape, dtype=None, **_: (shape, dtype)),
           (), (Case((), {"shape": [100, 40]}), Case((), {"shape": [3000], "dtype": D.FLOAT64})),
           dtypes=("float64",), grad=False, check=lambda got, **attrs: check_normal(got)),
    OpSpec("randint", eager.randint,
           _sample_like(lambda low=0, high=None, shape=(1,), dtype=None: (shape, dtype), "int64"), (),
           (Case((), {"low": 0, "high": 5, "shape": [1000]}), Case((), {"low": 5, "shape": [30, 40]}),
            Case((), {"low": -3, "high": 3, "shape": [2000], "dtype": D.INT32}),
            Case((), {"low": 2 ** 40, "high": 2 ** 40 + 2, "shape": [50]}),
            Case((), {"low": 7, "high": 8, "shape": []}), Case((), {"low": 0, "high": 2, "shape": [0, 2]})),
           dtypes=("float64",), grad=False, check=check_randint),
    OpSpec("randint_like", eager.randint_like, lambda x, low=0, high=None, dtype=None: np.empty(
        x.shape, _np_dtype(dtype, x.dtype)), ("real",),
           (Case(((40, 50),), {"low": -2, "high": 3}), Case(((30,),), {"low": 4}),
            Case(((), ), {"low": 1, "high": 2, "dtype": D.INT32}), Case(((0, 3),), {"low": 0, "high": 1})),
           dtypes=FLOATS + INTS, grad=False, check=check_randint),
    OpSpec("randperm", eager.randperm, lambda n, dtype=None: np.empty((n,), _np_dtype(dtype, "int64")), (),
           (Case((), {"n": 30}), Case((), {"n": 1}), Case((), {"n": 0}), Case((), {"n": 50, "dtype": D.FLOAT32}),
            Case((), {"n": 10, "dtype": D.INT32})),
           dtypes=("float64",), grad=False, check=check_randperm),
    OpSpec("bernoulli", eager.bernoulli, lambda x: np.empty(x.shape, x.dtype), ("unit",),
           (Case(((300, 40),)), Case(((),)), Case(((0, 3),)), Case(((5000,),))),
           dtypes=FLOATS, grad=False, check=check_bernoulli),
    OpSpec("poisson", eager.poisson, lambda x: np.empty(x.shape, x.dtype), ("positive",),
           (Case(((300, 40),)), Case(((),)), Case(((0, 3),))),
           dtypes=FLOATS, grad=False, check=check_poisson),
    OpSpec("binomial", eager.binomial, lambda n, p: np.empty(np.broadcast_shapes(n.shape, p.shape), np.int64),
           ("positive", "unit"), (Case(((300, 40), (300, 40))), Case(((), ())), Case(((4, 1), (3,))),
                                  Case(((0, 3), (0, 3)))),
           dtypes=FLOATS, grad=False, prepare=_binomial_prepare, check=check_binomial),
    OpSpec("multinomial", eager.multinomial,
           lambda x, num_samples=1, replacement=False: np.empty(x.shape[:-1] + (num_samples,), np.int64), ("unit",),
           (Case(((4, 6),), {"num_samples": 3}), Case(((5,),), {"num_samples": 5}),
            Case(((5,),), {"num_samples": 4000, "replacement": True}),
            Case(((3, 4),), {"num_samples": 3000, "replacement": True}), Case(((0, 4),), {"num_samples": 2}),
            Case(((7,),), {})),
           dtypes=FLOATS, grad=False, check=check_multinomial),

    # == backward ops (composite-only: called as eager.ops.<name>, differentiable) ==========
    OpSpec("tril_grad", F.tril_grad, lambda g, diagonal=0: ref_triangle(g, diagonal, True), ("real",),
           TRIANGLE_CASES),
    OpSpec("triu_grad", F.triu_grad, lambda g, diagonal=0: ref_triangle(g, diagonal, False), ("real",),
           TRIANGLE_CASES),
    OpSpec("diag_grad", F.diag_grad,
           lambda x, g, offset: linear_vjp(lambda v: ref_diag(v, offset, 0), x.shape, g, g.dtype), ("real", "real"),
           (Case(((3,), (4, 4)), {"offset": 1}), Case(((3, 4), (2,)), {"offset": 2}),
            Case(((4, 3), (3,)), {"offset": -1}), Case(((0,), (1, 1)), {"offset": -1})), wrt=(1,)),
    OpSpec("diagflat_grad", F.diagflat_grad,
           lambda x, g, offset: linear_vjp(lambda v: ref_diagflat(v, offset), x.shape, g, g.dtype), ("real", "real"),
           (Case(((2, 2), (5, 5)), {"offset": 1}), Case(((), (1, 1)), {"offset": 0}),
            Case(((0, 2), (2, 2)), {"offset": -2})), wrt=(1,)),
    OpSpec("diag_embed_grad", F.diag_embed_grad,
           lambda x, g, offset, dim1, dim2: linear_vjp(lambda v: ref_diag_embed(v, offset, dim1, dim2), x.shape, g,
                                                       g.dtype), ("real", "real"),
           (Case(((2, 3), (2, 3, 3)), {"offset": 0, "dim1": -2, "dim2": -1}),
            Case(((2, 3), (4, 2, 4)), {"offset": -1, "dim1": 0, "dim2": 2}),
            Case(((2, 2, 3), (5, 2, 2, 5)), {"offset": 2, "dim1": -1, "dim2": 0})), wrt=(1,)),
    OpSpec("meshgrid_grad", lambda a, b, c, ga, gb, gc: F.meshgrid_grad([a, b, c], [ga, gb, gc]),
           ref_meshgrid_grad, ("real",) * 6,
           (Case(((3,), (2,), (4,), (3, 2, 4), (3, 2, 4), (3, 2, 4))),
            Case(((), (3,), (1,), (1, 3, 1), (1, 3, 1), (1, 3, 1))),
            Case(((2,), (0,), (3,), (2, 0, 3), (2, 0, 3), (2, 0, 3)))), wrt=(3, 4, 5)),
    OpSpec("fill_grad", F.fill_grad, np.zeros_like, ("real",), (Case(((3, 4),)), Case(((),)))),
    OpSpec("zero_grad", F.zero_grad, np.zeros_like, ("real",), (Case(((3, 4),)), Case(((),)))),
    OpSpec("poisson_grad", F.poisson_grad, np.zeros_like, ("real",), (Case(((3, 4),)), Case(((),)))),
    OpSpec("complex_grad", F.complex_grad,
           lambda real, imag, g: (linear_vjp(lambda v: np.real(g) * 0 + v, real.shape, np.real(g), real.dtype),
                                  linear_vjp(lambda v: np.imag(g) * 0 + v, imag.shape, np.imag(g), imag.dtype)),
           ("real", "real", "real"),
           (Case(((3, 4), (3, 4), (3, 4))), Case(((2, 1), (3,), (2, 3))), Case(((), (), ()))),
           grad=False, prepare=_complex_out_grad),
    OpSpec("complex_double_grad", F.complex_double_grad,
           lambda real, imag, a, b: ref_complex(a, b), ("real",) * 4,
           (Case(((3, 4), (3, 4), (3, 4), (3, 4))), Case(((2, 1), (3,), (2, 1), (3,)))),
           grad=False),
]
