"""setitem's InferMeta remembers a call whose index holds only ints, slices, None
and Ellipsis once it passed its checks, and skips them on an exact repeat (same
dims, dtypes, index item types and values). A call that differs in anything the
checks read is checked in full, with the same errors, and writes nothing."""
import numpy as np
import pytest

import eager
from phi.core import DenseTensor, MetaTensor
from phi.core.errors import InvalidArgumentError, OutOfRangeError
from phi.infermeta import shape as shape_im


@pytest.fixture(autouse=True)
def fresh():
    shape_im._SETITEM_PASSED.clear()


def test_a_repeat_is_remembered_and_writes_as_numpy():
    x, ref = eager.zeros([6, 4]), np.zeros((6, 4), np.float32)
    for step in range(3):
        value = np.full((4,), step + 1.0, np.float32)
        x[1:5:2, ...] = eager.to_tensor(value)
        ref[1:5:2, ...] = value
        x[-1] = eager.to_tensor(value * 2)
        ref[-1] = value * 2
        np.testing.assert_array_equal(x.numpy(), ref)
    assert len(shape_im._SETITEM_PASSED) == 2
    assert x.impl.version == 6


@pytest.mark.parametrize("index,value,error,message", [
    ((9,), [1.0, 1.0, 1.0], OutOfRangeError, r"setitem: argument 'index' \(9\) cannot index x of shape \[4, 3\]"),
    ((slice(0, 2),), [1.0] * 5, InvalidArgumentError,
     r"setitem: argument 'value' of shape \[5\] cannot be broadcast to the indexed region of shape \[2, 3\]"),
    ((0, 0, 0), [1.0], OutOfRangeError, r"setitem: argument 'index' \(0, 0, 0\) cannot index x"),
])
def test_a_call_that_differs_from_a_remembered_one_is_checked_in_full(index, value, error, message):
    x = eager.zeros([4, 3])
    x[0] = eager.ones([3])
    x[0:2] = eager.ones([3])
    x[0, 0] = eager.to_tensor(np.float32(1.0))
    before, version = x.numpy().copy(), x.impl.version
    with pytest.raises(error, match=message):
        x[index] = eager.to_tensor(np.float32(value))
    np.testing.assert_array_equal(x.numpy(), before)
    assert x.impl.version == version


def test_index_item_types_are_part_of_the_signature():
    """True indexes like a new axis and 1 like a row; 1.0 is no index at all."""
    x, ref = eager.zeros([3, 2]), np.zeros((3, 2), np.float32)
    x[1] = eager.to_tensor(np.float32([1.0, 2.0]))
    ref[1] = [1.0, 2.0]
    x[True] = eager.to_tensor(np.float32([5.0, 6.0]))
    ref[True] = [5.0, 6.0]
    np.testing.assert_array_equal(x.numpy(), ref)
    meta, d, v = MetaTensor(), DenseTensor(np.zeros((3, 2), np.float32)), DenseTensor(np.ones(2, np.float32))
    shape_im.setitem_infer_meta(d, v, (slice(0, 1),), meta)
    with pytest.raises(InvalidArgumentError, match="argument 'index'"):
        shape_im.setitem_infer_meta(d, v, (slice(0.0, 1),), meta)


def test_array_and_list_indices_are_never_remembered():
    d, v = DenseTensor(np.zeros((4, 2), np.float32)), DenseTensor(np.ones(2, np.float32))
    for index in ((np.array([0, 2]),), [0, 1], (slice([0], 1),)):
        for _ in range(2):
            try:
                shape_im.setitem_infer_meta(d, v, index, MetaTensor())
            except InvalidArgumentError:
                pass
    assert len(shape_im._SETITEM_PASSED) == 0
    x = eager.zeros([4, 2])
    x[eager.to_tensor(np.array([0, 2]))] = eager.ones([2])
    np.testing.assert_array_equal(x.numpy()[:, 0], [1.0, 0.0, 1.0, 0.0])
    assert len(shape_im._SETITEM_PASSED) == 0
