"""Cases a random differential sweep of the inplace ops (every name ending in ``_``,
against its out-of-place twin on a copy, PyTorch's inplace twin, NumPy and finite
differences) found. Each test failed before its fix:

- ``remainder_`` / ``mod_`` / ``floor_mod_`` / ``floor_divide_`` (not differentiable)
  on a float tensor that requires grad kept its old history, so gradients flowed
  through the overwritten values, and a leaf with ``stop_gradient=False`` was written
  while recording; the result is now written in as a constant and the leaf refused.
- ``logical_not_`` on a non-bool tensor raised a dtype error; as ``logical_and_`` and
  Paddle's kernel, the target becomes bool.
- a generated inplace twin's kernel error named the out-of-place op (``add: ...`` for
  ``x.add_(y)``).
- ``scale_(..., act=...)`` whose activation refused x's dtype had already scaled x
  (version moved, error naming ``tanh_``).
- ``fill_diagonal_`` with an empty diagonal skipped the leaf rule and the version.
- ``add_`` / ``subtract_`` / ``multiply_`` / ``divide_`` refused a narrower float y
  (float64 x, float32 y) that Paddle's type promotion casts to x's dtype.
- ``copysign`` / ``copysign_`` (Paddle 2.6) were missing.
"""
import numpy as np
import pytest

import eager
from eager.autograd import AutogradError
from torch_reference import needs_torch, torch

pytestmark = pytest.mark.usefixtures("device")

NON_DIFFERENTIABLE = {
    "remainder_": lambda a, b: a - np.floor(a / b) * b,
    "mod_": lambda a, b: a - np.floor(a / b) * b,
    "floor_mod_": lambda a, b: a - np.floor(a / b) * b,
    "floor_divide_": lambda a, b: np.floor(a / b),
}


@pytest.mark.parametrize("op", sorted(NON_DIFFERENTIABLE))
def test_a_non_differentiable_inplace_op_cuts_the_gradient_of_what_it_overwrote(op):
    # (3 w).floor_divide_(y) kept the history of 3 w: d/dw of the result came out 3,
    # though the values no longer depend on w smoothly and the out-of-place op gives
    # no gradient at all.
    a = np.array([2.5, -1.5, 0.25])
    b = np.array([0.7, 0.9, -0.4])
    w = eager.to_tensor(a, stop_gradient=False)
    h = w * 3.0
    version = h.inplace_version
    assert getattr(h, op)(eager.to_tensor(b)) is h
    np.testing.assert_allclose(h.numpy(), NON_DIFFERENTIABLE[op](3.0 * a, b), rtol=1e-12, atol=1e-12)
    assert h.inplace_version == version + 1
    (h * 5.0 + w).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.ones(3))  # only the "+ w" term


@pytest.mark.parametrize("op", sorted(NON_DIFFERENTIABLE))
def test_a_non_differentiable_inplace_op_through_a_view_cuts_that_region_only(op):
    a = np.array([[2.5, -1.5], [0.25, 4.0]])
    w = eager.to_tensor(a, stop_gradient=False)
    h = w * 2.0
    getattr(h[1], op)(eager.to_tensor(np.array([0.7, 0.9])))
    np.testing.assert_allclose(h.numpy()[1], NON_DIFFERENTIABLE[op](2.0 * a[1], np.array([0.7, 0.9])))
    h.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[2.0, 2.0], [0.0, 0.0]])


@pytest.mark.parametrize("op", sorted(NON_DIFFERENTIABLE))
def test_a_non_differentiable_inplace_op_refuses_a_leaf_that_requires_grad(op):
    a = np.array([2.5, -1.5])
    w = eager.to_tensor(a, stop_gradient=False)
    y = eager.to_tensor(np.array([0.7, 0.9]))
    with pytest.raises(AutogradError, match=f"^{op}: a leaf tensor with stop_gradient=False"):
        getattr(w, op)(y)
    np.testing.assert_array_equal(w.numpy(), a)
    assert w.inplace_version == 0 and not w.stop_gradient
    with eager.no_grad():  # what an optimizer or an initializer does
        getattr(w, op)(y)
    np.testing.assert_allclose(w.numpy(), NON_DIFFERENTIABLE[op](a, np.array([0.7, 0.9])))
    assert w.inplace_version == 1


