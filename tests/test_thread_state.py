"""Grad mode, name scope and saved-tensor hooks share one thread-local object
(eager.autograd.thread_state): each stays per thread and independent of the others."""
import threading

import numpy as np

import eager
from eager.autograd import saved_tensors_hooks
from eager.viz import current_scope, name_scope


def leaf(values):
    return eager.to_tensor(np.asarray(values, dtype=np.float32), stop_gradient=False)


def test_new_thread_starts_recording_outside_scopes_and_hooks_set_elsewhere():
    packed = []
    seen = {}

    def worker():
        x = leaf([1.0, 2.0])
        y = eager.tanh(x)
        seen["recorded"] = not y.stop_gradient
        seen["scope"] = (current_scope(), y.grad_node.scope)
        seen["packed"] = len(packed)

    with eager.no_grad(), name_scope("outer"), saved_tensors_hooks(
            lambda t: packed.append(t) or t.numpy().copy(), lambda a: eager.to_tensor(a)):
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        # this thread's own state is untouched by the worker
        assert not eager.is_grad_enabled()
        assert current_scope() == ("outer",)
    assert seen == {"recorded": True, "scope": ((), ()), "packed": 0}
    assert eager.is_grad_enabled() and current_scope() == ()


def test_scope_hooks_and_mode_in_one_op_of_a_thread():
    packed = []
    x = leaf([0.5, -1.0, 2.0])
    with name_scope("a"), name_scope("b"), saved_tensors_hooks(
            lambda t: packed.append(t.numpy().copy()) or len(packed) - 1, lambda i: eager.to_tensor(packed[i])):
        y = eager.tanh(x)
        with eager.no_grad():
            z = eager.tanh(x)
    assert y.grad_node.scope == ("a", "b")
    assert z.stop_gradient and len(packed) == 1  # no_grad records and packs nothing
    np.testing.assert_allclose(packed[0], np.tanh(x.numpy()), rtol=1e-6)  # tanh saves its output
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(x.numpy()) ** 2, rtol=1e-5)
    # after the blocks the next op records with no scope and saves directly
    w = eager.tanh(x)
    assert w.grad_node.scope == () and len(packed) == 1


def test_grad_mode_switch_in_one_thread_leaves_another_recording():
    started, release = threading.Event(), threading.Event()
    out = []

    def worker():
        with eager.no_grad():
            started.set()
            release.wait(5)
            out.append(eager.tanh(leaf([1.0])).stop_gradient)
        out.append(eager.tanh(leaf([1.0])).stop_gradient)

    thread = threading.Thread(target=worker)
    thread.start()
    started.wait(5)
    here = eager.tanh(leaf([1.0]))
    release.set()
    thread.join()
    assert not here.stop_gradient
    assert out == [True, False]
