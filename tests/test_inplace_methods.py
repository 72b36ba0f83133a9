"""Paddle's inplace functions and Tensor methods added from its tensor_method_func list:
the ops.yaml twins (log_, pow_, sigmoid_, neg_, square_, masked_scatter_), the compositions
of eager.inplace_composed (logit_, sinc_, gcd_, lcm_, ldexp_, mod_, floor_mod_, where_, addmm_,
renorm_),
the ones that change x's dtype (cast_, the comparisons and logical ops: x becomes
bool, as Paddle's inplace compare kernels make it), transpose_ / t_, and the
methods add_n, broadcast_shape, polar, vander, eigvalsh, reverse.

Values against NumPy from the maths and against the out-of-place op, one version
bump, the buffer kept where the dtype is, saved-for-backward inputs protected by
the version counter, gradients of inplace chains against central differences,
and errors by type and message that leave x as it was. The elementwise ones run
on the device axis (tests/fake_cupy.py stands in for a GPU)."""
import numpy as np
import pytest

import eager
from eager.autograd import AutogradError

RNG = np.random.default_rng(3151)


def _t(a, **kwargs):
    return eager.to_tensor(np.asarray(a), **kwargs)


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


# name, args after x, x, reference from the maths
KEEP_DTYPE = [
    ("log_", (), lambda: RNG.uniform(0.5, 3, (3, 4)), np.log),
    ("pow_", (3.0,), lambda: RNG.uniform(-2, 2, (3, 4)), lambda a: a ** 3),
    ("sigmoid_", (), lambda: RNG.uniform(-4, 4, (3, 4)), _sigmoid),
    ("neg_", (), lambda: RNG.uniform(-2, 2, (3, 4)), np.negative),
    ("neg_", (), lambda: RNG.integers(-9, 9, (3, 4)), np.negative),
    ("square_", (), lambda: RNG.uniform(-2, 2, (3, 4)), np.square),
    ("logit_", (), lambda: RNG.uniform(0.05, 0.95, (3, 4)), lambda a: np.log(a / (1 - a))),
    ("sinc_", (), lambda: RNG.uniform(-2, 2, (3, 4)), lambda a: np.sin(np.pi * a) / (np.pi * a)),
    ("logit_", (0.2,), lambda: RNG.uniform(0.0, 1.0, (3, 4)),
     lambda a: np.log(np.clip(a, 0.2, 0.8) / (1 - np.clip(a, 0.2, 0.8)))),
]


def _gcd(a, b):
    out = np.empty(np.broadcast(a, b).shape, dtype=np.result_type(a, b))
    for index in np.ndindex(out.shape):
        p, q = abs(int(np.broadcast_to(a, out.shape)[index])), abs(int(np.broadcast_to(b, out.shape)[index]))
        while q:
            p, q = q, p % q
        out[index] = p
    return out


