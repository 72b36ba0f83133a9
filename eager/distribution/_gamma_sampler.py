"""Standard gamma draws composed from the framework's normal and uniform ops.

There is no gamma sampling op, so Gamma, Beta and Dirichlet draw with
Marsaglia and Tsang's rejection method (2000), vectorized: every round draws
a normal and a uniform for all elements still pending and keeps the accepted
ones (more than 95% per round for any concentration). Concentrations below 1
draw for ``alpha + 1`` and multiply by ``u ** (1 / alpha)``. The draws come from
the global generator, so ``eager.seed`` repeats them; no gradient flows.
"""
from __future__ import annotations

import numpy as np

from ..autograd import no_grad
from ..generated import forward_api as _F
from ..tensor import Tensor

_MAX_ROUNDS = 200


def standard_gamma(alpha: Tensor, shape: list) -> Tensor:
    """Gamma(alpha, 1) draws of ``shape`` (``alpha`` broadcast to it), without gradient."""
    with no_grad():
        dtype, place = alpha.dtype, alpha.place
        a = _F.broadcast_to(alpha.detach(), shape)
        boost = a < 1.0
        a1 = _F.where(boost, a + 1.0, a)
        d = a1 - 1.0 / 3.0
        c = _F.rsqrt(d * 9.0)
        out = _F.zeros_like(a)
        done = _F.zeros_like(a) > 1.0
        for _ in range(_MAX_ROUNDS):
            x = _F.gaussian(shape, 0.0, 1.0, 0, dtype, place)
            v = x * c + 1.0
            v = v * v * v
            positive = v > 0.0
            safe_v = _F.where(positive, v, _F.ones_like(v))
            u = _F.uniform(shape, dtype, 0.0, 1.0, 0, place)
            accept = _F.logical_and(positive, _F.log(u) < x * x * 0.5 + d - d * safe_v + d * _F.log(safe_v))
            out = _F.where(_F.logical_and(accept, _F.logical_not(done)), d * safe_v, out)
            done = _F.logical_or(done, accept)
            if bool(_F.all(done).numpy()):
                break
        tiny = float(np.finfo(dtype.value).tiny)
        u = _F.uniform(shape, dtype, tiny, 1.0, 0, place)
        out = _F.where(boost, out * _F.exp(_F.log(u) / a), out)
        return _F.clip(out, tiny, None)