def test_a_non_differentiable_inplace_op_on_an_integer_tensor_writes_in_place():
    x = eager.to_tensor(np.array([7, -7, 9]))
    x.stop_gradient = False  # a flag that records nothing on an integer tensor
    assert x.floor_divide_(eager.to_tensor(np.array([2, 2, -4]))) is x
    np.testing.assert_array_equal(x.numpy(), [3, -4, -3])
    assert x.inplace_version == 1


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_logical_not_makes_a_non_bool_target_bool(dtype):
    # Paddle's LogicalNotKernel sets a shared output's type to BOOL, as logical_and_'s
    # does; eager's logical_not_ raised "the result is paddle.bool but ...".
    a = np.array([0, 2, -3, 0], dtype=dtype)
    x = eager.to_tensor(a)
    assert x.logical_not_() is x
    assert x.dtype == eager.bool
    np.testing.assert_array_equal(x.numpy(), np.logical_not(a))
    assert x.inplace_version == 1
    y = eager.to_tensor(a)
    assert eager.logical_not_(y) is y and y.dtype == eager.bool


def test_logical_not_of_a_bool_target_stays_in_its_buffer():
    x = eager.to_tensor(np.array([True, False]))
    view = x[0:1]
    x.logical_not_()
    np.testing.assert_array_equal(x.numpy(), [False, True])
    np.testing.assert_array_equal(view.numpy(), [False])  # the same buffer
    assert x.inplace_version == 1


def test_logical_not_refuses_a_leaf_that_requires_grad_and_bad_input():
    w = eager.to_tensor(np.array([0.0, 1.5]), stop_gradient=False)
    with pytest.raises(AutogradError, match="^logical_not_: a leaf tensor"):
        w.logical_not_()
    assert w.dtype == eager.float64 and w.inplace_version == 0
    np.testing.assert_array_equal(w.numpy(), [0.0, 1.5])
    with pytest.raises(TypeError, match="^logical_not_: argument 'x' expected a Tensor, got list"):
        eager.logical_not_([1, 0])


@pytest.mark.parametrize("call,error,message", [
    (lambda x: x.add_(eager.to_tensor(np.ones(3, "float64"))), ValueError,
     r"^add_: arguments 'x' and 'y' expected the same dtype, got paddle.float32 and paddle.float64"),
    (lambda x: x.multiply_(eager.to_tensor(np.ones(3, "int64"))), ValueError, r"^multiply_: arguments 'x' and 'y'"),
    (lambda x: x.remainder_(eager.to_tensor(np.ones(3, "float64"))), ValueError, r"^remainder_: arguments 'x' and 'y'"),
    (lambda x: x.clip_(2.0, 1.0), ValueError, r"^clip_: argument 'max' expected a bound >= min"),
    (lambda x: x.hypot_(eager.to_tensor(np.ones(3, "float64"))), ValueError, r"^hypot_: "),
])
def test_a_generated_inplace_op_names_itself_in_its_kernel_errors(call, error, message):
    a = np.array([0.5, 1.5, 2.5], "float32")
    x = eager.to_tensor(a)
    with pytest.raises(error, match=message):
        call(x)
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.inplace_version == 0 and x.dtype == eager.float32


@pytest.mark.parametrize("op", ["floor_divide_", "remainder_"])
def test_an_integer_zero_divisor_names_the_inplace_op(op):
    x = eager.to_tensor(np.arange(4))
    with pytest.raises(ValueError, match=f"^{op}: argument 'y' holds a zero divisor"):
        getattr(x, op)(eager.to_tensor(np.array([1, 0, 1, 1])))
    np.testing.assert_array_equal(x.numpy(), np.arange(4))
    assert x.inplace_version == 0


def test_scale_with_an_act_that_refuses_x_leaves_x_as_it_was():
    # scale_ wrote 2 x + 1 into x, then tanh_ refused the int64 result: x changed, its
    # version moved, and the error named tanh_.
    x = eager.to_tensor(np.array([1, 2, 3]))
    with pytest.raises(LookupError, match="^scale_: tanh: no kernel"):
        x.scale_(2.0, 1.0, act="tanh")
    np.testing.assert_array_equal(x.numpy(), [1, 2, 3])
    assert x.inplace_version == 0


def test_scale_with_act_writes_once_and_differentiates():
    a = np.array([-1.0, 0.25, 2.0])
    x = eager.to_tensor(a)
    assert eager.scale_(x, 3.0, 0.5, act="tanh") is x
    np.testing.assert_allclose(x.numpy(), np.tanh(3 * a + 0.5), rtol=1e-12)
    assert x.inplace_version == 1
    w = eager.to_tensor(a, stop_gradient=False)
    h = w * 1.0
    h.scale_(3.0, 0.5, bias_after_scale=False, act="tanh")
    h.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 3 * (1 - np.tanh(3 * (a + 0.5)) ** 2), rtol=1e-12)
    with pytest.raises(AutogradError, match="^scale_: a leaf tensor"):
        w.scale_(2.0, act="relu")
    np.testing.assert_array_equal(w.numpy(), a)


