"""eager.vision.ops.yolo_loss against a direct loop over the YOLOv3 loss's definition,
and its gradient against central differences."""
import math

import numpy as np
import pytest

import eager
from eager.vision import ops as O


def sce(x, label):
    return max(x, 0.0) - x * label + math.log1p(math.exp(-abs(x)))


def sigmoid(v):
    return 1.0 / (1.0 + math.exp(-v))


def iou_centre(a, b):
    """IoU of two (cx, cy, w, h) boxes."""
    iw = min(a[0] + a[2] / 2, b[0] + b[2] / 2) - max(a[0] - a[2] / 2, b[0] - b[2] / 2)
    ih = min(a[1] + a[3] / 2, b[1] + b[3] / 2) - max(a[1] - a[3] / 2, b[1] - b[3] / 2)
    inter = 0.0 if iw < 0 or ih < 0 else iw * ih
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def reference(x, boxes, labels, scores, anchors, mask, classes, ignore, ratio, smooth, scale):
    """The loss per image, place by place, written from the definition."""
    n, _, h, w = x.shape
    v = x.reshape(n, len(mask), 5 + classes, h, w)
    size = ratio * h
    bias = -0.5 * (scale - 1)
    pos_label, neg_label = 1.0, 0.0
    if smooth:
        s = min(1.0 / classes, 1.0 / 40)
        pos_label, neg_label = 1 - s, s
    losses = []
    for i in range(n):
        valid = [t for t in range(boxes.shape[1]) if boxes[i, t, 2] >= 1e-6 and boxes[i, t, 3] >= 1e-6]
        weight = np.zeros((len(mask), h, w))
        for j, a in enumerate(mask):
            for k in range(h):
                for col in range(w):
                    pred = ((col + sigmoid(v[i, j, 0, k, col]) * scale + bias) / w,
                            (k + sigmoid(v[i, j, 1, k, col]) * scale + bias) / h,
                            math.exp(v[i, j, 2, k, col]) * anchors[2 * a] / size,
                            math.exp(v[i, j, 3, k, col]) * anchors[2 * a + 1] / size)
                    if max([iou_centre(pred, boxes[i, t]) for t in valid], default=0.0) > ignore:
                        weight[j, k, col] = -1
        total = 0.0
        for t in valid:
            gx, gy, gw, gh = boxes[i, t]
            shape_ious = [iou_centre((0, 0, anchors[2 * a] / size, anchors[2 * a + 1] / size), (0, 0, gw, gh))
                          for a in range(len(anchors) // 2)]
            best = int(np.argmax(shape_ious))
            if best not in mask:
                continue
            j = mask.index(best)
            gi, gj = int(gx * w), int(gy * h)
            score = scores[i, t]
            loc = (2 - gw * gh) * score
            p = v[i, j, :, gj, gi]
            total += sce(p[0], gx * w - gi) * loc + sce(p[1], gy * h - gj) * loc
            total += abs(p[2] - math.log(gw * size / anchors[2 * best])) * loc
            total += abs(p[3] - math.log(gh * size / anchors[2 * best + 1])) * loc
            total += sum(sce(p[5 + c], pos_label if c == labels[i, t] else neg_label) * score for c in range(classes))
            weight[j, gj, gi] = score
        for j in range(len(mask)):
            for k in range(h):
                for col in range(w):
                    o = v[i, j, 4, k, col]
                    if weight[j, k, col] > 1e-5:
                        total += sce(o, 1.0) * weight[j, k, col]
                    elif weight[j, k, col] > -0.5:
                        total += sce(o, 0.0)
        losses.append(total)
    return np.asarray(losses)


def problem(seed, n=2, boxes=5, classes=3, mask=(0, 2), h=4, x_scale=1.0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, len(mask) * (5 + classes), h, h)) * x_scale
    gt = np.concatenate([rng.uniform(0.05, 0.95, (n, boxes, 2)), rng.uniform(0.05, 0.6, (n, boxes, 2))], axis=2)
    gt[0, -1, 2:] = 0.0                                       # padding: no box
    labels = rng.integers(0, classes, (n, boxes)).astype(np.int32)
    scores = rng.uniform(0.5, 1.0, (n, boxes))
    return x, gt, labels, scores


ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61]


@pytest.mark.parametrize("smooth, scale, with_scores, ignore", [
    (True, 1.0, False, 0.7), (False, 1.2, True, 0.5), (True, 1.05, True, 0.0)])
