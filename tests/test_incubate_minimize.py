"""eager.incubate.optimizer.functional (Paddle's minimize_bfgs / minimize_lbfgs):
minimizers against closed forms (a quadratic's A^-1 b, Rosenbrock's (1, 1)) and
SciPy's BFGS, the reported evaluation count against a counting objective, the
strong-Wolfe conditions at each accepted step, and errors by type and message."""
from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest
import scipy.optimize

import eager
from eager.incubate.optimizer import functional as IOF
from eager.incubate.optimizer.functional import line_search

pytestmark = pytest.mark.usefixtures("device")

MINIMIZERS = [IOF.minimize_bfgs, IOF.minimize_lbfgs]


def _quadratic(rng, n=5):
    q = rng.normal(size=(n, n))
    a = q @ q.T + n * np.eye(n)
    b = rng.normal(size=n)
    at, bt = eager.to_tensor(a), eager.to_tensor(b)
    return a, b, lambda x: 0.5 * (x * eager.matmul(at, x)).sum() - (bt * x).sum()


@pytest.mark.parametrize("minimize", MINIMIZERS)
def test_quadratic_minimizer_is_a_inverse_b(rng, minimize):
    a, b, f = _quadratic(rng)
    result = minimize(f, eager.zeros([5], "float64"), dtype="float64", tolerance_grad=1e-10)
    converged, calls, x, value, g = result[:5]
    assert converged.shape == [1] and converged.dtype == eager.bool and bool(converged.item())
    assert calls.dtype == eager.int64
    want = np.linalg.solve(a, b)
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-7, atol=1e-9)
    assert value.item() == pytest.approx(-0.5 * b @ want, rel=1e-10)
    np.testing.assert_allclose(g.numpy(), a @ x.numpy() - b, atol=1e-9)


@pytest.mark.parametrize("minimize", MINIMIZERS)
def test_rosenbrock_reaches_one_one_and_counts_evaluations(minimize):
    calls = []

    def rosenbrock(x):
        calls.append(1)
        return 100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2

    result = minimize(rosenbrock, eager.to_tensor([-1.2, 1.0], dtype="float64"), max_iters=200, dtype="float64")
    assert bool(result[0].item())
    np.testing.assert_allclose(result[2].numpy(), [1.0, 1.0], atol=1e-5)
    assert int(result[1].item()) == len(calls)
    start = np.array([-1.2, 1.0])
    reference = scipy.optimize.minimize(lambda v: 100 * (v[1] - v[0] ** 2) ** 2 + (1 - v[0]) ** 2, start,
                                        method="BFGS")
    np.testing.assert_allclose(result[2].numpy(), reference.x, atol=1e-4)


def test_bfgs_inverse_hessian_meets_the_secant_condition(rng):
    a, b, f = _quadratic(rng, 3)
    one_step = IOF.minimize_bfgs(f, eager.zeros([3], "float64"), max_iters=1, dtype="float64")
    h = one_step[5].numpy()
    np.testing.assert_allclose(h, h.T, atol=1e-12)
    x1, g1 = one_step[2].numpy(), one_step[4].numpy()
    s, y = x1, g1 - (-b)                          # from x0 = 0, g0 = -b
    np.testing.assert_allclose(h @ y, s, rtol=1e-8, atol=1e-12)
    assert np.all(np.linalg.eigvalsh(h) > 0)
    assert not bool(one_step[0].item())           # one iteration is not enough here


def test_lbfgs_history_and_initial_estimate(rng):
    a, b, f = _quadratic(rng)
    h0 = eager.to_tensor(np.linalg.inv(a))        # the exact inverse: one Newton step
    result = IOF.minimize_lbfgs(f, eager.zeros([5], "float64"), history_size=2, dtype="float64",
                                initial_inverse_hessian_estimate=h0)
    np.testing.assert_allclose(result[2].numpy(), np.linalg.solve(a, b), rtol=1e-8)
    assert int(result[1].item()) <= 3


def test_strong_wolfe_step_meets_both_conditions(rng):
    a, b, f = _quadratic(rng)
    x = eager.zeros([5], "float64")
    value, g = line_search.value_and_gradient("test", f, x)
    p = -g * 7.0                                  # a long descent direction
    t, new_value, new_g, calls = line_search.strong_wolfe("test", f, x, p, value, g, 25, 1.0)
    slope0 = float((g * p).sum().item())
    assert new_value.item() <= value.item() + 1e-4 * t * slope0
    assert abs(float((new_g * p).sum().item())) <= -0.9 * slope0
    assert t > 0 and calls >= 1
    uphill = line_search.strong_wolfe("test", f, x, g, value, g, 25, 1.0)
    assert uphill[0] == 0.0 and uphill[3] == 0


def test_float32_and_already_converged_start():
    f = lambda x: ((x - 3.0) ** 2).sum()
    result = IOF.minimize_bfgs(f, eager.full([2], 3.0))
    assert bool(result[0].item()) and int(result[1].item()) == 1
    assert result[2].dtype == eager.float32 and result[5].shape == [2, 2]


def test_errors():
    f = lambda x: (x * x).sum()
    with pytest.raises(ValueError, match="minimize_bfgs: argument 'initial_position' expected a 1-D Tensor"):
        IOF.minimize_bfgs(f, eager.ones([2, 2]))
    with pytest.raises(TypeError, match="minimize_lbfgs: argument 'initial_position' expected dtype float64 "
                                        "\\(the 'dtype' argument\\), got paddle.float32"):
        IOF.minimize_lbfgs(f, eager.ones([2]), dtype="float64")
    with pytest.raises(ValueError, match="minimize_bfgs: argument 'dtype' expected 'float32' or 'float64'"):
        IOF.minimize_bfgs(f, eager.ones([2]), dtype="float16")
    with pytest.raises(ValueError, match="minimize_bfgs: argument 'line_search_fn' expected 'strong_wolfe'"):
        IOF.minimize_bfgs(f, eager.ones([2]), line_search_fn="hager_zhang")
    with pytest.raises(ValueError, match="minimize_lbfgs: argument 'history_size' expected an int >= 1, got 0"):
        IOF.minimize_lbfgs(f, eager.ones([2]), history_size=0)
    with pytest.raises(ValueError, match="argument 'initial_inverse_hessian_estimate' expected a positive definite"):
        IOF.minimize_bfgs(f, eager.ones([2]), initial_inverse_hessian_estimate=eager.to_tensor([[1.0, 2.0],
                                                                                                [2.0, 1.0]]))
    with pytest.raises(ValueError, match="argument 'initial_inverse_hessian_estimate' expected a symmetric"):
        IOF.minimize_bfgs(f, eager.ones([2]), initial_inverse_hessian_estimate=eager.to_tensor([[1.0, 0.5],
                                                                                                [0.0, 1.0]]))
    with pytest.raises(ValueError, match="minimize_bfgs: objective_func expected to return a Tensor of one element"):
        IOF.minimize_bfgs(lambda x: x * 2, eager.ones([2]))
    with pytest.raises(TypeError, match="minimize_bfgs: argument 'objective_func' expected a callable"):
        IOF.minimize_bfgs("f", eager.ones([2]))


@pytest.mark.parametrize("module", ["eager.incubate.optimizer.functional.quasi_newton"])
def test_docstring_examples_run(module, device):
    if device == "gpu":
        pytest.skip("the examples print CPU values; once is enough")
    result = doctest.testmod(importlib.import_module(module), extraglobs={"eager": eager})
    assert result.failed == 0 and result.attempted > 0
