"""Fused GPU kernels (phi/kernels/fusion.py): each fused path against NumPy
references written from the maths and against the CPU kernel, and the number of
CuPy calls of a training step against the hand-written CuPy step.

On tests/fake_cupy.py (CI) a fused body runs op by op, in the CPU kernel's order,
so the GPU results equal the CPU kernel's bit for bit; on a real GPU the compiler
may contract a*b+c into an FMA, so there they are compared with a tolerance.
"""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import eager
import phi.kernels.activation as activation
import phi.kernels.loss as loss
import phi.kernels.optimizer as optimizer
import phi.kernels.reduction as reduction
from phi.kernels.fusion import FusedKernel, fused

cp = pytest.importorskip("cupy")  # tests/conftest.py installed the fake when there is no GPU
FAKE = getattr(cp, "__fake__", False)
GPU = types.SimpleNamespace(xp=cp, check_values=False)
CPU = types.SimpleNamespace(xp=np, check_values=True)
FLOAT_TYPES = ["float16", "float32", "float64"]


def host(a):
    return cp.asnumpy(a) if isinstance(a, cp.ndarray) else np.asarray(a)


def same(gpu_value, cpu_value, dtype):
    """Bit for bit on the fake; within a few ulps on a real GPU (FMA contraction)."""
    got = host(gpu_value)
    want = np.asarray(cpu_value)
    assert got.dtype == want.dtype and got.shape == want.shape
    if FAKE:
        np.testing.assert_array_equal(got, want)
    else:
        rtol = {"float16": 2e-3, "float32": 1e-6, "float64": 1e-14}[np.dtype(dtype).name]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


def counted(fn):
    """fn's result and how many CuPy calls it made (fake only)."""
    before = cp.calls[0] if FAKE else 0
    result = fn()
    return result, (cp.calls[0] - before if FAKE else None)


def one_call(calls, expected=1):
    if FAKE:
        assert calls == expected


# -- the facility ---------------------------------------------------------------------

@fused
def axpy(xp, a, x, y, *, negate):
    out = a * x + y
    return -out if negate else out


def test_a_body_runs_as_is_on_numpy_and_as_one_call_on_the_gpu():
    x, y = np.arange(4.0, dtype=np.float32), np.ones(4, np.float32)
    want = np.float32(2.0) * x + y
    np.testing.assert_array_equal(axpy(np, 2.0, x, y, negate=False), want)
    got, calls = counted(lambda: axpy(cp, 2.0, cp.asarray(x), cp.asarray(y), negate=True))
    same(got, -want, "float32")
    one_call(calls)


def test_static_switches_compile_once_each():
    kernel = FusedKernel(axpy.body)
    x = cp.ones(3)
    for negate in (False, True, False, True):
        kernel(cp, 1.0, x, x, negate=negate)
    assert len(kernel._compiled) == 2


def test_lambdas_are_refused_as_cupy_refuses_them():
    with pytest.raises(ValueError, match="not an identifier.*lambda"):
        fused(lambda xp, a: a)


@pytest.mark.skipif(not FAKE, reason="pins the fake's strictness")
def test_the_fake_fuse_refuses_what_cupy_fuse_cannot_compile():
    def reads_shape(a):
        return a * a.shape[0]

    def two_reductions(a):
        return cp.sum(a) + cp.sum(a)

    def keepdims(a):
        return cp.sum(a, axis=0, keepdims=True)

    def indexes(a):
        return a[0] * 2

    def reshapes(a):
        return a.reshape(-1)

    a = cp.ones((2, 3))
    with pytest.raises(ValueError, match="not a C identifier"):
        cp.fuse(lambda a: a)
    for body, error in ((reads_shape, TypeError), (two_reductions, NotImplementedError), (keepdims, TypeError),
                        (indexes, TypeError), (reshapes, TypeError)):
        with pytest.raises(error):
            cp.fuse(body)(a)
    with pytest.raises(TypeError, match="positional"):
        cp.fuse(reads_shape)(a=a)
    with pytest.raises(TypeError, match="Invalid argument type"):
        cp.fuse(indexes)(a, [1.0])

    def identity(a):
        return a

    assert cp.fuse(identity)(a) is not a  # a fused kernel's result is a new array


def _one_minus(x, s):
    x *= 1.0 - s


