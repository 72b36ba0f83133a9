"""eager.geometric (Paddle's paddle.geometric): segment reductions and graph message
passing against hand-written loops, gradients against float64 finite differences
(and, for max/min, against Paddle's rule: each element equal to the extremum gets
the full gradient), out_size semantics, and errors. Runs on both device axes."""
from __future__ import annotations

import doctest

import numpy as np
import pytest

import eager
from eager import geometric as G
from eager.autograd import gradcheck
from eager.geometric import math as G_math, message_passing as G_mp, reindex as G_reindex, sampling as G_sampling

pytestmark = pytest.mark.usefixtures("device")

_NP = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}


def _loop_reduce(messages, dst, rows, reduce_op, integer=False):
    """out[d] = reduce of messages[e] over e with dst[e] == d; 0 where none."""
    out = np.zeros((rows,) + messages.shape[1:], messages.dtype)
    for d in range(rows):
        picked = [messages[e] for e in range(len(dst)) if dst[e] == d]
        if picked:
            if reduce_op == "mean" and integer:
                out[d] = np.trunc(np.sum(picked, axis=0) / len(picked))
            else:
                out[d] = _NP[reduce_op](np.stack(picked), axis=0)
    return out


def _loop_message(a, b, message_op):
    if message_op == "add":
        return a + b
    if message_op == "sub":
        return a - b
    if message_op == "mul":
        return a * b
    return a * (1.0 / (b + 1e-12))


def _t(array, grad=False):
    return eager.to_tensor(array, stop_gradient=not grad)


# -- segment reductions ------------------------------------------------------------------------

@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_segment_matches_loop(rng, reduce_op, dtype):
    ids = np.array([0, 0, 0, 2, 2, 3, 5, 5])  # ids 1 and 4 never occur: zero rows
    data = rng.integers(-9, 9, (8, 3)).astype(dtype)
    out = getattr(G, f"segment_{reduce_op}")(_t(data), _t(ids))
    want = _loop_reduce(data, ids, 6, reduce_op, integer=dtype == "int64")
    assert out.dtype == _t(data).dtype and out.place == _t(data).place
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
def test_segment_gradient_matches_finite_differences(rng, reduce_op):
    ids = _t(np.array([0, 0, 1, 3, 3, 3], "int32"))
    data = _t(rng.standard_normal((6, 2)), grad=True)  # no ties: max/min are smooth here
    fn = getattr(G, f"segment_{reduce_op}")
    assert gradcheck(lambda d: fn(d, ids), (data,))


@pytest.mark.parametrize("reduce_op", ["max", "min"])
def test_segment_extreme_gradient_reaches_every_tie_in_full(reduce_op):
    data = _t(np.array([[1.0, 5.0], [1.0, 2.0], [0.5, 5.0], [7.0, 7.0]]), grad=True)
    out = getattr(G, f"segment_{reduce_op}")(data, _t(np.array([0, 0, 0, 1])))
    (out * _t(np.array([[2.0, 3.0], [4.0, 5.0]]))).sum().backward()
    if reduce_op == "max":  # column 0's max 1.0 twice, column 1's max 5.0 twice
        want = [[2.0, 3.0], [2.0, 0.0], [0.0, 3.0], [4.0, 5.0]]
    else:  # column 0's min 0.5, column 1's min 2.0
        want = [[0.0, 0.0], [0.0, 3.0], [2.0, 0.0], [4.0, 5.0]]
    np.testing.assert_array_equal(data.grad.numpy(), want)


def test_segment_extreme_double_backward():
    data = _t(np.array([[1.0], [3.0], [2.0]]), grad=True)
    out = G.segment_max(data, _t(np.array([0, 0, 1])))
    (grad,) = eager.grad((out * out).sum(), data, create_graph=True)
    np.testing.assert_array_equal(grad.numpy(), [[0.0], [6.0], [4.0]])  # 2 * max at the arg-max
    (second,) = eager.grad(grad.sum(), data)
    np.testing.assert_array_equal(second.numpy(), [[0.0], [2.0], [2.0]])


# -- message passing ---------------------------------------------------------------------------

_SRC = np.array([0, 1, 2, 0, 3, 3, 1])
_DST = np.array([1, 2, 1, 0, 1, 2, 4])  # row 3 gets no edge


