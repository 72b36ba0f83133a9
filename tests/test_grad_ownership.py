"""Gradients written in place: relu, tanh, sigmoid and scale grads reuse the
buffer of their incoming gradient only when the engine owns it exclusively,
and never overwrite a gradient anyone else can see (a hook, a retained
gradient, the seed, a PyLayer's result, another edge sharing the buffer)."""
import gc
import weakref

import numpy as np
import pytest

import eager
from eager.autograd import PyLayer
from eager.autograd.node import GradNodeBase

C = np.array([[0.5, -2.0, 3.0], [1.5, 0.25, -1.0]])
X = np.array([[0.3, -0.7, 1.2], [-0.1, 0.8, -1.5]])


def _derivative(name, x):
    """d op(x) / dx from the maths, and op(x)."""
    if name == "relu":
        return (x > 0).astype(float), np.maximum(x, 0)
    if name == "tanh":
        t = np.tanh(x)
        return 1 - t * t, t
    if name == "sigmoid":
        s = 1 / (1 + np.exp(-x))
        return s * (1 - s), s
    return np.full_like(x, 2.5), 2.5 * x  # scale


def _op(name, h):
    if name == "scale":
        return h * 2.5  # a plain float multiplier records the scale op
    return getattr(eager, name)(h)


OPS = ["relu", "tanh", "sigmoid", "scale"]


def _classes_with_apply_into():
    found, stack = [], [GradNodeBase]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if "apply_into" in cls.__dict__:
            found.append(cls)
    return found


@pytest.fixture
def writes(monkeypatch):
    """Records each in-place attempt (the engine calling a node's apply_into):
    (kernel, whether it wrote into the gradient)."""
    seen = []
    classes = _classes_with_apply_into()
    assert {cls.into_kernel for cls in classes} >= {f"{name}_grad" for name in OPS}

    for cls in classes:
        def spy(self, grads, original=cls.__dict__["apply_into"]):
            result = original(self, grads)
            seen.append((self.into_kernel, result[0][0] is grads[0]))
            return result

        monkeypatch.setattr(cls, "apply_into", spy)
    return seen


def _graph(name):
    """x (leaf) -> h = x * 3 -> y = op(h) -> z = y * c: y's gradient is c, a fresh
    result of multiply_grad, so the op's grad node receives an owned gradient."""
    x = eager.to_tensor(X, stop_gradient=False)
    c = eager.to_tensor(C)
    h = x * eager.to_tensor(np.full_like(X, 3.0))
    y = _op(name, h)
    return x, y, y * c


def _expected_x_grad(name):
    slope, _ = _derivative(name, 3.0 * X)
    return C * slope * 3.0


@pytest.mark.parametrize("name", OPS)
def test_an_owned_gradient_is_written_in_place_and_the_result_is_right(name, writes):
    x, _, z = _graph(name)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _expected_x_grad(name), rtol=1e-12)
    assert writes == [(f"{name}_grad", True)]


@pytest.mark.parametrize("name", OPS)
def test_a_gradient_seen_by_a_hook_is_never_overwritten(name, writes):
    x, y, z = _graph(name)
    kept = []
    y.register_hook(kept.append)
    z.sum().backward()
    np.testing.assert_array_equal(kept[0].numpy(), C)
    np.testing.assert_allclose(x.grad.numpy(), _expected_x_grad(name), rtol=1e-12)
    assert writes == []


@pytest.mark.parametrize("name", OPS)
def test_a_retained_gradient_is_never_overwritten(name, writes):
    x, y, z = _graph(name)
    y.retain_grads()
    z.sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), C)
    np.testing.assert_allclose(x.grad.numpy(), _expected_x_grad(name), rtol=1e-12)
    assert writes == []


@pytest.mark.parametrize("name", OPS)
def test_a_hook_result_the_user_keeps_is_never_overwritten(name, writes):
    x, y, z = _graph(name)
    kept = []

    def replace(grad):
        kept.append(grad * 1.0)
        return kept[-1]

    y.register_hook(replace)
    z.sum().backward()
    np.testing.assert_array_equal(kept[0].numpy(), C)
    np.testing.assert_allclose(x.grad.numpy(), _expected_x_grad(name), rtol=1e-12)


@pytest.mark.parametrize("name", OPS)
def test_the_seed_is_never_overwritten(name, writes):
    x = eager.to_tensor(X, stop_gradient=False)
    y = _op(name, x * eager.to_tensor(np.full_like(X, 3.0)))
    seed = eager.to_tensor(C.copy())
    y.backward(seed)
    np.testing.assert_array_equal(seed.numpy(), C)
    np.testing.assert_allclose(x.grad.numpy(), _expected_x_grad(name), rtol=1e-12)
    (gx,) = eager.grad([_op(name, x * 3.0)], [x], [seed])
    np.testing.assert_array_equal(seed.numpy(), C)
    assert writes == []


