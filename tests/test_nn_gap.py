"""The Paddle 2.x nn functions and layers added for scripts that met an
AttributeError: softmax_with_cross_entropy, square_error_cost, log_loss,
sequence_mask, gumbel_softmax, softmax_, zeropad2d, Silu, gaussian_nll_loss,
multi_margin_loss, triplet_margin_with_distance_loss, max_unpool1d/2d/3d,
channel_shuffle, temporal_shift, gather_tree, hsigmoid_loss, their layers,
SpectralNorm, BeamSearchDecoder and dynamic_decode.

Each against a NumPy reference written from the formula (loops where the
formula is a loop), gradients by finite differences in float64, bad input by
error type and message (and the user's tensors unchanged by a failed call),
PyTorch as an extra cross-check where it has the same function.
"""
import contextlib
import doctest

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck

pytestmark = pytest.mark.usefixtures("device")   # each test on the CPU and on the GPU stand-in

rng = np.random.default_rng(26)


def value_checks(device):
    """Checks that read values (labels, indices, variances) run on the CPU always and on
    a GPU only in anomaly mode (no wait for the device otherwise): turn it on there."""
    return eager.autograd.detect_anomaly() if device == "gpu" else contextlib.nullcontext()


def t(array, grad=False):
    return eager.to_tensor(np.asarray(array), stop_gradient=not grad)


def close(got, want, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, "numpy") else got), want, rtol=rtol, atol=atol)


def np_log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def reduce(loss, reduction):
    return {"none": loss, "mean": np.mean(loss), "sum": np.sum(loss)}[reduction]


# -- softmax_with_cross_entropy, square_error_cost, log_loss -------------------------

@pytest.mark.parametrize("axis", [-1, 1])
def test_softmax_with_cross_entropy_hard_labels(axis):
    x = rng.normal(size=(3, 4, 5))
    classes = x.shape[axis]
    kept = list(x.shape)
    kept[axis] = 1
    labels = rng.integers(0, classes, size=kept)
    labels.flat[0] = -100                                       # ignored: loss 0
    log_p = np_log_softmax(x, axis)
    safe = np.where(labels == -100, 0, labels)
    want = -np.take_along_axis(log_p, safe, axis) * (labels != -100)
    loss, prob = F.softmax_with_cross_entropy(t(x), t(labels), axis=axis, return_softmax=True)
    assert loss.shape == kept
    close(loss, want)
    close(prob, np.exp(log_p))
    # the label may also come without the class axis
    close(F.softmax_with_cross_entropy(t(x), t(np.squeeze(labels, axis)), axis=axis), want)
    assert gradcheck(lambda a: F.softmax_with_cross_entropy(a, t(labels), axis=axis), (t(x, True),))


def test_softmax_with_cross_entropy_soft_labels():
    x = rng.normal(size=(4, 6))
    label = rng.random((4, 6))
    label /= label.sum(-1, keepdims=True)
    want = -(label * np_log_softmax(x, -1)).sum(-1, keepdims=True)
    close(F.softmax_with_cross_entropy(t(x), t(label), soft_label=True), want)
    assert gradcheck(lambda a: F.softmax_with_cross_entropy(a, t(label), soft_label=True), (t(x, True),))
    torch = pytest.importorskip("torch")
    ref = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(label), reduction="none")
    close(F.softmax_with_cross_entropy(t(x), t(label), soft_label=True)[:, 0], ref.numpy())


def test_softmax_with_cross_entropy_bad_input(device):
    x = t(rng.normal(size=(3, 4)))
    with pytest.raises(TypeError, match=r"softmax_with_cross_entropy: argument 'label' expected an integer"):
        F.softmax_with_cross_entropy(x, t(np.zeros((3, 1))))
    with pytest.raises(ValueError, match=r"softmax_with_cross_entropy: argument 'label' expected shape \[3\]"):
        F.softmax_with_cross_entropy(x, t(np.zeros((4, 1), dtype=np.int64)))
    with pytest.raises(ValueError, match=r"softmax_with_cross_entropy: argument 'label' expected the shape"):
        F.softmax_with_cross_entropy(x, t(np.zeros((3, 3))), soft_label=True)
    with pytest.raises(TypeError, match=r"softmax_with_cross_entropy: argument 'return_softmax' expected a bool"):
        F.softmax_with_cross_entropy(x, t(np.zeros((3, 1), dtype=np.int64)), return_softmax=1)
    with value_checks(device), pytest.raises(ValueError, match=r"softmax_with_cross_entropy: .*label"):
        F.softmax_with_cross_entropy(x, t(np.full((3, 1), 7, dtype=np.int64)))


