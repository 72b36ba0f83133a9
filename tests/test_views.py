"""Inplace ops on views of tensors that require gradients: the base's history
is rebased, other views follow, stale saved tensors raise, leaf views are
refused, and every gradient matches finite differences."""
import numpy as np
import pytest

import eager
from eager.autograd import AutogradError, gradcheck, gradgradcheck

rng = np.random.default_rng(3)


def leaf(*shape):
    return eager.to_tensor(rng.normal(size=shape), stop_gradient=False)


def test_scaling_a_reshaped_view_rebases_the_base():
    x = leaf(2, 3)
    y = x * 1.0
    v = y.reshape([6])
    v.scale_(2.0)
    np.testing.assert_allclose(y.numpy(), 2 * x.numpy())
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 8 * x.numpy())  # d/dx (2x)^2
    assert y.grad_node.backward_op == "copy_slices"


def test_a_column_written_through_a_slice_matches_the_out_of_place_gradient():
    def inplace(x):
        h = x * 1.0
        column = h[:, 0]
        column *= 2.0
        return (h * h).sum()

    x = leaf(3, 4)
    inplace(x).backward()
    weights = np.ones((3, 4))
    weights[:, 0] = 2.0
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy() * weights ** 2)
    assert gradcheck(inplace, (leaf(3, 4),))


@pytest.mark.parametrize("write", [
    lambda h: h.transpose([1, 0]).add_(eager.to_tensor(np.ones((4, 3)))),
    lambda h: h.unsqueeze(0).squeeze(0).flatten()[2:5].scale_(-3.0),
    lambda h: eager.split(h, [1, 2], 0)[1].multiply_(h[0:1] * 1.0),
    lambda h: h.unbind(1)[2].tanh_(),
    lambda h: h.__setitem__((slice(None), 1), h[:, 2] * 5.0),
])
def test_inplace_through_views_matches_finite_differences(write):
    def f(x):
        h = x * x
        write(h)
        return h * x

    assert gradcheck(f, (leaf(3, 4),))


def test_other_views_of_the_base_see_the_new_history():
    def f(x):
        h = x * 1.0
        whole = h.reshape([12])      # made before the write
        first_row = h[0]
        first_row.scale_(4.0)        # writes through another view
        return (whole * whole).sum() + first_row.sum()

    x = leaf(3, 4)
    f(x).backward()
    factor = np.ones((3, 4))
    factor[0] = 4.0
    expected = 2 * x.numpy() * factor ** 2 + np.where(factor == 4.0, 4.0, 0.0)
    np.testing.assert_allclose(x.grad.numpy(), expected)
    assert gradcheck(f, (leaf(3, 4),))


def test_writing_the_base_refreshes_its_views():
    def f(x):
        h = x * 1.0
        row = h[1]
        h.scale_(3.0)                # the base itself changes
        return (row * row).sum()

    assert gradcheck(f, (leaf(2, 3),))


def test_second_order_through_a_rebased_base():
    def f(x):
        h = x * x
        h[0].scale_(2.0)
        return (h * x).sum()

    assert gradgradcheck(f, (leaf(2, 3),))


def test_a_saved_tensor_made_stale_by_a_write_through_a_view_raises():
    x = leaf(2, 3)
    h = x * 1.0
    y = h * h                         # saves h
    h[0].scale_(2.0)
    with pytest.raises(AutogradError, match="modified by an inplace operation"):
        y.sum().backward()


def test_a_view_of_a_leaf_stays_refused():
    x = leaf(2, 3)
    with pytest.raises(AutogradError, match="view .*of a leaf tensor with stop_gradient=False"):
        x[0].scale_(2.0)
    with eager.no_grad():
        x[0].scale_(2.0)             # allowed without recording, as in Paddle


def test_writing_a_view_under_no_grad_keeps_histories():
    x = leaf(2, 3)
    h = x * 1.0
    node = h.grad_node
    with eager.no_grad():
        h[1].scale_(0.0)
    assert h.grad_node is node
    np.testing.assert_allclose(h.numpy()[1], 0.0)


def test_advanced_indexing_copies_and_leaves_the_base_alone():
    x = leaf(3, 2)
    h = x * 1.0
    picked = h[eager.to_tensor([0, 2])]   # a copy, not a view
    picked.scale_(10.0)
    np.testing.assert_allclose(h.numpy(), x.numpy())
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((3, 2)))


@pytest.mark.parametrize("write", ["setitem", "add_"])
def test_a_write_through_an_empty_view_still_gives_the_value_a_gradient(device, write):
    # The view selects nothing, yet it is a view: the base is rebased and the value
    # gets an empty gradient, on the CPU and on the GPU path (the fake CuPy once
    # took an empty slice for a copy, and v.grad stayed None there).
    x = leaf(3, 1)
    v = eager.to_tensor(np.zeros((3, 0)), stop_gradient=False)
    y = x * 1.0
    z = y[:, 1:]
    if write == "setitem":
        z[...] = v
    else:
        z.add_(v)
    assert y.grad_node.backward_op == "copy_slices"
    y.sum().backward()
    assert v.grad is not None and v.grad.shape == [3, 0]
    np.testing.assert_allclose(x.grad.numpy(), np.ones((3, 1)))
