"""Inplace ops whose kernel writes straight into the target's buffer (into=):
values against NumPy, no temporary, aliasing, failures leave x as it was,
versions and autograd as on the copying path."""
import tracemalloc

import numpy as np
import pytest

import eager
from eager.errors import AutogradError
from phi.core import KERNELS
from phi.core.kernel_registry import forwarded_xp_function

RNG = np.random.default_rng(14)


def _pair(shape=(3, 4), dtype="float32"):
    a = RNG.uniform(0.5, 2.0, shape).astype(dtype)
    b = RNG.uniform(0.5, 2.0, shape).astype(dtype)
    return a, b


BINARY = [("add_", np.add), ("subtract_", np.subtract), ("multiply_", np.multiply), ("divide_", np.divide)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,ref", BINARY)
def test_binary_values_written_into_x_buffer(name, ref, dtype):
    a, b = _pair(dtype=dtype)
    x, y = eager.to_tensor(a), eager.to_tensor(b)
    buffer = x.impl.array
    assert getattr(x, name)(y) is x
    assert x.impl.array is buffer  # the same array object, written in place
    np.testing.assert_allclose(x.numpy(), ref(a, b), rtol=1e-6)
    np.testing.assert_array_equal(y.numpy(), b)


def test_binary_broadcast_y_and_integer_add():
    a, b = _pair((2, 3))
    x = eager.to_tensor(a)
    x.add_(eager.to_tensor(b[0]))
    np.testing.assert_allclose(x.numpy(), a + b[0], rtol=1e-6)
    i = eager.to_tensor(np.arange(6, dtype="int32"))
    i.multiply_(eager.to_tensor(np.full(6, 3, dtype="int32")))
    np.testing.assert_array_equal(i.numpy(), np.arange(6) * 3)
    assert i.dtype == eager.int32


@pytest.mark.parametrize("name,ref", [("exp_", np.exp), ("tanh_", np.tanh)])
def test_unary_values(name, ref):
    a, _ = _pair(dtype="float64")
    x = eager.to_tensor(a)
    buffer = x.impl.array
    getattr(x, name)()
    assert x.impl.array is buffer
    np.testing.assert_allclose(x.numpy(), ref(a), rtol=1e-12)


@pytest.mark.parametrize("scale,bias,after,dtype", [
    (2.5, 0.0, True, "float32"), (2.5, 1.5, True, "float32"), (0.5, 1.0, False, "float64"),
    (3, 2, True, "int64"), (1.5, 0.0, True, "int32"),
])
def test_scale_values(scale, bias, after, dtype):
    a = np.arange(-6, 6).reshape(3, 4).astype(dtype)
    x = eager.to_tensor(a)
    buffer = x.impl.array
    x.scale_(scale, bias, after)
    if np.dtype(dtype).kind == "i":  # Paddle 2.6.2 casts scale and bias to an integer x's type first
        scale, bias = int(scale), int(bias)
    expected = a.astype("float64") * scale + bias if after else (a.astype("float64") + bias) * scale
    assert x.impl.array is buffer and x.numpy().dtype == np.dtype(dtype)
    np.testing.assert_allclose(x.numpy(), expected.astype(dtype), rtol=1e-6)


def test_no_temporary_of_the_result_size():
    a, b = _pair((512, 512))
    x, y = eager.to_tensor(a), eager.to_tensor(b)
    x.add_(y)  # the first call selects and remembers
    x.scale_(0.5)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        x.add_(y)
        x.scale_(0.5, 1.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < a.nbytes // 8  # the copying path allocates a.nbytes for the result
    np.testing.assert_allclose(x.numpy(), ((a + b) * 0.5 + b) * 0.5 + 1.0, rtol=1e-5)


def test_aliasing_self_and_overlapping_views():
    a, _ = _pair((8,), "float64")
    x = eager.to_tensor(a)
    x.add_(x)
    np.testing.assert_allclose(x.numpy(), a + a)
    x.multiply_(x)
    np.testing.assert_allclose(x.numpy(), (a + a) ** 2)
    base = eager.to_tensor(a)
    head, tail = base[:-1], base[1:]  # overlapping: head[i + 1] is tail[i]
    expected = a.copy()
    expected[:-1] = a[:-1] - a[1:]  # the whole result first, then written
    head.subtract_(tail)
    np.testing.assert_allclose(base.numpy(), expected)


def test_failures_leave_x_and_its_version_unchanged():
    a, b = _pair((3,))
    x = eager.to_tensor(a)
    version = x.inplace_version
    with pytest.raises(ValueError, match=r"add_: the result has shape \[2, 3\].*shape \[3\]"):
        x.add_(eager.to_tensor(np.ones((2, 3), "float32")))
    with pytest.raises(Exception, match="multiply.*dtype"):
        x.multiply_(eager.to_tensor(b.astype("float64")))
    i = eager.to_tensor(np.arange(3, dtype="int32"))
    with pytest.raises(Exception, match="divide_: argument 'y' holds a zero divisor"):
        i.divide_(eager.to_tensor(np.zeros(3, "int32")))
    np.testing.assert_array_equal(x.numpy(), a)
    np.testing.assert_array_equal(i.numpy(), np.arange(3))
    assert x.inplace_version == version and i.inplace_version == 0


def test_versions_bump_once_per_op_and_views_share_them():
    a, b = _pair((4,))
    base = eager.to_tensor(a)
    view = base[1:]
    base.add_(eager.to_tensor(b))
    base.exp_()
    view.scale_(2.0)
    assert base.inplace_version == 3 and view.inplace_version == 3
    expected = np.exp(a + b)
    expected[1:] *= 2.0
    np.testing.assert_allclose(base.numpy(), expected, rtol=1e-6)


def test_gradients_through_inplace_ops_match_the_maths():
    w0 = RNG.uniform(-1, 1, (2, 3))
    w = eager.to_tensor(w0, stop_gradient=False)
    y = w * 2.0
    y.scale_(3.0, 1.0)
    y.add_(w)
    y.exp_()  # saves its output: nothing may write into y after this
    z = w * 1.0
    z.tanh_()
    (y.sum() + z.sum()).backward()
    inner = 6.0 * w0 + 1.0 + w0
    expected = np.exp(inner) * 7.0 + (1 - np.tanh(w0) ** 2)
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-10)


def test_leaf_rule_and_saved_tensor_version_error():
    w = eager.to_tensor(np.ones((2,)), stop_gradient=False)
    with pytest.raises(AutogradError, match="add_"):
        w.add_(eager.to_tensor(np.ones((2,))))
    np.testing.assert_array_equal(w.numpy(), np.ones(2))
    t = eager.tanh(w)
    out = t.sum()
    with eager.no_grad():
        t.add_(eager.to_tensor(np.ones((2,))))
    with pytest.raises(AutogradError, match="version 0.*version 1|version 1.*version 0"):
        out.backward()


def test_the_property_is_declared_by_the_kernel():
    assert all(KERNELS.writes_into(op) for op in ("add", "subtract", "multiply", "divide", "exp", "tanh", "scale"))
    assert not KERNELS.writes_into("matmul") and not KERNELS.writes_into("no_such_kernel")

    def forwards(ctx, x, y, *, into=None):
        return ctx.xp.add(x, y, out=into)

    def renamed(ctx, x, y, *, into=None):
        return ctx.xp.add(x, y, where=into)

    assert forwarded_xp_function(forwards) == "add"
    assert forwarded_xp_function(renamed) is None
    # Called without into= (the out-of-place op), the kernel stays bound as the ufunc.
    from phi.api import generated_api
    eager.to_tensor(np.ones(2, "float32")) + eager.to_tensor(np.ones(2, "float32"))
    assert generated_api._add_kernel[np.ndarray, np.dtype("float32")] is np.add