def test_square_error_cost_and_log_loss():
    a, b = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    close(F.square_error_cost(t(a), t(b)), (a - b) ** 2)
    close(F.square_error_cost(t(a), t(b[:1])), (a - b[:1]) ** 2)        # broadcasts, as Paddle's subtract
    assert gradcheck(lambda x, y: F.square_error_cost(x, y), (t(a, True), t(b, True)))
    with pytest.raises(ValueError, match=r"square_error_cost: argument 'label' of shape \[2\] cannot be broadcast"):
        F.square_error_cost(t(a), t(np.ones(2)))
    with pytest.raises(TypeError, match=r"square_error_cost: argument 'label' expected the dtype"):
        F.square_error_cost(t(a), t(b.astype(np.int64)))

    p, z = rng.uniform(0.05, 0.95, size=(5, 1)), rng.integers(0, 2, size=(5, 1)).astype(np.float64)
    want = -z * np.log(p + 1e-4) - (1 - z) * np.log(1 - p + 1e-4)
    close(F.log_loss(t(p), t(z)), want)
    close(F.log_loss(t(p), t(z), epsilon=0.1), -z * np.log(p + 0.1) - (1 - z) * np.log(1.1 - p))
    assert gradcheck(lambda x: F.log_loss(x, t(z)), (t(p, True),))
    with pytest.raises(ValueError, match=r"log_loss: argument 'label' expected the shape of 'input'"):
        F.log_loss(t(p), t(z[:3]))


# -- sequence_mask, gumbel_softmax, softmax_, zeropad2d, Silu ----------------------------

def test_sequence_mask():
    lengths = np.array([[0, 3], [5, 1]])
    want = np.arange(5) < lengths[..., None]
    out = F.sequence_mask(t(lengths))
    assert out.dtype == eager.int64 and out.shape == [2, 2, 5]
    close(out, want.astype(np.int64))
    close(F.sequence_mask(t(lengths), maxlen=7, dtype="float32"), (np.arange(7) < lengths[..., None]).astype(np.float32))
    close(F.sequence_mask(t(lengths), maxlen=t(np.array([2])), dtype=eager.bool), np.arange(2) < lengths[..., None])
    close(F.sequence_mask(t(lengths), maxlen=-1), want.astype(np.int64))   # negative: the largest length, as Paddle
    with pytest.raises(TypeError, match=r"sequence_mask: argument 'x' expected an int32/int64/float32/float64 Tensor"):
        F.sequence_mask(t(np.array([True, False])))
    with pytest.raises(TypeError, match=r"sequence_mask: argument 'maxlen' expected an int"):
        F.sequence_mask(t(lengths), maxlen=2.5)


def test_gumbel_softmax_distribution_and_gradient():
    x = np.log(np.array([0.2, 0.3, 0.5]))
    eager.seed(5)
    soft = F.gumbel_softmax(t(np.tile(x, (4000, 1))), temperature=0.5)
    close(soft.sum(axis=-1), np.ones(4000), rtol=1e-12)
    # the argmax of a Gumbel-perturbed logit vector is a draw from softmax(x)
    frequencies = np.bincount(soft.numpy().argmax(-1), minlength=3) / 4000
    np.testing.assert_allclose(frequencies, [0.2, 0.3, 0.5], atol=0.03)

    w = rng.normal(size=(6, 3))
    grads = {}
    for hard in (False, True):
        eager.seed(11)
        logits = t(rng.normal(size=(6, 3)) * 0 + x, True)
        y = F.gumbel_softmax(logits, hard=hard, axis=1)
        if hard:
            values = y.numpy()
            assert set(np.unique(values)) <= {0.0, 1.0} and np.all(values.sum(1) == 1)
            assert np.all(values.argmax(1) == soft_argmax)
        else:
            soft_argmax = y.numpy().argmax(1)
        (y * t(w)).sum().backward()
        grads[hard] = logits.grad.numpy()
    close(grads[True], grads[False])                              # straight-through: the soft sample's gradient
    with pytest.raises(ValueError, match=r"gumbel_softmax: argument 'temperature' expected a number > 0"):
        F.gumbel_softmax(t(x), temperature=0)
    with pytest.raises(TypeError, match=r"gumbel_softmax: argument 'hard' expected a bool"):
        F.gumbel_softmax(t(x), hard="yes")


def test_softmax_inplace():
    x = rng.normal(size=(3, 4))
    y = t(x)
    assert F.softmax_(y, axis=0) is y
    close(y, np.exp(np_log_softmax(x, 0)))
    leaf = t(x, True)
    w = rng.normal(size=(3, 4))

    def through_inplace(a):
        b = a * 1.0
        F.softmax_(b)
        return b * t(w)
    assert gradcheck(through_inplace, (leaf,))
    with pytest.raises(Exception, match="softmax_"):
        F.softmax_(leaf)                                          # a leaf that requires grad
    z = t(x)
    with pytest.raises(ValueError, match=r"softmax_: argument 'axis' expected an int in \[-2, 2\)"):
        F.softmax_(z, axis=2)
    with pytest.raises(TypeError, match=r"softmax_: argument 'dtype' expected None or x's dtype"):
        F.softmax_(z, dtype="float32")
    close(z, x)                                                   # failed calls left z as it was


