"""Detection ops (Paddle's ``paddle.vision.ops``): ``nms``, ``box_coder``,
``roi_align`` / ``RoIAlign``, ``roi_pool`` / ``RoIPool``, ``psroi_pool`` /
``PSRoIPool``, ``deform_conv2d`` / ``DeformConv2D``, ``prior_box``,
``yolo_box``, ``yolo_loss``, ``generate_proposals``, ``distribute_fpn_proposals``, ``matrix_nms``, ``read_file`` /
``decode_jpeg`` and the ``ConvNormActivation`` block.

Boxes are ``[x1, y1, x2, y2]`` rows. Which input pixels a region reads, and with
what weights, depends only on the boxes (which get no gradient, as in Paddle), so
it is worked out on the host from the boxes' values; the pixels are then gathered
from ``x`` with differentiable ops on ``x``'s device, so gradients reach ``x``
(roi_align: through the bilinear weights; roi_pool: to the maximum of each bin).

>>> x = eager.rand([1, 2, 8, 8])
>>> boxes = eager.to_tensor([[0.0, 0.0, 4.0, 4.0]])
>>> eager.vision.ops.roi_align(x, boxes, eager.to_tensor([1], dtype="int32"), 2).shape
[1, 2, 2, 2]
"""
from __future__ import annotations

import importlib
import io
import math
import numbers
import os

import numpy as np

from .. import nn
from ..arguments import bad_tensor, in_called, to_bool, to_float
from ..composite import _paddle_api as _check
from ..creation import to_tensor
from ..generated import forward_api as _F
from ..tensor import Tensor

# ---- argument checks ---------------------------------------------------------------------------------------------


def _tensor(fn, arg, value, ndim=None, last=None, floating=False):
    if not isinstance(value, Tensor):
        raise bad_tensor(fn, arg, value)
    if ndim is not None and len(value.shape) != ndim:
        raise ValueError(f"{fn}: argument '{arg}' expected a {ndim}-D Tensor, got shape {value.shape}")
    if last is not None and value.shape[-1] != last:
        raise ValueError(f"{fn}: argument '{arg}' expected shape [..., {last}], got {value.shape}")
    if floating and str(value.dtype).split(".")[-1] not in ("float16", "bfloat16", "float32", "float64"):
        raise TypeError(f"{fn}: argument '{arg}' expected a floating Tensor, got {value.dtype}")
    return value


def _output_size(fn, output_size):
    size = (output_size, output_size) if isinstance(output_size, numbers.Integral) else output_size
    if (not isinstance(size, (list, tuple)) or len(size) != 2
            or not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) and s > 0 for s in size)):
        raise ValueError(f"{fn}: argument 'output_size' expected a positive int or a pair of them, got "
                         f"{output_size!r}")
    return int(size[0]), int(size[1])


def _regions(fn, x, boxes, boxes_num):
    """The boxes as float64 NumPy rows and each box's image index."""
    _tensor(fn, "x", x, ndim=4, floating=True)
    _tensor(fn, "boxes", boxes, ndim=2, last=4, floating=True)
    _tensor(fn, "boxes_num", boxes_num, ndim=1)
    counts = boxes_num.numpy()
    if counts.dtype.kind not in "iu":
        raise TypeError(f"{fn}: argument 'boxes_num' expected an int32 or int64 Tensor, got {boxes_num.dtype}")
    if counts.shape[0] != x.shape[0]:
        raise ValueError(f"{fn}: argument 'boxes_num' expected one count per image ({x.shape[0]}), got "
                         f"{counts.shape[0]}")
    if (counts < 0).any() or int(counts.sum()) != boxes.shape[0]:
        raise ValueError(f"{fn}: argument 'boxes_num' {counts.tolist()} must be non-negative and sum to the "
                         f"number of boxes ({boxes.shape[0]})")
    return boxes.numpy().astype(np.float64), np.repeat(np.arange(len(counts)), counts)


def _scale(fn, value, arg="spatial_scale"):
    """A scale argument (``spatial_scale`` unless named): a finite number > 0 (it
    multiplies box corners, or divides box sizes)."""
    value = to_float(value, fn, arg)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{fn}: argument '{arg}' expected a finite number > 0, got {value!r}")
    return value


def _gather_pixels(x, image, flat):
    """``x``'s channel vectors at pixels ``flat`` (indices into H*W) of images
    ``image`` (both int arrays of one shape S): a Tensor of shape S + [C]."""
    n, c, h, w = x.shape
    rows = np.asarray(image, np.int64) * (h * w) + np.asarray(flat, np.int64)
    table = _F.reshape(_F.transpose(x, [0, 2, 3, 1]), [n * h * w, c])
    index = to_tensor(rows.reshape(-1), place=x.place)
    return _F.reshape(_F.gather(table, index, axis=0), list(rows.shape) + [c])


def _to_nchw(values, regions, pooled):
    """[R, ph*pw, C] -> [R, C, ph, pw]."""
    return _F.transpose(_F.reshape(values, [regions, pooled[0], pooled[1], values.shape[-1]]), [0, 3, 1, 2])


# ---- roi_align ---------------------------------------------------------------------------------------------------


def _bilinear_taps(ys, xs, height, width):
    """Four (pixel, weight) taps per sample point, Paddle's border rule: a point
    more than one pixel outside reads 0, others are clamped to the image."""
    outside = (ys < -1.0) | (ys > height) | (xs < -1.0) | (xs > width)
    ys, xs = np.maximum(ys, 0.0), np.maximum(xs, 0.0)
    y0, x0 = ys.astype(np.int64), xs.astype(np.int64)
    top, left = y0 >= height - 1, x0 >= width - 1
    y0, x0 = np.where(top, height - 1, y0), np.where(left, width - 1, x0)
    y1, x1 = np.where(top, y0, y0 + 1), np.where(left, x0, x0 + 1)
    ly, lx = np.where(top, 0.0, ys - y0), np.where(left, 0.0, xs - x0)
    hy, hx = 1.0 - ly, 1.0 - lx
    pixels = np.stack([y0 * width + x0, y0 * width + x1, y1 * width + x0, y1 * width + x1], -1)
    weights = np.stack([hy * hx, hy * lx, ly * hx, ly * lx], -1)
    weights[outside] = 0.0
    return pixels, weights


def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=True, name=None):
    """Region of interest align: each box (in input coordinates, scaled by
    ``spatial_scale``) is cut into ``output_size`` bins and each bin is the mean
    of bilinear samples of ``x`` on a regular grid (``sampling_ratio`` points per
    side, or ``ceil(bin size)`` when it is <= 0). ``aligned`` shifts the box by
    half a pixel (pixel centres at +0.5); without it boxes are at least 1x1.

    ``x``: [N, C, H, W]; ``boxes``: [R, 4] of all images in order;
    ``boxes_num``: [N], how many boxes belong to each image. Returns
    [R, C, out_h, out_w]; differentiable in ``x``.

    >>> x = eager.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    >>> eager.vision.ops.roi_align(x, eager.to_tensor([[0.5, 0.5, 2.5, 2.5]]),
    ...                            eager.to_tensor([1]), 1).flatten().tolist()
    [5.0]
    """
    fn = "roi_align"
    pooled = _output_size(fn, output_size)
    rois, image = _regions(fn, x, boxes, boxes_num)
    _check.integer(fn, "sampling_ratio", sampling_ratio)
    spatial_scale = _scale(fn, spatial_scale)
    aligned = to_bool(aligned, fn, "aligned")
    height, width = x.shape[2], x.shape[3]
    offset = 0.5 if aligned else 0.0
    per_region = []
    for x1, y1, x2, y2 in rois:
        xmin, ymin = x1 * spatial_scale - offset, y1 * spatial_scale - offset
        roi_w, roi_h = x2 * spatial_scale - offset - xmin, y2 * spatial_scale - offset - ymin
        if not aligned:
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        bin_h, bin_w = roi_h / pooled[0], roi_w / pooled[1]
        grid_h = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_h / pooled[0]))
        grid_w = sampling_ratio if sampling_ratio > 0 else int(math.ceil(roi_w / pooled[1]))
        count = max(grid_h * grid_w, 1)
        ph, iy = np.arange(pooled[0]), (np.arange(grid_h) + 0.5) / max(grid_h, 1)
        pw, ix = np.arange(pooled[1]), (np.arange(grid_w) + 0.5) / max(grid_w, 1)
        ys = ymin + (ph[:, None] + iy[None, :]) * bin_h            # [ph, grid_h]
        xs = xmin + (pw[:, None] + ix[None, :]) * bin_w            # [pw, grid_w]
        ys = np.broadcast_to(ys[:, None, :, None], (pooled[0], pooled[1], grid_h, grid_w))
        xs = np.broadcast_to(xs[None, :, None, :], (pooled[0], pooled[1], grid_h, grid_w))
        pixels, weights = _bilinear_taps(ys, xs, height, width)
        per_region.append((pixels.reshape(pooled[0] * pooled[1], -1), weights.reshape(pooled[0] * pooled[1], -1)
                           / count))
    regions, bins = len(rois), pooled[0] * pooled[1]
    taps = max([p.shape[1] for p, _ in per_region] + [1])
    pixels = np.zeros((regions, bins, taps), np.int64)
    weights = np.zeros((regions, bins, taps), np.float64)
    for r, (p, wt) in enumerate(per_region):
        pixels[r, :, :p.shape[1]], weights[r, :, :p.shape[1]] = p, wt
    images = np.broadcast_to(image[:, None, None], pixels.shape)
    values = _gather_pixels(x, images, pixels)                                  # [R, bins, taps, C]
    scale = to_tensor(weights[..., None].astype(str(x.dtype).split(".")[-1]), place=x.place)
    return _to_nchw(_F.sum(values * scale, axis=2), regions, pooled)


class RoIAlign(nn.Layer):
    """:func:`roi_align` as a layer holding ``output_size`` and ``spatial_scale``.

    >>> layer = eager.vision.ops.RoIAlign(output_size=2)
    >>> layer(eager.rand([1, 3, 8, 8]), eager.to_tensor([[1.0, 1.0, 6.0, 6.0]]), eager.to_tensor([1])).shape
    [1, 3, 2, 2]
    """

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = _output_size("RoIAlign", output_size)
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale, aligned=aligned)


# ---- roi_pool ----------------------------------------------------------------------------------------------------


