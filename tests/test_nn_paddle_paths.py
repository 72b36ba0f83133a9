"""nn gaps found by running Paddle 2.x scripts: names reached by Paddle's module
paths (paddle.nn.loss.MSELoss, paddle.framework.ParamAttr, paddle.nn.clip.clip_by_norm),
edit_distance, and the Layer and Parameter behaviour those scripts rely on.

Values against NumPy references written from the formula (a plain Levenshtein
loop for edit_distance), gradients by finite differences in float64, bad input
by error type and message.
"""
import contextlib
import doctest

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck
from eager.nn import clip
from eager.nn.functional import levenshtein as levenshtein_module, vision

pytestmark = pytest.mark.usefixtures("device")   # each test on the CPU and on the GPU stand-in

rng = np.random.default_rng(4)


def value_checks(device):
    """Checks that read values run on the CPU always, on a GPU in anomaly mode only."""
    return eager.autograd.detect_anomaly() if device == "gpu" else contextlib.nullcontext()


def t(array, grad=False):
    return eager.to_tensor(np.asarray(array), stop_gradient=not grad)


# -- module paths ------------------------------------------------------------------------

def test_loss_layers_are_reached_through_nn_loss():
    assert eager.nn.loss.MSELoss is eager.nn.MSELoss
    assert eager.nn.loss.CrossEntropyLoss is eager.nn.CrossEntropyLoss
    out = eager.nn.loss.MSELoss()(t([1.5], True), t([1.75]))
    np.testing.assert_allclose(out.numpy(), 0.0625)
    logits, label = rng.normal(size=(3, 4)), np.array([0, 3, 1])
    want = np.mean([np.log(np.exp(row).sum()) - row[k] for row, k in zip(logits, label)])
    np.testing.assert_allclose(eager.nn.loss.CrossEntropyLoss()(t(logits), t(label)).numpy(), want, rtol=1e-12)


def test_framework_lists_paddles_names_from_upper_layers():
    assert eager.framework.ParamAttr is eager.ParamAttr
    assert eager.framework.no_grad is eager.no_grad and eager.framework.seed is eager.seed
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        eager.framework.nothing_here
    attr = eager.framework.ParamAttr(initializer=eager.nn.initializer.Constant(0.5))
    np.testing.assert_array_equal(eager.nn.Linear(2, 3, weight_attr=attr).weight.numpy(), np.full((2, 3), 0.5))


# -- clip_by_norm -----------------------------------------------------------------------

@pytest.mark.parametrize("scale", [0.1, 10.0])
def test_clip_by_norm_scales_down_to_the_bound_only(scale):
    x = rng.normal(size=(3, 4)) * scale
    norm = np.sqrt((x ** 2).sum())
    want = x * 1.0 / max(norm, 1.0)
    np.testing.assert_allclose(eager.nn.clip.clip_by_norm(t(x), max_norm=1.0).numpy(), want, rtol=1e-12)


def test_clip_by_norm_gradient_and_errors():
    x = rng.normal(size=(2, 3)) * 3
    assert gradcheck(lambda a: eager.nn.clip.clip_by_norm(a, 1.5), (t(x, True),))
    with pytest.raises(ValueError, match="clip_by_norm: argument 'max_norm' expected a positive"):
        eager.nn.clip.clip_by_norm(t(x), 0.0)
    with pytest.raises(TypeError, match="clip_by_norm: argument 'x' expected a floating-point Tensor"):
        eager.nn.clip.clip_by_norm(t([1, 2]), 1.0)
    assert "clip_by_norm" not in eager.nn.__all__      # Paddle offers it under paddle.nn.clip only


# -- edit_distance ----------------------------------------------------------------------

def levenshtein(a, b):
    d = np.arange(len(b) + 1, dtype=float)
    for i, x in enumerate(a, 1):
        prev, d = d, np.empty_like(d)
        d[0] = i
        for j, y in enumerate(b, 1):
            d[j] = min(prev[j] + 1, d[j - 1] + 1, prev[j - 1] + (x != y))
    return d[-1]


@pytest.mark.parametrize("normalized", [False, True])
def test_edit_distance_matches_a_levenshtein_loop(normalized):
    hyp, ref = rng.integers(0, 4, size=(6, 5)), rng.integers(0, 4, size=(6, 7))
    hyp_len, ref_len = rng.integers(0, 6, size=6), rng.integers(1, 8, size=6)
    count, dist = F.edit_distance(t(hyp), t(ref), normalized, None, t(hyp_len), t(ref_len))
    want = [levenshtein(h[:m], r[:n]) / (n if normalized else 1)
            for h, r, m, n in zip(hyp, ref, hyp_len, ref_len)]
    assert count.dtype == eager.int64 and count.numpy().tolist() == [6]
    assert dist.dtype == eager.float32 and dist.shape == [6, 1]
    np.testing.assert_allclose(dist.numpy().ravel(), want, rtol=1e-6)


