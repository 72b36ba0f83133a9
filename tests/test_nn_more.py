"""The nn-more functionals and layers: lp_pool1d/2d, fractional_max_pool2d/3d,
multi_label_margin_loss, adaptive_log_softmax_with_loss, margin_cross_entropy,
class_center_sample, rnnt_loss, flash_attention/flash_attn_unpadded and
sparse_attention. Values against NumPy references written from the
definitions (loops), gradients by float64 finite differences, errors by type
and message, docstring examples; on the CPU and the GPU stand-in."""
import contextlib
import doctest
import math

import numpy as np
import pytest

import eager
import eager.nn.functional as F
from eager.autograd import gradcheck, gradgradcheck
from eager.nn.functional.flash_attention import flash_attention, flash_attn_unpadded

pytestmark = pytest.mark.usefixtures("device")

rng = np.random.default_rng(7)


def value_checks(device):
    """Checks that read values run on the CPU always, on the GPU in anomaly mode only."""
    return eager.autograd.detect_anomaly() if device == "gpu" else contextlib.nullcontext()


def leaf(a):
    return eager.to_tensor(a, stop_gradient=False)


def log_softmax(a, axis=-1):
    shifted = a - a.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


# -- lp pooling -------------------------------------------------------------------

def ref_lp_pool(x, p, kernel, stride, pads):
    """x [N, C, *spatial] (1-d or 2-d), pads a (before, after) pair per axis; floor mode."""
    k = len(kernel)
    padded = np.pad(x, [(0, 0), (0, 0)] + list(pads))
    outs = [(padded.shape[2 + a] - kernel[a]) // stride[a] + 1 for a in range(k)]
    out = np.zeros(x.shape[:2] + tuple(outs))
    for index in np.ndindex(*outs):
        window = tuple(slice(i * s, i * s + kk) for i, s, kk in zip(index, stride, kernel))
        out[(Ellipsis,) + index] = (padded[(Ellipsis,) + window] ** p).reshape(x.shape[:2] + (-1,)).sum(-1) ** (1 / p)
    return out


@pytest.mark.parametrize("p", [1, 2, 3.5])
def test_lp_pool2d_matches_the_window_norm(p):
    x = rng.uniform(0.1, 2.0, (2, 3, 7, 6))
    out = F.lp_pool2d(eager.to_tensor(x), p, kernel_size=[3, 2], stride=[2, 1], padding=[1, 0])
    np.testing.assert_allclose(out.numpy(), ref_lp_pool(x, p, (3, 2), (2, 1), [(1, 1), (0, 0)]), rtol=1e-10)
    layer = eager.nn.LPPool2D(p, [3, 2], [2, 1], [1, 0])
    np.testing.assert_allclose(layer(eager.to_tensor(x)).numpy(), out.numpy(), rtol=1e-12)


def test_lp_pool1d_channel_last_and_infinity():
    x = rng.uniform(0.1, 2.0, (2, 9, 3))                              # NLC
    out = F.lp_pool1d(eager.to_tensor(x), 2, 3, data_format="NLC")
    want = ref_lp_pool(x.transpose(0, 2, 1), 2, (3,), (3,), [(0, 0)]).transpose(0, 2, 1)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(eager.nn.LPPool1D(2, 3, data_format="NLC")(eager.to_tensor(x)).numpy(), want,
                               rtol=1e-10)
    inf = F.lp_pool1d(eager.to_tensor(x), math.inf, 3, data_format="NLC")
    np.testing.assert_array_equal(inf.numpy(), x.reshape(2, 3, 3, 3).max(axis=2))


def test_lp_pool_gradients():
    x = leaf(rng.uniform(0.5, 2.0, (1, 2, 5, 4)))
    assert gradcheck(lambda t: F.lp_pool2d(t, 3, 2, stride=1, padding=1), (x,))
    y = leaf(rng.uniform(0.5, 2.0, (2, 2, 7)))
    assert gradcheck(lambda t: F.lp_pool1d(t, 1.5, 3, stride=2), (y,))


def test_lp_pool_errors():
    x = eager.ones([1, 1, 4, 4])
    with pytest.raises(ValueError, match=r"lp_pool2d: argument 'norm_type' expected a non-zero number, got 0.0"):
        F.lp_pool2d(x, 0, 2)
    with pytest.raises(TypeError, match=r"lp_pool2d: argument 'norm_type' expected a number, got str"):
        F.lp_pool2d(x, "2", 2)
    with pytest.raises(ValueError, match=r"lp_pool1d: argument 'x' expected a 3-d tensor"):
        F.lp_pool1d(x, 2, 2)


# -- fractional max pooling ---------------------------------------------------------

def ref_windows(size, out, kernel, u):
    """Windows by Paddle's rule, one at a time in float32 scalars: u scaled to keep the
    last disjoint window inside; start = int((i + u) alpha) - int(u alpha)."""
    f = np.float32
    if kernel is None:
        alpha = f(size) / f(out)
        base = size // out
        u = f(u) * min(f(base + 2) / alpha - f(1), f(size + 1 - base) / alpha - f(out - 1))
    else:
        alpha = f(size - kernel) / f(out - 1) if out > 1 else f(0)
        u = f(u)
    result = []
    for i in range(out):
        start = int((f(i) + u) * alpha) - int(u * alpha)
        end = start + kernel if kernel is not None else int((f(i + 1) + u) * alpha) - int(u * alpha)
        start = min(max(start, 0), size - 1)
        result.append((start, min(max(end, start + 1), size)))
    return result


def ref_fractional(x, outs, kernel, u):
    """(out, mask) of a 2-d or 3-d fractional max pooling, by loops (first maximum in window order)."""
    spatial = x.shape[2:]
    wins = [ref_windows(n, o, k, u) for n, o, k in zip(spatial, outs, kernel)]
    out = np.zeros(x.shape[:2] + tuple(outs))
    mask = np.zeros(x.shape[:2] + tuple(outs), dtype=np.int64)
    for n, c in np.ndindex(*x.shape[:2]):
        for index in np.ndindex(*outs):
            best, where = -np.inf, None
            ranges = [range(*wins[a][i]) for a, i in enumerate(index)]
            for position in np.ndindex(*[len(r) for r in ranges]):
                point = tuple(r[j] for r, j in zip(ranges, position))
                if x[(n, c) + point] > best:
                    best, where = x[(n, c) + point], point
            out[(n, c) + index] = best
            mask[(n, c) + index] = np.ravel_multi_index(where, spatial)
    return out, mask


def test_fractional_max_pool_paddle_example():
    x = eager.to_tensor([[[[2.0, 4.0, 3.0, 1.0, 5.0, 2.0, 3.0]]]])
    out, mask = F.fractional_max_pool2d(x, [1, 5], random_u=0.3, return_mask=True)
    assert out.tolist() == [[[[2.0, 4.0, 1.0, 5.0, 3.0]]]]
    assert mask.tolist() == [[[[0, 1, 3, 4, 6]]]] and mask.dtype == eager.int32


@pytest.mark.parametrize("shape, outs, kernel, u", [
    ((2, 3, 9, 7), (4, 5), (None, None), 0.37),
    ((1, 2, 10, 8), (4, 3), (3, 2), 0.81),
    ((1, 2, 5, 6, 7), (2, 3, 4), (None, None, None), 0.55),
    ((1, 1, 6, 6, 5), (3, 2, 2), (2, 3, 2), 0.12),
])
def test_fractional_max_pool_matches_the_loops(shape, outs, kernel, u):
    x = rng.standard_normal(shape)
    fn = F.fractional_max_pool2d if len(shape) == 4 else F.fractional_max_pool3d
    kernel_size = None if kernel[0] is None else list(kernel)
    out, mask = fn(eager.to_tensor(x), list(outs), kernel_size, random_u=u, return_mask=True)
    want, want_mask = ref_fractional(x, outs, kernel, u)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(mask.numpy(), want_mask)
    layer = (eager.nn.FractionalMaxPool2D if len(shape) == 4 else eager.nn.FractionalMaxPool3D)(
        list(outs), kernel_size, random_u=u)
    np.testing.assert_array_equal(layer(eager.to_tensor(x)).numpy(), want)


def test_fractional_max_pool_gradient_goes_to_the_mask():
    x = leaf(rng.standard_normal((1, 2, 7, 6)))
    assert gradcheck(lambda t: F.fractional_max_pool2d(t, [3, 4], random_u=0.6), (x,))
    out, mask = F.fractional_max_pool2d(x, [3, 4], random_u=0.6, return_mask=True)
    out.sum().backward()
    want = np.zeros((1, 2, 42))
    for c in range(2):
        np.add.at(want[0, c], mask.numpy()[0, c].reshape(-1), 1.0)
    np.testing.assert_array_equal(x.grad.numpy().reshape(1, 2, 42), want)


def test_fractional_max_pool_random_u_follows_the_seed():
    x = eager.to_tensor(rng.standard_normal((1, 1, 11, 11)))
    eager.seed(5)
    first = F.fractional_max_pool2d(x, 4, return_mask=True)[1].numpy()
    eager.seed(5)
    np.testing.assert_array_equal(F.fractional_max_pool2d(x, 4, return_mask=True)[1].numpy(), first)


def test_fractional_max_pool_errors():
    x = eager.ones([1, 1, 5, 5])
    with pytest.raises(ValueError, match=r"fractional_max_pool2d: argument 'random_u' expected a float in \(0, 1\), "
                                         r"got 1.5"):
        F.fractional_max_pool2d(x, 2, random_u=1.5)
    with pytest.raises(ValueError, match=r"argument 'output_size' \[6, 6\] may not exceed the input's spatial size"):
        F.fractional_max_pool2d(x, 6, random_u=0.5)
    with pytest.raises(ValueError, match=r"the input's spatial size \[5, 5\] must be at least output_size - 1 \+ "
                                         r"kernel_size = \[6, 6\]"):
        F.fractional_max_pool2d(x, 4, kernel_size=3, random_u=0.5)
    with pytest.raises(ValueError, match=r"fractional_max_pool3d: argument 'x' expected a 5-d tensor"):
        F.fractional_max_pool3d(x, 2, random_u=0.5)


# -- multi_label_margin_loss ------------------------------------------------------------

def ref_multi_label_margin(x, y):
    rows, classes = x.shape
    out = np.zeros(rows)
    for i in range(rows):
        targets = []
        for label in y[i]:
            if label < 0:
                break
            targets.append(label)
        for j in targets:
            for k in range(classes):
                if k not in targets:
                    out[i] += max(0.0, 1.0 - (x[i, j] - x[i, k]))
        out[i] /= classes
    return out


def test_multi_label_margin_loss_matches_the_loop():
    x = rng.standard_normal((4, 5))
    y = np.array([[3, 0, -1, 1, 2], [1, 1, 4, -1, -1], [-1, 2, 3, 0, 0], [0, 1, 2, 3, 4]])
    want = ref_multi_label_margin(x, y)
    for reduction, expect in (("none", want), ("sum", want.sum()), ("mean", want.mean())):
        got = F.multi_label_margin_loss(eager.to_tensor(x), eager.to_tensor(y), reduction=reduction)
        np.testing.assert_allclose(got.numpy(), expect, rtol=1e-12)
    layer = eager.nn.MultiLabelMarginLoss(reduction="sum")
    np.testing.assert_allclose(layer(eager.to_tensor(x), eager.to_tensor(y)).numpy(), want.sum(), rtol=1e-12)
    xt = leaf(x)
    assert gradcheck(lambda t: F.multi_label_margin_loss(t, eager.to_tensor(y)), (xt,))


def test_multi_label_margin_loss_against_torch():
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((3, 6))
    y = np.array([[5, 2, -1, 0, 0, 0], [0, 1, 2, 3, 4, 5], [-1, 0, 0, 0, 0, 0]])
    want = torch.nn.functional.multilabel_margin_loss(torch.tensor(x), torch.tensor(y), reduction="none").numpy()
    np.testing.assert_allclose(F.multi_label_margin_loss(eager.to_tensor(x), eager.to_tensor(y), "none").numpy(),
                               want, rtol=1e-12)


def test_multi_label_margin_loss_errors(device):
    x = eager.ones([2, 3])
    with value_checks(device), pytest.raises(ValueError, match=r"multi_label_margin_loss: argument 'label' expected class indices in "
                                         r"\[0, 3\) or -1, got values in \[-2, 1\]"):
        F.multi_label_margin_loss(x, eager.to_tensor([[0, 1, -2], [0, 0, 0]]))
    with pytest.raises(ValueError, match=r"argument 'label' expected the shape of input \[2, 3\], got \[2\]"):
        F.multi_label_margin_loss(x, eager.to_tensor([0, 1]))
    with pytest.raises(TypeError, match=r"multi_label_margin_loss: argument 'label' expected an integer Tensor, got paddle.float32"):
        F.multi_label_margin_loss(x, x)


# -- adaptive log softmax ---------------------------------------------------------------

def ref_adaptive(x, head_w, head_b, tails, cutoffs):
    """The full [N, n_classes] log-probability table, written densely."""
    head = x @ head_w + (0 if head_b is None else head_b)
    head_lp = log_softmax(head)
    shortlist = cutoffs[0]
    table = [head_lp[:, :shortlist]]
    for c, (w1, w2) in enumerate(tails):
        table.append(head_lp[:, shortlist + c:shortlist + c + 1] + log_softmax(x @ w1 @ w2))
    return np.concatenate(table, axis=1)


def test_adaptive_log_softmax_matches_the_dense_table():
    x = rng.standard_normal((6, 8))
    cutoffs = [3, 5, 9]
    head_w, head_b = rng.standard_normal((8, 5)), rng.standard_normal(5)
    tails = [(rng.standard_normal((8, 2)), rng.standard_normal((2, 2))),
             (rng.standard_normal((8, 1)), rng.standard_normal((1, 4)))]
    label = np.array([0, 2, 3, 4, 5, 8])
    table = ref_adaptive(x, head_w, head_b, tails, cutoffs)
    np.testing.assert_allclose(np.exp(table).sum(1), 1.0, rtol=1e-12)
    out, loss = F.adaptive_log_softmax_with_loss(
        eager.to_tensor(x), eager.to_tensor(label), eager.to_tensor(head_w),
        [[eager.to_tensor(a), eager.to_tensor(b)] for a, b in tails], cutoffs, eager.to_tensor(head_b))
    want = table[np.arange(6), label]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(loss.numpy(), -want.mean(), rtol=1e-12)
    leaves = [leaf(x), leaf(head_w), leaf(tails[1][0]), leaf(tails[1][1])]
    assert gradcheck(lambda xx, hw, a, b: F.adaptive_log_softmax_with_loss(
        xx, eager.to_tensor(label), hw, [[eager.to_tensor(tails[0][0]), eager.to_tensor(tails[0][1])], [a, b]],
        cutoffs)[1], tuple(leaves))


def test_adaptive_log_softmax_layer():
    eager.seed(3)
    layer = eager.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[2, 6], div_value=2.0, head_bias=True)
    assert layer.head_weight.shape == [8, 4] and layer.head_bias.shape == [4]
    assert [p.shape for p in layer.tail_weights[0]] == [[8, 4], [4, 4]]
    assert [p.shape for p in layer.tail_weights[1]] == [[8, 2], [2, 4]]
    x = rng.standard_normal((5, 8)).astype("float32")
    label = np.array([0, 1, 2, 7, 9])
    out, loss = layer(eager.to_tensor(x), eager.to_tensor(label))
    table = layer.log_prob(eager.to_tensor(x)).numpy()
    np.testing.assert_allclose(out.numpy(), table[np.arange(5), label], rtol=1e-5)
    np.testing.assert_allclose(np.exp(table).sum(1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(layer.predict(eager.to_tensor(x)).numpy(), table.argmax(1))
    loss.backward()
    assert layer.head_weight.grad is not None and layer.tail_weights[1][1].grad is not None


def test_adaptive_log_softmax_errors(device):
    x, w = eager.ones([2, 4]), eager.ones([4, 3])
    with value_checks(device), pytest.raises(ValueError, match=r"adaptive_log_softmax_with_loss: argument 'label' expected class indices "
                                         r"in \[0, 6\), got values in \[0, 6\]"):
        F.adaptive_log_softmax_with_loss(x, eager.to_tensor([0, 6]), w, [[eager.ones([4, 1]), eager.ones([1, 4])]],
                                         [2, 6])
    with pytest.raises(ValueError, match=r"argument 'head_weight' expected paddle.float32\[4, 3\], got paddle.float32\[4, 2\]"):
        F.adaptive_log_softmax_with_loss(x, eager.to_tensor([0, 1]), eager.ones([4, 2]),
                                         [[eager.ones([4, 1]), eager.ones([1, 4])]], [2, 6])
    with pytest.raises(ValueError, match=r"AdaptiveLogSoftmaxWithLoss: argument 'cutoffs' expected increasing"):
        eager.nn.AdaptiveLogSoftmaxWithLoss(4, 6, cutoffs=[3, 2])


# -- margin cross entropy and class center sampling ------------------------------------

def ref_margin_ce(cos, label, m1, m2, m3, s):
    logits = cos.copy()
    rows = np.arange(len(label))
    logits[rows, label] = np.cos(m1 * np.arccos(cos[rows, label]) + m2) - m3
    lp = log_softmax(s * logits)
    return -lp[rows, label], np.exp(lp)


@pytest.mark.parametrize("margins", [(1.0, 0.5, 0.0), (1.0, 0.0, 0.35), (1.35, 0.25, 0.1)])
def test_margin_cross_entropy_matches_the_formula(margins):
    cos = rng.uniform(-0.9, 0.9, (5, 7))
    label = np.array([0, 3, 6, 2, 2])
    want, softmax = ref_margin_ce(cos, label, *margins, 8.0)
    loss, got_softmax = F.margin_cross_entropy(eager.to_tensor(cos), eager.to_tensor(label), *margins, scale=8.0,
                                               return_softmax=True, reduction=None)
    assert loss.shape == [5, 1]
    np.testing.assert_allclose(loss.numpy()[:, 0], want, rtol=1e-10)
    np.testing.assert_allclose(got_softmax.numpy(), softmax, rtol=1e-10)
    mean = F.margin_cross_entropy(eager.to_tensor(cos), eager.to_tensor(label[:, None]), *margins, scale=8.0)
    np.testing.assert_allclose(mean.numpy(), want.mean(), rtol=1e-10)
    x = leaf(cos)
    assert gradcheck(lambda t: F.margin_cross_entropy(t, eager.to_tensor(label), *margins, scale=8.0,
                                                      reduction="sum"), (x,))


def test_margin_cross_entropy_errors(device):
    cos = eager.to_tensor([[0.1, 0.2]])
    with pytest.raises(ValueError, match=r"margin_cross_entropy: argument 'group' expected None or False"):
        F.margin_cross_entropy(cos, eager.to_tensor([0]), group=object())
    with value_checks(device), pytest.raises(ValueError, match=r"argument 'label' expected class indices in \[0, 2\), got values in "
                                         r"\[2, 2\]"):
        F.margin_cross_entropy(cos, eager.to_tensor([2]))


def test_class_center_sample_properties():
    label = np.array([11, 5, 1, 3, 12, 2, 15, 19, 18, 19])
    eager.seed(2023)
    remapped, centers = F.class_center_sample(eager.to_tensor(label), 20, 12)
    remapped, centers = remapped.numpy(), centers.numpy()
    positives = np.unique(label)
    assert centers.shape == (12,) and len(set(centers.tolist())) == 12
    np.testing.assert_array_equal(centers[:positives.size], positives)          # the positives lead, in order
    assert ((centers >= 0) & (centers < 20)).all()
    np.testing.assert_array_equal(centers[remapped], label)
    eager.seed(2023)
    np.testing.assert_array_equal(F.class_center_sample(eager.to_tensor(label), 20, 12)[1].numpy(), centers)
    small_remapped, small = F.class_center_sample(eager.to_tensor(label), 20, 3)   # more positives than samples
    np.testing.assert_array_equal(small.numpy(), positives)
    with pytest.raises(ValueError, match=r"class_center_sample: argument 'num_samples' \(21\) may not exceed "
                                         r"num_classes \(20\)"):
        F.class_center_sample(eager.to_tensor(label), 20, 21)


# -- rnnt loss ---------------------------------------------------------------------------

def ref_rnnt(acts, labels, t_lens, u_lens, blank):
    """-log P by the alpha recursion, one cell at a time."""
    lp = log_softmax(acts)
    losses = []
    for b in range(acts.shape[0]):
        T, U = t_lens[b], u_lens[b]
        alpha = np.full((T, U + 1), -np.inf)
        alpha[0, 0] = 0.0
        for t in range(T):
            for u in range(U + 1):
                if t == 0 and u == 0:
                    continue
                terms = []
                if t > 0:
                    terms.append(alpha[t - 1, u] + lp[b, t - 1, u, blank])
                if u > 0:
                    terms.append(alpha[t, u - 1] + lp[b, t, u - 1, labels[b, u - 1]])
                alpha[t, u] = np.logaddexp.reduce(terms)
        losses.append(-(alpha[T - 1, U] + lp[b, T - 1, U, blank]))
    return np.array(losses)


def test_rnnt_loss_warp_transducer_value():
    acts = np.array([[[[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.1, 0.1], [0.1, 0.1, 0.2, 0.8, 0.1]],
                      [[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.2, 0.1, 0.1], [0.7, 0.1, 0.2, 0.1, 0.1]]]])
    loss = F.rnnt_loss(eager.to_tensor(acts), eager.to_tensor([[1, 2]], dtype="int32"), eager.to_tensor([2]),
                       eager.to_tensor([2]), fastemit_lambda=0.0, reduction="sum")
    np.testing.assert_allclose(loss.numpy(), 4.495666773367462, rtol=1e-10)   # warp-transducer's test value


# Paddle's own warprnnt test case (normalized log-probabilities, T = 4, U = 2) and its gradient
PADDLE_ACTS = [[[[-1.40493705, -0.68276381, -1.38870219], [-1.25243963, -1.03148021, -1.02802034],
                 [-1.19624572, -0.93786934, -1.18347801]],
                [[-1.03417513, -0.84465814, -1.53815849], [-0.96884241, -1.01432347, -1.35545407],
                 [-0.82076925, -1.10135010, -1.48067081]],
                [[-1.43828803, -1.16579869, -0.79630424], [-1.38401855, -0.83654478, -1.15129927],
                 [-1.05188255, -1.29604414, -0.97522265]],
                [[-1.34330978, -0.86678589, -1.14344457], [-0.72518815, -1.32106859, -1.39063758],
                 [-1.09984781, -1.00059987, -1.20590993]]],
               [[[-1.02221057, -1.47617485, -0.88748174], [-1.18362952, -0.78488945, -1.43689575],
                 [-1.00784739, -1.28566450, -1.02574476]],
                [[-1.02589709, -1.13153743, -1.14260096], [-1.09942215, -1.12238913, -1.07459704],
                 [-1.09359647, -0.89829379, -1.35585602]],
                [[-1.07782876, -0.84361953, -1.47178440], [-1.23424792, -1.00248783, -1.07299990],
                 [-0.96521771, -1.19895815, -1.14698912]],
                [[-1.50722446, -1.15380039, -0.76994115], [-1.19125975, -0.89919308, -1.24041594],
                 [-0.91301359, -1.19665577, -1.21576258]]]]
# d loss / d log-probability (each entry a free variable), as the kernel reports it
PADDLE_GRAD = [[[[-0.43222645, -0.56777355, 0.0], [-0.3656501, 0.0, -0.20212345], [-0.20212345, 0.0, 0.0]],
                [[-0.16521672, -0.26700973, 0.0], [-0.39436539, 0.0, -0.23829444], [-0.44041789, 0.0, 0.0]],
                [[-0.05212979, -0.11308693, 0.0], [-0.18313787, 0.0, -0.32431445], [-0.76473234, 0.0, 0.0]],
                [[0.0, -0.05212979, 0.0], [0.0, 0.0, -0.23526766], [-1.0, 0.0, 0.0]]],
               [[[-0.71614241, -0.28385759, 0.0], [-0.18382932, -0.10002826, 0.0], [-0.10002826, 0.0, 0.0]],
                [[-0.41121795, -0.30492447, 0.0], [-0.32957594, -0.15917785, 0.0], [-0.25920611, 0.0, 0.0]],
                [[-0.11607642, -0.29514153, 0.0], [-0.28653336, -0.3381841, 0.0], [-0.59739022, 0.0, 0.0]],
                [[0.0, -0.11607642, 0.0], [0.0, -0.40260978, 0.0], [-1.0, 0.0, 0.0]]]]


def test_rnnt_loss_paddle_case_value_and_gradient():
    acts = np.array(PADDLE_ACTS)
    x = leaf(acts)
    loss = F.rnnt_loss(x, eager.to_tensor(np.array([[1, 2], [1, 1]], dtype="int32")), eager.to_tensor([4, 4]),
                       eager.to_tensor([2, 2]), fastemit_lambda=0.0, reduction="none")
    np.testing.assert_allclose(loss.numpy(), [4.2806528590890736, 3.9384369822503591], rtol=1e-7)
    loss.sum().backward()
    # Paddle's kernel reports d loss / d log-probability with each entry free; ours goes through the
    # log_softmax: the same gradient projected onto the sum-zero directions, g - p * sum(g)
    grad = np.array(PADDLE_GRAD)
    np.testing.assert_allclose(x.grad.numpy(), grad - np.exp(acts) * grad.sum(-1, keepdims=True), atol=1e-7)


def test_rnnt_loss_matches_the_recursion_with_lengths():
    acts = rng.standard_normal((3, 5, 4, 6))
    labels = rng.integers(1, 6, (3, 3))
    t_lens, u_lens = np.array([5, 3, 4]), np.array([3, 1, 0])
    want = ref_rnnt(acts, labels, t_lens, u_lens, 0)
    args = (eager.to_tensor(labels.astype("int32")), eager.to_tensor(t_lens), eager.to_tensor(u_lens))
    got = F.rnnt_loss(eager.to_tensor(acts), *args, fastemit_lambda=0.0, reduction="none")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(F.rnnt_loss(eager.to_tensor(acts), *args, fastemit_lambda=0.0).numpy(), want.mean(),
                               rtol=1e-10)
    layer = eager.nn.RNNTLoss(blank=2, fastemit_lambda=0.0, reduction="sum")
    np.testing.assert_allclose(layer(eager.to_tensor(acts), *args).numpy(),
                               ref_rnnt(acts, labels, t_lens, u_lens, 2).sum(), rtol=1e-10)


def test_rnnt_loss_gradient_and_fastemit():
    acts = rng.standard_normal((2, 3, 3, 4))
    labels = eager.to_tensor(np.array([[1, 3], [2, 0]], dtype="int32"))
    t_lens, u_lens = eager.to_tensor([3, 2]), eager.to_tensor([2, 1])
    x = leaf(acts)
    assert gradcheck(lambda t: F.rnnt_loss(t, labels, t_lens, u_lens, fastemit_lambda=0.0, reduction="sum"), (x,))
    plain = F.rnnt_loss(x, labels, t_lens, u_lens, fastemit_lambda=0.0)
    (plain_grad,) = eager.grad(plain, x)
    fast = F.rnnt_loss(x, labels, t_lens, u_lens, fastemit_lambda=0.5)
    (fast_grad,) = eager.grad(fast, x)
    np.testing.assert_allclose(fast.numpy(), plain.numpy(), rtol=1e-12)      # FastEmit changes the gradient only
    assert not np.allclose(fast_grad.numpy(), plain_grad.numpy())


def test_rnnt_loss_errors(device):
    acts = eager.zeros([1, 2, 3, 4])
    labels = eager.to_tensor([[1, 2]], dtype="int32")
    with value_checks(device), pytest.raises(ValueError, match=r"rnnt_loss: argument 'label_lengths' expected values in \[0, 2\], got "
                                         r"values in \[3, 3\]"):
        F.rnnt_loss(acts, labels, eager.to_tensor([2]), eager.to_tensor([3]))
    with pytest.raises(ValueError, match=r"rnnt_loss: argument 'label' expected shape \[1, 2\]"):
        F.rnnt_loss(acts, eager.to_tensor([[1]], dtype="int32"), eager.to_tensor([2]), eager.to_tensor([1]))
    with pytest.raises(ValueError, match=r"rnnt_loss: argument 'blank' expected an int in \[0, 4\)"):
        F.rnnt_loss(acts, labels, eager.to_tensor([2]), eager.to_tensor([2]), blank=4)


# -- flash attention ----------------------------------------------------------------------

def ref_attention(q, k, v, scale, causal):
    """q [..., Lq, d], k/v [..., Lk, d]: (out, weights)."""
    scores = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        scores = scores + np.triu(np.full(scores.shape[-2:], -np.inf), 1)
    weights = np.exp(log_softmax(scores))
    return weights @ v, weights


def test_flash_attention_matches_the_formula():
    q, k, v = (rng.standard_normal((2, 5, 3, 4)) for _ in range(3))
    for causal in (False, True):
        out, weights = flash_attention(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v), causal=causal,
                                       return_softmax=True)
        want, want_w = ref_attention(q.transpose(0, 2, 1, 3), k.transpose(0, 2, 1, 3), v.transpose(0, 2, 1, 3),
                                     0.5, causal)
        np.testing.assert_allclose(out.numpy(), want.transpose(0, 2, 1, 3), rtol=1e-10)
        np.testing.assert_allclose(weights.numpy(), want_w, rtol=1e-10)
    assert flash_attention(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v))[1] is None
    leaves = tuple(leaf(a[:1, :3, :2]) for a in (q, k, v))
    assert gradcheck(lambda a, b, c: flash_attention(a, b, c, causal=True)[0], leaves)