def _sqrt_of(x, s):
    x *= cp.sqrt(s)


def _negated_plus_one(x, s):
    x *= -s + 1.0


def _scaled(x, s):
    x *= s


@pytest.mark.skipif(not FAKE, reason="pins the fake's strictness")
@pytest.mark.parametrize("body", [_one_minus, _sqrt_of, _negated_plus_one])
def test_the_fake_fuse_refuses_scalar_arithmetic_on_a_python_float_argument(body):
    # On an H200, cupy.fuse gave 1.0 - 0.9 = 0.10009765625 (float16) for a Python
    # float argument, and the exact value for a NumPy float64 one.
    x = cp.ones(3)
    with pytest.raises(TypeError, match="smallest dtype"):
        cp.fuse(body)(x, 0.9)
    cp.fuse(body)(x, np.float64(0.9))
    cp.fuse(_scaled)(x, 0.9)  # a Python float with an array is a weak scalar: fine


# -- optimizers -----------------------------------------------------------------------

def _arrays(dtype, shape=(3, 4), seed=0, lr_shape=()):
    rng = np.random.default_rng(seed)
    p = rng.normal(size=shape).astype(dtype)
    g = rng.normal(size=shape).astype(dtype)
    lr = np.full(lr_shape, 0.1, dtype)
    return p, g, lr


def _to_gpu(*arrays):
    return [None if a is None else cp.asarray(a) for a in arrays]


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("shape,lr_shape", [((3, 4), ()), ((5,), (1,)), ((), ()), ((), (1,))])
def test_sgd_is_one_call_and_matches_the_cpu_kernel(dtype, shape, lr_shape):
    p, g, lr = _arrays(dtype, shape, lr_shape=lr_shape)
    want = p - g * lr.reshape(())  # the maths, in the dtype
    cpu_p = p.copy()
    optimizer.sgd_(CPU, cpu_p, lr, g, None, False)
    np.testing.assert_array_equal(cpu_p, want)
    gp, gg, glr = _to_gpu(p, g, lr)
    _, calls = counted(lambda: optimizer.sgd_(GPU, gp, glr, gg, None, False))
    same(gp, cpu_p, dtype)
    one_call(calls, 1 if len(lr_shape) <= len(shape) else 2)  # + reshape of a [1] rate for a 0-d param


def test_sgd_updates_a_strided_view_only_and_propagates_inf_and_nan():
    P = np.arange(24, dtype=np.float32).reshape(4, 6)
    G = np.ones((4, 6), np.float32)
    G[0, 0], G[1, 2] = np.inf, np.nan
    gP, gG = _to_gpu(P, G)
    optimizer.sgd_(GPU, gP[:, ::2], cp.asarray(np.float32(0.5)), gG[:, ::2], None, False)
    want = P.copy()
    want[:, ::2] -= np.float32(0.5) * G[:, ::2]
    got = host(gP)
    np.testing.assert_array_equal(got, want)
    assert np.isneginf(got[0, 0]) and np.isnan(got[1, 2])


@pytest.mark.parametrize("with_master", [False, True])
def test_sgd_of_a_float16_param_computes_in_float32(with_master):
    p, g, _ = _arrays("float16")
    lr = np.float32(0.1).reshape(())
    master = p.astype(np.float32) if with_master else None
    cpu_p, cpu_master = p.copy(), None if master is None else master.copy()
    optimizer.sgd_(CPU, cpu_p, np.asarray(lr), g, cpu_master, with_master)
    want = (p.astype(np.float32) - g.astype(np.float32) * lr).astype(np.float16)
    np.testing.assert_array_equal(cpu_p, want)
    gp, gg, glr, gm = _to_gpu(p, g, np.asarray(lr), master)
    _, calls = counted(lambda: optimizer.sgd_(GPU, gp, glr, gg, gm, with_master))
    same(gp, cpu_p, "float16")
    if with_master:
        same(gm, cpu_master, "float32")
    one_call(calls)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nesterov,method,rescale", [(False, "", 1.0), (True, "l2_decay", 0.5),
                                                     (False, "l2_decay", 2.0), (True, "", 1.0)])
