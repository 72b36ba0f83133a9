"""Gradients written straight into a zeroed ``.grad`` (eager.autograd.accumulation's
LEAF_WRITERS): after ``clear_grad()`` (set_to_zero=True), linear's and matmul's
kernels write a leaf's gradient into its ``.grad`` buffer. Everything a user can
see must be as with the add into zeros: values (bit for bit), the ``.grad``
tensor and buffer identities, versions moving, hooks, retain_graph,
create_graph, a failed backward leaving ``.grad`` as it was, and jit captures.
Runs on the CPU and on the (fake) GPU."""
from __future__ import annotations

import numpy as np
import pytest

import eager
import phi.api
from eager import nn
from eager.autograd import accumulation
from eager.autograd.engine import run_backward

pytestmark = pytest.mark.usefixtures("device")


@pytest.fixture
def writes(monkeypatch):
    """Counts the gradients the leaf writers wrote into a .grad, and the adds
    into a .grad (phi's accumulate_) that the backward made."""
    counts = {"written": 0, "added": 0}
    run_into, accumulate = accumulation._run_into, phi.api.accumulate_

    def counting_run_into(*args, **kwargs):
        leaves = args[-1]
        before = len(leaves)
        outputs = run_into(*args, **kwargs)
        counts["written"] += len(leaves) - before
        return outputs

    def counting_accumulate(acc, x):
        counts["added"] += 1
        return accumulate(acc, x)

    monkeypatch.setattr(accumulation, "_run_into", counting_run_into)
    monkeypatch.setattr(phi.api, "accumulate_", counting_accumulate)
    return counts


def _data(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _mlp():
    eager.seed(7)
    return nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))


def _train(set_to_zero: bool, x, y, steps=4):
    net = _mlp()
    opt = eager.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    grads = []
    for _ in range(steps):
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        grads.append([p.grad.numpy().copy() for p in net.parameters()])
        opt.step()
        opt.clear_grad(set_to_zero=set_to_zero)
    return [p.numpy().copy() for p in net.parameters()], grads


def test_training_with_zeroed_grads_is_bitwise_the_same_as_with_fresh_ones(rng, writes):
    x, y = eager.to_tensor(_data(rng, 4, 6)), eager.to_tensor(_data(rng, 4, 3))
    params_zero, grads_zero = _train(True, x, y)
    assert writes["written"] == 3 * 4 and writes["added"] == 0  # steps 2-4: 4 parameters each
    params_none, grads_none = _train(False, x, y)
    for a, b in zip(params_zero + sum(grads_zero, []), params_none + sum(grads_none, [])):
        assert a.tobytes() == b.tobytes()


def test_the_gradient_goes_into_the_buffer_the_user_holds(rng, writes):
    x_np, w_np, b_np = _data(rng, 4, 3), _data(rng, 3, 2), _data(rng, 2)
    x = eager.to_tensor(x_np)
    w = eager.to_tensor(w_np, stop_gradient=False)
    b = eager.to_tensor(b_np, stop_gradient=False)
    nn.functional.linear(x, w, b).sum().backward()
    w.clear_grad()
    b.clear_grad()
    held, buffer, version = w.grad, w.grad.impl.array, w.grad.impl.version
    assert not held.numpy().any()
    (nn.functional.linear(x, w, b) * 2.0).sum().backward()
    assert writes["written"] == 2 and writes["added"] == 0
    assert w.grad is held and w.grad.impl.array is buffer and held.impl.version == version + 1
    np.testing.assert_allclose(held.numpy(), x_np.T @ np.full((4, 2), 2.0, np.float32), rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), np.full(2, 8.0, np.float32))
    # The written gradient is no longer known zero: the next backward adds to it.
    (nn.functional.linear(x, w, b) * 2.0).sum().backward()
    assert writes["written"] == 2 and writes["added"] == 2
    np.testing.assert_allclose(held.numpy(), 2 * (x_np.T @ np.full((4, 2), 2.0, np.float32)), rtol=1e-6)


def test_matmul_writes_a_2d_leaf_operand_and_transposes_take_the_add(rng, writes):
    x_np, w_np = _data(rng, 4, 3), _data(rng, 3, 5)
    w = eager.to_tensor(w_np, stop_gradient=False)
    for transpose in (False, True):
        x = eager.to_tensor(x_np.T.copy() if transpose else x_np, stop_gradient=False)
        eager.matmul(x, w, transpose_x=transpose).sum().backward()
        x.clear_grad()
        w.clear_grad()
        eager.matmul(x, w, transpose_x=transpose).sum().backward()
        ones = np.ones((4, 5), np.float32)
        np.testing.assert_allclose(w.grad.numpy(), x_np.T @ ones, rtol=1e-6)
        expected_x = ones @ w_np.T
        np.testing.assert_allclose(x.grad.numpy(), expected_x.T if transpose else expected_x, rtol=1e-6)
        w.clear_grad()
    # Written: both, without transposes. Added: w's and x's with transpose_x, and
    # w's in the first backward with it (w.grad was known zero, the kernel transposes).
    assert writes["written"] == 2 and writes["added"] == 3


