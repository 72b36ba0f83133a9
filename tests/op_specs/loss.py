"""The op table of the loss ops beyond the spine's cross-entropy pair (issue #10).

References are written from the definitions: bce with its clamped logs, nll by
indexing, and CTC by brute force, enumerating every alignment path of the short
sequences here, collapsing it (merge repeats, drop blanks) and summing the
probabilities of those that give the label; the CTC gradient is softmax minus
each frame's class posterior over those same paths. Integer labels are drawn as
numbers in (0, 1) and turned into class indices by a recorded cast, as the
spine's cross-entropy rows do; CTC's labels and lengths are attributes.
"""
from __future__ import annotations

import itertools

import numpy as np

import eager
from eager.generated import forward_api as F

from .core import Case, OpSpec

D = eager.DataType


def _class_labels(u, classes):
    return F.cast(F.scale(u, float(classes), 0.0, True), D.INT64)


def _labels_of(u, classes):
    return (u * classes).astype(np.int64)


def _log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


# -- bce_loss -------------------------------------------------------------------

def ref_bce(x, z):
    with np.errstate(divide="ignore"):
        return (-(z * np.maximum(np.log(x), -100) + (1 - z) * np.maximum(np.log(1 - x), -100))).astype(x.dtype)


def ref_bce_grad(x, z, g):
    return (g * (x - z) / np.maximum(x * (1 - x), 1e-12)).astype(x.dtype)


BCE_CASES = (Case(((3, 4), (3, 4))), Case(((5,), (5,))), Case(((), ())), Case(((0, 2), (0, 2))))


# -- fused_mse_loss ----------------------------------------------------------------

def ref_mse(x, z, reduction="mean"):
    """Squares of the differences, one element at a time, then reduced."""
    squares = np.array([(a - b) * (a - b) for a, b in zip(x.reshape(-1).tolist(), z.reshape(-1).tolist())])
    if reduction == "none":
        return squares.reshape(x.shape).astype(x.dtype)
    total = sum(squares.tolist())
    return np.asarray(total / len(squares) if reduction == "mean" else total, dtype=x.dtype)


def ref_mse_grad(x, z, g, reduction="mean"):
    """d/dx of the loss: 2 (x - z) times g (each element's own g for 'none'; / count for 'mean')."""
    count = x.size if reduction == "mean" else 1
    g_each = np.broadcast_to(g, x.shape).reshape(-1).tolist()
    grad = np.array([2 * (a - b) * gi / count for a, b, gi in
                     zip(x.reshape(-1).tolist(), z.reshape(-1).tolist(), g_each)]).reshape(x.shape)
    return grad.astype(x.dtype), (-grad).astype(x.dtype)


MSE_CASES = (Case(((3, 4), (3, 4))), Case(((5,), (5,)), {"reduction": "sum"}),
             Case(((2, 3), (2, 3)), {"reduction": "none"}), Case(((), ())),
             Case(((0, 2), (0, 2)), {"reduction": "sum"}), Case(((0, 2), (0, 2)), {"reduction": "none"}))


# -- nll_loss -------------------------------------------------------------------

def _nll(input, label_u, weight, ignore_index=-100):
    return F.nll_loss(input, _class_labels(label_u, input.shape[1]), weight, ignore_index)


def _nll_terms(x, u, w, ignore_index):
    classes = x.shape[1]
    labels = _labels_of(u, classes)
    valid = labels != ignore_index
    safe = np.where(valid, labels, 0)
    weights = (np.ones(classes) if w is None else w)[safe] * valid
    return labels, safe, weights


def ref_nll(x, u, w, ignore_index=-100):
    _, safe, weights = _nll_terms(x, u, w, ignore_index)
    out = np.zeros(safe.shape)
    for index in np.ndindex(*safe.shape):
        position = (index[0], safe[index]) + index[1:]
        out[index] = -weights[index] * x[position]
    return out.astype(x.dtype)


def _nll_grad(input, label_u, weight, out_grad, ignore_index=-100):
    return F.nll_loss_grad(input, _class_labels(label_u, input.shape[1]), weight, out_grad, ignore_index)


def ref_nll_grad(x, u, w, g, ignore_index=-100):
    _, safe, weights = _nll_terms(x, u, w, ignore_index)
    grad = np.zeros(x.shape)
    for index in np.ndindex(*safe.shape):
        grad[(index[0], safe[index]) + index[1:]] = -weights[index] * g[index]
    return grad.astype(x.dtype)