def _round_half_away(value):
    return math.floor(value + 0.5) if value >= 0 else -math.floor(-value + 0.5)


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """Region of interest max pooling: each box (scaled by ``spatial_scale``,
    rounded to whole pixels, at least 1x1) is cut into ``output_size`` bins and
    each bin is the maximum of ``x`` over its pixels (0 for a bin that falls
    outside the image). Arguments and shapes as :func:`roi_align`; the
    gradient goes to each bin's maximum.

    >>> x = eager.arange(16, dtype="float32").reshape([1, 1, 4, 4])
    >>> eager.vision.ops.roi_pool(x, eager.to_tensor([[0.0, 0.0, 3.0, 3.0]]),
    ...                           eager.to_tensor([1]), 2).flatten().tolist()
    [5.0, 7.0, 13.0, 15.0]
    """
    fn = "roi_pool"
    pooled = _output_size(fn, output_size)
    rois, image = _regions(fn, x, boxes, boxes_num)
    spatial_scale = _scale(fn, spatial_scale)
    height, width = x.shape[2], x.shape[3]
    per_region = []
    for x1, y1, x2, y2 in rois:
        start_w, start_h = _round_half_away(x1 * spatial_scale), _round_half_away(y1 * spatial_scale)
        end_w, end_h = _round_half_away(x2 * spatial_scale), _round_half_away(y2 * spatial_scale)
        bin_h = max(end_h - start_h + 1, 1) / pooled[0]
        bin_w = max(end_w - start_w + 1, 1) / pooled[1]
        bins = []
        for ph in range(pooled[0]):
            h0 = min(max(math.floor(ph * bin_h) + start_h, 0), height)
            h1 = min(max(math.ceil((ph + 1) * bin_h) + start_h, 0), height)
            for pw in range(pooled[1]):
                w0 = min(max(math.floor(pw * bin_w) + start_w, 0), width)
                w1 = min(max(math.ceil((pw + 1) * bin_w) + start_w, 0), width)
                bins.append((np.arange(h0, h1)[:, None] * width + np.arange(w0, w1)[None, :]).ravel())
        per_region.append(bins)
    regions, nbins = len(rois), pooled[0] * pooled[1]
    taps = max([len(b) for bins in per_region for b in bins] + [1])
    pixels = np.zeros((regions, nbins, taps), np.int64)
    valid = np.zeros((regions, nbins, taps), bool)
    for r, bins in enumerate(per_region):
        for b, found in enumerate(bins):
            pixels[r, b, :len(found)], valid[r, b, :len(found)] = found, True
    images = np.broadcast_to(image[:, None, None], pixels.shape)
    values = _gather_pixels(x, images, pixels)                                  # [R, bins, taps, C]
    dtype = str(x.dtype).split(".")[-1]
    mask = to_tensor(np.where(valid, 0.0, -np.inf)[..., None].astype(dtype), place=x.place)
    where_max = _F.argmax(values + mask, axis=2, keepdim=True)                  # no gradient: a choice
    best = _F.squeeze(_F.take_along_axis(values, where_max, axis=2), axis=[2])  # [R, bins, C]
    keep = to_tensor(valid.any(axis=2)[..., None].astype(dtype), place=x.place)
    return _to_nchw(best * keep, regions, pooled)


class RoIPool(nn.Layer):
    """:func:`roi_pool` as a layer holding ``output_size`` and ``spatial_scale``.

    >>> layer = eager.vision.ops.RoIPool(output_size=(2, 3))
    >>> layer(eager.rand([1, 3, 8, 8]), eager.to_tensor([[1.0, 1.0, 6.0, 6.0]]), eager.to_tensor([1])).shape
    [1, 3, 2, 3]
    """

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = _output_size("RoIPool", output_size)
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)


# ---- psroi_pool --------------------------------------------------------------------------------------------------


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """Position-sensitive region of interest pooling (R-FCN): ``x`` has
    ``C = out_c * out_h * out_w`` channels and bin (i, j) of output channel c is
    the mean of input channel ``(c * out_h + i) * out_w + j`` over the bin.
    Box corners are rounded to whole pixels, the far corner inclusive, then
    scaled by ``spatial_scale``; an empty bin is 0. Returns
    [R, out_c, out_h, out_w]; differentiable in ``x``.

    >>> x = eager.ones([1, 8, 6, 6])
    >>> eager.vision.ops.psroi_pool(x, eager.to_tensor([[0.0, 0.0, 3.0, 3.0]]), eager.to_tensor([1]), 2).shape
    [1, 2, 2, 2]
    """
    fn = "psroi_pool"
    pooled = _output_size(fn, output_size)
    rois, image = _regions(fn, x, boxes, boxes_num)
    spatial_scale = _scale(fn, spatial_scale)
    nbins = pooled[0] * pooled[1]
    if x.shape[1] % nbins:
        raise ValueError(f"{fn}: the channels of x ({x.shape[1]}) must be a multiple of output_size's "
                         f"{pooled[0]}x{pooled[1]} = {nbins} bins")
    out_c = x.shape[1] // nbins
    height, width = x.shape[2], x.shape[3]
    per_region = []
    for x1, y1, x2, y2 in rois:
        start_w, start_h = _round_half_away(x1) * spatial_scale, _round_half_away(y1) * spatial_scale
        end_w, end_h = (_round_half_away(x2) + 1.0) * spatial_scale, (_round_half_away(y2) + 1.0) * spatial_scale
        bin_h, bin_w = max(end_h - start_h, 0.1) / pooled[0], max(end_w - start_w, 0.1) / pooled[1]
        bins = []
        for ph in range(pooled[0]):
            h0 = min(max(math.floor(bin_h * ph + start_h), 0), height)
            h1 = min(max(math.ceil(bin_h * (ph + 1) + start_h), 0), height)
            for pw in range(pooled[1]):
                w0 = min(max(math.floor(bin_w * pw + start_w), 0), width)
                w1 = min(max(math.ceil(bin_w * (pw + 1) + start_w), 0), width)
                bins.append((np.arange(h0, h1)[:, None] * width + np.arange(w0, w1)[None, :]).ravel())
        per_region.append(bins)
    regions = len(rois)
    taps = max([len(b) for bins in per_region for b in bins] + [1])
    pixels = np.zeros((regions, nbins, taps), np.int64)
    weights = np.zeros((regions, nbins, taps), np.float64)
    for r, bins in enumerate(per_region):
        for b, found in enumerate(bins):
            pixels[r, b, :len(found)] = found
            weights[r, b, :len(found)] = 1.0 / max(len(found), 1)
    images = np.broadcast_to(image[:, None, None], pixels.shape)
    values = _gather_pixels(x, images, pixels)                                  # [R, bins, taps, C]
    dtype = str(x.dtype).split(".")[-1]
    scale = to_tensor(weights[..., None].astype(dtype), place=x.place)
    means = _F.reshape(_F.sum(values * scale, axis=2), [regions, nbins, out_c, nbins])
    own_bin = np.broadcast_to(np.arange(nbins)[None, :, None, None], (regions, nbins, out_c, 1))
    picked = _F.take_along_axis(means, to_tensor(np.ascontiguousarray(own_bin), place=x.place), axis=3)
    picked = _F.transpose(_F.squeeze(picked, axis=[3]), [0, 2, 1])           # [R, out_c, bins]
    return _F.reshape(picked, [regions, out_c, pooled[0], pooled[1]])


class PSRoIPool(nn.Layer):
    """:func:`psroi_pool` as a layer holding ``output_size`` and ``spatial_scale``.

    >>> layer = eager.vision.ops.PSRoIPool(2, 1.0)
    >>> layer(eager.rand([1, 12, 6, 6]), eager.to_tensor([[0.0, 0.0, 4.0, 4.0]]), eager.to_tensor([1])).shape
    [1, 3, 2, 2]
    """

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self.output_size = _output_size("PSRoIPool", output_size)
        self.spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self.output_size, self.spatial_scale)


# ---- nms ---------------------------------------------------------------------------------------------------------


