"""The generated forward functions' fast path (issue #14, "one frame per forward op").

The generated code builds the output Tensor and its AutogradMeta without their
``__init__`` (object.__new__ and the slots set in line), reads each input's
meta once and makes the edges in line, and passes a float/bool/str/DataType
attribute through without calling its converter. These tests pin down that
the result is exactly what the slow path made: same fields, same edges, same
conversions and errors.
"""
import numpy as np
import pytest

import eager
from eager.autograd.accumulation import GradNodeAccumulation
from eager.autograd.meta import AutogradMeta
from eager.tensor import Tensor


def _set_slots(obj, cls):
    return {name for name in cls.__slots__ if name not in ("__weakref__", "__dict__") and hasattr(obj, name)}


def test_fast_tensor_has_every_field_init_sets():
    # If Tensor.__init__ gains a field, the template (ops_group.py.j2) must set it too.
    a = eager.to_tensor([1.0, 2.0])
    made_by_init = Tensor(a.impl)
    for out in (eager.add(a, a), eager.tanh(a)):
        assert _set_slots(out, Tensor) == _set_slots(made_by_init, Tensor) == {"impl", "_meta", "_name"}
        assert out._meta is None and out._name is None
        assert out.stop_gradient and out.is_leaf and out.grad is None
        assert out.name.startswith("generated_tensor_")


def test_fast_meta_matches_one_made_by_init():
    # If AutogradMeta.__init__ gains a field, the template must set it too.
    a = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    out = eager.multiply(a, a)
    reference = AutogradMeta(out._meta.node, 0)
    assert type(out._meta) is AutogradMeta
    assert _set_slots(out._meta, AutogradMeta) == _set_slots(reference, AutogradMeta)
    for name in ("node", "slot", "stop_gradient", "grad", "retain_grads", "hooks", "view", "views"):
        assert getattr(out._meta, name) == getattr(reference, name), name
    assert out._meta.__dict__ == {}
    assert not out.stop_gradient and not out.is_leaf


def test_inline_edges_match_edge_of():
    leaf = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    const = eager.to_tensor([3.0, 4.0])
    assert leaf._meta.node is None  # the first use makes its accumulation node
    y = eager.add(leaf, const)
    acc = leaf._meta.node
    assert isinstance(acc, GradNodeAccumulation)
    assert y.grad_node.next_edges == (((acc, 0),), (None,))
    z = eager.subtract(y, leaf)  # a non-leaf edge: (its node, its slot); the leaf's node is reused
    assert z.grad_node.next_edges == (((y.grad_node, 0),), ((acc, 0),))
    # a + a of a fresh leaf: one accumulation node for both edges, gradient 2
    w = eager.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    s = eager.add(w, w)
    (first,), (second,) = s.grad_node.next_edges
    assert first == second and first[0] is w._meta.node
    s.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0, 2.0])


def test_stop_gradient_set_after_use_cuts_the_next_edge():
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    eager.add(x, x)
    x.stop_gradient = True  # the meta (and its node) stay, but it stops gradients now
    c = eager.to_tensor([1.0, 1.0], stop_gradient=False)
    y = eager.multiply(x, c)
    assert y.grad_node.next_edges[0] == (None,)
    y.sum().backward()
    assert x.grad is None
    np.testing.assert_array_equal(c.grad.numpy(), [1.0, 2.0])


def test_no_grad_and_integer_inputs_record_nothing():
    a = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    with eager.no_grad():
        out = eager.add(a, a)
    assert out._meta is None and out.grad_node is None
    i = eager.to_tensor([1, 2])
    assert eager.add(i, i)._meta is None


@pytest.mark.parametrize("scale", [2.0, 2, True, np.float32(2.0), np.float64(2.0)])
def test_scalar_attribute_fast_path_converts_like_the_converter(scale):
    x = eager.to_tensor([1.0, -2.0], stop_gradient=False)
    out = eager.scale(x, scale, 1.0)
    np.testing.assert_allclose(out.numpy(), np.array([1.0, -2.0], np.float32) * float(scale) + 1.0)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [float(scale)] * 2)


