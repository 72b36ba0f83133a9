"""Regression cases found by re-telling Paddle's own unit tests of
paddle.vision.ops and the detection ops (test/legacy_test: test_roi_align_op,
test_roi_pool_op, test_psroi_pool_op, test_nms_op, test_matrix_nms_op,
test_box_coder_op, test_prior_box_op, test_yolo_box_op, test_yolov3_loss_op,
test_deformable_conv_op, test_generate_proposals_v2_op,
test_distribute_fpn_proposals_op, ...) against eager, each checked with the
real Paddle 2.6.2 (random draws of every op's options, values and gradients,
plus the tests' error cases run one by one).

Found and fixed:
- box_coder took ``(..., box_normalized, name, axis)``: Paddle's order is
  ``(..., box_normalized, axis, name)``, so a positional axis landed in
  ``name`` and a decode with ``axis=1`` silently ran with axis 0 (or failed
  the shape check).
- deform_conv2d accepted filters whose output channels are not a multiple of
  ``deformable_groups``; Paddle's InferMeta raises ValueError (test_errors of
  DeformConv2D with deformable_groups=3).
- generate_proposals refused anchors / variances given as ``[H * W * A, 4]``;
  Paddle reads both as rows of four and returns the same proposals as for
  ``[H, W, A, 4]``.
- nms(..., category_idxs, categories) refused ``categories`` as a 1-D Tensor
  (Paddle iterates it); ``top_k=0`` with categories returned an empty result
  where Paddle raises ValueError (its topk needs k >= 1).
- prior_box(aspect_ratios=[]) raised ValueError; Paddle always has ratio 1,
  so an empty list gives the square priors (as ``[1.0]``).

Paddle 2.6.2 quirks kept (docs/training.md differences table): roi_align's
CPU gradient for an ``aligned=True`` box under one pixel; box_coder decode of
float64 with a list variance; psroi_pool with one output channel and nms /
distribute_fpn_proposals with no boxes (Paddle raises); box_coder with
``prior_box_var=None`` (Paddle TypeError, eager: no variance). Paddle
garbage on unchecked input that eager keeps refusing: roi_pool/roi_align
with ``boxes_num`` not summing to the boxes, nms with fewer scores than
boxes, prior_box variance of 3, yolo_box ``downsample_ratio=0``,
distribute_fpn_proposals with 3-column rois; a zero-width ``aligned=True``
roi_align box is NaN in Paddle, 0 in eager. Paddle crashes (SIGSEGV in
deformable_conv_grad) on backward through DeformConv2D with a mask when offset
and mask do not require gradients; matrix_nms among equal scores follows
std::partial_sort's order (documented as backend-dependent).
"""
import numpy as np
import pytest

import eager as paddle
from eager.vision import ops as V

pytestmark = pytest.mark.usefixtures("device")


def _decode_reference(prior, var, offsets, axis):
    """Centre-size decode of normalised boxes, one prior per column (axis 0) or row (axis 1)."""
    w, h = prior[:, 2] - prior[:, 0], prior[:, 3] - prior[:, 1]
    cx, cy = prior[:, 0] + w / 2, prior[:, 1] + h / 2
    expand = (lambda v: v[None, :]) if axis == 0 else (lambda v: v[:, None])
    w, h, cx, cy = expand(w), expand(h), expand(cx), expand(cy)
    d = offsets * np.asarray(var)
    ocx, ocy = d[..., 0] * w + cx, d[..., 1] * h + cy
    ow, oh = np.exp(d[..., 2]) * w, np.exp(d[..., 3]) * h
    return np.stack([ocx - ow / 2, ocy - oh / 2, ocx + ow / 2, ocy + oh / 2], -1)


def test_box_coder_takes_axis_positionally_before_name():
    rng = np.random.default_rng(0)
    prior = np.array([[0.1, 0.2, 0.5, 0.6], [0.3, 0.1, 0.9, 0.4], [0.0, 0.0, 0.2, 0.3]], np.float32)
    offsets = (rng.standard_normal((3, 2, 4)) * 0.3).astype(np.float32)
    var = [0.1, 0.1, 0.2, 0.2]
    out = V.box_coder(paddle.to_tensor(prior), var, paddle.to_tensor(offsets), "decode_center_size", True, 1)
    assert out.shape == [3, 2, 4]
    np.testing.assert_allclose(out.numpy(), _decode_reference(prior, var, offsets, 1), rtol=1e-5, atol=1e-6)


