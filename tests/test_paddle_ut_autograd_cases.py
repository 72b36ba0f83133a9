"""Regression cases found by re-telling the dygraph parts of Paddle's own
autograd unit tests against eager, each checked with the real Paddle 2.6.2:
test/legacy_test/test_zero_dim_tensor.py (the 0-d tensor cases of every op:
values, shapes and gradients' shapes), test/autograd/test_autograd_dynamic.py
and test_autograd_functional_dynamic.py (jacobian, hessian, vjp, jvp),
test_grad_dtype_consistency.py, and test/legacy_test's
test_saved_tensors_hooks, test_retain_graph, test_imperative_decorator
(no_grad, enable_grad, set_grad_enabled, is_grad_enabled), test_imperative_basic,
test_backward (autograd.backward with grad_tensors) and
test_imperative_hook_for_layer.

Found and fixed:
- Tensor.__div__ / __rdiv__ / __nonzero__ / __long__ (Python 2's names,
  which Paddle's Tensor keeps: test_zero_dim_tensor calls Tensor.__div__)
  were missing.
- paddle.static.create_global_var / paddle.tensor.creation.create_global_var
  and paddle.static.create_parameter were missing (the dygraph forms: a
  filled stop_gradient tensor; the usual Parameter).
- F.linear refused a bias of another shape than [out_features] (a 0-d bias,
  [1], [N, out]); Paddle adds the bias with broadcasting.
- Tensor.numpy(False) raised TypeError; Paddle's method takes and ignores
  positional arguments (its own __array__ calls numpy(False)).
- dist(x, y, p=0) cut x and y off the graph (no .grad at all); Paddle's
  p_norm with p=0 gives zero gradients.
- interpolate(scale_factor=[0-d Tensor, 0-d Tensor]) was refused; Paddle
  reads one-element tensors in the list as numbers.
- paddle.static.nn (cond, case, switch_case, while_loop) was missing; in
  dygraph Paddle runs the chosen callables (test_zero_dim_tensor's
  test_while_loop differentiates through while_loop).
- paddle.autograd.jacobian/hessian objects had no operators and no Tensor
  attributes: Paddle's evaluate the whole matrix for `H + 1`, `H @ H`,
  `H == H`, `J.numpy()` (test/autograd/test_autograd_dynamic.py).
- incubate.autograd.vjp/jvp with a v of the wrong shape or count, and
  incubate.autograd.Hessian of a func that returns more than one element,
  raised ValueError; Paddle raises RuntimeError (now AutogradError, both)
  (test/autograd/test_autograd_functional_dynamic.py).

- base.dygraph.no_grad(func) / the bare decorator @base.dygraph.no_grad
  raised TypeError (it was the class paddle.no_grad); Paddle's is a
  function that decorates func, or gives the context without one
  (test_imperative_decorator).

- A backward through Linear after `weight._set_grad_ivar(t)` (or
  `weight.grad = t`) crashed with AttributeError (the zero-buffer check read
  the meta a plain tensor does not have); and backward wrote the gradient
  into the user's t in place, where Paddle leaves t unchanged
  (test_imperative_basic's gradient accumulation test).

Paddle quirks left: hessian(0-d ys, xs, batch_axis=0) fails in 2.6.2 with
an IndexError from `ys[0]` (eager: ValueError naming the expected shape);
autograd.backward(y, seed of another shape) runs unchecked (a [1] seed for a
[2] y gives x.grad of shape [1]); a second backward through a freed graph is
a SystemError (eager: AutogradError, a RuntimeError); set_grad_enabled(None)
is taken as False (eager: TypeError).

Differences documented (not bugs): `J[:]` of a 0-d Jacobian is its value
(Paddle: IndexError; docs/autograd.md), integer tensors get no gradients
(docs/autograd.md), `increment` of a leaf that requires grad is refused
(docs/autograd.md, Paddle 2.6.2 writes the leaf), while_loop leaves the
loop_vars passed unchanged (docs/jit.md), a float `y` given to add /
subtract / compare ops is a TypeError (Paddle: ValueError, docs/ops.md).
"""
import doctest
import importlib
import inspect
import math

import numpy as np
import pytest

import eager
import eager.nn.functional as F

pytestmark = pytest.mark.usefixtures("device")


def test_python2_operator_names():
    x = eager.to_tensor([3.0, 6.0])
    np.testing.assert_allclose(eager.Tensor.__div__(x, 2.0).numpy(), [1.5, 3.0])
    np.testing.assert_allclose(eager.Tensor.__rdiv__(x, 3.0).numpy(), [1.0, 0.5])
    one = eager.to_tensor(2.7)
    assert one.__nonzero__() is True and one.__long__() == 2