def test_momentum_is_one_call_and_matches_the_maths(dtype, nesterov, method, rescale):
    p, g, lr = _arrays(dtype)
    v = np.random.default_rng(3).normal(size=p.shape).astype(dtype)
    mu, coeff = 0.9, 0.01
    # The maths (Paddle's momentum), op by op in the dtype.
    gg = g * rescale if rescale != 1.0 else g
    if method:
        gg = p * coeff + gg
    want_v = v * mu + gg
    want_p = p - ((want_v * mu + gg) * lr if nesterov else want_v * lr)
    cpu = [p.copy(), v.copy()]
    optimizer.momentum_(CPU, cpu[0], g, cpu[1], lr, None, mu, nesterov, method, coeff, False, rescale)
    np.testing.assert_allclose(cpu[0], want_p, rtol=1e-6)
    np.testing.assert_allclose(cpu[1], want_v, rtol=1e-6)
    gp, gg_, gv, glr = _to_gpu(p, g, v, lr)
    _, calls = counted(lambda: optimizer.momentum_(GPU, gp, gg_, gv, glr, None, mu, nesterov, method, coeff,
                                                   False, rescale))
    same(gp, cpu[0], dtype)
    same(gv, cpu[1], dtype)
    one_call(calls)


@pytest.mark.parametrize("dtype,with_master", [("float32", False), ("float64", False), ("float16", True)])
def test_adagrad_is_fused_too(dtype, with_master):
    def run(ctx, a):
        optimizer.adagrad_(ctx, a[0], a[1], a[2], a[3], a[4], 1e-6, a[4] is not None)

    roles, expected_calls = ("p", "g", "pos", "lr", "master"), 1
    rng = np.random.default_rng(17)
    state = np.float32 if dtype == "float16" else np.dtype(dtype).type
    p = rng.normal(size=(3, 4)).astype(dtype)
    make = {"p": lambda: p.copy(), "g": lambda: rng.normal(size=p.shape).astype(dtype),
            "s": lambda: rng.normal(size=p.shape).astype(state),
            "pos": lambda: np.abs(rng.normal(size=p.shape)).astype(state) + state(0.5),
            "lr": lambda: np.full((1,), 0.01, state), "pow": lambda: np.full((1,), 0.9 ** 3, state),
            "master": lambda: p.astype(np.float32) if with_master else None}
    arrays = [make[role]() for role in roles]
    cpu = [None if a is None else a.copy() for a in arrays]
    run(CPU, cpu)
    assert not np.array_equal(cpu[0], p)
    gpu = _to_gpu(*arrays)
    _, calls = counted(lambda: run(GPU, gpu))
    for got, want in zip(gpu, cpu):
        if want is not None:
            same(got, want, want.dtype)
    one_call(calls, expected_calls)


# -- Adam, AdamW, Adamax, Adadelta, RMSProp ----------------------------------------------------
# Fused again (reverted in 5177711: on an H200 cupy.fuse computed 1.0 - beta1 of a Python
# float argument in float16). Their hyperparameters now reach the bodies as NumPy scalars
# of the state dtype, their scalar-only coefficients computed before the call.

def _adam(ctx, a, ratio=1.0, decay=False, op="adam_"):
    p, g, lr, m1, m2, b1p, b2p, master = a
    if op == "adam_":
        optimizer.adam_(ctx, p, g, lr, m1, m2, b1p, b2p, master, 0.9, 0.999, 1e-8, master is not None)
    else:
        optimizer.adamw_(ctx, p, g, lr, m1, m2, b1p, b2p, master, 0.9, 0.999, 1e-8, ratio, 0.01, decay,
                         master is not None)


