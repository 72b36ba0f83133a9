"""Cases found by a second pass over PaddlePaddle's own unit tests for the Tensor
object (test/legacy_test: test_egr_python_api, test_var_base, ...) against eager,
each checked against the real Paddle 2.6.2 (the first pass:
tests/test_paddle_ut_tensor_cases.py).

What they found (one test per bug below; each failed before its fix):
- Tensor._copy_to(place) returned the tensor itself when it was on place already
  and kept stop_gradient; Paddle 2.6.2's is always a new buffer, a leaf with
  stop_gradient=True that keeps persistable. cpu()/cuda()/to() (which went
  through it) still return self when nothing moves and keep stop_gradient; they
  now keep persistable on a move too (test_egr_python_api's cuda()/cpu()).
- The private methods test_egr_python_api calls were missing: _share_buffer_to /
  _is_shared_buffer_with, _share_underline_tensor_to /
  _is_shared_underline_tensor_with, _clear, _clear_data, _slice, _offset,
  _copy_gradient_from, _grad_value, _md5sum, _use_gpudnn and the _place_str property.
- base.framework.EagerParamBase(shape, dtype, **kwargs) (Paddle's constructor)
  was eager's Parameter(value, ...), and base.framework._dygraph_place_guard was
  missing.
- A Tensor operator given None or another non-operand (``x == None``, ``x & None``)
  raised TypeError only; Paddle 2.6.2 raises ValueError (test_math_op_patch_var_base's
  operator sweep): now both (ArgumentKindError); likewise the setters of
  stop_gradient, persistable, name and grad given a value of the wrong kind.
- paddle.base.Tensor() (a LoDTensor made on its own, filled by ``set(array, place)``)
  was missing and ``to_tensor`` refused it and ``get_tensor()``'s handle.
- Tensor.numel refused Paddle's ``name`` argument (a comparison of the signatures
  of the 409 Tensor methods both have).

Deliberate differences met (docs): the ``paddle.Tensor(...)`` constructors
(docs/architecture.md), ``copy_`` of another shape (docs/autograd.md),
``backward(grad_tensor)`` given an ndarray or a tensor of another shape raises
TypeError/ValueError where Paddle asserts (docs/autograd.md); NumPy's dtype
spellings (``_to(dtype='double')``, docs/dtypes.md); newly added (docs/gpu.md):
Paddle 2.6.2's ``Tensor.to(dtype)``/``_to(dtype=...)`` converts the tensor itself
and returns it, eager returns a new tensor (a recorded cast).
Newly documented too: ``inplace_version`` moves once per inplace call (Paddle: once
per inner op of masked_fill_/hypot_/nan_to_num_), no-gradient inplace ops
(floor_divide_, remainder_, multigammaln_) refuse a grad-requiring leaf as every
inplace op (docs/autograd.md); a real tensor compared with a complex number
(docs/ops.md).
Paddle quirks left: ``x._share_buffer_to(y)`` crashes Paddle 2.6.2 when y has
another element count or is not a Tensor (eager: ValueError / TypeError), and
refuses a 0-size x (ValueError; eager shares it); using a tensor after ``_clear()``
crashes Paddle (eager: NoDataError); 2.6.2's ``index_fill_`` fills whole rows
(``index_fill`` is right; eager's both are); ``x & None`` / ``x + 'a'`` give garbage
or crash there; ``-bool_tensor`` returns the bool tensor (eager: error); the
backward of ``index_add_`` segfaults 2.6.2.
"""
import numpy as np
import pytest

import eager
from eager.base import framework
from eager.tensor import create_tensor

pytestmark = pytest.mark.usefixtures("device")


def test_copy_to_is_always_a_new_leaf_without_gradient():
    x = eager.to_tensor(np.ones([2, 3], "float32"), stop_gradient=False)
    x.persistable = True
    y = x._copy_to(x.place, True)  # the same place: still a copy
    assert y is not x and y.stop_gradient is True and y.persistable is True
    assert not y._is_shared_buffer_with(x)
    with eager.no_grad():
        y[0, 0] = 5.0
    assert x.numpy()[0, 0] == 1.0
    z = (x * 2)._copy_to(x.place, False)  # a non-leaf's copy: a leaf, no edge back
    assert z.is_leaf and z.stop_gradient is True
    # the moves return x itself where it is, keeping stop_gradient (as Paddle 2.6.2)
    moved = x.cpu()
    assert (moved is x) == x.place.is_cpu_place()
    assert moved.stop_gradient is False and moved.persistable is True  # kept by a move too


