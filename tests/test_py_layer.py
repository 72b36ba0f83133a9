"""PyLayer: user-defined forward/backward, checked against finite differences and closed forms."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import eager
from eager.autograd import AutogradError, PyLayer, PyLayerContext, gradcheck


def leaf(values, stop_gradient=False):
    return eager.to_tensor(np.asarray(values, dtype=np.float64), stop_gradient=stop_gradient)


class Cube(PyLayer):
    """x -> x^3, backward written with eager ops (so it differentiates again)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensor()
        return 3 * x * x * grad


class Tanh(PyLayer):
    """Saves its own output: must not make a reference cycle."""

    @staticmethod
    def forward(ctx, x):
        y = eager.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensor()
        return grad * (1 - y * y)


class ScaleShift(PyLayer):
    """Non-tensor arguments, positional and keyword, kept as ctx attributes."""

    @staticmethod
    def forward(ctx, x, alpha, shift=0.0, tag="unused"):
        ctx.alpha = alpha
        ctx.tag = tag
        return x * alpha + shift

    @staticmethod
    def backward(ctx, grad):
        assert ctx.tag == "checked"
        return grad * ctx.alpha


class MulAdd(PyLayer):
    """Two inputs, two outputs: (x * y, x + y)."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y, x + y

    @staticmethod
    def backward(ctx, g_prod, g_sum):
        x, y = ctx.saved_tensor()
        return g_prod * y + g_sum, g_prod * x + g_sum


# -- forward, backward, values ------------------------------------------------------

def test_cube_gradient_matches_closed_form_and_finite_differences():
    x = leaf([1.0, -2.0, 0.5])
    y = Cube.apply(x)
    np.testing.assert_allclose(y.numpy(), x.numpy() ** 3)
    assert not y.stop_gradient
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.numpy() ** 2)
    assert gradcheck(lambda t: Cube.apply(t), (leaf([0.3, -1.2, 2.0]),))


def test_double_backward_through_differentiable_backward():
    # Paddle cannot do this (#39649): d2/dx2 x^3 = 6x via grad twice.
    x = leaf([1.0, -2.0, 0.5])
    (dx,) = eager.grad(Cube.apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(dx.numpy(), 3 * x.numpy() ** 2)
    assert not dx.stop_gradient
    (ddx,) = eager.grad(dx.sum(), x)
    np.testing.assert_allclose(ddx.numpy(), 6 * x.numpy())


def test_double_backward_through_saved_output():
    # tanh'' = -2 tanh (1 - tanh^2); the saved output leads back through the layer itself.
    x = leaf([0.3, -0.7])
    (dx,) = eager.grad(Tanh.apply(x).sum(), x, create_graph=True)
    (ddx,) = eager.grad(dx.sum(), x)
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(dx.numpy(), 1 - t * t)
    np.testing.assert_allclose(ddx.numpy(), -2 * t * (1 - t * t), rtol=1e-12)


def test_gradient_composes_with_surrounding_ops():
    x = leaf([0.2, 0.4])
    w = leaf([3.0, -1.0])
    loss = (Tanh.apply(x * w) * w).sum()
    loss.backward()
    t = np.tanh(x.numpy() * w.numpy())
    np.testing.assert_allclose(x.grad.numpy(), w.numpy() ** 2 * (1 - t * t))
    np.testing.assert_allclose(w.grad.numpy(), t + w.numpy() * x.numpy() * (1 - t * t))


def test_non_tensor_arguments_positional_and_keyword():
    x = leaf([1.0, 2.0])
    y = ScaleShift.apply(x, 3.0, shift=1.0, tag="checked")
    np.testing.assert_allclose(y.numpy(), [4.0, 7.0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_tensor_keyword_argument_is_an_input():
    class KwMul(PyLayer):
        @staticmethod
        def forward(ctx, x, *, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensor()
            return grad * y, grad * x

    x, y = leaf([1.0, 2.0]), leaf([5.0, 7.0])
    KwMul.apply(x, y=y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 7.0])
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 2.0])


def test_multiple_outputs_against_finite_differences():
    x, y = leaf([0.5, -1.5]), leaf([2.0, 0.25])
    assert gradcheck(lambda a, b: MulAdd.apply(a, b), (x, y))
    p, s = MulAdd.apply(x, y)
    (p * 2 + s * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * y.numpy() + 3)
    np.testing.assert_allclose(y.grad.numpy(), 2 * x.numpy() + 3)


def test_unused_output_gets_zero_gradient_by_default():
    seen = []

    class Spy(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g0, g1):
            seen.append((g0, g1))
            return g0 * 2 + g1 * 3

    x = leaf([1.0, 2.0])
    a, _ = Spy.apply(x)
    a.sum().backward()
    g0, g1 = seen[0]
    np.testing.assert_array_equal(g1.numpy(), np.zeros(2))
    assert g1.dtype == x.dtype
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_set_materialize_grads_false_passes_none():
    seen = []

    class Lazy(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g0, g1):
            seen.append((g0, g1))
            return g0 * 2 if g1 is None else g0 * 2 + g1 * 3

    x = leaf([1.0, 2.0])
    a, _ = Lazy.apply(x)
    a.sum().backward()
    assert seen[0][1] is None
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_mark_non_differentiable():
    seen = []

    class ValueAndMask(PyLayer):
        @staticmethod
        def forward(ctx, x):
            mask = eager.to_tensor((x.numpy() > 0).astype(np.float64))
            ctx.mark_non_differentiable(mask)
            ctx.save_for_backward(mask)
            return x * mask, mask

        @staticmethod
        def backward(ctx, grad, grad_mask):
            seen.append(grad_mask)
            (mask,) = ctx.saved_tensor()
            return grad * mask

    x = leaf([-1.0, 2.0, 3.0])
    y, mask = ValueAndMask.apply(x)
    assert mask.stop_gradient and not y.stop_gradient
    (y * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 2.0, 2.0])
    np.testing.assert_array_equal(seen[0].numpy(), np.zeros(3))


def test_integer_output_is_not_differentiable():
    class WithIndex(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 1, eager.to_tensor(np.argsort(x.numpy()))

        @staticmethod
        def backward(ctx, grad, grad_index):
            return grad

    y, index = WithIndex.apply(leaf([3.0, 1.0]))
    assert index.stop_gradient and not y.stop_gradient


def test_grad_node_is_named_after_the_layer():
    y = Cube.apply(leaf([1.0]))
    node = y.grad_node
    assert node.backward_op == "Cube_backward"
    assert type(node).__name__ == "CubeBackward"
    assert node.forward_op == "Cube"
    assert node.num_grad_slots == 1
    assert list(node.saved_tensors()) == ["saved_0"]


def test_needs_input_grad():
    seen = []

    class Record(PyLayer):
        @staticmethod
        def forward(ctx, x, y, n):
            seen.append(ctx.needs_input_grad)
            return x + y

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    x, y = leaf([1.0]), leaf([2.0], stop_gradient=True)
    Record.apply(x, y, 3).backward()
    assert seen == [(True, False)]
    np.testing.assert_allclose(x.grad.numpy(), [1.0])


# -- when it records ------------------------------------------------------------

def test_not_recorded_without_inputs_that_require_grad():
    calls = []

    class Count(PyLayer):
        @staticmethod
        def forward(ctx, x):
            calls.append(eager.is_grad_enabled())
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            raise AssertionError("not recorded")

    y = Count.apply(leaf([1.0], stop_gradient=True))
    assert y.stop_gradient and y.grad_node is None
    assert calls == [False]  # forward runs under no_grad


def test_not_recorded_under_no_grad():
    x = leaf([1.0, 2.0])
    with eager.no_grad():
        y = Cube.apply(x)
    assert y.stop_gradient and y.grad_node is None


def test_forward_runs_under_no_grad_even_when_recording():
    inner = []

    class Probe(PyLayer):
        @staticmethod
        def forward(ctx, x):
            z = x * 2
            inner.append(z.stop_gradient)
            return z

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    Probe.apply(leaf([1.0])).backward()
    assert inner == [True]


def test_input_returned_unchanged_with_mark_not_inplace():
    class Identity(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 5

    x = leaf([1.0, 2.0])
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and not y.is_leaf
    assert np.shares_memory(y.numpy(), x.numpy())
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_input_returned_without_mark_not_inplace_is_inplace():
    class Double(PyLayer):
        @staticmethod
        def forward(ctx, x):
            x.scale_(2.0)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    w = leaf([1.0, 3.0])
    x = w * 1  # a non-leaf: modifying it in place is allowed
    y = Double.apply(x)
    assert y is x and y.grad_node.backward_op == "Double_backward"
    np.testing.assert_allclose(y.numpy(), [2.0, 6.0])
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 2.0])


def test_returning_a_leaf_input_inplace_is_refused():
    class Identity(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    with pytest.raises(AutogradError, match=r"Identity: .*mark_not_inplace"):
        Identity.apply(leaf([1.0]))


def test_same_output_twice_gives_two_outputs():
    class Twice(PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            return y, y

        @staticmethod
        def backward(ctx, g0, g1):
            return (g0 + g1 * 10) * 2

    x = leaf([1.0])
    a, b = Twice.apply(x)
    assert a is not b
    b.backward()
    np.testing.assert_allclose(x.grad.numpy(), [20.0])


# -- saved tensors and graph lifetime ---------------------------------------------

def test_saved_output_makes_no_reference_cycle():
    gc.collect()
    gc.disable()
    try:
        y = Tanh.apply(leaf([0.1, 0.2]))
        node = weakref.ref(y.grad_node)
        del y
        assert node() is None, "the node survived its output: a reference cycle through ctx"
    finally:
        gc.enable()


def test_saved_tensor_modified_inplace_raises_at_backward():
    x = leaf([1.0, 2.0])
    y = Cube.apply(x)
    with eager.no_grad():
        x.add_(leaf([1.0, 1.0], stop_gradient=True))
    with pytest.raises(AutogradError, match=r"Cube_backward.*modified by an inplace operation"):
        y.sum().backward()


def test_saved_output_modified_inplace_raises_at_backward():
    x = leaf([0.1, 0.2])
    y = Tanh.apply(x)
    with eager.no_grad():
        y.scale_(2.0)
    with pytest.raises(AutogradError, match=r"Tanh_backward.*saved at version 0 and is now at version 1"):
        y.backward(eager.to_tensor(np.ones(2)))


def test_second_backward_without_retain_graph_raises():
    x = leaf([1.0, 2.0])
    y = Cube.apply(x)  # the layer is the root: its own saved tensors are what is missing
    seed = eager.to_tensor(np.ones(2))
    y.backward(seed)
    with pytest.raises(AutogradError, match=r"Cube_backward.*retain_graph=True"):
        y.backward(seed)


def test_second_backward_with_retain_graph_accumulates():
    x = leaf([1.0, 2.0])
    y = Cube.apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.numpy() ** 2)


def test_saved_tensors_hooks_apply_to_pylayer():
    packed = []

    def pack(t):
        packed.append(t.shape)
        return t.numpy().copy()

    x = leaf([1.0, 2.0])
    with eager.autograd.saved_tensors_hooks(pack, lambda a: eager.to_tensor(a)):
        y = Cube.apply(x)
    assert packed == [[2]]
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.numpy() ** 2)


def test_save_none_and_intermediate():
    class Inter(PyLayer):
        @staticmethod
        def forward(ctx, x):
            e = eager.exp(x)
            ctx.save_for_backward(None, e)
            return e * 2

        @staticmethod
        def backward(ctx, grad):
            nothing, e = ctx.saved_tensor()
            assert nothing is None
            return grad * e * 2

    x = leaf([0.0, 1.0])
    Inter.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(x.numpy()))


# -- errors ---------------------------------------------------------------------------

def _layer(backward):
    """A PyLayer named Faulty adding its inputs, with the given backward."""

    class Faulty(PyLayer):
        @staticmethod
        def forward(ctx, *xs):
            out = xs[0] * 1
            for x in xs[1:]:
                out = out + x
            return out

    Faulty.backward = staticmethod(backward)
    return Faulty


def test_wrong_number_of_gradients():
    faulty = _layer(lambda ctx, g: (g, g, g))
    y = faulty.apply(leaf([1.0]), leaf([2.0]))
    with pytest.raises(AutogradError, match=r"Faulty\.backward returned 3 gradient\(s\), but forward "
                                            r"took 2 tensor input\(s\)"):
        y.backward()


def test_single_gradient_for_two_inputs():
    y = _layer(lambda ctx, g: g).apply(leaf([1.0]), leaf([2.0]))
    # A ValueError (AutogradError), as Paddle's count mismatch.
    with pytest.raises(AutogradError, match=r"Faulty\.backward returned one Tensor, but forward took 2"):
        y.backward()


def test_gradient_of_wrong_shape():
    y = _layer(lambda ctx, g: eager.to_tensor(np.ones(3))).apply(leaf([1.0, 2.0]))
    with pytest.raises(AutogradError, match=r"Faulty\.backward returned a gradient of shape \[3\].*"
                                            r"input 0, which has shape \[2\]"):
        y.sum().backward()


def test_a_gradient_of_another_float_dtype_is_cast_as_paddle_does():
    x = leaf([1.0, 2.0])
    y = _layer(lambda ctx, g: (g * 3.0).astype("float32")).apply(x)
    y.sum().backward()
    assert x.grad.dtype == x.dtype
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_gradient_of_a_non_float_dtype_is_refused():
    y = _layer(lambda ctx, g: g.astype("int64")).apply(leaf([1.0, 2.0]))
    with pytest.raises(AutogradError, match=r"Faulty\.backward .*dtype paddle.int64.*dtype paddle.float64"):
        y.sum().backward()


def test_gradient_that_is_not_a_tensor():
    y = _layer(lambda ctx, g: (g.numpy(),)).apply(leaf([1.0]))
    with pytest.raises(TypeError, match=r"Faulty\.backward returned ndarray as the gradient of "
                                        r"tensor input 0"):
        y.backward()


def test_none_for_an_input_that_requires_grad_sends_it_no_gradient():
    # Paddle 2.6.2 accepts None here: the input gets no gradient from this layer.
    x = leaf([1.0])
    _layer(lambda ctx, g: None).apply(x).backward()
    assert x.grad is None


def test_gradient_for_an_input_that_needs_none_is_dropped():
    x, c = leaf([1.0]), leaf([2.0], stop_gradient=True)
    y = _layer(lambda ctx, g: (g * 4, g * 100)).apply(x, c)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0])
    assert c.grad is None


def test_forward_must_return_a_tensor():
    class Bad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return 3.0

        @staticmethod
        def backward(ctx, grad):
            return grad

    with pytest.raises(TypeError, match=r"Bad\.forward must return a Tensor"):
        Bad.apply(leaf([1.0]))


def test_tensor_needing_grad_inside_a_list_is_refused():
    class Lst(PyLayer):
        @staticmethod
        def forward(ctx, xs):
            return xs[0] * 1

        @staticmethod
        def backward(ctx, grad):
            return grad

    with pytest.raises(TypeError, match=r"Lst\.apply: argument 0 is a list holding a Tensor"):
        Lst.apply([leaf([1.0])])


def test_missing_backward_and_base_apply():
    class NoBackward(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 1

    # As Paddle 2.6.2: apply runs forward; the missing backward raises when a gradient is asked.
    x = leaf([1.0])
    y = NoBackward.apply(x)
    with pytest.raises(NotImplementedError, match=r"NoBackward: a PyLayer subclass must define a static backward"):
        y.sum().backward()
    assert x.grad is None
    with pytest.raises(TypeError, match=r"call apply on a subclass"):
        PyLayer.apply(leaf([1.0]))


def test_ctx_methods_only_in_forward_and_typed():
    holder = {}

    class Keep(PyLayer):
        @staticmethod
        def forward(ctx, x):
            holder["ctx"] = ctx
            with pytest.raises(TypeError, match=r"Keep: save_for_backward takes Tensors"):
                ctx.save_for_backward(1.0)
            with pytest.raises(TypeError, match=r"set_materialize_grads expects a bool"):
                ctx.set_materialize_grads(1)
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            with pytest.raises(AutogradError, match=r"Keep: ctx.save_for_backward\(\) can only be "
                                                    r"called inside forward"):
                ctx.save_for_backward(grad)
            return grad

    Keep.apply(leaf([1.0])).backward()
    assert isinstance(holder["ctx"], PyLayerContext)
    with pytest.raises(AutogradError, match=r"Keep: ctx.mark_non_differentiable"):
        holder["ctx"].mark_non_differentiable(leaf([1.0]))


def test_marking_tensors_that_are_not_outputs_or_inputs():
    class MarkIn(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(x)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad

    class MarkOut(PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_not_inplace(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            return grad

    with pytest.raises(ValueError, match=r"MarkIn: mark_non_differentiable got a tensor that "
                                         r"forward does not return"):
        MarkIn.apply(leaf([1.0]))
    with pytest.raises(ValueError, match=r"MarkOut: mark_not_inplace got a tensor that is not"):
        MarkOut.apply(leaf([1.0]))
