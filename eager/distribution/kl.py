"""``register_kl`` and ``kl_divergence``: KL divergence dispatched on the types of
both distributions, as Paddle's ``paddle.distribution.kl_divergence``.

A function registered for ``(P, Q)`` answers every pair whose types are
subclasses of ``P`` and ``Q``; among the registered pairs that match, the most
specific one wins (the fewest steps up both classes' MROs, then up ``p``'s).
This module imports no distribution, so the base class can call it.
"""
from __future__ import annotations

_REGISTRY: dict = {}


class KLNotRegisteredError(NotImplementedError, TypeError):
    """No KL divergence is registered for the pair of types.

    A NotImplementedError, as Paddle's ``kl_divergence`` raises, and a
    TypeError, as the ``kl_divergence`` methods of Paddle's Geometric (and
    Paddle 3's Exponential, Gamma, ...) raise for an ``other`` of the wrong type.
    """


def register_kl(cls_p, cls_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for ``cls_p`` x ``cls_q``.

    >>> from eager.distribution import Distribution, register_kl
    >>> class Point(Distribution):
    ...     pass
    >>> @register_kl(Point, Point)
    ... def _kl_point_point(p, q):
    ...     return 0.0
    """
    for arg, cls in (("cls_p", cls_p), ("cls_q", cls_q)):
        if not isinstance(cls, type):
            raise TypeError(f"register_kl: argument '{arg}' expected a Distribution class, "
                            f"got {type(cls).__name__}")

    def decorator(fn):
        if not callable(fn):
            raise TypeError(f"register_kl: expected a function, got {type(fn).__name__}")
        _REGISTRY[cls_p, cls_q] = fn
        return fn

    return decorator


def _dispatch(type_p, type_q):
    best, best_key = None, None
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    for (cls_p, cls_q), fn in _REGISTRY.items():
        if cls_p in mro_p and cls_q in mro_q:
            dp, dq = mro_p.index(cls_p), mro_q.index(cls_q)
            key = (dp + dq, dp)
            if best_key is None or key < best_key:
                best, best_key = fn, key
    return best


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], by the function registered for
    the types of ``p`` and ``q`` (see ``register_kl``); its shape is the batch
    shape.

    >>> from eager.distribution import Normal, kl_divergence
    >>> float(kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0)))
    0.5
    """
    fn = _dispatch(type(p), type(q))
    if fn is None:
        raise KLNotRegisteredError(f"kl_divergence: no KL divergence is registered for "
                                  f"p of type {type(p).__name__} and q of type {type(q).__name__}")
    return fn(p, q)


__all__ = ["kl_divergence", "register_kl"]
