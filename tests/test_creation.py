"""Creation ops beyond the op table: inplace fills, Paddle's defaults and errors."""
import numpy as np
import pytest

import eager


def test_fill_and_zero_write_in_place_and_pass_a_zero_gradient():
    w = eager.to_tensor(np.arange(4.0), stop_gradient=False)
    h = w * 2.0
    assert h.fill_(3.0) is h
    np.testing.assert_array_equal(h.numpy(), [3.0] * 4)
    (h * w).sum().backward()
    # h no longer depends on w: only the direct factor w contributes.
    np.testing.assert_array_equal(w.grad.numpy(), [3.0] * 4)
    z = eager.ones([2, 3], "int32")
    assert z.zero_() is z and z.dtype == eager.int32
    np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3)))


def test_fill_refuses_a_value_the_dtype_cannot_hold():
    x = eager.ones([2], "int8")
    with pytest.raises(ValueError, match=r"fill_?: argument 'value' expected a number in \[-128, 127\]"):
        x.fill_(300)
    np.testing.assert_array_equal(x.numpy(), [1, 1])


def test_tril_inplace_and_method():
    x = eager.to_tensor(np.ones((3, 3)))
    assert x.tril_(-1) is x
    np.testing.assert_array_equal(x.numpy(), np.tril(np.ones((3, 3)), -1))
    np.testing.assert_array_equal(eager.ones([2, 2]).triu(1).numpy(), [[0, 1], [0, 0]])


def test_clone_is_a_copy_that_passes_gradients():
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    y = eager.clone(x)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0])
    z = x.detach().clone()
    z.fill_(0.0)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("call, dtype", [
    (lambda: eager.arange(5), eager.int64),
    (lambda: eager.arange(0, 5, 0.5), eager.float32),
    (lambda: eager.arange(2.0), eager.float32),
    (lambda: eager.linspace(0, 1, 3), eager.float32),
    (lambda: eager.eye(2), eager.float32),
    (lambda: eager.empty([2]), eager.float32),
    (lambda: eager.rand([2]), eager.float32),
    (lambda: eager.randint(3, shape=[2]), eager.int64),
    (lambda: eager.randperm(3), eager.int64),
    (lambda: eager.zeros_like(eager.ones([2], "int32")), eager.int32),
])
def test_paddle_default_dtypes(call, dtype):
    assert call().dtype == dtype


@pytest.mark.parametrize("call, message", [
    (lambda: eager.arange(0, 5, 0), r"arange: argument 'step' expected a non-zero step"),
    (lambda: eager.arange(0, 5, 0.5, "int64"), r"arange: argument 'step' expected a non-zero step once cast to paddle.int64"),
    (lambda: eager.arange(0, float("inf")), r"arange: argument 'end' expected a finite number"),
    (lambda: eager.linspace(0, 1, -1), r"linspace: argument 'num' expected a count >= 1"),
    (lambda: eager.eye(-2), r"eye: argument 'num_rows' expected a count >= 0"),
    (lambda: eager.tril(eager.ones([3])), r"tril: argument 'x' expected a tensor of at least 2 dimensions"),
    (lambda: eager.diag(eager.ones([2, 2, 2])), r"diag: argument 'x' expected a 0-D, 1-D or 2-D tensor"),
    (lambda: eager.diag(eager.ones([2], "int8"), 0, 1000), r"diag: argument 'padding_value'"),
    (lambda: eager.diag_embed(eager.ones([2]), 0, 0, -2), r"diag_embed: arguments 'dim1' and 'dim2' expected two"),
    (lambda: eager.diag_embed(eager.ones([2]), 0, 0, 3), r"diag_embed: argument 'dim2' expected an axis"),
    (lambda: eager.meshgrid([]), r"meshgrid: argument 'x' expected at least one tensor"),
    (lambda: eager.meshgrid([eager.ones([2, 2])]), r"meshgrid: argument 'x': x\[0\] expected a 0-d or 1-D"),
    (lambda: eager.meshgrid([eager.ones([2]), eager.ones([2], "float64")]), r"meshgrid: .*one dtype"),
])
def test_bad_creation_calls_are_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_meshgrid_second_derivative_through_products():
    a = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    b = eager.to_tensor([3.0, 4.0, 5.0], stop_gradient=False)
    ga, gb = eager.meshgrid([a, b])
    loss = (ga * ga * gb).sum()  # sum_ij a_i^2 b_j
    (da,) = eager.grad(loss, a, create_graph=True)
    np.testing.assert_allclose(da.numpy(), 2 * np.array([1.0, 2.0]) * 12.0)
    (dda,) = eager.grad(da.sum(), a)
    np.testing.assert_allclose(dda.numpy(), [24.0, 24.0])


def test_complex_gradients_are_the_parts_of_the_incoming_one_summed_over_broadcasting():
    real = eager.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
    imag = eager.to_tensor(np.array([[3.0], [4.0], [5.0]]), stop_gradient=False)
    z = eager.complex(real, imag)
    assert z.dtype == eager.complex128 and z.shape == [3, 2]
    seed = np.arange(6).reshape(3, 2) * (1 - 2j)
    z.backward(eager.to_tensor(seed))
    np.testing.assert_array_equal(real.grad.numpy(), seed.real.sum(axis=0))
    np.testing.assert_array_equal(imag.grad.numpy(), seed.imag.sum(axis=1, keepdims=True))


def test_complex_second_order_through_its_gradient():
    real = eager.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
    imag = eager.to_tensor(np.array([3.0, 4.0]), stop_gradient=False)
    g = eager.to_tensor(np.array([1 + 1j, 2 - 1j]), stop_gradient=False)
    real_grad, imag_grad = eager.grad(eager.complex(real, imag), [real, imag], grad_outputs=g, create_graph=True)
    a, b = np.array([2.0, -1.0]), np.array([0.5, 3.0])
    loss = (real_grad * eager.to_tensor(a)).sum() + (imag_grad * eager.to_tensor(b)).sum()
    (dg,) = eager.grad(loss, g)
    np.testing.assert_allclose(dg.numpy(), a + 1j * b)


def test_complex_needs_one_real_floating_dtype():
    with pytest.raises(ValueError, match="complex: arguments 'real' and 'imag' expected the same dtype"):
        eager.complex(eager.ones([2]), eager.ones([2], "float64"))
    with pytest.raises(ValueError, match="complex: argument 'real' expected one of paddle.float32, paddle.float64"):
        eager.complex(eager.ones([2], "int32"), eager.ones([2], "int32"))


def test_arange_refuses_bounds_its_dtype_cannot_hold():
    with pytest.raises(ValueError, match=r"arange: argument 'end' expected a number in \[-2147483648"):
        eager.arange(0, 2 ** 40, 2 ** 38, "int32")
    assert eager.arange(2 ** 40, 2 ** 40 + 3).numpy().tolist() == [2 ** 40, 2 ** 40 + 1, 2 ** 40 + 2]
