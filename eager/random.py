"""``eager.normal``: Paddle's ``paddle.normal``, whose mean and std may each be a
number or a Tensor, which one YAML signature cannot say; it is written with the
generated ops (gaussian, standard_normal, multiply, add)."""
from __future__ import annotations

import numbers

from phi.core.errors import PhiError, UnsupportedDtypeError
from phi.infermeta.checks import broadcast_dims

from .composite._paddle_api import composed
from .generated import forward_api as _F
from .tensor import Tensor


@composed  # an error of the gaussian op it calls says normal: too
def normal(mean=0.0, std=1.0, shape=None, name=None) -> Tensor:
    """Normal samples with mean ``mean`` and standard deviation ``std``.

    With numbers for both, the result has ``shape`` and dtype float32 (it is
    ``eager.gaussian``). With a Tensor for either, the result has the broadcast
    shape and floating dtype of the tensor(s) (``shape`` is ignored, as in
    Paddle; a float32 and a float64 tensor give float64, as Paddle's
    promotion does), each element drawn with its own mean and std; it is computed as
    ``mean + std * standard_normal``, so gradients flow to tensor means and
    stds (the reparameterization Paddle's composition gives too).
    """
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    for arg, value, is_tensor in (("mean", mean, mean_is_tensor), ("std", std, std_is_tensor)):
        if not is_tensor and (not isinstance(value, numbers.Real) or isinstance(value, bool)):
            raise TypeError(f"normal: argument '{arg}' expected a number or a Tensor, got {type(value).__name__}")
    if not mean_is_tensor and not std_is_tensor:
        if shape is None:
            raise ValueError("normal: argument 'shape' is needed when mean and std are numbers")
        return _F.gaussian(shape, mean, std, 0, None)
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    for t in tensors:
        if not t.dtype.is_floating_point:
            # as Paddle, whose gaussian kernel has no integer dtype (RuntimeError there)
            raise UnsupportedDtypeError(f"normal: a Tensor mean or std must be floating, got {t.dtype}")
    if not std_is_tensor and std < 0:
        raise ValueError(f"normal: argument 'std' expected a standard deviation >= 0, got {std}")
    try:
        out_shape = list(broadcast_dims("mean", tuple(mean.shape), "std", tuple(std.shape))) \
            if len(tensors) == 2 else list(tensors[0].shape)
    except PhiError as error:
        raise ValueError(f"normal: {error}") from None
    noise = _F.standard_normal(out_shape, tensors[0].dtype, tensors[0].place)
    return _F.add(_F.multiply(noise, std) if std_is_tensor else _F.scale(noise, std, 0.0, True),
                  mean if mean_is_tensor else _F.full([], mean, tensors[0].dtype, tensors[0].place))


__all__ = ["normal"]