def test_create_global_var_and_static_create_parameter():
    v = eager.static.create_global_var(shape=[], value=0.5, dtype="float32")
    assert v.shape == [] and v.item() == 0.5 and v.stop_gradient and not v.persistable
    w = eager.tensor.creation.create_global_var([2, 3], 3, "int32", persistable=True, name="counter")
    assert w.dtype == eager.int32 and w.name == "counter" and w.persistable
    np.testing.assert_array_equal(w.numpy(), np.full((2, 3), 3))
    with pytest.raises(TypeError, match="create_global_var: argument 'shape'"):
        eager.static.create_global_var(3, 1.0, "float32")
    with pytest.raises(ValueError, match="create_global_var: argument 'value'"):
        eager.static.create_global_var([2], "a", "float32")
    p = eager.static.create_parameter(shape=[], dtype="float32")
    assert p.shape == [] and not p.stop_gradient


@pytest.mark.parametrize("bias_shape", [[], [1], [4], [1, 4], [3, 4]])
def test_linear_bias_broadcasts(bias_shape):
    rng = np.random.default_rng(0)
    xa, wa, ba = rng.normal(size=(3, 2)), rng.normal(size=(2, 4)), rng.normal(size=bias_shape)
    x = eager.to_tensor(xa, stop_gradient=False)
    w = eager.to_tensor(wa, stop_gradient=False)
    b = eager.to_tensor(ba, stop_gradient=False)
    out = F.linear(x, w, b)
    np.testing.assert_allclose(out.numpy(), xa @ wa + ba, rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), np.full(bias_shape, 12.0 / max(ba.size, 1)), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), np.ones((3, 4)) @ wa.T, rtol=1e-12)


def test_linear_bias_that_does_not_broadcast_is_refused():
    with pytest.raises(ValueError, match="linear: argument 'bias'"):
        F.linear(eager.ones([3, 2]), eager.ones([2, 4]), eager.ones([2]))


def test_numpy_takes_and_ignores_an_argument():
    x = eager.full([], 0.5)
    assert x.numpy(False).shape == () and x.numpy(True) == 0.5


def test_dist_p0_keeps_the_graph():
    x = eager.to_tensor([[3.0, 3.0], [3.0, 3.0]], stop_gradient=False)
    y = eager.to_tensor([[3.0, 3.0], [3.0, 1.0]], stop_gradient=False)
    out = eager.dist(x, y, 0)
    assert out.shape == [] and out.item() == 1.0 and not out.stop_gradient
    out.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 2)))
    np.testing.assert_array_equal(y.grad.numpy(), np.zeros((2, 2)))


def test_interpolate_scale_factor_list_of_0d_tensors():
    x = eager.to_tensor(np.random.default_rng(1).random((2, 3, 6, 6)), stop_gradient=False)
    ref = F.interpolate(x, size=[12, 12], mode="bilinear", align_corners=False)
    out = F.interpolate(x, scale_factor=[eager.full([], 2), eager.full([], 2)], mode="bilinear",
                        align_corners=False)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-12)
    out.sum().backward()
    assert x.grad.shape == [2, 3, 6, 6]


def test_static_nn_while_loop_is_differentiable():
    i = eager.full([], 1.0)
    i.stop_gradient = False
    x = eager.full([], 0.0)
    x.stop_gradient = False
    eleven = eager.full([], 11.0)
    out_i, out_x = eager.static.nn.while_loop(lambda i, x: eager.less_than(i, eleven),
                                              lambda i, x: [i + 1, x + i], [i, x])
    out_x.backward()
    assert out_i.item() == 11.0 and out_x.item() == 55.0  # 1 + 2 + ... + 10
    assert i.grad.shape == [] and i.grad.item() == 10.0 and x.grad.item() == 1.0
    with pytest.raises(ValueError, match="body returned 2 values"):
        eager.static.nn.while_loop(lambda i: i < 3, lambda i: [i, i], [i])


def test_static_nn_cond_case_switch_case():
    nn = eager.static.nn
    a = eager.to_tensor(0.3)
    assert nn.cond(a > 1, lambda: "t", lambda: "f") == "f" and nn.cond(a < 0, lambda: 1) is None
    assert nn.case([(a < 0.1, lambda: 0), (a < 0.5, lambda: 1)], lambda: 2) == 1
    assert nn.case([(a < 0.1, lambda: 0), (a < 0.2, lambda: 1)]) == 1  # no default: the last pair's fn
    assert [nn.switch_case(eager.to_tensor(k), [lambda: 10, lambda: 20]) for k in (0, 1, 5)] == [10, 20, 20]
    assert nn.switch_case(eager.to_tensor([3], dtype="int32"), {1: lambda: "a", 3: lambda: "b"}) == "b"
    with pytest.raises(TypeError, match="static.nn.cond: argument 'pred'"):
        nn.cond(True, lambda: 1)
    with pytest.raises(ValueError, match="more than once"):
        nn.switch_case(eager.to_tensor(1), [(1, lambda: 1), (1, lambda: 2)])


