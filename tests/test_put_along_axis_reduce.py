"""put_along_axis's reductions 'mean', 'amin', 'amax' and include_self=False (Paddle 2.6):
values on repeated indices against the element-by-element reference, Paddle's docstring
examples, gradients (finite differences, and Paddle's sharing rule at ties), the inplace
form, the composite (double-grad) rule against the kernel, and the errors."""
import numpy as np
import pytest

import eager
from eager.autograd import gradcheck
from op_specs.gather_scatter import ref_put_along_axis, ref_put_along_axis_extremum_grad

pytestmark = pytest.mark.usefixtures("device")

REDUCES = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")


def t(values, dtype=None, grad=False):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=not grad)


# arr [3, 4]; along axis 1 each row writes 5 values into 4 columns, so places repeat
ARR = np.array([[0.3, -1.2, 2.5, 0.9], [1.7, -0.4, 0.05, -2.2], [-0.8, 1.1, -1.9, 0.6]])
IDX = np.array([[0, 2, 2, 3, 0], [1, 1, 1, 0, 3], [3, 3, 2, 2, 3]])
VALS = np.array([[1.3, -0.7, 0.45, -1.6, 2.2], [0.15, -2.4, 1.9, 0.8, -0.35],
                 [-1.05, 0.65, 2.8, -0.25, 1.45]])


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "int8", "uint8", "float16"])
def test_values_with_repeated_indices_match_the_reference(reduce, include_self, dtype):
    scale = 10 if dtype in ("int64", "int32", "int8") else 1
    arr = (ARR * scale).astype(dtype) if dtype != "uint8" else np.abs(ARR * 10).astype(dtype)
    vals = (VALS * scale).astype(dtype) if dtype != "uint8" else np.abs(VALS * 10).astype(dtype)
    if reduce in ("mul", "multiply") and dtype in ("int8", "uint8"):
        vals = np.sign(vals).astype(dtype)  # no wrap-around in 8 bits
    got = eager.put_along_axis(t(arr), t(IDX), t(vals), 1, reduce, include_self)
    want = ref_put_along_axis(arr, IDX, vals, 1, reduce, include_self)
    tol = 2e-3 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)
    assert got.dtype == eager.to_tensor(arr).dtype


def test_paddles_docstring_examples():
    x = eager.to_tensor([[10, 30, 20], [60, 40, 50]])
    index = eager.zeros((2, 2)).astype("int32")
    value = eager.to_tensor([[1, 2], [3, 4]]).astype(x.dtype)
    want = {"add": [[14, 36, 20], [60, 40, 50]], "mul": [[30, 240, 20], [60, 40, 50]],
            "mean": [[4, 12, 20], [60, 40, 50]], "amin": [[1, 2, 20], [60, 40, 50]],
            "amax": [[10, 30, 20], [60, 40, 50]]}
    for reduce, expected in want.items():
        assert eager.put_along_axis(x, index, value, 0, reduce, True, False).numpy().tolist() == expected
    assert eager.put_along_axis(x, index, value, 0, "add", False, False).numpy().tolist() == [[4, 6, 20],
                                                                                           [60, 40, 50]]


def test_integer_mean_truncates_toward_zero_as_cs_division():
    # (-7 + 0) / 2 = -3.5 -> -3 (not floor's -4); (7 + 0) / 2 -> 3
    got = eager.put_along_axis(t([[-7, 7]], "int64"), t([[0, 1]]), t([[0, 0]], "int64"), 1, "mean")
    assert got.numpy().tolist() == [[-3, 3]]


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["mean", "amin", "amax", "add", "mul"])
def test_gradients_match_finite_differences(reduce, include_self):
    # distinct values everywhere, so amin/amax have no ties and are differentiable
    def f(a, v):
        return eager.put_along_axis(a, t(IDX), v, 1, reduce, include_self) * t(np.arange(12.0).reshape(3, 4) - 4)

    assert gradcheck(f, (t(ARR, grad=True), t(VALS, grad=True)))


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["amin", "amax"])
def test_extremum_ties_share_the_gradient_equally(reduce, include_self):
    # row 0: arr's 1.0 ties with two values at column 0; row 1: two of three values tie at column 2
    arr = np.array([[1.0, 5.0, 5.0], [0.0, 0.0, 0.0]]) * (1 if reduce == "amin" else -1)
    vals = np.array([[1.0, 1.0, 3.0], [-2.0, 4.0, -2.0]]) * (1 if reduce == "amin" else -1)
    idx = np.array([[0, 0, 0], [2, 2, 2]])
    a, v = t(arr, grad=True), t(vals, grad=True)
    out = eager.put_along_axis(a, t(idx), v, 1, reduce, include_self)
    g = np.array([[6.0, 2.0, 3.0], [12.0, 5.0, 7.0]])
    out.backward(t(g))
    want_a, want_v = ref_put_along_axis_extremum_grad(arr, idx, vals, out.numpy(), g, 1, include_self, True)
    np.testing.assert_allclose(a.grad.numpy(), want_a)
    np.testing.assert_allclose(v.grad.numpy(), want_v)
    # by hand: row 0 column 0 (gradient 6) is shared three ways with arr, two without; row 1
    # column 2 (gradient 7) two ways; columns no value reached pass their gradient to arr
    share = 2.0 if include_self else 3.0
    np.testing.assert_allclose(v.grad.numpy(), [[share, share, 0.0], [3.5, 0.0, 3.5]])
    np.testing.assert_allclose(a.grad.numpy(), [[2.0 if include_self else 0.0, 2.0, 3.0], [12.0, 5.0, 0.0]])


