"""Regression cases from the differential sweep of geometric, incubate, text,
signal/audio and vision.ops. Each test failed on the code before the sweep's fixes:

- vision.ops.nms cut to ``top_k`` with ``scores`` alone, where Paddle applies it only with
  ``category_idxs`` (and asserts ``top_k <= len(boxes)``); a category listed twice in
  ``categories`` returned its boxes twice, and equal scores came back grouped by category
  instead of in box order (Paddle collects survivors in a mask, then sorts by score).
- roi_align / roi_pool / psroi_pool did arithmetic on an unchecked ``spatial_scale`` (a
  string died in NumPy, NaN in int()), and roi_align took any truthy ``aligned``.
- yolo_box, yolo_loss, prior_box, matrix_nms, distribute_fpn_proposals, box_coder and
  generate_proposals used their float/flag arguments unchecked: None, strings and lists
  died inside NumPy, and an array flag failed on its truth value. prior_box divided by a
  zero aspect ratio, or by an empty feature map's size (ZeroDivisionError).
- audio.functional.compute_fbank_matrix named hz_to_mel / fft_frequencies for its own
  bad ``htk`` / ``dtype``; a Tensor or array ``norm`` (compute_fbank_matrix, create_dct)
  reached ``==`` and failed elementwise; MelSpectrogram computed ``sr // 2`` on an
  unchecked ``sr``.
- deform_conv2d with an offset, weight or mask of another dtype than x failed in matmul;
  signal.overlap_add of a bool Tensor failed for want of an index_add kernel;
  power_to_db of an empty spectrogram with top_db failed in max.
- incubate.graph_send_recv reported a bad pool_type as send_u_recv's 'reduce_op';
  incubate.identity_loss looked a list or array reduction up in a dict (unhashable).
- audio.compliance.kaldi: a list window_type was unhashable, a NaN frame_length died in int(),
  and a negative dither (noise dither * randn in Paddle) was refused by gaussian as a bad std;
  audio.compliance.librosa compared an array norm/dct_type elementwise and took the max of an
  empty spectrogram for top_db.
- DeformConv2D did arithmetic on unchecked in_channels/out_channels/groups; incubate's mode and
  activation checks compared an array or Tensor elementwise with ``in``.

The sweep also compared, and found in agreement: stft/istft against torch.stft/istft,
send_u_recv/send_ue_recv/send_uv/segment_* (values and gradients) against loops,
viterbi_decode against brute force over all tag paths, roi_align against a loop of
Paddle's CPU kernel, the windows against scipy.signal.get_window, the audio features
against NumPy formulas, and the incubate fused ops against torch compositions.
References here are hand-written loops of Paddle's rules.
"""
import itertools

import numpy as np
import pytest

import eager
from eager.audio import features as AFe
from eager.audio.compliance import kaldi, librosa
from eager.audio import functional as AF
from eager.vision import ops as V

pytestmark = pytest.mark.usefixtures("device")


def _iou(a, b):
    iw = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0)
    ih = max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)
    inter = iw * ih
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def _greedy(boxes, threshold):
    """Paddle's NMS kernel: boxes in the given order, later ones suppressed by kept ones."""
    kept = []
    for i in range(len(boxes)):
        if all(_iou(boxes[k], boxes[i]) <= threshold for k in kept):
            kept.append(i)
    return kept


def _paddle_category_nms(boxes, scores, labels, categories, threshold, top_k):
    """Paddle's python nms with category_idxs: a keep mask per category, then all
    survivors in box order, stably sorted by score, cut to top_k."""
    mask = np.zeros(len(boxes), bool)
    for category in categories:
        members = np.flatnonzero(labels == category)
        order = members[np.argsort(-scores[members], kind="stable")]
        mask[order[_greedy(boxes[order], threshold)]] = True
    kept = np.flatnonzero(mask)
    kept = kept[np.argsort(-scores[kept], kind="stable")]
    return kept[:top_k].tolist() if top_k is not None else kept.tolist()


_BOXES = np.array([[0, 0, 2, 2], [0.1, 0, 2, 2], [3, 3, 4, 4], [3, 3, 4.2, 4], [5, 5, 6, 6]], np.float32)


