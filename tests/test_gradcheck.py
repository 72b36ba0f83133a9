"""Tests of gradcheck/gradgradcheck themselves: they pass correct gradients,
catch wrong ones, and say where."""
from __future__ import annotations

import numpy as np
import pytest

import eager
import eager.composite
from eager.rules import COMPOSITE
from eager.autograd import GradcheckError, gradcheck, gradgradcheck


def leaf(values, name=None):
    tensor = eager.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=False)
    if name is not None:
        tensor.name = name
    return tensor


def test_passes_a_correct_gradient():
    x = leaf([[0.5, -1.0, 2.0]])
    assert gradcheck(lambda a: eager.tanh(a) * a, (x,)) is True


def test_accepts_a_single_tensor_and_several_outputs():
    x = leaf([0.3, -0.7])
    assert gradcheck(lambda a: (eager.exp(a), eager.sum(a * a)), x) is True


def test_catches_a_wrong_gradient_on_a_non_contiguous_input():
    # The input's array is a transposed view: the finite differences must still
    # perturb it (they once stepped a copy and saw a zero derivative).
    x = eager.to_tensor(np.arange(6.0).reshape(2, 3).T / 7.0, stop_gradient=False)
    assert not x.numpy().flags.c_contiguous
    assert gradcheck(lambda a: eager.tanh(a) * a, (x,)) is True
    wrong = (lambda a: eager.tanh(a).detach() * a)
    assert gradcheck(wrong, (x,), raise_exception=False) is False


def test_an_input_the_outputs_do_not_use_has_zero_gradient():
    x, unused = leaf([1.0, 2.0]), leaf([3.0])
    assert gradcheck(lambda a, b: a * 3.0, (x, unused)) is True


def test_catches_a_wrong_gradient_and_names_where():
    # x * detach(x) has derivative 2x, but the graph only sees the first factor: x.
    x = leaf([0.5, 3.0, -1.0], name="weights")
    with pytest.raises(GradcheckError) as excinfo:
        gradcheck(lambda a: a * a.detach(), (x,))
    message = str(excinfo.value)
    # The worst element is the largest |x|: index 1, numerical 6, analytic 3.
    for part in ("output 0", "input 0", "'weights'", "d output[1] / d input[1]",
                 "numerical 6", "analytic 3", "tolerance", "atol=1e-05", "rtol=0.001"):
        assert part in message, f"{part!r} not in {message}"
    assert isinstance(excinfo.value, AssertionError)


def test_names_the_failing_input_among_several():
    x, y = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    with pytest.raises(GradcheckError, match=r"input 1 \(shape \[2\]\)"):
        gradcheck(lambda a, b: a * b.detach() + b * b.detach(), (x, y))


def test_returns_false_instead_of_raising_when_asked():
    x = leaf([2.0])
    assert gradcheck(lambda a: a * a.detach(), (x,), raise_exception=False) is False


def test_tolerances_are_honoured():
    # analytic 2 vs numerical 4 passes only with rtol > 0.5.
    x = leaf([2.0])
    assert gradcheck(lambda a: a * a.detach(), (x,), rtol=0.6)


def test_rejects_float32_inputs_with_a_clear_message():
    x = eager.to_tensor(np.ones(2, np.float32), stop_gradient=False)
    with pytest.raises(GradcheckError, match=r"input 0 is paddle.float32\[2\].*float64"):
        gradcheck(eager.exp, (x,))


def test_rejects_a_call_with_nothing_to_differentiate():
    x = eager.to_tensor(np.ones(2))
    with pytest.raises(GradcheckError, match="stop_gradient=False"):
        gradcheck(eager.exp, (x,))


def test_rejects_a_function_returning_a_non_tensor():
    with pytest.raises(GradcheckError, match="output 0 is ndarray"):
        gradcheck(lambda a: a.numpy(), (leaf([1.0]),))


def test_inputs_are_not_modified_and_keep_no_grad():
    x = leaf([[0.25, -0.5], [1.5, 2.0]])
    before = x.numpy().copy()
    gradcheck(lambda a: eager.sigmoid(a), (x,))
    gradgradcheck(lambda a: eager.sigmoid(a), (x,))
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.grad is None, "gradcheck must use grad(), which writes no .grad"


def test_non_tensor_arguments_pass_through():
    x = leaf([1.0, 2.0])
    assert gradcheck(lambda a, k: eager.scale(a, k), (x, 2.5))


def test_gradgradcheck_passes_correct_second_derivatives():
    x, y = leaf([[0.2, -0.4, 0.9]]), leaf([1.5, -0.5, 0.3])
    assert gradgradcheck(lambda a, b: eager.tanh(a * b), (x, y)) is True


def test_gradgradcheck_with_given_grad_outputs():
    x = leaf([0.3, 0.6])
    assert gradgradcheck(eager.exp, (x,), grad_outputs=(leaf([1.0, -2.0]),))


def test_gradgradcheck_catches_a_wrong_double_grad_rule(monkeypatch):
    # The first derivative (a kernel) stays right; the composite rule used under
    # create_graph is made wrong, which only a second-order check can see.
    right = eager.composite.tanh_double_grad
    assert COMPOSITE.tanh_double_grad is right  # the generated code finds rules here

    def wrong(out, grad_out, grad_x_grad):
        out_grad, grad_out_grad = right(out, grad_out, grad_x_grad)
        return eager.scale(out_grad, 1.5), grad_out_grad

    monkeypatch.setattr(COMPOSITE, "tanh_double_grad", wrong)
    x = leaf([0.5, -1.2])
    assert gradcheck(eager.tanh, (x,))
    with pytest.raises(GradcheckError, match="input 0"):
        gradgradcheck(eager.tanh, (x,))


def test_gradgradcheck_rejects_grad_outputs_of_the_wrong_count():
    x = leaf([0.3])
    with pytest.raises(GradcheckError, match="2 grad_outputs for 1"):
        gradgradcheck(eager.exp, (x,), grad_outputs=(leaf([1.0]), leaf([1.0])))
