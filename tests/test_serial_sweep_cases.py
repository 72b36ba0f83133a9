"""Regression cases found by the differential sweep of saving and loading
(eager.save/eager.load, optimizer and LR scheduler state dicts, jit save/load)."""
import io

import numpy as np
import pytest

import eager

pytest.importorskip("safetensors")


def _bfloat16_bits(tensor):
    """The raw 16-bit patterns of a bfloat16 tensor (its float32 value's top half)."""
    return (tensor.astype("float32").numpy().astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


@pytest.mark.parametrize("shape", [[], [1], [0], [2, 3]])
def test_a_bfloat16_tensor_of_any_rank_round_trips_with_its_shape(tmp_path, shape):
    values = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) * 1.5 - 2.0
    tensor = eager.to_tensor(values).astype("bfloat16")
    path = tmp_path / "bf16.pdtensor"
    eager.save({"t": tensor, "nested": [tensor]}, path)
    out = eager.load(path)
    for got in (out["t"], out["nested"][0]):
        assert got.dtype == eager.bfloat16
        assert got.shape == shape
        np.testing.assert_array_equal(_bfloat16_bits(got), _bfloat16_bits(tensor))
        # every value here is exact in bfloat16: compare with the float32 source too
        np.testing.assert_array_equal(got.astype("float32").numpy(), values)
    buffer = io.BytesIO()
    eager.save(tensor, buffer)
    buffer.seek(0)
    got = eager.load(buffer, return_numpy=True)
    assert list(got.shape) == shape