@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
def test_send_u_recv_matches_loop(rng, reduce_op):
    x = rng.standard_normal((5, 2, 3))
    out = G.send_u_recv(_t(x), _t(_SRC), _t(_DST), reduce_op)
    np.testing.assert_allclose(out.numpy(), _loop_reduce(x[_SRC], _DST, 5, reduce_op), rtol=1e-12)


def test_send_u_recv_paddle_example_and_out_size():
    x = _t(np.array([[0, 2, 3], [1, 4, 5], [2, 6, 7]], "float32"))
    src, dst = _t(np.array([0, 2, 0], "int32")), _t(np.array([1, 1, 0], "int32"))
    full = [[0, 2, 3], [2, 8, 10], [0, 0, 0]]
    np.testing.assert_array_equal(G.send_u_recv(x, src, dst).numpy(), full)
    np.testing.assert_array_equal(G.send_u_recv(x, src, dst, out_size=2).numpy(), full[:2])
    np.testing.assert_array_equal(G.send_u_recv(x, src, dst, out_size=_t(np.array([5]))).numpy(),
                                  full + [[0, 0, 0]] * 2)
    for unused in (0, -3, None):  # None or <= 0: x.shape[0] rows, as Paddle
        assert G.send_u_recv(x, src, dst, out_size=unused).shape == [3, 3]


@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
def test_send_u_recv_gradient(rng, reduce_op):
    x = _t(rng.standard_normal((5, 3)), grad=True)
    assert gradcheck(lambda v: G.send_u_recv(v, _t(_SRC), _t(_DST), reduce_op), (x,))


def test_send_u_recv_max_gradient_counts_each_edge():
    # Two edges carry x[0] to row 0: Paddle adds the gradient once per edge.
    x = _t(np.array([[4.0], [1.0]]), grad=True)
    out = G.send_u_recv(x, _t(np.array([0, 0, 1])), _t(np.array([0, 0, 0])), "max")
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2.0], [0.0]])


