"""Functions and Tensor methods called the Paddle 2.x way, positionally and by keyword:
a parameter in the wrong place or under another name is a silent bug (an argument
landing in ``name`` is dropped). Values are checked against NumPy."""
import inspect

import numpy as np
import pytest

import eager as paddle


def _t(value, dtype=None):
    return paddle.to_tensor(np.asarray(value), dtype=dtype)


def test_full_and_full_like_take_fill_value():
    np.testing.assert_array_equal(paddle.full(shape=[2, 3], fill_value=1.5).numpy(), np.full((2, 3), 1.5, np.float32))
    np.testing.assert_array_equal(paddle.full([2], 7, "int32").numpy(), np.array([7, 7], np.int32))
    x = _t([[1.0, 2.0]], "float32")
    np.testing.assert_array_equal(paddle.full_like(x, fill_value=-2.0).numpy(), [[-2.0, -2.0]])
    got = paddle.full_like(x, 3, "int64")
    assert got.dtype == paddle.int64 and got.numpy().tolist() == [[3, 3]]
    assert list(inspect.signature(paddle.full).parameters)[:3] == ["shape", "fill_value", "dtype"]
    with pytest.raises(ValueError, match="full: argument 'fill_value' expected a finite number for dtype paddle.int32"):
        paddle.full([1], float("inf"), "int32")


def test_meshgrid_takes_tensors_as_arguments_or_one_list():
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0, 5.0], np.float32)
    want = np.meshgrid(a, b, indexing="ij")
    for got in (paddle.meshgrid(_t(a), _t(b)), paddle.meshgrid([_t(a), _t(b)]), paddle.meshgrid((_t(a), _t(b)))):
        assert len(got) == 2
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w)
    with pytest.raises(TypeError, match="meshgrid: expected at least one Tensor"):
        paddle.meshgrid()


def test_meshgrid_of_separate_arguments_is_differentiable():
    a = _t([1.0, 2.0], "float64")
    a.stop_gradient = False
    gx, gy = paddle.meshgrid(a, _t([3.0, 4.0, 5.0], "float64"))
    (gx * gy).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [12.0, 12.0])


def test_where_with_condition_only_is_nonzero_as_tuple():
    cond = np.array([[True, False], [False, True]])
    got = paddle.where(_t(cond))
    want = np.nonzero(cond)
    assert len(got) == 2
    for g, w in zip(got, want):
        assert g.shape == [2, 1]
        np.testing.assert_array_equal(g.numpy().ravel(), w)
    with pytest.raises(ValueError, match="where: arguments 'x' and 'y' expected both or neither"):
        paddle.where(_t(cond), _t(np.ones((2, 2))))


def test_where_takes_python_numbers():
    cond = np.array([True, False, True])
    x = np.array([1.0, 2.0, 3.0], np.float32)
    got = paddle.where(_t(cond), _t(x), 0.0)
    assert got.dtype == paddle.float32
    np.testing.assert_array_equal(got.numpy(), np.where(cond, x, 0.0))
    np.testing.assert_array_equal(paddle.where(_t(cond), x=-1.0, y=_t(x)).numpy(), np.where(cond, -1.0, x))
    np.testing.assert_array_equal(_t(cond).where(_t(x), _t(-x)).numpy(), np.where(cond, x, -x))


def test_unbind_takes_input_keyword():
    x = np.arange(6.0).reshape(2, 3)
    got = paddle.unbind(input=_t(x), axis=1)
    assert len(got) == 3
    for i, g in enumerate(got):
        np.testing.assert_array_equal(g.numpy(), x[:, i])
    np.testing.assert_array_equal(paddle.unbind(_t(x))[1].numpy(), x[1])


def test_vsplit_takes_paddle_2_section_sizes():
    x = np.arange(24.0).reshape(6, 4)
    got = paddle.vsplit(_t(x), [1, 3, -1])
    assert [t.shape for t in got] == [[1, 4], [3, 4], [2, 4]]
    np.testing.assert_array_equal(got[1].numpy(), x[1:4])
    got = _t(x).vsplit(num_or_sections=3)
    for g, w in zip(got, np.split(x, 3, axis=0)):
        np.testing.assert_array_equal(g.numpy(), w)
    with pytest.raises(ValueError, match=r"vsplit: argument 'x' expected at least 2 dimension\(s\)"):
        paddle.vsplit(_t(np.arange(6.0)), 2)


def test_gather_axis_none_is_axis_zero():
    x = np.arange(6).reshape(3, 2)
    idx = _t(np.array([2, 0]))
    np.testing.assert_array_equal(paddle.gather(_t(x), idx, None).numpy(), x[[2, 0]])
    np.testing.assert_array_equal(paddle.gather(_t(x), idx).numpy(), x[[2, 0]])
    np.testing.assert_array_equal(_t(x).gather(_t(np.array([1])), axis=1).numpy(), x[:, [1]])