def test_edit_distance_whole_rows_ignored_tokens_and_the_loss_module_path():
    hyp, ref = rng.integers(0, 3, size=(4, 6)), rng.integers(0, 3, size=(4, 3))
    _, dist = eager.nn.functional.loss.edit_distance(t(hyp), t(ref), normalized=False)
    np.testing.assert_allclose(dist.numpy().ravel(), [levenshtein(h, r) for h, r in zip(hyp, ref)])
    _, dist = F.edit_distance(t(hyp), t(ref), normalized=False, ignored_tokens=[0])
    np.testing.assert_allclose(dist.numpy().ravel(), [levenshtein(h[h != 0], r[r != 0]) for h, r in zip(hyp, ref)])


def test_edit_distance_rejects_bad_input(device):
    hyp, ref = t([[1, 2]]), t([[1, 2, 3]])
    with pytest.raises(TypeError, match="edit_distance: argument 'input' expected an integer Tensor"):
        F.edit_distance(t([[1.0]]), ref)
    with pytest.raises(ValueError, match="edit_distance: argument 'label' expected 1 rows"):
        F.edit_distance(hyp, t([[1], [2]]))
    with pytest.raises(ValueError, match="'input_length' and 'label_length' go together"):
        F.edit_distance(hyp, ref, input_length=t([2]))
    with value_checks(device), pytest.raises(ValueError, match="'label_length' expected lengths in \\[0, 3\\]"):
        F.edit_distance(hyp, ref, input_length=t([2]), label_length=t([4]))
    with value_checks(device), pytest.raises(ValueError, match="a reference \\(label\\) is empty"):
        F.edit_distance(hyp, ref, input_length=t([2]), label_length=t([0]))
    with pytest.raises(TypeError, match="argument 'ignored_tokens' expected a list of ints"):
        F.edit_distance(hyp, ref, ignored_tokens=[1.5])


# -- Layer and Parameter ----------------------------------------------------------------

def test_parameters_made_under_lazy_guard_initialize_to_their_values():
    with eager.LazyGuard():
        lazy = eager.nn.Linear(3, 2)
    eager.seed(7)
    for p in lazy.parameters():
        assert p.initialize() is None
    eager.seed(7)
    plain = eager.nn.Linear(3, 2)
    np.testing.assert_array_equal(lazy.weight.numpy(), plain.weight.numpy())


def test_conv_and_batch_norm_reprs_leave_out_the_defaults_as_paddle():
    assert repr(eager.nn.Conv2D(3, 5, 3)) == "Conv2D(3, 5, kernel_size=[3, 3], data_format=NCHW)"
    assert repr(eager.nn.Conv1D(2, 3, 3, stride=2, dilation=2)) == \
        "Conv1D(2, 3, kernel_size=[3], stride=[2], dilation=[2], data_format=NCL)"
    assert repr(eager.nn.Conv2DTranspose(2, 3, 3)) == "Conv2DTranspose(2, 3, kernel_size=[3, 3], data_format=NCHW)"
    assert repr(eager.nn.BatchNorm2D(5)) == "BatchNorm2D(num_features=5, momentum=0.9, epsilon=1e-05)"
    assert repr(eager.nn.BatchNorm1D(5)).endswith("epsilon=1e-05, data_format=NCL)")


# -- interpolate(mode='area') -----------------------------------------------------------

