"""The kernels' fast paths (issue #14) compute what the plain formulas compute.

relu, tanh, sigmoid, scale and their gradients run on NumPy with 0-d constants
of the operand's dtype instead of Python numbers and write through one
temporary (or ``into``); the references below are the formulas written the
plain way, with Python numbers, so the results must agree bit for bit
(NumPy converts a Python number to the array's dtype before it computes). The
same kernels run on tests/fake_cupy.py (the GPU path: Python numbers, no host
constant may meet a device array) and must agree with NumPy there too.
"""
import types
import warnings

import numpy as np
import pytest

import eager
import fake_cupy
from eager.autograd import seeds
from phi.backends.cpu_context import CPU_CONTEXT
from phi.common.data_type import DataType
from phi.common.tensor_kind import TensorKind
from phi.core import KERNELS
from phi.core.dense_tensor import DenseTensor
from phi.core.errors import InvalidArgumentError
from phi.kernels import funcs
from phi.kernels import loss as loss_kernels
from phi.kernels.funcs import HALVES, ONES, ZEROS, host_factor

# The kernels' GPU context as far as they read it: xp, and the products they take through
# the context (GPUContext's call cuBLAS; here the stand-in's matmul and sum, whose bits they give).
FAKE_GPU = types.SimpleNamespace(xp=fake_cupy, matmul=fake_cupy.matmul,
                                 column_sums=lambda a, out=None: fake_cupy.sum(a, axis=0, out=out))
FLOAT_DTYPES = [np.float16, np.float32, np.float64]
SHAPES = [(), (16,), (3, 5)]


def kernel(name):
    """The dense kernel ``name`` as fn(ctx, *args): the function registered for the
    dtype of the first array argument."""
    table = {key.dtype: k.fn for key, k in KERNELS.kernels(name).items() if key.kind is TensorKind.DENSE}

    def call(ctx, *args, **kwargs):
        first = next(a for a in args if hasattr(a, "dtype"))
        return table[DataType.from_numpy(first.dtype)](ctx, *args, **kwargs)

    return call


def sample(shape, dtype, seed=0, special=True):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape) * 3
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    values = np.asarray(values).astype(dtype)
    if special and values.size >= 5:  # the edges: zeros of both signs, inf, nan
        flat = values.reshape(-1)
        flat[:5] = [0.0, -0.0, np.inf, -np.inf, np.nan]
    return values


