"""Cases found by re-running the dygraph parts of PaddlePaddle's own unit tests for
the Tensor object (test/legacy_test: test_var_base, test_eager_tensor,
test_math_op_patch_var_base, test_tensor_register_hook, test_tensor_fill_,
test_tensor_fill_diagonal_, test_tensor_zero_, test_tensor_to_list,
test_tensor_type_promotion, test_inplace) against eager, each checked against the
real Paddle 2.6.2.

What they found (one test per bug below; each failed before its fix):
- Tensor.item(i) with an index outside the tensor raised IndexError only; Paddle's
  check is an InvalidArgument (ValueError, test_var_base's to_tensor test): the
  error is now both (ElementIndexError).
- _register_backward_hook (and register_post_accumulate_grad_hook) on a non-leaf
  raised RuntimeError only; Paddle raises ValueError (test_tensor_register_hook):
  now AutogradError, both.
- t_ of a 2-d tensor and assign(x, output) into an output of another shape gave
  the tensor a new buffer with a fresh version counter: t_ applied twice read
  inplace_version 1 (Paddle 2.6.2: 3), and assign reset it to 0 (Paddle: test_inplace
  reads 2 after assign, 3 after the next setitem). The count now goes on.
- fill_diagonal_ refused a bool and a 0-d tensor as value; Paddle 2.6.2 reads
  both as a number.
- Tensor._is_initialized, _numel and _bump_inplace_version, private methods that
  Paddle's Tensor tests (and code writing buffers itself) call, were missing.
- Tensor.to refused other= (Paddle 2.6.2's fourth keyword: other's place and
  dtype), returned self for to() with no arguments (Paddle: TypeError), and a
  string naming no device or dtype raised TypeError (Paddle: ValueError).
- detach() of a persistable tensor was not persistable (Paddle 2.6.2 keeps the
  flag), and _copy_to(place, blocking) refused Paddle's second argument.
"""
import numpy as np
import pytest

import eager
from eager.tensor import create_tensor

pytestmark = pytest.mark.usefixtures("device")


@pytest.mark.parametrize("args", [(12,), (-13,), (1, 2), (2, 1, 2), (3, 0, 0)])
def test_item_index_out_of_range_is_a_value_error_and_an_index_error(args):
    x = eager.to_tensor(np.arange(12, dtype="float32").reshape(3, 2, 2))
    with pytest.raises(ValueError, match=r"item\(\)") as info:
        x.item(*args)
    assert isinstance(info.value, IndexError)
    assert x.item(5) == 5.0 and x.item(1, 0, 1) == 5.0  # in range: as numpy's item


def test_register_backward_hook_on_a_non_leaf_is_a_value_error():
    x = eager.to_tensor([5.0], stop_gradient=False)
    y = eager.pow(x, 4.0)
    with pytest.raises(ValueError, match="_register_backward_hook: only a leaf tensor") as info:
        y._register_backward_hook(lambda: None)
    assert isinstance(info.value, RuntimeError)
    calls = []
    x._register_backward_hook(lambda: calls.append(1))  # a leaf: runs once per backward
    for _ in range(3):
        eager.pow(x, 4.0).backward()
    assert calls == [1, 1, 1]


def test_t_inplace_keeps_counting_the_version():
    x = eager.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    assert x.t_() is x and x.inplace_version == 1
    x[0] = 2.0
    assert x.inplace_version == 2
    x.t_()
    assert x.inplace_version == 3 and x.shape == [2, 3]
    x.reshape_([3, 2])  # a view: the shared counter moves on
    assert x.inplace_version == 4


