"""The backward engine's fast paths keep the general path's answers: the
``special`` flag that sends a node to the general steps, the leaf commit that
takes a fresh gradient without a copy (and copies anything shared), and the
saved-tensor version check read without the ``version`` property."""
import numpy as np
import pytest

import eager
from eager.autograd import AutogradError, accumulation
from eager.autograd.accumulation import GradNodeAccumulation
from eager.autograd.meta import GradBufferMeta
from eager.autograd.node import GradNodeBase
from eager.generated import forward_api  # noqa: F401  (every generated grad node class)


def leaf(values):
    return eager.to_tensor(np.array(values, dtype=np.float64), stop_gradient=False)


def node_classes():
    found, stack = [], [GradNodeBase]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            found.append(sub)
            stack.append(sub)
    return found


# -- GradNodeBase.special -------------------------------------------------------------

def test_every_node_class_is_special_exactly_when_the_general_steps_are_needed():
    classes = node_classes()
    assert len(classes) > 100  # the generated grad nodes are loaded
    for cls in classes:
        assert cls.special == bool(cls.is_accumulation or not cls.single_edge_slots), cls
    assert GradNodeAccumulation.special
    x = leaf([1.0, 2.0])
    assert type(eager.concat([x, x]).grad_node).special  # a Tensor[] input
    assert not type(eager.tanh(x).grad_node).special


@pytest.mark.parametrize("how", ["hook", "retain"])
def test_a_node_becomes_special_when_it_gets_a_hook_or_retains_and_the_walk_honours_it(how):
    x = leaf([0.5, -1.0])
    y = eager.tanh(x)
    node = y.grad_node
    assert not node.special
    seen = []
    if how == "hook":
        y.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 2.0)
    else:
        y.retain_grads()
    assert node.special and not eager.tanh(x).grad_node.special  # this node only
    (y * 3.0).sum().backward()
    slope = 1.0 - np.tanh([0.5, -1.0]) ** 2
    if how == "hook":
        np.testing.assert_array_equal(seen[0], [3.0, 3.0])
        np.testing.assert_allclose(x.grad.numpy(), 6.0 * slope, rtol=1e-15)
    else:
        np.testing.assert_array_equal(y.grad.numpy(), [3.0, 3.0])
        np.testing.assert_allclose(x.grad.numpy(), 3.0 * slope, rtol=1e-15)


# -- the leaf commit --------------------------------------------------------------------

@pytest.fixture
def copies(monkeypatch):
    made = []
    original = accumulation.owned_copy

    def counting(grad, create_graph):
        made.append(grad)
        return original(grad, create_graph)

    monkeypatch.setattr(accumulation, "owned_copy", counting)
    return made


def test_a_fresh_gradient_becomes_the_grad_without_a_copy(copies):
    w = leaf([[1.0, 2.0], [3.0, 4.0]])
    b = leaf([0.5, -0.5])
    x = eager.to_tensor(np.array([[1.0, -1.0]]))
    eager.tanh(x @ w + b).sum().backward()
    assert copies == []
    t = np.tanh(np.array([[1.0, -1.0]]) @ w.numpy() + b.numpy())
    np.testing.assert_allclose(b.grad.numpy(), (1 - t * t)[0], rtol=1e-15)
    np.testing.assert_allclose(w.grad.numpy(), np.array([[1.0], [-1.0]]) @ (1 - t * t), rtol=1e-15)
    # made without __init__: the same object Tensor(impl, GradBufferMeta()) would be
    made = eager.Tensor(w.grad.impl, GradBufferMeta())
    for taken in (w.grad, b.grad):
        assert type(taken._meta) is GradBufferMeta and taken._name is None
        assert [getattr(taken._meta, name) for name in ("node", "slot", "stop_gradient", "__dict__")] == \
            [getattr(made._meta, name) for name in ("node", "slot", "stop_gradient", "__dict__")]
        assert not taken.stop_gradient and taken.is_leaf  # an owned .grad, as Paddle's


def test_a_gradient_someone_else_holds_is_copied(copies):
    a, c = leaf([1.0, 2.0]), eager.to_tensor(np.array([3.0, 4.0]))
    seed = eager.to_tensor(np.array([5.0, 6.0]))
    (a + c).backward(seed)  # add passes the seed itself to a
    assert len(copies) == 1 and not np.shares_memory(a.grad.numpy(), seed.numpy())
    b, kept = leaf([1.0, 2.0]), []
    y = b + c
    y.register_hook(kept.append)  # the hook keeps y's gradient, which add passes on to b
    (y * 3.0).sum().backward()
    assert len(copies) == 2 and not np.shares_memory(b.grad.numpy(), kept[0].numpy())
    np.testing.assert_array_equal(b.grad.numpy(), [3.0, 3.0])


def test_a_second_backward_adds_into_the_grad_the_first_took():
    w = leaf([1.0, 2.0])
    eager.tanh(w).sum().backward()
    grad = w.grad
    eager.tanh(w).sum().backward()
    assert w.grad is grad
    np.testing.assert_allclose(grad.numpy(), 2 * (1 - np.tanh([1.0, 2.0]) ** 2), rtol=1e-15)


# -- the saved tensors' version check ---------------------------------------------------

@pytest.mark.parametrize("op, saves", [(eager.tanh, "its output"), (lambda t: t * t, "its input")])
def test_a_saved_tensor_modified_in_place_still_raises(op, saves):
    x = leaf([0.5, 1.5])
    h = x * 1.0
    y = op(h)
    (y if saves == "its output" else h).scale_(2.0)
    with pytest.raises(AutogradError, match="modified by an inplace operation.*saved at version 0 and is now at version 1"):
        y.sum().backward()
    assert x.grad is None  # the failed backward left .grad as it was


# -- the seed ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (2, 3)])
def test_the_default_seed_is_ones_of_the_tensors_shape_and_dtype(dtype, shape):
    x = eager.to_tensor(np.full(shape, 0.5, dtype=dtype), stop_gradient=False)
    y = x * 1.0
    y.backward()
    assert x.grad.numpy().dtype == np.dtype(dtype) and x.grad.shape == list(shape)
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(shape, dtype=dtype))
