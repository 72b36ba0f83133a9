"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
elementwise arithmetic, reductions, the matmul family, einsum, creation and random
ops (test/legacy_test: test_einsum_v2, ...) against eager, each checked against
the real Paddle 2.6.2.

What they found (one test per bug below; each failed before its fix):
- einsum refused an output that repeats a label ('i->ii', 'i,j->ii', 'ij->iji');
  Paddle's einsum puts the values on that diagonal, zeros elsewhere (its
  TestSimpleUndiagonal), and its gradient reads the diagonal back.
- a malformed einsum equation (a second '->', a stray '.', a term per operand
  missing or too many, a term naming more dimensions than its operand, '_' as a
  label, no '...' in the output) raised a ValueError only; Paddle's equation
  checks raise AssertionError (test_einsum_v2's TestErrors): now both.

Paddle quirks kept out (eager keeps the correct value): einsum's gradient fails
("Each element of axis should be unique") for 'ij,...i->j...' and 'k...,jk';
einsum of empty operands raises. Differences documented in docs/ops.md: size-1
labels broadcast in einsum (Paddle broadcasts only '...'), a list of operands.
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


def _undiagonal(values, repeats):
    # 'i->ii...i' written out: values on the main diagonal of an n^repeats array.
    n = values.shape[0]
    out = np.zeros((n,) * repeats, dtype=values.dtype)
    for i in range(n):
        out[(i,) * repeats] = values[i]
    return out


def test_einsum_output_that_repeats_a_label_is_a_diagonal():
    a = np.array([1.0, 2.0])
    np.testing.assert_array_equal(eager.einsum("i->ii", eager.to_tensor(a)).numpy(), [[1.0, 0.0], [0.0, 2.0]])
    # from test_einsum_v2's TestSimpleUndiagonal2: j is summed, then i is put on the diagonal
    out = eager.einsum("i,j->ii", eager.to_tensor(a), eager.to_tensor(np.ones(2)))
    np.testing.assert_array_equal(out.numpy(), [[2.0, 0.0], [0.0, 4.0]])
    x = np.random.default_rng(0).normal(size=3)
    np.testing.assert_array_equal(eager.einsum("i->iii", eager.to_tensor(x)).numpy(), _undiagonal(x, 3))
    m = np.random.default_rng(1).normal(size=(2, 3))
    expected = np.zeros((2, 3, 2))
    for i in range(2):
        expected[i, :, i] = m[i]
    np.testing.assert_allclose(eager.einsum("ij->iji", eager.to_tensor(m)).numpy(), expected)


def test_einsum_gradient_through_a_repeated_output_label():
    rng = np.random.default_rng(2)
    m, g = rng.normal(size=(2, 3)), rng.normal(size=(2, 3, 2))
    x = eager.to_tensor(m, stop_gradient=False)
    eager.einsum("ij->iji", x).backward(eager.to_tensor(g))
    # the adjoint of writing onto the diagonal is reading it: g[i, j, i]
    np.testing.assert_allclose(x.grad.numpy(), np.einsum("iji->ij", g))


@pytest.mark.parametrize("equation, count", [
    ("i -> j -> k", 1), ("i,j,k", 2), ("ij -> k", 2), ("i, -> k", 1), ("->", 1), ("i", 1),
    ("i_", 1), ("i..j", 1), ("...k...", 1), ("i...->i", 1), ("ijk", 0),
])
def test_einsum_bad_equation_is_an_assertion_error_and_a_value_error(equation, count):
    a = eager.to_tensor(np.arange(4 * 3 * 4 * 4, dtype="float64").reshape(4, 3, 4, 4))
    with pytest.raises(AssertionError, match="einsum"):
        eager.einsum(equation, *[a] * count)
    with pytest.raises(ValueError, match="einsum"):
        eager.einsum(equation, *[a] * count)