# name -> (run(ctx, arrays, **switches), the arrays' roles, fused calls per step, one-element operands)
_FUSED_OPTIMIZERS = {
    "adam_": (_adam, ("p", "g", "lr", "s", "pos", "pow1", "pow2", "master"), 2, 3),
    "adamw_": (lambda ctx, a, **k: _adam(ctx, a, op="adamw_", **k),
               ("p", "g", "lr", "s", "pos", "pow1", "pow2", "master"), 2, 3),
    "adamax_": (lambda ctx, a: optimizer.adamax_(ctx, *a, 0.9, 0.999, 1e-8, a[-1] is not None),
                ("p", "g", "lr", "s", "pos", "pow1", "master"), 2, 2),
    "adadelta_": (lambda ctx, a: optimizer.adadelta_(ctx, *a, 0.95, 1e-6, a[-1] is not None),
                  ("p", "g", "pos", "pos", "lr", "master"), 1, 1),
    "rmsprop_": (lambda ctx, a, centered: optimizer.rmsprop_(ctx, *a, 1e-6, 0.9, 0.5, centered, a[-1] is not None),
                 ("p", "pos", "g", "s", "lr", "small", "master"), 1, 1),
}
_SWITCHES = [("adam_", {}), ("adamw_", {"ratio": 1.0, "decay": False}), ("adamw_", {"ratio": 0.5, "decay": True}),
             ("adamw_", {"ratio": 0.5, "decay": False}), ("adamw_", {"ratio": 1.0, "decay": True}),
             ("adamax_", {}), ("adadelta_", {}), ("rmsprop_", {"centered": False}),
             ("rmsprop_", {"centered": True})]


def _optimizer_arrays(roles, dtype, with_master, shape, lr_dtype=None, seed=23):
    rng = np.random.default_rng(seed)
    state = np.float32 if dtype == "float16" else np.dtype(dtype).type
    scalar = state if lr_dtype is None else np.dtype(lr_dtype).type
    p = np.asarray(rng.normal(size=shape)).astype(dtype)
    make = {"p": lambda: p.copy(), "g": lambda: np.asarray(rng.normal(size=shape)).astype(dtype),
            "s": lambda: np.asarray(rng.normal(size=shape)).astype(state),
            "small": lambda: np.asarray(0.1 * rng.normal(size=shape)).astype(state),
            "pos": lambda: np.asarray(np.abs(rng.normal(size=shape)) + 0.5).astype(state),
            "lr": lambda: np.full((1,), 0.01, scalar), "pow1": lambda: np.full((1,), 0.9 ** 3, scalar),
            "pow2": lambda: np.full((1,), 0.999 ** 3, scalar),
            "master": lambda: p.astype(np.float32) if with_master else None}
    return [make[role]() for role in roles]


@pytest.fixture
def fused_operands(monkeypatch):
    """(kernel name, operand) of every fused call made while the test runs."""
    seen = []
    call = FusedKernel.__call__

    def recording(self, xp, *operands, **static):
        seen.extend((self.name, operand) for operand in operands)
        return call(self, xp, *operands, **static)

    monkeypatch.setattr(FusedKernel, "__call__", recording)
    return seen


@pytest.mark.parametrize("dtype,with_master", [("float32", False), ("float64", False), ("float16", True),
                                               ("float16", False)])
@pytest.mark.parametrize("name,switches", _SWITCHES, ids=[f"{n}{''.join(f'-{k}={v}' for k, v in s.items())}"
                                                          for n, s in _SWITCHES])
@pytest.mark.parametrize("shape", [(3, 4), ()])
def test_adam_adamax_adadelta_rmsprop_are_fused_and_match_the_cpu_kernel_bit_for_bit(
        name, switches, dtype, with_master, shape, fused_operands):
    run, roles, fused_calls, one_element = _FUSED_OPTIMIZERS[name]
    arrays = _optimizer_arrays(roles, dtype, with_master, shape)
    grads = _optimizer_arrays(("g",) * 3, dtype, False, shape, seed=29)
    at = roles.index("g")
    cpu = [None if a is None else a.copy() for a in arrays]
    gpu = _to_gpu(*arrays)
    state = np.dtype(np.float32 if dtype == "float16" else dtype)
    for grad in grads:  # several steps: the moments and beta powers carry over
        cpu[at], gpu[at] = grad, cp.asarray(grad)
        run(CPU, cpu, **switches)
        transfers = cp.transfers[0] if FAKE else 0
        _, calls = counted(lambda: run(GPU, gpu, **switches))
        # one fused call (Adam, Adamax: + one for the beta powers), + a reshape per
        # one-element operand of a 0-d param
        one_call(calls, fused_calls + (0 if shape else one_element))
        if FAKE:
            assert cp.transfers[0] == transfers  # nothing read back
        for got, want in zip(gpu, cpu):
            if want is not None:
                same(got, want, want.dtype)
    if shape:  # (a 0-d float16 param may not move by a few small steps)
        assert not np.array_equal(cpu[0], arrays[0])
    # No Python float reaches a body (cupy.fuse types one by its value: float16 for 0.9):
    # every scalar operand is a NumPy scalar of the state dtype.
    assert fused_operands and all(kernel.endswith(("_step", "_pow", "_pows")) for kernel, _ in fused_operands)
    scalars = [operand for _, operand in fused_operands if not isinstance(operand, cp.ndarray) and operand is not None]
    assert scalars and all(isinstance(s, np.generic) and s.dtype == state for s in scalars), scalars


