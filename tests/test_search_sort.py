"""What the op table cannot say about the search sort ops: index outputs are not
differentiable and take no gradient slot, tie rules on floats, NaN in running
extremes, gradients that add up where one element is picked twice, higher
orders, bincount's dtypes, and clear errors that leave the inputs untouched."""
import numpy as np
import pytest

import eager
from eager.autograd import gradgradcheck
from phi.common import DataType
from phi.core import MetaTensor
from phi.core.errors import InvalidArgumentError
from phi.infermeta.search_sort import arg_min_max_infer_meta, cum_extreme_infer_meta

# -- index outputs -------------------------------------------------------------------------------

PICKING = {
    "topk": lambda x: eager.topk(x, 2),
    "kthvalue": lambda x: eager.kthvalue(x, 2),
    "mode": lambda x: eager.mode(x),
    "cummax": lambda x: eager.cummax(x, axis=1),
    "cummin": lambda x: eager.cummin(x, axis=1),
}


@pytest.mark.parametrize("name", sorted(PICKING))
def test_index_output_is_not_differentiable_and_takes_no_gradient_slot(name):
    x = eager.to_tensor(np.array([[0.3, -1.2, 2.5, 0.9], [1.1, 0.4, -0.7, 3.3]]), stop_gradient=False)
    values, indices = PICKING[name](x)
    assert not values.stop_gradient and indices.stop_gradient
    assert indices.dtype == eager.int64 and indices.grad_node is None
    assert values.grad_node.num_grad_slots == 1
    indices.stop_gradient = False  # accepted, as Paddle; an int64 tensor still gets no gradient
    (values.sum() + indices.astype(values.dtype).sum()).backward()
    assert indices.grad is None and x.grad is not None


def test_index_output_used_as_data_does_not_disturb_the_gradient():
    x = eager.to_tensor(np.array([4.0, -1.0, 7.0, 2.0]), stop_gradient=False)
    values, indices = eager.topk(x, 2)
    # indices as a float weight: a constant for autograd.
    (values * eager.cast(indices, "float64")).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 2.0, 0.0])  # 7 at index 2, 4 at index 0


def test_sort_returns_values_only_and_argsort_indices_only():
    x = eager.to_tensor(np.array([3.0, 1.0, 2.0]))
    assert isinstance(eager.sort(x), eager.Tensor)
    np.testing.assert_array_equal(eager.sort(x).numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(eager.argsort(x, descending=True).numpy(), [0, 2, 1])


# -- ties and NaN ------------------------------------------------------------------------------------

def test_float_ties_pick_by_index():
    x = eager.to_tensor(np.array([1.5, 2.0, 2.0, -1.0, 2.0, -1.0], dtype=np.float32))
    values, indices = eager.topk(x, 2)
    np.testing.assert_array_equal(indices.numpy(), [1, 2])  # the first two of the three maxima
    values, indices = eager.topk(x, 2, largest=False)
    np.testing.assert_array_equal(indices.numpy(), [3, 5])
    np.testing.assert_array_equal(eager.argsort(x).numpy(), [3, 5, 0, 1, 2, 4])
    np.testing.assert_array_equal(eager.argsort(x, descending=True).numpy(), [1, 2, 4, 0, 3, 5])
    assert eager.kthvalue(x, 4)[1].item() == 1
    assert eager.argmax(x).item() == 1 and eager.argmin(x).item() == 3


def test_running_extremes_take_the_latest_of_equal_values():
    x = eager.to_tensor(np.array([1.0, 3.0, 3.0, 2.0, 3.0, 0.0]))
    np.testing.assert_array_equal(eager.cummax(x)[1].numpy(), [0, 1, 2, 2, 4, 4])
    np.testing.assert_array_equal(eager.cummin(x)[1].numpy(), [0, 0, 0, 0, 0, 5])


def test_mode_picks_the_smallest_most_frequent_value_and_its_last_index():
    x = eager.to_tensor(np.array([[5.0, 2.0, 5.0, 2.0, 9.0], [7.0, 7.0, 1.0, 7.0, 1.0]]))
    values, indices = eager.mode(x)
    np.testing.assert_array_equal(values.numpy(), [2.0, 7.0])
    np.testing.assert_array_equal(indices.numpy(), [3, 3])


def test_nan_propagates_through_running_extremes():
    x = eager.to_tensor(np.array([1.0, np.nan, 5.0, 0.5]))
    for op in (eager.cummax, eager.cummin):
        values, indices = op(x)
        assert np.isnan(values.numpy()[1:]).all(), op
        np.testing.assert_array_equal(indices.numpy(), [0, 1, 1, 1])


# -- gradients ---------------------------------------------------------------------------------------

def test_running_maximum_gradient_adds_up_at_an_element_picked_many_times():
    x = eager.to_tensor(np.array([[2.0, 1.0, 0.5, 3.0, -1.0]]), stop_gradient=False)
    weights = np.array([[1.0, 10.0, 100.0, 1000.0, 10000.0]])
    (eager.cummax(x, axis=1)[0] * eager.to_tensor(weights)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[111.0, 0.0, 0.0, 11000.0, 0.0]])


