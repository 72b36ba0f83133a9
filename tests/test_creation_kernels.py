"""The range kernels on a device whose pow is an ulp off (CUDA's is: 3.0 ** 1.0
came out as 2.9999999999999996 on an H200), checked here on the host by handing
the kernel a NumPy namespace with such a pow."""
import types

import numpy as np
import pytest

from phi.common import DataType
from phi.kernels.creation import logspace


def _low_pow_namespace():
    """numpy, except that power lands one ulp below the true value."""
    xp = types.SimpleNamespace(**{name: getattr(np, name) for name in dir(np) if not name.startswith("__")})
    xp.power = lambda base, exponent: np.nextafter(np.power(base, exponent), -np.inf)
    return xp


@pytest.mark.parametrize("dtype, want", [(DataType.INT32, [1, 3, 9]), (DataType.INT64, [1, 3, 9])])
def test_integer_logspace_is_exact_when_pow_is_an_ulp_low(dtype, want):
    ctx = types.SimpleNamespace(xp=_low_pow_namespace())
    got = logspace(ctx, 0, 2, 3, 3, dtype)
    assert got.dtype == dtype.numpy_dtype
    np.testing.assert_array_equal(got, want)


def test_integer_logspace_still_truncates_values_between_integers():
    ctx = types.SimpleNamespace(xp=np)
    # 10 ** 0.5 = 3.16... and 10 ** 1.5 = 31.6...: truncated toward zero, as Paddle casts
    # (the ends themselves are integers here: Paddle casts start and stop to the dtype first).
    np.testing.assert_array_equal(logspace(ctx, 0, 3, 3, 10, DataType.INT32), [1, 31, 1000])
    np.testing.assert_array_equal(logspace(ctx, 0, 1, 3, 10, DataType.INT64), [1, 3, 10])
