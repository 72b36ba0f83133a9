"""``ExponentialFamily``: Paddle's ``paddle.distribution.ExponentialFamily``.

A distribution of the form ``p(x) = h(x) exp(<eta, T(x)> - A(eta))``. A
subclass gives its natural parameters ``eta`` (``_natural_parameters``), its
log normalizer ``A`` (``_log_normalizer``) and ``E[log h(x)]``
(``_mean_carrier_measure``); then ``entropy`` and the KL divergence between two
members of one family follow from ``A`` and its gradient (the Bregman
divergence), computed with ``eager.grad``.
"""
from __future__ import annotations

from ..autograd import enable_grad, grad, is_grad_enabled
from .distribution import Distribution
from .kl import KLNotRegisteredError, register_kl
from .transform import sum_rightmost


def _differentiable(params):
    """Each parameter as a tensor ``eager.grad`` can differentiate with respect to."""
    out = []
    for p in params:
        if p.stop_gradient:
            p = p.detach()
            p.stop_gradient = False
        out.append(p)
    return out


class ExponentialFamily(Distribution):
    """The base class of exponential-family distributions.

    ``entropy()`` is ``A(eta) - <eta, grad A(eta)> - E[log h(x)]``; the KL
    divergence of two distributions of one exponential-family class without a
    closed form of their own is the Bregman divergence of ``A``.

    >>> import eager
    >>> from eager.distribution import Exponential, ExponentialFamily
    >>> d = Exponential(2.0)
    >>> isinstance(d, ExponentialFamily)
    True
    >>> round(float(ExponentialFamily.entropy(d)), 4), round(float(d.entropy()), 4)
    (0.3069, 0.3069)
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError(f"{type(self).__name__} has no natural parameters")

    def _log_normalizer(self, *natural_parameters):
        raise NotImplementedError(f"{type(self).__name__} has no log normalizer")

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError(f"{type(self).__name__} has no mean carrier measure")

    def entropy(self):
        """``A(eta) - <eta, grad A(eta)> - E[log h(x)]``, over ``batch_shape``."""
        # read first, as Paddle does: a subclass without it raises NotImplementedError
        # before its natural parameters are touched
        carrier = self._mean_carrier_measure
        detach = not is_grad_enabled()
        with enable_grad():
            eta = _differentiable(self._natural_parameters)
            log_norm = self._log_normalizer(*eta)
            grads = grad(log_norm.sum(), eta, create_graph=True)
            value = log_norm - carrier
            for p, g in zip(eta, grads):
                value = value - sum_rightmost(p * g, len(self.event_shape))
        return value.detach() if detach else value


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_exponential_family(p, q):
    if type(p) is not type(q):
        raise KLNotRegisteredError(f"kl_divergence: no KL divergence is registered for p of type "
                                  f"{type(p).__name__} and q of type {type(q).__name__}")
    detach = not is_grad_enabled()
    with enable_grad():
        p_eta = _differentiable(p._natural_parameters)
        p_log_norm = p._log_normalizer(*p_eta)
        p_grads = grad(p_log_norm.sum(), p_eta, create_graph=True)
        q_eta = q._natural_parameters
        kl = q._log_normalizer(*q_eta) - p_log_norm
        for pe, qe, g in zip(p_eta, q_eta, p_grads):
            kl = kl - sum_rightmost((qe - pe) * g, len(q.event_shape))
    return kl.detach() if detach else kl


__all__ = ["ExponentialFamily"]