def _lcm(a, b):
    g = _gcd(a, b)
    return np.where(g == 0, 0, np.abs(a * b) // np.where(g == 0, 1, g))


# name, x, y (broadcasting to x), reference
BINARY = [
    ("gcd_", lambda: RNG.integers(-30, 30, (3, 4)), lambda: RNG.integers(-30, 30, (4,)), _gcd),
    ("lcm_", lambda: RNG.integers(-12, 12, (3, 4)), lambda: RNG.integers(-12, 12, (3, 4)), _lcm),
    ("ldexp_", lambda: RNG.uniform(-2, 2, (3, 4)), lambda: RNG.integers(-3, 4, (3, 4)),
     lambda a, b: a * 2.0 ** b),
    ("mod_", lambda: RNG.integers(-20, 20, (3, 4)), lambda: RNG.integers(1, 6, (3, 4)),
     lambda a, b: a - (a // b) * b),
    ("floor_mod_", lambda: RNG.uniform(-5, 5, (3, 4)), lambda: RNG.uniform(0.5, 2, (4,)),
     lambda a, b: a - np.floor(a / b) * b),
]

COMPARISONS = [("equal_", np.equal), ("not_equal_", np.not_equal), ("less_than_", np.less),
               ("less_equal_", np.less_equal), ("greater_than_", np.greater),
               ("greater_equal_", np.greater_equal), ("logical_and_", np.logical_and),
               ("logical_or_", np.logical_or), ("logical_xor_", np.logical_xor)]


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("name,args,make,reference", KEEP_DTYPE, ids=[c[0] for c in KEEP_DTYPE])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_inplace_matches_the_out_of_place_op_and_the_maths(name, args, make, reference, dtype):
    a = make()
    a = a.astype(dtype) if a.dtype.kind == "f" else a
    x = _t(a)
    expected = getattr(eager, name[:-1])(_t(a), *args).numpy()
    buffer, version = x.impl.array, x.inplace_version
    assert getattr(x, name)(*args) is x
    assert x.impl.array is buffer and x.inplace_version == version + 1
    np.testing.assert_array_equal(x.numpy(), expected)
    np.testing.assert_allclose(x.numpy(), reference(a), rtol=1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("name,make_x,make_y,reference", BINARY, ids=[c[0] for c in BINARY])
def test_binary_inplace_matches_the_out_of_place_op_and_the_maths(name, make_x, make_y, reference):
    a, b = make_x(), make_y()
    x, y = _t(a), _t(b)
    expected = getattr(eager, name[:-1])(_t(a), y).numpy()
    buffer, version = x.impl.array, x.inplace_version
    assert getattr(eager, name)(x, y) is x  # the function form ...
    assert x.impl.array is buffer and x.inplace_version == version + 1
    np.testing.assert_array_equal(x.numpy(), expected)
    np.testing.assert_allclose(x.numpy(), reference(a, b), rtol=1e-6)
    again = _t(a)
    assert getattr(again, name)(y) is again  # ... and the Tensor method
    np.testing.assert_array_equal(again.numpy(), expected)


@pytest.mark.usefixtures("device")
def test_where_and_addmm_write_into_their_target():
    a, b = RNG.uniform(-1, 1, (3, 4)), RNG.uniform(-1, 1, (3, 4))
    x, condition = _t(a), _t(a > 0)
    buffer = x.impl.array
    assert eager.where_(condition, x, _t(b)) is x and x.impl.array is buffer
    np.testing.assert_array_equal(x.numpy(), np.where(a > 0, a, b))
    x = _t(a)
    assert condition.where_(x, 0.5) is x  # the method's tensor is the condition, as in Paddle
    np.testing.assert_array_equal(x.numpy(), np.where(a > 0, a, 0.5))

    target, m, n = RNG.uniform(-1, 1, (3, 4)), RNG.uniform(-1, 1, (3, 2)), RNG.uniform(-1, 1, (2, 4))
    x = _t(target)
    version = x.inplace_version
    assert x.addmm_(_t(m), _t(n), beta=0.5, alpha=2.0) is x and x.inplace_version == version + 1
    expected = np.array([[0.5 * target[i, j] + 2.0 * sum(m[i, k] * n[k, j] for k in range(2))
                          for j in range(4)] for i in range(3)])
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-12)


@pytest.mark.usefixtures("device")
def test_masked_scatter_and_renorm_write_into_their_target():
    a, mask = RNG.uniform(-1, 1, (3, 4)), RNG.uniform(0, 1, (3, 4)) > 0.5
    value = RNG.uniform(5, 6, (20,))
    x = _t(a)
    buffer, version = x.impl.array, x.inplace_version
    assert x.masked_scatter_(_t(mask), _t(value)) is x
    assert x.impl.array is buffer and x.inplace_version == version + 1
    expected, k = a.copy(), 0
    for index in np.ndindex(a.shape):  # row-major: the k-th True place takes value[k]
        if mask[index]:
            expected[index], k = value[k], k + 1
    np.testing.assert_array_equal(x.numpy(), expected)
    flags = _t(mask)  # the mask is x itself: read before it is written
    flags.masked_scatter_(flags, _t(np.zeros(20, dtype=bool)))
    assert not flags.numpy().any()

    rows = RNG.uniform(-2, 2, (3, 4))
    x = _t(rows)
    buffer = x.impl.array
    assert eager.renorm_(x, 2.0, 0, 1.5) is x and x.impl.array is buffer
    norms = np.sqrt((rows ** 2).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(x.numpy(), np.where(norms > 1.5, rows * 1.5 / norms, rows), rtol=1e-6)


@pytest.mark.usefixtures("device")
@pytest.mark.parametrize("name,reference", COMPARISONS, ids=[c[0] for c in COMPARISONS])
def test_comparisons_make_x_bool_as_paddle(name, reference):
    a, b = RNG.integers(0, 3, (3, 4)), RNG.integers(0, 3, (4,))
    x = _t(a.astype("float32"))
    version = x.inplace_version
    assert getattr(x, name)(_t(b.astype("float32"))) is x
    assert x.dtype == eager.bool and x.inplace_version == version + 1
    np.testing.assert_array_equal(x.numpy(), reference(a, b))
    flags = _t(a > 0)  # a bool x is written in its own buffer
    buffer = flags.impl.array
    assert getattr(eager, name)(flags, _t(b > 1)) is flags and flags.impl.array is buffer
    np.testing.assert_array_equal(flags.numpy(), reference(a > 0, b > 1))


@pytest.mark.usefixtures("device")
def test_cast_changes_dtype_in_place_and_keeps_the_version_counter():
    x = _t([1.5, -2.5, 3.0])
    version = x.inplace_version
    assert x.cast_("int32") is x and x.dtype == eager.int32
    np.testing.assert_array_equal(x.numpy(), np.array([1, -2, 3], dtype="int32"))
    assert x.inplace_version == version + 1
    same = _t(np.array([1.0], dtype="float32"))
    assert eager.cast_(same, "float32") is same and same.inplace_version == 0  # nothing to convert


def test_transpose_and_t_take_the_new_shape():
    a = RNG.uniform(-1, 1, (2, 3, 4))
    x = _t(a)
    assert eager.transpose_(x, [2, 0, 1]) is x and x.shape == [4, 2, 3]
    np.testing.assert_array_equal(x.numpy(), np.moveaxis(a, 2, 0))
    m = _t(a[0])
    assert m.t_() is m and m.shape == [4, 3]
    np.testing.assert_array_equal(m.numpy(), a[0].T)
    line = _t(a[0, 0])
    assert line.t_().shape == [4]


def test_new_tensor_methods():
    a = RNG.uniform(-1, 1, (2, 3))
    assert eager.zeros([2, 1, 3]).broadcast_shape([4, 3]) == [2, 4, 3]
    np.testing.assert_array_equal(_t(a).reverse([1]).numpy(), a[:, ::-1])
    np.testing.assert_array_equal(eager.reverse(_t(a), 0).numpy(), a[::-1])
    np.testing.assert_array_equal(_t(a).add_n().numpy(), a)
    v = np.array([2.0, 3.0, 5.0])
    np.testing.assert_allclose(_t(v).vander(increasing=True).numpy(),
                               np.array([[p ** k for k in range(3)] for p in v]))
    r, theta = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    np.testing.assert_allclose(_t(r).polar(_t(theta)).numpy(), r * np.cos(theta) + 1j * r * np.sin(theta))
    s = np.array([[2.0, 1.0], [1.0, 2.0]])
    np.testing.assert_allclose(_t(s).eigvalsh().numpy(), [1.0, 3.0])
    np.testing.assert_allclose(eager.eigvalsh(_t(s), UPLO="U").numpy(), [1.0, 3.0])


# -- autograd -------------------------------------------------------------------------------------

def _central_differences(f, a, eps=1e-6):
    grad = np.zeros_like(a)
    for index in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = (f(up) - f(down)) / (2 * eps)
    return grad


def _yaml_chain(h):
    h.log_()
    h.pow_(3.0)
    h.neg_()
    h.square_()
    return h.sigmoid_()


def _composed_chain(h, exponent, other, condition, m, n):
    h.logit_()
    h.ldexp_(exponent)
    eager.where_(condition, h, other)
    return h.addmm_(m, n, beta=0.5, alpha=1.5)


def test_gradient_of_inplace_chains_matches_central_differences():
    a = RNG.uniform(0.6, 1.8, (2, 3))

    def value(chain, data):
        with eager.no_grad():
            return float(chain(_t(data)).sum())

    w = _t(a, stop_gradient=False)
    _yaml_chain(w * 1.0).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), _central_differences(lambda d: value(_yaml_chain, d), a),
                               rtol=1e-6, atol=1e-9)

    p = RNG.uniform(0.2, 0.8, (2, 2))
    exponent, condition = _t(RNG.integers(-2, 3, (2, 2))), _t(np.array([[True, False], [False, True]]))
    o, m, n = RNG.uniform(-1, 1, (2, 2)), RNG.uniform(-1, 1, (2, 3)), RNG.uniform(-1, 1, (3, 2))

    def composed(data, other=o, left=m):
        return _composed_chain(data, exponent, _t(other) if isinstance(other, np.ndarray) else other,
                               condition, _t(left) if isinstance(left, np.ndarray) else left, _t(n))

    w, other, left = _t(p, stop_gradient=False), _t(o, stop_gradient=False), _t(m, stop_gradient=False)
    composed(w * 1.0, other, left).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), _central_differences(lambda d: value(composed, d), p),
                               rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(other.grad.numpy(), _central_differences(
        lambda d: value(lambda h: composed(h, other=d), p), o), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(left.grad.numpy(), _central_differences(
        lambda d: value(lambda h: composed(h, left=d), p), m), rtol=1e-6, atol=1e-9)


def test_gradient_through_masked_scatter_sinc_and_renorm_matches_central_differences():
    a, v = RNG.uniform(-1, 1, (3, 2)), RNG.uniform(-1, 1, (4,))
    mask = _t(np.array([[True, False], [False, True], [True, False]]))

    def chain(h, value):
        h.masked_scatter_(mask, value)
        h.sinc_()
        return h.renorm_(2.0, 1, 0.9)

    def value_at(data, vdata):
        with eager.no_grad():
            return float((chain(_t(data), _t(vdata)) ** 2).sum())

    w, value = _t(a, stop_gradient=False), _t(v, stop_gradient=False)
    (chain(w * 1.0, value) ** 2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), _central_differences(lambda d: value_at(d, v), a),
                               rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(value.grad.numpy(), _central_differences(lambda d: value_at(a, d), v),
                               rtol=1e-6, atol=1e-9)


def test_gradient_through_cast_and_a_comparison():
    a = np.array([0.5, -1.5, 2.0], dtype="float32")
    w = _t(a, stop_gradient=False)
    h = w * 1.0
    h.cast_("float64")
    assert h.dtype == eager.float64 and not h.stop_gradient
    (h * h).sum().backward()
    assert w.grad.dtype == eager.float32
    np.testing.assert_allclose(w.grad.numpy(), 2 * a)
    g = w * 1.0
    g.greater_than_(_t(np.float32(0.0)))  # a bool result carries no gradient
    assert g.dtype == eager.bool and g.stop_gradient


@pytest.mark.parametrize("modify", [lambda h: h.log_(), lambda h: h.pow_(2.0), lambda h: h.neg_(),
                                    lambda h: h.logit_(), lambda h: h.cast_("float32"),
                                    lambda h: h.equal_(_t([0.5, 0.5])),
                                    lambda h: eager.where_(_t([True, False]), h, _t([0.0, 0.0]))],
                         ids=["log_", "pow_", "neg_", "logit_", "cast_", "equal_", "where_"])
def test_a_saved_input_modified_in_place_raises_at_backward(modify):
    w = _t([0.25, 0.5], stop_gradient=False)
    h = w * 1.0
    out = (h * h).sum()  # multiply saves h
    with eager.no_grad():
        modify(h)
    with pytest.raises(AutogradError, match="modified by an inplace operation"):
        out.backward()


# -- errors ---------------------------------------------------------------------------------------

LEAF_CALLS = [("log_", [0.25, 0.5], lambda w: w.log_()), ("logit_", [0.25, 0.5], lambda w: w.logit_()),
              ("cast_", [0.25, 0.5], lambda w: w.cast_("float32")),
              ("equal_", [0.25, 0.5], lambda w: w.equal_(_t([1.0, 2.0]))),
              ("transpose_", [[0.25, 0.5]], lambda w: w.transpose_([1, 0])),
              ("addmm_", [[0.25, 0.5], [0.1, 0.2]], lambda w: w.addmm_(_t([[1.0], [1.0]]), _t([[1.0, 1.0]])))]


@pytest.mark.parametrize("values,call", [c[1:] for c in LEAF_CALLS], ids=[c[0] for c in LEAF_CALLS])
def test_a_leaf_that_requires_grad_is_refused_and_left_as_it_was(values, call):
    w = _t(values, dtype="float64", stop_gradient=False)
    before, version = w.numpy().copy(), w.inplace_version
    with pytest.raises(AutogradError, match="leaf tensor with stop_gradient=False"):
        call(w)
    np.testing.assert_array_equal(w.numpy(), before)
    assert w.inplace_version == version and w.dtype == eager.float64
    with eager.no_grad():
        call(w)  # what initializers and optimizers do
    assert w.inplace_version == version + 1


@pytest.mark.parametrize("call,error,message", [
    (lambda x: x.equal_(_t(np.zeros((2, 3), "float32"))), ValueError,
     r"equal_: the result has shape \[2, 3\] but x, written in place, has shape \[3\]"),
    (lambda x: x.gcd_(_t([1, 2, 3])), TypeError, "gcd_: .*integer"),
    (lambda x: x.ldexp_(_t([1j, 1j, 1j])), TypeError, "ldexp_: argument 'y' expected a real Tensor"),
    (lambda x: x.logit_(eps=0.9), ValueError, r"logit_: argument 'eps' expected a number in \[0, 0.5\]"),
    (lambda x: x.logical_and_([1, 0, 1]), TypeError, "logical_and_: argument 'y' expected a Tensor"),
    (lambda x: eager.where_(x, x, 0.0), Exception, "where_: .*condition.*bool"),
    (lambda x: x.mod_(_t(np.zeros((4,), "float32"))), ValueError, "mod_: "),
    (lambda x: x.cast_("no-such-dtype"), Exception, "cast_: "),
    (lambda x: x.pow_(_t([2.0, 2.0])), TypeError, "pow_: argument 'y' expected a number"),
    (lambda x: x.addmm_(_t(np.ones((3, 2), "float32")), _t(np.ones((3, 2), "float32"))), ValueError,
     "addmm_: "),
])
def test_bad_calls_raise_clearly_and_leave_x_as_it_was(call, error, message):
    x = _t(np.array([0.25, 0.5, 0.75], dtype="float32"))
    version = x.inplace_version
    with pytest.raises(error, match=message):
        call(x)
    np.testing.assert_array_equal(x.numpy(), np.array([0.25, 0.5, 0.75], dtype="float32"))
    assert x.inplace_version == version and x.dtype == eager.float32


def test_an_integer_result_of_ldexp_cannot_be_written_into_an_integer_x():
    x = _t([1, 2])
    with pytest.raises(TypeError, match="ldexp_: the result is paddle.float32 but x, written in place, is paddle.int64"):
        x.ldexp_(_t([1, 1]))
    np.testing.assert_array_equal(x.numpy(), [1, 2])


def test_a_tracked_view_cannot_change_dtype_while_recording():
    w = _t([1.0, 2.0, 3.0, 4.0], stop_gradient=False)
    h = (w * 1.0).reshape([2, 2])
    with pytest.raises(RuntimeError, match="cast_: x is a view"):
        h.cast_("float32")
    assert h.dtype == eager.float64


def test_the_names_paddle_exports():
    for name in ("log_", "pow_", "sigmoid_", "neg_", "square_", "masked_scatter_", "sinc_", "renorm_",
                 "bernoulli_", "logit_", "gcd_", "lcm_", "ldexp_", "mod_",
                 "floor_mod_", "where_", "addmm_", "cast_", "transpose_", "t_", "reverse", "eigvalsh",
                 "normal_") + tuple(c[0] for c in COMPARISONS):
        assert callable(getattr(eager, name)), name
    for name in ("add_n", "broadcast_shape", "polar", "vander", "eigvalsh", "reverse", "t_", "transpose_"):
        assert callable(getattr(eager.Tensor, name)), name
