"""bfloat16 on the CPU (NumPy's bfloat16 dtype from ml_dtypes): the dtype's
plumbing, kernels computing in float32 and rounding once, autograd, amp,
save/load, the GPU's refusal, and the clear error without ml_dtypes.

References are independent of eager: float32 NumPy results rounded to
bfloat16 by ml_dtypes, and hand-derived bit patterns.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import eager
from phi.common import Backend, DataType, convert_dtype
from phi.common import data_type as data_type_module
from phi.common.data_type import BFloat16Unavailable, float_info
from phi.core import KernelFactory

ml_dtypes = pytest.importorskip("ml_dtypes")
from op_specs import SPECS  # noqa: E402  (tests/op_specs, after the skip above)
from op_specs.core import draw  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)


def _bf16(values) -> np.ndarray:
    """values rounded to bfloat16 by ml_dtypes (round to nearest even)."""
    return np.asarray(values, dtype=np.float32).astype(BF16)


# -- the dtype ---------------------------------------------------------------------

def test_the_dtype_maps_to_ml_dtypes_bfloat16_both_ways():
    assert convert_dtype("bfloat16") is DataType.BFLOAT16 is eager.bfloat16
    assert DataType.BFLOAT16.numpy_dtype == BF16 and DataType.BFLOAT16.itemsize == 2
    assert DataType.from_numpy(BF16) is DataType.BFLOAT16
    assert convert_dtype(ml_dtypes.bfloat16) is DataType.BFLOAT16
    assert DataType.BFLOAT16.is_floating_point and not DataType.BFLOAT16.is_integer
    assert float(float_info(DataType.BFLOAT16).eps) == 2.0 ** -7
    assert float(float_info("float32").eps) == 2.0 ** -23


def test_importing_eager_and_computing_in_float32_does_not_import_ml_dtypes():
    root = Path(__file__).resolve().parents[1]
    code = "import sys, eager; (eager.ones([2]) + 1).numpy(); print('ml_dtypes' in sys.modules)"
    env = dict(os.environ, PYTHONPATH=str(root))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root)
    assert result.stdout.strip() == "False", result.stderr


def test_the_default_dtype_may_be_bfloat16_as_in_paddle():
    eager.set_default_dtype("bfloat16")  # Paddle 2.5+ takes the name
    try:
        assert eager.get_default_dtype() == "bfloat16"
        assert eager.zeros([2]).dtype is DataType.BFLOAT16
        assert eager.nn.Linear(2, 3).weight.dtype is DataType.BFLOAT16
    finally:
        eager.set_default_dtype("float32")


def test_to_tensor_astype_and_cast_round_to_nearest_even():
    # 1 + 2^-8 is halfway between 1 and 1 + 2^-7: even (1) wins; 1 + 3 * 2^-8 rounds up.
    values = [1.0, 1.00390625, 1.01171875, -2.5, 3.0e38, 1e-40]
    want = _bf16(values)
    assert want.view(np.uint16)[:3].tolist() == [0x3F80, 0x3F80, 0x3F82]  # hand-derived bits
    x = eager.to_tensor(values, dtype="bfloat16")
    assert x.dtype == eager.bfloat16 and x.numpy().dtype == BF16
    np.testing.assert_array_equal(x.numpy().view(np.uint16), want.view(np.uint16))
    from_float32 = eager.to_tensor(np.asarray(values, np.float32))
    np.testing.assert_array_equal(from_float32.astype("bfloat16").numpy().view(np.uint16), want.view(np.uint16))
    np.testing.assert_array_equal(eager.cast(from_float32, eager.bfloat16).numpy().view(np.uint16),
                                  want.view(np.uint16))
    back = x.astype("float32")
    assert back.dtype == eager.float32
    np.testing.assert_array_equal(back.numpy(), want.astype(np.float32))
    assert x[:4].astype("int32").numpy().tolist() == [1, 1, 1, -2]
    assert eager.to_tensor(8.34, dtype="bfloat16").item() == 8.3125  # a float, not the uint16 bits


def test_numpy_gives_the_ml_dtypes_array_and_paddles_uint16_bits_are_a_view():
    x = eager.to_tensor([1.0, -2.0], dtype="bfloat16")
    array = x.numpy()
    assert array.dtype == BF16
    assert array.view(np.uint16).tolist() == [0x3F80, 0xC000]
    assert x.tolist() == [1.0, -2.0]
    assert eager.to_tensor(np.array([0x3F80], np.uint16).view(BF16)).tolist() == [1.0]
    with pytest.raises(TypeError, match="uint16.*view\\(ml_dtypes.bfloat16\\)"):
        eager.to_tensor(np.array([0x3F80], np.uint16))


def test_printing_shows_the_exact_values_and_the_dtype():
    text = repr(eager.to_tensor([1.0, 2.5, -3.3], dtype="bfloat16"))
    assert "dtype=bfloat16" in text and "2.50000000" in text and "-3.29687500" in text


# -- kernels -----------------------------------------------------------------------

def test_a_float32_kernel_gets_a_bfloat16_twin_that_a_later_registration_replaces():
    factory = KernelFactory()

    def double(ctx, x):
        return x * 2

    def add_one_(ctx, x):  # a trailing underscore: writes into its argument
        x += 1
        return x

    factory.register("double", double, [Backend.CPU], [DataType.FLOAT32])
    factory.register("add_one_", add_one_, [Backend.CPU], [DataType.FLOAT32])
    twin, _ = factory.select("double", Backend.CPU, DataType.BFLOAT16)
    assert twin.fn is not double and twin.fn.float32_kernel is double and twin.arg_names == ("x",)
    out = twin.fn(None, _bf16([1.5, 3.0]))
    assert out.dtype == BF16 and out.tolist() == [3.0, 6.0]
    buffer = _bf16([1.0, 2.0])
    assert factory.select("add_one_", Backend.CPU, DataType.BFLOAT16)[0].fn(None, buffer) is buffer
    assert buffer.tolist() == [2.0, 3.0]
    factory.register("double", double, [Backend.CPU], [DataType.BFLOAT16])  # its own kernel now
    assert factory.select("double", Backend.CPU, DataType.BFLOAT16)[0].fn is double
    with pytest.raises(ValueError, match="registered twice"):
        factory.register("double", double, [Backend.CPU], [DataType.BFLOAT16])


def test_reductions_and_matmul_accumulate_in_float32():
    ones = eager.ones([1000], dtype="bfloat16")
    # Accumulated in bfloat16 the sum stalls at 256 (256 + 1 rounds back to 256).
    assert float(np.add.reduce(np.ones(1000, BF16), dtype=BF16)) == 256.0
    assert ones.sum().dtype == eager.bfloat16 and float(ones.sum()) == 1000.0
    assert float(ones.mean()) == 1.0
    product = eager.matmul(ones.reshape([1, 1000]), ones.reshape([1000, 1]))
    assert product.dtype == eager.bfloat16 and float(product) == 1000.0


def test_an_op_is_its_float32_result_rounded_once(rng):
    a = _bf16(rng.uniform(-2, 2, (4, 5)))
    b = _bf16(rng.uniform(-2, 2, (5, 3)))
    x, y = eager.to_tensor(a), eager.to_tensor(b)
    checks = [
        (eager.matmul(x, y), a.astype(np.float32) @ b.astype(np.float32)),
        (eager.exp(x), np.exp(a.astype(np.float32))),
        (eager.nn.functional.softmax(x, axis=-1), _softmax(a.astype(np.float32))),
        (x * 3.0, a.astype(np.float32) * 3.0),
        # two ops: each rounds its own result
        (eager.tanh(x).sum(axis=1), _bf16(np.tanh(a.astype(np.float32))).astype(np.float32).sum(axis=1)),
    ]
    for got, want in checks:
        assert got.dtype == eager.bfloat16
        np.testing.assert_allclose(got.numpy().astype(np.float32), _bf16(want).astype(np.float32),
                                   rtol=2.0 ** -8, atol=1e-6)


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_dtype_arguments_and_results_of_other_dtypes():
    x = eager.to_tensor([0.5, -1.5, 2.0], dtype="bfloat16")
    assert eager.argmax(x).dtype == eager.int64 and int(eager.argmax(x)) == 2
    assert (x > 0).dtype == eager.bool and (x > 0).numpy().tolist() == [True, False, True]
    assert eager.sum(x, dtype="float32").dtype == eager.float32
    assert eager.full([2], 1.5, dtype="bfloat16").dtype == eager.bfloat16
    assert eager.randn([3, 4], dtype="bfloat16").dtype == eager.bfloat16
    assert eager.zeros_like(x).dtype == eager.bfloat16
    assert eager.median(x).dtype == eager.float32  # as for float16 (Paddle's rule)
    inf = eager.to_tensor([np.inf, -np.inf, np.nan], dtype="bfloat16")
    largest = float(float_info(DataType.BFLOAT16).max)
    assert eager.nan_to_num(inf).tolist() == [largest, -largest, 0.0]


def test_promotion_python_scalars_keep_bfloat16_and_float16_or_float32_tensors_promote_to_float32():
    x = eager.to_tensor([1.5, -2.0], dtype="bfloat16")
    for result in (x * 2.0, 2.0 * x, x + 1, x / 4, x ** 2, x - True):
        assert result.dtype == eager.bfloat16
    assert (x * 2.0).tolist() == [3.0, -4.0] and (x / 4).tolist() == [0.375, -0.5]
    for other in ("float16", "float32"):  # Paddle 2.6's table: neither 16-bit type holds the other
        for result in (x + eager.ones([2], dtype=other), eager.add(eager.ones([2], dtype=other), x)):
            assert result.dtype == eager.float32 and result.tolist() == [2.5, -1.0]
    assert (x + eager.ones([2], dtype="float64")).dtype == eager.float64
    with eager.amp.auto_cast(dtype="bfloat16"):  # inside auto_cast each op casts its inputs
        assert (x + eager.ones([2])).dtype == eager.float32


def test_views_share_the_buffer_and_inplace_ops_write_into_it():
    x = eager.to_tensor([1.0, 2.0, 3.0, 4.0], dtype="bfloat16")
    view = x.reshape([2, 2])
    x[0] = 8.0
    assert view.numpy()[0, 0] == 8.0
    x.add_(eager.ones([4], dtype="bfloat16"))
    assert x.tolist() == [9.0, 3.0, 4.0, 5.0] and x.dtype == eager.bfloat16
    x.scale_(0.5)
    assert x.tolist() == [4.5, 1.5, 2.0, 2.5]


def test_a_bfloat16_leaf_gets_a_bfloat16_gradient():
    a = _bf16([0.5, -1.25, 3.0])
    x = eager.to_tensor(a, stop_gradient=False)
    (x * x).sum().backward()
    assert x.grad.dtype == eager.bfloat16
    np.testing.assert_array_equal(x.grad.numpy(), _bf16(2.0 * a.astype(np.float32)))
    w = eager.to_tensor(_bf16([[1.0, 2.0], [3.0, 4.0]]), stop_gradient=False)
    eager.matmul(eager.ones([1, 2], dtype="bfloat16"), w).sum().backward()
    assert w.grad.dtype == eager.bfloat16 and w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


# The ops whose table entries cannot run as a float32 op rounded once: grad ops
# composed of several ops (each rounds), and entries whose float32 reference is not
# what bfloat16 gives (a float32 result by design, a dtype-dependent constant).
# Ops that refuse bfloat16 (linear algebra, as Paddle's CPU kernels) must name it.
_REFUSED_OK = ("bfloat16",)  # a refusal must name the dtype
_COMPOSED_ROUNDINGS = {"pinv_grad", "batch_norm_grad", "group_norm_grad", "det_grad", "slogdet_grad"}
_FLOAT32_BY_DESIGN = {"cast", "view_dtype", "fft_r2c_grad", "real_grad", "imag_grad", "median"}
# bfloat16's own largest value replaces inf (test_dtype_arguments_and_results_of_other_dtypes);
# float32's, rounded, would be inf again.
_FLOAT32_BY_DESIGN |= {"nan_to_num"}


def _op_params():
    for spec in SPECS:
        if "float32" in spec.dtypes and spec.name not in _FLOAT32_BY_DESIGN | _COMPOSED_ROUNDINGS:
            yield pytest.param(spec, id=spec.name)


@pytest.mark.parametrize("spec", list(_op_params()))
def test_every_float32_op_runs_in_bfloat16_as_float32_rounded_or_refuses_clearly(spec):
    """Each op of the table with a float32 kernel, first case: its bfloat16
    result is the NumPy reference on the same (bfloat16-exact) values rounded
    to bfloat16, or the op refuses bfloat16 with an error naming it."""
    case = spec.cases[0]
    rng = np.random.default_rng(zlib.crc32(f"{spec.name}/{case.id}".encode()))
    arrays = [None if s is None else draw(d, s, "float32", rng) for d, s in zip(spec.domains, case.shapes)]
    if spec.prepare is not None:
        arrays = spec.prepare(arrays, case.attrs)
    arrays = [a if a is None or a.dtype != np.float32 else _bf16(a).astype(np.float32) for a in arrays]
    tensors = [None if a is None else eager.to_tensor(a.astype(BF16) if a.dtype == np.float32 else a)
               for a in arrays]
    if spec.check is not None:
        eager.seed(zlib.crc32(spec.name.encode()))
    try:
        got = spec.fn(*tensors, **case.attrs)
    except (TypeError, ValueError) as error:
        assert any(word in str(error) for word in _REFUSED_OK), f"{spec.name}: unclear refusal: {error}"
        return
    got = tuple(got) if isinstance(got, (list, tuple)) else (got,)
    want = spec.reference(*[None if a is None else a.copy() for a in arrays], **case.attrs)
    want = tuple(want) if isinstance(want, (list, tuple)) else (want,)
    for index, (g, w) in enumerate(zip(got, want)):
        if w is None:
            continue
        w = np.asarray(w)
        expected = BF16 if w.dtype == np.float32 else w.dtype
        assert g.numpy().dtype == expected, f"{spec.name} output {index}: {g.numpy().dtype} != {expected}"
        if spec.check is None:
            scale = 1.0 + (float(np.abs(w).max()) if w.size else 0.0)
            np.testing.assert_allclose(g.numpy().astype(np.float64), w.astype(expected).astype(np.float64),
                                       rtol=2.0 ** -7, atol=2.0 ** -7 * scale, err_msg=f"output {index}")


# -- amp ----------------------------------------------------------------------------

def test_is_bfloat16_supported_on_the_cpu_only():
    assert eager.amp.is_bfloat16_supported() is True
    assert eager.amp.is_bfloat16_supported("cpu") is True
    assert eager.amp.is_bfloat16_supported("gpu:0") is False


def test_auto_cast_bfloat16_runs_the_white_list_in_bfloat16():
    x = eager.randn([3, 4])
    w = eager.randn([4, 2])
    with eager.amp.auto_cast(dtype="bfloat16"):
        y = eager.matmul(x, w)
        z = y + eager.ones([3, 2])  # a float32 input: promoted to float32
    assert y.dtype == eager.bfloat16 and z.dtype == eager.float32
    want = _bf16(_bf16(x.numpy()).astype(np.float32) @ _bf16(w.numpy()).astype(np.float32))
    np.testing.assert_array_equal(y.numpy().view(np.uint16), want.view(np.uint16))
    with eager.amp.auto_cast(level="O2", dtype="bfloat16", use_promote=False):
        assert eager.exp(x).dtype == eager.bfloat16


def test_gradients_flow_back_to_float32_leaves_in_float32():
    w = eager.to_tensor(np.ones((2, 2), np.float32), stop_gradient=False)
    with eager.amp.auto_cast(dtype="bfloat16"):
        loss = eager.matmul(eager.ones([1, 2]), w).sum()
    loss.backward()
    assert w.grad.dtype == eager.float32 and w.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_decorate_o2_bfloat16_trains_with_float32_master_weights():
    eager.seed(3)
    net = eager.nn.Sequential(eager.nn.Linear(4, 8), eager.nn.LayerNorm(8), eager.nn.Linear(8, 1))
    opt = eager.optimizer.AdamW(learning_rate=0.01, parameters=net.parameters())
    net, opt = eager.amp.decorate(net, opt, level="O2", dtype="bfloat16")
    # Paddle 2.6 keeps layer norms in float32 for float16 only: here the LayerNorm is bfloat16 too
    assert net[0].weight.dtype == eager.bfloat16 and net[1].weight.dtype == eager.bfloat16
    scaler = eager.amp.GradScaler(init_loss_scaling=1024.0)
    x, target = eager.randn([16, 4]), eager.randn([16, 1])
    losses = []
    for _ in range(5):
        with eager.amp.auto_cast(level="O2", dtype="bfloat16"):
            loss = ((net(x).astype("float32") - target) ** 2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    assert net[0].weight.dtype == eager.bfloat16
    master = opt._master_weights[id(net[0].weight)]
    assert master.dtype == eager.float32
    np.testing.assert_array_equal(net[0].weight.numpy().view(np.uint16), _bf16(master.numpy()).view(np.uint16))


def test_grad_scaler_scales_a_bfloat16_loss_in_float32():
    scaler = eager.amp.GradScaler(init_loss_scaling=2.0 ** 20)
    scaled = scaler.scale(eager.to_tensor(3.0, dtype="bfloat16"))
    assert scaled.dtype == eager.float32 and float(scaled) == 3.0 * 2.0 ** 20


def test_layer_bfloat16_and_to_convert_floating_parameters():
    net = eager.nn.Linear(3, 2)
    weight = net.weight
    assert net.bfloat16() is net and net.weight is weight
    assert net.weight.dtype == eager.bfloat16 and net.bias.dtype == eager.bfloat16
    assert net(eager.ones([1, 3], dtype="bfloat16")).dtype == eager.bfloat16
    assert net.to(dtype="float32").weight.dtype == eager.float32
    table = eager.nn.Embedding(5, 3)
    table.bfloat16()
    assert table(eager.to_tensor([1, 4])).dtype == eager.bfloat16


# -- save / load ----------------------------------------------------------------------

def test_save_writes_safetensors_bf16_entries_and_load_restores_the_bits(tmp_path):
    values = eager.to_tensor([1.0, -2.5, 3.0e38], dtype="bfloat16")
    path = tmp_path / "w.pdparams"
    eager.save({"w": values, "f": eager.ones([2])}, str(path))
    raw = path.read_bytes()
    header = json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])
    entries = {key: info["dtype"] for key, info in header.items() if key != "__metadata__"}
    assert sorted(entries.values()) == ["BF16", "F32"]
    start, stop = header[next(k for k, v in entries.items() if v == "BF16")]["data_offsets"]
    data = raw[8 + int.from_bytes(raw[:8], "little"):]
    assert np.frombuffer(data[start:stop], "<u2").tolist() == values.numpy().view(np.uint16).tolist()
    loaded = eager.load(str(path))
    assert loaded["w"].dtype == eager.bfloat16
    np.testing.assert_array_equal(loaded["w"].numpy().view(np.uint16), values.numpy().view(np.uint16))
    buffer = io.BytesIO()
    eager.save(values, buffer)
    buffer.seek(0)
    assert eager.load(buffer, return_numpy=True).dtype == BF16


def test_load_reads_a_foreign_safetensors_file_with_bf16_entries(tmp_path):
    """A file another library wrote (no eager structure): BF16 entries, little-endian bits."""
    header = json.dumps({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(len(header).to_bytes(8, "little") + header + np.array([0x3F80, 0xC000], "<u2").tobytes())
    loaded = eager.load(str(path))
    assert loaded["w"].dtype == eager.bfloat16 and loaded["w"].tolist() == [1.0, -2.0]


# -- the GPU --------------------------------------------------------------------------

def test_the_gpu_refuses_bfloat16_clearly():
    x = eager.to_tensor([1.0], dtype="bfloat16")
    with pytest.raises(TypeError, match="bfloat16 tensors live on the CPU only"):
        x.cuda()
    with pytest.raises(TypeError, match="to_tensor: bfloat16 tensors live on the CPU only"):
        eager.to_tensor([1.0], dtype="bfloat16", place="gpu")
    eager.set_device("gpu")
    try:
        with pytest.raises(TypeError, match="ones: bfloat16 tensors live on the CPU only"):
            eager.ones([2], dtype="bfloat16")
    finally:
        eager.set_device("cpu")


def test_fake_cupy_has_no_bfloat16_as_cupy():
    cupy = sys.modules["cupy"]
    if not getattr(cupy, "__name__", "") == "fake_cupy":
        pytest.skip("real CuPy: its own refusal")
    with pytest.raises(TypeError, match="Unsupported dtype bfloat16"):
        cupy.asarray(np.ones(2, BF16))


# -- without ml_dtypes ----------------------------------------------------------------

@pytest.fixture
def without_ml_dtypes(monkeypatch):
    """As if ml_dtypes were not installed: its import fails and phi forgets the dtype."""
    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # `import ml_dtypes` raises ImportError
    monkeypatch.delitem(data_type_module._TO_NUMPY, DataType.BFLOAT16)
    monkeypatch.delitem(data_type_module._FROM_NUMPY, BF16)
    yield
    # monkeypatch puts both entries back


def test_without_ml_dtypes_every_bfloat16_request_says_to_install_it(without_ml_dtypes):
    hint = "pip install ml_dtypes"
    with pytest.raises(BFloat16Unavailable, match=hint):
        DataType.BFLOAT16.numpy_dtype
    with pytest.raises(TypeError, match=hint):
        eager.to_tensor([1.0], dtype="bfloat16")
    with pytest.raises(TypeError, match=hint):
        eager.ones([2]).astype("bfloat16")
    with pytest.raises(TypeError, match=f"auto_cast: argument 'dtype' is 'bfloat16'.*{hint}"):
        eager.amp.auto_cast(dtype="bfloat16")
    with pytest.raises(TypeError, match=f"decorate: .*{hint}"):
        eager.amp.decorate(eager.nn.Linear(2, 2), level="O2", dtype="bfloat16")
    net = eager.nn.Linear(2, 2)
    with pytest.raises(TypeError, match=hint):
        net.bfloat16()
    assert net.weight.dtype == eager.float32  # nothing changed
    assert eager.amp.is_bfloat16_supported() is False
    assert eager.ones([2]).dtype == eager.float32  # the rest works as before