def test_loss_matches_the_definition(smooth, scale, with_scores, ignore):
    x, gt, labels, scores = problem(0)
    mask = [0, 2]
    got = O.yolo_loss(eager.to_tensor(x), eager.to_tensor(gt), eager.to_tensor(labels), ANCHORS, mask, 3, ignore, 8,
                      gt_score=eager.to_tensor(scores) if with_scores else None, use_label_smooth=smooth,
                      scale_x_y=scale)
    want = reference(x, gt, labels, scores if with_scores else np.ones_like(scores), ANCHORS, mask, 3, ignore, 8,
                     smooth, scale)
    assert got.shape == [2] and got.dtype == eager.float64
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)


def test_float32_and_the_paddle_signature():
    x, gt, labels, _ = problem(1)
    loss = O.yolo_loss(eager.to_tensor(x.astype(np.float32)), eager.to_tensor(gt.astype(np.float32)),
                       eager.to_tensor(labels), anchors=ANCHORS, anchor_mask=[0, 2], class_num=3, ignore_thresh=0.7,
                       downsample_ratio=8, use_label_smooth=True, scale_x_y=1.)
    assert loss.dtype == eager.float32
    want = reference(x.astype(np.float32).astype(np.float64), gt.astype(np.float32).astype(np.float64), labels,
                     np.ones(labels.shape), ANCHORS, [0, 2], 3, 0.7, 8, True, 1.0)
    np.testing.assert_allclose(loss.numpy(), want, rtol=1e-5)


def test_gradient_matches_central_differences():
    x, gt, labels, scores = problem(2, n=1, boxes=3, classes=2, h=3, x_scale=0.5)
    args = (eager.to_tensor(gt), eager.to_tensor(labels), ANCHORS, [0, 2], 2, 0.6, 8)
    xt = eager.to_tensor(x, stop_gradient=False)
    O.yolo_loss(xt, *args, gt_score=eager.to_tensor(scores)).sum().backward()
    numeric = np.zeros_like(x)
    eps = 1e-6
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        numeric[index] = (reference(plus, gt, labels, scores, ANCHORS, [0, 2], 2, 0.6, 8, True, 1.0)
                          - reference(minus, gt, labels, scores, ANCHORS, [0, 2], 2, 0.6, 8, True, 1.0)).sum()
        numeric[index] /= 2 * eps
    np.testing.assert_allclose(xt.grad.numpy(), numeric, rtol=1e-5, atol=1e-7)
    assert np.abs(xt.grad.numpy()).sum() > 0


def test_no_matched_box_leaves_only_the_objectness_loss():
    x = np.zeros((1, 7, 2, 2))
    gt = np.zeros((1, 1, 4))                                 # padding only
    loss = O.yolo_loss(eager.to_tensor(x), eager.to_tensor(gt), eager.to_tensor(np.zeros((1, 1), np.int32)),
                       [16, 16], [0], 2, 0.7, 16)
    np.testing.assert_allclose(loss.numpy(), [4 * math.log(2.0)])      # 4 negatives at logit 0


@pytest.mark.parametrize("change, error, message", [
    ({"x": eager.zeros([1, 6, 2, 2])}, ValueError, "'x' has 6 channels; 1 masked anchors and 2 classes need 7"),
    ({"anchor_mask": [1]}, ValueError, r"'anchor_mask' expected a non-empty list of anchor indices in \[0, 1\)"),
    ({"anchors": [16, 16, 3]}, ValueError, "'anchors' expected \\(width, height\\) pairs"),
    ({"gt_label": eager.zeros([1, 1])}, TypeError, "'gt_label' expected an int Tensor"),
    ({"gt_box": eager.zeros([1, 2, 4])}, ValueError, r"'gt_label' expected shape \[1, 2\]"),
    ({"gt_box": eager.zeros([2, 1, 4])}, ValueError, r"'gt_box' expected shape \[1, B, 4\]"),
    ({"ignore_thresh": None}, TypeError, "'ignore_thresh' expected a float"),
])
def test_bad_arguments_are_refused(change, error, message):
    args = dict(x=eager.zeros([1, 7, 2, 2]), gt_box=eager.zeros([1, 1, 4]),
                gt_label=eager.to_tensor(np.zeros((1, 1), np.int32)), anchors=[16, 16], anchor_mask=[0],
                class_num=2, ignore_thresh=0.7, downsample_ratio=16)
    args.update(change)
    with pytest.raises(error, match="yolo_loss: argument " + message):
        O.yolo_loss(**args)
