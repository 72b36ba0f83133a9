"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
special functions, linalg, fft, signal, geometric and search ops (test_digamma_op,
test_polygamma_op, test_logit_op, test_gcd, test_cov, test_fft, test_signal,
test_graph_send_recv_op, test_segment_ops, test_kthvalue_op, ...) against eager,
each checked against the real Paddle 2.6.2.

What they found (one test per bug below; each failed before its fix):
- linalg.cov refused integer aweights (test_cov passes int32 ones), float fweights
  holding whole numbers, and an int ddof (2.6.2 divides by N - ddof); weights
  summing to zero gave NaN where Paddle raises ValueError.
- signal.overlap_add accepted hop_length > frame_length (gaps between frames);
  Paddle's OverlapAddOp raises ValueError.
- signal.istft refused a real (float) spectrum, which Paddle reads as a complex
  one with zero imaginary parts.
- signal.frame / signal.overlap_add had no `name` argument.
- geometric.reindex_graph refused a count holding several edge types one after
  another (a multiple of len(x), as incubate.graph_reindex took it); an empty x
  was reindexed where Paddle raises ValueError.
- incubate.graph_sample_neighbors(flag_perm_buffer=True) without a perm_buffer
  ran; Paddle raises ValueError.
- fft.fftshift / ifftshift with an axis out of range raised a ValueError only;
  Paddle raises IndexError (its roll's OutOfRange): now both.
- geometric.segment_* and send_u_recv / send_ue_recv / send_uv refused [N, 1]
  index tensors, which Paddle's InferMeta accepts.
- bincount of a float x and frac of an int16 / int8 / uint8 / bool x raised a
  ValueError only; Paddle (and its test_bincount_op / test_frac_op)
  raises TypeError: now both.
- lgamma was 3.6e-15, not 0, at 1 and 2 (Paddle: 0) and lost relative accuracy
  near those roots; lgamma, digamma and polygamma of a tiny negative x (-1e-30)
  were inf / NaN (x - floor(x) in the reflection rounded x away).
- a dtype no kernel takes (a bool x to digamma, erf, sqrt, silu, ...; a bool x to
  exp / log / sign, a kernel-registry miss) raised a ValueError / TypeError only;
  Paddle's dynamic mode raises RuntimeError (test_digamma_op's test_dtype_error
  expects it): now also a RuntimeError.

Paddle quirks kept out (eager keeps the correct value): hypot(inf, nan) and
logaddexp(-inf, -inf) are NaN, i0 / i1 of +-inf NaN, the float32 polygamma
gradient is off in the 4th digit, the gradients of a batched hermitian pinv and
of a batched eig are wrong past the first matrix, householder_product writes
ones into its x's diagonal (the caller's tensor), triangular_solve's gradient
with upper=False and unitriangular=True leaks into the unread upper triangle,
bincount of an empty x ignores minlength, lstsq returns residuals for a
rank-deficient x (its docs say empty), fftfreq ignores dtype, lu_unpack's
skipped outputs are float32, kthvalue / searchsorted orders around NaN are
arbitrary.
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


def _t(a, **kw):
    return eager.to_tensor(np.asarray(a), **kw)


def test_cov_takes_integer_aweights_as_paddles_test_cov_does():
    rng = np.random.default_rng(0)
    x = rng.random((4, 10))
    aw = rng.integers(1, 10, 10).astype("int32")
    fw = rng.integers(0, 10, 10).astype("int64")
    got = eager.linalg.cov(_t(x), True, True, None, _t(aw))
    np.testing.assert_allclose(got.numpy(), np.cov(x, aweights=aw), rtol=1e-10)
    got = eager.linalg.cov(_t(x), True, True, _t(fw), _t(aw))
    np.testing.assert_allclose(got.numpy(), np.cov(x, fweights=fw, aweights=aw), rtol=1e-10)
    # float32 aweights with a float64 x are cast, as Paddle does
    got = eager.linalg.cov(_t(x), aweights=_t(aw.astype("float32")))
    np.testing.assert_allclose(got.numpy(), np.cov(x, aweights=aw), rtol=1e-10)