@pytest.mark.parametrize("name", OPS)
def test_a_buffer_shared_by_two_edges_is_never_overwritten(name, writes):
    # add's gradient goes unchanged (one buffer) to both of its inputs: the op's
    # node must not write into what k's branch still reads.
    x = eager.to_tensor(X, stop_gradient=False)
    k_leaf = eager.to_tensor(np.ones_like(X), stop_gradient=False)
    y = _op(name, x * eager.to_tensor(np.full_like(X, 3.0)))
    k = k_leaf * eager.to_tensor(np.full_like(X, 2.0))
    ((y + k) * eager.to_tensor(C)).sum().backward()
    np.testing.assert_allclose(k_leaf.grad.numpy(), 2.0 * C, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), _expected_x_grad(name), rtol=1e-12)
    assert (f"{name}_grad", True) not in writes


@pytest.mark.parametrize("name", OPS)
def test_a_pylayer_result_is_never_overwritten(name, writes):
    kept = []

    class Keep(PyLayer):
        @staticmethod
        def forward(ctx, t):
            return t * 1.0

        @staticmethod
        def backward(ctx, grad):
            kept.append(grad * 1.0)
            return kept[-1]

    x = eager.to_tensor(X, stop_gradient=False)
    y = Keep.apply(_op(name, x * eager.to_tensor(np.full_like(X, 3.0))))
    (y * eager.to_tensor(C)).sum().backward()
    np.testing.assert_array_equal(kept[0].numpy(), C)
    np.testing.assert_allclose(x.grad.numpy(), _expected_x_grad(name), rtol=1e-12)
    assert writes == []


@pytest.mark.parametrize("name", OPS)
def test_a_sum_of_gradients_is_owned_and_retain_graph_gives_the_same_twice(name, writes):
    x = eager.to_tensor(X, stop_gradient=False)
    y = _op(name, x * eager.to_tensor(np.full_like(X, 3.0)))
    c = eager.to_tensor(C)
    z = y * c + y * c  # two gradients arrive at y's node: their sum is a new buffer
    z.sum().backward(retain_graph=True)
    first = x.grad.numpy().copy()
    np.testing.assert_allclose(first, 2 * _expected_x_grad(name), rtol=1e-12)
    x.clear_grad()
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), first)
    assert writes == [(f"{name}_grad", True)] * 2


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_create_graph_never_writes_in_place_and_double_backward_holds(name, writes):
    x = eager.to_tensor(X, stop_gradient=False)
    y = _op(name, x)
    (gx,) = eager.grad([(y * eager.to_tensor(C)).sum()], [x], create_graph=True)
    slope, _ = _derivative(name, X)
    np.testing.assert_allclose(gx.numpy(), C * slope, rtol=1e-12)
    assert writes == []  # under create_graph every gradient is a recorded result
    gx.sum().backward()
    t = np.tanh(X) if name == "tanh" else 1 / (1 + np.exp(-X))
    second = -2 * t * (1 - t * t) if name == "tanh" else t * (1 - t) * (1 - 2 * t)
    np.testing.assert_allclose(x.grad.numpy(), C * second, rtol=1e-10)


def test_an_integer_scale_gradient_keeps_its_dtype():
    # scale's kernel writes in place only for float gradients; int keeps Paddle's truncation.
    x = eager.to_tensor(np.array([1, 2, 3], dtype=np.int64))
    g = eager.ops.scale_grad(x, 0.5)
    assert g.dtype == eager.int64
    np.testing.assert_array_equal(g.numpy(), [0, 1, 1])


# -- the graph holds no reference cycles: refcounts free it, not the collector --------------

def _nodes_of(tensor):
    """Every grad node reachable from tensor's, as weak references."""
    seen, stack = {}, [tensor.grad_node]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = weakref.ref(node)
        stack.extend(edge[0] for slot in node.next_edges for edge in slot if edge is not None)
    return list(seen.values())


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_graph_is_freed_by_reference_counts_alone(create_graph):
    was_enabled = gc.isenabled()
    gc.disable()  # nothing here may need the cyclic collector to be freed
    try:
        w = eager.to_tensor(np.random.default_rng(0).standard_normal((3, 4)), stop_gradient=False)
        x = eager.to_tensor(X)
        h = eager.relu(eager.matmul(x, w))
        y = (eager.tanh(h) + eager.sigmoid(h) * 2.0).sum()
        y.retain_grads()
        h.register_hook(lambda g: None)
        nodes = _nodes_of(y)
        assert len(nodes) >= 7
        if create_graph:
            (gw,) = eager.grad([y], [w], create_graph=True)
            nodes += _nodes_of(gw)
            gw.sum().backward()
            del gw
        else:
            y.backward()
        del x, h, y, w
        assert [r for r in nodes if r() is not None] == []
    finally:
        if was_enabled:
            gc.enable()


