"""Regression cases found by a differential sweep of eager against real Paddle 2.6.2
(linalg, fft, signal, distribution, vision.ops, vision.transforms, text, geometric,
audio, sparse; call by call on the same NumPy inputs, plus Paddle's docstring examples).

Found and fixed:
- linalg.matrix_rank returned int64; Paddle returns int32 for every form (float tol,
  Tensor tol, hermitian).
- audio.save rounded float samples to 16-bit; Paddle truncates toward zero
  (astype('<h')), so -0.1 is written as -3276, not -3277.
- distribution.AbsTransform.forward_log_det_jacobian returned zeros; Paddle raises
  NotImplementedError (|x| is not one to one).
- vision.ops.matrix_nms with normalized=False gave boxes apart by a gap under one
  pixel a positive IoU (the +1 pixel extent was added before the overlap test);
  Paddle's kernel counts any gap as no overlap.

Expected values come from NumPy references written here; literals from Paddle 2.6.2
say so.
"""
import io
import wave

import numpy as np
import pytest

import eager
from eager.audio.backends import wave_backend
from eager.distribution import AbsTransform

pytestmark = pytest.mark.usefixtures("device")


# -- linalg.matrix_rank: int32 as Paddle ----------------------------------------------------------------------

def test_matrix_rank_is_int32_for_every_form():
    x = eager.to_tensor(np.stack([np.diag([3.0, 0.5, 0.0]), np.diag([1.0, 1.0, 1.0])]))
    for got in (eager.linalg.matrix_rank(x), eager.linalg.matrix_rank(x, tol=0.7),
                eager.linalg.matrix_rank(x, hermitian=True),
                eager.linalg.matrix_rank(x, tol=eager.to_tensor([0.1, 2.0]))):
        assert got.dtype == eager.int32 and got.shape == [2]       # Paddle 2.6.2: int32 in all four
    assert eager.linalg.matrix_rank(x).numpy().tolist() == [2, 3]
    assert eager.linalg.matrix_rank(x, tol=eager.to_tensor([0.1, 2.0])).numpy().tolist() == [2, 0]
    assert eager.linalg.matrix_rank(eager.zeros([2, 0, 3])).dtype == eager.int32


# -- audio.save: toward zero, as Paddle's astype('<h') ------------------------------------------------------------

def test_audio_save_truncates_toward_zero():
    signal = np.array([[-0.1, 0.1, 0.3, -0.7, 0.99999, 1.0, -1.0]], dtype=np.float32)
    buffer = io.BytesIO()
    wave_backend.save(buffer, eager.to_tensor(signal), 8000)
    buffer.seek(0)
    with wave.open(buffer, "rb") as reader:
        samples = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2")
    want = np.clip(np.trunc(signal[0] * np.float32(2 ** 15)), -2 ** 15, 2 ** 15 - 1)
    assert samples.tolist() == want.tolist()
    assert samples[0] == -3276 and samples[1] == 3276      # Paddle 2.6.2 writes these (rounding gave -3277, 3277)


# -- AbsTransform.forward_log_det_jacobian: refused as in Paddle -------------------------------------------------

def test_abs_transform_forward_log_det_jacobian_raises():
    t = AbsTransform()
    x = eager.to_tensor([-1.5, 2.0])
    with pytest.raises(NotImplementedError, match=r"AbsTransform.forward_log_det_jacobian: not defined .* one to one"):
        t.forward_log_det_jacobian(x)
    neg, pos = t.inverse_log_det_jacobian(x)                 # both branches have unit slope: still zeros
    assert neg.numpy().tolist() == [0.0, 0.0] and pos.numpy().tolist() == [0.0, 0.0]
    assert t.forward(x).numpy().tolist() == [1.5, 2.0]


# -- matrix_nms: a sub-pixel gap is no overlap with normalized=False ----------------------------------------------