@pytest.mark.parametrize("name,switches", [("adam_", {}), ("adamw_", {"ratio": 0.5, "decay": True}),
                                           ("adamax_", {}), ("adadelta_", {}), ("rmsprop_", {"centered": True})])
def test_a_learning_rate_of_another_dtype_runs_the_host_rule_unfused(name, switches):
    # The fused bodies compute in the state dtype; a float64 rate with float32 state
    # (never made by the optimizers) takes the host's rule, whose bits are the CPU's.
    run, roles, _, _ = _FUSED_OPTIMIZERS[name]
    arrays = _optimizer_arrays(roles, "float32", False, (3, 4), lr_dtype="float64")
    cpu = [None if a is None else a.copy() for a in arrays]
    gpu = _to_gpu(*arrays)
    run(CPU, cpu, **switches)
    _, calls = counted(lambda: run(GPU, gpu, **switches))
    for got, want in zip(gpu, cpu):
        if want is not None:
            same(got, want, want.dtype)
    if FAKE:
        assert calls > 5


@fused
def reverted_adam_step(xp, param, master, grad, moment1, moment2, lr, b1p, b2p, beta1, beta2, epsilon,
                       lr_ratio, coeff, *, ratio, decay):
    """The fused Adam body reverted by 5177711, verbatim: it computes 1.0 - beta1 of a
    Python float inside the kernel, which an H200 did in float16."""
    dtype = moment1.dtype
    p = param if master is None else master
    g = grad.astype(dtype, copy=False)
    if ratio:
        lr = lr * lr_ratio
    correction2 = xp.sqrt(1.0 - b2p)
    lr_t = lr * correction2 / (1.0 - b1p)
    eps_t = epsilon * correction2
    if decay:
        p *= 1.0 - lr * coeff
    moment1 *= beta1
    moment1 += g * (1.0 - beta1)
    moment2 *= beta2
    moment2 += g * g * (1.0 - beta2)
    p -= moment1 / (xp.sqrt(moment2) + eps_t) * lr_t


@pytest.mark.skipif(not FAKE, reason="pins the fake's strictness")
def test_the_fake_refuses_the_reverted_adam_body_that_moved_updates_on_the_h200():
    p, g, m1, m2, lr, b1p, b2p = (cp.asarray(np.full(s, v, np.float32)) for s, v in
                                  (((3,), 1.0), ((3,), 0.5), ((3,), 0.0), ((3,), 0.0), ((1,), 0.01),
                                   ((1,), 0.9), ((1,), 0.999)))
    with pytest.raises(TypeError, match="smallest dtype"):
        reverted_adam_step(cp, p, None, g, m1, m2, lr, b1p, b2p, 0.9, 0.999, 1e-8, 1.0, 0.0, ratio=False,
                           decay=False)

# -- activation gradients ---------------------------------------------------------------

GRADS = {"relu_grad": lambda out, g: g * (out > 0),
         "tanh_grad": lambda out, g: g * (1 - out * out),
         "sigmoid_grad": lambda out, g: g * (out * (1 - out))}


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("name", sorted(GRADS))
@pytest.mark.parametrize("shape", [(4, 5), ()])
@pytest.mark.parametrize("use_into", [False, True])
def test_activation_grads_are_one_call(dtype, name, shape, use_into):
    rng = np.random.default_rng(7)
    out = rng.uniform(-1, 1, size=shape).astype(dtype)
    g = rng.normal(size=shape).astype(dtype)
    if shape:
        out.flat[0], g.flat[0], g.flat[1] = -0.5, np.inf, np.nan  # inf * 0 -> nan, as unfused
    want = GRADS[name](out, g)
    kernel = getattr(activation, name)
    cpu = kernel(CPU, out, g, into=g.copy() if use_into and shape else None)
    np.testing.assert_array_equal(np.asarray(cpu), np.asarray(want))
    gout, gg = _to_gpu(out, g)
    into = gg if use_into else None
    result, calls = counted(lambda: kernel(GPU, gout, gg, into=into))
    if use_into:
        assert result is into
    same(result, np.asarray(cpu).astype(dtype), dtype)
    one_call(calls)