@pytest.mark.parametrize("shape,offset", [([3, 1], 1), ([0, 3], 0), ([2, 2], 2)])
def test_fill_diagonal_with_an_empty_diagonal_is_still_an_inplace_op(shape, offset):
    x = eager.zeros(shape, dtype="float64")
    assert x.fill_diagonal_(5.0, offset=offset) is x
    np.testing.assert_array_equal(x.numpy(), np.zeros(shape))
    assert x.inplace_version == 1
    w = eager.zeros(shape, dtype="float64")
    w.stop_gradient = False
    with pytest.raises(AutogradError, match="^fill_diagonal_: a leaf tensor"):
        w.fill_diagonal_(5.0, offset=offset)
    assert w.inplace_version == 0


@pytest.mark.parametrize("op,reference", [("add_", np.add), ("subtract_", np.subtract),
                                          ("multiply_", np.multiply), ("divide_", np.divide)])
def test_a_narrower_float_y_is_cast_to_x_dtype_as_paddle_promotes(op, reference):
    # Paddle's type promotion gives float64 for float64 x and float32 y, x's own dtype,
    # so x.add_(y) (and x += y) runs; eager refused the pair.
    a = np.array([1.5, -2.0, 4.0])
    b = np.array([0.5, 0.25, -8.0], "float32")
    x = eager.to_tensor(a)
    assert getattr(x, op)(eager.to_tensor(b)) is x
    assert x.dtype == eager.float64 and x.inplace_version == 1
    np.testing.assert_allclose(x.numpy(), reference(a, b.astype("float64")), rtol=1e-15)
    w = eager.to_tensor(a, stop_gradient=False)
    y = eager.to_tensor(b, stop_gradient=False)
    h = w * 1.0
    getattr(h, op)(y)
    (h * h).sum().backward()
    b64 = b.astype("float64")
    out = reference(a, b64)
    dx = {"add_": 1.0, "subtract_": 1.0, "multiply_": b64, "divide_": 1 / b64}[op]
    dy = {"add_": 1.0, "subtract_": -1.0, "multiply_": a, "divide_": -a / b64 ** 2}[op]
    np.testing.assert_allclose(w.grad.numpy(), 2 * out * dx, rtol=1e-12)
    assert y.grad.dtype == eager.float32  # each input's gradient in its own dtype
    np.testing.assert_allclose(y.grad.numpy(), 2 * out * dy, rtol=1e-6)


def test_a_wider_y_is_refused_by_an_inplace_op_and_x_is_left_as_it_was():
    a = np.array([1.5, -2.0], "float32")
    x = eager.to_tensor(a)
    with pytest.raises(ValueError, match=r"^add_: arguments 'x' and 'y' expected the same dtype, got paddle.float32 "
                                         r"and paddle.float64"):
        x += eager.to_tensor(np.array([1.0, 1.0]))
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.dtype == eager.float32 and x.inplace_version == 0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_copysign_and_copysign_are_paddles_missing_names(dtype):
    # Paddle 2.6 has copysign and copysign_; eager had neither.
    a = np.array([[1.5, -2.0, 3.0], [0.0, -0.0, 4.0]], dtype)
    b = np.array([-1.0, -0.0, 2.0], dtype)  # broadcast over a's rows
    np.testing.assert_array_equal(eager.copysign(eager.to_tensor(a), eager.to_tensor(b)).numpy(), np.copysign(a, b))
    x = eager.to_tensor(a)
    assert x.copysign_(eager.to_tensor(b)) is x and x.inplace_version == 1 and x.dtype == eager.to_tensor(a).dtype
    np.testing.assert_array_equal(np.signbit(x.numpy()), np.signbit(np.copysign(a, b)))
    with pytest.raises(ValueError, match=r"^copysign_: the result has shape \[2, 2, 3\]"):
        eager.to_tensor(a).copysign_(eager.to_tensor(np.ones((2, 2, 3), dtype)))
    with pytest.raises(TypeError, match="^copysign: arguments 'x' and 'y' expected a floating-point dtype"):
        eager.copysign(eager.to_tensor(np.array([1, 2])), eager.to_tensor(np.array([1, -2])))


@needs_torch
def test_copysign_gradient_matches_torch():
    a = np.array([1.5, -2.0, 3.0, 0.5, -0.25])
    b = np.array([-1.0, 1.0, -0.0, -2.0, 3.0])
    w = eager.to_tensor(a, stop_gradient=False)
    h = w * 1.0
    h.copysign_(eager.to_tensor(b))
    (h * h * h).sum().backward()
    tw = torch.tensor(a, requires_grad=True)
    torch.copysign(tw, torch.tensor(b)).pow(3).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)
    leaf = eager.to_tensor(a, stop_gradient=False)
    with pytest.raises(AutogradError, match="^copysign_: a leaf tensor"):
        leaf.copysign_(eager.to_tensor(b))
    np.testing.assert_array_equal(leaf.numpy(), a)
