"""eager.vision.ops.generate_proposals against hand-derived proposals."""
import math

import numpy as np
import pytest

import eager
from eager.vision import ops as O


def rpn(boxes, scores, image_hw=(100.0, 100.0), deltas=None, variances=None, **options):
    """generate_proposals for one image with the anchors ``boxes`` at one place (H = W = 1)."""
    k = len(boxes)
    score_t = eager.to_tensor(np.asarray(scores, np.float32).reshape(1, k, 1, 1))
    delta = np.zeros((k, 4), np.float32) if deltas is None else np.asarray(deltas, np.float32)
    delta_t = eager.to_tensor(delta.reshape(1, k * 4, 1, 1))
    anchors = eager.to_tensor(np.asarray(boxes, np.float32).reshape(1, 1, k, 4))
    var = np.ones((k, 4), np.float32) if variances is None else np.asarray(variances, np.float32)
    rois, probs, num = O.generate_proposals(score_t, delta_t, eager.to_tensor([list(image_hw)]), anchors,
                                            eager.to_tensor(var.reshape(1, 1, k, 4)), return_rois_num=True,
                                            **options)
    return rois.numpy(), probs.numpy()[:, 0], num.numpy()


def test_zero_deltas_give_the_anchors_ranked_by_score():
    rois, probs, num = rpn([[0, 0, 10, 10], [50, 50, 60, 70], [20, 0, 30, 5]], [0.1, 0.7, 0.4])
    np.testing.assert_allclose(rois, [[50, 50, 60, 70], [20, 0, 30, 5], [0, 0, 10, 10]])
    np.testing.assert_allclose(probs, [0.7, 0.4, 0.1], rtol=1e-6)
    assert num.tolist() == [3] and num.dtype == np.int32


def test_deltas_move_and_scale_the_anchor_by_centre_and_size():
    # anchor centre (20, 20), size 20 x 20; dx = 0.5 w, dy = -0.25 h, width x2, height x1
    rois, _, _ = rpn([[10, 10, 30, 30]], [1.0], deltas=[[0.5, -0.25, math.log(2.0), 0.0]])
    np.testing.assert_allclose(rois, [[10, 5, 50, 25]], rtol=1e-5)
    # variances scale the deltas first
    rois, _, _ = rpn([[10, 10, 30, 30]], [1.0], deltas=[[5.0, -2.5, 10 * math.log(2.0), 0.0]],
                     variances=[[0.1, 0.1, 0.1, 0.1]])
    np.testing.assert_allclose(rois, [[10, 5, 50, 25]], rtol=1e-5)
    # pixel boxes: [10, 29] is 20 pixels wide; the centre moves by 0.5 * 20
    rois, _, _ = rpn([[10, 10, 29, 29]], [1.0], deltas=[[0.5, 0.0, 0.0, 0.0]], pixel_offset=True)
    np.testing.assert_allclose(rois, [[20, 10, 39, 29]], rtol=1e-5)


def test_size_deltas_are_capped_and_boxes_clipped_to_the_image():
    rois, _, _ = rpn([[0, 0, 2, 2]], [1.0], deltas=[[0, 0, 50.0, 0]], image_hw=(40.0, 30.0))
    # the width grows by at most 1000/16 (not e^50), then x is clipped to [0, width of image]
    expected_half = 0.5 * 2 * 1000 / 16
    np.testing.assert_allclose(rois, [[0, 0, min(1 + expected_half, 30), 2]], rtol=1e-5)
    rois, _, _ = rpn([[-5, 35, 20, 60]], [1.0], image_hw=(40.0, 30.0))
    np.testing.assert_allclose(rois, [[0, 35, 20, 40]])


def test_small_boxes_are_dropped_and_an_empty_image_gives_one_zero_box():
    rois, _, num = rpn([[0, 0, 10, 10], [20, 20, 20.5, 30]], [0.2, 0.9], min_size=0.1)   # 0.5 wide < 1
    np.testing.assert_allclose(rois, [[0, 0, 10, 10]])
    rois, _, _ = rpn([[0, 0, 10, 10], [20, 20, 23, 30]], [0.2, 0.9], min_size=4.0)
    np.testing.assert_allclose(rois, [[0, 0, 10, 10]])
    rois, probs, num = rpn([[0, 0, 0.5, 0.5]], [0.9])
    assert rois.tolist() == [[0, 0, 0, 0]] and probs.tolist() == [0.0] and num.tolist() == [1]


