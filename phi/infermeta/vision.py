"""InferMeta of the vision ops: pad, interpolation, grid_sample (issue #10)."""
from __future__ import annotations

from ..common.data_type import DataType
from ..core.errors import InvalidArgumentError
from ..core.meta_tensor import MetaTensor
from .checks import check_result_shape, same_dtype

__all__ = ["pad_infer_meta", "pad_grad_infer_meta", "interp_grad_infer_meta", "grid_sample_infer_meta",
           "grid_sample_grad_infer_meta", "nearest_interp_infer_meta", "linear_interp_infer_meta",
           "bilinear_interp_infer_meta", "trilinear_interp_infer_meta", "bicubic_interp_infer_meta"]


def pad_infer_meta(x, paddings, pad_value, out) -> None:
    """x [d0, d1, ...] padded by paddings [before0, after0, before1, after1, ...]."""
    dims = tuple(x.dims)
    if len(paddings) != 2 * len(dims):
        raise InvalidArgumentError(f"argument 'paddings' expected {2 * len(dims)} ints (before and after for each "
                                   f"of x's {len(dims)} axes), got {list(paddings)}")
    if any(p < 0 for p in paddings):
        raise InvalidArgumentError(f"argument 'paddings' expected non-negative ints, got {list(paddings)}")
    out_dims = tuple(d + paddings[2 * i] + paddings[2 * i + 1] for i, d in enumerate(dims))
    check_result_shape("paddings", out_dims, x.dtype)
    out.dims, out.dtype, out.layout = out_dims, x.dtype, x.layout


def pad_grad_infer_meta(x, out_grad, paddings, pad_value, x_grad) -> None:
    forward = MetaTensor()
    pad_infer_meta(x, paddings, pad_value, forward)
    if tuple(out_grad.dims) != tuple(forward.dims):
        raise InvalidArgumentError(f"argument 'out_grad' expected shape {list(forward.dims)} (the padded x), got "
                                   f"{list(out_grad.dims)}")
    x_grad.dims, x_grad.dtype, x_grad.layout = tuple(x.dims), out_grad.dtype, x.layout


_INTERP_RANKS = {"nearest_interp": (3, 4, 5), "linear_interp": (3,), "bilinear_interp": (4,),
                 "trilinear_interp": (5,), "bicubic_interp": (4,)}
_INTERP_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


# The integer dtypes the interpolation ops take besides the floats (Paddle's CPU
# kernels: uint8 images for nearest and the linear modes, int32/int64 for nearest).
_INTERP_INTEGERS = {"nearest_interp": (DataType.UINT8, DataType.INT32, DataType.INT64),
                    "linear_interp": (DataType.UINT8,), "bilinear_interp": (DataType.UINT8,),
                    "trilinear_interp": (DataType.UINT8,)}


def _interp(op, x, out_size, scale, align_corners, align_mode, data_format, out) -> None:
    dims = tuple(x.dims)
    ranks = _INTERP_RANKS[op]
    if len(dims) not in ranks:
        raise InvalidArgumentError(f"argument 'x' expected a {' or '.join(map(str, ranks))}-d tensor, got shape "
                                   f"{list(dims)}")
    if not x.dtype.is_floating_point and x.dtype not in _INTERP_INTEGERS.get(op, ()):
        also = f" or {', '.join(str(t) for t in _INTERP_INTEGERS[op])}" if op in _INTERP_INTEGERS else ""
        raise InvalidArgumentError(f"argument 'x' expected a floating-point tensor{also}, got {x.dtype}")
    formats = _INTERP_FORMATS[len(dims)]
    if data_format not in formats:
        raise InvalidArgumentError(f"argument 'data_format' expected one of {list(formats)} for a {len(dims)}-d x, "
                                   f"got {data_format!r}")
    k = len(dims) - 2
    if len(out_size) != k or any(s <= 0 for s in out_size):
        raise InvalidArgumentError(f"argument 'out_size' expected {k} positive ints, got {list(out_size)}")
    if scale and (len(scale) != k or any(not s > 0 for s in scale)):
        raise InvalidArgumentError(f"argument 'scale' expected {k} positive numbers or none, got {list(scale)}")
    if align_mode not in (0, 1):
        raise InvalidArgumentError(f"argument 'align_mode' expected 0 or 1, got {align_mode}")
    channel_last = data_format.endswith("C")
    spatial = dims[1:-1] if channel_last else dims[2:]
    if any(s <= 0 for s in spatial):
        raise InvalidArgumentError(f"argument 'x' expected non-empty spatial axes, got shape {list(dims)}")
    out_dims = (dims[0],) + tuple(out_size) + (dims[-1],) if channel_last else dims[:2] + tuple(out_size)
    check_result_shape("out_size", out_dims, x.dtype)
    out.dims, out.dtype, out.layout = out_dims, x.dtype, x.layout


