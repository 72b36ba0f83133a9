"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
tensor ops (test/legacy_test, third pass: test_cumsum_op, test_cumprod_op,
test_top_k_v2_op, test_gather_op, test_gather_nd_op, test_scatter_nd_op,
test_nonzero_api, test_searchsorted_op, test_std_layer, test_variance_layer,
test_lerp_op, test_trapezoid, test_cumulative_trapezoid, test_renorm_op,
test_vander, test_diff_op, test_chunk_op, test_crop_tensor_op,
test_take_along_axis_op, test_put_along_axis_op, test_meshgrid_op, test_cast_op,
test_assign_op, test_numel_op, test_shape_op, test_rank, test_increment, ...)
with ``import eager as paddle`` and checking each failure against real Paddle
2.6.2. Each test failed before its fix:

- cumsum, cumprod, prod, nansum, max / min / amax / amin of a dtype none of their
  kernels takes (a bool x; a complex x to max) raised a plain ValueError; Paddle
  2.6.2 raises RuntimeError (its "kernel ... is not registered"): now
  UnsupportedInputDtypeError, both;
- trapezoid / cumulative_trapezoid refused a one-element Tensor as ``dx``; Paddle
  2.6.2 reads dx through to_tensor (a 0-d or [1] Tensor is the spacing);
- diff of a 0-d x raised a ValueError only; Paddle 2.6.2 raises IndexError
  (it reads x.shape[axis]): now AxisError, both;
- take_along_axis / put_along_axis with an axis out of range raised AxisError
  (ValueError, IndexError); Paddle 2.6.2 asserts the range (AssertionError): now
  AssertedAxisError, all three;
- Tensor.unfold of a 0-d x was refused; Paddle 2.6.2 (and torch) read it as one
  element along axis 0: unfold(0, 1, step) is [x], a size of 0 an empty window;
- multigammaln with p < 1 raised a ValueError only; Paddle asserts p >= 1
  (AssertionError): now AssertedArgumentError, both;
- combinations of a 0-d or 2-d x raised a ValueError only; Paddle raises
  TypeError ("Expect a 1-D vector"): now ArgumentKindError, both;
- searchsorted, bucketize and histogram of a dtype outside Paddle's four (bool,
  int16, float16, complex), median of a complex x, heaviside of a bool or complex
  x raised ValueError or TypeError only; Paddle 2.6.2 raises RuntimeError (no
  kernel): now UnsupportedInputDtypeError / UnsupportedDtypeError, both;
- a 0-d x to gather, index_select, index_add, trapezoid, cumulative_trapezoid
  raised a ValueError only (Paddle 2.6.2: IndexError, its axis check), and to
  split, chunk, take_along_axis, put_along_axis a ValueError only (Paddle:
  AssertionError for axis -1, its rank(x) + axis >= 0 assert): now AxisError /
  AssertedAxisError.

Seen and kept (Paddle 2.6.2 bugs or limits; eager keeps the correct value or its
clear error): float16 casts on the CPU truncate (cast(-1.7, float16) is -1.699,
eager rounds to nearest: -1.7002); topk / kthvalue pick tied values by a partial
sort (docs/autograd.md); gather with a negative axis fails, an index past the axis
reads garbage; gather_nd / take_along_axis with an empty or negative index and
gather_nd of a 0-d x read garbage; meshgrid of NumPy arrays, a meshgrid gradient of
one output, assign('abc'), concat([]), fill_diagonal_tensor of an int / bool x or
of another dtype's y, cummax / unique_consecutive / kthvalue / nanmedian of empty
inputs kill the process; std, var, count_nonzero, lerp, trapezoid of empty inputs
raise (eager: NaN / 0 / empty); cumprod(x, -1) of a 0-d x and cumprod with
dim=None raise (eager: x, and the flattened scan); renorm with p = 0 or a negative
max_norm computes (eager: ValueError); i0e's gradient at 0 is -1 (eager 0, the
subgradient, as torch); unique_consecutive counts NaNs wrongly; rot90 / gather
take a float k / axis (eager: TypeError); unbind refuses a Tensor axis (eager
takes it); trapezoid's Tensor dx gets no gradient, and with an x of y's shape y's
gradient takes the first row's spacing for every row (docs/autograd.md rows added);
take_along_axis / put_along_axis with broadcast=False and indices smaller than arr
read and write at wrong places (docs/ops.md row added; eager: torch.gather's).
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


def _leaf(values, dtype=np.float64):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "prod", "nansum", "max", "min", "amax", "amin"])
def test_scan_and_reduce_of_bool_raise_runtime_error(op):
    x = eager.to_tensor([True, False, True])
    args = (0,) if op == "cumprod" else ()
    with pytest.raises(RuntimeError, match=rf"{op}: argument 'x' expected") as info:
        getattr(eager, op)(x, *args)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("op", ["max", "amin"])
def test_max_min_of_complex_raise_runtime_error(op):
    with pytest.raises(RuntimeError, match=rf"{op}: argument 'x'"):
        getattr(eager, op)(eager.to_tensor([1j, 2 + 0j]))