def test_cummax_over_all_elements_flattens_and_its_gradient_has_x_shape():
    x = eager.to_tensor(np.array([[1.0, 4.0], [2.0, 5.0]]), stop_gradient=False)
    values, indices = eager.cummax(x)
    np.testing.assert_array_equal(values.numpy(), [1.0, 4.0, 4.0, 5.0])
    np.testing.assert_array_equal(indices.numpy(), [0, 1, 1, 3])
    values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 2.0], [0.0, 1.0]])


@pytest.mark.parametrize("name", sorted(PICKING))
def test_third_order_through_a_product_with_the_picked_values(name):
    # (picked values)^3 has non-zero third derivatives, all through the scatter rule.
    rng = np.random.default_rng(7)
    x = eager.to_tensor(rng.uniform(-2, 2, (2, 4)), stop_gradient=False)

    def cubed(t):
        values = PICKING[name](t)[0]
        return values * values * values
    (first,) = eager.grad(cubed(x).sum(), x, create_graph=True)
    (second,) = eager.grad(first.sum(), x, create_graph=True)
    (third,) = eager.grad(second.sum(), x)
    picks = np.zeros(x.shape)
    values, indices = (t.numpy() for t in PICKING[name](x))
    if values.ndim == 1:  # reduced ops: put the axis back
        values, indices = values[:, None], indices[:, None]
    for row in range(indices.shape[0]):
        for col in range(indices.shape[1]):
            picks[row, indices[row, col]] += 6.0  # d3/dv3 v^3 = 6 per pick
    np.testing.assert_allclose(third.numpy(), picks, rtol=1e-12)
    assert gradgradcheck(cubed, [x])


# -- bincount dtypes --------------------------------------------------------------------------------

def test_bincount_dtypes_follow_weights():
    x = eager.to_tensor(np.array([1, 2, 1, 4], dtype=np.int32))
    assert eager.bincount(x).dtype == eager.int64
    float_weights = eager.to_tensor(np.array([0.5, 0.25, 1.0, 2.0], dtype=np.float32))
    out = eager.bincount(x, weights=float_weights)
    assert out.dtype == eager.float32
    np.testing.assert_allclose(out.numpy(), [0.0, 1.5, 0.25, 0.0, 2.0])
    big = eager.to_tensor(np.array([2 ** 60, 3, 2 ** 60, 1], dtype=np.int64))
    out = eager.bincount(x, weights=big, minlength=6)
    assert out.dtype == eager.float64  # Paddle 2.6.2's dtype for integer weights; summed exactly first
    np.testing.assert_array_equal(out.numpy(), [0, 2 ** 61, 3, 0, 1, 0])


# -- errors -----------------------------------------------------------------------------------------

X = np.array([[0.3, -1.2, 2.5], [1.1, 0.4, -0.7]])
BAD_CALLS = [
    ("topk", lambda x: eager.topk(x, 4), "argument 'k' expected an int in [1, 3]"),
    ("topk", lambda x: eager.topk(x, 0, axis=0), "argument 'k' expected an int in [1, 2]"),
    ("topk", lambda x: eager.topk(x, 1.5), "argument 'k' expected an int, got 1.5"),
    ("topk", lambda x: eager.topk(x, 1 + 2j), "argument 'k' expected an int, got (1+2j)"),
    ("topk", lambda x: eager.topk(x, True), "argument 'k' expected an int, got True"),
    ("topk", lambda x: eager.topk(x, 1, axis=2), "argument 'axis' expected an axis in [-2, 2)"),
    ("kthvalue", lambda x: eager.kthvalue(x, 4), "argument 'k' expected an int in [1, 3]"),
    ("argmax", lambda x: eager.argmax(x, dtype="float32"), "argument 'dtype' expected int32 or int64"),
    ("argmin", lambda x: eager.argmin(x, axis=-3), "argument 'axis' expected an axis in [-2, 2)"),
    ("argmax", lambda x: eager.argmax(eager.zeros([0, 3])), "and no elements, so it has no maximum or minimum"),
    ("argmax", lambda x: eager.argmax(eager.zeros([2, 0]), axis=1), "axis 1 is empty"),
    ("cummax", lambda x: eager.cummax(x, dtype="int16"), "argument 'dtype' expected int32 or int64"),
    ("mode", lambda x: eager.mode(eager.zeros([3, 0])), "axis 1 is empty, so it has no mode"),
    ("sort", lambda x: eager.sort(eager.cast(x, "bool")), "expected an integer or floating-point tensor, got paddle.bool"),
    ("unique", lambda x: eager.unique(x, axis=2), "argument 'axis' expected an axis in [-2, 2)"),
    ("unique", lambda x: eager.unique(eager.to_tensor(1.0), axis=0), "expected None for a 0-d x"),
    ("bincount", lambda x: eager.bincount(eager.to_tensor([1, -3])), "expected non-negative values, got -3"),
    ("bincount", lambda x: eager.bincount(eager.to_tensor([[1]])), "expected a 1-D tensor"),
    ("bincount", lambda x: eager.bincount(eager.to_tensor([1.0])), "expected an int32 or int64 tensor"),
    ("bincount", lambda x: eager.bincount(eager.to_tensor([1, 2]), eager.to_tensor([1.0])),
     "argument 'weights' expected the shape of x [2], got [1]"),
    ("bincount", lambda x: eager.bincount(eager.to_tensor([1]), minlength=-1), "expected an int >= 0, got -1"),
]