@pytest.mark.parametrize("reduce", ["mean", "amin", "amax", "mul"])
@pytest.mark.parametrize("include_self", [True, False])
def test_composite_rule_matches_the_kernel(reduce, include_self):
    # create_graph=True differentiates through the composite rule (forward ops): same gradients
    weights = t(np.arange(12.0).reshape(3, 4) - 4)
    grads = []
    for create_graph in (False, True):
        a, v = t(ARR, grad=True), t(VALS, grad=True)
        out = eager.put_along_axis(a * a, t(IDX), v, 1, reduce, include_self)
        grads.append([g.numpy() for g in eager.grad((out * weights).sum(), [a, v], create_graph=create_graph)])
    for kernel, composite in zip(*grads):
        np.testing.assert_allclose(composite, kernel, rtol=1e-12, atol=1e-12)


def test_second_order_through_mean():
    # out = mean(x^2, v) at the written places: d/dx sum = 2x / (count + 1) there, so d2 = 2 / (count + 1)
    x = t([1.0, 2.0, 3.0], grad=True)
    out = eager.put_along_axis(x * x, t([0, 0, 2]), t([5.0, 6.0, 7.0]), 0, "mean")
    (g,) = eager.grad(out.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), [2.0 / 3, 4.0, 3.0])
    (h,) = eager.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), [2.0 / 3, 2.0, 1.0])


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["mean", "amin", "amax", "add", "mul"])
def test_inplace_form_matches_out_of_place_values_and_gradients(reduce, include_self):
    seed = t(np.arange(12.0).reshape(3, 4) - 5)
    results = []
    for inplace in (False, True):
        a, v = t(ARR, grad=True), t(VALS, grad=True)
        base = a * 1.0
        if inplace:
            out = base.put_along_axis_(t(IDX), v, 1, reduce, include_self)
            assert out is base
        else:
            out = eager.put_along_axis(base, t(IDX), v, 1, reduce, include_self)
        out.backward(seed)
        results.append((out.numpy(), a.grad.numpy(), v.grad.numpy()))
    for want, got in zip(*results):
        np.testing.assert_array_equal(got, want)


def test_eager_put_along_axis_inplace_function_takes_include_self():
    x = t([[1.0, 2.0, 3.0]])
    eager.put_along_axis_(x, t([[0, 0]]), t([[4.0, 8.0]]), 1, "mean", False)
    np.testing.assert_array_equal(x.numpy(), [[6.0, 2.0, 3.0]])


def test_unknown_reduce_names_the_allowed_ones():
    with pytest.raises(ValueError, match=r"put_along_axis: argument 'reduce' expected one of \['assign', 'add', "
                                         r"'mul', 'multiply', 'mean', 'amin', 'amax'\], got 'max'"):
        eager.put_along_axis(t(ARR), t(IDX), t(VALS), 1, "max")
    x = t(ARR)
    with pytest.raises(ValueError, match=r"put_along_axis.*'reduce'.*'min'"):
        x.put_along_axis_(t(IDX), t(VALS), 1, "min")
    np.testing.assert_array_equal(x.numpy(), ARR)  # nothing written


def test_extrema_refuse_complex_values():
    z = t(ARR.astype(np.complex128))
    with pytest.raises(ValueError, match=r"put_along_axis: argument 'reduce' 'amax' needs ordered values"):
        eager.put_along_axis(z, t(IDX), t(VALS.astype(np.complex128)), 1, "amax")
    # mean of complex values is defined
    got = eager.put_along_axis(z, t(IDX), t(VALS.astype(np.complex128)), 1, "mean")
    np.testing.assert_allclose(got.numpy(), ref_put_along_axis(ARR.astype(np.complex128), IDX,
                                                               VALS.astype(np.complex128), 1, "mean"))