def test_cov_takes_float_fweights_of_whole_numbers_and_refuses_fractions():
    x = np.random.default_rng(1).random((3, 5))
    fw = np.array([1.0, 2.0, 0.0, 3.0, 1.0])
    got = eager.linalg.cov(_t(x), fweights=_t(fw))
    np.testing.assert_allclose(got.numpy(), np.cov(x, fweights=fw.astype(int)), rtol=1e-10)
    with pytest.raises(ValueError, match="cov: argument 'fweights' expected whole numbers"):
        eager.linalg.cov(_t(x), fweights=_t([1.0, 2.5, 0.0, 3.0, 1.0]))


@pytest.mark.parametrize("ddof", [0, 1, 2, 3])
def test_cov_takes_an_int_ddof_dividing_by_n_minus_ddof(ddof):
    x = np.random.default_rng(2).random((3, 6))
    got = eager.linalg.cov(_t(x), ddof=ddof).numpy()
    np.testing.assert_allclose(got, np.cov(x, ddof=int(ddof)), rtol=1e-10)
    fw = np.array([1, 2, 1, 3, 1, 1])
    got = eager.linalg.cov(_t(x), ddof=ddof, fweights=_t(fw)).numpy()
    np.testing.assert_allclose(got, np.cov(x, ddof=int(ddof), fweights=fw), rtol=1e-10)


def test_cov_with_ddof_past_the_observations_divides_by_zero_as_paddle():
    # Paddle 2.6.2 turns a norm factor <= 0 into 0: ddof=7 of 6 observations is ddof=6
    x = np.random.default_rng(2).random((2, 6))
    product = (x - x.mean(1, keepdims=True)) @ (x - x.mean(1, keepdims=True)).T
    with np.errstate(divide="ignore"):
        want = product / 0.0
    np.testing.assert_array_equal(eager.linalg.cov(_t(x), ddof=7).numpy(), want)
    with pytest.raises(TypeError, match="cov: argument 'ddof' expected a bool or an int"):
        eager.linalg.cov(_t(x), ddof=1.0)


def test_cov_refuses_weights_that_sum_to_zero():
    # Paddle's test_cov Cov_Test6: fweights of -0.0 sum to zero
    with pytest.raises(ValueError, match="cov: the weights sum to zero"):
        eager.linalg.cov(_t(np.ones((2, 3))), fweights=_t([0, 0, 0]))
    with pytest.raises(ValueError, match="cov: the weights sum to zero"):
        eager.linalg.cov(_t(np.ones((2, 3))), fweights=_t(np.array([-0.0, 0.0, 0.0])))


def test_overlap_add_refuses_a_hop_longer_than_the_frame():
    frames = eager.ones([8, 5])  # frame_length 8, 5 frames
    with pytest.raises(ValueError, match=r"signal.overlap_add: argument 'hop_length' expected an int in \[1, "
                                         r"frame_length=8\]"):
        eager.signal.overlap_add(frames, 9)
    with pytest.raises(ValueError, match=r"frame_length=5"):
        eager.signal.overlap_add(eager.ones([3, 5, 2]), 6, axis=0)
    assert eager.signal.overlap_add(frames, 8).shape == [40]  # hop == frame_length: concatenated


def test_istft_takes_a_real_spectrum_as_complex_with_zero_imaginary_parts():
    spectrum = np.random.default_rng(3).standard_normal((17, 9))
    got = eager.signal.istft(_t(spectrum), 32)
    want = eager.signal.istft(_t(spectrum.astype("complex128")), 32)
    assert got.dtype == eager.float64
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    with pytest.raises(TypeError, match="signal.istft: argument 'x' expected complex64, complex128 or a real"):
        eager.signal.istft(_t(spectrum.astype("int64")), 32)