def test_a_leaf_with_a_hook_two_uses_or_a_user_write_is_added_into(rng, writes):
    x = eager.to_tensor(_data(rng, 4, 3))
    w = eager.to_tensor(_data(rng, 3, 2), stop_gradient=False)
    nn.functional.linear(x, w, None).sum().backward()
    expected = w.grad.numpy().copy()

    seen = []
    handle = w.register_hook(lambda g: seen.append(g.numpy().copy()))
    w.clear_grad()
    nn.functional.linear(x, w, None).sum().backward()
    handle.remove()
    np.testing.assert_array_equal(seen[0], expected)
    np.testing.assert_array_equal(w.grad.numpy(), expected)

    w.clear_grad()  # two uses of w in one backward: both gradients add up
    (nn.functional.linear(x, w, None) + nn.functional.linear(x, w, None)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * expected, rtol=1e-6)

    w.clear_grad()
    with eager.no_grad():
        w.grad.add_(eager.ones_like(w.grad))  # written in place after the clear: not zero any more
    nn.functional.linear(x, w, None).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), expected + 1, rtol=1e-6)
    assert writes["written"] == 0


def test_retain_graph_post_accumulate_hooks_and_create_graph(rng, writes):
    x_np = _data(rng, 4, 3)
    x = eager.to_tensor(x_np)
    w = eager.to_tensor(_data(rng, 3, 2), stop_gradient=False)
    nn.functional.linear(x, w, None).sum().backward()
    expected = w.grad.numpy().copy()
    w.clear_grad()
    after = []
    w.register_post_accumulate_grad_hook(lambda t: after.append(t.grad.numpy().copy()))
    loss = nn.functional.linear(x, w, None).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    assert writes["written"] == 1 and writes["added"] == 1
    np.testing.assert_array_equal(after[0], expected)
    np.testing.assert_allclose(after[1], 2 * expected, rtol=1e-6)

    w.clear_grad()  # create_graph: the gradient is recorded, never written in place
    run_backward([(nn.functional.linear(x, w, None) ** 2).sum()], [None], True, create_graph=True)
    assert writes["written"] == 1
    assert not w.grad.stop_gradient and w.grad.grad_node is not None
    out = x_np @ w.numpy()
    np.testing.assert_allclose(w.grad.numpy(), x_np.T @ (2 * out), rtol=1e-5)


def test_a_failed_backward_leaves_the_written_grad_zero(rng, writes):
    x = eager.to_tensor(_data(rng, 4, 3), stop_gradient=False)
    w = eager.to_tensor(_data(rng, 3, 2), stop_gradient=False)
    nn.functional.linear(x * 2.0, w, None).sum().backward()
    w.clear_grad()
    held = w.grad
    x.clear_grad()

    def fail(grad):
        raise RuntimeError("hook refuses")

    scaled = x * 2.0
    scaled.register_hook(fail)  # runs after linear's node wrote w.grad
    with pytest.raises(RuntimeError, match="hook refuses"):
        nn.functional.linear(scaled, w, None).sum().backward()
    assert writes["written"] == 1
    assert w.grad is held and not held.numpy().any() and not x.grad.numpy().any()
    # Still known zero: the next backward writes into it again.
    nn.functional.linear(x * 2.0, w, None).sum().backward()
    assert writes["written"] == 2 and writes["added"] == 1  # x's
    assert w.grad is held and held.numpy().any()


def test_a_to_static_step_with_zeroed_grads_trains_as_eager(rng):
    x, y = eager.to_tensor(_data(rng, 4, 6)), eager.to_tensor(_data(rng, 4, 3))
    expected, _ = _train(True, x, y, steps=6)
    net = _mlp()
    opt = eager.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())

    @eager.jit.to_static
    def step(x, y):
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    for _ in range(6):
        step(x, y)
    for a, b in zip(expected, net.parameters()):
        assert a.tobytes() == b.numpy().tobytes()