@pytest.mark.parametrize("message_op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
def test_send_ue_recv_matches_loop(rng, message_op, reduce_op):
    x = rng.standard_normal((5, 3))
    y = rng.uniform(0.5, 2.0, (len(_SRC), 1))  # one feature per edge, broadcast over x's 3
    out = G.send_ue_recv(_t(x), _t(y), _t(_SRC), _t(_DST), message_op, reduce_op, out_size=6)
    want = _loop_reduce(_loop_message(x[_SRC], y, message_op), _DST, 6, reduce_op)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("message_op, reduce_op", [("add", "sum"), ("mul", "max"), ("div", "mean"), ("sub", "min")])
def test_send_ue_recv_gradient(rng, message_op, reduce_op):
    x = _t(rng.standard_normal((5, 2)), grad=True)
    y = _t(rng.uniform(0.5, 2.0, (len(_SRC), 2)), grad=True)
    assert gradcheck(lambda a, b: G.send_ue_recv(a, b, _t(_SRC), _t(_DST), message_op, reduce_op), (x, y))


def test_send_ue_recv_paddle_example_one_d_y():
    x = _t(np.array([[0, 2, 3], [1, 4, 5], [2, 6, 7]], "float32"))
    out = G.send_ue_recv(x, _t(np.ones(4, "float32")), _t(np.array([0, 1, 2, 0])), _t(np.array([1, 2, 1, 0])))
    np.testing.assert_array_equal(out.numpy(), [[1, 3, 4], [4, 10, 12], [2, 5, 6]])


@pytest.mark.parametrize("message_op", ["add", "sub", "mul", "div"])
def test_send_uv_matches_loop_and_broadcasts(rng, message_op):
    x = rng.standard_normal((5, 1, 3))
    y = rng.uniform(0.5, 2.0, (5, 4, 1))
    out = G.send_uv(_t(x), _t(y), _t(_SRC), _t(_DST), message_op)
    assert out.shape == [len(_SRC), 4, 3]
    np.testing.assert_allclose(out.numpy(), _loop_message(x[_SRC], y[_DST], message_op), rtol=1e-12)


def test_send_uv_gradient(rng):
    x = _t(rng.standard_normal((5, 3)), grad=True)
    y = _t(rng.uniform(0.5, 2.0, (5, 3)), grad=True)
    assert gradcheck(lambda a, b: G.send_uv(a, b, _t(_SRC), _t(_DST), "div"), (x, y))


def test_integer_message_passing():
    x = _t(np.array([[1, -2], [3, 5]], "int64"))
    src, dst = _t(np.array([0, 1, 1])), _t(np.array([0, 0, 1]))
    np.testing.assert_array_equal(G.send_u_recv(x, src, dst, "mean").numpy(), [[2, 1], [3, 5]])
    np.testing.assert_array_equal(G.send_uv(x, x, src, dst, "mul").numpy(), [[1, 4], [3, -10], [9, 25]])


# -- errors ------------------------------------------------------------------------------------

def test_errors_name_function_argument_and_value():
    x = _t(np.ones((3, 2)))
    src, dst = _t(np.array([0, 1])), _t(np.array([1, 2]))
    with pytest.raises(ValueError, match=r"segment_sum: argument 'segment_ids' expected sorted ids, got "
                                         r"segment_ids\[1\] = 2 > segment_ids\[2\] = 1"):
        G.segment_sum(x, _t(np.array([0, 2, 1])))
    with pytest.raises(ValueError, match=("segment_max: argument 'segment_ids' expected one id"
                                          " per row of 'data' \\(3\\), got 2")):
        G.segment_max(x, src)
    with pytest.raises(IndexError, match="segment_min: argument 'segment_ids' holds -1"):
        G.segment_min(x, _t(np.array([-1, 0, 0])))
    with pytest.raises(TypeError, match=("segment_mean: argument 'segment_ids' expected an"
                                         " int32 or int64 Tensor, got paddle.float32")):
        G.segment_mean(x, _t(np.array([0.0, 0.0, 1.0], "float32")))
    with pytest.raises(IndexError, match=(r"send_u_recv: argument 'src_index' holds 3,"
                                          r" outside \[0, 3\) for x of 3 rows")):
        G.send_u_recv(x, _t(np.array([0, 3])), dst)
    with pytest.raises(IndexError, match=r"send_u_recv: argument 'dst_index' holds 5, outside \[0, 3\)"):
        G.send_u_recv(x, src, _t(np.array([0, 5])))
    with pytest.raises(ValueError, match=(r"send_u_recv: argument 'out_size' expected at least"
                                          r" max\(dst_index\) \+ 1 = 3, got 2")):
        G.send_u_recv(x, src, dst, out_size=2)
    with pytest.raises(ValueError, match=("send_u_recv: argument 'reduce_op' expected one of"
                                          " 'sum', 'mean', 'max', 'min', got 'prod'")):
        G.send_u_recv(x, src, dst, "prod")
    with pytest.raises(ValueError, match="send_ue_recv: argument 'message_op' expected one of"):
        G.send_ue_recv(x, x, src, dst, "pow")
    with pytest.raises(ValueError, match="send_ue_recv: argument 'y' expected one row per edge \\(2\\), got 3"):
        G.send_ue_recv(x, x, src, dst)
    with pytest.raises(ValueError, match="send_uv: arguments 'src_index' and 'dst_index' expected the same shape"):
        G.send_uv(x, x, src, _t(np.array([0])))
    with pytest.raises(ValueError, match=r"send_uv: the feature shapes of 'x' \[2\] and 'y' \[3\] do not broadcast"):
        G.send_uv(x, _t(np.ones((3, 3))), src, dst)
    with pytest.raises(TypeError, match="send_uv: arguments 'x' and 'y' expected the same dtype"):
        G.send_uv(x, _t(np.ones((3, 2), "float32")), src, dst)
    with pytest.raises(TypeError, match="send_uv: message_op 'div' expected floating-point"):
        G.send_uv(_t(np.ones((3, 2), "int64")), _t(np.ones((3, 2), "int64")), src, dst, "div")
    with pytest.raises(TypeError, match="send_u_recv: argument 'x' expected a Tensor, got"):
        G.send_u_recv(np.ones((3, 2)), src, dst)
    with pytest.raises(TypeError, match=("send_u_recv: argument 'x' expected a float16, float32,"
                                         " float64, int32 or int64 Tensor, got paddle.bool")):
        G.send_u_recv(_t(np.ones((3, 2), bool)), src, dst)


def test_failed_call_leaves_gradients_alone():
    x = _t(np.ones((3, 2)), grad=True)
    G.send_u_recv(x, _t(np.array([0])), _t(np.array([1]))).sum().backward()
    before = x.grad.numpy().copy()
    with pytest.raises(IndexError):
        G.send_u_recv(x, _t(np.array([0, 9])), _t(np.array([1, 1])))
    np.testing.assert_array_equal(x.grad.numpy(), before)


# -- reindexing and sampling -------------------------------------------------------------------

def _loop_reindex(x, neighbor_lists, count_lists):
    out_nodes = list(x)
    src, dst = [], []
    for neighbors, counts in zip(neighbor_lists, count_lists):
        k = 0
        for center, c in enumerate(counts):
            for _ in range(c):
                if neighbors[k] not in out_nodes:
                    out_nodes.append(neighbors[k])
                src.append(out_nodes.index(neighbors[k]))
                dst.append(center)
                k += 1
    return src, dst, out_nodes


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_reindex_graph_matches_loop(rng, dtype):
    x = np.array([5, 0, 9, 2])
    counts = np.array([3, 0, 2, 4], "int32")
    neighbors = rng.integers(0, 12, counts.sum())
    out = G.reindex_graph(_t(x.astype(dtype)), _t(neighbors.astype(dtype)), _t(counts))
    for got, want in zip(out, _loop_reindex(list(x), [list(neighbors)], [list(counts)])):
        assert got.dtype == _t(x.astype(dtype)).dtype and got.place == _t(x).place
        np.testing.assert_array_equal(got.numpy(), want)


def test_reindex_heter_graph_matches_loop(rng):
    x = np.array([1, 4, 7])
    counts = [np.array([2, 1, 3], "int32"), np.array([0, 2, 1], "int32")]
    neighbors = [rng.integers(0, 10, c.sum()) for c in counts]
    out = G.reindex_heter_graph(_t(x), [_t(n) for n in neighbors], [_t(c) for c in counts])
    for got, want in zip(out, _loop_reindex(list(x), [list(n) for n in neighbors], [list(c) for c in counts])):
        np.testing.assert_array_equal(got.numpy(), want)


_ROW = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
_COLPTR = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])


