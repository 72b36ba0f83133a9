"""Gradient accumulation owns its buffers, backward is a transaction, and
accumulation into one leaf is atomic across threads."""
import threading

import numpy as np
import pytest

import eager
from eager.autograd import AutogradError, PyLayer, queue_callback


def leaf(values):
    return eager.to_tensor(np.array(values, dtype=np.float64), stop_gradient=False)


def shares(a, b) -> bool:
    return np.shares_memory(a.numpy(), b.numpy())


# -- .grad owns its buffer ------------------------------------------------------------

def test_grads_of_an_add_share_no_buffer_with_each_other_or_the_seed():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    seed = eager.to_tensor(np.array([1.0, 10.0]))
    (a + b).backward(seed)
    assert not shares(a.grad, b.grad)
    assert not shares(a.grad, seed) and not shares(b.grad, seed)
    a.grad.numpy()[...] = -5.0  # clipping one gradient in place touches nothing else
    np.testing.assert_array_equal(b.grad.numpy(), [1.0, 10.0])
    np.testing.assert_array_equal(seed.numpy(), [1.0, 10.0])


def test_a_leaf_differentiated_directly_does_not_keep_the_seed():
    a = leaf([1.0, 2.0])
    seed = eager.to_tensor(np.array([7.0, 8.0]))
    a.backward(seed)
    assert a.grad is not seed and not shares(a.grad, seed)


def test_a_view_passes_gradients_without_aliasing_them():
    a = leaf([[1.0, 2.0], [3.0, 4.0]])
    seed = eager.to_tensor(np.arange(4.0))
    a.reshape([4]).backward(seed)
    assert not shares(a.grad, seed)
    np.testing.assert_array_equal(a.grad.numpy(), [[0.0, 1.0], [2.0, 3.0]])


def test_a_retained_gradient_owns_its_buffer():
    a = leaf([1.0, 2.0])
    y = a * 1.0
    y.retain_grads()
    seed = eager.to_tensor(np.array([1.0, 1.0]))
    (y + 0.0).backward(seed)
    assert not shares(y.grad, seed) and not shares(y.grad, a.grad)


def test_later_backwards_accumulate_in_place_into_the_same_buffer():
    w = leaf([1.0, 2.0])
    (w * 3.0).sum().backward()
    grad, version = w.grad, w.grad.inplace_version
    (w * 4.0).sum().backward()
    assert w.grad is grad and w.grad.inplace_version == version + 1
    np.testing.assert_array_equal(w.grad.numpy(), [7.0, 7.0])


def test_clear_grad_zeroes_in_place_so_the_buffer_survives_steps():
    w = leaf([1.0, 2.0])
    (w * 3.0).sum().backward()
    grad = w.grad
    buffer = grad.numpy()
    w.clear_grad()
    assert w.grad is grad
    np.testing.assert_array_equal(buffer, [0.0, 0.0])
    (w * 5.0).sum().backward()
    assert np.shares_memory(w.grad.numpy(), buffer)
    np.testing.assert_array_equal(w.grad.numpy(), [5.0, 5.0])
    w.clear_grad(set_to_zero=False)
    assert w.grad is None


def test_two_paths_into_a_leaf_sum_into_one_owned_buffer():
    x = leaf([1.0, 2.0])
    eager.autograd.backward([(x * x * x).sum() + (x * x).sum()])
    np.testing.assert_allclose(x.grad.numpy(), [3.0 + 2.0, 12.0 + 4.0])


def test_a_leaf_grad_made_under_create_graph_keeps_its_history():
    x = leaf([1.0, 2.0])
    y = (x * x).sum() + (x * x * x).sum()   # two paths: the sum at the leaf is recorded too
    (g,) = eager.grad(y, x, create_graph=True)
    assert not g.stop_gradient
    (gg,) = eager.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [2.0 + 6.0, 2.0 + 12.0])


# -- backward is a transaction ---------------------------------------------------------

def test_a_failing_hook_leaves_every_grad_as_it_was_and_the_graph_usable():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (a * b).sum().backward()
    before = a.grad.numpy().copy(), b.grad.numpy().copy()
    loss = (a * 2.0).sum() + (b * 3.0).sum()

    def broken(grad):
        raise RuntimeError("hook failed")

    handle = b.register_hook(broken)
    with pytest.raises(RuntimeError, match="hook failed"):
        loss.backward()
    np.testing.assert_array_equal(a.grad.numpy(), before[0])
    np.testing.assert_array_equal(b.grad.numpy(), before[1])
    handle.remove()
    loss.backward()  # not released by the failed attempt
    np.testing.assert_array_equal(a.grad.numpy(), before[0] + 2.0)
    np.testing.assert_array_equal(b.grad.numpy(), before[1] + 3.0)


def test_a_modified_saved_tensor_leaves_every_grad_as_it_was():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    h = a * 1.0
    loss = (h * b).sum() + (a * 5.0).sum()
    with eager.no_grad():
        h += 1.0  # h is saved by multiply for b's gradient
    with pytest.raises(AutogradError, match="modified by an inplace operation"):
        loss.backward()
    assert a.grad is None and b.grad is None


def test_a_failing_pylayer_leaves_every_grad_as_it_was():
    class Broken(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0

        @staticmethod
        def backward(ctx, grad):
            raise ValueError("no gradient today")

    a, b = leaf([1.0]), leaf([2.0])
    loss = Broken.apply(a).sum() + (b * 1.0).sum()
    with pytest.raises(ValueError, match="no gradient today"):
        loss.backward()
    assert a.grad is None and b.grad is None


def test_an_unused_input_error_in_grad_changes_nothing():
    a, b = leaf([1.0]), leaf([2.0])
    y = a * 1.0
    y.retain_grads()
    with pytest.raises(AutogradError, match="not reached"):
        eager.grad((y * 3.0).sum(), [a, b])
    assert y.grad is None and a.grad is None


# -- final callbacks ------------------------------------------------------------------

def test_queued_callbacks_run_after_every_grad_is_set():
    a, b = leaf([1.0]), leaf([2.0])
    seen = []

    def hook(grad):
        queue_callback(lambda: seen.append((a.grad.numpy().tolist(), b.grad.numpy().tolist())))

    a.register_hook(hook)
    (a * 3.0 + b * 4.0).sum().backward()
    assert seen == [([3.0], [4.0])]


def test_queue_callback_outside_backward_is_an_error():
    with pytest.raises(AutogradError, match="no backward pass is running"):
        queue_callback(lambda: None)


def test_queue_callback_rejects_a_non_callable():
    a = leaf([1.0])
    errors = []

    def hook(grad):
        try:
            queue_callback(42)
        except TypeError as error:
            errors.append(str(error))

    a.register_hook(hook)
    (a * 1.0).sum().backward()
    assert errors == ["queue_callback: expected a callable, got int"]


# -- threads ---------------------------------------------------------------------------

def test_four_threads_accumulating_into_one_leaf_give_the_exact_total():
    # Large enough that NumPy drops the GIL inside the in-place add, so without
    # the accumulation lock concurrent adds into one buffer lose updates.
    w = leaf(np.zeros(200_000))
    passes = 40

    def work():
        for _ in range(passes):
            (w * 1.0).sum().backward()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(w.grad.numpy(), np.full(200_000, 4.0 * passes))