def _interp_infer_meta(op):
    def infer(x, out_size, scale, align_corners, align_mode, data_format, out) -> None:
        _interp(op, x, out_size, scale, align_corners, align_mode, data_format, out)

    infer.__name__ = f"{op}_infer_meta"
    infer.__doc__ = f"{op}: x [N, C, *spatial] (or channel-last) resized to out_size."
    return infer


nearest_interp_infer_meta = _interp_infer_meta("nearest_interp")
linear_interp_infer_meta = _interp_infer_meta("linear_interp")
bilinear_interp_infer_meta = _interp_infer_meta("bilinear_interp")
trilinear_interp_infer_meta = _interp_infer_meta("trilinear_interp")
bicubic_interp_infer_meta = _interp_infer_meta("bicubic_interp")


def interp_grad_infer_meta(x, out_grad, out_size, scale, align_corners, align_mode, data_format, x_grad) -> None:
    """The gradient of any interpolation op: out_grad must have the forward result's shape."""
    forward = MetaTensor()
    _interp("nearest_interp", x, out_size, scale, align_corners, align_mode, data_format, forward)
    if tuple(out_grad.dims) != tuple(forward.dims) or out_grad.dtype is not x.dtype:
        raise InvalidArgumentError(f"argument 'out_grad' expected {x.dtype}{list(forward.dims)} (the forward op's "
                                   f"result), got {out_grad.dtype}{list(out_grad.dims)}")
    x_grad.share_meta(x)


_GRID_MODES = ("bilinear", "nearest")
_GRID_PADDINGS = ("zeros", "border", "reflection")


def grid_sample_infer_meta(x, grid, mode, padding_mode, align_corners, out) -> None:
    """x [N, C, H, W] sampled at grid [N, H_out, W_out, 2] (or 5-d with 3 coordinates)."""
    dims, g = tuple(x.dims), tuple(grid.dims)
    if len(dims) not in (4, 5):
        raise InvalidArgumentError(f"argument 'x' expected a 4-d [N, C, H, W] or 5-d [N, C, D, H, W] tensor, got "
                                   f"shape {list(dims)}")
    k = len(dims) - 2
    if len(g) != k + 2 or g[0] != dims[0] or g[-1] != k:
        expected = f"[{dims[0]}, H_out, W_out, 2]" if k == 2 else f"[{dims[0]}, D_out, H_out, W_out, 3]"
        raise InvalidArgumentError(f"argument 'grid' expected shape {expected} for x of shape {list(dims)}, got "
                                   f"{list(g)}")
    same_dtype("x", x, "grid", grid)
    if not x.dtype.is_floating_point:
        raise InvalidArgumentError(f"argument 'x' expected a floating-point tensor, got {x.dtype}")
    if mode not in _GRID_MODES:
        raise InvalidArgumentError(f"argument 'mode' expected one of {list(_GRID_MODES)}, got {mode!r}")
    if padding_mode not in _GRID_PADDINGS:
        raise InvalidArgumentError(f"argument 'padding_mode' expected one of {list(_GRID_PADDINGS)}, got "
                                   f"{padding_mode!r}")
    if any(s <= 0 for s in dims[2:]):
        raise InvalidArgumentError(f"argument 'x' expected non-empty spatial axes, got shape {list(dims)}")
    out_dims = dims[:2] + g[1:-1]
    check_result_shape("grid", out_dims, x.dtype)
    out.dims, out.dtype, out.layout = out_dims, x.dtype, x.layout


def grid_sample_grad_infer_meta(x, grid, out_grad, mode, padding_mode, align_corners, x_grad, grid_grad) -> None:
    forward = MetaTensor()
    grid_sample_infer_meta(x, grid, mode, padding_mode, align_corners, forward)
    if tuple(out_grad.dims) != tuple(forward.dims) or out_grad.dtype is not x.dtype:
        raise InvalidArgumentError(f"argument 'out_grad' expected {x.dtype}{list(forward.dims)} (the forward op's "
                                   f"result), got {out_grad.dtype}{list(out_grad.dims)}")
    x_grad.share_meta(x)
    grid_grad.share_meta(grid)