def test_a_grad_into_a_strided_view_writes_that_view_only():
    out = cp.asarray(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    base = cp.asarray(np.full((3, 8), 7.0, np.float32))
    g = base[:, ::2]
    result = activation.relu_grad(GPU, out, g, into=g)
    want = np.full((3, 8), 7.0, np.float32)
    want[:, ::2] = 7.0 * (host(out) > 0)
    np.testing.assert_array_equal(host(base), want)
    assert result is g


# -- mse loss and mean ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_is_one_call(dtype, reduction):
    rng = np.random.default_rng(9)
    x, y = rng.normal(size=(6, 5)).astype(dtype), rng.normal(size=(6, 5)).astype(dtype)
    squares = (x - y) * (x - y)
    want = {"none": squares, "sum": squares.sum(dtype=dtype),
            "mean": (squares.sum(dtype=dtype) / squares.size).astype(dtype)}[reduction]
    cpu = loss.fused_mse_loss(CPU, x, y, reduction)
    np.testing.assert_allclose(np.asarray(cpu, np.float64), want, rtol=1e-2 if dtype == "float16" else 1e-6)
    result, calls = counted(lambda: loss.fused_mse_loss(GPU, *_to_gpu(x, y), reduction))
    same(result, np.asarray(cpu), dtype)
    one_call(calls)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("mask", [None, (True, False), (False, True)])
def test_mse_loss_grad_is_one_call(dtype, reduction, mask):
    rng = np.random.default_rng(11)
    x, y = rng.normal(size=(6, 5)).astype(dtype), rng.normal(size=(6, 5)).astype(dtype)
    og = rng.normal(size=x.shape if reduction == "none" else ()).astype(dtype)
    factor = og / x.size * 2 if reduction == "mean" else og * 2
    want = (x - y) * factor
    cpu = loss.fused_mse_loss_grad(CPU, x, y, og, reduction, out_mask=mask)
    gx, gy, gog = _to_gpu(x, y, og)
    result, calls = counted(lambda: loss.fused_mse_loss_grad(GPU, gx, gy, gog, reduction, out_mask=mask))
    for i, sign in ((0, 1), (1, -1)):
        if mask is not None and not mask[i]:
            assert cpu[i] is None and result[i] is None
            continue
        np.testing.assert_array_equal(cpu[i], sign * want)
        same(result[i], cpu[i], dtype)
    one_call(calls)


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("axis", [[], [0], [-1], [0, 2]])
def test_mean_is_one_call(dtype, axis):
    x = np.random.default_rng(13).normal(size=(3, 4, 5)).astype(dtype)
    axes = tuple(a % 3 for a in axis) or (0, 1, 2)
    cpu = reduction.mean(CPU, x, axis, False)
    count = int(np.prod([x.shape[a] for a in axes]))
    np.testing.assert_allclose(np.asarray(cpu, np.float64), x.astype(np.float64).sum(axis=axes) / count,
                               rtol=1e-2 if dtype == "float16" else 1e-6)
    result, calls = counted(lambda: reduction.mean(GPU, cp.asarray(x), axis, False))
    if dtype == "float16":
        # The CPU kernel sums float16 in float32, as CuPy's float16 sum does on a GPU;
        # the fake's fused body is NumPy's float16 sum, which rounds every partial sum.
        np.testing.assert_allclose(host(result).astype(np.float64), np.asarray(cpu, np.float64), rtol=2e-3,
                                   atol=2e-3)
    else:
        same(result, np.asarray(cpu), dtype)
    one_call(calls)


def test_means_the_fused_kernel_does_not_take_still_match():
    x = np.arange(12, dtype=np.int64).reshape(3, 4)
    kept = reduction.mean(GPU, cp.asarray(x.astype(np.float32)), [1], True)
    assert host(kept).shape == (3, 1)
    np.testing.assert_array_equal(host(reduction.mean_of_integers(GPU, cp.asarray(x), [0], False)),
                                  x.mean(axis=0).astype(np.float32))
    empty = reduction.mean(GPU, cp.asarray(np.zeros((0, 3), np.float32)), [0], False)
    assert np.isnan(host(empty)).all()


# -- a training step ----------------------------------------------------------------------

@pytest.mark.skipif(not FAKE, reason="counts calls on tests/fake_cupy.py")
def test_the_g3_step_makes_fewer_cupy_calls_than_the_hand_written_one():
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "benchmarks"))
    import gpu
    from mlp import HandWrittenMLP, init_weights, make_batch

    params = init_weights()
    x_np, y_np = make_batch(64)

    def calls_per_step(step):
        for _ in range(2):
            step()
        before = cp.calls[0]
        step()
        return cp.calls[0] - before

    ref = HandWrittenMLP(params, xp=cp)
    x, y = cp.asarray(x_np), cp.asarray(y_np)
    hand = calls_per_step(lambda: ref.step(x, y))
    ours = gpu.EagerMLP(params)
    tx, ty = eager.to_tensor(x_np, place="gpu"), eager.to_tensor(y_np, place="gpu")
    eager_calls = calls_per_step(lambda: ours.step(tx, ty))
    assert hand == 36
    assert eager_calls <= 26 < hand  # 48 before the fused kernels and the lent seed
    for layer, (w, b) in zip(ours.model[::2], zip(ref.params[::2], ref.params[1::2])):  # same 3 steps
        np.testing.assert_allclose(layer.weight.numpy(), host(w), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(layer.bias.numpy(), host(b), rtol=1e-5, atol=1e-6)
    ours.opt = eager.optimizer.Adam(learning_rate=0.01, parameters=ours.model.parameters())
    assert calls_per_step(lambda: ours.step(tx, ty)) <= 32  # 176 with Adam's rule unfused: 2 per parameter now


# -- the seed gradient of loss.backward() ------------------------------------------------------

def _gpu_loss(x):
    return (x * x).sum()


def _leaf(values=(1.0, 2.0, 3.0)):
    x = eager.to_tensor(np.asarray(values, np.float32), place="gpu")
    x.stop_gradient = False
    return x


def test_backward_on_the_gpu_reuses_its_seed_without_a_cupy_call():
    x = _leaf()
    _gpu_loss(x).backward()
    loss = _gpu_loss(x)
    backwards = 2
    if FAKE:
        before = cp.calls[0]
        loss.backward()
        # the same calls as a backward from a seed given by the caller: the seed costs none
        assert cp.calls[0] - before == _calls_of_backward_with_a_given_seed(x)
        backwards = 3
    else:
        loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), backwards * 2 * np.array([1.0, 2.0, 3.0], np.float32))