@pytest.mark.parametrize("dx", [0.5, [0.5]])
def test_trapezoid_takes_a_one_element_tensor_dx(dx):
    data = np.random.default_rng(0).random((2, 5))
    y = _leaf(data)
    out = eager.trapezoid(y, dx=eager.to_tensor(dx))
    np.testing.assert_allclose(out.numpy(), 0.5 * (data[:, 1:] + data[:, :-1]).sum(-1) * 0.5)
    out.sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), np.tile([0.25, 0.5, 0.5, 0.5, 0.25], (2, 1)))
    cum = eager.cumulative_trapezoid(eager.to_tensor(data), dx=eager.to_tensor(dx), axis=0)
    np.testing.assert_allclose(cum.numpy(), 0.25 * (data[1:] + data[:-1]))


def test_trapezoid_refuses_a_dx_tensor_of_several_values():
    with pytest.raises(ValueError, match="trapezoid: argument 'dx' expected a number or a one-element Tensor"):
        eager.trapezoid(eager.ones([2, 5]), dx=eager.to_tensor([0.5, 1.0]))


def test_diff_of_0d_raises_index_error_too():
    with pytest.raises(IndexError, match="diff: argument 'x' expected at least 1 dimension") as info:
        eager.diff(eager.to_tensor(1.0))
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("axis", [2, -3])
def test_along_axis_ops_assert_the_axis_range(axis):
    arr = eager.ones([3, 4])
    index = eager.to_tensor([[0, 1, 2, 0]])
    for call in (lambda: eager.take_along_axis(arr, index, axis),
                 lambda: eager.put_along_axis(arr, index, 1.0, axis)):
        with pytest.raises(AssertionError, match=r"argument 'axis' expected an axis in \[-2, 2\)") as info:
            call()
        assert isinstance(info.value, (ValueError)) and isinstance(info.value, IndexError)


@pytest.mark.parametrize("axis, size", [(0, 1), (-1, 1), (0, 0)])
def test_unfold_of_0d_is_one_window(axis, size):
    x = _leaf(2.5)
    out = x.unfold(axis, size, 2)
    assert out.shape == [size]
    np.testing.assert_array_equal(out.numpy(), [2.5][:size])
    if size:
        out.sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), 1.0)


def test_unfold_of_0d_refuses_a_larger_window():
    with pytest.raises(ValueError, match=r"unfold: argument 'size' \(2\) exceeds the one element of a 0-d x"):
        eager.to_tensor(2.5).unfold(0, 2, 1)


def test_multigammaln_p_below_one_is_an_assertion_error_too():
    with pytest.raises(AssertionError, match="multigammaln: argument 'p' expected an int >= 1, got 0") as info:
        eager.multigammaln(eager.to_tensor([3.0]), 0)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("shape", [[], [1, 2]])
def test_combinations_of_a_non_vector_is_a_type_error_too(shape):
    with pytest.raises(TypeError, match="combinations: argument 'x' expected a 1-d tensor") as info:
        eager.combinations(eager.ones(shape))
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("dtype", ["bool", "int16", "float16", "complex64"])
def test_searchsorted_bucketize_histogram_of_an_unkerneled_dtype_raise_runtime_error(dtype):
    data = np.array([1, 2, 3]).astype(dtype)
    for call in (lambda t: eager.searchsorted(t, t), lambda t: eager.bucketize(t, t),
                 lambda t: eager.histogram(t, bins=3)):
        with pytest.raises(RuntimeError, match=f"expected a float32, float64, int32 or int64 tensor, got paddle.{dtype}") \
                as info:
            call(eager.to_tensor(data))
        assert isinstance(info.value, ValueError)


def test_median_of_complex_raises_runtime_error():
    with pytest.raises(RuntimeError, match="median: argument 'x' expected a real or bool tensor") as info:
        eager.median(eager.to_tensor([1j, 2 + 0j]))
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("data", [[True, False], [1j, 0j]])
def test_heaviside_of_bool_or_complex_raises_runtime_error(data):
    x = eager.to_tensor(data)
    with pytest.raises(RuntimeError, match="heaviside: arguments 'x' and 'y' expected a real numeric dtype") as info:
        eager.heaviside(x, x)
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("call", [
    lambda z: eager.gather(z, eager.to_tensor([0])),
    lambda z: eager.index_select(z, eager.to_tensor([0])),
    lambda z: eager.index_add(z, eager.to_tensor([0]), -1, z),
    lambda z: eager.trapezoid(z),
    lambda z: eager.cumulative_trapezoid(z),
], ids=["gather", "index_select", "index_add", "trapezoid", "cumulative_trapezoid"])
def test_axis_ops_of_0d_raise_index_error_too(call):
    with pytest.raises(IndexError, match="expected at least (one|1) dimension") as info:
        call(eager.to_tensor(1.5))
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("call", [
    lambda z: eager.split(z, 1, -1),
    lambda z: eager.chunk(z, 1, 0),
    lambda z: eager.take_along_axis(z, eager.to_tensor(0), 0),
    lambda z: eager.put_along_axis(z, eager.to_tensor(0), z, 0),
], ids=["split", "chunk", "take_along_axis", "put_along_axis"])
def test_split_and_along_axis_ops_of_0d_are_assertion_errors_too(call):
    with pytest.raises(AssertionError, match="0-d") as info:
        call(eager.to_tensor(1.5))
    assert isinstance(info.value, ValueError)