def test_frame_and_overlap_add_take_a_name():
    out = eager.signal.frame(eager.arange(6), 4, 2, name="frames")
    assert out.numpy().tolist() == [[0, 2], [1, 3], [2, 4], [3, 5]]
    assert eager.signal.overlap_add(eager.ones([3, 2]), 1, name="sum").numpy().tolist() == [1.0, 2.0, 2.0, 1.0]


@pytest.mark.parametrize("fn", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [3, (0, 3), -4])
def test_fftshift_axes_out_of_range_are_index_errors_too(fn, axes):
    x = eager.ones([2, 3, 4])
    with pytest.raises(IndexError, match=rf"fft.{fn}: argument 'axes' expected an axis"):
        getattr(eager.fft, fn)(x, axes)
    with pytest.raises(ValueError, match=rf"fft.{fn}: argument 'axes'"):  # eager's type, kept
        getattr(eager.fft, fn)(x, axes)
    with pytest.raises(ValueError, match=rf"fft.{fn}: argument 'axes'"):  # a wrong kind stays a ValueError only
        getattr(eager.fft, fn)(x, 1.5)


def _segment_reference(data, ids, reduce):
    out = np.zeros((ids.max() + 1,) + data.shape[1:])
    for k in range(ids.max() + 1):
        rows = data[ids == k]
        if len(rows):
            out[k] = {"sum": rows.sum(0), "mean": rows.mean(0), "max": rows.max(0), "min": rows.min(0)}[reduce]
    return out


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min"])
def test_segment_ops_take_column_index_tensors(reduce):
    data = np.random.default_rng(4).standard_normal((6, 3))
    ids = np.array([0, 0, 1, 1, 1, 3])
    got = getattr(eager.geometric, f"segment_{reduce}")(_t(data), _t(ids.reshape(6, 1)))
    np.testing.assert_allclose(got.numpy(), _segment_reference(data, ids, reduce), rtol=1e-12)
    with pytest.raises(ValueError, match=r"expected a 1-d Tensor \(or \[N, 1\]\), got shape \[1, 6\]"):
        getattr(eager.geometric, f"segment_{reduce}")(_t(data), _t(ids.reshape(1, 6)))


def test_send_ops_take_column_index_tensors():
    rng = np.random.default_rng(5)
    x, y, e = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    src, dst = np.array([0, 1, 2, 0, 3]), np.array([1, 2, 1, 0, 0])
    want = np.zeros((4, 3))
    np.add.at(want, dst, x[src])
    got = eager.geometric.send_u_recv(_t(x), _t(src.reshape(5, 1)), _t(dst.reshape(5, 1)), "sum")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    want_ue = np.zeros((4, 3))
    np.add.at(want_ue, dst, x[src] * e)
    got = eager.geometric.send_ue_recv(_t(x), _t(e), _t(src.reshape(5, 1)), _t(dst), "mul", "sum")
    np.testing.assert_allclose(got.numpy(), want_ue, rtol=1e-12)
    got = eager.geometric.send_uv(_t(x), _t(y), _t(src), _t(dst.reshape(5, 1)), "sub")
    np.testing.assert_allclose(got.numpy(), x[src] - y[dst], rtol=1e-12)
    got = eager.incubate.graph_send_recv(_t(x), _t(src.reshape(5, 1)), _t(dst.reshape(5, 1)), "sum")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("fn", ["digamma", "lgamma", "erf", "erfinv", "sqrt", "i0", "silu", "polygamma"])
def test_a_dtype_no_kernel_takes_is_also_a_runtime_error(fn):
    call = getattr(eager, fn, None) or getattr(eager.nn.functional, fn)
    args = (1,) if fn == "polygamma" else ()
    x = eager.to_tensor(np.array([True, False]))
    with pytest.raises(RuntimeError, match=rf"{fn}: argument 'x' expected a"):  # test_digamma_op's test_dtype_error
        call(x, *args)
    with pytest.raises(ValueError, match=rf"{fn}: argument 'x' expected a"):  # eager's type, kept
        call(x, *args)