NLL_CASES = (
    Case(((4, 3), (4,), (3,)), {}),
    Case(((4, 3), (4,), None), {"ignore_index": 1}),          # the labels 1 are ignored
    Case(((2, 3, 4), (2, 4), (3,)), {"ignore_index": 2}),
    Case(((2, 2, 2, 3), (2, 2, 3), None), {}),
    Case(((0, 3), (0,), (3,)), {}),
)


# -- warpctc --------------------------------------------------------------------

def _ctc_call(op, logits, *rest, labels, input_lengths, label_lengths, blank=0, norm_by_times=False):
    args = (eager.to_tensor(np.array(labels, dtype=np.int32)), eager.to_tensor(np.array(input_lengths)),
            eager.to_tensor(np.array(label_lengths)))
    if op is F.warpctc:
        return op(logits, *args, blank, norm_by_times)
    return op(logits, *args, *rest, blank, norm_by_times)


def _ctc(logits, **attrs):
    return _ctc_call(F.warpctc, logits, **attrs)


def _ctc_grad(logits, loss_grad, **attrs):
    return _ctc_call(F.warpctc_grad, logits, loss_grad, **attrs)


def _collapse(path, blank):
    merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
    return tuple(k for k in merged if k != blank)


def _ctc_by_paths(logits, labels, input_lengths, label_lengths, blank):
    """Per sequence: the total probability of the label and each frame's class posterior."""
    steps, batch, classes = logits.shape
    log_p = _log_softmax(logits.astype(np.float64), 2)
    totals, posteriors = [], []
    for b in range(batch):
        length = input_lengths[b]
        target = tuple(labels[b][:label_lengths[b]])
        total, posterior = 0.0, np.zeros((length, classes))
        for path in itertools.product(range(classes), repeat=length):
            if _collapse(path, blank) == target:
                probability = np.exp(sum(log_p[t, b, k] for t, k in enumerate(path)))
                total += probability
                posterior[np.arange(length), path] += probability
        totals.append(total)
        posteriors.append(posterior)
    return log_p, totals, posteriors


def ref_ctc(logits, labels, input_lengths, label_lengths, blank=0, norm_by_times=False):
    _, totals, _ = _ctc_by_paths(logits, labels, input_lengths, label_lengths, blank)
    with np.errstate(divide="ignore"):
        return (-np.log(np.array(totals))).astype(logits.dtype)


def ref_ctc_grad(logits, loss_grad, labels, input_lengths, label_lengths, blank=0, norm_by_times=False):
    log_p, totals, posteriors = _ctc_by_paths(logits, labels, input_lengths, label_lengths, blank)
    grad = np.zeros(logits.shape)
    for b, (total, posterior) in enumerate(zip(totals, posteriors)):
        length = input_lengths[b]
        if total == 0:
            continue  # no alignment fits: the loss is inf and the gradient zero
        scale = loss_grad[b] / (length if norm_by_times else 1)
        grad[:length, b] = (np.exp(log_p[:length, b]) - posterior / total) * scale
    return grad.astype(logits.dtype)


def _ctc_case(shape, labels, input_lengths, label_lengths, grad=True, **extra):
    return Case((shape,), {"labels": labels, "input_lengths": input_lengths, "label_lengths": label_lengths,
                           **extra}, grad=grad)


CTC_CASES = (
    _ctc_case((4, 2, 3), ((1, 2), (2, 2)), (4, 3), (2, 1)),
    _ctc_case((5, 1, 3), ((1, 1),), (5,), (2,)),                       # a repeat needs a blank between
    _ctc_case((3, 2, 3), ((1,), (2,)), (3, 2), (0, 1)),                # an empty label: all blanks
    _ctc_case((4, 1, 4), ((0, 3, 1),), (4,), (3,), blank=2),           # blank not 0
    _ctc_case((2, 1, 3), ((1, 1),), (2,), (2,), grad=False),           # too short: inf, zero gradient
)


def _grad_case(case, **extra):
    return Case(case.shapes + ((case.shapes[0][1],),), {**case.attrs, **extra}, grad=False)


# -- fused_softmax_cross_entropy ----------------------------------------------------
# Written row by row: the log of the sum of exponentials minus the label's logit,
# rows whose label is ignore_index left out of the sum and of the mean's count.

def _fused_ce(logits, label_u, ignore_index=-100, reduction="mean"):
    return F.fused_softmax_cross_entropy(logits, _class_labels(label_u, logits.shape[-1]), ignore_index, reduction)


def ref_fused_ce(logits, u, ignore_index=-100, reduction="mean"):
    classes = logits.shape[-1]
    rows = logits.reshape(-1, classes).astype(np.float64)
    labels = _labels_of(u, classes).reshape(-1)
    total, count = 0.0, 0
    for row, label in zip(rows, labels):
        if label == ignore_index:
            continue
        peak = row.max()
        total += peak + np.log(sum(np.exp(v - peak) for v in row)) - row[label]
        count += 1
    if reduction == "mean":
        total /= max(count, 1)
    return np.asarray(total, dtype=logits.dtype)