def test_nms_top_k_is_ignored_without_category_idxs_as_in_paddle():
    scores = np.array([0.5, 0.9, 0.7, 0.6, 0.8], np.float32)
    order = np.argsort(-scores, kind="stable")
    expected = [int(order[i]) for i in _greedy(_BOXES[order].astype(np.float64), 0.5)]
    got = V.nms(eager.to_tensor(_BOXES), 0.5, scores=eager.to_tensor(scores), top_k=1)
    assert got.numpy().tolist() == expected == [1, 4, 2]
    assert V.nms(eager.to_tensor(_BOXES), 0.5, top_k=1).numpy().tolist() == _greedy(_BOXES, 0.5)


def test_nms_top_k_cuts_with_categories_and_must_not_exceed_the_box_count():
    scores = np.array([0.5, 0.9, 0.7, 0.6, 0.8], np.float32)
    labels = np.array([0, 0, 1, 1, 0])
    got = V.nms(eager.to_tensor(_BOXES), 0.5, eager.to_tensor(scores), eager.to_tensor(labels), [0, 1], top_k=2)
    assert got.numpy().tolist() == _paddle_category_nms(_BOXES, scores, labels, [0, 1], 0.5, 2) == [1, 4]
    with pytest.raises(ValueError, match=r"nms: argument 'top_k' \(6\) must not exceed the number of boxes \(5\)"):
        V.nms(eager.to_tensor(_BOXES), 0.5, eager.to_tensor(scores), eager.to_tensor(labels), [0, 1], top_k=6)


def test_nms_category_listed_twice_keeps_its_boxes_once_and_ties_keep_box_order():
    scores = np.array([0.5, 0.5, 0.5, 0.5, 0.5], np.float32)
    labels = np.array([1, 0, 1, 0, 1])
    boxes = np.array([[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5], [6, 6, 7, 7], [8, 8, 9, 9]], np.float32)
    for categories in ([0, 1], [1, 0, 1]):
        got = V.nms(eager.to_tensor(boxes), 0.5, eager.to_tensor(scores), eager.to_tensor(labels), categories)
        assert got.numpy().tolist() == _paddle_category_nms(boxes, scores, labels, categories, 0.5, None)
        assert got.numpy().tolist() == [0, 1, 2, 3, 4]


def test_nms_refuses_a_non_list_categories_by_name():
    boxes, scores = eager.to_tensor(_BOXES[:2]), eager.to_tensor([0.3, 0.4])
    with pytest.raises(TypeError, match="nms: argument 'categories' expected a list, tuple or 1-D Tensor"):
        V.nms(boxes, 0.5, scores, eager.to_tensor([0, 1]), 5)
    # float category ids compare by value, as in Paddle's python (category_idxs == category_id)
    assert V.nms(boxes, 0.5, scores, eager.to_tensor([0.0, 1.0]), [0, 1]).numpy().tolist() == [1, 0]


def _roi_inputs():
    x = eager.to_tensor(np.arange(2 * 36, dtype=np.float32).reshape(1, 2, 6, 6))
    return x, eager.to_tensor([[0.0, 0.0, 3.0, 3.0]]), eager.to_tensor([1], dtype="int32")


@pytest.mark.parametrize("call, name", [
    (lambda x, b, n, s: V.roi_align(x, b, n, 2, spatial_scale=s), "roi_align"),
    (lambda x, b, n, s: V.roi_pool(x, b, n, 2, spatial_scale=s), "roi_pool"),
    (lambda x, b, n, s: V.psroi_pool(x, b, n, 1, spatial_scale=s), "psroi_pool"),
])
def test_roi_ops_check_spatial_scale(call, name):
    x, boxes, num = _roi_inputs()
    before = x.numpy().copy()
    with pytest.raises(TypeError, match=f"{name}: argument 'spatial_scale' expected a float, got str"):
        call(x, boxes, num, "a")
    with pytest.raises(TypeError, match=f"{name}: argument 'spatial_scale' expected a float, got NoneType"):
        call(x, boxes, num, None)
    for bad in (float("nan"), -1.0, 0.0):
        with pytest.raises(ValueError, match=f"{name}: argument 'spatial_scale' expected a finite number > 0"):
            call(x, boxes, num, bad)
    np.testing.assert_array_equal(x.numpy(), before)


def test_roi_align_aligned_must_be_a_bool():
    x, boxes, num = _roi_inputs()
    with pytest.raises(TypeError, match="roi_align: argument 'aligned' expected a bool, got str 'yes'"):
        V.roi_align(x, boxes, num, 2, aligned="yes")
    # a NumPy bool is a bool: the same result as Python's
    np.testing.assert_array_equal(V.roi_align(x, boxes, num, 2, aligned=np.bool_(False)).numpy(),
                                  V.roi_align(x, boxes, num, 2, aligned=False).numpy())