def test_zeropad2d_and_silu():
    x = rng.normal(size=(1, 2, 3, 3))
    close(F.zeropad2d(t(x), [1, 0, 2, 1]), np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 0)]))
    close(F.zeropad2d(t(x), 1), np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)]))
    nhwc = x.transpose(0, 2, 3, 1)
    close(F.zeropad2d(t(nhwc), [1, 0, 2, 1], data_format="NHWC"), np.pad(nhwc, [(0, 0), (2, 1), (1, 0), (0, 0)]))
    assert gradcheck(lambda a: F.zeropad2d(a, [0, 1, 1, 0]), (t(x, True),))
    with pytest.raises(ValueError, match=r"zeropad2d: argument 'padding' expected a non-negative int or 4"):
        F.zeropad2d(t(x), [1, 2])
    with pytest.raises(ValueError, match=r"zeropad2d: argument 'x' expected a 4-d tensor"):
        F.zeropad2d(t(x[0]), 1)
    v = rng.normal(size=5)
    close(eager.nn.Silu()(t(v)), v / (1 + np.exp(-v)))
    assert isinstance(eager.nn.Silu(), eager.nn.Layer)


# -- gaussian_nll_loss, multi_margin_loss, triplet_margin_with_distance_loss ---------------

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_gaussian_nll_loss(reduction):
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    var = rng.uniform(0.1, 2.0, size=(4, 3))
    var[0, 0] = 1e-9                                              # clamped to epsilon

    def want(v, full=False, eps=1e-6):
        v = np.maximum(v, eps)
        loss = 0.5 * (np.log(v) + (x - y) ** 2 / v) + (0.5 * np.log(2 * np.pi) if full else 0.0)
        return reduce(loss, reduction)

    close(F.gaussian_nll_loss(t(x), t(y), t(var), reduction=reduction), want(var))
    close(F.gaussian_nll_loss(t(x), t(y), t(var), full=True, epsilon=0.01, reduction=reduction),
          want(var, True, 0.01))
    close(F.gaussian_nll_loss(t(x), t(y), t(var[:, :1]), reduction=reduction), want(np.broadcast_to(var[:, :1], x.shape)))
    close(F.gaussian_nll_loss(t(x), t(y), t(var[:, 0]), reduction=reduction), want(np.broadcast_to(var[:, :1], x.shape)))
    var[0, 0] = 0.5
    assert gradcheck(lambda a, b, v: F.gaussian_nll_loss(a, b, v, reduction=reduction),
                     (t(x, True), t(y, True), t(var, True)))
    layer = eager.nn.GaussianNLLLoss(full=True, reduction=reduction)
    close(layer(t(x), t(y), t(var)), want(var, True))
    torch = pytest.importorskip("torch")
    ref = torch.nn.functional.gaussian_nll_loss(torch.tensor(x), torch.tensor(y), torch.tensor(var), full=True,
                                                reduction=reduction)
    close(F.gaussian_nll_loss(t(x), t(y), t(var), full=True, reduction=reduction), ref.numpy())


def test_gaussian_nll_loss_bad_input(device):
    x = t(np.zeros((2, 3)))
    with value_checks(device), pytest.raises(ValueError, match=r"gaussian_nll_loss: argument 'variance' expected non-"):
        F.gaussian_nll_loss(x, x, t(-np.ones((2, 3))))
    with pytest.raises(ValueError, match=r"gaussian_nll_loss: argument 'variance' expected shape \[2, 3\]"):
        F.gaussian_nll_loss(x, x, t(np.ones((3, 2))))
    with pytest.raises(ValueError, match=r"gaussian_nll_loss: argument 'label' expected shape \[2, 3\]"):
        F.gaussian_nll_loss(x, t(np.zeros(3)), t(np.ones((2, 3))))
    with pytest.raises(ValueError, match=r"gaussian_nll_loss: argument 'variance' expected a float32 or float64"):
        F.gaussian_nll_loss(x, x, t(np.ones((2, 3), np.int64)))
    with pytest.raises(TypeError, match=r"GaussianNLLLoss: argument 'epsilon' expected a number"):
        eager.nn.GaussianNLLLoss(epsilon="0")


@pytest.mark.parametrize("p", [1, 2, 3])
def test_multi_margin_loss(p):
    x = rng.normal(size=(5, 4))
    labels = rng.integers(0, 4, size=5)
    weight = rng.uniform(0.5, 2.0, size=4)
    margin = 0.7
    want = np.zeros(5)
    for i in range(5):                                            # the formula, term by term
        y = labels[i]
        for j in range(4):
            if j != y:
                want[i] += weight[y] * max(0.0, margin - x[i, y] + x[i, j]) ** p / 4
    for reduction in ("mean", "sum", "none"):
        got = F.multi_margin_loss(t(x), t(labels), p=p, margin=margin, weight=t(weight), reduction=reduction)
        close(got, reduce(want, reduction))
    assert gradcheck(lambda a: F.multi_margin_loss(a, t(labels), p=p, margin=margin, weight=t(weight)),
                     (t(x, True),))
    close(eager.nn.MultiMarginLoss(p=p, margin=margin, weight=t(weight), reduction="sum")(t(x), t(labels)),
          want.sum())
    if p > 2:
        return                                                    # PyTorch's takes p = 1 or 2 only
    torch = pytest.importorskip("torch")
    ref = torch.nn.functional.multi_margin_loss(torch.tensor(x), torch.tensor(labels), p=p, margin=margin,
                                                weight=torch.tensor(weight), reduction="none")
    close(F.multi_margin_loss(t(x), t(labels), p=p, margin=margin, weight=t(weight), reduction="none"), ref.numpy())