def same_bits(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert actual.tobytes() == expected.tobytes(), (actual, expected)


def on_fake_gpu(fn, *args, **kwargs):
    """fn run with fake CuPy as xp on device copies of the array arguments; the result on the host."""
    moved = [fake_cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
    result = fn(FAKE_GPU, *moved, **kwargs)
    return fake_cupy.asnumpy(result)


# name -> (kernel arguments from (x, g), reference from (x, g))
UNARY_GRADS = {
    "relu_grad": (lambda x, g: (np.maximum(x, 0), g), lambda x, g: g * (np.maximum(x, 0) > 0)),
    "tanh_grad": (lambda x, g: (np.tanh(x), g), lambda x, g: g * np.conj(1 - np.tanh(x) ** 2)),
    "sigmoid_grad": (lambda x, g: (1 / (1 + np.exp(-x)), g),
                     lambda x, g: g * ((1 / (1 + np.exp(-x))) * (1 - 1 / (1 + np.exp(-x))))),
}


@pytest.mark.parametrize("name", sorted(UNARY_GRADS))
@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", SHAPES)
def test_activation_grads_match_the_formula(name, dtype, shape):
    if np.dtype(dtype).kind == "c" and name != "tanh_grad":
        pytest.skip("relu and sigmoid take real tensors only")
    make_args, reference = UNARY_GRADS[name]
    with np.errstate(all="ignore"):
        x, g = sample(shape, dtype, 0), sample(shape, dtype, 1, special=False)
        out, grad = make_args(x, g)
        out, grad = np.asarray(out, dtype), np.asarray(grad, dtype)
        slope = {"relu_grad": out > 0, "tanh_grad": np.conj(1 - out * out), "sigmoid_grad": out * (1 - out)}[name]
        expected = np.asarray(grad * slope).astype(dtype)
        fn = kernel(name)
        same_bits(fn(CPU_CONTEXT, out, grad), expected)
        if name != "relu_grad":  # the maths, to the formula's own rounding
            np.testing.assert_allclose(expected, np.asarray(reference(x, g)).astype(dtype),
                                       rtol=5e-2 if dtype == np.float16 else 1e-4, atol=1e-3)
        into = grad.copy()
        result = fn(CPU_CONTEXT, out, into, into=into)
        # NumPy multiplies a 0-d complex in place with other roundings than into a new array,
        # with or without these kernels
        in_place = grad.copy()
        same_bits(result, np.multiply(in_place, slope, out=in_place) if not shape else expected)
        if shape:
            assert result is into  # written where the engine said it may write
        same_bits(on_fake_gpu(fn, out, grad), expected)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_relu_and_sigmoid_forward_match_the_formula(dtype, shape):
    x = sample(shape, dtype)
    with np.errstate(all="ignore"):
        expected_relu = np.fmax(x, 0)  # Paddle's x > 0 ? x : 0: a nan gives 0
        one = np.ones((), dtype=dtype)  # 1 / (1 + exp(-x)), the kernel's (Paddle's) formula
        expected_sigmoid = np.asarray(np.divide(one, np.exp(np.negative(x)) + one)).astype(dtype)
        for name, expected in (("relu", expected_relu), ("sigmoid", expected_sigmoid)):
            same_bits(kernel(name)(CPU_CONTEXT, x), expected)
            same_bits(on_fake_gpu(kernel(name), x), expected)
    finite = x[np.isfinite(x)].astype(np.float64)
    sig = kernel("sigmoid")(CPU_CONTEXT, x)[np.isfinite(x)]
    np.testing.assert_allclose(sig, 1 / (1 + np.exp(-finite)), rtol=2e-3 if dtype == np.float16 else 1e-6,
                               atol=1e-4 if dtype == np.float16 else 1e-7)


FACTORS = [0.5, 0.1, -3.0, 1e-30, 1e30, 0.0, -0.0, 7.25]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_scale_and_its_grad_round_as_with_python_numbers(dtype, shape):
    x = sample(shape, dtype)
    scale, scale_grad = kernel("scale"), kernel("scale_grad")
    with np.errstate(all="ignore"):
        for factor in FACTORS:
            for bias in (0.0, 0.3, -2.0):
                for after in (True, False):
                    # a zero bias is not added (x * -0.0 stays -0.0), as before the fast path
                    expected = np.asarray((x * factor + bias if bias else x * factor) if after
                                          else (x + bias) * factor)
                    same_bits(scale(CPU_CONTEXT, x, factor, bias, after), expected.astype(dtype))
                    same_bits(on_fake_gpu(scale, x, factor, bias, after), expected.astype(dtype))
            expected = np.asarray(x * factor).astype(dtype)
            same_bits(scale_grad(CPU_CONTEXT, x, factor), expected)
            into = x.copy()
            result = scale_grad(CPU_CONTEXT, into, factor, into=into)
            same_bits(result, expected)
            if shape:
                assert result is into


def test_scale_keeps_integer_and_complex_rules():
    ints = np.arange(-3, 4, dtype=np.int32)
    same_bits(kernel("scale")(CPU_CONTEXT, ints, 0.5, 0.0, True), ints * 0)  # Paddle 2.6.2: 0.5 cast to int is 0
    same_bits(kernel("scale")(CPU_CONTEXT, ints, 1.5, -1.5, True), ints - 1)
    same_bits(kernel("scale")(CPU_CONTEXT, ints, 2, 1, True), ints * 2 + 1)
    floats = sample((6,), np.float32)  # a complex bias on a real x: refused, not its real part kept
    with pytest.raises(TypeError, match="argument 'bias' is the complex number 1j but x is float32"):
        kernel("scale")(CPU_CONTEXT, floats, 0.5, 1j, True)
    same_bits(kernel("scale")(CPU_CONTEXT, floats, 0.5, 2, True), floats * 0.5 + 2)  # an int bias
    z = sample((6,), np.complex64)
    same_bits(kernel("scale")(CPU_CONTEXT, z, 0.5, 0.0, True), (z * 0.5).astype(np.complex64))
    same_bits(kernel("scale_grad")(CPU_CONTEXT, ints, 3), ints * 3)


def test_host_constants_are_read_only_and_typed():
    for table, value in ((ZEROS, 0), (ONES, 1), (HALVES, 0.5)):
        for dtype, constant in table.items():
            assert constant.shape == () and constant.dtype == dtype and constant == value
            with pytest.raises(ValueError):
                constant[...] = 2


def test_host_factor_remembers_nonzero_floats_only():
    f32 = np.dtype(np.float32)
    assert host_factor(0.25, f32) is host_factor(0.25, f32)  # remembered
    assert host_factor(0.25, np.dtype(np.int32)) is None and host_factor(0.25, np.dtype(np.complex64)) is None
    negative_zero, zero = host_factor(-0.0, f32), host_factor(0.0, f32)  # one dict key: never remembered
    assert np.signbit(negative_zero) and not np.signbit(zero)
    assert np.isnan(host_factor(float("nan"), f32))
    for i in range(200):  # bounded: a workload whose factors keep changing holds a few
        assert float(host_factor(1.0 + i, f32)) == 1.0 + i
    assert len(funcs._FACTORS[f32]) <= funcs._FACTOR_LIMIT
    with pytest.raises(ValueError):
        host_factor(0.25, f32)[...] = 1


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_mse_loss_gives_the_composed_ops_bits(reduction, dtype):
    """mse_loss is one op now; its loss and both gradients are the bits that subtract,
    multiply and mean (sum) gave, whose backward added the product rule's two halves."""
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((8, 10)).astype(dtype), rng.standard_normal((8, 10)).astype(dtype)
    results = []
    for fused in (True, False):
        x, y = eager.to_tensor(a, stop_gradient=False), eager.to_tensor(b, stop_gradient=False)
        if fused:
            loss = eager.nn.functional.mse_loss(x, y, reduction)
            assert loss.grad_node.forward_op == "fused_mse_loss"
        else:
            diff = x - y
            squares = diff * diff
            loss = {"mean": eager.mean, "sum": eager.sum, "none": lambda t: t}[reduction](squares)
        (loss.sum() if reduction == "none" else loss).backward()
        results.append((loss.numpy(), x.grad.numpy(), y.grad.numpy()))
    for fused, composed in zip(*results):
        same_bits(fused, composed)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape, order", [((512, 10), "C"), ((3, 4, 5), "F"), ((7,), "C"), ((1,), "C"), ((2, 0), "C")])
def test_fused_mse_loss_host_reduction_is_numpys_sum_and_mean(dtype, shape, order):
    """The host kernel's 'sum' is NumPy's sum of the squared differences bit for bit
    (same dtype, same value), C- or F-ordered, empty included (0), and 'mean' that
    sum divided by the count (NumPy's mean for float32/64; NumPy's float16 mean
    sums in float32, the kernel in float16 as the composed ops do); the mean of
    nothing is NaN."""
    from phi.kernels import loss
    rng = np.random.default_rng(11)
    a = np.asarray((rng.standard_normal(shape) * 3).astype(dtype), order=order)
    b = np.asarray(rng.standard_normal(shape).astype(dtype), order=order)
    squares = (a - b) * (a - b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected_mean = np.divide(np.sum(squares), squares.size) if squares.size else np.array(np.nan, dtype)
        if dtype is not np.float16 and squares.size:
            same_bits(expected_mean, np.mean(squares))
    same_bits(loss.fused_mse_loss(CPU_CONTEXT, a, b, "mean"), expected_mean)
    same_bits(loss.fused_mse_loss(CPU_CONTEXT, a, b, "sum"), np.sum(squares, dtype=dtype))
    same_bits(loss.fused_mse_loss(CPU_CONTEXT, a, b, "none"), squares)


def test_fused_mse_loss_label_without_gradient_and_checks():
    x = eager.to_tensor(np.array([1.0, 2.0, 4.0]), stop_gradient=False)
    label = eager.to_tensor(np.array([0.0, 2.0, 1.0]))
    eager.nn.functional.mse_loss(x, label).backward()
    np.testing.assert_allclose(x.grad.numpy(), [2 * 1 / 3, 0.0, 2 * 3 / 3])
    assert label.grad is None
    with pytest.raises(ValueError, match="fused_mse_loss.*'reduction' expected 'mean', 'sum' or 'none'"):
        eager.fused_mse_loss(x, label, "max")
    with pytest.raises(ValueError, match="fused_mse_loss.*'label' expected paddle.float64\\[3\\]"):
        eager.fused_mse_loss(x, eager.to_tensor(np.zeros(2)))



def _mse_grad_by_formula(a, b, g, reduction):
    """2 (a - b) g (g / n for 'mean'), written the plain way: Python numbers, which
    NumPy converts to the operand's dtype, and a product per step."""
    factor = np.multiply(np.divide(g, a.size), 2) if reduction == "mean" else np.multiply(g, 2)
    grad = np.multiply(np.subtract(a, b), factor)
    return np.asarray(grad), np.asarray(np.negative(grad))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (8, 10), (3, 4, 5)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_fused_mse_loss_host_kernels_are_the_formulas_bits(dtype, shape, reduction):
    """The host kernels (an array operand for the count, 2g as g + g, the squares and
    the gradient each in one fresh buffer) give the plain formulas' bits for every
    incoming gradient, subnormal and overflowing factors included, for each subset
    of wanted gradients; every result of an n-d input is an ndarray (no NumPy
    scalar for the phi layer to wrap), and the inputs are left as they were."""
    rng = np.random.default_rng(17)
    a = (rng.standard_normal(shape) * 3).astype(dtype)
    b = rng.standard_normal(shape).astype(dtype)
    a0, b0 = a.copy(), b.copy()
    squares = np.asarray(np.multiply(np.subtract(a, b), np.subtract(a, b)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = {"none": squares, "sum": np.sum(squares, dtype=dtype),
                    "mean": np.divide(np.sum(squares, dtype=dtype), squares.size)}[reduction]
        out = loss_kernels.fused_mse_loss(CPU_CONTEXT, a, b, reduction)
        assert type(out) is np.ndarray or not a.ndim
        same_bits(out, expected)
        tiny, huge = np.finfo(dtype).smallest_subnormal, np.finfo(dtype).max
        for value in (1.0, 0.37, -3e-3, tiny, huge / 4, -huge, np.inf, np.nan):
            g = np.full(shape if reduction == "none" else (), value, dtype)
            if reduction == "none":
                g = g * rng.standard_normal(shape).astype(dtype)
            want_input, want_label = _mse_grad_by_formula(a, b, g, reduction)
            for mask in (None, (True, False), (False, True), (True, True), (False, False)):
                got_input, got_label = loss_kernels.fused_mse_loss_grad(CPU_CONTEXT, a, b, g, reduction, out_mask=mask)
                wanted = (True, True) if mask is None else mask
                for got, want, is_wanted in ((got_input, want_input, wanted[0]), (got_label, want_label, wanted[1])):
                    if is_wanted:
                        assert type(got) is np.ndarray or not a.ndim  # (0-d: the phi layer wraps a scalar)
                        same_bits(got, want)
                    else:
                        assert got is None
    same_bits(a, a0)
    same_bits(b, b0)


def test_the_losses_count_operand_is_numpys_conversion_cached_read_only():
    """The losses divide by their count as host_factor(count, dtype): the 0-d array
    NumPy makes of the Python int (float16: rounded, and inf past 65504 with
    NumPy's overflow warning), never writable, and the cache stays bounded."""
    for size, dtype in ((640, np.float32), (2049, np.float16), (16777217, np.float32), (3, np.float64)):
        count = host_factor(size, np.dtype(dtype))
        same_bits(count, np.asarray(np.add(np.zeros((), dtype), size)))
        assert host_factor(size, np.dtype(dtype)) is count
        with pytest.raises(ValueError):
            count[...] = 1
    with pytest.warns(RuntimeWarning, match="overflow"):
        assert np.isinf(host_factor(70001, np.dtype(np.float16)))
    for size in range(funcs._FACTOR_LIMIT + 5):
        host_factor(size + 1, np.dtype(np.float64))
    assert len(funcs._FACTORS[np.dtype(np.float64)]) <= funcs._FACTOR_LIMIT

@pytest.mark.parametrize("transpose_x", [False, True])
@pytest.mark.parametrize("transpose_y", [False, True])
def test_matmul_grad_of_two_matrices(transpose_x, transpose_y):
    """The 2-D path: d op(x) = g op(y)^T and d op(y) = op(x)^T g, transposed back
    where the op was transposed; checked element by element against sums."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 3))  # op(x)
    b = rng.standard_normal((3, 2))  # op(y)
    g = rng.standard_normal((4, 2))
    x = a.T.copy() if transpose_x else a
    y = b.T.copy() if transpose_y else b
    fn = kernel("matmul_grad")
    x_grad, y_grad = fn(CPU_CONTEXT, x, y, g, transpose_x, transpose_y)
    da = np.array([[sum(g[i, j] * b[k, j] for j in range(2)) for k in range(3)] for i in range(4)])
    db = np.array([[sum(a[i, k] * g[i, j] for i in range(4)) for j in range(2)] for k in range(3)])
    np.testing.assert_allclose(x_grad, da.T if transpose_x else da, rtol=1e-12)
    np.testing.assert_allclose(y_grad, db.T if transpose_y else db, rtol=1e-12)
    only_y = fn(CPU_CONTEXT, x, y, g, transpose_x, transpose_y, out_mask=(False, True))
    assert only_y[0] is None and np.array_equal(only_y[1], y_grad)
    same_bits(on_fake_gpu(lambda ctx, *args: fn(ctx, *args)[0], x, y, g, transpose_x, transpose_y), x_grad)


def test_elementwise_grads_reduce_only_broadcast_inputs():
    rng = np.random.default_rng(6)
    x, y, g = rng.standard_normal((3, 4)), rng.standard_normal((4,)), rng.standard_normal((3, 4))
    x_grad, y_grad = kernel("add_grad")(CPU_CONTEXT, x, y, g)
    assert x_grad is g  # passed through: nothing to reduce
    np.testing.assert_allclose(y_grad, [g[0, j] + g[1, j] + g[2, j] for j in range(4)])
    x_grad, y_grad = kernel("subtract_grad")(CPU_CONTEXT, x, y, g)
    assert x_grad is g
    np.testing.assert_allclose(y_grad, [-(g[0, j] + g[1, j] + g[2, j]) for j in range(4)])
    x_grad, y_grad = kernel("multiply_grad")(CPU_CONTEXT, x, y, g, out_mask=(True, True))
    same_bits(x_grad, g * y)
    np.testing.assert_allclose(y_grad, [sum(g[i, j] * x[i, j] for i in range(3)) for j in range(4)])
    assert kernel("multiply_grad")(CPU_CONTEXT, x, y, g, out_mask=(False, True))[0] is None
    z = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(np.complex128)
    x_grad, y_grad = kernel("multiply_grad")(CPU_CONTEXT, z, z[::-1].copy(), np.ones(4, np.complex128))
    same_bits(x_grad, np.conj(z[::-1]))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + [np.complex64, np.complex128])
def test_exp_and_log_grads(dtype):
    """Real dtypes: exp_grad is called as the ufunc itself (out * out_grad, the same
    product either way round); complex ones conjugate, as the derivative needs."""
    x, g = sample((3, 5), dtype, 7, special=False), sample((3, 5), dtype, 8, special=False)
    with np.errstate(all="ignore"):
        out = np.exp(x)
        same_bits(kernel("exp_grad")(CPU_CONTEXT, out, g), g * np.conj(out))
        same_bits(kernel("log_grad")(CPU_CONTEXT, x, g), g / np.conj(x))
        same_bits(on_fake_gpu(kernel("exp_grad"), out, g), g * np.conj(out))
    if np.dtype(dtype).kind == "f":
        table = KERNELS.dispatch_table("exp_grad")
        assert table[np.ndarray, np.dtype(dtype)] is np.multiply


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.int64, np.bool_])
def test_host_seed_of_a_0d_tensor_is_a_fresh_writable_one(dtype):
    """loss.backward()'s host seed for a 0-d tensor (a copy of a read-only 0-d one per
    dtype) is ones of the dtype, a new writable array each time: writing into one
    seed changes neither the template nor the next seed; n-d seeds are ones too."""
    first = seeds.ones_like(DenseTensor(np.zeros((), dtype))).array
    second = seeds.ones_like(DenseTensor(np.zeros((), dtype))).array
    assert first is not second and first.flags.writeable and not np.shares_memory(first, second)
    same_bits(first, np.ones((), dtype))
    first[...] = 0
    same_bits(second, np.ones((), dtype))
    same_bits(seeds.ones_like(DenseTensor(np.zeros((), dtype))).array, np.ones((), dtype))
    same_bits(seeds.ones_like(DenseTensor(np.zeros((2, 3), dtype))).array, np.ones((2, 3), dtype))
    x = eager.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
    for _ in range(2):
        x.clear_grad()
        (x * x).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


def _softmax_ce_by_formula(z, labels, ignore_index, reduction):
    """Softmax cross entropy of rows z [N, C] written the plain row-wise way: the
    row maximum subtracted, exp, the row sums, log(sum) - the label's shifted
    logit, 0 on ignored rows, summed (/ the rows that count, at least 1)."""
    shifted = z - z.max(axis=1, keepdims=True)
    exps = np.exp(shifted)
    sums = exps.sum(axis=1)
    valid = labels != ignore_index
    safe = np.where(valid, labels, 0)
    rows = np.where(valid, np.log(sums) - shifted[np.arange(len(z)), safe], 0)
    loss = rows.sum()
    if reduction == "mean":
        loss = loss / max(int(valid.sum()), 1)
    return exps / sums[:, None], np.asarray(loss, z.dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("rows, classes", [(64, 10), (512, 10), (7000, 10), (40, 10), (39, 10), (8, 2), (3, 4), (1, 1), (16, 100)])
def test_fused_softmax_cross_entropy_host_kernels_are_the_formulas_bits(dtype, rows, classes):
    """The host forward (row maxima through a transposed copy for many short rows,
    block by block past _MAX_BLOCK elements (7000 x 10),
    a cached row index, direct reductions, the count as a 0-d array) gives the
    plain row-wise formula's bits, with ignored rows, masked (-inf) and NaN
    logits and rows of signed zeros; the backward gives (softmax - onehot) g / count
    written the plain way, bit for bit."""
    rng = np.random.default_rng(23)
    for variant in ("plain", "ignored", "masked", "nan", "zeros"):
        z = (rng.standard_normal((rows, classes)) * 3).astype(dtype)
        labels = rng.integers(0, classes, rows)
        if variant == "ignored":
            labels[::3] = -100
        elif variant == "masked":
            z[:, ::4] = -np.inf
            labels = np.where(labels % 4 == 0, (labels + 1) % classes, labels)
        elif variant == "nan":
            z.reshape(-1)[5::17] = np.nan
        elif variant == "zeros":
            z[...] = 0.0
            z.reshape(-1)[::2] = -0.0
        z0 = z.copy()
        for reduction in ("mean", "sum"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                want_softmax, want_loss = _softmax_ce_by_formula(z, labels, -100, reduction)
                softmax, value = loss_kernels.fused_softmax_cross_entropy(CPU_CONTEXT, z, labels, -100, reduction)
                same_bits(softmax, want_softmax)
                same_bits(value, want_loss)
                g = np.asarray(0.37, dtype)
                valid = labels != -100
                scale = g / max(int(valid.sum()), 1) if reduction == "mean" else g
                want_grad = softmax * (valid * scale)[:, None] if variant == "ignored" else softmax * scale
                want_grad[np.arange(rows), np.where(valid, labels, 0)] -= valid * scale if variant == "ignored" else scale
                got = loss_kernels.fused_softmax_cross_entropy_grad(CPU_CONTEXT, labels, softmax, None, g, -100, reduction)
                same_bits(got, want_grad)
        same_bits(z, z0)


def test_fused_softmax_cross_entropy_row_index_is_cached_read_only():
    """The host's row index (np.arange(rows)) is one read-only array per row count,
    in a bounded cache."""
    index = loss_kernels._row_index(np, 7)
    assert loss_kernels._row_index(np, 7) is index
    np.testing.assert_array_equal(index, np.arange(7))
    with pytest.raises(ValueError):
        index[0] = 3
    for rows in range(loss_kernels._ROWS_LIMIT + 5):
        loss_kernels._row_index(np, rows + 1)
    assert len(loss_kernels._ROWS) <= loss_kernels._ROWS_LIMIT


@pytest.mark.parametrize("label_dtype", [np.int8, np.int32, np.int64, np.uint8])
def test_fused_softmax_cross_entropy_host_label_check_for_every_integer_dtype(label_dtype):
    """The host's one-reduction label check (the labels' unsigned view below C, with
    ignore_index outside [0, C)) lets only classes through: a label below 0 or at C
    raises naming 'label', whatever the integer dtype; an ignore_index inside [0, C)
    still drops its rows."""
    rng = np.random.default_rng(29)
    z = rng.standard_normal((40, 10))
    labels = rng.integers(0, 10, 40).astype(label_dtype)
    bad_values = (10, 255) if label_dtype is np.uint8 else (-1, 10, 127)
    for bad in bad_values:
        wrong = labels.copy()
        wrong[7] = bad
        for ignore_index in (-100, 3, 200):
            with pytest.raises(InvalidArgumentError, match=f"argument 'label'.*got {bad}"):
                loss_kernels.fused_softmax_cross_entropy(CPU_CONTEXT, z, wrong, ignore_index, "mean")
            with pytest.raises(InvalidArgumentError, match=f"argument 'label'.*got {bad}"):
                loss_kernels.fused_softmax_cross_entropy_grad(CPU_CONTEXT, wrong, z, None, np.asarray(1.0), ignore_index, "mean")
    kept = labels != 3
    _, dropped = loss_kernels.fused_softmax_cross_entropy(CPU_CONTEXT, z, labels, 3, "sum")
    _, only_kept = loss_kernels.fused_softmax_cross_entropy(CPU_CONTEXT, z[kept], labels[kept], -100, "sum")
    np.testing.assert_allclose(dropped, only_kept, rtol=1e-14)
    assert kept.sum() < len(labels)