def test_share_buffer_to_shares_the_buffer_and_dtype_keeping_the_shape():
    a = eager.to_tensor(np.arange(6, dtype="float64").reshape(2, 3))
    b = eager.zeros([3, 2], "float32")
    a._share_buffer_to(b)
    assert b.shape == [3, 2] and b.dtype == eager.float64  # as Paddle 2.6.2
    np.testing.assert_array_equal(b.numpy(), np.arange(6.0).reshape(3, 2))
    assert a._is_shared_buffer_with(b) and b._is_shared_buffer_with(a)
    a[0, 0] = 9.0
    assert b.numpy()[0, 0] == 9.0
    assert a.inplace_version == 1 and b.inplace_version == 0  # each its own counter
    assert a[1:]._is_shared_buffer_with(a)
    assert not a._is_shared_buffer_with(eager.to_tensor(np.arange(6.0).reshape(2, 3)))
    with pytest.raises(ValueError, match="_share_buffer_to: argument 'dst' has 5 elements"):
        a._share_buffer_to(eager.zeros([5]))
    with pytest.raises(TypeError, match="_share_buffer_to: argument 'dst' expected a Tensor"):
        a._share_buffer_to(np.zeros([2, 3]))
    empty = create_tensor("float32")  # no buffer yet: takes the source's shape
    a._share_buffer_to(empty)
    assert empty.shape == [2, 3] and empty._is_shared_buffer_with(a)