def test_sample_neighbors_all_and_subsets():
    nodes = np.array([0, 8, 1, 7, 5, 6])
    neighbors, count = G.sample_neighbors(_t(_ROW), _t(_COLPTR), _t(nodes))
    assert count.dtype == eager.int32
    np.testing.assert_array_equal(count.numpy(), [2, 2, 2, 0, 2, 2])
    np.testing.assert_array_equal(neighbors.numpy(), np.concatenate([_ROW[_COLPTR[v]:_COLPTR[v + 1]] for v in nodes]))
    eids = np.arange(100, 113)
    neighbors, count, out_eids = G.sample_neighbors(_t(_ROW), _t(_COLPTR), _t(nodes), sample_size=1,
                                                    eids=_t(eids), return_eids=True)
    np.testing.assert_array_equal(count.numpy(), [1, 1, 1, 0, 1, 1])
    picked = out_eids.numpy() - 100
    np.testing.assert_array_equal(neighbors.numpy(), _ROW[picked])  # each id names its neighbor's edge
    for v, e in zip(nodes[nodes != 7], picked):
        assert _COLPTR[v] <= e < _COLPTR[v + 1]  # ... and the edge is one of v's


def test_sample_neighbors_is_uniform_and_reproducible_under_seed():
    row, colptr = _t(np.arange(4)), _t(np.array([0, 4]))
    eager.seed(7)
    first = G.sample_neighbors(row, colptr, _t(np.zeros(400, "int64")), sample_size=2)[0].numpy()
    eager.seed(7)
    again = G.sample_neighbors(row, colptr, _t(np.zeros(400, "int64")), sample_size=2)[0].numpy()
    np.testing.assert_array_equal(first, again)
    pairs = first.reshape(-1, 2)
    assert (pairs[:, 0] < pairs[:, 1]).all()  # without replacement, in CSC order
    frequency = np.bincount(first, minlength=4) / 400  # each of 4 neighbors kept with p = 1/2
    assert np.abs(frequency - 0.5).max() < 0.1