def test_flash_attn_unpadded_matches_each_sequence():
    lengths = [2, 4, 1]
    cu = np.concatenate([[0], np.cumsum(lengths)]).astype("int32")
    q, k, v = (rng.standard_normal((7, 2, 3)) for _ in range(3))
    out, weights = flash_attn_unpadded(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v),
                                       eager.to_tensor(cu), eager.to_tensor(cu), 4, 4, 0.3, causal=True,
                                       return_softmax=True)
    assert weights.shape == [3, 2, 4, 4]
    for b, (s, e) in enumerate(zip(cu, cu[1:])):
        want, want_w = ref_attention(q[s:e].transpose(1, 0, 2), k[s:e].transpose(1, 0, 2), v[s:e].transpose(1, 0, 2),
                                     0.3, True)
        np.testing.assert_allclose(out.numpy()[s:e], want.transpose(1, 0, 2), rtol=1e-10)
        np.testing.assert_allclose(weights.numpy()[b, :, :e - s, :e - s], want_w, rtol=1e-10)
        assert not weights.numpy()[b, :, e - s:, :].any() and not weights.numpy()[b, :, :, e - s:].any()
    with pytest.raises(ValueError, match=r"flash_attn_unpadded: argument 'cu_seqlens_q' expected non-decreasing "
                                         r"offsets from 0 to 7"):
        flash_attn_unpadded(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v),
                            eager.to_tensor([0, 2, 6], dtype="int32"), eager.to_tensor(cu), 4, 4, 0.3)