def _fused_ce_grad(label_u, softmax, softmax_grad, loss_grad, ignore_index=-100, reduction="mean"):
    labels = _class_labels(label_u, softmax.shape[-1])
    return F.fused_softmax_cross_entropy_grad(labels, softmax, softmax_grad, loss_grad, ignore_index, reduction)


def ref_fused_ce_grad(u, p, sg, g, ignore_index=-100, reduction="mean"):
    classes = p.shape[-1]
    labels = _labels_of(u, classes).reshape(-1)
    rows = p.reshape(-1, classes)
    grad = np.zeros(rows.shape)
    count = max(int((labels != ignore_index).sum()), 1) if reduction == "mean" else 1
    for i, label in enumerate(labels):
        if label != ignore_index:
            for k in range(classes):
                grad[i, k] = (rows[i, k] - (k == label)) * g / count
    if sg is not None:  # through the softmax output: p * (sg - sum(sg * p))
        s = sg.reshape(rows.shape)
        for i in range(len(rows)):
            inner = sum(s[i, k] * rows[i, k] for k in range(classes))
            grad[i] += rows[i] * (s[i] - inner)
    return grad.reshape(p.shape).astype(p.dtype)


def _fused_ce_grad_prepare(arrays, attrs):
    label_u, raw, softmax_grad, loss_grad = arrays
    shifted = np.exp(raw - raw.max(axis=-1, keepdims=True))
    return [label_u, shifted / shifted.sum(axis=-1, keepdims=True), softmax_grad, loss_grad]


# (logits, label) shapes and attributes: labels [N] and [N, 1], folded leading
# dimensions, one sample, ignored rows (labels equal to ignore_index 1), an empty batch.
FUSED_CE_CASES = (Case(((4, 5), (4,))), Case(((4, 5), (4, 1)), {"reduction": "sum"}),
                  Case(((2, 3, 4), (2, 3))), Case(((5,), ())),
                  Case(((6, 3), (6,)), {"ignore_index": 1}),
                  Case(((6, 3), (6, 1)), {"ignore_index": 1, "reduction": "sum"}),
                  Case(((0, 3), (0,))))

SPECS: list = [
    OpSpec("fused_softmax_cross_entropy", _fused_ce, ref_fused_ce, ("real", "unit"), FUSED_CE_CASES, wrt=(0,)),
    OpSpec("fused_softmax_cross_entropy_grad", _fused_ce_grad, ref_fused_ce_grad, ("unit", "real", "real", "real"),
           tuple(Case((c.shapes[1], c.shapes[0], sg, ()), c.attrs)
                 for c in FUSED_CE_CASES for sg in (None, c.shapes[0])),
           prepare=_fused_ce_grad_prepare, wrt=(1, 2, 3)),
    OpSpec("fused_mse_loss", F.fused_mse_loss, ref_mse, ("real", "real"), MSE_CASES),
    OpSpec("fused_mse_loss_grad", F.fused_mse_loss_grad, ref_mse_grad, ("real", "real", "real"),
           tuple(Case(c.shapes + (c.shapes[0] if c.attrs.get("reduction") == "none" else (),),
                      {"reduction": "mean", **c.attrs}) for c in MSE_CASES)),
    OpSpec("bce_loss", F.bce_loss, ref_bce, ("unit", "unit"), BCE_CASES, wrt=(0,)),
    OpSpec("bce_loss_grad", F.bce_loss_grad, ref_bce_grad, ("unit", "unit", "real"),
           tuple(Case(c.shapes + (c.shapes[0],)) for c in BCE_CASES)),
    OpSpec("nll_loss", _nll, ref_nll, ("real", "unit", "positive"), NLL_CASES, wrt=(0,)),
    OpSpec("nll_loss_grad", _nll_grad, ref_nll_grad, ("real", "unit", "positive", "real"),
           tuple(Case(c.shapes + (c.shapes[1],), c.attrs) for c in NLL_CASES), wrt=(3,)),
    OpSpec("warpctc", _ctc, ref_ctc, ("real",), CTC_CASES),
    OpSpec("warpctc_grad", _ctc_grad, ref_ctc_grad, ("real", "real"),
           tuple(_grad_case(c) for c in CTC_CASES) + tuple(_grad_case(c, norm_by_times=True) for c in CTC_CASES[:2]),
           grad=False),
]
