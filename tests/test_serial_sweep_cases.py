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


def test_a_key_named_like_the_safetensors_metadata_saves_a_readable_file(tmp_path):
    # "__metadata__" is the key safetensors reserves in its header: a tensor stored
    # under that entry name made a file that eager.load refused as corrupted.
    first = eager.to_tensor(np.arange(3, dtype=np.float32))
    second = eager.to_tensor(np.arange(4, dtype=np.int64))
    path = tmp_path / "meta.pdparams"
    eager.save({"__metadata__": first, "inner": {"__metadata__": {"x": 1}}, "__metadata__#2": second}, path)
    out = eager.load(path)
    assert list(out) == ["__metadata__", "inner", "__metadata__#2"]
    np.testing.assert_array_equal(out["__metadata__"].numpy(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(out["__metadata__#2"].numpy(), [0, 1, 2, 3])
    assert out["inner"] == {"__metadata__": {"x": 1}}
    buffer = io.BytesIO()
    eager.save({"__metadata__": first}, buffer)
    buffer.seek(0)
    np.testing.assert_array_equal(eager.load(buffer, return_numpy=True)["__metadata__"], [0.0, 1.0, 2.0])


class _SeqPlusBias(eager.nn.Layer):
    """x [B, S, 4] through a Linear plus y [B, 1, 4]: the batches meet, S does not."""

    def __init__(self):
        super().__init__()
        self.linear = eager.nn.Linear(4, 4)

    def forward(self, x, y):
        return self.linear(x) + y, (x * 2.0).sum(axis=1)


def test_jit_save_keeps_a_sequence_length_free_when_two_inputs_batches_meet(tmp_path):
    # The batches of x and y meet in one add, so they share one size; the sequence
    # length of x meets nothing and stays free (it used to be tied to the batch too,
    # so a loaded layer refused x of shape [2, 5, 4]).
    from eager.static import InputSpec
    eager.seed(0)
    layer = _SeqPlusBias()
    specs = [InputSpec([None, None, 4], "float32", "x"), InputSpec([None, 1, 4], "float32", "y")]
    eager.jit.save(layer, str(tmp_path / "seq"), input_spec=specs)
    loaded = eager.jit.load(str(tmp_path / "seq"))
    weight, bias = layer.linear.weight.numpy(), layer.linear.bias.numpy()
    rng = np.random.RandomState(0)
    for batch, length in ((2, 5), (3, 2), (1, 1)):
        x = rng.randn(batch, length, 4).astype(np.float32)
        y = rng.randn(batch, 1, 4).astype(np.float32)
        first, second = loaded(eager.to_tensor(x), eager.to_tensor(y))
        expected = np.zeros((batch, length, 4))
        for b in range(batch):
            for s in range(length):
                expected[b, s] = x[b, s].astype(np.float64) @ weight + bias + y[b, 0]
        np.testing.assert_allclose(first.numpy(), expected, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(second.numpy(), 2.0 * x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
    # batches that differ still raise, naming the input
    with pytest.raises(ValueError, match="TranslatedLayer.forward: input 1"):
        loaded(eager.to_tensor(np.ones((2, 5, 4), np.float32)), eager.to_tensor(np.ones((3, 1, 4), np.float32)))


class _Marker:
    """Unpickling this object would create the file at ``path`` (a crafted payload)."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.parametrize("protocol", [0, 1, 2, 4, 5])
def test_a_crafted_pickle_of_any_protocol_runs_no_code(tmp_path, protocol):
    import pickle
    marker = tmp_path / "ran"
    payload = pickle.dumps({"w": _Marker(str(marker))}, protocol=protocol)
    path = tmp_path / "evil.pdparams"
    path.write_bytes(payload)
    for source in (path, io.BytesIO(payload)):
        with pytest.raises(ValueError, match="^eager.load: "):
            eager.load(source)
    assert not marker.exists()
    # the same bytes inside a real file are data: a uint8 array, never unpickled
    eager.save({"blob": np.frombuffer(payload, dtype=np.uint8)}, tmp_path / "blob.pdparams")
    blob = eager.load(tmp_path / "blob.pdparams", return_numpy=True)["blob"]
    assert blob.tobytes() == payload and not marker.exists()


def test_jit_load_gives_the_layer_in_eval_mode_as_paddle(tmp_path):
    # Paddle's jit.load sets the TranslatedLayer to eval mode: dropout is off until train().
    from eager.static import InputSpec
    eager.seed(3)
    net = eager.nn.Sequential(eager.nn.Linear(4, 8), eager.nn.Dropout(0.5), eager.nn.Linear(8, 2))
    net.train()
    eager.jit.save(net, str(tmp_path / "drop"), input_spec=[InputSpec([None, 4], "float32", "x")])
    loaded = eager.jit.load(str(tmp_path / "drop"))
    assert loaded.training is False
    x = np.random.RandomState(1).randn(3, 4).astype(np.float32)
    w1, b1, w2, b2 = (p.numpy().astype(np.float64) for p in net.parameters())
    expected = (x.astype(np.float64) @ w1 + b1) @ w2 + b2  # dropout is the identity in eval mode
    first, second = loaded(eager.to_tensor(x)).numpy(), loaded(eager.to_tensor(x)).numpy()
    np.testing.assert_allclose(first, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(first, second)
    loaded.train()
    assert loaded.training is True
    draws = [loaded(eager.to_tensor(x)).numpy() for _ in range(3)]
    assert any(not np.allclose(d, expected, atol=1e-5) for d in draws)  # dropout draws in train mode