def test_weighted_sample_neighbors_follows_the_weights():
    row, colptr = _t(np.arange(4)), _t(np.array([0, 4]))
    weight = _t(np.array([1.0, 2.0, 3.0, 4.0], "float32"))
    eager.seed(11)
    picked, count = G.weighted_sample_neighbors(row, colptr, weight, _t(np.zeros(2000, "int64")), 1)
    np.testing.assert_array_equal(count.numpy(), np.ones(2000))
    frequency = np.bincount(picked.numpy(), minlength=4) / 2000  # P(pick i) = w_i / sum(w) for one draw
    np.testing.assert_allclose(frequency, [0.1, 0.2, 0.3, 0.4], atol=0.04)
    zero = _t(np.array([0.0, 5.0, 0.0, 1.0], "float32"))  # zero-weight edges only once the others are taken
    pairs = G.weighted_sample_neighbors(row, colptr, zero, _t(np.zeros(50, "int64")), 2)[0].numpy()
    np.testing.assert_array_equal(pairs.reshape(-1, 2), np.tile([1, 3], (50, 1)))
    everything = G.weighted_sample_neighbors(row, colptr, zero, _t(np.array([0])), -1, eids=row, return_eids=True)
    np.testing.assert_array_equal(everything[2].numpy(), [0, 1, 2, 3])


def test_reindex_and_sampling_errors():
    x, neighbors, count = _t(np.array([0, 1])), _t(np.array([3, 4, 5])), _t(np.array([1, 2], "int32"))
    with pytest.raises(ValueError, match="reindex_graph: argument 'x' expected unique node ids"):
        G.reindex_graph(_t(np.array([0, 0])), neighbors, count)
    with pytest.raises(TypeError, match="reindex_graph: argument 'count' expected an int32 Tensor, got paddle.int64"):
        G.reindex_graph(x, neighbors, _t(np.array([1, 2])))
    with pytest.raises(ValueError, match=("reindex_graph: argument 'count' expected"
                                          " non-negative counts summing to the 3")):
        G.reindex_graph(x, neighbors, _t(np.array([1, 1], "int32")))
    with pytest.raises(TypeError, match="reindex_graph: argument 'neighbors' expected x's dtype paddle.int64, got paddle.int32"):
        G.reindex_graph(x, _t(np.array([3, 4, 5], "int32")), count)
    with pytest.raises(ValueError, match=("reindex_heter_graph: arguments 'neighbors' and"
                                          " 'count' expected lists of the same length")):
        G.reindex_heter_graph(x, [neighbors, neighbors], [count])
    row, colptr = _t(_ROW), _t(_COLPTR)
    with pytest.raises(IndexError, match=r"sample_neighbors: argument 'input_nodes' holds 10, outside \[0, 10\)"):
        G.sample_neighbors(row, colptr, _t(np.array([10])))
    with pytest.raises(ValueError, match="sample_neighbors: argument 'eids' is needed when return_eids is True"):
        G.sample_neighbors(row, colptr, _t(np.array([0])), return_eids=True)
    with pytest.raises(ValueError, match="sample_neighbors: argument 'colptr' expected non-decreasing offsets"):
        G.sample_neighbors(row, _t(np.array([0, 5, 2, 13])), _t(np.array([0])))
    with pytest.raises(ValueError, match="sample_neighbors: argument 'sample_size' expected -1"):
        G.sample_neighbors(row, colptr, _t(np.array([0])), sample_size=-2)
    with pytest.raises(TypeError, match="sample_neighbors: argument 'colptr' expected row's dtype paddle.int64, got paddle.int32"):
        G.sample_neighbors(row, _t(_COLPTR.astype("int32")), _t(np.array([0])))
    with pytest.raises(ValueError, match=("weighted_sample_neighbors: argument"
                                          " 'edge_weight' expected one weight per edge")):
        G.weighted_sample_neighbors(row, colptr, _t(np.ones(3)), _t(np.array([0])))
    with pytest.raises(ValueError, match="weighted_sample_neighbors: argument 'edge_weight' expected non-negative"):
        G.weighted_sample_neighbors(row, colptr, _t(-np.ones(13)), _t(np.array([0])))
    with pytest.raises(TypeError, match="weighted_sample_neighbors: argument 'edge_weight' expected a floating-point"):
        G.weighted_sample_neighbors(row, colptr, row, _t(np.array([0])))


def test_docstring_examples_run():
    attempted = 0
    for module in (G, G_math, G_mp, G_reindex, G_sampling):
        result = doctest.testmod(module, extraglobs={"eager": eager, "np": np},
                                 optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
        assert result.failed == 0, (module.__name__, result)
        attempted += result.attempted
    assert attempted >= 25