def _greedy_nms(rows, threshold):
    """Positions (into ``rows``, taken in order) kept by greedy suppression."""
    areas = (rows[:, 2] - rows[:, 0]) * (rows[:, 3] - rows[:, 1])
    suppressed = np.zeros(len(rows), bool)
    kept = []
    for i in range(len(rows)):
        if suppressed[i]:
            continue
        kept.append(i)
        rest = np.arange(i + 1, len(rows))
        iw = np.clip(np.minimum(rows[i, 2], rows[rest, 2]) - np.maximum(rows[i, 0], rows[rest, 0]), 0, None)
        ih = np.clip(np.minimum(rows[i, 3], rows[rest, 3]) - np.maximum(rows[i, 1], rows[rest, 1]), 0, None)
        inter = iw * ih
        union = areas[i] + areas[rest] - inter
        with np.errstate(divide="ignore", invalid="ignore"):
            iou = np.where(union > 0, inter / union, 0.0)
        suppressed[rest[iou > threshold]] = True
    return np.asarray(kept, np.int64)


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None, top_k=None):
    """Non-maximum suppression: the indices of the boxes kept when every box
    whose IoU with a kept, higher-ranked box exceeds ``iou_threshold`` is dropped.

    Without ``scores`` the boxes are taken in the given order and the kept
    indices come back in that order. With ``scores`` they are ranked by score
    (highest first) and the kept indices come back in that order; with
    ``category_idxs`` and ``categories`` too, suppression runs within each
    category only, and ``top_k`` (at most the number of boxes) keeps the
    first k; as in Paddle, ``top_k`` is ignored without ``category_idxs``.
    Returns an int64 Tensor.

    >>> boxes = eager.to_tensor([[0.0, 0.0, 2.0, 2.0], [0.1, 0.0, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0]])
    >>> eager.vision.ops.nms(boxes, 0.5, scores=eager.to_tensor([0.5, 0.9, 0.7])).tolist()
    [1, 2]
    """
    fn = "nms"
    _tensor(fn, "boxes", boxes, ndim=2, last=4, floating=True)
    if not isinstance(iou_threshold, numbers.Real) or isinstance(iou_threshold, bool):
        raise TypeError(f"{fn}: argument 'iou_threshold' expected a float, got {iou_threshold!r}")
    rows = boxes.numpy().astype(np.float64)
    count = rows.shape[0]
    if top_k is not None and (not isinstance(top_k, numbers.Integral) or isinstance(top_k, bool) or top_k < 0):
        raise ValueError(f"{fn}: argument 'top_k' expected a non-negative int or None, got {top_k!r}")
    if scores is None:
        if category_idxs is not None:
            raise ValueError(f"{fn}: 'category_idxs' needs 'scores' (the boxes are ranked by score per category)")
        kept = _greedy_nms(rows, float(iou_threshold))
    else:
        _tensor(fn, "scores", scores, ndim=1)
        values = scores.numpy().astype(np.float64)
        if values.shape[0] != count:
            raise ValueError(f"{fn}: argument 'scores' expected {count} scores (one per box), got {values.shape[0]}")
        order = np.argsort(-values, kind="stable")
        if category_idxs is None:
            kept = order[_greedy_nms(rows[order], float(iou_threshold))]
        else:
            _tensor(fn, "category_idxs", category_idxs, ndim=1)
            labels = category_idxs.numpy()
            if labels.shape[0] != count:
                raise ValueError(f"{fn}: argument 'category_idxs' expected {count} entries (one per box), got "
                                 f"{labels.shape[0]}")
            if categories is None:
                raise ValueError(f"{fn}: 'category_idxs' needs 'categories' (the list of category ids)")
            if isinstance(categories, (Tensor, np.ndarray)) and len(categories.shape) == 1:
                # Paddle iterates whatever it is given, so a 1-D Tensor or array of ids works as a list
                categories = categories.numpy().tolist() if isinstance(categories, Tensor) else categories.tolist()
            if not isinstance(categories, (list, tuple)):
                raise TypeError(f"{fn}: argument 'categories' expected a list, tuple or 1-D Tensor of category ids, "
                                f"got {type(categories).__name__}")
            if top_k is not None and top_k > count:
                raise ValueError(f"{fn}: argument 'top_k' ({top_k}) must not exceed the number of boxes ({count})")
            if top_k == 0:
                raise ValueError(f"{fn}: argument 'top_k' expected an int >= 1 (Paddle's topk), got 0")
            # a mask, as Paddle's, so a category listed twice keeps its boxes once and ties keep box order
            chosen = np.zeros(count, bool)
            for category in categories:
                members = order[labels[order] == category]
                chosen[members[_greedy_nms(rows[members], float(iou_threshold))]] = True
            kept = np.flatnonzero(chosen)
            kept = kept[np.argsort(-values[kept], kind="stable")]
            # Paddle cuts to top_k only here, per-category; with scores alone it keeps every survivor
            if top_k is not None:
                kept = kept[:top_k]
    return to_tensor(kept.astype(np.int64), place=boxes.place)


# ---- deform_conv2d -----------------------------------------------------------------------------------------------


