"""Small gaps checked against Paddle 2.6.2.

Found:
- ``Tensor.pow_`` / ``eager.pow_`` / ``eager.pow``'s op defaulted the exponent ``y`` to 1; Paddle 2.6.2's
  signature is ``pow_(x, y, name=None)`` and a call without ``y`` is a TypeError.
- ``Tensor.grad_`` (Paddle's second name of the ``grad`` property) was missing.
- ``Tensor.reconstruct_from_(other)`` was missing: in Paddle 2.6.2 the tensor becomes another handle of
  ``other`` (shared storage, shape, dtype, stop_gradient and grad; its own name kept); a non-Tensor
  argument is a ValueError.
"""
import numpy as np
import pytest

import eager

pytestmark = pytest.mark.usefixtures("device")


def test_pow_inplace_requires_exponent():
    x = eager.to_tensor([2.0, 3.0])
    with pytest.raises(TypeError, match="y"):
        x.pow_()
    with pytest.raises(TypeError, match="y"):
        eager.pow_(x)
    np.testing.assert_allclose(x.numpy(), [2.0, 3.0])  # the failed calls left x as it was
    assert x.pow_(2) is x
    np.testing.assert_allclose(x.numpy(), [4.0, 9.0])


def test_grad_underscore_is_grad():
    a = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    assert a.grad_ is None
    (a * 3).sum().backward()
    np.testing.assert_allclose(a.grad_.numpy(), [3.0, 3.0])
    a.grad_ = None
    assert a.grad is None


def test_reconstruct_from_shares_other():
    t1 = eager.to_tensor([1.0, 3.0])
    t2 = eager.to_tensor([[2.0, 5.0]], dtype="float64")
    assert t1.reconstruct_from_(t2) is None
    assert t1.shape == [1, 2] and t1.dtype == eager.float64 and t1.stop_gradient
    t2[0, 0] = 7.0  # Paddle 2.6.2: the write shows through t1
    np.testing.assert_allclose(t1.numpy(), [[7.0, 5.0]])
    assert t1.name != t2.name

    a = eager.to_tensor([1.0, 2.0], stop_gradient=False)
    (a * 3).sum().backward()
    b = eager.to_tensor([5.0])
    b.reconstruct_from_(a)
    assert not b.stop_gradient
    np.testing.assert_allclose(b.grad.numpy(), [3.0, 3.0])


@pytest.mark.parametrize("bad", [1, np.ones(2)])
def test_reconstruct_from_refuses_non_tensor(bad):
    t = eager.to_tensor([1.0])
    with pytest.raises(ValueError, match="reconstruct_from_.*Tensor"):
        t.reconstruct_from_(bad)
    np.testing.assert_allclose(t.numpy(), [1.0])