@pytest.mark.parametrize("fn", ["exp", "log", "sign"])
def test_a_kernel_registry_miss_is_also_a_runtime_error(fn):
    # Paddle's dynamic mode: "(NotFound) The kernel with key (CPU, ..., bool) of kernel `exp` is not registered"
    x = eager.to_tensor(np.array([True, False]))
    with pytest.raises(RuntimeError, match=rf"{fn}: no kernel for key"):
        getattr(eager, fn)(x)
    with pytest.raises(TypeError, match=rf"{fn}: no kernel for key"):  # eager's types, kept
        getattr(eager, fn)(x)
    with pytest.raises(LookupError, match=rf"{fn}: no kernel for key"):
        getattr(eager, fn)(x)

def test_bincount_of_floats_is_a_type_error_as_paddles():
    # test_bincount_op's test_input_type_errors: paddle.bincount of [1.0, ...] raises TypeError
    with pytest.raises(TypeError, match=r"bincount: argument 'x' expected an int32 or int64 tensor, got "
                                        r"paddle.float32"):
        eager.bincount(eager.to_tensor([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match=r"bincount: argument 'x' expected an int32 or int64"):  # eager's type, kept
        eager.bincount(eager.to_tensor([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(eager.bincount(eager.to_tensor([0, 1, 1, 3])).numpy(), [1, 2, 0, 1])


@pytest.mark.parametrize("dtype", ["int16", "int8", "uint8", "bool"])
def test_frac_of_a_dtype_it_refuses_is_a_type_error_as_paddles(dtype):
    # test_frac_op's test_dygraph_error: paddle.frac of an int16 tensor raises TypeError
    x = eager.to_tensor(np.array([[1, -2, 3]]).astype(dtype))
    with pytest.raises(TypeError, match=r"frac: argument 'x' expected a float32, float64, int32 or int64 tensor"):
        eager.frac(x)
    with pytest.raises(ValueError, match=r"frac: argument 'x' expected"):  # eager's type, kept
        eager.frac(x)
    np.testing.assert_array_equal(eager.frac(eager.to_tensor(np.array([1, -2], "int32"))).numpy(), [0, 0])


def test_graph_sample_neighbors_flag_perm_buffer_needs_a_perm_buffer():
    # test_graph_sample_neighbors' test_raise_errors: ValueError without perm_buffer
    row, colptr, nodes = eager.to_tensor([1, 0]), eager.to_tensor([0, 1, 2]), eager.to_tensor([0, 1])
    with pytest.raises(ValueError, match="incubate.graph_sample_neighbors: argument 'perm_buffer' must be given"):
        eager.incubate.graph_sample_neighbors(row, colptr, nodes, sample_size=1, flag_perm_buffer=True)
    neighbors, count = eager.incubate.graph_sample_neighbors(row, colptr, nodes, perm_buffer=eager.to_tensor([0, 1]),
                                                             sample_size=1, flag_perm_buffer=True)
    assert neighbors.numpy().tolist() == [1, 0] and count.numpy().tolist() == [1, 1]


def _reindex_reference(x, neighbors, counts_per_type):
    # test_graph_reindex's loop: x first, then each new neighbor in order of first appearance
    out_nodes = list(x)
    for node in neighbors:
        if node not in out_nodes:
            out_nodes.append(node)
    where = {node: i for i, node in enumerate(out_nodes)}
    dst = [where[node] for counts in counts_per_type for node, c in zip(x, counts) for _ in range(c)]
    return [where[node] for node in neighbors], dst, out_nodes


def test_reindex_graph_takes_edge_types_concatenated_in_count():
    # test_graph_reindex's TestGeometricGraphReindex.test_heter_reindex_result(_v2)
    rng = np.random.default_rng(6)
    x = np.arange(5)
    n1, n2 = rng.integers(100, size=20), rng.integers(100, size=20)
    c1, c2 = np.array([2, 8, 4, 3, 3], "int32"), np.array([4, 5, 1, 6, 4], "int32")
    got = eager.geometric.reindex_graph(_t(x), _t(np.r_[n1, n2]), _t(np.r_[c1, c2]))
    for out, want in zip(got, _reindex_reference(x, np.r_[n1, n2], [c1, c2])):
        np.testing.assert_array_equal(out.numpy(), want)
    heter = eager.geometric.reindex_heter_graph(_t(x), [_t(n1), _t(n2)], [_t(c1), _t(c2)])
    for out, same in zip(got, heter):
        np.testing.assert_array_equal(out.numpy(), same.numpy())


@pytest.mark.parametrize("fn", ["geometric.reindex_graph", "incubate.graph_reindex"])
def test_reindex_of_an_empty_x_is_a_value_error(fn):
    # test_graph_reindex's test_reindex_div_zero
    empty = eager.to_tensor(np.zeros([0]), dtype="int32")
    module, name = fn.split(".")
    with pytest.raises(ValueError, match="reindex_graph: argument 'x' expected at least one node id"):
        getattr(getattr(eager, module), name)(empty, empty, empty, empty, empty)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lgamma_is_exactly_zero_at_one_and_two(dtype):
    # Paddle 2.6.2 (std::lgamma) gives 0.0 at 1 and 2; eager's shifted Stirling form gave 3.6e-15
    out = eager.lgamma(eager.to_tensor(np.array([1.0, 2.0], dtype))).numpy()
    np.testing.assert_array_equal(out, [0.0, 0.0])


def test_lgamma_keeps_its_relative_accuracy_near_the_roots_one_and_two():
    # log Gamma(1 + z) = -gamma z + zeta(2) z^2 / 2 - zeta(3) z^3 / 3 + ... (z below 1e-4: four terms are
    # exact to 1e-16), and Gamma(2 + z) = (1 + z) Gamma(1 + z); C's lgamma (so Paddle 2.6.2) is off by 1e-4
    # relative at 2 + 1e-12
    gamma, zeta2, zeta3, zeta4 = 0.5772156649015329, 1.6449340668482264, 1.2020569031595942, 1.0823232337111381

    def near_one(z):
        return -gamma * z + zeta2 * z ** 2 / 2 - zeta3 * z ** 3 / 3 + zeta4 * z ** 4 / 4

    steps = np.array([1e-12, -3e-9, 2e-6, -1e-4])
    x1, x2 = 1.0 + steps, 2.0 + steps
    np.testing.assert_allclose(eager.lgamma(eager.to_tensor(x1)).numpy(), near_one(x1 - 1.0), rtol=1e-13)
    np.testing.assert_allclose(eager.lgamma(eager.to_tensor(x2)).numpy(),
                               near_one(x2 - 2.0) + np.log1p(x2 - 2.0), rtol=1e-13)


def test_gamma_functions_of_a_tiny_negative_x():
    # x in (-1, 0): Gamma(x) = Gamma(x + 1) / x, psi(x) = psi(x + 1) - 1 / x, psi'(x) = psi'(x + 1) + 1 / x^2;
    # at x = -1e-30 these are -log(1e-30), 1e30 - gamma and 1e60 (the reflection's sin(pi x) rounded x away:
    # inf, NaN, NaN)
    x = eager.to_tensor(np.array([-1e-30, -1e-12]))
    np.testing.assert_allclose(eager.lgamma(x).numpy(),
                               [69.07755278982137, 27.631021115928547 + 0.5772156649015329e-12], rtol=1e-14)
    np.testing.assert_allclose(eager.digamma(x).numpy(), [1e30, 1e12 - 0.5772156649015329], rtol=1e-14)
    np.testing.assert_allclose(eager.polygamma(x, 1).numpy(), [1e60, 1e24 + 1.6449340668482264], rtol=1e-14)
    np.testing.assert_allclose(eager.polygamma(x, 2).numpy(), [2e90, 2e36 - 2.4041138063191885], rtol=1e-14)