def test_matrix_nms_sub_pixel_gap_does_not_decay():
    boxes = eager.to_tensor(np.array([[[0.0, 0.0, 2.0, 2.0], [2.5, 0.0, 4.5, 2.0], [1.0, 0.0, 3.0, 2.0]]]))
    scores = eager.to_tensor(np.array([[[0.0, 0.0, 0.0], [0.9, 0.8, 0.7]]]))
    out, nums, _ = eager.vision.ops.matrix_nms(boxes, scores, 0.1, 0.0, -1, -1, normalized=False)
    got = {round(row[1], 6) for row in out.numpy().tolist()}
    # box 1 lies 0.5 px right of box 0: no overlap, score 0.8 kept (the +1-pixel IoU would give 0.727).
    # box 2 overlaps both: inter (2-1+1)*(2+1)=6 with box 0, (3-2.5+1)*3=4.5 with box 1, areas 9:
    iou0, iou1 = 6 / (18 - 6), 4.5 / (18 - 4.5)
    want_2 = 0.7 * min((1 - iou0) / 1.0, (1 - iou1) / (1 - 0.0))
    assert got == {0.9, 0.8, round(want_2, 6)} and nums.numpy().tolist() == [3]


# -- vision.transforms on Tensor images: Paddle's Tensor backend --------------------------------------------------

def test_tensor_rotate_bilinear_blends_the_border_as_paddle():
    from eager.vision.transforms import functional as F
    img = np.arange(12.0, dtype=np.float32).reshape(1, 3, 4) / 12.0
    out = F.rotate(eager.to_tensor(img), 30, "bilinear", fill=1.0).numpy()
    # reference: bilinear taps of the inverse map (pixel centres, about the image centre), zero outside,
    # then Paddle's grid_sample-with-mask blend: sampled * inside + (1 - inside) * fill
    h, w = 3, 4
    c, s = np.cos(np.radians(30)), np.sin(np.radians(30))
    want = np.zeros((h, w))
    for i in range(h):
        for j in range(w):
            x, y = j + 0.5 - w / 2, i + 0.5 - h / 2
            u, v = w / 2 + x * c - y * s - 0.5, h / 2 + x * s + y * c - 0.5
            x0, y0 = int(np.floor(u)), int(np.floor(v))
            sampled = inside = 0.0
            for xi, yi, wt in ((x0, y0, (1 - (u - x0)) * (1 - (v - y0))), (x0 + 1, y0, (u - x0) * (1 - (v - y0))),
                               (x0, y0 + 1, (1 - (u - x0)) * (v - y0)), (x0 + 1, y0 + 1, (u - x0) * (v - y0))):
                if 0 <= xi < w and 0 <= yi < h:
                    sampled += wt * img[0, yi, xi]
                    inside += wt
            want[i, j] = sampled * inside + (1 - inside) * 1.0
    np.testing.assert_allclose(out[0], want, atol=1e-6)


def test_tensor_grayscale_contrast_and_hue_follow_paddles_tensor_backend():
    from eager.vision.transforms import functional as F
    rgb = np.array([[[0.8, 0.2], [0.1, 0.5]], [[0.3, 0.9], [0.6, 0.4]], [[0.5, 0.1], [0.7, 0.2]]], np.float32)
    gray = 0.2989 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]         # Paddle's Tensor weights
    np.testing.assert_allclose(F.to_grayscale(eager.to_tensor(rgb)).numpy()[0], gray, rtol=1e-6)
    np.testing.assert_allclose(F.adjust_contrast(eager.to_tensor(rgb), 0.0).numpy(),
                               np.full_like(rgb, gray.mean()), rtol=1e-6)
    # uint8 hue: Paddle casts back with astype (toward zero); literals from Paddle 2.6.2 (exact: 30.0 -> 29
    # in float32, 67.5 -> 67; rounding gave 30 and 68)
    u8 = np.array([[[200, 13]], [[30, 250]], [[90, 77]]], np.uint8)
    got = F.adjust_hue(eager.to_tensor(u8), 0.25).numpy()
    assert got[:, 0, 0].tolist() == [175, 200, 29] and got[:, 0, 1].tolist() == [12, 67, 250]


# -- geometric: no edges still gives x a (zero) gradient, as Paddle ----------------------------------------------

@pytest.mark.parametrize("reduce_op", ["sum", "mean", "max", "min"])
def test_send_u_recv_without_edges_gives_zero_gradient(reduce_op):
    x = eager.to_tensor(np.ones((2, 3)), stop_gradient=False)
    none = eager.to_tensor(np.zeros(0, np.int64))
    out = eager.geometric.send_u_recv(x, none, none, reduce_op)
    assert out.shape == [2, 3] and not out.numpy().any()
    out.sum().backward()
    assert x.grad is not None and x.grad.numpy().tolist() == [[0.0] * 3] * 2
