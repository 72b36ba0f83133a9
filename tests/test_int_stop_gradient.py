"""Integer and bool tensors marked stop_gradient=False, as Paddle allows.

The flag reads back False everywhere the user looks (the property, repr,
copies, parameters, layers cast to an integer dtype), but no gradient ever
flows into an integer tensor: the recording ops see it as stopping gradients,
so its .grad stays None and the float parts of the graph get exactly the
gradients they would get without it (checked against NumPy and finite
differences).
"""
import warnings

import numpy as np
import pytest

import eager
from eager.autograd import AutogradError

pytestmark = pytest.mark.usefixtures("device")

INTEGER_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "bool"]


def ids(values=((0,), (2,), (2,)), dtype="int64"):
    return eager.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


# -- the flag -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_flag_reads_back_for_every_integer_dtype(dtype):
    x = eager.to_tensor(np.ones(3, dtype), stop_gradient=False)
    assert x.stop_gradient is False and x.is_leaf and x.grad is None
    assert "stop_gradient=False" in repr(x)
    x.stop_gradient = True
    assert x.stop_gradient is True
    x.stop_gradient = False
    assert x.stop_gradient is False


def test_property_setter_on_plain_integer_tensor():
    x = eager.arange(4)
    assert x.stop_gradient
    x.stop_gradient = False
    assert not x.stop_gradient
    assert x.detach().stop_gradient  # detach leaves the graph, as for floats
    assert not x.cpu().stop_gradient  # a copy keeps the flag (here: itself on the CPU)


def test_float_tensors_unchanged():
    x = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    assert not x.stop_gradient
    x.stop_gradient = True
    assert x.stop_gradient and (x * 2).stop_gradient
    x.stop_gradient = False
    assert not (x * 2).stop_gradient


# -- no gradient flows into integers ---------------------------------------------------------

def test_embedding_gradient_goes_to_the_table_only():
    index = ids()
    table_values = np.arange(8.0).reshape(4, 2)
    table = eager.to_tensor(table_values, stop_gradient=False)
    out = eager.nn.functional.embedding(index, table)
    assert not out.stop_gradient
    weights = np.array([[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]]])
    (out * eager.to_tensor(weights)).sum().backward()
    expected = np.zeros((4, 2))
    np.add.at(expected, np.array([0, 2, 2]), weights[:, 0, :])  # independent reference: scatter-add
    np.testing.assert_allclose(table.grad.numpy(), expected)
    assert index.grad is None and not index.stop_gradient


def test_nn_embedding_layer_with_trainable_ids():
    layer = eager.nn.Embedding(4, 3)
    index = eager.to_tensor([[0], [1], [3]], dtype="int64", stop_gradient=False)
    out = layer(index)
    out.sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), np.array([[1.0] * 3, [1.0] * 3, [0.0] * 3, [1.0] * 3]))
    assert index.grad is None


def test_ops_on_integer_tensor_record_nothing():
    x = ids([1, 2, 3])
    for out in (x * 2, x + x, x.clone(), eager.cast(x, "float32"), x.astype("float64") * 3.0):
        assert out.stop_gradient and out.grad_node is None