def test_multi_margin_loss_bad_input(device):
    x = t(np.zeros((2, 3)))
    with value_checks(device), pytest.raises(ValueError, match=r"multi_margin_loss: argument 'label' expected class "):
        F.multi_margin_loss(x, t(np.array([0, 3])))
    with pytest.raises(ValueError, match=r"multi_margin_loss: argument 'p' expected a positive number"):
        F.multi_margin_loss(x, t(np.array([0, 1])), p=0)
    with pytest.raises(ValueError, match=r"multi_margin_loss: argument 'label' expected shape \[2\]"):
        F.multi_margin_loss(x, t(np.array([[0], [1]])))
    with pytest.raises(ValueError, match=r"multi_margin_loss: argument 'weight' expected paddle.float64\[3\]"):
        F.multi_margin_loss(x, t(np.array([0, 1])), weight=t(np.ones(2)))
    with pytest.raises(TypeError, match=r"multi_margin_loss: argument 'label' expected an integer Tensor"):
        F.multi_margin_loss(x, t(np.array([0.0, 1.0])))


def test_triplet_margin_with_distance_loss():
    a, pos, neg = (rng.normal(size=(4, 3)) for _ in range(3))

    def dist(u, v):
        return np.sqrt(((u - v + 1e-6) ** 2).sum(-1))

    for swap in (False, True):
        far = np.minimum(dist(a, neg), dist(pos, neg)) if swap else dist(a, neg)
        want = np.maximum(dist(a, pos) - far + 0.5, 0)
        close(F.triplet_margin_with_distance_loss(t(a), t(pos), t(neg), margin=0.5, swap=swap, reduction="none"),
              want)
        # the default distance is triplet_margin_loss's p = 2 one
        close(F.triplet_margin_with_distance_loss(t(a), t(pos), t(neg), margin=0.5, swap=swap),
              F.triplet_margin_loss(t(a), t(pos), t(neg), margin=0.5, swap=swap).numpy())

    def l1(u, v):
        return (u - v).abs().sum(-1)

    want = np.maximum(np.abs(a - pos).sum(-1) - np.abs(a - neg).sum(-1) + 1.0, 0).sum()
    close(F.triplet_margin_with_distance_loss(t(a), t(pos), t(neg), distance_function=l1, reduction="sum"), want)
    layer = eager.nn.TripletMarginWithDistanceLoss(distance_function=l1, reduction="sum")
    close(layer(t(a), t(pos), t(neg)), want)
    assert gradcheck(lambda x, y, z: F.triplet_margin_with_distance_loss(x, y, z, swap=True),
                     (t(a, True), t(pos, True), t(neg, True)))
    with pytest.raises(ValueError, match=r"triplet_margin_with_distance_loss: argument 'margin' expected a number >= 0"):
        F.triplet_margin_with_distance_loss(t(a), t(pos), t(neg), margin=-1.0)
    with pytest.raises(TypeError, match=r"triplet_margin_with_distance_loss: argument 'distance_function' expected a"):
        F.triplet_margin_with_distance_loss(t(a), t(pos), t(neg), distance_function="l2")
    with pytest.raises(ValueError, match=r"triplet_margin_with_distance_loss: argument 'negative' expected the shape"):
        F.triplet_margin_with_distance_loss(t(a), t(pos), t(neg[:2]))


# -- max_unpool, channel_shuffle, temporal_shift, gather_tree ----------------------------------

def unpool_reference(values, indices, out_spatial):
    n, c = values.shape[:2]
    out = np.zeros((n, c, int(np.prod(out_spatial))))
    for i in range(n):
        for j in range(c):
            for v, k in zip(values[i, j].ravel(), indices[i, j].ravel()):
                out[i, j, k] = v
    return out.reshape((n, c) + tuple(out_spatial))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_max_unpool(k):
    spatial = (6, 4, 4)[:k]
    x = rng.normal(size=(2, 3) + spatial)
    pool = getattr(F, f"max_pool{k}d")
    unpool = getattr(F, f"max_unpool{k}d")
    out, mask = pool(t(x), 2, return_mask=True)
    got = unpool(out, mask, 2)
    assert got.shape == [2, 3, *spatial]
    close(got, unpool_reference(out.numpy(), mask.numpy(), spatial))
    # every pooled maximum is back at its place, and nothing else is non-zero
    assert np.count_nonzero(got.numpy()) == out.numpy().size
    np.testing.assert_array_equal(got.numpy()[got.numpy() != 0], x[got.numpy() != 0])
    bigger = [s + 1 for s in spatial]
    close(unpool(out, mask, 2, output_size=bigger), unpool_reference(out.numpy(), mask.numpy(), bigger))
    layer = getattr(eager.nn, f"MaxUnPool{k}D")(2, output_size=[2, 3] + bigger)
    close(layer(out, mask), unpool_reference(out.numpy(), mask.numpy(), bigger))
    assert gradcheck(lambda v: unpool(v, mask, 2), (t(out.numpy(), True),))