_YOLO = dict(x=None, img_size=None, anchors=[10, 13, 16, 30], class_num=2, conf_thresh=0.01, downsample_ratio=8)


def _yolo_box(**changes):
    kw = dict(_YOLO, x=eager.rand([1, 14, 2, 2]), img_size=eager.to_tensor([[16, 16]], dtype="int32"))
    kw.update(changes)
    return V.yolo_box(**kw)


@pytest.mark.parametrize("arg, value, error, message", [
    ("conf_thresh", None, TypeError, "yolo_box: argument 'conf_thresh' expected a float, got NoneType"),
    ("conf_thresh", [0.1, 0.2], TypeError, "yolo_box: argument 'conf_thresh' expected a float, got list"),
    ("downsample_ratio", "8", TypeError, "yolo_box: argument 'downsample_ratio' expected an int, got str"),
    ("downsample_ratio", 0, ValueError, r"yolo_box: argument 'downsample_ratio' expected an int >= 1, got 0"),
    ("scale_x_y", "1", TypeError, "yolo_box: argument 'scale_x_y' expected a float, got str"),
    ("clip_bbox", np.ones(3), TypeError, "yolo_box: argument 'clip_bbox' expected a bool, got ndarray"),
    ("iou_aware", "no", TypeError, "yolo_box: argument 'iou_aware' expected a bool, got str"),
    ("iou_aware_factor", None, TypeError, "yolo_box: argument 'iou_aware_factor' expected a float, got NoneType"),
])
def test_yolo_box_checks_its_scalar_arguments(arg, value, error, message):
    with pytest.raises(error, match=message):
        _yolo_box(**{arg: value})


def test_yolo_loss_and_generate_proposals_flags_must_be_bools():
    x = eager.rand([1, 14, 4, 4])
    with pytest.raises(TypeError, match="yolo_loss: argument 'use_label_smooth' expected a bool, got ndarray"):
        V.yolo_loss(x, eager.rand([1, 2, 4]), eager.to_tensor([[0, 1]], dtype="int32"), [10, 13, 16, 30], [0, 1],
                    2, 0.7, 8, use_label_smooth=np.ones(3))
    args = (eager.rand([1, 2, 3, 3]), eager.rand([1, 8, 3, 3]), eager.to_tensor([[30.0, 30.0]]),
            eager.rand([3, 3, 2, 4]) * 10, eager.ones([3, 3, 2, 4]))
    for arg in ("pixel_offset", "return_rois_num"):
        with pytest.raises(TypeError, match=f"generate_proposals: argument '{arg}' expected a bool, got Tensor"):
            V.generate_proposals(*args, **{arg: eager.to_tensor([1, 0])})


def _prior_box(**changes):
    kw = dict(input=eager.rand([1, 2, 3, 3]), image=eager.rand([1, 3, 12, 12]), min_sizes=[2.0], max_sizes=[4.0],
              aspect_ratios=[2.0], flip=True, clip=True)
    kw.update(changes)
    return V.prior_box(**kw)


def test_prior_box_checks_ratios_offset_and_flags():
    with pytest.raises(ValueError, match=r"prior_box: argument 'aspect_ratios' expected positive ratios, got \[0\]"):
        _prior_box(aspect_ratios=[0])
    with pytest.raises(ValueError, match="prior_box: argument 'aspect_ratios' expected positive ratios"):
        _prior_box(aspect_ratios=[-3.0])
    with pytest.raises(TypeError, match="prior_box: argument 'offset' expected a float, got NoneType"):
        _prior_box(offset=None)
    for arg in ("flip", "clip", "min_max_aspect_ratios_order"):
        with pytest.raises(TypeError, match=f"prior_box: argument '{arg}' expected a bool, got ndarray"):
            _prior_box(**{arg: np.ones(2)})