@pytest.mark.parametrize("op, call, message", BAD_CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_CALLS)])
def test_bad_input_is_refused_by_name_and_leaves_x_unchanged(op, call, message):
    x = eager.to_tensor(X.copy(), stop_gradient=False)
    with pytest.raises(ValueError) as info:
        call(x)
    assert str(info.value).startswith(f"{op}: ") and message in str(info.value), str(info.value)
    np.testing.assert_array_equal(x.numpy(), X)
    assert x.grad is None


def test_int32_indices_are_refused_where_they_would_overflow():
    # InferMeta alone: no 2**31-element buffer is needed to see the problem.
    huge = MetaTensor((2, 2 ** 31), DataType.FLOAT32)
    with pytest.raises(InvalidArgumentError, match="beyond int32; use int64"):
        arg_min_max_infer_meta(huge, 1, False, DataType.INT32, MetaTensor())
    with pytest.raises(InvalidArgumentError, match="beyond int32; use int64"):
        cum_extreme_infer_meta(huge, None, DataType.INT32, MetaTensor(), MetaTensor())
    fine = MetaTensor()
    arg_min_max_infer_meta(huge, 0, False, DataType.INT32, fine)
    assert fine.dims == (2 ** 31,) and fine.dtype is DataType.INT32


def test_methods_follow_paddle():
    x = eager.to_tensor(np.array([[3.0, 1.0], [2.0, 4.0]]))
    assert x.argmax().item() == 3 and x.argmin(axis=1).numpy().tolist() == [1, 0]
    assert x.topk(1)[0].numpy().tolist() == [[3.0], [4.0]]
    assert x.sort(axis=0).numpy().tolist() == [[2.0, 1.0], [3.0, 4.0]]
    assert x.unique().numpy().tolist() == [1.0, 2.0, 3.0, 4.0]


# -- against PyTorch, on distinct values (where every library agrees on indices) ----------------------

TORCH_PAIRS = {
    "topk": (lambda x: eager.topk(x, 3, axis=1), lambda t: t.topk(3, dim=1)),
    "topk_smallest": (lambda x: eager.topk(x, 2, axis=0, largest=False), lambda t: t.topk(2, dim=0, largest=False)),
    "sort": (lambda x: (eager.sort(x, axis=0, descending=True), eager.argsort(x, axis=0, descending=True)),
             lambda t: t.sort(dim=0, descending=True)),
    "kthvalue": (lambda x: eager.kthvalue(x, 4, keepdim=True), lambda t: t.kthvalue(4, dim=-1, keepdim=True)),
    "cummax": (lambda x: eager.cummax(x, axis=1), lambda t: t.cummax(dim=1)),
    "cummin": (lambda x: eager.cummin(x, axis=0), lambda t: t.cummin(dim=0)),
    "mode": (lambda x: eager.mode(x, axis=1), lambda t: t.mode(dim=1)),
}


@pytest.mark.parametrize("name", sorted(TORCH_PAIRS))
def test_values_indices_and_gradients_agree_with_torch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = TORCH_PAIRS[name]
    rng = np.random.default_rng(11)
    data = rng.permutation(np.linspace(-3.0, 3.0, 30)).reshape(5, 6)  # distinct values
    weights = rng.uniform(-1, 1, 6)
    x = eager.to_tensor(data, stop_gradient=False)
    t = torch.tensor(data, requires_grad=True)
    values, indices = ours(x)
    t_values, t_indices = theirs(t)
    np.testing.assert_array_equal(values.numpy(), t_values.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), t_indices.numpy())
    seed = weights[:values.shape[-1]]
    (values * eager.to_tensor(seed)).sum().backward()
    (t_values * torch.tensor(seed)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)