def test_max_unpool_bad_input(device):
    out, mask = F.max_pool2d(t(rng.normal(size=(1, 1, 4, 4))), 2, return_mask=True)
    before = out.numpy().copy()
    with value_checks(device), pytest.raises(ValueError, match=r"max_unpool2d: argument 'indices' expected flat ind"):
        F.max_unpool2d(out, mask, 1)                             # a 2x2 output cannot hold indices up to 15
    with pytest.raises(ValueError, match=r"max_unpool2d: argument 'indices' expected an int32 or int64 tensor"):
        F.max_unpool2d(out, mask.astype("float32"), 2)
    with pytest.raises(ValueError, match=r"max_unpool2d: argument 'data_format' expected 'NCHW'"):
        F.max_unpool2d(out, mask, 2, data_format="NHWC")
    with pytest.raises(ValueError, match=r"max_unpool2d: argument 'output_size' \[9, 9\] must lie within one stride"):
        F.max_unpool2d(out, mask, 2, output_size=[9, 9])
    with pytest.raises(ValueError, match=r"max_unpool1d: argument 'x' expected a 3-d tensor"):
        F.max_unpool1d(out, mask, 2)
    close(out, before)


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_channel_shuffle(data_format):
    x = rng.normal(size=(2, 6, 3, 2))
    groups = 3
    perm = [i * 2 + j for j in range(2) for i in range(3)]       # out channel j*groups + i <- in channel i*2 + j
    want = x[:, perm]
    if data_format == "NHWC":
        x, want = x.transpose(0, 2, 3, 1), want.transpose(0, 2, 3, 1)
    close(F.channel_shuffle(t(x), groups, data_format), want)
    close(eager.nn.ChannelShuffle(groups, data_format)(t(x)), want)
    assert gradcheck(lambda a: F.channel_shuffle(a, groups, data_format), (t(x, True),))
    with pytest.raises(ValueError, match=r"channel_shuffle: argument 'groups' \(4\) must divide the 6 channels"):
        F.channel_shuffle(t(x), 4, data_format)


