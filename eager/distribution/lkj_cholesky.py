"""``LKJCholesky``: Paddle's ``paddle.distribution.LKJCholesky``.

The LKJ distribution (Lewandowski, Kurowicka and Joe, 2009) over the lower
Cholesky factors ``L`` of ``dim x dim`` correlation matrices: ``L L^T`` has
density proportional to ``det(L L^T)^(concentration - 1)``; as a density in
the ``dim (dim - 1) / 2`` free entries below the diagonal of ``L`` it is
proportional to ``prod_i L_ii^(dim - i + 2 concentration - 2)`` (i = 2 .. dim).
Both of the paper's samplers are here, composed from the framework's normal,
uniform and gamma (Marsaglia-Tsang) draws.
"""
from __future__ import annotations

import math
import numbers

from ..autograd import no_grad
from ..generated import forward_api as _F
from .distribution import Distribution
from ._gamma_sampler import standard_gamma
from ._params import as_params, as_value, check_positive

_METHODS = ("onion", "cvine")


def _beta_draws(a, b, shape):
    """Beta(a, b) draws of ``shape`` from two gamma draws, without gradient."""
    x = standard_gamma(a, shape)
    y = standard_gamma(b, shape)
    return x / (x + y)


class LKJCholesky(Distribution):
    """The LKJ distribution over Cholesky factors of ``dim x dim`` correlation matrices.

    ``concentration`` (> 0; a number or a Tensor, whose shape is the batch
    shape) pulls the correlations towards 0 as it grows; 1 is uniform over
    correlation matrices. ``sample_method`` is ``"onion"`` or ``"cvine"``;
    both give the same law. The event shape is ``(dim, dim)``; draws carry no
    gradient.

    >>> from eager.distribution import LKJCholesky
    >>> lkj = LKJCholesky(dim=3)
    >>> lkj.sample().shape
    [3, 3]
    """

    def __init__(self, dim=2, concentration=1.0, sample_method="onion"):
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
            raise TypeError(f"LKJCholesky: argument 'dim' expected an int >= 2, got {type(dim).__name__} {dim!r}")
        if dim < 2:
            raise ValueError(f"LKJCholesky: argument 'dim' expected an int >= 2, got {dim!r}")
        if not isinstance(sample_method, str) or sample_method not in _METHODS:
            raise ValueError(f"LKJCholesky: argument 'sample_method' expected 'onion' or 'cvine', "
                             f"got {sample_method!r}")
        (self.concentration,) = as_params("LKJCholesky", concentration=concentration)
        check_positive("LKJCholesky", "concentration", self.concentration)
        self.dim = int(dim)
        self.sample_method = sample_method
        self.dtype = self.concentration.dtype
        super().__init__(self.concentration.shape, (self.dim, self.dim))

    def sample(self, shape=()):
        """Lower-triangular factors of shape ``shape + batch_shape + [dim, dim]``, rows of
        unit norm with a positive diagonal; no gradient."""
        full = list(self._extend_shape(shape))
        lead = full[:-2]
        with no_grad():
            eta = _F.broadcast_to(self.concentration.detach(), lead)
            rows = self._onion(eta, lead) if self.sample_method == "onion" else self._cvine(eta, lead)
            return _F.stack(rows, -2)

    def _row(self, entries, lead):
        """A row of L: ``entries`` (tensors holding the first i + 1 values) padded with zeros to ``dim``."""
        pad = self.dim - sum(e.shape[-1] for e in entries)
        parts = entries + ([_F.zeros(lead + [pad], self.dtype)] if pad else [])
        return _F.concat(parts, -1)

    def _onion(self, eta, lead):
        # row i: its off-diagonal part is sqrt(y) times a uniform unit vector in R^i,
        # y ~ Beta(i / 2, eta + (dim - 2 - (i - 1)) / 2); the diagonal is sqrt(1 - y)
        ones = _F.ones(lead + [1], self.dtype)
        rows = [self._row([ones], lead)]
        for i in range(1, self.dim):
            b = eta + (self.dim - 1 - i) / 2.0
            y = _F.unsqueeze(_beta_draws(_F.full_like(b, i / 2.0), b, lead), -1)
            g = _F.gaussian(lead + [i], 0.0, 1.0, 0, self.dtype, self.concentration.place)
            u = g / _F.sqrt(_F.sum(g * g, axis=-1, keepdim=True))
            rows.append(self._row([u * _F.sqrt(y), _F.sqrt(1.0 - y)], lead))
        return rows

    def _cvine(self, eta, lead):
        # partial correlations z (column j) ~ 2 Beta(b_j, b_j) - 1 with b_j = eta + (dim - 2 - j) / 2;
        # row i: L_ij = z_ij sqrt(1 - sum_{k<j} L_ik^2), L_ii = sqrt(1 - sum_{k<i} L_ik^2)
        ones = _F.ones(lead + [1], self.dtype)
        rows = [self._row([ones], lead)]
        for i in range(1, self.dim):
            entries, used = [], _F.zeros(lead + [1], self.dtype)
            for j in range(i):
                b = eta + (self.dim - 2 - j) / 2.0
                z = _F.unsqueeze(_beta_draws(b, b, lead), -1) * 2.0 - 1.0
                value = z * _F.sqrt(1.0 - used)
                entries.append(value)
                used = used + value * value
            entries.append(_F.sqrt(_F.clip(1.0 - used, 0.0, None)))
            rows.append(self._row(entries, lead))
        return rows

    def log_prob(self, value):
        """``sum_i (dim - i + 2 eta - 2) log L_ii - log Z(eta)``, i = 2 .. dim, with
        ``log Z`` the LKJ normalizer (differentiable in ``value`` and ``concentration``)."""
        value = as_value("LKJCholesky.log_prob", value, self.concentration)
        if len(value.shape) < 2 or tuple(value.shape[-2:]) != (self.dim, self.dim):
            raise ValueError(f"LKJCholesky.log_prob: argument 'value' expected shape [..., {self.dim}, {self.dim}], "
                             f"got {list(value.shape)}")
        d = self.dim
        diag = _F.diagonal(value, 0, -2, -1)[..., 1:]                              # L_22 .. L_dd
        order = _F.arange(2, d + 1, 1, self.dtype, self.concentration.place)     # i = 2 .. d
        eta = _F.unsqueeze(self.concentration, -1)
        exponents = eta * 2.0 + (float(d) - 2.0) - order
        unnormalized = _F.sum(exponents * _F.log(diag), axis=-1)
        return unnormalized - self._log_normalizer()

    def _log_normalizer(self):
        # log of int prod_i L_ii^(...) over the free entries: (d - 1)/2 log(pi)
        # + log Gamma_{d-1}(alpha - 1/2) - (d - 1) lgamma(alpha), alpha = eta + (d - 1)/2,
        # with the multivariate gamma log Gamma_p(a) = p (p - 1)/4 log(pi) + sum_j lgamma(a - (j - 1)/2)
        d1 = self.dim - 1
        alpha = self.concentration + d1 / 2.0
        mvlgamma = d1 * (d1 - 1) / 4.0 * math.log(math.pi)
        for j in range(1, d1 + 1):
            mvlgamma = mvlgamma + _F.lgamma(alpha - 0.5 - (j - 1) / 2.0)
        return d1 / 2.0 * math.log(math.pi) + mvlgamma - d1 * _F.lgamma(alpha)


__all__ = ["LKJCholesky"]