def test_deform_conv2d_needs_output_channels_divisible_by_deformable_groups():
    x = paddle.zeros([1, 6, 5, 5])
    offset = paddle.zeros([1, 2 * 3 * 9, 3, 3])
    with pytest.raises(ValueError, match=r"deform_conv2d: the output channels of weight \(4\) must be a multiple of "
                                         r"deformable_groups \(3\)"):
        V.deform_conv2d(x, offset, paddle.zeros([4, 6, 3, 3]), deformable_groups=3)
    # 6 output channels over 3 deformable groups: fine
    assert V.deform_conv2d(x, offset, paddle.zeros([6, 6, 3, 3]), deformable_groups=3).shape == [1, 6, 3, 3]


def test_generate_proposals_takes_anchors_as_rows():
    rng = np.random.default_rng(3)
    n, a, h, w = 2, 2, 3, 2
    scores = paddle.to_tensor(rng.random((n, a, h, w)).astype(np.float32))
    deltas = paddle.to_tensor((rng.standard_normal((n, 4 * a, h, w)) * 0.2).astype(np.float32))
    sizes = paddle.to_tensor(np.array([[40.0, 40.0]] * n, np.float32))
    xy = rng.uniform(0, 20, (h, w, a, 2))
    anchors = np.concatenate([xy, xy + rng.uniform(2, 15, (h, w, a, 2))], -1).astype(np.float32)
    variances = rng.uniform(0.5, 1.5, (h, w, a, 4)).astype(np.float32)
    full = V.generate_proposals(scores, deltas, sizes, paddle.to_tensor(anchors), paddle.to_tensor(variances),
                                return_rois_num=True)
    rows = V.generate_proposals(scores, deltas, sizes, paddle.to_tensor(anchors.reshape(-1, 4)),
                                paddle.to_tensor(variances.reshape(-1, 4)), return_rois_num=True)
    for a_, b_ in zip(full, rows):
        np.testing.assert_array_equal(a_.numpy(), b_.numpy())
    with pytest.raises(ValueError, match=r"generate_proposals: argument 'anchors' expected shape \[3, 2, 2, 4\] or "
                                         r"\[12, 4\]"):
        V.generate_proposals(scores, deltas, sizes, paddle.to_tensor(anchors.reshape(-1, 4)[:10]),
                             paddle.to_tensor(variances), return_rois_num=True)


def _nms_inputs():
    boxes = np.array([[0, 0, 2, 2], [0.1, 0, 2, 2], [3, 3, 4, 4], [3, 3.1, 4, 4], [0, 0, 1.9, 2]], np.float32)
    scores = np.array([0.5, 0.9, 0.7, 0.6, 0.8], np.float32)
    cats = np.array([0, 0, 1, 1, 1], np.int64)
    return paddle.to_tensor(boxes), paddle.to_tensor(scores), paddle.to_tensor(cats)


def test_nms_takes_categories_as_a_tensor():
    boxes, scores, cats = _nms_inputs()
    # category 0: box 1 beats box 0; category 1: boxes 4, 2 (3 overlaps 2); by score: 1, 4, 2
    expected = [1, 4, 2]
    assert V.nms(boxes, 0.5, scores, cats, [0, 1]).numpy().tolist() == expected
    assert V.nms(boxes, 0.5, scores, cats, paddle.to_tensor([0, 1])).numpy().tolist() == expected
    assert V.nms(boxes, 0.5, scores, cats, np.array([0, 1])).numpy().tolist() == expected


def test_nms_top_k_zero_with_categories_raises():
    boxes, scores, cats = _nms_inputs()
    with pytest.raises(ValueError, match=r"nms: argument 'top_k' expected an int >= 1"):
        V.nms(boxes, 0.5, scores, cats, [0, 1], 0)
    assert V.nms(boxes, 0.5, scores, cats, [0, 1], 1).numpy().tolist() == [1]


def test_prior_box_with_no_aspect_ratios_gives_the_square_priors():
    feature, image = paddle.zeros([1, 2, 3, 4]), paddle.zeros([1, 3, 30, 40])
    boxes, variances = V.prior_box(feature, image, [4.0, 8.0], [6.0, 12.0], aspect_ratios=[])
    expected_boxes, expected_vars = V.prior_box(feature, image, [4.0, 8.0], [6.0, 12.0], aspect_ratios=[1.0])
    assert boxes.shape == [3, 4, 4, 4]
    np.testing.assert_array_equal(boxes.numpy(), expected_boxes.numpy())
    np.testing.assert_array_equal(variances.numpy(), expected_vars.numpy())
    # first cell, first prior: the 4x4 square about (5, 5) in a 40x30 image (value from Paddle 2.6.2)
    np.testing.assert_allclose(boxes.numpy()[0, 0, 0], [0.075, 0.1, 0.175, 0.2333333], rtol=1e-5)
