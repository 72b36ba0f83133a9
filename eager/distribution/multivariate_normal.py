"""``MultivariateNormal``: Paddle's ``paddle.distribution.MultivariateNormal`` (and its KL divergence)."""
from __future__ import annotations

import math

import numpy as np

from ..autograd import no_grad
from ..generated import forward_api as _F
from ..tensor import Tensor
from .distribution import Distribution
from .kl import register_kl
from ._params import as_params, as_value, check_event

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def _half_log_det(tril):
    return _F.sum(_F.log(_F.diagonal(tril, 0, -2, -1)), axis=-1)


def _solve_tril(tril, vectors):
    """``tril^-1 @ vectors[..., None]`` squeezed back (a general solve: no triangular op exists)."""
    return _F.squeeze(_F.solve(tril, _F.unsqueeze(vectors, -1)), -1)


class MultivariateNormal(Distribution):
    """The normal distribution of vectors in R^k with mean ``loc`` (``[..., k]``) and one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (``[..., k, k]``; the
    lower Cholesky factor of the covariance, with a positive diagonal).

    ``batch_shape`` is the broadcast of ``loc.shape[:-1]`` and the matrix's
    ``shape[:-2]``; ``event_shape`` is ``(k,)``. ``rsample`` is ``loc + L @ eps``.

    >>> import eager
    >>> from eager.distribution import MultivariateNormal
    >>> d = MultivariateNormal(eager.to_tensor([0.0, 1.0]),
    ...                        covariance_matrix=eager.to_tensor([[1.0, 0.5], [0.5, 2.0]]))
    >>> d.batch_shape, d.event_shape, d.sample([3]).shape
    ((), (2,), [3, 2])
    """

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        given = [(n, m) for n, m in zip(_MATRICES, (covariance_matrix, precision_matrix, scale_tril))
                 if m is not None]
        if len(given) != 1:
            raise ValueError("MultivariateNormal: expected exactly one of covariance_matrix, precision_matrix "
                             f"or scale_tril, got {len(given)}")
        name, matrix = given[0]
        loc_t, matrix_t = _as_pair(loc, name, matrix)
        if len(loc_t.shape) < 1:
            raise ValueError("MultivariateNormal: argument 'loc' expected at least 1 dimension, got a 0-d value")
        k = loc_t.shape[-1]
        if len(matrix_t.shape) < 2 or matrix_t.shape[-1] != k or matrix_t.shape[-2] != k:
            raise ValueError(f"MultivariateNormal: argument '{name}' expected matrices [..., {k}, {k}] "
                             f"matching loc's last axis, got shape {list(matrix_t.shape)}")
        try:
            batch = list(np.broadcast_shapes(tuple(loc_t.shape[:-1]), tuple(matrix_t.shape[:-2])))
        except ValueError:
            raise ValueError(f"MultivariateNormal: the batch shapes of loc {list(loc_t.shape[:-1])} and "
                             f"{name} {list(matrix_t.shape[:-2])} cannot be broadcast together") from None
        try:
            if name == "covariance_matrix":
                tril = _F.cholesky(matrix_t)
            elif name == "precision_matrix":
                tril = _F.cholesky(_F.inverse(matrix_t))
            else:
                with no_grad():
                    diag = _F.diagonal(matrix_t, 0, -2, -1).numpy()
                if not np.all(diag > 0):
                    raise ValueError("MultivariateNormal: argument 'scale_tril' expected a positive diagonal, "
                                     f"got {float(diag[~(diag > 0)].ravel()[0])}")
                tril = _F.tril(matrix_t)
        except ValueError as error:
            if str(error).startswith("MultivariateNormal"):
                raise
            raise ValueError(f"MultivariateNormal: argument '{name}' expected symmetric positive-definite "
                             f"matrices: {str(error).splitlines()[0]}") from None
        self.loc = _F.broadcast_to(loc_t, batch + [k])
        self.scale_tril = _F.broadcast_to(tril, batch + [k, k])
        if name != "scale_tril":  # the given matrix stays readable, as Paddle's attribute
            setattr(self, name, matrix_t)
        self.dtype = self.loc.dtype
        super().__init__(batch, [k])

    @property
    def mean(self):
        """``loc``."""
        return self.loc

    @property
    def variance(self):
        """The covariance's diagonal, ``sum(L^2, -1)``."""
        return _F.sum(self.scale_tril * self.scale_tril, axis=-1)

    def rsample(self, shape=()):
        """``loc + L @ eps`` with standard normal ``eps``: gradients reach loc and the matrix."""
        out_shape = list(self._extend_shape(shape))
        eps = _F.gaussian(out_shape, 0.0, 1.0, 0, self.dtype, self.loc.place)
        return self.loc + _F.squeeze(_F.matmul(self.scale_tril, _F.unsqueeze(eps, -1)), -1)

    def log_prob(self, value):
        """``-(k log(2 pi) + |L^-1 (value - loc)|^2) / 2 - log det L``."""
        value = as_value("MultivariateNormal.log_prob", value, self.loc)
        check_event("MultivariateNormal.log_prob", value, self.event_shape)
        diff = value - self.loc
        tril = _F.broadcast_to(self.scale_tril, list(diff.shape) + [diff.shape[-1]])
        z = _solve_tril(tril, diff)
        k = self.event_shape[0]
        return -0.5 * (_F.sum(z * z, axis=-1) + k * math.log(2 * math.pi)) - _half_log_det(self.scale_tril)

    def entropy(self):
        """``k (1 + log(2 pi)) / 2 + log det L``."""
        k = self.event_shape[0]
        return _half_log_det(self.scale_tril) + 0.5 * k * (1.0 + math.log(2 * math.pi))