def test_mixed_graph_matches_finite_differences():
    n = ids([1, 2, 3])
    w_values = np.array([0.5, -1.0, 2.0])
    w = eager.to_tensor(w_values, stop_gradient=False)
    loss = (eager.sin(w) * n.astype("float64") ** 2).sum()
    loss.backward()

    def f(v):
        return float(np.sum(np.sin(v) * np.array([1.0, 2.0, 3.0]) ** 2))

    eps = 1e-6
    numeric = np.array([(f(w_values + eps * e) - f(w_values - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(w.grad.numpy(), numeric, rtol=1e-6)
    assert n.grad is None


def test_grad_with_integer_input():
    n = ids([1, 2, 3])
    w = eager.to_tensor([1.0, 1.0, 1.0], stop_gradient=False)
    out = (w * n.astype("float32")).sum()
    dw, dn = eager.grad(out, [w, n], allow_unused=True, retain_graph=True)
    np.testing.assert_allclose(dw.numpy(), [1.0, 2.0, 3.0])
    assert dn is None
    with pytest.raises(AutogradError, match="grad: the first input is an integer tensor .paddle.int64.*allow_unused"):
        eager.grad(out, [n])


def test_grad_and_backward_from_integer_tensor():
    n = ids([1, 2, 3])
    with pytest.raises(AutogradError, match="grad: first tensor is an integer tensor .paddle.int64.*only a flag"):
        eager.grad(n, [n])
    with pytest.warns(UserWarning, match="backward: this is an integer tensor"):
        n.backward()
    w = eager.to_tensor([2.0], stop_gradient=False)
    with pytest.warns(UserWarning, match="1 of 2 tensor.*integer tensors"):
        eager.autograd.backward([n, (w * w).sum()])
    np.testing.assert_allclose(w.grad.numpy(), [4.0])
    assert n.grad is None


def test_hooks_on_integer_tensor_never_run():
    n = ids([1, 2])
    called = []
    handle = n.register_hook(lambda g: called.append(g))
    n.retain_grads()
    post = n.register_post_accumulate_grad_hook(lambda t: called.append(t))
    w = eager.to_tensor([1.0, 1.0], stop_gradient=False)
    (w * n.astype("float32")).sum().backward()
    assert called == [] and n.grad is None
    assert handle.remove() is True and handle.remove() is False
    assert post.remove() is True
    with pytest.raises(TypeError, match="register_hook: hook must be callable"):
        n.register_hook(3)


def test_inplace_op_on_integer_leaf_is_allowed():
    n = ids([1, 2, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        n.add_(eager.to_tensor([1, 1, 1]))
    np.testing.assert_array_equal(n.numpy(), [2, 3, 4])
    assert not n.stop_gradient and n.is_leaf


def test_pylayer_takes_integer_tensor_in_a_list():
    class Scale(eager.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, extra):
            return x * 2.0

        @staticmethod
        def backward(ctx, grad):
            return grad * 2.0

    x = eager.to_tensor([1.0, 3.0], stop_gradient=False)
    Scale.apply(x, [ids([1])]).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


# -- parameters and layers ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_create_parameter_with_integer_dtype_starts_at_zero(dtype):
    p = eager.create_parameter([2, 3], dtype)
    assert p.dtype == getattr(eager, dtype) and not p.stop_gradient and p.trainable
    np.testing.assert_array_equal(p.numpy(), np.zeros((2, 3), dtype))
    frozen = eager.create_parameter([2], dtype, attr=eager.ParamAttr(trainable=False))
    assert frozen.stop_gradient and not frozen.trainable


def test_layer_create_parameter_integer_dtype():
    layer = eager.nn.Layer()
    p = layer.create_parameter([3], dtype="int64")
    np.testing.assert_array_equal(p.numpy(), [0, 0, 0])
    assert not p.stop_gradient


def test_layer_astype_int8_and_back():
    attr_w = eager.ParamAttr(initializer=eager.nn.initializer.Constant(1.5))
    attr_b = eager.ParamAttr(initializer=eager.nn.initializer.Constant(-2.5))
    linear = eager.nn.Linear(2, 2, weight_attr=attr_w, bias_attr=attr_b)
    (linear(eager.ones([1, 2])).sum()).backward()
    weight = linear.weight
    assert linear.astype("int8") is linear and linear.weight is weight
    np.testing.assert_array_equal(weight.numpy(), np.full((2, 2), 1.5).astype("int8"))
    np.testing.assert_array_equal(linear.bias.numpy(), np.full(2, -2.5).astype("int8"))
    assert weight.dtype == eager.int8 and not weight.stop_gradient and weight.grad.dtype == eager.int8
    linear.astype("float64")
    assert weight.dtype == eager.float64 and not weight.stop_gradient
    linear.clear_gradients()
    (linear(eager.ones([1, 2], dtype="float64")).sum()).backward()
    np.testing.assert_allclose(weight.grad.numpy(), np.ones((2, 2)))


def test_layer_astype_rejects_unknown_dtype():
    linear = eager.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="Layer.astype: argument 'dtype' expected a floating, complex, integer"):
        linear.astype("int4")
    assert linear.weight.dtype == eager.float32


def test_state_dict_save_load_with_integer_parameter(tmp_path):
    class Net(eager.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = eager.nn.Linear(2, 2)
            self.table = self.create_parameter([3], dtype="int64")

    net = Net()
    with eager.no_grad():
        net.table.set_value(np.array([4, 5, 6]))
    path = str(tmp_path / "net.pdparams")
    eager.save(net.state_dict(), path)
    other = Net()
    other.set_state_dict(eager.load(path))
    np.testing.assert_array_equal(other.table.numpy(), [4, 5, 6])
    assert other.table.dtype == eager.int64 and not other.table.stop_gradient
    optimizer = eager.optimizer.SGD(0.1, parameters=other.parameters())
    other.fc(eager.ones([1, 2])).sum().backward()
    optimizer.step()  # the integer parameter has no gradient: left as it is
    np.testing.assert_array_equal(other.table.numpy(), [4, 5, 6])


# -- the readers that consult records_gradient, not the flag ------------------------------
# Each treats an integer tensor flagged stop_gradient=False as what it is for autograd:
# a constant. Before, each took the flag at its word and failed or went astray.

def test_jacobian_of_an_integer_output_is_that_of_a_constant():
    n = ids([1, 2, 3])
    x = eager.to_tensor([0.5, -1.0, 2.0], dtype="float64")
    with pytest.raises(AutogradError, match="jacobian: output 0 does not depend on input 0"):
        eager.autograd.jacobian(lambda t: n, x)
    assert eager.autograd.jacobian(lambda t: n, x, allow_unused=True) is None
    # next to a float output: the float block is exact, the integer one None
    jf, jn = eager.autograd.jacobian(lambda t: (t * n.astype("float64"), n), x, allow_unused=True)
    np.testing.assert_allclose(jf.numpy(), np.diag([1.0, 2.0, 3.0]))
    assert jn is None


def test_hessian_of_an_integer_scalar_is_that_of_a_constant():
    n = ids([1, 2, 3])
    x = eager.to_tensor([0.5, -1.0], dtype="float64")
    with pytest.raises(AutogradError, match="hessian: func does not depend on input 0"):
        eager.autograd.hessian(lambda t: n.sum(), x)
    assert eager.autograd.hessian(lambda t: n.sum(), x, allow_unused=True) is None


def test_vjp_and_jvp_skip_an_integer_output():
    n = ids([1, 2, 3])
    x_values = np.array([0.5, -1.0, 2.0])
    x = eager.to_tensor(x_values)
    outs, g = eager.autograd.vjp(lambda t: (t * t, n), x, (eager.to_tensor(np.ones(3)), eager.ones([3], "int64")))
    np.testing.assert_allclose(g.numpy(), 2 * x_values)
    np.testing.assert_array_equal(outs[1].numpy(), [1, 2, 3])
    outs, (tf, tn) = eager.autograd.jvp(lambda t: (t * t, n), x, eager.to_tensor(np.ones(3)))
    np.testing.assert_allclose(tf.numpy(), 2 * x_values)
    np.testing.assert_array_equal(tn.numpy(), [0, 0, 0])  # zeros: the integer output depends on no input
    with pytest.raises(AutogradError, match="jvp: output 1 does not depend on any input"):
        eager.autograd.jvp(lambda t: (t * t, n), x, eager.to_tensor(np.ones(3)), allow_unused=False)


def test_functional_still_refuses_an_integer_input_flagged_or_not():
    for flagged in (True, False):
        n = eager.to_tensor([1, 2], stop_gradient=not flagged)
        with pytest.raises(TypeError, match=r"jacobian: inputs\[0\] has dtype paddle.int64; only floating-point"):
            eager.autograd.jacobian(lambda t: t * 2, n)
        with pytest.raises(TypeError, match=r"vjp: inputs\[0\] has dtype paddle.int64"):
            eager.incubate.autograd.vjp(lambda t: t * 2, n)


def test_gradcheck_passes_an_integer_input_through_as_a_constant():
    from eager.autograd import gradcheck, gradgradcheck
    n = ids([1, 2, 3])
    w = eager.to_tensor([0.5, -1.0, 2.0], dtype="float64", stop_gradient=False)

    def f(w, n):
        return eager.sin(w) * n.astype("float64") ** 2

    assert gradcheck(f, (w, n))
    assert gradgradcheck(f, (w, n))
    # a wrong gradient is still caught with the integer input beside it
    class Wrong(eager.autograd.PyLayer):
        @staticmethod
        def forward(ctx, w):
            return w * 2.0

        @staticmethod
        def backward(ctx, g):
            return g * 3.0

    with pytest.raises(eager.errors.GradcheckError, match="input 0"):
        gradcheck(lambda w, n: Wrong.apply(w) * n.astype("float64"), (w, n))
    with pytest.raises(eager.errors.GradcheckError, match="gradcheck: no input has stop_gradient=False"):
        gradcheck(lambda n: n.astype("float64"), (n,))


def test_sparse_tensor_of_flagged_integer_values_keeps_the_flag_and_records_nothing():
    values = ids([4, 5])
    x = eager.sparse.sparse_coo_tensor([[0, 2]], values, [3], stop_gradient=False)
    assert x.stop_gradient is False and x.is_leaf  # the flag the user asked for, as a dense int tensor
    dense = x.to_dense()
    assert dense.stop_gradient and dense.grad_node is None
    np.testing.assert_array_equal(dense.numpy(), [4, 0, 5])
    for out in (x.values(), x.coalesce(), eager.sparse.add(x, x), eager.sparse.multiply(x, x),
                eager.sparse.neg(x)):
        assert out.stop_gradient and out.grad_node is None
    flagged_dense = ids([[0, 3], [1, 0]])
    coo = flagged_dense.to_sparse_coo(2)
    assert coo.grad_node is None
    np.testing.assert_array_equal(coo.to_dense().numpy(), [[0, 3], [1, 0]])
    with pytest.warns(UserWarning, match="backward: this is an integer tensor"):
        x.backward()
    assert x.grad is None and values.grad is None