def test_scale_act_applies_the_activation():
    x = np.array([-1.0, 0.5, 2.0], np.float32)
    np.testing.assert_allclose(paddle.scale(_t(x), 2.0, 1.0, True, "relu").numpy(), np.maximum(2 * x + 1, 0))
    np.testing.assert_allclose(_t(x).scale(scale=3.0, bias=1.0, bias_after_scale=False, act="tanh").numpy(),
                               np.tanh((x + 1) * 3), rtol=1e-6)
    np.testing.assert_allclose(paddle.scale(_t(x), 2.0).numpy(), 2 * x)
    y = _t(x)
    assert y.scale_(2.0, 1.0, True, "relu") is y
    np.testing.assert_allclose(y.numpy(), np.maximum(2 * x + 1, 0))
    z = _t(x)
    with pytest.raises(ValueError, match="scale_: argument 'act' expected None or the name of an activation op"):
        z.scale_(2.0, act="no_such_act")
    np.testing.assert_array_equal(z.numpy(), x)  # refused before anything was written
    with pytest.raises(TypeError, match="scale: argument 'act' expected None or the name of an activation op"):
        paddle.scale(_t(x), 2.0, act=3)


def test_scale_act_is_differentiable():
    x = _t([-1.0, 0.5, 2.0], "float64")
    x.stop_gradient = False
    paddle.scale(x, 2.0, 1.0, act="relu").sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 2.0, 2.0])


@pytest.mark.parametrize("op, ref", [("logical_and", np.logical_and), ("logical_or", np.logical_or),
                                     ("logical_xor", np.logical_xor), ("bitwise_and", np.bitwise_and),
                                     ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)])
def test_logical_and_bitwise_binary_take_out_and_leave_it_alone_as_paddles_dynamic_mode(op, ref):
    # Paddle 2.6's dynamic mode returns _C_ops.<op>(x, y) and never touches out (positional or keyword)
    a, b = np.array([5, 6, 0], np.int32), np.array([3, 0, 0], np.int32)
    if op.startswith("logical"):
        a, b = a.astype(bool), b.astype(bool)
    out = paddle.full([3], 7, "float64")  # any shape and dtype: it is not written
    version = out.inplace_version
    got = getattr(paddle, op)(_t(a), _t(b), out)
    assert got is not out and out.inplace_version == version
    np.testing.assert_array_equal(got.numpy(), ref(a, b))
    np.testing.assert_array_equal(out.numpy(), [7, 7, 7])
    np.testing.assert_array_equal(getattr(_t(a), op)(_t(b), out=out).numpy(), ref(a, b))
    np.testing.assert_array_equal(out.numpy(), [7, 7, 7])


def test_unary_logical_and_bitwise_take_out_and_leave_it_alone():
    # the tensor guide's x.logical_not(y): y lands in out, and Paddle returns not x
    a = np.array([True, False])
    y = _t(np.array([0.5, 2.0]))
    got = _t(a).logical_not(y)
    np.testing.assert_array_equal(got.numpy(), [False, True])
    assert got.dtype == paddle.bool
    np.testing.assert_array_equal(y.numpy(), [0.5, 2.0])
    n = np.array([5, -1], np.int64)
    out = paddle.zeros([2], "int64")
    np.testing.assert_array_equal(paddle.bitwise_not(_t(n), out=out).numpy(), ~n)
    np.testing.assert_array_equal(out.numpy(), [0, 0])


def test_out_that_is_not_a_tensor_is_refused():
    a = _t(np.array([True, False]))
    with pytest.raises(TypeError, match="logical_or: argument 'out' expected None or a Tensor, got str"):
        paddle.logical_or(a, a, "out")
    with pytest.raises(TypeError, match="bitwise_not: argument 'out' expected None or a Tensor, got list"):
        paddle.bitwise_not(_t(np.array([1])), [0])


def test_item_takes_an_index():
    x = np.array([[1, 2], [3, 4]], np.int64)
    t = _t(x)
    assert t.item(1, 0) == 3 and t.item(3) == 4 and t.item(-1) == 4
    assert isinstance(t.item(0), int)
    assert _t([2.5]).item() == 2.5
    with pytest.raises(IndexError, match=r"item\(\): flat index 4 is out of range for a tensor of 4 element"):
        t.item(4)
    with pytest.raises(IndexError, match=r"item\(\): index \[0, 2\] does not address one element of shape \[2, 2\]"):
        t.item(0, 2)
    with pytest.raises(ValueError, match=r"item\(\): only a tensor with one element"):
        t.item()


def test_paddle_2_6_methods_are_bound():
    x = _t(np.array([1.0, 2.0, 3.0]))
    assert x.atleast_2d().shape == [1, 3]
    np.testing.assert_array_equal(x.combinations(2).numpy(), [[1, 2], [1, 3], [2, 3]])
    hist, edges = _t(np.array([[0.0, 0.0], [1.0, 1.0]])).histogramdd(bins=2)
    assert hist.numpy().sum() == 2 and len(edges) == 2


def test_seed_takes_seed_keyword():
    paddle.seed(seed=123)
    first = paddle.rand([4]).numpy()
    paddle.seed(123)
    np.testing.assert_array_equal(paddle.rand([4]).numpy(), first)
    with pytest.raises(TypeError, match="seed: argument 'seed' expected a non-negative int"):
        paddle.seed(seed=-1)


def test_normal_inplace_function_takes_x_keyword():
    paddle.seed(7)
    x = paddle.zeros([2000], "float64")
    assert paddle.normal_(x=x, mean=3.0, std=0.5) is x
    values = x.numpy()
    assert abs(values.mean() - 3.0) < 0.05 and abs(values.std() - 0.5) < 0.05
    y = paddle.zeros([2000], "float64")
    assert paddle.bernoulli_(y, 0.25) is y
    assert set(np.unique(y.numpy())) <= {0.0, 1.0} and abs(y.numpy().mean() - 0.25) < 0.05