def _pair(fn, arg, value, minimum):
    pair = (value, value) if isinstance(value, numbers.Integral) else value
    if (not isinstance(pair, (list, tuple)) or len(pair) != 2
            or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= minimum for v in pair)):
        raise ValueError(f"{fn}: argument '{arg}' expected an int >= {minimum} or a pair of them, got {value!r}")
    return int(pair[0]), int(pair[1])


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1, deformable_groups=1, groups=1,
                  mask=None, name=None):
    """Deformable convolution (v1; v2 with ``mask``): each kernel tap of each
    output position reads ``x`` bilinearly at its regular place plus a learned
    ``offset`` (dy, dx), times ``mask`` when given, then the taps are weighted
    as a convolution. A sample more than one pixel outside ``x`` reads 0, and
    so does each of its corners outside ``x``.

    ``x``: [N, C, H, W]; ``offset``: [N, 2 * deformable_groups * kh * kw,
    out_h, out_w] (dy then dx per tap); ``mask``: [N, deformable_groups * kh *
    kw, out_h, out_w]; ``weight``: [C_out, C / groups, kh, kw]. Built from
    differentiable ops: gradients reach ``x``, ``offset``, ``mask``, ``weight``
    and ``bias``.

    >>> x = eager.rand([1, 4, 5, 5])
    >>> offset = eager.zeros([1, 18, 5, 5])      # zero offsets: a plain convolution
    >>> out = eager.vision.ops.deform_conv2d(x, offset, eager.rand([6, 4, 3, 3]), padding=1)
    >>> out.shape
    [1, 6, 5, 5]
    """
    fn = "deform_conv2d"
    _tensor(fn, "x", x, ndim=4, floating=True)
    _tensor(fn, "weight", weight, ndim=4, floating=True)
    _tensor(fn, "offset", offset, ndim=4, floating=True)
    stride, padding, dilation = (_pair(fn, "stride", stride, 1), _pair(fn, "padding", padding, 0),
                                 _pair(fn, "dilation", dilation, 1))
    for arg, value in (("deformable_groups", deformable_groups), ("groups", groups)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{fn}: argument '{arg}' expected a positive int, got {value!r}")
    n, channels, height, width = x.shape
    out_c, per_group, kh, kw = weight.shape
    if channels % groups or out_c % groups or per_group * groups != channels:
        raise ValueError(f"{fn}: weight {weight.shape} with groups={groups} expected x to have "
                         f"{per_group * groups} channels, got {channels}")
    if channels % deformable_groups:
        raise ValueError(f"{fn}: the channels of x ({channels}) must be a multiple of deformable_groups "
                         f"({deformable_groups})")
    if out_c % deformable_groups:
        # Paddle's InferMeta asks this of the filters too, though only x's channels are split by it
        raise ValueError(f"{fn}: the output channels of weight ({out_c}) must be a multiple of deformable_groups "
                         f"({deformable_groups})")
    out_h = (height + 2 * padding[0] - (dilation[0] * (kh - 1) + 1)) // stride[0] + 1
    out_w = (width + 2 * padding[1] - (dilation[1] * (kw - 1) + 1)) // stride[1] + 1
    taps, dg = kh * kw, deformable_groups
    if out_h < 1 or out_w < 1:
        raise ValueError(f"{fn}: the output would be empty ({out_h}x{out_w}) for x {x.shape} and a {kh}x{kw} kernel")
    if offset.shape != [n, 2 * dg * taps, out_h, out_w]:
        raise ValueError(f"{fn}: argument 'offset' expected shape {[n, 2 * dg * taps, out_h, out_w]}, got "
                         f"{offset.shape}")
    if mask is not None:
        _tensor(fn, "mask", mask, ndim=4, floating=True)
        if mask.shape != [n, dg * taps, out_h, out_w]:
            raise ValueError(f"{fn}: argument 'mask' expected shape {[n, dg * taps, out_h, out_w]}, got {mask.shape}")
    if bias is not None:
        _tensor(fn, "bias", bias, ndim=1, floating=True)
        if bias.shape[0] != out_c:
            raise ValueError(f"{fn}: argument 'bias' expected shape [{out_c}], got {bias.shape}")
    for arg, value in (("offset", offset), ("weight", weight), ("mask", mask), ("bias", bias)):
        if value is not None and value.dtype != x.dtype:
            raise TypeError(f"{fn}: argument '{arg}' expected dtype {x.dtype} (that of x), got {value.dtype}")
    dtype = str(x.dtype).split(".")[-1]
    # the regular sampling grid of every tap: [1, 1, taps, out_h, out_w]
    rows = (np.arange(out_h) * stride[0] - padding[0])[None, :] + (np.arange(kh) * dilation[0])[:, None]
    cols = (np.arange(out_w) * stride[1] - padding[1])[None, :] + (np.arange(kw) * dilation[1])[:, None]
    base_h = np.broadcast_to(rows[:, None, :, None], (kh, kw, out_h, out_w)).reshape(1, 1, taps, out_h, out_w)
    base_w = np.broadcast_to(cols[None, :, None, :], (kh, kw, out_h, out_w)).reshape(1, 1, taps, out_h, out_w)
    shifts = _F.reshape(offset, [n, dg, taps, 2, out_h, out_w])
    h = shifts[:, :, :, 0] + to_tensor(base_h.astype(dtype), place=x.place)        # [N, dg, taps, oh, ow]
    w = shifts[:, :, :, 1] + to_tensor(base_w.astype(dtype), place=x.place)
    inside = _F.logical_and(_F.logical_and(h > -1.0, h < float(height)), _F.logical_and(w > -1.0, w < float(width)))
    h0, w0 = _F.floor(h), _F.floor(w)
    lh, lw = h - h0, w - w0
    plane = _F.reshape(x, [n, dg, channels // dg, height * width])
    sampled = None
    for dy, dx, weight_h, weight_w in ((0, 0, 1.0 - lh, 1.0 - lw), (0, 1, 1.0 - lh, lw), (1, 0, lh, 1.0 - lw),
                                       (1, 1, lh, lw)):
        hi, wi = h0 + float(dy), w0 + float(dx)
        valid = _F.logical_and(inside, _F.logical_and(_F.logical_and(hi >= 0.0, hi <= height - 1.0),
                                                      _F.logical_and(wi >= 0.0, wi <= width - 1.0)))
        flat = _F.clip(hi, 0.0, height - 1.0) * float(width) + _F.clip(wi, 0.0, width - 1.0)
        index = _F.cast(_F.reshape(flat, [n, dg, 1, taps * out_h * out_w]), "int64")
        values = _F.take_along_axis(plane, index, axis=3)                             # [N, dg, C/dg, taps*L]
        corner = weight_h * weight_w * _F.cast(valid, dtype)
        term = values * _F.reshape(corner, [n, dg, 1, taps * out_h * out_w])
        sampled = term if sampled is None else sampled + term
    if mask is not None:
        sampled = sampled * _F.reshape(mask, [n, dg, 1, taps * out_h * out_w])
    columns = _F.reshape(sampled, [n, groups, (channels // groups) * taps, out_h * out_w])
    kernel = _F.reshape(weight, [1, groups, out_c // groups, per_group * taps])
    out = _F.reshape(_F.matmul(kernel, columns), [n, out_c, out_h, out_w])
    if bias is not None:
        out = out + _F.reshape(bias, [1, out_c, 1, 1])
    return out


class DeformConv2D(nn.Layer):
    """A deformable convolution layer (:func:`deform_conv2d`) owning ``weight``
    [out_channels, in_channels / groups, kh, kw] and ``bias``, initialised as
    Conv2D's; ``forward(x, offset, mask=None)``.

    >>> layer = eager.vision.ops.DeformConv2D(4, 6, 3, padding=1)
    >>> layer(eager.rand([1, 4, 5, 5]), eager.zeros([1, 18, 5, 5])).shape
    [1, 6, 5, 5]
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, deformable_groups=1,
                 groups=1, weight_attr=None, bias_attr=None):
        super().__init__()
        who = "DeformConv2D"
        kernel = _pair(who, "kernel_size", kernel_size, 1)
        for arg, value in (("in_channels", in_channels), ("out_channels", out_channels), ("groups", groups),
                           ("deformable_groups", deformable_groups)):
            _check.integer(who, arg, value, minimum=1)
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{who}: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"multiples of groups ({groups})")
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._deformable_groups, self._groups = deformable_groups, groups
        std = (2.0 / (kernel[0] * kernel[1] * in_channels)) ** 0.5
        self.weight = self.create_parameter([out_channels, in_channels // groups, *kernel], weight_attr,
                                            default_initializer=nn.initializer.Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding, self._dilation,
                             self._deformable_groups, self._groups, mask)


# ---- box_coder ---------------------------------------------------------------------------------------------------


def _centre_size(boxes, norm):
    """[..., 4] corner boxes -> (cx, cy, w, h), each [...]; ``norm`` (0 or 1) is
    added to the sizes of pixel boxes (``box_normalized=False``)."""
    w = boxes[..., 2] - boxes[..., 0] + norm
    h = boxes[..., 3] - boxes[..., 1] + norm
    return boxes[..., 0] + w * 0.5, boxes[..., 1] + h * 0.5, w, h


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size", box_normalized=True, axis=0,
              name=None):
    """Encodes boxes as offsets from prior (anchor) boxes, or decodes offsets
    back to boxes (Paddle's ``box_coder``).

    'encode_center_size': ``target_box`` [N, 4] against ``prior_box`` [M, 4]
    gives [N, M, 4]: ((tx - px) / pw, (ty - py) / ph, log|tw / pw|, log|th / ph|),
    each divided by its variance. 'decode_center_size': ``target_box`` [N, M, 4]
    of offsets with ``prior_box`` [M, 4] (``axis=0``) or [N, 4] (``axis=1``)
    gives corner boxes [N, M, 4]. Centres and sizes come from the corners;
    ``box_normalized=False`` counts pixel boxes inclusively (size + 1).
    ``prior_box_var``: None, 4 floats for every prior, or a Tensor shaped like
    ``prior_box``. Built from differentiable ops.

    >>> prior = eager.to_tensor([[0.0, 0.0, 2.0, 2.0]])
    >>> code = eager.vision.ops.box_coder(prior, [1.0, 1.0, 1.0, 1.0], eager.to_tensor([[1.0, 1.0, 3.0, 5.0]]))
    >>> eager.vision.ops.box_coder(prior, [1.0, 1.0, 1.0, 1.0], code, "decode_center_size").tolist()
    [[[1.0, 1.0, 3.0, 5.0]]]
    """
    fn = "box_coder"
    if not isinstance(code_type, str) or code_type not in ("encode_center_size", "decode_center_size"):
        raise ValueError(f"{fn}: argument 'code_type' expected 'encode_center_size' or 'decode_center_size', got "
                         f"{code_type!r}")
    _check.integer(fn, "axis", axis)
    if axis not in (0, 1):
        raise ValueError(f"{fn}: argument 'axis' expected 0 or 1, got {axis!r}")
    box_normalized = to_bool(box_normalized, fn, "box_normalized")
    _tensor(fn, "prior_box", prior_box, ndim=2, last=4, floating=True)
    encode = code_type == "encode_center_size"
    _tensor(fn, "target_box", target_box, ndim=2 if encode else 3, last=4, floating=True)
    if not encode and target_box.shape[1 - axis] != prior_box.shape[0]:
        raise ValueError(f"{fn}: with axis={axis}, target_box {target_box.shape} expected dimension {1 - axis} "
                         f"to match the {prior_box.shape[0]} prior boxes")
    dtype = str(prior_box.dtype).split(".")[-1]
    if prior_box_var is None:
        variance = None
    elif isinstance(prior_box_var, Tensor):
        if prior_box_var.shape != prior_box.shape:
            raise ValueError(f"{fn}: argument 'prior_box_var' expected shape {prior_box.shape} (one row per prior "
                             f"box), got {prior_box_var.shape}")
        variance = prior_box_var
    elif (isinstance(prior_box_var, (list, tuple)) and len(prior_box_var) == 4
          and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in prior_box_var)):
        variance = to_tensor(np.asarray(prior_box_var, dtype=dtype), place=prior_box.place)
    else:
        raise TypeError(f"{fn}: argument 'prior_box_var' expected None, 4 floats or a Tensor, got "
                        f"{prior_box_var!r}")
    norm = 0.0 if box_normalized else 1.0
    if encode:
        pcx, pcy, pw, ph = (_F.unsqueeze(v, [0]) for v in _centre_size(prior_box, norm))     # [1, M]
        tw = _F.unsqueeze(target_box[:, 2] - target_box[:, 0] + norm, [1])                # [N, 1]
        th = _F.unsqueeze(target_box[:, 3] - target_box[:, 1] + norm, [1])
        tcx = _F.unsqueeze((target_box[:, 0] + target_box[:, 2]) * 0.5, [1])
        tcy = _F.unsqueeze((target_box[:, 1] + target_box[:, 3]) * 0.5, [1])
        out = _F.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, _F.log(_F.abs(tw / pw)), _F.log(_F.abs(th / ph))],
                       axis=-1)
        if variance is not None:
            out = out / (_F.unsqueeze(variance, [0]) if len(variance.shape) == 2 else variance)
        return out
    expand = [0] if axis == 0 else [1]
    pcx, pcy, pw, ph = (_F.unsqueeze(v, expand) for v in _centre_size(prior_box, norm))
    offsets = target_box
    if variance is not None:
        offsets = offsets * (_F.unsqueeze(variance, expand) if len(variance.shape) == 2 else variance)
    cx = offsets[..., 0] * pw + pcx
    cy = offsets[..., 1] * ph + pcy
    w = _F.exp(offsets[..., 2]) * pw
    h = _F.exp(offsets[..., 3]) * ph
    return _F.stack([cx - w * 0.5, cy - h * 0.5, cx + w * 0.5 - norm, cy + h * 0.5 - norm], axis=-1)


# ---- matrix_nms --------------------------------------------------------------------------------------------------


def _pairwise_iou(rows, normalized):
    """IoU of every pair of ``rows`` (corner boxes); pixel boxes count inclusively.

    As Paddle's kernel: boxes that do not touch (a gap of any width, even under
    the pixel's 1) overlap by 0, and an inverted box has area 0."""
    extra = 0.0 if normalized else 1.0
    x1, y1, x2, y2 = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    area = np.where((x2 < x1) | (y2 < y1), 0.0, (x2 - x1 + extra) * (y2 - y1 + extra))
    iw = np.minimum(x2[:, None], x2[None, :]) - np.maximum(x1[:, None], x1[None, :])
    ih = np.minimum(y2[:, None], y2[None, :]) - np.maximum(y1[:, None], y1[None, :])
    inter = np.where((iw < 0) | (ih < 0), 0.0, (iw + extra) * (ih + extra))
    union = area[:, None] + area[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union > 0, inter / union, 0.0)


def _matrix_decay(rows, values, score_threshold, post_threshold, top_k, use_gaussian, sigma, normalized):
    """Indices (into ``rows``) kept by matrix NMS in one class, and their decayed scores."""
    candidates = np.nonzero(values > score_threshold)[0]
    candidates = candidates[np.argsort(-values[candidates], kind="stable")]
    if top_k > -1:
        candidates = candidates[:top_k]
    if len(candidates) == 0:
        return candidates, values[candidates]
    iou = np.triu(_pairwise_iou(rows[candidates], normalized), k=1)    # iou[j, i]: j ranked above i
    compensate = iou.max(axis=0)                                         # each box's largest IoU with a better one
    if use_gaussian:
        decay = np.exp((compensate[:, None] ** 2 - iou ** 2) * sigma)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            decay = (1.0 - iou) / (1.0 - compensate[:, None])
    decay = np.where(np.triu(np.ones_like(iou, bool), k=1), decay, np.inf)
    factor = np.minimum(decay.min(axis=0), 1.0)
    decayed = values[candidates] * factor
    keep = decayed > post_threshold
    return candidates[keep], decayed[keep]


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k, use_gaussian=False,
               gaussian_sigma=2.0, background_label=0, normalized=True, return_index=False, return_rois_num=True,
               name=None):
    """Matrix NMS (SOLOv2): per image and class, the boxes scoring above
    ``score_threshold`` (the best ``nms_top_k``; -1 for all) have their scores
    decayed by their overlap with better boxes, linearly ((1 - iou) / (1 -
    that box's own largest iou)) or, with ``use_gaussian``, by
    ``exp((max_iou^2 - iou^2) * gaussian_sigma)``; those still above
    ``post_threshold`` are kept, and each image keeps its ``keep_top_k`` best
    (-1 for all) over all classes but ``background_label``.

    ``bboxes``: [N, M, 4]; ``scores``: [N, C, M]. Returns ``(out, rois_num,
    index)``: ``out`` [K, 6] rows (label, score, x1, y1, x2, y2) image by image,
    best first; ``rois_num`` [N] int32 rows per image (None unless
    ``return_rois_num``); ``index`` [K, 1] the boxes' flat indices ``n * M + m``
    (None unless ``return_index``).

    >>> boxes = eager.to_tensor([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.9], [2.0, 2.0, 3.0, 3.0]]])
    >>> out, num, _ = eager.vision.ops.matrix_nms(boxes, eager.to_tensor([[[0.0, 0.0, 0.0], [0.9, 0.8, 0.7]]]),
    ...                                         0.1, 0.5, -1, -1)
    >>> [[round(v, 4) for v in row] for row in out[:, :2].tolist()], num.tolist()
    ([[1.0, 0.9], [1.0, 0.7]], [2])
    """
    fn = "matrix_nms"
    _tensor(fn, "bboxes", bboxes, ndim=3, last=4, floating=True)
    _tensor(fn, "scores", scores, ndim=3, floating=True)
    n, count = bboxes.shape[0], bboxes.shape[1]
    if scores.shape[0] != n or scores.shape[2] != count:
        raise ValueError(f"{fn}: argument 'scores' expected shape [{n}, C, {count}] for bboxes {bboxes.shape}, got "
                         f"{scores.shape}")
    for arg, value in (("nms_top_k", nms_top_k), ("keep_top_k", keep_top_k), ("background_label", background_label)):
        _check.integer(fn, arg, value)
    score_threshold = to_float(score_threshold, fn, "score_threshold")
    post_threshold = to_float(post_threshold, fn, "post_threshold")
    gaussian_sigma = to_float(gaussian_sigma, fn, "gaussian_sigma")
    use_gaussian = to_bool(use_gaussian, fn, "use_gaussian")
    normalized = to_bool(normalized, fn, "normalized")
    return_index = to_bool(return_index, fn, "return_index")
    return_rois_num = to_bool(return_rois_num, fn, "return_rois_num")
    rows_all, values_all = bboxes.numpy().astype(np.float64), scores.numpy().astype(np.float64)
    out_rows, indices, per_image = [], [], []
    for b in range(n):
        found = []                                                           # (score, label, box index)
        for label in range(values_all.shape[1]):
            if label == background_label:
                continue
            kept, decayed = _matrix_decay(rows_all[b], values_all[b, label], score_threshold, post_threshold,
                                          nms_top_k, use_gaussian, gaussian_sigma, normalized)
            found += [(float(v), label, int(k)) for k, v in zip(kept, decayed)]
        found.sort(key=lambda item: -item[0])
        if keep_top_k > -1:
            found = found[:keep_top_k]
        per_image.append(len(found))
        out_rows += [[label, v, *rows_all[b, k]] for v, label, k in found]
        indices += [b * count + k for _, _, k in found]
    dtype = str(bboxes.dtype).split(".")[-1]
    out = to_tensor(np.asarray(out_rows, np.float64).reshape(-1, 6).astype(dtype), place=bboxes.place)
    rois_num = to_tensor(np.asarray(per_image, np.int32), place=bboxes.place) if return_rois_num else None
    index = to_tensor(np.asarray(indices, np.int32).reshape(-1, 1), place=bboxes.place) if return_index else None
    return out, rois_num, index


# ---- prior_box ---------------------------------------------------------------------------------------------------


def _floats(fn, arg, value, length=None, allow_empty=False):
    values = [value] if isinstance(value, numbers.Real) and not isinstance(value, bool) else value
    if (not isinstance(values, (list, tuple)) or (not values and not allow_empty)
            or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)
            or (length is not None and len(values) != length)):
        what = f"{length} floats" if length is not None else "a float or a list of floats"
        raise ValueError(f"{fn}: argument '{arg}' expected {what}, got {value!r}")
    return [float(v) for v in values]


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0], variance=[0.1, 0.1, 0.2, 0.2],
              flip=False, clip=False, steps=[0.0, 0.0], offset=0.5, min_max_aspect_ratios_order=False, name=None):
    """SSD prior (anchor) boxes for each cell of the feature map ``input``
    [N, C, H, W] over the image ``image`` [N, C, H_img, W_img]: returns
    ``(boxes, variances)``, both [H, W, num_priors, 4], boxes as normalised
    (xmin, ymin, xmax, ymax).

    Per cell (centre ``((w + offset) * step_w, (h + offset) * step_h)``; steps
    of 0 mean image size / feature size) and per ``min_sizes[i]``: one box per
    aspect ratio (1 first, then each given ratio, and its inverse with
    ``flip``; near-duplicates dropped), width ``min * sqrt(ar)`` and height
    ``min / sqrt(ar)``, then with ``max_sizes`` a square of side
    ``sqrt(min * max)``. ``min_max_aspect_ratios_order`` puts the min square,
    the max square, then the other ratios (Caffe's order). ``clip`` clamps to [0, 1].

    >>> boxes, variances = eager.vision.ops.prior_box(eager.rand([1, 2, 2, 2]), eager.rand([1, 3, 8, 8]), [4.0])
    >>> boxes.shape, boxes[0, 0, 0].tolist()
    ([2, 2, 1, 4], [0.0, 0.0, 0.5, 0.5])
    """
    fn = "prior_box"
    _tensor(fn, "input", input, ndim=4)
    _tensor(fn, "image", image, ndim=4)
    mins = _floats(fn, "min_sizes", min_sizes)
    maxs = [] if max_sizes is None else _floats(fn, "max_sizes", max_sizes, allow_empty=True)
    if maxs and len(maxs) != len(mins):
        raise ValueError(f"{fn}: argument 'max_sizes' expected {len(mins)} sizes (one per min size), got {len(maxs)}")
    if any(m <= 0 for m in mins) or any(mx < mn for mn, mx in zip(mins, maxs)):
        raise ValueError(f"{fn}: min_sizes must be positive and each max size at least its min size, got "
                         f"min_sizes={min_sizes!r}, max_sizes={max_sizes!r}")
    # ratio 1 is always there, so an empty list gives the square priors alone (as Paddle's)
    given = _floats(fn, "aspect_ratios", aspect_ratios, allow_empty=True)
    if any(not ar > 0 for ar in given):
        raise ValueError(f"{fn}: argument 'aspect_ratios' expected positive ratios, got {aspect_ratios!r}")
    flip = to_bool(flip, fn, "flip")
    clip = to_bool(clip, fn, "clip")
    offset = to_float(offset, fn, "offset")
    min_max_aspect_ratios_order = to_bool(min_max_aspect_ratios_order, fn, "min_max_aspect_ratios_order")
    var = _floats(fn, "variance", variance, length=4)
    step = _floats(fn, "steps", steps, length=2)
    ratios = [1.0]
    for ar in given:
        if all(abs(ar - r) >= 1e-6 for r in ratios):
            ratios.append(ar)
            if flip:
                ratios.append(1.0 / ar)
    feat_h, feat_w = input.shape[2], input.shape[3]
    img_h, img_w = image.shape[2], image.shape[3]
    if not (feat_h and feat_w and img_h and img_w):  # the steps and the normalisation divide by these sizes
        raise ValueError(f"{fn}: arguments 'input' {input.shape} and 'image' {image.shape} expected a non-empty "
                         f"height and width")
    step_w, step_h = step[0], step[1]
    if step_w == 0 or step_h == 0:
        step_w, step_h = img_w / feat_w, img_h / feat_h
    sizes = []                                                  # (half width, half height) per prior, in order
    for i, mn in enumerate(mins):
        square_max = [(math.sqrt(mn * maxs[i]) / 2,) * 2] if maxs else []
        ratio_boxes = [(mn * math.sqrt(ar) / 2, mn / math.sqrt(ar) / 2) for ar in ratios]
        if min_max_aspect_ratios_order:
            sizes += [(mn / 2, mn / 2)] + square_max + [b for ar, b in zip(ratios, ratio_boxes)
                                                       if abs(ar - 1.0) >= 1e-6]
        else:
            sizes += ratio_boxes + square_max
    half = np.asarray(sizes, np.float64)                         # [P, 2]
    cx = (np.arange(feat_w) + offset) * step_w
    cy = (np.arange(feat_h) + offset) * step_h
    cx = np.broadcast_to(cx[None, :, None], (feat_h, feat_w, len(half)))
    cy = np.broadcast_to(cy[:, None, None], (feat_h, feat_w, len(half)))
    boxes = np.stack([(cx - half[:, 0]) / img_w, (cy - half[:, 1]) / img_h, (cx + half[:, 0]) / img_w,
                      (cy + half[:, 1]) / img_h], axis=-1)
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    variances = np.broadcast_to(np.asarray(var), boxes.shape)
    dtype = str(input.dtype).split(".")[-1]
    dtype = dtype if dtype in ("float32", "float64") else "float32"
    return (to_tensor(boxes.astype(dtype), place=input.place),
            to_tensor(np.ascontiguousarray(variances, dtype=dtype), place=input.place))


# ---- yolo_box ----------------------------------------------------------------------------------------------------


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True, name=None,
             scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """Decodes a YOLOv3 head into boxes and class scores (inference; no gradient).

    ``x``: [N, A * (5 + class_num), H, W] for the A anchors ``anchors``
    ([w0, h0, w1, h1, ...] in input pixels), per anchor (tx, ty, tw, th,
    objectness, class logits); with ``iou_aware`` A IoU logits come first and
    the confidence is ``obj^(1 - f) * iou^f``. ``img_size``: [N, 2] int (height,
    width) of the original images. Returns ``(boxes, scores)``: [N, A*H*W, 4]
    corners in image pixels (clipped to the image with ``clip_bbox``) and
    [N, A*H*W, class_num] = confidence * sigmoid(class logit); both are 0 where
    the confidence is below ``conf_thresh``.

    >>> boxes, scores = eager.vision.ops.yolo_box(eager.zeros([1, 14, 2, 2]), eager.to_tensor([[64, 64]]),
    ...                                           [10, 13, 16, 30], 2, 0.01, 32)
    >>> boxes.shape, scores.shape
    ([1, 8, 4], [1, 8, 2])
    """
    fn = "yolo_box"
    _tensor(fn, "x", x, ndim=4, floating=True)
    _tensor(fn, "img_size", img_size, ndim=2, last=2)
    sizes = img_size.numpy()
    if sizes.dtype.kind not in "iu" or sizes.shape[0] != x.shape[0]:
        raise ValueError(f"{fn}: argument 'img_size' expected an int Tensor [{x.shape[0]}, 2] (height, width), got "
                         f"{img_size.dtype} {img_size.shape}")
    pairs = _floats(fn, "anchors", anchors)
    if len(pairs) % 2:
        raise ValueError(f"{fn}: argument 'anchors' expected (width, height) pairs, got {len(pairs)} numbers")
    if isinstance(class_num, bool) or not isinstance(class_num, numbers.Integral) or class_num < 1:
        raise ValueError(f"{fn}: argument 'class_num' expected a positive int, got {class_num!r}")
    conf_thresh = to_float(conf_thresh, fn, "conf_thresh")
    _check.integer(fn, "downsample_ratio", downsample_ratio, minimum=1)
    clip_bbox = to_bool(clip_bbox, fn, "clip_bbox")
    scale_x_y = to_float(scale_x_y, fn, "scale_x_y")
    iou_aware = to_bool(iou_aware, fn, "iou_aware")
    iou_aware_factor = to_float(iou_aware_factor, fn, "iou_aware_factor")
    n, channels, height, width = x.shape
    count = len(pairs) // 2
    per_anchor = 5 + class_num
    expected = count * (per_anchor + (1 if iou_aware else 0))
    if channels != expected:
        raise ValueError(f"{fn}: x has {channels} channels; {count} anchors and {class_num} classes"
                         f"{' (iou_aware)' if iou_aware else ''} need {expected}")
    values = x.numpy().astype(np.float64)
    iou = None
    if iou_aware:
        iou, values = _sigmoid(values[:, :count]), values[:, count:]
    values = values.reshape(n, count, per_anchor, height, width)
    conf = _sigmoid(values[:, :, 4])                                              # [N, A, H, W]
    if iou is not None:
        conf = conf ** (1.0 - iou_aware_factor) * iou ** iou_aware_factor
    img_h = sizes[:, 0].astype(np.float64)[:, None, None, None]
    img_w = sizes[:, 1].astype(np.float64)[:, None, None, None]
    grid_x = np.arange(width)[None, None, None, :]
    grid_y = np.arange(height)[None, None, :, None]
    bias = -0.5 * (scale_x_y - 1.0)
    anchor_w = np.asarray(pairs[0::2])[None, :, None, None]
    anchor_h = np.asarray(pairs[1::2])[None, :, None, None]
    cx = (grid_x + _sigmoid(values[:, :, 0]) * scale_x_y + bias) * img_w / width
    cy = (grid_y + _sigmoid(values[:, :, 1]) * scale_x_y + bias) * img_h / height
    bw = np.exp(values[:, :, 2]) * anchor_w * img_w / (downsample_ratio * width)
    bh = np.exp(values[:, :, 3]) * anchor_h * img_h / (downsample_ratio * height)
    x1, y1, x2, y2 = cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2
    if clip_bbox:
        x1, y1 = np.maximum(x1, 0.0), np.maximum(y1, 0.0)
        x2, y2 = np.minimum(x2, img_w - 1.0), np.minimum(y2, img_h - 1.0)
    keep = conf >= conf_thresh
    boxes = np.stack([x1, y1, x2, y2], axis=-1) * keep[..., None]                 # [N, A, H, W, 4]
    scores = (conf[:, :, None] * _sigmoid(values[:, :, 5:])) * keep[:, :, None]   # [N, A, C, H, W]
    boxes = boxes.reshape(n, count * height * width, 4)
    scores = scores.transpose(0, 1, 3, 4, 2).reshape(n, count * height * width, class_num)
    dtype = str(x.dtype).split(".")[-1]
    return to_tensor(boxes.astype(dtype), place=x.place), to_tensor(scores.astype(dtype), place=x.place)


# ---- yolo_loss ---------------------------------------------------------------------------------------------------


def _centre_iou(ax, ay, aw, ah, bx, by, bw, bh):
    """IoU of boxes given as centre and size (broadcasting)."""
    iw = np.minimum(ax + aw / 2, bx + bw / 2) - np.maximum(ax - aw / 2, bx - bw / 2)
    ih = np.minimum(ay + ah / 2, by + bh / 2) - np.maximum(ay - ah / 2, by - bh / 2)
    inter = np.where((iw < 0) | (ih < 0), 0.0, iw * ih)
    with np.errstate(divide="ignore", invalid="ignore"):
        return inter / (aw * ah + bw * bh - inter)


def _yolo_targets(values, boxes, labels, scores, pairs, mask, class_num, ignore_thresh, input_size, scale, bias):
    """Host-side matching, from the values of ``x`` [N, M, 5 + C, H, W] and the ground truth:
    the objectness weights [N, M, H, W] (score for a matched place, 0 for a negative one,
    -1 for one ignored because a prediction there already overlaps a ground-truth box by
    more than ``ignore_thresh``) and the matched places (image, mask slot, row, column,
    target tx, ty, tw, th, location weight, label, score)."""
    n, slots, _, height, width = values.shape
    valid = (boxes[:, :, 2] >= 1e-6) & (boxes[:, :, 3] >= 1e-6)                       # [N, B]
    cols = np.arange(width).reshape(1, 1, 1, width)
    rows = np.arange(height).reshape(1, 1, height, 1)
    anchor_w = np.asarray([pairs[2 * a] for a in mask]).reshape(1, slots, 1, 1)
    anchor_h = np.asarray([pairs[2 * a + 1] for a in mask]).reshape(1, slots, 1, 1)
    px = (cols + _sigmoid(values[:, :, 0]) * scale + bias) / width
    py = (rows + _sigmoid(values[:, :, 1]) * scale + bias) / height
    pw = np.exp(values[:, :, 2]) * anchor_w / input_size
    ph = np.exp(values[:, :, 3]) * anchor_h / input_size
    g = [boxes[:, :, k].reshape(n, 1, 1, 1, -1) for k in range(4)]
    iou = _centre_iou(px[..., None], py[..., None], pw[..., None], ph[..., None], *g)   # [N, M, H, W, B]
    best = np.where(valid.reshape(n, 1, 1, 1, -1), np.nan_to_num(iou, nan=0.0), 0.0).max(axis=-1, initial=0.0)
    objectness = np.where(best > ignore_thresh, -1.0, 0.0)
    all_w = np.asarray(pairs[0::2]) / input_size
    all_h = np.asarray(pairs[1::2]) / input_size
    matches = []
    for i in range(n):
        for t in np.nonzero(valid[i])[0]:
            gx, gy, gw, gh = boxes[i, t]
            shape_iou = _centre_iou(0.0, 0.0, all_w, all_h, 0.0, 0.0, gw, gh)
            best_anchor = int(np.argmax(np.where(shape_iou > 0, shape_iou, -1.0))) if (shape_iou > 0).any() else 0
            if best_anchor not in mask:
                continue
            slot = mask.index(best_anchor)
            gi = min(max(int(gx * width), 0), width - 1)
            gj = min(max(int(gy * height), 0), height - 1)
            score = float(scores[i, t])
            objectness[i, slot, gj, gi] = score
            matches.append((i, slot, gj, gi, gx * width - gi, gy * height - gj,
                            math.log(gw * input_size / pairs[2 * best_anchor]),
                            math.log(gh * input_size / pairs[2 * best_anchor + 1]),
                            (2.0 - gw * gh) * score, int(labels[i, t]), score))
    return objectness, matches


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio, gt_score=None,
              use_label_smooth=True, name=None, scale_x_y=1.0):
    """The YOLOv3 training loss of one detection head, per image ([N]),
    differentiable in ``x``.

    ``x`` [N, M * (5 + class_num), H, W] holds, for the M anchors picked by
    ``anchor_mask`` (indices into ``anchors``, [w0, h0, w1, h1, ...] in input
    pixels), (tx, ty, tw, th, objectness, class logits) at each place.
    ``gt_box`` [N, B, 4] are (centre x, centre y, w, h) as fractions of the
    image (a box of zero width or height is padding), ``gt_label`` [N, B]
    int32 their classes, ``gt_score`` [N, B] their weights (default 1).

    Each ground-truth box is matched to the anchor of most similar shape; if
    that anchor is in ``anchor_mask``, the place holding the box's centre is
    positive: sigmoid cross entropy on tx, ty (targets: the centre's offset
    in its cell), L1 on tw, th (log size over the anchor), both weighted by
    ``(2 - w * h) * score``; sigmoid cross entropy on every class (targets
    1 - s and s with ``use_label_smooth``, s = min(1 / class_num, 1 / 40))
    and on the objectness (target 1), weighted by the score. Every other
    place is a negative for the objectness (target 0) unless the box it
    predicts (centre ``(cell + sigmoid(t) * scale_x_y - (scale_x_y - 1) / 2)``)
    overlaps a ground-truth box by IoU > ``ignore_thresh``, in which case it
    adds nothing. The input size is ``downsample_ratio * H``.

    >>> x = eager.zeros([1, 7, 2, 2])                       # one anchor, two classes
    >>> loss = eager.vision.ops.yolo_loss(x, eager.to_tensor([[[0.3, 0.3, 0.5, 0.5]]]),
    ...     eager.to_tensor([[1]], dtype="int32"), anchors=[16, 16], anchor_mask=[0], class_num=2,
    ...     ignore_thresh=0.7, downsample_ratio=16)
    >>> loss.shape
    [1]
    """
    fn = "yolo_loss"
    _tensor(fn, "x", x, ndim=4, floating=True)
    _tensor(fn, "gt_box", gt_box, ndim=3, last=4, floating=True)
    _tensor(fn, "gt_label", gt_label, ndim=2)
    pairs = _floats(fn, "anchors", anchors)
    if len(pairs) % 2 or not pairs:
        raise ValueError(f"{fn}: argument 'anchors' expected (width, height) pairs, got {len(pairs)} numbers")
    if (not isinstance(anchor_mask, (list, tuple)) or not anchor_mask
            or not all(isinstance(a, numbers.Integral) and not isinstance(a, bool) and 0 <= a < len(pairs) // 2
                       for a in anchor_mask)):
        raise ValueError(f"{fn}: argument 'anchor_mask' expected a non-empty list of anchor indices in "
                         f"[0, {len(pairs) // 2}), got {anchor_mask!r}")
    mask = [int(a) for a in anchor_mask]
    _check.integer(fn, "class_num", class_num)
    _check.integer(fn, "downsample_ratio", downsample_ratio)
    if class_num < 1 or downsample_ratio < 1:
        raise ValueError(f"{fn}: arguments 'class_num' and 'downsample_ratio' must be positive, got {class_num} "
                         f"and {downsample_ratio}")
    for arg, value in (("ignore_thresh", ignore_thresh), ("scale_x_y", scale_x_y)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{fn}: argument '{arg}' expected a float, got {value!r}")
    use_label_smooth = to_bool(use_label_smooth, fn, "use_label_smooth")
    n, channels, height, width = (int(d) for d in x.shape)
    per_anchor = 5 + class_num
    if channels != len(mask) * per_anchor:
        raise ValueError(f"{fn}: argument 'x' has {channels} channels; {len(mask)} masked anchors and {class_num} "
                         f"classes need {len(mask) * per_anchor}")
    count = int(gt_box.shape[1])
    if int(gt_box.shape[0]) != n:
        raise ValueError(f"{fn}: argument 'gt_box' expected shape [{n}, B, 4] (boxes of the {n} images of 'x'), got "
                         f"{list(gt_box.shape)}")
    if list(gt_label.shape) != [n, count]:
        raise ValueError(f"{fn}: argument 'gt_label' expected shape [{n}, {count}] (one label per box of 'gt_box'), "
                         f"got {list(gt_label.shape)}")
    labels = gt_label.numpy()
    if labels.dtype.kind not in "iu":
        raise TypeError(f"{fn}: argument 'gt_label' expected an int Tensor, got {gt_label.dtype}")
    if gt_score is None:
        scores = np.ones((n, count))
    else:
        _tensor(fn, "gt_score", gt_score, ndim=2)
        if list(gt_score.shape) != [n, count]:
            raise ValueError(f"{fn}: argument 'gt_score' expected shape [{n}, {count}], got {list(gt_score.shape)}")
        scores = gt_score.numpy().astype(np.float64)
    scale = float(scale_x_y)
    values = x.numpy().astype(np.float64).reshape(n, len(mask), per_anchor, height, width)
    objectness, matches = _yolo_targets(values, gt_box.numpy().astype(np.float64), labels, scores, pairs, mask,
                                        class_num, float(ignore_thresh), downsample_ratio * height, scale,
                                        -0.5 * (scale - 1.0))

    def constant(array):
        return to_tensor(np.asarray(array, np.float64), place=x.place).astype(x.dtype)

    sce = nn.functional.binary_cross_entropy_with_logits
    logits = x.reshape([n, len(mask), per_anchor, height * width])
    obj_logits = logits[:, :, 4, :]
    weights = objectness.reshape(n, len(mask), height * width)
    positive, negative = np.where(weights > 1e-5, weights, 0.0), (weights > -0.5) & (weights <= 1e-5)
    loss = (sce(obj_logits, constant(weights > 1e-5), reduction="none") * constant(positive)
            + sce(obj_logits, constant(np.zeros_like(weights)), reduction="none") * constant(negative)).sum(axis=[1, 2])
    if matches:
        table = np.asarray(matches, np.float64)
        image, slot = table[:, 0].astype(np.int64), table[:, 1].astype(np.int64)
        place = table[:, 2].astype(np.int64) * width + table[:, 3].astype(np.int64)
        channel = np.arange(per_anchor)
        flat = ((image[:, None] * len(mask) + slot[:, None]) * per_anchor + channel) * (height * width) + place[:, None]
        picked = _F.gather(x.reshape([-1]), to_tensor(flat.reshape(-1), place=x.place)).reshape([len(matches),
                                                                                                   per_anchor])
        location = table[:, 8:9]
        smooth = min(1.0 / class_num, 1.0 / 40.0) if use_label_smooth else 0.0
        onehot = np.where(np.arange(class_num) == table[:, 9:10].astype(np.int64), 1.0 - smooth, smooth)
        per_match = ((sce(picked[:, 0:2], constant(table[:, 4:6]), reduction="none") * constant(location)).sum(axis=1)
                     + ((picked[:, 2:4] - constant(table[:, 6:8])).abs() * constant(location)).sum(axis=1)
                     + (sce(picked[:, 5:], constant(onehot), reduction="none")
                        * constant(table[:, 10:11])).sum(axis=1))
        per_image = np.zeros((n, len(matches)))
        per_image[image, np.arange(len(matches))] = 1.0
        loss = loss + _F.matmul(constant(per_image), per_match.reshape([-1, 1])).reshape([n])
    return loss


# ---- generate_proposals ------------------------------------------------------------------------------------------

_MAX_LOG_SCALE = math.log(1000.0 / 16.0)   # the largest log-size delta applied to an anchor (Paddle's clip)


def _decode_anchors(anchors, variances, deltas, offset):
    """Anchors moved and scaled by ``variances * deltas`` (centre-size coding)."""
    widths = anchors[:, 2] - anchors[:, 0] + offset
    heights = anchors[:, 3] - anchors[:, 1] + offset
    cx = anchors[:, 0] + 0.5 * widths + variances[:, 0] * deltas[:, 0] * widths
    cy = anchors[:, 1] + 0.5 * heights + variances[:, 1] * deltas[:, 1] * heights
    w = np.exp(np.minimum(variances[:, 2] * deltas[:, 2], _MAX_LOG_SCALE)) * widths
    h = np.exp(np.minimum(variances[:, 3] * deltas[:, 3], _MAX_LOG_SCALE)) * heights
    return np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - offset, cy + h / 2 - offset], axis=1)


def _adaptive_nms(rows, threshold, eta, offset):
    """Positions (into ``rows``, ranked best first) kept by greedy suppression at
    IoU > ``threshold``; with ``eta < 1`` the threshold shrinks by ``eta`` after
    each kept box while it is above 0.5. ``offset`` 1 counts pixels inclusively."""
    areas = (rows[:, 2] - rows[:, 0] + offset) * (rows[:, 3] - rows[:, 1] + offset)
    kept = []
    for i in range(len(rows)):
        if kept:
            previous = np.asarray(kept)
            iw = np.minimum(rows[i, 2], rows[previous, 2]) - np.maximum(rows[i, 0], rows[previous, 0]) + offset
            ih = np.minimum(rows[i, 3], rows[previous, 3]) - np.maximum(rows[i, 1], rows[previous, 1]) + offset
            inter = np.clip(iw, 0, None) * np.clip(ih, 0, None)
            union = areas[i] + areas[previous] - inter
            with np.errstate(divide="ignore", invalid="ignore"):
                iou = np.where(union > 0, inter / union, 0.0)
            if (iou > threshold).any():
                continue
        kept.append(i)
        if eta < 1.0 and threshold > 0.5:
            threshold *= eta
    return np.asarray(kept, np.int64)


def _proposals_of_image(scores, deltas, anchors, variances, height, width, pre_nms_top_n, post_nms_top_n,
                        nms_thresh, min_size, eta, offset):
    """One image's proposals (rows, scores), best first."""
    order = np.argsort(-scores, kind="stable")
    if 0 < pre_nms_top_n < len(order):
        order = order[:pre_nms_top_n]
    rows = _decode_anchors(anchors[order], variances[order], deltas[order], offset)
    rows[:, 0::2] = np.clip(rows[:, 0::2], 0.0, width - offset)
    rows[:, 1::2] = np.clip(rows[:, 1::2], 0.0, height - offset)
    kept_scores = scores[order]
    # Boxes smaller than min_size (at least one pixel) go; with pixel boxes so do those centred off the image.
    min_size = max(min_size, 1.0)
    box_w, box_h = rows[:, 2] - rows[:, 0] + offset, rows[:, 3] - rows[:, 1] + offset
    keep = (box_w >= min_size) & (box_h >= min_size)
    if offset:
        keep &= (rows[:, 0] + box_w / 2 <= width) & (rows[:, 1] + box_h / 2 <= height)
    rows, kept_scores = rows[keep], kept_scores[keep]
    if len(rows) == 0:      # Paddle's convention: one all-zero proposal with score 0
        return np.zeros((1, 4)), np.zeros(1)
    if nms_thresh > 0:
        chosen = _adaptive_nms(rows, nms_thresh, eta, offset)
        rows, kept_scores = rows[chosen], kept_scores[chosen]
    if 0 < post_nms_top_n < len(rows):
        rows, kept_scores = rows[:post_nms_top_n], kept_scores[:post_nms_top_n]
    return rows, kept_scores


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000, post_nms_top_n=1000,
                       nms_thresh=0.5, min_size=0.1, eta=1.0, pixel_offset=False, return_rois_num=False, name=None):
    """Region proposals of a Faster R-CNN RPN head (inference; no gradient).

    ``scores`` [N, A, H, W] (objectness of A anchors at each of H x W places),
    ``bbox_deltas`` [N, 4A, H, W] (their (dx, dy, dw, dh)), ``img_size`` [N, 2]
    (height, width of each image), ``anchors`` and ``variances`` [H, W, A, 4].
    Per image: the ``pre_nms_top_n`` best-scored anchors (<= 0: all) are
    decoded (centre-size, ``variances`` scaling the deltas, log-size deltas
    capped at log(1000/16)), clipped to the image, those narrower or lower
    than ``max(min_size, 1)`` dropped, then non-maximum suppression at
    ``nms_thresh`` (adaptive with ``eta < 1``; <= 0 skips it) and the first
    ``post_nms_top_n`` kept (<= 0: all). ``pixel_offset`` counts box sizes in
    whole pixels (+1). An image left with no box gives one all-zero box of
    score 0.

    Returns ``(rois [R, 4], roi_probs [R, 1], rois_num [N] int32)`` with the
    images' proposals one after another, best first; ``rois_num`` is None
    unless ``return_rois_num``.

    >>> scores = eager.to_tensor([[[[0.9]], [[0.2]]]])                     # N=1, A=2, H=W=1
    >>> anchors = eager.to_tensor([[[[0.0, 0.0, 9.0, 9.0], [1.0, 1.0, 9.0, 9.0]]]])
    >>> rois, probs, num = eager.vision.ops.generate_proposals(
    ...     scores, eager.zeros([1, 8, 1, 1]), eager.to_tensor([[20.0, 20.0]]), anchors,
    ...     eager.ones([1, 1, 2, 4]), nms_thresh=0.5, return_rois_num=True)
    >>> rois.tolist(), probs.shape, num.tolist()
    ([[0.0, 0.0, 9.0, 9.0]], [1, 1], [1])
    """
    fn = "generate_proposals"
    _tensor(fn, "scores", scores, ndim=4, floating=True)
    _tensor(fn, "bbox_deltas", bbox_deltas, ndim=4, floating=True)
    _tensor(fn, "img_size", img_size, ndim=2, last=2)
    _tensor(fn, "anchors", anchors, floating=True)
    _tensor(fn, "variances", variances, floating=True)
    n, a, h, w = (int(d) for d in scores.shape)
    if list(bbox_deltas.shape) != [n, 4 * a, h, w]:
        raise ValueError(f"{fn}: argument 'bbox_deltas' expected shape {[n, 4 * a, h, w]} (4 deltas per anchor of "
                         f"'scores' {list(scores.shape)}), got {list(bbox_deltas.shape)}")
    if int(img_size.shape[0]) != n:
        raise ValueError(f"{fn}: argument 'img_size' expected shape [{n}, 2] (one (height, width) per image), got "
                         f"{list(img_size.shape)}")
    for arg, value in (("anchors", anchors), ("variances", variances)):
        # Paddle reads anchors and variances as rows of 4 (in [H, W, A] order), so [H * W * A, 4] works too
        if len(value.shape) < 2 or value.shape[-1] != 4 or math.prod(value.shape) != h * w * a * 4:
            raise ValueError(f"{fn}: argument '{arg}' expected shape [{h}, {w}, {a}, 4] or [{h * w * a}, 4] (one box "
                             f"per anchor and place of 'scores'), got {list(value.shape)}")
    for arg, value in (("pre_nms_top_n", pre_nms_top_n), ("post_nms_top_n", post_nms_top_n)):
        _check.integer(fn, arg, value)
    for arg, value in (("nms_thresh", nms_thresh), ("min_size", min_size), ("eta", eta)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{fn}: argument '{arg}' expected a float, got {value!r}")
    offset = 1.0 if to_bool(pixel_offset, fn, "pixel_offset") else 0.0
    return_rois_num = to_bool(return_rois_num, fn, "return_rois_num")
    dtype = scores.numpy().dtype
    all_scores = scores.numpy().astype(np.float64).transpose(0, 2, 3, 1).reshape(n, -1)
    all_deltas = bbox_deltas.numpy().astype(np.float64).transpose(0, 2, 3, 1).reshape(n, -1, 4)
    anchor_rows = anchors.numpy().astype(np.float64).reshape(-1, 4)
    variance_rows = variances.numpy().astype(np.float64).reshape(-1, 4)
    sizes = img_size.numpy().astype(np.float64)
    rois, probs, counts = [], [], []
    for i in range(n):
        rows, kept = _proposals_of_image(all_scores[i], all_deltas[i], anchor_rows, variance_rows, sizes[i, 0],
                                         sizes[i, 1], int(pre_nms_top_n), int(post_nms_top_n), float(nms_thresh),
                                         float(min_size), float(eta), offset)
        rois.append(rows)
        probs.append(kept)
        counts.append(len(rows))
    place = scores.place
    rois_t = to_tensor(np.concatenate(rois).astype(dtype), place=place)
    probs_t = to_tensor(np.concatenate(probs).astype(dtype).reshape(-1, 1), place=place)
    num_t = to_tensor(np.asarray(counts, np.int32), place=place) if return_rois_num else None
    return rois_t, probs_t, num_t


# ---- distribute_fpn_proposals ------------------------------------------------------------------------------------


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale, pixel_offset=False,
                             rois_num=None, name=None):
    """Assigns each region to an FPN level by its size: level
    ``floor(log2(sqrt(area) / refer_scale + 1e-8) + refer_level)`` clamped to
    [``min_level``, ``max_level``] (``pixel_offset`` counts pixel boxes
    inclusively, +1 per side).

    Returns ``(multi_rois, restore_ind, rois_num_per_level)``: the regions of
    each level (a list, lowest level first, each in the input order),
    ``restore_ind`` [R, 1] int32 with ``concat(multi_rois)[restore_ind[:, 0]]``
    the input order back, and, when ``rois_num`` ([N] regions per image) is
    given, each level's regions per image (else None). The regions keep their
    gradient (they are gathered).

    >>> rois = eager.to_tensor([[0.0, 0.0, 10.0, 10.0], [0.0, 0.0, 200.0, 200.0]])
    >>> multi, restore, _ = eager.vision.ops.distribute_fpn_proposals(rois, 2, 5, 4, 224)
    >>> [m.shape[0] for m in multi], restore.flatten().tolist()
    ([1, 1, 0, 0], [0, 1])
    """
    fn = "distribute_fpn_proposals"
    _tensor(fn, "fpn_rois", fpn_rois, ndim=2, last=4, floating=True)
    for arg, value in (("min_level", min_level), ("max_level", max_level), ("refer_level", refer_level)):
        _check.integer(fn, arg, value)
    if min_level > max_level:
        raise ValueError(f"{fn}: min_level ({min_level}) must not exceed max_level ({max_level})")
    refer_scale = _scale(fn, refer_scale, "refer_scale")
    pixel_offset = to_bool(pixel_offset, fn, "pixel_offset")
    rows = fpn_rois.numpy().astype(np.float64)
    extra = 1.0 if pixel_offset else 0.0
    widths, heights = rows[:, 2] - rows[:, 0] + extra, rows[:, 3] - rows[:, 1] + extra
    area = np.where((widths > 0) & (heights > 0), widths * heights, 0.0)
    level = np.floor(np.log2(np.sqrt(area) / refer_scale + 1e-8) + refer_level)
    level = np.clip(level, min_level, max_level).astype(np.int64)
    order = np.concatenate([np.nonzero(level == lv)[0] for lv in range(min_level, max_level + 1)]).astype(np.int64)
    restore = np.empty(len(order), np.int32)
    restore[order] = np.arange(len(order), dtype=np.int32)
    multi_rois = []
    for lv in range(min_level, max_level + 1):
        picked = np.nonzero(level == lv)[0].astype(np.int64)
        multi_rois.append(_F.gather(fpn_rois, to_tensor(picked, place=fpn_rois.place), axis=0))
    per_level = None
    if rois_num is not None:
        _tensor(fn, "rois_num", rois_num, ndim=1)
        counts = rois_num.numpy()
        if counts.dtype.kind not in "iu" or (counts < 0).any() or int(counts.sum()) != len(rows):
            raise ValueError(f"{fn}: argument 'rois_num' {counts.tolist()} must be non-negative ints summing to "
                             f"the number of regions ({len(rows)})")
        image = np.repeat(np.arange(len(counts)), counts)
        per_level = [to_tensor(np.bincount(image[level == lv], minlength=len(counts)).astype(np.int32),
                               place=fpn_rois.place) for lv in range(min_level, max_level + 1)]
    return multi_rois, to_tensor(restore.reshape(-1, 1), place=fpn_rois.place), per_level


# ---- image files -------------------------------------------------------------------------------------------------


def read_file(filename, name=None):
    """The bytes of the file ``filename`` as a 1-D uint8 Tensor (for :func:`decode_jpeg`).

    >>> data = eager.vision.ops.read_file(path_to_jpeg)
    >>> data.dtype == eager.uint8, data.shape == [os.path.getsize(path_to_jpeg)]
    (True, True)
    """
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"read_file: argument 'filename' expected a path, got {type(filename).__name__}")
    if not os.path.isfile(filename):
        raise FileNotFoundError(f"read_file: argument 'filename': no file at {os.fspath(filename)!r}")
    with open(filename, "rb") as f:
        return to_tensor(np.frombuffer(f.read(), np.uint8).copy())


_DECODE_MODES = {"unchanged": None, "gray": "L", "rgb": "RGB"}


def decode_jpeg(x, mode="unchanged", name=None):
    """Decodes the JPEG bytes in ``x`` (a 1-D uint8 Tensor, as :func:`read_file`
    gives) into a uint8 Tensor [C, H, W] on ``x``'s device; ``mode`` 'gray' or
    'rgb' converts the colours, 'unchanged' keeps the file's. Decoded with Pillow.

    >>> image = eager.vision.ops.decode_jpeg(eager.vision.ops.read_file(path_to_jpeg), mode="rgb")
    >>> image.shape[0]
    3
    """
    fn = "decode_jpeg"
    _tensor(fn, "x", x, ndim=1)
    if str(x.dtype).split(".")[-1] != "uint8":
        raise TypeError(f"{fn}: argument 'x' expected a uint8 Tensor of file bytes, got {x.dtype}")
    if mode not in _DECODE_MODES:
        raise ValueError(f"{fn}: argument 'mode' expected one of {list(_DECODE_MODES)}, got {mode!r}")
    try:
        image_module = importlib.import_module("PIL.Image")
    except ImportError:
        raise ImportError(f"{fn}: decoding needs Pillow; install it") from None
    try:
        image = image_module.open(io.BytesIO(x.numpy().tobytes()))
        image.load()
    except Exception as error:  # Pillow raises several kinds for bytes that are not an image
        raise ValueError(f"{fn}: argument 'x' does not hold a decodable image: {error}") from None
    if _DECODE_MODES[mode] is not None and image.mode != _DECODE_MODES[mode]:
        image = image.convert(_DECODE_MODES[mode])
    array = np.asarray(image, dtype=np.uint8)
    array = array[None] if array.ndim == 2 else array.transpose(2, 0, 1)
    return to_tensor(np.ascontiguousarray(array), place=x.place)


# ---- building blocks ---------------------------------------------------------------------------------------------


class ConvNormActivation(nn.Sequential):
    """Conv2D, then ``norm_layer`` (default BatchNorm2D; None leaves it out),
    then ``activation_layer`` (default ReLU; None leaves it out). ``padding``
    None keeps the size at stride 1; ``bias`` None means a bias only without a
    norm layer.

    >>> block = eager.vision.ops.ConvNormActivation(3, 8, kernel_size=3, stride=2)
    >>> block(eager.rand([1, 3, 8, 8])).shape
    [1, 8, 4, 4]
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1, bias=None):
        who = "ConvNormActivation"
        if padding is None:  # computed from ints here, so Conv2D's own checks come too late
            for arg, value in (("kernel_size", kernel_size), ("dilation", dilation)):
                if not isinstance(value, numbers.Integral) or isinstance(value, bool):
                    raise TypeError(f"{who}: argument '{arg}' expected an int when padding is None, "
                                    f"got {value!r}")
            padding = (kernel_size - 1) // 2 * dilation
        for arg, value in (("norm_layer", norm_layer), ("activation_layer", activation_layer)):
            if value is not None and not callable(value):
                raise TypeError(f"{who}: argument '{arg}' expected a layer class (or None), got {value!r}")
        bias = norm_layer is None if bias is None else to_bool(bias, who, "bias")
        try:  # the sublayers check the sizes; their errors also name the block the user made
            layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                                groups=groups, bias_attr=None if bias else False)]
            if norm_layer is not None:
                layers.append(norm_layer(out_channels))
            if activation_layer is not None:
                layers.append(activation_layer())
        except (TypeError, ValueError) as error:
            raise in_called(error, who) from None
        super().__init__(*layers)


__all__ = ["ConvNormActivation", "DeformConv2D", "PSRoIPool", "RoIAlign", "RoIPool", "box_coder", "decode_jpeg",
           "deform_conv2d", "distribute_fpn_proposals", "generate_proposals", "matrix_nms", "nms", "prior_box", "psroi_pool", "read_file",
           "roi_align", "roi_pool", "yolo_box", "yolo_loss"]