def _as_pair(loc, name, matrix):
    """loc and the matrix as tensors of one dtype (their shapes differ, so they convert apart)."""
    (loc_t,) = as_params("MultivariateNormal", loc=loc)
    (matrix_t,) = as_params("MultivariateNormal", **{name: matrix})
    if loc_t.dtype == matrix_t.dtype:
        return loc_t, matrix_t
    loc_given, matrix_given = isinstance(loc, Tensor), isinstance(matrix, Tensor)
    if loc_given and matrix_given:
        raise TypeError(f"MultivariateNormal: loc and {name} expected one dtype, "
                        f"got {loc_t.dtype} and {matrix_t.dtype}")
    if not loc_given and not matrix_given:  # a float NumPy array sets the dtype, loc's first (as Paddle)
        matrix_given = not (isinstance(loc, np.ndarray) and loc.dtype.name in ("float32", "float64"))
    if matrix_given:
        return _F.cast(loc_t, matrix_t.dtype), matrix_t
    return loc_t, _F.cast(matrix_t, loc_t.dtype)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(f"kl_divergence: MultivariateNormal event shapes differ: {list(p.event_shape)} "
                         f"and {list(q.event_shape)}")
    if p.dtype != q.dtype:
        raise TypeError(f"kl_divergence: MultivariateNormal p and q expected one dtype, got {p.dtype} and {q.dtype}")
    k = p.event_shape[0]
    batch = list(np.broadcast_shapes(p.batch_shape, q.batch_shape))
    lp = _F.broadcast_to(p.scale_tril, batch + [k, k])
    lq = _F.broadcast_to(q.scale_tril, batch + [k, k])
    m = _F.solve(lq, lp)                                                # Lq^-1 Lp
    trace = _F.sum(_F.sum(m * m, axis=-1), axis=-1)
    z = _solve_tril(lq, _F.broadcast_to(q.loc - p.loc, batch + [k]))
    return (_half_log_det(q.scale_tril) - _half_log_det(p.scale_tril)
            + 0.5 * (trace + _F.sum(z * z, axis=-1) - k))


__all__ = ["MultivariateNormal"]