def test_attribute_of_the_wrong_type_still_names_op_and_argument():
    x = eager.to_tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"scale: argument 'bias_after_scale' expected a bool"):
        eager.scale(x, 2.0, 1.0, bias_after_scale=1)
    with pytest.raises(ValueError, match=r"scale: argument 'scale' expected a number or a numeric string"):
        eager.scale(x, "two")  # (a numeric string is a number, as Paddle's Scalar reads it)
    with pytest.raises(TypeError, match=r"scale: argument 'scale' expected a number"):
        eager.scale(x, [2.0])
    with pytest.raises(ValueError, match=r"scale: argument 'scale' expected a number a float64 can hold"):
        eager.scale(x, 2 ** 2000)


def test_scalar_operators_take_the_scale_path_for_every_float_dtype():
    for dtype in ("float16", "float32", "float64"):
        x = eager.to_tensor(np.array([1.0, 2.0], dtype), stop_gradient=False)
        y = x * 3 + 0.5
        assert y.dtype == x.dtype and y.grad_node.forward_op == "scale"
        np.testing.assert_allclose(y.numpy().astype(np.float64), [3.5, 6.5])
    i = eager.to_tensor(np.array([1, 2], "int32"))
    assert (i * 0.5).dtype == eager.float32  # Paddle's promotion, not the scale path
    assert (i + 1).dtype == eager.int32


def test_shape_only_save_is_what_spec_of_gives():
    # add saves its inputs shape-only (no_need_buffer): the template writes spec_of in line.
    from phi.core.dense_tensor import spec_of
    x = eager.to_tensor(np.ones((2, 3), np.float32), stop_gradient=False)
    y = eager.to_tensor(np.ones((3,), np.float64).astype(np.float32))
    node = eager.add(x, y).grad_node
    assert node.x == spec_of(x.impl) and node.y == spec_of(y.impl)
    assert node.x == ((2, 3), np.dtype(np.float32), "cpu")


def _fields(obj):
    return {name: getattr(obj, name) for cls in type(obj).__mro__ for name in getattr(cls, "__slots__", ())
            if name not in ("__weakref__", "__dict__") and hasattr(obj, name)}


def test_fast_grad_node_matches_one_made_by_init():
    # If GradNodeBase.__init__ gains a field, the template must set it too.
    from eager.autograd.scope import name_scope
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    with name_scope("block"):
        node = eager.tanh(x).grad_node
    reference = type(node)(node.next_edges)
    assert node.scope == ("block",) and reference.scope == ()
    reference.scope = node.scope
    reference.out = node.out
    assert _fields(node) == _fields(reference)
    assert node.__dict__ == {}


def test_fast_saved_tensors_match_ones_made_by_init():
    from eager.autograd.tensor_wrapper import SavedInput, SavedOutput
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    h = x * 2.0
    h.impl.bump_version()  # a saved version other than 0 must be read, not assumed
    out = eager.tanh(h)
    saved = out.grad_node.out
    assert type(saved) is SavedOutput
    assert _fields(saved) == _fields(SavedOutput(out, 0))
    prod = eager.multiply(h, x)  # multiply saves its inputs (SavedInput)
    saved_x, saved_y = prod.grad_node.x, prod.grad_node.y
    assert type(saved_x) is SavedInput and saved_x.tensor is h and saved_x.version == 1
    assert _fields(saved_x) == _fields(SavedInput(h)) and _fields(saved_y) == _fields(SavedInput(x))


def test_fast_saves_defer_to_saved_tensors_hooks():
    from eager.autograd.saved_hooks import PackedSaved
    packed = []
    x = eager.to_tensor([0.5, 1.0], stop_gradient=False)
    with eager.autograd.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        out = eager.tanh(x)
        prod = eager.multiply(out, x)
    assert type(out.grad_node.out) is PackedSaved and type(prod.grad_node.x) is PackedSaved
    assert len(packed) == 3
    prod.sum().backward()
    t = np.tanh([0.5, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), (1 - t * t) * [0.5, 1.0] + t, rtol=1e-6)


def test_phi_result_wrapping_matches_dense_tensor_init():
    # The generated phi API wraps a kernel's array without DenseTensor.__init__:
    # if __init__ gains a field, phi_api.py.j2 must set it too.
    from phi.api import generated_api
    from phi.core import DenseTensor
    a = DenseTensor(np.ones(3, np.float32))
    out = generated_api.add(a, a)
    reference = DenseTensor(out.array)
    assert type(out) is DenseTensor
    assert _fields(out) == _fields(reference)
    assert out.version == 0 and out.version_counter is None
    out.bump_version()  # a counter of its own, made on first use
    assert out.version == 1 and a.version == 0