def test_share_underline_tensor_to_shares_everything_but_the_autograd_fields():
    x = eager.to_tensor(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    x.persistable = True
    y = eager.zeros([1])
    x._share_underline_tensor_to(y)
    assert y.shape == [2, 3] and y._is_shared_underline_tensor_with(x)
    assert y.stop_gradient is True and y.persistable is False  # as Paddle 2.6.2
    with eager.no_grad():
        y[0, 0] = 7.0
    assert x.numpy()[0, 0] == 7.0 and x.inplace_version == 1  # the same counter
    assert not x._is_shared_underline_tensor_with(eager.to_tensor(np.arange(6.0).reshape(2, 3)))


def test_clear_and_clear_data():
    x = eager.to_tensor(np.ones([2, 3]))
    keep = x[0]
    x._clear()
    assert x.shape == [] and not x._is_initialized()  # Paddle 2.6.2: shape [] after _clear
    np.testing.assert_array_equal(keep.numpy(), [1.0, 1.0, 1.0])  # a view keeps the buffer
    with pytest.raises(RuntimeError, match="holds no data"):
        x + 1
    y = eager.to_tensor(np.ones([2, 3]))
    y._clear_data()
    assert y.shape == [2, 3] and not y._is_initialized()


def test_slice_rows_share_the_buffer():
    x = eager.to_tensor(np.arange(6.0).reshape(3, 2), stop_gradient=False)
    s = x._slice(1, 3)
    assert s.shape == [2, 2] and s.stop_gradient is True and s._numel() == 4
    s[0, 0] = 50.0
    assert x.numpy()[1, 0] == 50.0
    for args in [(0, 5), (-1, 1)]:  # IndexError in Paddle 2.6.2
        with pytest.raises(IndexError, match="_slice"):
            x._slice(*args)
    with pytest.raises(ValueError, match="_slice: begin_idx"):  # begin > end: ValueError in 2.6.2
        x._slice(2, 1)


def test_copy_gradient_from_shares_the_source():
    x = eager.to_tensor(np.ones(3), stop_gradient=False)
    (x * 2).sum().backward()
    old = x.grad
    y = eager.to_tensor(np.arange(3.0))
    x._copy_gradient_from(y)
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 2.0])
    y[0] = 7.0  # Paddle 2.6.2: the gradient holds y's buffer
    np.testing.assert_array_equal(x.grad.numpy(), [7.0, 1.0, 2.0])
    np.testing.assert_array_equal(old.numpy(), [2.0, 2.0, 2.0])
    z = eager.to_tensor(np.ones(3))  # no gradient yet: one is set
    z._copy_gradient_from(y)
    np.testing.assert_array_equal(z.grad.numpy(), [7.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="grad: expected a tensor of paddle.float64"):
        z._copy_gradient_from(eager.ones([4]))


def test_small_private_methods():
    a = np.arange(6, dtype="float64").reshape(2, 3)
    x = eager.to_tensor(a, stop_gradient=False)
    assert x._md5sum() == "2e54e903aed315c1f0d7410fc089adfe"  # from Paddle 2.6.2 (= md5 of the bytes)
    assert x._md5sum() == eager.to_tensor(a)._md5sum() != eager.to_tensor(a + 1)._md5sum()
    y = x._use_gpudnn(False)
    assert y is not x and y.name == x.name and y.stop_gradient is False and y._is_shared_buffer_with(x)
    with pytest.raises(TypeError, match="_use_gpudnn"):
        x._use_gpudnn("no")
    assert eager.to_tensor(a)[1:]._offset() == 24  # from Paddle 2.6.2
    assert eager.to_tensor([1.0])._place_str == str(eager.to_tensor([1.0]).place)


def test_eager_param_base_constructor():
    P = framework.EagerParamBase
    p = P([2, 3], "float32", name="w0", trainable=False)
    assert isinstance(p, P) and isinstance(p, eager.nn.Parameter)
    assert p.shape == [2, 3] and p.name == "w0" and p.stop_gradient and not p._is_initialized()
    p.set_value(np.ones((2, 3), "float32"))
    assert p.numpy().sum() == 6.0
    assert P(shape=[], dtype="float32").shape == []
    assert P(shape=eager.shape(eager.to_tensor([1, 2, 3, 4])), dtype="float32").shape == [4]
    for kwargs, words in [(dict(shape=None, dtype="float32"), "shape of Parameter should not be None"),
                          (dict(shape=[1, 1], dtype=None), "dtype of Parameter should not be None"),
                          (dict(shape=[-1], dtype="float32"), "must be greater than 0")]:
        with pytest.raises(ValueError, match=words):
            P(**kwargs)
    q = P.from_tensor(eager.to_tensor([1.0, 2.0]))
    assert q.stop_gradient is False
    np.testing.assert_array_equal(q.numpy(), [1.0, 2.0])
    assert isinstance(eager.nn.Linear(2, 2).weight, P) and not isinstance(eager.ones([1]), P)
    assert issubclass(eager.nn.Parameter, P)


def test_dygraph_place_guard():
    before = framework._current_expected_place()
    with framework._dygraph_place_guard(eager.CPUPlace()):
        assert isinstance(framework._current_expected_place(), type(eager.CPUPlace()))
    assert framework._current_expected_place() == before


def test_grad_value_is_the_gradient_buffer():
    a = eager.to_tensor(np.array([2.0, 3.0], "float32"), stop_gradient=False)
    b = a ** 2
    assert a._grad_value() is None
    b.sum().backward()
    value = a._grad_value()
    assert value._is_initialized() and value.shape() == [2]  # a LoDTensor-like handle, as Paddle's
    np.testing.assert_array_equal(np.array(value), [4.0, 6.0])


@pytest.mark.parametrize("combine", [
    lambda x: x == None,  # noqa: E711 - the comparison under test
    lambda x: x + None, lambda x: None - x, lambda x: x & None, lambda x: x < None, lambda x: x * object()])
def test_operator_with_a_non_operand_is_also_a_value_error(combine):
    # Paddle 2.6.2's argument parser raises ValueError ("(InvalidArgument) __eq__(): argument
    # (position 1) must be int, float, bool or Tensor"); eager's TypeError is kept beside it
    x = eager.to_tensor([1, 2], dtype="int32")
    with pytest.raises(ValueError, match="cannot combine a Tensor with") as info:
        combine(x)
    assert isinstance(info.value, TypeError)


def test_numel_method_takes_paddles_name_argument():
    x = eager.zeros([2, 3])
    assert x.numel(name="n") == 6 and x.numel() == 6  # Paddle 2.6.2's Tensor.numel(x, name=None)


@pytest.mark.parametrize("attribute, value", [
    ("stop_gradient", 0), ("persistable", 1), ("name", 3), ("grad", np.zeros(2, "float32"))])
def test_tensor_attribute_of_the_wrong_kind_is_also_a_value_error(attribute, value):
    # Paddle 2.6.2's setters raise ValueError ("(InvalidArgument) argument (position 1) must
    # be bool, but got int"); eager's TypeError is kept beside it, and the tensor is unchanged
    x = eager.zeros([2])
    before = (x.stop_gradient, x.persistable, x.name, x.grad)
    with pytest.raises(ValueError, match=f"{attribute}: expected a") as info:
        setattr(x, attribute, value)
    assert isinstance(info.value, TypeError)
    assert (x.stop_gradient, x.persistable, x.name, x.grad) == before


def test_base_tensor_set_and_to_tensor():
    # test_var_base / test_egr_python_api: t = paddle.base.Tensor(); t.set(x, place); to_tensor(t)
    t = eager.base.Tensor()
    assert not t._is_initialized()
    x = np.random.default_rng(0).random((3, 3))
    t.set(x, eager.CPUPlace())
    assert t.shape() == [3, 3] and t._dtype() == eager.float64 and t._is_initialized()
    np.testing.assert_array_equal(np.array(t), x)
    y = eager.to_tensor(t)
    np.testing.assert_array_equal(y.numpy(), x)
    y[0, 0] = 100.0  # to_tensor copies
    assert np.array(t)[0, 0] == x[0, 0]
    assert eager.to_tensor(t, dtype="float32").dtype == eager.float32
    np.testing.assert_array_equal(eager.to_tensor(eager.ones([2]).get_tensor()).numpy(), [1.0, 1.0])