def temporal_shift_reference(x, seg_num, ratio):
    nt, c, h, w = x.shape
    v = x.reshape(nt // seg_num, seg_num, c, h, w)
    out = np.zeros_like(v)
    c1, c2 = int(c * ratio), int(c * 2 * ratio)
    for frame in range(seg_num):
        if frame > 0:
            out[:, frame, :c1] = v[:, frame - 1, :c1]
        if frame < seg_num - 1:
            out[:, frame, c1:c2] = v[:, frame + 1, c1:c2]
        out[:, frame, c2:] = v[:, frame, c2:]
    return out.reshape(x.shape)


@pytest.mark.parametrize("ratio", [0.25, 0.2, 0.49])
def test_temporal_shift(ratio):
    x = rng.normal(size=(6, 8, 2, 2))                            # 2 clips of 3 frames
    want = temporal_shift_reference(x, 3, ratio)
    close(F.temporal_shift(t(x), 3, ratio), want)
    nhwc = x.transpose(0, 2, 3, 1)
    close(F.temporal_shift(t(nhwc), 3, ratio, data_format="NHWC"), want.transpose(0, 2, 3, 1))
    assert gradcheck(lambda a: F.temporal_shift(a, 3, ratio), (t(x, True),))
    with pytest.raises(ValueError, match=r"temporal_shift: argument 'seg_num' \(4\) must divide"):
        F.temporal_shift(t(x), 4)
    with pytest.raises(ValueError, match=r"temporal_shift: argument 'shift_ratio' expected a number in \(0, 0.5\)"):
        F.temporal_shift(t(x), 3, 0.7)


def test_gather_tree(device):
    steps, batch, beam = 5, 3, 4
    ids = rng.integers(0, 50, size=(steps, batch, beam))
    parents = rng.integers(0, beam, size=(steps, batch, beam))
    want = np.empty_like(ids)
    for b in range(batch):                                        # trace each beam back, step by step
        for k in range(beam):
            want[steps - 1, b, k] = ids[steps - 1, b, k]
            parent = parents[steps - 1, b, k]
            for step in range(steps - 2, -1, -1):
                want[step, b, k] = ids[step, b, parent]
                parent = parents[step, b, parent]
    got = F.gather_tree(t(ids), t(parents))
    assert got.dtype == eager.int64
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(F.gather_tree(t(ids[:1]), t(parents[:1])).numpy(), ids[:1])
    bad = parents.copy()
    bad[2, 1, 0] = beam
    with value_checks(device), pytest.raises(ValueError, match=r"gather_tree: argument 'parents' expected values in"):
        F.gather_tree(t(ids), t(bad))
    with pytest.raises(ValueError, match=r"gather_tree: argument 'parents' expected the shape and dtype of 'ids'"):
        F.gather_tree(t(ids), t(parents[:2]))
    with pytest.raises(TypeError, match=r"gather_tree: argument 'ids' expected an integer Tensor"):
        F.gather_tree(t(ids.astype(np.float32)), t(parents))


def test_new_names_are_exported_and_examples_run():
    for name in ("softmax_with_cross_entropy", "square_error_cost", "log_loss", "sequence_mask", "gumbel_softmax",
                 "softmax_", "zeropad2d", "gaussian_nll_loss", "multi_margin_loss",
                 "triplet_margin_with_distance_loss", "max_unpool1d", "max_unpool2d", "max_unpool3d",
                 "channel_shuffle", "temporal_shift", "gather_tree", "hsigmoid_loss"):
        assert name in F.__all__ and callable(getattr(F, name)), name
    for name in ("Silu", "ZeroPad2D", "GaussianNLLLoss", "MultiMarginLoss", "TripletMarginWithDistanceLoss",
                 "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D", "ChannelShuffle", "SpectralNorm", "HSigmoidLoss"):
        assert name in eager.nn.__all__ and issubclass(getattr(eager.nn, name), eager.nn.Layer), name
    assert "BeamSearchDecoder" in eager.nn.__all__ and "dynamic_decode" in eager.nn.__all__
    from eager.nn import decode, loss as loss_layers, norm as norm_layers, pooling as pooling_layers
    from eager.nn.functional import extension, loss, pooling
    for module in (loss, extension, pooling, loss_layers, pooling_layers, norm_layers, decode):
        result = doctest.testmod(module, extraglobs={"eager": eager, "np": np},
                                 optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, report=False)
        assert result.failed == 0 and result.attempted > 0, module.__name__


# -- SpectralNorm ------------------------------------------------------------------------

def spectral_norm_reference(weight, u, v, dim, iters, eps):
    """(weight / sigma, u, v, sigma) by the power iteration written out."""
    matrix = np.moveaxis(weight, dim, 0).reshape(weight.shape[dim], -1)
    for _ in range(iters):
        v = matrix.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = matrix @ v
        u = u / (np.linalg.norm(u) + eps)
    sigma = u @ matrix @ v
    return weight / sigma, u, v, sigma


@pytest.mark.parametrize("dim, iters", [(0, 1), (1, 3), (2, 0)])
def test_spectral_norm(dim, iters):
    shape = [3, 4, 2]
    layer = eager.nn.SpectralNorm(shape, dim=dim, power_iters=iters, eps=1e-12, dtype="float64")
    u0, v0 = layer.weight_u.numpy().copy(), layer.weight_v.numpy().copy()
    assert u0.shape == (shape[dim],) and v0.shape == (24 // shape[dim],)
    weight = rng.normal(size=shape)
    want, u, v, sigma = spectral_norm_reference(weight, u0, v0, dim, iters, 1e-12)
    w = t(weight, True)
    out = layer(w)
    close(out, want, rtol=1e-9)
    close(layer.weight_u, u0)                                      # not written back, as Paddle
    assert layer.weight_u.stop_gradient and layer.weight_v.stop_gradient
    assert sorted(layer.state_dict()) == ["weight_u", "weight_v"]
    # Paddle's gradient holds u and v fixed: g / sigma - sum(g * W) / sigma^2 * u v^T (moved back to dim)
    g = rng.normal(size=shape)
    (out * t(g)).sum().backward()
    outer = np.moveaxis(np.outer(u, v).reshape([shape[dim]] + [d for i, d in enumerate(shape) if i != dim]), 0, dim)
    close(w.grad, g / sigma - (g * weight).sum() / sigma ** 2 * outer, rtol=1e-9)
    if iters == 0:                                                 # then u, v do not depend on W at all
        assert gradcheck(lambda a: layer(a), (t(weight, True),))
    # many iterations: sigma is the largest singular value, so the result's is 1
    many = eager.nn.SpectralNorm(shape, dim=dim, power_iters=60, dtype="float64")
    top = np.linalg.svd(np.moveaxis(many(t(weight)).numpy(), dim, 0).reshape(shape[dim], -1), compute_uv=False)[0]
    np.testing.assert_allclose(top, 1.0, rtol=1e-6)


def test_spectral_norm_bad_input():
    with pytest.raises(ValueError, match=r"SpectralNorm: argument 'weight_shape' expected a list of at least 2"):
        eager.nn.SpectralNorm([4])
    with pytest.raises(ValueError, match=r"SpectralNorm: argument 'dim' expected an int in \[-2, 2\)"):
        eager.nn.SpectralNorm([2, 3], dim=2)
    with pytest.raises(ValueError, match=r"SpectralNorm: argument 'power_iters' expected an int >= 0"):
        eager.nn.SpectralNorm([2, 3], power_iters=-1)
    layer = eager.nn.SpectralNorm([2, 3])
    with pytest.raises(ValueError, match=r"SpectralNorm.*argument 'weight' expected shape \[2, 3\]"):
        layer(t(np.ones((3, 2), np.float32)))
    with pytest.raises(TypeError, match=r"SpectralNorm.*argument 'weight' expected dtype paddle.float32"):
        layer(t(np.ones((2, 3))))


# -- hsigmoid_loss -----------------------------------------------------------------------

def softplus(p):
    return np.logaddexp(0.0, p)


def hsigmoid_reference(x, labels, num_classes, weight, bias, table=None, code=None):
    """Per sample, the path's binary cross entropies; log(2) per padding slot (Paddle's kernel)."""
    rows = x.shape[0]
    slots = table.shape[1] if table is not None else max((num_classes - 1).bit_length(), 1)
    out = np.zeros((rows, 1))
    for i in range(rows):
        if table is None:
            c = int(labels[i]) + num_classes                      # the default tree's code
            path = [((c >> (j + 1)) - 1, (c >> j) & 1) for j in range(c.bit_length() - 1)]
        else:
            path = []
            for node, bit in zip(table[i], code[i]):
                if node < 0:
                    break
                path.append((node, bit))
        for node, bit in path:
            p = np.clip(x[i] @ weight[node] + (bias[node, 0] if bias is not None else 0.0), -40, 40)
            out[i, 0] += softplus(p) - bit * p
        out[i, 0] += (slots - len(path)) * np.log(2.0)
    return out


@pytest.mark.parametrize("num_classes", [2, 5, 8])
def test_hsigmoid_loss_default_tree(num_classes):
    x = rng.normal(size=(6, 3))
    labels = rng.integers(0, num_classes, size=6)
    weight, bias = rng.normal(size=(num_classes - 1, 3)), rng.normal(size=(num_classes - 1, 1))
    want = hsigmoid_reference(x, labels, num_classes, weight, bias)
    close(F.hsigmoid_loss(t(x), t(labels), num_classes, t(weight), t(bias)), want)
    close(F.hsigmoid_loss(t(x), t(labels[:, None]), num_classes, t(weight)),
          hsigmoid_reference(x, labels, num_classes, weight, None))
    assert gradcheck(lambda a, w, b: F.hsigmoid_loss(a, t(labels), num_classes, w, b),
                     (t(x, True), t(weight, True), t(bias, True)))
    layer = eager.nn.HSigmoidLoss(3, num_classes)
    layer.weight.set_value(weight.astype(np.float32))
    layer.bias.set_value(bias.astype(np.float32))
    close(layer(t(x.astype(np.float32)), t(labels)), want, rtol=1e-5, atol=1e-5)


def test_hsigmoid_loss_custom_tree():
    x = rng.normal(size=(3, 4))
    table = np.array([[0, 1, 3], [0, 2, -1], [0, 1, 4]])
    code = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    weight, bias = rng.normal(size=(5, 4)), rng.normal(size=(5, 1))
    labels = np.array([0, 1, 2])
    want = hsigmoid_reference(x, labels, 5, weight, bias, table, code)
    close(F.hsigmoid_loss(t(x), t(labels), 5, t(weight), t(bias), t(table), t(code)), want)
    assert gradcheck(lambda a, w: F.hsigmoid_loss(a, t(labels), 5, w, t(bias), t(table), t(code)),
                     (t(x, True), t(weight, True)))
    layer = eager.nn.HSigmoidLoss(4, 5, is_custom=True)
    assert layer.weight.shape == [5, 4] and layer.bias.shape == [5, 1]


def test_hsigmoid_loss_bad_input(device):
    x, w = t(np.zeros((2, 3))), t(np.zeros((3, 3)))
    with value_checks(device), pytest.raises(ValueError, match=r"hsigmoid_loss: argument 'label' expected classes in"):
        F.hsigmoid_loss(x, t(np.array([0, 4])), 4, w)
    with pytest.raises(ValueError, match=r"hsigmoid_loss: argument 'weight' expected shape \[3, 3\]"):
        F.hsigmoid_loss(x, t(np.array([0, 1])), 4, t(np.zeros((2, 3))))
    with pytest.raises(ValueError, match=r"hsigmoid_loss: argument 'num_classes' expected an int >= 2"):
        F.hsigmoid_loss(x, t(np.array([0, 0])), 1, t(np.zeros((0, 3))))
    with pytest.raises(TypeError, match=r"hsigmoid_loss: argument 'path_code' expected a Tensor, got NoneType"):
        F.hsigmoid_loss(x, t(np.array([0, 1])), 4, w, None, t(np.zeros((2, 2), np.int64)), None)
    with value_checks(device), pytest.raises(ValueError, match=r"hsigmoid_loss: argument 'path_table' expected node"):
        F.hsigmoid_loss(x, t(np.array([0, 1])), 4, w, None, t(np.array([[0, 3], [1, -1]])), t(np.ones((2, 2), np.int64)))


# -- BeamSearchDecoder and dynamic_decode ---------------------------------------------------

class ToyCell(eager.nn.Layer):
    """state' = tanh(state + E[token]); logits = state' @ W (float64, so the reference can match)."""

    def __init__(self, embedding, projection):
        super().__init__()
        self.embedding, self.projection = t(embedding), t(projection)

    def forward(self, inputs, states):
        new = eager.tanh(states + eager.gather(self.embedding, inputs.reshape([-1])))
        return eager.matmul(new, self.projection), new


def beam_search_reference(embedding, projection, init, start, end, beam, max_step_num):
    """Per batch entry, the hypotheses by the algorithm written out with lists; all entries
    step together until every hypothesis is finished or max_step_num is passed."""
    vocab = projection.shape[1]
    hyps = [[dict(score=0.0 if k == 0 else -1e9, tokens=[], state=init[b], done=False, length=0, token=start)
             for k in range(beam)] for b in range(init.shape[0])]
    step = 0
    while True:
        for b, beams in enumerate(hyps):
            candidates = []
            for k, h in enumerate(beams):
                state = np.tanh(h["state"] + embedding[h["token"]])
                logp = np_log_softmax(state @ projection, -1)
                if h["done"]:
                    logp = np.full(vocab, -1e9)
                    logp[end] = 0.0
                for v in range(vocab):
                    candidates.append((h["score"] + logp[v], k * vocab + v, k, v, state))
            candidates.sort(key=lambda c: (-c[0], c[1]))
            hyps[b] = [dict(score=s, tokens=beams[k]["tokens"] + [v], state=state, token=v,
                            done=beams[k]["done"] or v == end, length=beams[k]["length"] + (not beams[k]["done"]))
                       for s, _, k, v, state in candidates[:beam]]
        step += 1
        if all(h["done"] for beams in hyps for h in beams) or (max_step_num is not None and step > max_step_num):
            return hyps


@pytest.mark.parametrize("beam, max_step_num", [(3, 6), (1, 4), (4, None)])
def test_beam_search_decoder(beam, max_step_num):
    vocab, hidden, batch = 6, 5, 2
    local = np.random.default_rng(beam)
    embedding, projection = local.normal(size=(vocab, hidden)), local.normal(size=(hidden, vocab)) * 2
    init = local.normal(size=(batch, hidden))
    decoder = eager.nn.BeamSearchDecoder(ToyCell(embedding, projection), start_token=0, end_token=1, beam_size=beam)
    limit = 20 if max_step_num is None else max_step_num
    ids, states, lengths = eager.nn.dynamic_decode(decoder, inits=t(init), max_step_num=limit, return_length=True)
    hyps = beam_search_reference(embedding, projection, init, 0, 1, beam, limit)
    steps = len(hyps[0][0]["tokens"])
    assert ids.shape == [batch, steps, beam]
    for b in range(batch):
        for k in range(beam):
            assert ids.numpy()[b, :, k].tolist() == hyps[b][k]["tokens"]
            assert lengths.numpy()[b, k] == hyps[b][k]["length"]
            assert states.finished.numpy()[b, k] == hyps[b][k]["done"]
            np.testing.assert_allclose(states.log_probs.numpy()[b, k], hyps[b][k]["score"], rtol=1e-9)
            np.testing.assert_allclose(states.cell_states.numpy()[b, k], hyps[b][k]["state"], rtol=1e-9)
    time_major, _ = eager.nn.dynamic_decode(decoder, inits=t(init), max_step_num=limit, output_time_major=True)
    np.testing.assert_array_equal(time_major.numpy(), ids.numpy().transpose(1, 0, 2))


def test_beam_search_decoder_embedding_output_fn_and_errors():
    cell = eager.nn.GRUCell(4, 8)
    embed, project = eager.nn.Embedding(7, 4), eager.nn.Linear(8, 7)
    decoder = eager.nn.BeamSearchDecoder(cell, 0, 6, 3, embedding_fn=embed, output_fn=project)
    ids, states = eager.nn.dynamic_decode(decoder, inits=cell.get_initial_states(eager.zeros([2, 4])),
                                          max_step_num=5)
    assert ids.shape[0] == 2 and ids.shape[2] == 3 and ids.shape[1] <= 6
    assert ids.dtype == eager.int64 and ((ids.numpy() >= 0) & (ids.numpy() < 7)).all()
    tiled = eager.nn.BeamSearchDecoder.tile_beam_merge_with_batch(t(np.array([[1.0], [2.0]])), 2)
    close(tiled, np.array([[1.0], [1.0], [2.0], [2.0]]))
    with pytest.raises(ValueError, match=r"BeamSearchDecoder: argument 'beam_size' expected a positive int"):
        eager.nn.BeamSearchDecoder(cell, 0, 6, 0)
    with pytest.raises(TypeError, match=r"BeamSearchDecoder: argument 'end_token' expected a non-negative int"):
        eager.nn.BeamSearchDecoder(cell, 0, -1, 2)
    with pytest.raises(TypeError, match=r"dynamic_decode: argument 'decoder' expected a Decoder"):
        eager.nn.dynamic_decode(cell, inits=eager.zeros([2, 8]))
    with pytest.raises(ValueError, match=r"dynamic_decode: argument 'max_step_num' expected None or an int >= 0"):
        eager.nn.dynamic_decode(decoder, inits=eager.zeros([2, 8]), max_step_num=-1)