def test_prior_box_values_with_flip_against_a_loop():
    boxes, variances = _prior_box(aspect_ratios=[2.0], flip=True, clip=False, offset=0.5)
    step = 12 / 3
    expected = []
    for h, w in itertools.product(range(3), range(3)):
        cx, cy = (w + 0.5) * step, (h + 0.5) * step
        row = []
        for bw, bh in [(2.0, 2.0), (2.0 * 2 ** 0.5, 2.0 / 2 ** 0.5), (2.0 / 2 ** 0.5, 2.0 * 2 ** 0.5),
                       (8 ** 0.5, 8 ** 0.5)]:
            row.append([(cx - bw / 2) / 12, (cy - bh / 2) / 12, (cx + bw / 2) / 12, (cy + bh / 2) / 12])
        expected.append(row)
    np.testing.assert_allclose(boxes.numpy(), np.array(expected).reshape(3, 3, 4, 4), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(variances.numpy()[1, 2, 3], [0.1, 0.1, 0.2, 0.2], rtol=1e-6)


def test_matrix_nms_distribute_fpn_and_box_coder_check_scalars_and_flags():
    bboxes, scores = eager.rand([1, 3, 4]), eager.rand([1, 2, 3])
    for arg in ("score_threshold", "post_threshold", "gaussian_sigma"):
        kw = dict(score_threshold=0.1, post_threshold=0.1, nms_top_k=3, keep_top_k=3)
        kw[arg] = "x"
        with pytest.raises(TypeError, match=f"matrix_nms: argument '{arg}' expected a float, got str"):
            V.matrix_nms(bboxes, scores, **kw)
    for arg in ("use_gaussian", "normalized", "return_index", "return_rois_num"):
        with pytest.raises(TypeError, match=f"matrix_nms: argument '{arg}' expected a bool, got ndarray"):
            V.matrix_nms(bboxes, scores, 0.1, 0.1, 3, 3, **{arg: np.ones(2)})
    rois = eager.to_tensor([[0.0, 0.0, 10.0, 10.0], [0.0, 0.0, 100.0, 100.0]])
    with pytest.raises(TypeError, match="distribute_fpn_proposals: argument 'refer_scale' expected a float"):
        V.distribute_fpn_proposals(rois, 2, 5, 4, None)
    with pytest.raises(ValueError, match="distribute_fpn_proposals: argument 'refer_scale' expected a finite"):
        V.distribute_fpn_proposals(rois, 2, 5, 4, 0)
    with pytest.raises(TypeError, match="distribute_fpn_proposals: argument 'pixel_offset' expected a bool"):
        V.distribute_fpn_proposals(rois, 2, 5, 4, 224, pixel_offset=np.ones(2))
    prior, target = eager.to_tensor([[0.0, 0.0, 2.0, 2.0]]), eager.to_tensor([[0.0, 0.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match="box_coder: argument 'code_type' expected 'encode_center_size'"):
        V.box_coder(prior, None, target, code_type=np.ones(2))
    with pytest.raises(TypeError, match="box_coder: argument 'box_normalized' expected a bool, got Tensor"):
        V.box_coder(prior, None, target, box_normalized=eager.to_tensor([1, 0]))
    with pytest.raises(TypeError, match="box_coder: argument 'axis' expected an int, got ndarray"):
        V.box_coder(prior, None, target, axis=np.ones(2))


def test_compute_fbank_matrix_names_itself_for_htk_and_dtype():
    with pytest.raises(TypeError, match="audio.functional.compute_fbank_matrix: argument 'htk' expected a bool"):
        AF.compute_fbank_matrix(16000, 64, 8, htk="yes")
    with pytest.raises(TypeError, match="audio.functional.compute_fbank_matrix: argument 'dtype' expected"):
        AF.compute_fbank_matrix(16000, 64, 8, dtype="int8")
    with pytest.raises(TypeError, match="audio.functional.mel_frequencies: argument 'htk' expected a bool"):
        AF.mel_frequencies(4, 0.0, 2000.0, htk=None)


@pytest.mark.parametrize("norm", [np.ones(3), "slaney_"])
def test_fbank_and_dct_refuse_array_norms(norm):
    with pytest.raises(ValueError, match="audio.functional.compute_fbank_matrix: argument 'norm' expected 'slaney'"):
        AF.compute_fbank_matrix(16000, 64, 8, norm=norm)
    with pytest.raises(ValueError, match="audio.functional.create_dct: argument 'norm' expected 'ortho' or None"):
        AF.create_dct(4, 8, norm=norm)


def test_fbank_and_dct_refuse_tensor_norms():
    with pytest.raises(ValueError, match="audio.functional.compute_fbank_matrix: argument 'norm' expected"):
        AF.compute_fbank_matrix(16000, 64, 8, norm=eager.to_tensor([1.0]))
    with pytest.raises(ValueError, match="audio.functional.create_dct: argument 'norm' expected"):
        AF.create_dct(4, 8, norm=eager.to_tensor([1.0]))


def test_create_dct_ortho_against_the_formula():
    got = AF.create_dct(3, 5, dtype="float64").numpy()
    n, k = np.arange(5), np.arange(3)[:, None]
    expected = np.cos(np.pi / 5 * (n + 0.5) * k) * np.sqrt(2 / 5)
    expected[0] /= np.sqrt(2)
    np.testing.assert_allclose(got, expected.T, atol=1e-12)


def test_mel_spectrogram_checks_sr():
    with pytest.raises(TypeError, match="audio.features.MelSpectrogram: argument 'sr' expected a number, got str"):
        AFe.MelSpectrogram(sr="16000", n_fft=64, n_mels=8)


def test_deform_conv2d_refuses_mixed_dtypes_by_name():
    x, offset = eager.rand([1, 2, 5, 5]), eager.zeros([1, 18, 5, 5])
    weight, mask = eager.rand([3, 2, 3, 3]), eager.ones([1, 9, 5, 5])
    for arg in ("offset", "weight", "mask"):
        args = dict(x=x, offset=offset, weight=weight, mask=mask, padding=1)
        args[arg] = args[arg].astype("float64")
        with pytest.raises(TypeError, match=f"deform_conv2d: argument '{arg}' expected dtype paddle.float32 "
                                            f"\\(that of x\\), got paddle.float64"):
            V.deform_conv2d(**args)


def test_overlap_add_refuses_bool_and_sums_ints_against_a_loop():
    with pytest.raises(TypeError, match="signal.overlap_add: argument 'x' expected a numeric Tensor, got paddle.bool"):
        eager.signal.overlap_add(eager.ones([3, 2]).astype("bool"), 1)
    frames = np.arange(6).reshape(3, 2)                                        # [frame_length, num_frames]
    expected = np.zeros(4, np.int64)
    for i in range(2):
        expected[i:i + 3] += frames[:, i]
    np.testing.assert_array_equal(eager.signal.overlap_add(eager.to_tensor(frames), 1).numpy(), expected)


def test_power_to_db_of_an_empty_spectrogram_with_top_db_is_refused_by_name():
    with pytest.raises(ValueError, match=r"audio.functional.power_to_db: argument 'spect' is empty \(shape \[0, 3\]\)"):
        AF.power_to_db(eager.zeros([0, 3]), top_db=80.0)
    assert AF.power_to_db(eager.zeros([0, 3]), top_db=None).shape == [0, 3]


def test_graph_send_recv_names_pool_type_not_send_u_recvs_reduce_op():
    x = eager.to_tensor([[1.0], [2.0], [4.0]])
    src, dst = eager.to_tensor([0, 1, 2]), eager.to_tensor([1, 1, 0])
    with pytest.raises(ValueError, match="^incubate.graph_send_recv: argument 'pool_type' expected 'sum', 'mean', "
                                         "'max' or 'min', got 'prod'$"):
        eager.incubate.graph_send_recv(x, src, dst, "prod")
    # Paddle 2.3's upper-case names still work: out[1] = max(x[0], x[1]), out[0] = x[2]
    assert eager.incubate.graph_send_recv(x, src, dst, "MAX").numpy().ravel().tolist() == [4.0, 2.0, 0.0]


@pytest.mark.parametrize("reduction", [[1, 2], np.ones(2)])
def test_identity_loss_refuses_an_unhashable_reduction_by_name(reduction):
    x = eager.to_tensor([1.0, 3.0])
    with pytest.raises(ValueError, match="^incubate.identity_loss: argument 'reduction' expected 'sum', 'mean', "
                                         "'none' or 0, 1, 2"):
        eager.incubate.identity_loss(x, reduction)
    assert float(eager.incubate.identity_loss(x, np.int64(1))) == 2.0  # a NumPy int is an int


def test_kaldi_fbank_checks_window_type_frame_sizes_and_dither():
    wav = eager.rand([1, 4000])
    with pytest.raises(ValueError, match="audio.compliance.kaldi.fbank: argument 'window_type' expected one of"):
        kaldi.fbank(wav, n_mels=10, window_type=["povey"])
    with pytest.raises(ValueError, match="audio.compliance.kaldi.fbank: arguments 'frame_shift' and 'frame_length' "
                                         "expected finite milliseconds"):
        kaldi.fbank(wav, n_mels=10, frame_length=float("nan"))
    with pytest.raises(ValueError, match="audio.compliance.kaldi.fbank: argument 'dither' expected a finite number"):
        kaldi.fbank(wav, n_mels=10, dither=float("nan"))
    # Paddle adds dither * randn: a negative dither is noise like a positive one, not an error
    eager.seed(3)
    noisy = kaldi.fbank(wav, n_mels=10, dither=-1.0)
    assert noisy.shape == kaldi.fbank(wav, n_mels=10).shape
    assert not np.allclose(noisy.numpy(), kaldi.fbank(wav, n_mels=10).numpy())


def test_librosa_compliance_refuses_array_arguments_by_name():
    wav = np.random.default_rng(0).standard_normal(2000).astype("float32")
    with pytest.raises(ValueError, match="audio.compliance.librosa.compute_fbank_matrix: argument 'norm' expected "
                                         "'slaney'"):
        librosa.compute_fbank_matrix(16000, 256, 16, norm=np.ones(2))
    with pytest.raises(ValueError, match="audio.compliance.librosa.mfcc: argument 'dct_type' expected 2"):
        librosa.mfcc(wav, n_mfcc=8, dct_type=np.ones(2))
    with pytest.raises(ValueError, match="audio.compliance.librosa.mfcc: argument 'norm' expected 'ortho' or None"):
        librosa.mfcc(wav, n_mfcc=8, norm=np.ones(2))
    with pytest.raises(ValueError, match=r"audio.compliance.librosa.power_to_db: argument 'spect' is empty"):
        librosa.power_to_db(np.zeros(0), top_db=80.0)
    np.testing.assert_allclose(librosa.power_to_db(np.array([1.0, 10.0]), top_db=None), [0.0, 10.0])


@pytest.mark.parametrize("arg, value, error", [
    ("in_channels", None, TypeError), ("out_channels", "6", TypeError), ("groups", np.ones(2), TypeError),
    ("in_channels", -3, ValueError), ("out_channels", 0, ValueError), ("deformable_groups", 0, ValueError),
])
def test_deform_conv2d_layer_checks_its_channels_and_groups(arg, value, error):
    kw = dict(in_channels=2, out_channels=4, kernel_size=3, padding=1)
    kw[arg] = value
    with pytest.raises(error, match=f"DeformConv2D: argument '{arg}' expected an int"):
        V.DeformConv2D(**kw)


def test_incubate_mode_and_activation_refuse_arrays_by_name():
    F = eager.incubate.nn.functional
    x = eager.rand([1, 2, 4])
    with pytest.raises(ValueError, match="incubate.nn.functional.fused_dropout_add: argument 'mode' expected"):
        F.fused_dropout_add(x, x, 0.0, mode=np.ones(2))
    with pytest.raises(ValueError, match="FusedDropoutAdd: argument 'mode' expected 'upscale_in_train'"):
        eager.incubate.nn.FusedDropoutAdd(0.5, mode=np.ones(2))
    with pytest.raises(ValueError, match="^FusedFeedForward: argument 'activation' expected 'relu' or 'gelu'"):
        eager.incubate.nn.FusedFeedForward(4, 8, activation=eager.to_tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="fused_linear_activation: argument 'activation' expected None, 'none'"):
        F.fused_linear_activation(eager.rand([2, 3]), eager.rand([3, 4]), eager.rand([4]), activation=np.ones(2))
    # None still means no activation, as Paddle's
    a, b, c = eager.rand([2, 3]), eager.rand([3, 4]), eager.rand([4])
    np.testing.assert_allclose(F.fused_linear_activation(a, b, c, activation=None).numpy(),
                               a.numpy() @ b.numpy() + c.numpy(), rtol=1e-5)


@pytest.mark.parametrize("feature, image", [([1, 2, 0, 3], [1, 3, 12, 12]), ([1, 2, 3, 3], [1, 3, 12, 0])])
def test_prior_box_refuses_an_empty_feature_map_or_image(feature, image):
    with pytest.raises(ValueError, match="prior_box: arguments 'input' .* and 'image' .* expected a non-empty height"):
        V.prior_box(eager.zeros(feature), eager.zeros(image), [2.0])