def test_t_inplace_after_saving_refuses_backward():
    a = eager.to_tensor(np.ones((2, 3), "float32"), stop_gradient=False)
    b = a * 2.0
    b[0] = 3.0  # version 1
    c = b * b  # saves b at version 1
    b.t_()  # version 2 now, not a fresh 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_assign_into_an_output_of_another_shape_moves_its_version():
    var = eager.to_tensor(np.ones((4, 2, 3), "float32"))
    var[0] = 1.1
    assert var.inplace_version == 1
    out = eager.assign(eager.ones([3]), var)
    assert out is var and var.shape == [3] and var.inplace_version == 2  # value from Paddle 2.6.2
    var[2] = 3.0
    assert var.inplace_version == 3  # value from Paddle 2.6.2
    np.testing.assert_array_equal(var.numpy(), [1.0, 1.0, 3.0])


@pytest.mark.parametrize("value, diagonal", [(True, 1.0), (False, 0.0)])
def test_fill_diagonal_takes_a_bool(value, diagonal):
    x = eager.full([3, 3], 7.0)
    x.fill_diagonal_(value)
    expected = np.full((3, 3), 7.0, "float32")
    np.fill_diagonal(expected, diagonal)
    np.testing.assert_array_equal(x.numpy(), expected)


def test_fill_diagonal_takes_a_one_element_tensor():
    x = eager.ones([2, 3])
    x.fill_diagonal_(eager.to_tensor(3.0))
    np.testing.assert_array_equal(x.numpy(), [[3, 1, 1], [1, 3, 1]])
    b = eager.ones([3, 3], dtype="bool")
    b.fill_diagonal_(eager.to_tensor(0))
    np.testing.assert_array_equal(b.numpy(), ~np.eye(3, dtype=bool))
    with pytest.raises(TypeError, match="fill_diagonal_: argument 'value'"):
        eager.ones([2, 2]).fill_diagonal_(eager.to_tensor(1j))
    with pytest.raises(TypeError, match="fill_diagonal_: argument 'value'"):
        eager.ones([2, 2]).fill_diagonal_("x1")


def test_private_is_initialized_numel_and_bump_inplace_version():
    x = eager.zeros([3, 4])
    assert x._is_initialized() is True and x._numel() == 12
    placeholder = create_tensor("float32")
    assert placeholder._is_initialized() is False and placeholder._numel() == 1  # value from Paddle 2.6.2
    x._bump_inplace_version()
    x._bump_inplace_version()
    assert x.inplace_version == 2
    a = eager.to_tensor([2.0, 3.0], stop_gradient=False)
    b = a * 1.0
    c = b * b
    b._bump_inplace_version()  # as a write of b's buffer would
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()


def test_to_with_other_keyword_and_bad_arguments():
    x = eager.to_tensor([1.0, 2.0])
    y = x.to(other=eager.to_tensor([1], dtype="int64"))
    assert y.dtype == eager.int64 and str(y.place) == str(x.place)
    np.testing.assert_array_equal(y.numpy(), [1, 2])
    with pytest.raises(TypeError, match="to: expected a device, a dtype or a Tensor"):
        x.to()
    with pytest.raises(ValueError, match="to: argument 'foo' is neither a device"):
        x.to("foo")
    with pytest.raises(TypeError, match="to: argument 'other' expected a Tensor"):
        x.to(other=3)
    assert x._to().dtype == eager.float32  # the private form keeps its defaults


def test_detach_keeps_persistable():
    x = eager.to_tensor([1.0, 2.0])
    assert x.detach().persistable is False
    x.persistable = True
    d = x.detach()
    assert d.persistable is True and d.stop_gradient is True  # value from Paddle 2.6.2
    d[0] = 5.0  # the buffer is shared
    np.testing.assert_array_equal(x.numpy(), [5.0, 2.0])


def test_copy_to_takes_blocking():
    x = eager.to_tensor([1.0, 2.0])
    np.testing.assert_array_equal(x._copy_to(x.place, False).numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(x._copy_to(eager.CPUPlace(), True).numpy(), [1.0, 2.0])
    with pytest.raises(TypeError, match="_copy_to: argument 'blocking' expected a bool"):
        x._copy_to(x.place, 1)