# -- add passes its gradient through when there is nothing to reduce ------------------------

def test_add_of_same_shapes_passes_the_gradient_and_broadcasting_still_reduces():
    x = eager.to_tensor(X, stop_gradient=False)
    b = eager.to_tensor(np.array([1.0, 2.0, 3.0]), stop_gradient=False)
    ((x + x) * eager.to_tensor(C)).sum().backward()  # one tensor on both edges: the two add up
    np.testing.assert_array_equal(x.grad.numpy(), 2 * C)
    ((x + b) * eager.to_tensor(C)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 3 * C)
    np.testing.assert_array_equal(b.grad.numpy(), C.sum(axis=0))


def test_an_owned_gradient_stays_owned_through_add_and_a_shared_one_is_not_written(writes):
    x = eager.to_tensor(X, stop_gradient=False)
    shift = eager.to_tensor(np.full_like(X, 0.1))  # stops gradients: add's one wanted edge
    y = eager.relu(eager.tanh(x * eager.to_tensor(np.full_like(X, 3.0))) + shift)
    (y * eager.to_tensor(C)).sum().backward()
    t = np.tanh(3.0 * X)
    np.testing.assert_allclose(x.grad.numpy(), C * (t + 0.1 > 0) * (1 - t * t) * 3.0, rtol=1e-12)
    assert writes == [("relu_grad", True), ("tanh_grad", True)]

    writes.clear()
    p = eager.to_tensor(X, stop_gradient=False)
    q = eager.to_tensor(-X, stop_gradient=False)
    ((eager.tanh(p) + eager.sigmoid(q)) * eager.to_tensor(C)).sum().backward()
    s = 1 / (1 + np.exp(X))
    np.testing.assert_allclose(p.grad.numpy(), C * (1 - np.tanh(X) ** 2), rtol=1e-12)
    np.testing.assert_allclose(q.grad.numpy(), C * s * (1 - s), rtol=1e-12)
    assert all(not wrote for _, wrote in writes)


@pytest.mark.parametrize("how", ["retain", "hook"])
def test_a_gradient_passed_through_add_after_a_hook_saw_it_is_never_overwritten(how, writes):
    x = eager.to_tensor(X, stop_gradient=False)
    shift = eager.to_tensor(np.full_like(X, 0.1))
    z = eager.tanh(x * eager.to_tensor(np.full_like(X, 3.0))) + shift
    kept = []
    if how == "retain":
        z.retain_grads()
    else:
        z.register_hook(kept.append)
    (eager.relu(z) * eager.to_tensor(C)).sum().backward()
    t = np.tanh(3.0 * X)
    z_grad = C * (t + 0.1 > 0)
    np.testing.assert_array_equal((z.grad if how == "retain" else kept[0]).numpy(), z_grad)
    np.testing.assert_allclose(x.grad.numpy(), z_grad * (1 - t * t) * 3.0, rtol=1e-12)
    assert ("tanh_grad", True) not in writes


# -- backward.yaml: inplace and pass_through are checked where they are declared -----------

@pytest.mark.parametrize("entry, old, new, problem", [
    ("- backward_op : multiply_grad", "  backward :", "  inplace : (out_grad -> x_grad)\n  backward :",
     "multiply_grad: inplace on a backward op needs a kernel, one output"),
    ("- backward_op : multiply_grad", "  backward :", "  pass_through : x_grad\n  backward :",
     "multiply_grad: pass_through names gradients of plain inputs in no_need_buffer"),
])
def test_misused_inplace_and_pass_through_are_rejected_at_their_line(tmp_path, entry, old, new, problem):
    from eager.api_gen.model import SpecError
    from eager.api_gen.render import render_all
    from test_api_gen import copy_yaml, edit_entry

    ops, bwd = copy_yaml(tmp_path)
    line = edit_entry(bwd, entry, old, new)
    with pytest.raises(SpecError) as info:
        render_all(ops_yaml=ops, backward_yaml=bwd)
    assert str(info.value).startswith(f"{bwd}:{line}: ") and problem in str(info.value), str(info.value)