def test_flash_attention_errors():
    q = eager.ones([1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"flash_attention: argument 'fixed_seed_offset' is not supported"):
        flash_attention(q, q, q, fixed_seed_offset=eager.to_tensor([1, 2]))
    with pytest.raises(ValueError, match=r"flash_attention: argument 'key' expected query's batch, num_heads and "
                                         r"head_dim"):
        flash_attention(q, eager.ones([1, 2, 3, 5]), q)


# -- sparse attention ----------------------------------------------------------------------

def test_sparse_attention_matches_the_masked_softmax():
    batch, heads, length, dim = 2, 2, 5, 3
    dense = rng.random((batch, heads, length, length)) < 0.5
    dense[0, 0, 1] = False                                               # a row with no key: zeros
    nnz = int(dense.sum(axis=(2, 3)).max())
    offsets = np.zeros((batch, heads, length + 1), dtype=np.int32)
    columns = np.zeros((batch, heads, nnz), dtype=np.int32)
    for b, h in np.ndindex(batch, heads):
        _, cols = np.nonzero(dense[b, h])
        offsets[b, h, 1:] = np.cumsum(dense[b, h].sum(1))
        columns[b, h, :len(cols)] = cols
    padding = (rng.random((batch, length)) < 0.8).astype("float64")
    attn = (rng.random((length, length)) < 0.8).astype("float64")
    q, k, v = (rng.standard_normal((batch, heads, length, dim)) for _ in range(3))
    keep = dense & (padding[:, None, None, :] != 0) & (attn[None, None] != 0)
    scores = np.where(keep, q @ np.swapaxes(k, -1, -2) / math.sqrt(dim), -np.inf)
    want = np.zeros_like(q)
    for b, h, r in np.ndindex(batch, heads, length):
        if keep[b, h, r].any():
            w = np.exp(scores[b, h, r] - scores[b, h, r].max())
            want[b, h, r] = (w / w.sum()) @ v[b, h]
    got = F.sparse_attention(eager.to_tensor(q), eager.to_tensor(k), eager.to_tensor(v), eager.to_tensor(offsets),
                             eager.to_tensor(columns), eager.to_tensor(padding), eager.to_tensor(attn))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-14)
    assert not got.numpy()[0, 0, 1].any()
    leaves = tuple(leaf(a) for a in (q, k, v))
    assert gradcheck(lambda a, b, c: F.sparse_attention(a, b, c, eager.to_tensor(offsets), eager.to_tensor(columns)),
                     leaves)