def area_reference(x, sizes):
    """Adaptive average pooling of the spatial axes (after N, C): window i of an axis
    of length n spans [floor(i * n / out), ceil((i + 1) * n / out))."""
    out = x
    for axis, size in enumerate(sizes, 2):
        n = out.shape[axis]
        parts = [out.take(range(i * n // size, -(-(i + 1) * n // size)), axis).mean(axis, keepdims=True)
                 for i in range(size)]
        out = np.concatenate(parts, axis)
    return out


@pytest.mark.parametrize("shape, sizes", [((2, 3, 7), [3]), ((1, 2, 6, 5), [4, 2]), ((1, 1, 4, 5, 3), [2, 3, 2])])
def test_interpolate_area_is_adaptive_average_pooling(shape, sizes):
    x = rng.normal(size=shape)
    np.testing.assert_allclose(F.interpolate(t(x), size=sizes, mode="area").numpy(), area_reference(x, sizes),
                               rtol=1e-12)
    assert gradcheck(lambda a: F.interpolate(a, size=sizes, mode="area"), (t(x, True),))


def test_interpolate_area_channel_last_scale_factor_and_the_layer():
    x = rng.normal(size=(1, 6, 4, 2))                      # NHWC
    got = F.interpolate(t(x), scale_factor=0.5, mode="area", data_format="NHWC").numpy()
    np.testing.assert_allclose(got, area_reference(x.transpose(0, 3, 1, 2), [3, 2]).transpose(0, 2, 3, 1),
                               rtol=1e-12)
    x = rng.normal(size=(1, 2, 6))
    np.testing.assert_allclose(eager.nn.Upsample(size=[4], mode="area", data_format="NCW")(t(x)).numpy(),
                               area_reference(x, [4]), rtol=1e-12)


def test_the_docstring_examples_run():
    for module in (clip, levenshtein_module, vision):
        result = doctest.testmod(module, extraglobs={"eager": eager, "np": np, "net": eager.nn.Linear(2, 2)},
                                 optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, report=False)
        assert result.failed == 0 and result.attempted > 0, module.__name__
    runner = doctest.DocTestRunner()
    for method in (eager.nn.Parameter.initialize, eager.nn.Layer.create_variable):
        for test in doctest.DocTestFinder().find(method, method.__name__, globs={"eager": eager}):
            runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


# -- LSTM proj_size ---------------------------------------------------------------------

def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_direction_reference(cell, x, h, c, lengths, reverse):
    """One direction of a projected LSTM over x [B, T, I], written per step."""
    w_ih, w_hh, b_ih, b_hh, w_ho = (p.numpy() for p in (cell.weight_ih, cell.weight_hh, cell.bias_ih,
                                                         cell.bias_hh, cell.weight_ho))
    steps = x.shape[1]
    outs = np.zeros((x.shape[0], steps, w_ho.shape[1]))
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        gates = x[:, t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh
        i, f, g, o = np.split(gates, 4, axis=1)
        new_c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        new_h = (sigmoid(o) * np.tanh(new_c)) @ w_ho
        valid = (t < lengths)[:, None]
        h, c = np.where(valid, new_h, h), np.where(valid, new_c, c)
        outs[:, t] = new_h * valid              # LSTM outputs are zeros past a sequence's length
    return outs, h, c


def test_lstm_with_proj_size_matches_a_per_step_reference():
    eager.set_default_dtype("float64")
    try:
        lstm = eager.nn.LSTM(3, 5, num_layers=2, direction="bidirect", proj_size=2)
    finally:
        eager.set_default_dtype("float32")
    x, lengths = rng.normal(size=(2, 4, 3)), np.array([4, 2])
    h0, c0 = rng.normal(size=(4, 2, 2)), rng.normal(size=(4, 2, 5))
    out, (h, c) = lstm(t(x), (t(h0), t(c0)), sequence_length=t(lengths))
    layer_in, hs, cs = x, [], []
    for layer in range(2):
        parts = []
        for d, cell in enumerate((lstm[layer].cell_fw, lstm[layer].cell_bw)):
            k = 2 * layer + d
            o, hk, ck = lstm_direction_reference(cell, layer_in, h0[k], c0[k], lengths, d == 1)
            parts.append(o)
            hs.append(hk)
            cs.append(ck)
        layer_in = np.concatenate(parts, -1)
    np.testing.assert_allclose(out.numpy(), layer_in, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), np.stack(hs), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c.numpy(), np.stack(cs), rtol=1e-10, atol=1e-12)
    assert out.shape == [2, 4, 4] and h.shape == [4, 2, 2] and c.shape == [4, 2, 5]


def test_lstm_cell_with_proj_size_gradient_and_errors():
    eager.set_default_dtype("float64")
    try:
        cell = eager.nn.LSTMCell(3, 4, proj_size=2)
    finally:
        eager.set_default_dtype("float32")
    assert cell.weight_hh.shape == [16, 2] and cell.weight_ho.shape == [4, 2] and cell.state_shape == ((2,), (4,))
    x, h, c = rng.normal(size=(2, 3)), rng.normal(size=(2, 2)), rng.normal(size=(2, 4))
    assert gradcheck(lambda a, b, d: cell(a, (b, d))[1][0], (t(x, True), t(h, True), t(c, True)))
    with pytest.raises(ValueError, match="LSTMCell: argument 'proj_size' expected an int in \\[0, hidden_size = 4\\)"):
        eager.nn.LSTMCell(3, 4, proj_size=4)
    with pytest.raises(TypeError, match="LSTM: argument 'proj_size' expected an int"):
        eager.nn.LSTM(3, 4, proj_size=1.5)
    with pytest.raises(ValueError, match="states\\[0\\]"):
        cell(t(x), (t(c), t(c)))                  # h must be proj_size wide


# -- Layer.create_variable / create_tensor ----------------------------------------------

def test_create_variable_is_a_placeholder_that_assign_fills():
    layer = eager.nn.Linear(3, 2)
    keep = layer.create_variable(name="out", persistable=True)
    assert keep.shape == [] and keep.dtype == eager.float32 and keep.persistable
    assert repr(keep) == "Tensor(Not initialized)" and not keep.get_tensor()._is_initialized()  # Paddle's
    assert not layer.create_tensor().persistable and layer.create_tensor().stop_gradient
    with pytest.raises(ValueError, match="numpy\\(\\): the tensor holds no data"):
        keep.numpy()
    assert keep.name == f"{layer.full_name()}.out"
    assert layer.create_tensor().name.startswith(f"{layer.full_name()}._generated_var")
    assert layer.create_variable(dtype="float64").dtype == eager.float64
    x = rng.normal(size=(4, 3)).astype("float32")
    out = eager.assign(layer(t(x)), keep)
    assert out is keep and keep.shape == [4, 2]
    want = x @ layer.weight.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(keep.numpy(), want, rtol=1e-6)
    keep.sum().backward()                       # gradients reach through the filled placeholder
    np.testing.assert_allclose(layer.bias.grad.numpy(), [4.0, 4.0])
    eager.assign(layer(t(x)), keep)             # once filled, later writes keep its shape
    with pytest.raises(ValueError, match="assign: argument 'output' expected x's shape"):
        eager.assign(layer(t(x[:2])), keep)
    with pytest.raises(TypeError, match="Linear.create_variable: argument 'name' expected a str"):
        layer.create_variable(name=3)


def test_assign_resizes_an_output_of_another_shape_or_dtype_as_paddle():
    out = eager.zeros([3])
    assert eager.assign(t([1.0, 2.0]), out) is out and out.shape == [2]
    out = eager.zeros([0])
    assert eager.assign(t(np.array([1.0, 2.0], "float64")), out) is out and out.dtype == eager.float64
    trained = eager.to_tensor([0.0, 0.0, 0.0], stop_gradient=False)  # gradients recorded for it: not replaced
    with pytest.raises(ValueError, match="does not resize it"):
        eager.assign(t([1.0, 2.0]), trained)


# -- nn.clip's SelectedRows helpers -----------------------------------------------------

def sparse_gradient(ids, rows=12, width=3):
    emb = eager.nn.Embedding(rows, width, sparse=True)
    weights = rng.normal(size=(len(ids), width))
    (emb(t(ids)) * t(weights.astype("float32"))).sum().backward()
    return emb.weight.grad, weights


def test_merge_selected_rows_sums_repeated_rows_in_order():
    ids = [5, 2, 5, 9, 2, 5]
    grad, weights = sparse_gradient(ids)
    merged = clip.merge_selected_rows(grad)
    assert [int(r) for r in merged.impl.rows] == [2, 5, 9] and merged.impl.height == 12
    want = {r: sum(w for i, w in zip(ids, weights) if i == r) for r in (2, 5, 9)}
    # float32 sums of up to three rows: a GPU's scatter-add may add them in another order
    np.testing.assert_allclose(clip.get_tensor_from_selected_rows(merged).numpy(),
                               np.stack([want[r] for r in (2, 5, 9)]), rtol=1e-5, atol=1e-6)


def test_get_tensor_from_selected_rows_copies_the_stored_block():
    grad, weights = sparse_gradient([4, 1, 4])
    block = clip.get_tensor_from_selected_rows(grad)
    assert block.shape == [3, 3]
    np.testing.assert_allclose(block.numpy(), weights, rtol=1e-6)
    with pytest.raises(TypeError, match="get_tensor_from_selected_rows: argument 'x' expected a SelectedRows"):
        clip.get_tensor_from_selected_rows(t([1.0]))
    with pytest.raises(TypeError, match="merge_selected_rows: argument 'x' expected a SelectedRows"):
        clip.merge_selected_rows([1.0])