def test_backwards_in_two_threads_add_up_in_a_zeroed_grad(rng):
    import threading

    x_np = _data(rng, 32, 16)
    x = eager.to_tensor(x_np)
    w = eager.to_tensor(_data(rng, 16, 8), stop_gradient=False)
    nn.functional.linear(x, w, None).sum().backward()
    single = w.grad.numpy().copy()
    for _ in range(5):
        w.clear_grad()
        barrier = threading.Barrier(2)

        def run():
            loss = nn.functional.linear(x, w, None).sum()
            barrier.wait()
            loss.backward()

        threads = [threading.Thread(target=run) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # One thread wrote into the zeroed buffer, the other added: never one lost.
        np.testing.assert_allclose(w.grad.numpy(), 2 * single, rtol=1e-5)


def _conv_weight_grad_loops(x, g, kernel, stride, pad):
    """d loss / d weight of a 2-D convolution (one group), by its definition:
    dW[o, c, i, j] = sum over n, y, x of g[n, o, y, x] * xpad[n, c, y*s + i, x*s + j]."""
    n, c = x.shape[:2]
    xp_ = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    o, oh, ow = g.shape[1:]
    dw = np.zeros((o, c) + kernel)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            window = xp_[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            dw[:, :, i, j] = np.einsum("noyx,ncyx->oc", g.astype(np.float64), window)
    return dw


@pytest.mark.parametrize("case", [
    dict(k=2, groups=1, data_format="NCHW", bias=True),
    dict(k=2, groups=2, data_format="NHWC", bias=False),
    dict(k=3, groups=1, data_format="NCDHW", bias=True),
])
def test_conv_writes_its_filter_gradient_into_the_zeroed_grad(rng, writes, case):
    """conv2d/conv3d write the filter's gradient into its zeroed .grad: the values
    of a fresh gradient bit for bit, the buffer and tensor the user holds, the
    version moved; the bias (added through a reshape) and the input are added."""
    k, groups = case["k"], case["groups"]
    channel_last = case["data_format"] in ("NHWC", "NDHWC")
    spatial = (5,) * k
    x_np = _data(rng, *((2,) + spatial + (4,) if channel_last else (2, 4) + spatial))
    w_np = _data(rng, *((6, 4 // groups) + (3,) * k))
    x = eager.to_tensor(x_np, stop_gradient=False)
    w = eager.to_tensor(w_np, stop_gradient=False)
    b = eager.to_tensor(_data(rng, 6), stop_gradient=False) if case["bias"] else None
    conv = nn.functional.conv2d if k == 2 else nn.functional.conv3d

    def backward():
        out = conv(x, w, b, stride=2, padding=1, groups=groups, data_format=case["data_format"])
        (out * out).sum().backward()

    backward()
    fresh = [t.grad.numpy().copy() for t in (x, w, b) if t is not None]
    assert writes["written"] == 0
    for t in (x, w, b):
        if t is not None:
            t.clear_grad()
    held, buffer, version = w.grad, w.grad.impl.array, w.grad.impl.version
    backward()
    assert writes["written"] == 1 and writes["added"] == (2 if case["bias"] else 1)
    assert w.grad is held and w.grad.impl.array is buffer and held.impl.version == version + 1
    for a, e in zip([t.grad.numpy() for t in (x, w, b) if t is not None], fresh):
        assert a.tobytes() == e.tobytes()
    if k == 2 and groups == 1 and not channel_last:
        out = conv(x, w, b, stride=2, padding=1).numpy()
        expected = _conv_weight_grad_loops(x_np, 2 * out, (3, 3), 2, 1)
        np.testing.assert_allclose(held.numpy(), expected, rtol=1e-4, atol=1e-4)
    backward()  # no longer known zero: added into
    assert writes["written"] == 1
    assert w.grad is held and np.array_equal(held.numpy(), fresh[1] + fresh[1])


def test_conv_filter_with_a_hook_or_two_uses_is_added_into(rng, writes):
    x = eager.to_tensor(_data(rng, 2, 3, 6, 6))
    w = eager.to_tensor(_data(rng, 4, 3, 3, 3), stop_gradient=False)
    nn.functional.conv2d(x, w).sum().backward()
    expected = w.grad.numpy().copy()
    w.clear_grad()
    (nn.functional.conv2d(x, w) + nn.functional.conv2d(x, w)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * expected, rtol=1e-5)
    w.clear_grad()
    seen = []
    handle = w.register_hook(lambda g: seen.append(g.numpy().copy()))
    nn.functional.conv2d(x, w).sum().backward()
    handle.remove()
    np.testing.assert_array_equal(seen[0], expected)
    np.testing.assert_array_equal(w.grad.numpy(), expected)
    w.clear_grad()  # conv1d: the filter reaches conv2d through an unsqueeze, so it is added
    x1, w1 = eager.to_tensor(_data(rng, 2, 3, 8)), eager.to_tensor(_data(rng, 4, 3, 3), stop_gradient=False)
    nn.functional.conv1d(x1, w1).sum().backward()
    w1.clear_grad()
    nn.functional.conv1d(x1, w1).sum().backward()
    assert writes["written"] == 0
