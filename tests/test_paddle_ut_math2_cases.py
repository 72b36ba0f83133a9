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
- tensordot refused axes given as a pair of Tensors ((t1, t2) or [t1, t2]);
  its bad axes raised ValueError only where Paddle asserts (a negative count,
  contracted sizes that differ: AssertionError, now both) or indexes (a count
  past the rank: IndexError, now both), checked pair by pair in Paddle's order.
- heaviside, logaddexp, copysign, tensordot of two dtypes raised TypeError only;
  Paddle's kernels raise ValueError (test_elementwise_heaviside_op): now both.
- clip at a NaN min or max returned NaNs; Paddle's "max >= min" check raises
  ValueError (test_clip_op's bounds), and so does eager now.
- addmm broadcast a 0-d input (Paddle: ValueError, input must be 1-d or 2-d) and
  raised TypeError only for mixed dtypes (Paddle: ValueError; now both).

Paddle quirks kept out (eager keeps the correct value): einsum's gradient fails
("Each element of axis should be unique") for 'ij,...i->j...' and 'k...,jk';
einsum, matmul, sum, prod, max, all, logsumexp, ... of empty operands raise;
matmul's gradient fails for a 1-d y with transpose_y (reads past memory) and for
batch dims that broadcast ([1, 2, 3] @ [3, 2, 3, 4]); prod's gradient is NaN at
zeros; max / amax / min / amin skip NaN; logsumexp of [-inf, -inf] and of
[inf, 1] is NaN; float16 sum accumulates in float16 (eager rounds the exact sum
once); axis=() reduces every axis in both (Paddle 3's test expects none). Differences documented in docs/ops.md: size-1
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


def _tensordot_reference(x, y, x_axes, y_axes):
    # numpy's tensordot after Paddle's rule: a contracted axis of size 1 on one side is
    # summed on the other first (test_tensordot's tensordot_np)
    for a, b in zip(x_axes, y_axes):
        if x.shape[a] == 1 and y.shape[b] != 1:
            y = y.sum(axis=b, keepdims=True)
        elif y.shape[b] == 1 and x.shape[a] != 1:
            x = x.sum(axis=a, keepdims=True)
    return np.tensordot(x, y, (x_axes, y_axes))


def test_tensordot_axes_as_a_pair_of_tensors():
    rng = np.random.default_rng(3)
    a, b = rng.random((3, 4, 4)), rng.random((4, 4, 5))
    x, y = eager.to_tensor(a), eager.to_tensor(b)
    expected = _tensordot_reference(a, b, [1, 2], [0, 1])
    for axes in [(eager.to_tensor([1, 2]), eager.to_tensor([0, 1])),
                 [eager.to_tensor([1, 2]), eager.to_tensor([0, 1])],
                 eager.to_tensor([[1, 2], [0, 1]])]:
        np.testing.assert_allclose(eager.tensordot(x, y, axes).numpy(), expected, rtol=1e-12)


def test_tensordot_bad_axes_raise_paddles_types():
    x = eager.to_tensor(np.ones((3, 4, 4)))
    y = eager.to_tensor(np.ones((4, 4, 5)))
    # test_tensordot's test_error: -1 and mismatched sizes are asserts, 100 an IndexError
    for axes in (-1, [[1, 2], [0, -1]], [0, 1, 2, 3]):
        with pytest.raises(AssertionError, match="tensordot"):
            eager.tensordot(x, y, axes)
        with pytest.raises(ValueError, match="tensordot"):
            eager.tensordot(x, y, axes)
    with pytest.raises(IndexError, match="tensordot"):
        eager.tensordot(x, y, 100)
    with pytest.raises(ValueError, match="twice"):
        eager.tensordot(x, y, [[1, 2], [0, 0]])
    with pytest.raises(TypeError):
        eager.tensordot(x, y, 0.1)


def test_addmm_refuses_a_0d_input_and_mixed_dtypes_with_a_value_error():
    x, y = eager.ones([2, 3], "float64"), eager.ones([3, 4], "float64")
    with pytest.raises(ValueError, match="addmm: argument 'input' expected a 1-d or 2-d tensor"):
        eager.addmm(eager.to_tensor(np.array(1.0)), x, y)
    with pytest.raises(ValueError, match="addmm: 'input', 'x' and 'y' expected one dtype"):
        eager.addmm(eager.ones([2, 4], "float32"), x, y)
    # a 1-d input still broadcasts along the rows
    out = eager.addmm(eager.to_tensor(np.arange(4.0)), x, y, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * np.arange(4.0) + 2.0 * np.full((2, 4), 3.0))


@pytest.mark.parametrize("low, high", [(float("nan"), 4.0), (None, float("nan")), (float("nan"), None)])
def test_clip_at_nan_is_refused(low, high):
    # Paddle 2.6.2's check "max should be greater than or equal to min" fails on NaN
    x = eager.to_tensor(np.array([0.0, 5.0]))
    with pytest.raises(ValueError, match="clip: argument '(min|max)' expected a number to clip at, got nan"):
        eager.clip(x, low, high)
    np.testing.assert_array_equal(eager.clip(x, 1.0, 4.0).numpy(), [1.0, 4.0])


@pytest.mark.parametrize("op", ["heaviside", "logaddexp", "tensordot"])
def test_mixed_dtypes_are_also_the_value_error_paddle_raises(op):
    x, y = eager.ones([2, 2], "float32"), eager.ones([2, 2], "float64")
    # Paddle 2.6.2's kernels raise ValueError ("The type of data we are trying to
    # retrieve (float64) does not match ..."); eager's TypeError stays too
    with pytest.raises(ValueError, match=f"{op}: arguments 'x' and 'y' expected the same dtype"):
        getattr(eager, op)(x, y)
    with pytest.raises(TypeError, match=f"{op}: arguments 'x' and 'y' expected the same dtype"):
        getattr(eager, op)(x, y)