def test_sparse_attention_errors():
    q = eager.ones([1, 1, 3, 2])
    with pytest.raises(ValueError, match=r"sparse_attention: argument 'sparse_csr_offset' expected an int32 or "
                                         r"int64 tensor of shape \[1, 1, 4\]"):
        F.sparse_attention(q, q, q, eager.to_tensor([[[0, 1, 2]]]), eager.to_tensor([[[0, 1]]]))
    with pytest.raises(ValueError, match=r"sparse_attention: argument 'key_padding_mask' expected shape \[1, 3\]"):
        F.sparse_attention(q, q, q, eager.to_tensor([[[0, 1, 2, 3]]]), eager.to_tensor([[[0, 1, 2]]]),
                           key_padding_mask=eager.ones([3]))


# -- docstring examples --------------------------------------------------------------------

def test_docstring_examples():
    import sys
    from eager.nn import adaptive_softmax, loss, pooling
    from eager.nn.functional import adaptive_softmax as adaptive_functional
    from eager.nn.functional import flash_attention as flash_module
    from eager.nn.functional import loss as loss_functional
    from eager.nn.functional import margin_softmax, rnnt
    from eager.nn.functional import pooling as pooling_functional
    sparse_module = sys.modules["eager.nn.functional.sparse_attention"]   # the package's name is the function
    for module in (adaptive_softmax, loss, pooling, adaptive_functional, flash_module, loss_functional,
                   margin_softmax, rnnt, pooling_functional, sparse_module):
        result = doctest.testmod(module, extraglobs={"eager": eager}, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0, module.__name__


def test_sparse_attention_checks_the_pattern(device):
    q = eager.ones([1, 1, 3, 2])
    with value_checks(device), pytest.raises(ValueError, match=r"sparse_attention: argument 'sparse_csr_columns' "
                                                               r"expected column indices in \[0, 3\), got values in "
                                                               r"\[0, 3\]"):
        F.sparse_attention(q, q, q, eager.to_tensor([[[0, 1, 2, 2]]]), eager.to_tensor([[[0, 3, 9]]]))
    with value_checks(device), pytest.raises(ValueError, match=r"sparse_attention: argument 'sparse_csr_offset' "
                                                               r"expected non-decreasing row offsets"):
        F.sparse_attention(q, q, q, eager.to_tensor([[[0, 2, 1, 2]]]), eager.to_tensor([[[0, 1]]]))


def test_rnnt_loss_ignores_the_label_padding():
    acts = rng.standard_normal((2, 3, 3, 4))
    labels = np.array([[1, 3], [2, -1]])                              # sample 1's label has length 1
    t_lens, u_lens = np.array([3, 2]), np.array([2, 1])
    got = F.rnnt_loss(eager.to_tensor(acts), eager.to_tensor(labels.astype("int32")), eager.to_tensor(t_lens),
                      eager.to_tensor(u_lens), fastemit_lambda=0.0, reduction="none")
    np.testing.assert_allclose(got.numpy(), ref_rnnt(acts, labels, t_lens, u_lens, 0), rtol=1e-10)


def test_lp_pool_and_adaptive_softmax_against_torch():
    torch = pytest.importorskip("torch")
    x = rng.uniform(0.1, 2.0, (2, 3, 8, 7))
    want = torch.nn.functional.lp_pool2d(torch.tensor(x), 3.0, [3, 2], [2, 2]).numpy()
    np.testing.assert_allclose(F.lp_pool2d(eager.to_tensor(x), 3.0, [3, 2], [2, 2]).numpy(), want, rtol=1e-10)
    torch.manual_seed(0)
    reference = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 12, [3, 7], div_value=2.0, head_bias=True).double()
    layer = eager.nn.AdaptiveLogSoftmaxWithLoss(8, 12, [3, 7], div_value=2.0, head_bias=True)
    layer.to(dtype="float64")
    layer.head_weight.set_value(reference.head.weight.detach().numpy().T)
    layer.head_bias.set_value(reference.head.bias.detach().numpy())
    for pair, tail in zip(layer.tail_weights, reference.tail):
        pair[0].set_value(tail[0].weight.detach().numpy().T)
        pair[1].set_value(tail[1].weight.detach().numpy().T)
    inputs = rng.standard_normal((6, 8))
    label = np.array([0, 2, 3, 6, 7, 11])
    out, loss = layer(eager.to_tensor(inputs), eager.to_tensor(label))
    want_out, want_loss = reference(torch.tensor(inputs), torch.tensor(label))
    np.testing.assert_allclose(out.numpy(), want_out.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(loss.numpy(), want_loss.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(layer.log_prob(eager.to_tensor(inputs)).numpy(),
                               reference.log_prob(torch.tensor(inputs)).detach().numpy(), rtol=1e-10)


def test_functional_diag_embed_is_paddles_alias():
    x = rng.standard_normal((2, 3))
    out = F.diag_embed(eager.to_tensor(x), offset=1, dim1=0, dim2=2)
    want = np.zeros((4, 2, 4))
    for b in range(2):
        for i in range(3):
            want[i, b, i + 1] = x[b, i]
    np.testing.assert_array_equal(out.numpy(), want)


def test_second_derivatives():
    x = leaf(rng.uniform(0.5, 2.0, (1, 1, 4, 4)))
    assert gradgradcheck(lambda t: F.lp_pool2d(t, 3, 2), (x,))
    cos = leaf(rng.uniform(-0.8, 0.8, (3, 4)))
    assert gradgradcheck(lambda t: F.margin_cross_entropy(t, eager.to_tensor([0, 2, 3]), scale=4.0), (cos,))
    q = leaf(rng.standard_normal((1, 3, 1, 2)))
    assert gradgradcheck(lambda t: flash_attention(t, t, t, causal=True)[0], (q,))
