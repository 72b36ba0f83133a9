"""Tensor operators with a Python number (ops.yaml's scalar_operator and
reflected_operator): ``x * 0.5``, ``0.5 * x``, ``x + 1``, ``1 + x`` and ``x - 1``
on a floating-point tensor run scale in the operator's own frame. They must be
exactly ``eager.scale`` with Paddle's arguments (values, dtype, grad node,
gradient, errors), and every other operand must still reach the operator
rules of eager.tensor_api (Paddle's promotion)."""
import numpy as np
import pytest

import eager
from eager.arguments import OPERATOR_FALLBACKS
from eager.tensor import Tensor

# operator, number -> the scale call Paddle makes for it
CASES = [
    (lambda x, n: x * n, lambda n: (n, 0.0)),
    (lambda x, n: n * x, lambda n: (n, 0.0)),
    (lambda x, n: x + n, lambda n: (1.0, n)),
    (lambda x, n: n + x, lambda n: (1.0, n)),
    (lambda x, n: x - n, lambda n: (1.0, -n)),
]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("number", [0.5, -3, 1000, -0.0, 1e-3])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_number_case_is_scale_with_paddles_arguments(dtype, number, case):
    op, scale_args = CASES[case]
    data = np.array([1.5, -2.0, 0.25], dtype)
    x = eager.to_tensor(data, stop_gradient=False)
    out = op(x, number)
    scale, bias = scale_args(number)
    expected = (data * np.asarray(scale, dtype) + np.asarray(bias, dtype)).astype(dtype)
    reference = eager.scale(eager.to_tensor(data), scale, bias)
    assert out.dtype == x.dtype == reference.dtype
    np.testing.assert_array_equal(out.numpy(), reference.numpy())
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-3 if dtype == "float16" else 1e-6)
    node = out.grad_node
    assert node.forward_op == "scale" and node.scale == float(scale)
    assert node.next_edges == (((x._meta.node, 0),),)
    out.backward(eager.to_tensor(np.array([1.0, 2.0, 3.0], dtype)))
    np.testing.assert_allclose(x.grad.numpy(), np.array([1.0, 2.0, 3.0], dtype) * np.asarray(scale, dtype))


def test_number_case_never_reaches_the_fallback(monkeypatch):
    def refuse(x, y):
        raise AssertionError("the operator rules of eager.tensor_api ran")
    for name in ("__add__", "__sub__", "__mul__"):
        monkeypatch.setitem(OPERATOR_FALLBACKS, name, refuse)
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    y = (0.5 * x + 1) * 2 - 0.25 + x * 3
    np.testing.assert_array_equal(y.numpy(), [5.75, 9.75])
    with eager.no_grad():
        assert (x * 2.0)._meta is None


@pytest.mark.parametrize("other", [True, np.float32(2.0), np.float64(0.5), 1 + 2j, np.int64(3),
                                   np.array([2.0], np.float32)])
def test_other_operands_still_take_the_promotion_rules(other, monkeypatch):
    seen = []
    for name in ("__add__", "__sub__", "__mul__"):
        rule = OPERATOR_FALLBACKS[name]
        monkeypatch.setitem(OPERATOR_FALLBACKS, name,
                            lambda x, y, rule=rule: seen.append(y) or rule(x, y))
    x = eager.to_tensor([1.0, 2.0])
    for result in (x * other, other * x if not isinstance(other, np.ndarray) else x * other, x + other, x - other):
        assert isinstance(result, Tensor)
    assert len(seen) == 4


def test_integer_and_bool_tensors_keep_paddles_promotion():
    i = eager.to_tensor(np.array([1, 2], "int32"))
    assert (i * 0.5).dtype == eager.float32 and (0.5 * i).dtype == eager.float32
    np.testing.assert_array_equal((0.5 * i).numpy(), [0.5, 1.0])
    assert (i + 1).dtype == eager.int32 and (1 + i).dtype == eager.int32
    b = eager.to_tensor([True, False])
    assert (b * 2).dtype == eager.int64 and (2 + b).dtype == eager.int64
    c = eager.to_tensor(np.array([1 + 1j], "complex64"))
    assert (c * 2.0).dtype == eager.complex64


def test_errors_still_name_the_op_and_argument():
    x = eager.to_tensor([1.0, 2.0])
    with pytest.raises(ValueError, match=r"scale: argument 'scale' expected a number a float64 can hold"):
        x * 2 ** 2000
    with pytest.raises(ValueError, match=r"scale: argument 'bias' expected a number a float64 can hold"):
        2 ** 2000 + x
    with pytest.raises(TypeError, match=r"multiply: cannot combine a Tensor with str"):
        x * "two"


def test_anomaly_mode_checks_the_number_case():
    x = eager.to_tensor([np.inf, 1.0], stop_gradient=False)
    with eager.autograd.detect_anomaly():
        with pytest.raises(Exception, match="scale"):
            x * 0.0
