"""Bad input is caught before any kernel runs, with a message that names the op,
the argument, what was expected and what came; and a failed call changes nothing.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import eager
from eager.autograd import AutogradError
from phi.core.errors import InvalidArgumentError

NUMPY_DIR = os.path.dirname(np.__file__)


def t(shape, dtype="float64", stop_gradient=True):
    values = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) + 1
    return eager.to_tensor(values, stop_gradient=stop_gradient)


def assert_raised_outside_numpy(excinfo):
    """The error came from our checks, not from deep inside a NumPy kernel."""
    frames = [entry.path for entry in excinfo.traceback]
    assert not any(str(path).startswith(NUMPY_DIR) for path in frames), frames


def assert_mentions(message: str, *parts: str):
    for part in parts:
        assert part in message, f"{part!r} not in message:\n{message}"


# Each: (call, exception type, fragments the message must contain: the op, the
# argument(s), what was expected and what came).
BAD_CALLS = {
    "add shapes do not broadcast": (
        lambda: eager.add(t((3, 4)), t((5,))), InvalidArgumentError,
        ("add", "'x'", "'y'", "[3, 4]", "[5]", "4 vs 5")),
    "subtract shapes do not broadcast": (
        lambda: eager.subtract(t((2, 3)), t((2, 2))), InvalidArgumentError,
        ("subtract", "'x'", "'y'", "[2, 3]", "[2, 2]")),
    "matmul inner sizes differ": (
        lambda: eager.matmul(t((3, 4)), t((5, 6))), InvalidArgumentError,
        ("matmul", "x", "y", "[3, 4]", "[5, 6]", "inner size 4", "inner size 5")),
    "matmul transposed inner sizes differ": (
        lambda: eager.matmul(t((3, 4)), t((3, 4)), transpose_y=True, transpose_x=True), InvalidArgumentError,
        ("matmul", "inner size 3", "inner size 4")),
    "matmul of a 0-d tensor": (
        lambda: eager.matmul(t(()), t((2, 2))), InvalidArgumentError,
        ("matmul", "'x'", "at least 1-d", "[]")),
    "matmul batch dims do not broadcast": (
        lambda: eager.matmul(t((2, 3, 4)), t((3, 4, 5))), InvalidArgumentError,
        ("matmul", "'x'", "'y'", "2 vs 3")),
    "add float32 + int64 (no promotion rule)": (
        lambda: eager.add(t((2,), "float32"), t((2,), "int64")), InvalidArgumentError,
        ("add", "'x'", "'y'", "float32", "int64", "same dtype")),
    "multiply int64 * float64": (
        lambda: eager.multiply(t((2,), "int64"), t((2,), "float64")), InvalidArgumentError,
        ("multiply", "int64", "float64", "same dtype")),
    "sum axis out of range": (
        lambda: eager.sum(t((2, 3)), axis=[2]), InvalidArgumentError,
        ("sum", "'axis'", "[-2, 2)", "got 2")),
    "mean negative axis out of range": (
        lambda: eager.mean(t((2, 3)), axis=[-3]), InvalidArgumentError,
        ("mean", "'axis'", "[-2, 2)", "got -3")),
    "sum axis repeated": (
        lambda: eager.sum(t((2, 3)), axis=[1, -1]), InvalidArgumentError,
        ("sum", "'axis'", "more than once")),
    "sum axis of the wrong type": (
        lambda: eager.sum(t((2, 3)), axis="0"), TypeError,
        ("sum", "'axis'", "expected an int", "str")),
    "reshape to a different size": (
        lambda: eager.reshape(t((2, 3)), [4, 2]), InvalidArgumentError,
        ("reshape", "'shape'", "[4, 2]", "8 elements", "[2, 3]", "6")),
    "reshape with two -1": (
        lambda: eager.reshape(t((2, 3)), [-1, -1]), InvalidArgumentError,
        ("reshape", "'shape'", "-1 only once")),
    "reshape -1 that does not divide": (
        lambda: eager.reshape(t((2, 3)), [4, -1]), InvalidArgumentError,
        ("reshape", "'shape'", "[4, -1]", "6 elements")),
    "transpose perm repeats an axis": (
        lambda: eager.transpose(t((2, 3)), [0, 0]), InvalidArgumentError,
        ("transpose", "'perm'", "permutation of [0, 1]", "[2, 3]", "got [0, 0]")),
    "transpose perm too short": (
        lambda: eager.transpose(t((2, 3, 4)), [1, 0]), InvalidArgumentError,
        ("transpose", "'perm'", "permutation of [0, 1, 2]", "got [1, 0]")),
    "transpose perm out of range": (
        lambda: eager.transpose(t((2, 3)), [0, 2]), InvalidArgumentError,
        ("transpose", "'perm'", "got [0, 2]")),
    "add with a NumPy array": (
        lambda: eager.add(t((3,)), np.ones(3)), TypeError,
        ("add", "'y'", "expected a Tensor", "ndarray", "to_tensor")),
    "matmul with a list": (
        lambda: eager.matmul([[1.0, 2.0]], t((2, 1))), TypeError,
        ("matmul", "'x'", "expected a Tensor", "list")),
    "exp of None": (
        lambda: eager.exp(None), TypeError,
        ("exp", "'x'", "expected a Tensor", "None")),
    "pow with a string exponent": (
        lambda: eager.pow(t((2, 3)), "2"), TypeError,
        ("pow", "'y'", "expected a number")),
    "cast to an unknown dtype": (
        lambda: eager.cast(t((2,)), "float7"), TypeError,
        ("cast", "'dtype'", "float7", "float64")),
    "full with a negative size": (
        lambda: eager.full([2, -1], 1.0), InvalidArgumentError,
        ("full", "'shape'", ">= 0", "[2, -1]")),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_call_raises_a_named_error(name):
    call, error_type, fragments = BAD_CALLS[name]
    with pytest.raises(error_type) as excinfo:
        call()
    assert_mentions(str(excinfo.value), *fragments)
    assert_raised_outside_numpy(excinfo)


def test_phi_errors_list_every_input_shape_and_dtype():
    # Chainer-style: the message ends with each input's dtype and shape.
    with pytest.raises(InvalidArgumentError) as excinfo:
        eager.add(t((3, 4), "float32"), t((5,), "float32"))
    assert_mentions(str(excinfo.value), "inputs: x=paddle.float32[3, 4], y=paddle.float32[5]")


def test_invalid_argument_error_is_a_value_error():
    # Users catching ValueError (as with NumPy) still catch shape errors.
    with pytest.raises(ValueError):
        eager.add(t((3, 4)), t((5,)))


def test_backward_of_a_non_scalar_seeds_ones_as_paddle_does():
    x = t((2, 3), stop_gradient=False)
    y = x * 2
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2.0))
    (g,) = eager.grad(x * 3, x)
    np.testing.assert_array_equal(g.numpy(), np.full((2, 3), 3.0))


def test_backward_with_a_seed_of_the_wrong_shape():
    x = t((2, 3), stop_gradient=False)
    with pytest.raises(ValueError) as excinfo:
        (x * 2).backward(eager.to_tensor(np.ones((3, 2))))
    assert_mentions(str(excinfo.value), "grad_tensor", "float64[2, 3]", "float64[3, 2]")


# -- a failed call changes nothing ------------------------------------------------

FAILING_CALLS = {
    "add": lambda x, y: eager.add(x, y),
    "matmul": lambda x, y: eager.matmul(x, y),
    "add_": lambda x, y: x.add_(y),
    "multiply_": lambda x, y: x.multiply_(y),
    "divide_": lambda x, y: x.divide_(y),
}


@pytest.mark.parametrize("name", sorted(FAILING_CALLS))
def test_failed_call_leaves_inputs_unchanged(name):
    leaf = t((3, 4), stop_gradient=False)
    x = leaf * 2.0  # not a leaf, so the inplace ops may write into it
    y = t((5,), stop_gradient=False)
    x_before, y_before = x.numpy().copy(), y.numpy().copy()
    versions = (x.inplace_version, y.inplace_version)
    node_before = x.grad_node
    with pytest.raises(InvalidArgumentError):
        FAILING_CALLS[name](x, y)
    np.testing.assert_array_equal(x.numpy(), x_before)
    np.testing.assert_array_equal(y.numpy(), y_before)
    assert (x.inplace_version, y.inplace_version) == versions
    assert x.grad_node is node_before, "a failed inplace op must not rewire x's history"
    # x's history is intact: d sum(2 * leaf) / d leaf = 2, and y took no part.
    x.sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), np.full((3, 4), 2.0))
    assert y.grad is None


def test_failed_reshape_leaves_the_input_and_its_view_group_unchanged():
    x = t((2, 3))
    before = x.numpy().copy()
    with pytest.raises(InvalidArgumentError):
        eager.reshape(x, [5])
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.shape == [2, 3]
    assert x.inplace_version == 0