def test_backward_after_set_grad_ivar_adds_into_a_new_buffer():
    layer = eager.nn.Linear(2, 3)
    ones = eager.ones([2, 3])
    layer.weight._set_grad_ivar(ones)
    x = np.arange(8.0, dtype="float32").reshape(4, 2)
    layer(eager.to_tensor(x)).sum().backward()
    expected = 1.0 + x.sum(0)[:, None] * np.ones((1, 3))
    np.testing.assert_allclose(layer.weight.grad.numpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(ones.numpy(), np.ones((2, 3)))  # the tensor set as .grad is unchanged
    w = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    seed = eager.to_tensor([5.0, 5.0])
    w.grad = seed
    (w * 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [7.0, 7.0])
    np.testing.assert_array_equal(seed.numpy(), [5.0, 5.0])
    w.clear_grad()
    np.testing.assert_array_equal(seed.numpy(), [5.0, 5.0])


def test_base_dygraph_no_grad_takes_a_function():
    def add(a, b=1):
        return a + b, eager.is_grad_enabled()

    decorated = eager.base.dygraph.no_grad(add)
    assert decorated(1) == (2, False) and eager.is_grad_enabled()
    assert decorated.__name__ == "add"
    assert inspect.getfullargspec(decorated) == inspect.getfullargspec(add)

    @eager.base.dygraph.no_grad
    def bare():
        return eager.is_grad_enabled()

    assert bare() is False
    with eager.base.dygraph.no_grad():
        assert not eager.is_grad_enabled()
    assert eager.is_grad_enabled()
    with pytest.raises(TypeError, match="base.dygraph.no_grad: argument 'func'"):
        eager.base.dygraph.no_grad(3)


def test_jacobian_objects_have_operators_and_tensor_attributes():
    x = eager.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    hess = eager.autograd.hessian((x * x * x).sum(), x)
    expected = np.diag(6.0 * np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose((hess + 1.0).numpy(), expected + 1.0, rtol=1e-6)
    np.testing.assert_allclose((hess - hess).numpy(), np.zeros((3, 3)))
    np.testing.assert_allclose((hess @ hess).numpy(), expected @ expected, rtol=1e-6)
    np.testing.assert_allclose((hess ** 2.0).numpy(), expected ** 2, rtol=1e-6)
    np.testing.assert_allclose((hess % 5.0).numpy(), expected % 5.0, rtol=1e-6)
    np.testing.assert_array_equal((hess == hess).numpy(), np.ones((3, 3), bool))
    np.testing.assert_array_equal((hess > 1.0).numpy(), expected > 1.0)
    np.testing.assert_allclose(hess.numpy(), expected, rtol=1e-6)
    jac = eager.autograd.jacobian(x * 2.0, x)
    np.testing.assert_allclose(jac.sum().numpy(), 6.0)
    np.testing.assert_allclose(np.asarray(jac), 2.0 * np.eye(3))
    assert {jac: 1}[jac] == 1  # still hashable by identity
    with pytest.raises(AttributeError):
        jac._no_such_attribute


@pytest.mark.parametrize("call", [
    lambda ia: ia.vjp(lambda x: x * x, eager.ones([3]), eager.ones([1])),
    lambda ia: ia.jvp(lambda x: x * x, eager.ones([3]), eager.ones([2])),
    lambda ia: ia.vjp(lambda x: x * x, eager.ones([3]), [eager.ones([3]), eager.ones([3])]),
    lambda ia: ia.Hessian(lambda x: x * x, eager.ones([3])),
    lambda ia: ia.Hessian(lambda x: x * x, eager.ones([3, 3]), is_batched=True),
])
def test_incubate_autograd_shape_errors_are_runtime_errors(call):
    with pytest.raises(RuntimeError) as info:
        call(eager.incubate.autograd)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("module", ["eager.static.nn", "eager.tensor_namespace"])
def test_docstring_examples_run(module):
    result = doctest.testmod(importlib.import_module(module), extraglobs={"eager": eager, "np": np, "math": math},
                             optionflags=doctest.NORMALIZE_WHITESPACE, report=False)
    assert result.attempted >= 3 and result.failed == 0, result