def test_suppression_top_n_and_adaptive_threshold():
    boxes = [[0, 0, 10, 10], [0, 0, 10, 6], [0, 0, 10, 9], [50, 50, 60, 60]]
    scores = [0.9, 0.8, 0.7, 0.6]        # IoU with the first: 0.6 and 0.9
    rois, _, _ = rpn(boxes, scores, nms_thresh=0.7)
    np.testing.assert_allclose(rois, [boxes[0], boxes[1], boxes[3]])
    rois, _, _ = rpn(boxes, scores, nms_thresh=0.7, eta=0.8)       # 0.7 -> 0.56 after the first kept box
    np.testing.assert_allclose(rois, [boxes[0], boxes[3]])
    rois, _, _ = rpn(boxes, scores, nms_thresh=-1.0)               # no suppression
    assert len(rois) == 4
    rois, _, _ = rpn(boxes, scores, nms_thresh=0.7, post_nms_top_n=2)
    np.testing.assert_allclose(rois, [boxes[0], boxes[1]])
    rois, _, _ = rpn(boxes, scores, nms_thresh=0.7, pre_nms_top_n=1)
    np.testing.assert_allclose(rois, [boxes[0]])


def test_images_and_layout_of_several_anchors_and_places():
    # N=2, A=2, H=1, W=2: scores [N, A, H, W] are read per place, then per anchor
    anchors = np.array([[[[0, 0, 4, 4], [10, 10, 14, 14]], [[20, 20, 24, 24], [30, 30, 34, 34]]]], np.float32)
    scores = np.zeros((2, 2, 1, 2), np.float32)
    scores[0, 1, 0, 0] = 0.9            # image 0: anchor 1 at place 0 -> [10, 10, 14, 14]
    scores[1, 0, 0, 1] = 0.8            # image 1: anchor 0 at place 1 -> [20, 20, 24, 24]
    rois, probs, num = O.generate_proposals(
        eager.to_tensor(scores), eager.zeros([2, 8, 1, 2]), eager.to_tensor([[100.0, 100.0]] * 2),
        eager.to_tensor(anchors), eager.ones([1, 2, 2, 4]), post_nms_top_n=1, return_rois_num=True)
    np.testing.assert_allclose(rois.numpy(), [[10, 10, 14, 14], [20, 20, 24, 24]])
    np.testing.assert_allclose(probs.numpy(), [[0.9], [0.8]], rtol=1e-6)
    assert num.tolist() == [1, 1] and rois.stop_gradient
    assert O.generate_proposals(eager.to_tensor(scores), eager.zeros([2, 8, 1, 2]),
                                eager.to_tensor([[100.0, 100.0]] * 2), eager.to_tensor(anchors),
                                eager.ones([1, 2, 2, 4]))[2] is None


@pytest.mark.parametrize("change, error, message", [
    ({"bbox_deltas": eager.zeros([1, 4, 1, 1])}, ValueError, r"'bbox_deltas' expected shape \[1, 8, 1, 1\]"),
    ({"anchors": eager.zeros([2, 1, 2, 4])}, ValueError, r"'anchors' expected shape \[1, 1, 2, 4\]"),
    ({"img_size": eager.to_tensor([[1.0, 1.0], [1.0, 1.0]])}, ValueError, "'img_size' expected shape"),
    ({"scores": [0.5]}, TypeError, "scores"),
    ({"nms_thresh": "0.5"}, TypeError, "'nms_thresh' expected a float"),
])
def test_bad_arguments_are_refused(change, error, message):
    args = dict(scores=eager.ones([1, 2, 1, 1]), bbox_deltas=eager.zeros([1, 8, 1, 1]),
                img_size=eager.to_tensor([[10.0, 10.0]]), anchors=eager.zeros([1, 1, 2, 4]),
                variances=eager.ones([1, 1, 2, 4]))
    args.update(change)
    with pytest.raises(error, match=message):
        O.generate_proposals(**args)