def _calls_of_backward_with_a_given_seed(x):
    loss = _gpu_loss(x)
    seed = eager.ones_like(loss)
    before = cp.calls[0]
    loss.backward(seed)
    return cp.calls[0] - before


@pytest.mark.parametrize("write", ["hook writes in place", "grad of the loss kept", "leaf loss .grad zeroed"])
def test_a_seed_that_was_written_or_kept_is_never_lent_again(write):
    x = _leaf()
    kept = []
    for step in range(3):
        if write == "hook writes in place":
            loss = _gpu_loss(x)
            loss.register_hook(lambda g: g.scale_(5.0) and None)
            loss.backward()
        elif write == "grad of the loss kept":
            loss = _gpu_loss(x)
            kept.append(eager.grad(loss, [loss])[0])
            with eager.no_grad():
                kept[-1].fill_(9.0)  # the caller's now: it may write it
            loss = _gpu_loss(x)
            loss.backward()
        else:
            leaf = eager.to_tensor(np.float32(4.0), place="gpu")  # a 0-d leaf: its .grad starts from the seed
            leaf.stop_gradient = False
            leaf.backward()
            np.testing.assert_array_equal(leaf.grad.numpy(), 1.0)
            with eager.no_grad():
                leaf.grad.fill_(7.0)  # writes the leaf's .grad, never the seed
            loss = _gpu_loss(x)
            loss.backward()
        factor = 5.0 if write == "hook writes in place" else 1.0
        np.testing.assert_array_equal(x.grad.numpy(), factor * 2 * np.array([1.0, 2.0, 3.0], np.float32))
        x.clear_grad()
    for g in kept:
        np.testing.assert_array_equal(g.numpy(), 9.0)
