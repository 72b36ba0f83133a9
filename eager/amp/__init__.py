"""eager.amp: automatic mixed precision, Paddle 2.x's ``paddle.amp``.

- :func:`auto_cast` (``amp_guard``): ops of a ``with`` block run in float16 or
  float32 per the white and black lists (:mod:`eager.amp.amp_lists`).
- :class:`GradScaler` (``AmpScaler``): loss scaling with Inf/NaN step skipping.
- :func:`decorate` (``amp_decorate``): pure float16 models ('O2') with float32
  master weights in the optimizers.
- :mod:`eager.amp.debugging`: the tensor checker (NaN/Inf per op),
  ``check_numerics`` and per-op, per-dtype operator statistics.
- :func:`is_float16_supported`, :func:`is_bfloat16_supported`,
  :func:`white_list`, :func:`black_list`.

>>> scaler = eager.amp.GradScaler(init_loss_scaling=1024)
>>> with eager.amp.auto_cast():
...     loss = loss_fn(model(x), y)
>>> scaled = scaler.scale(loss)
>>> scaled.backward()
>>> scaler.minimize(opt, scaled)
"""
from . import debugging  # noqa: F401  (paddle.amp.debugging)
from .amp_lists import black_list, white_list
from .auto_cast import amp_guard, amp_state, auto_cast, is_bfloat16_supported, is_float16_supported
from .decorate import amp_decorate, decorate
from .grad_scaler import AmpScaler, GradScaler, OptimizerState  # noqa: F401  (OptimizerState: Paddle's, outside __all__)

__all__ = [
    "AmpScaler", "GradScaler", "amp_decorate", "amp_guard", "amp_state", "auto_cast", "black_list", "decorate",
    "is_bfloat16_supported", "is_float16_supported", "white_list",
]
