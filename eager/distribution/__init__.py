"""``eager.distribution``: Paddle 2.x's ``paddle.distribution``.

Probability distributions with batch and event shapes, sampling from the
framework's generator (``eager.seed`` makes draws reproducible),
reparameterized ``rsample`` where one exists, differentiable ``log_prob``,
``entropy`` and ``kl_divergence``, and ``register_kl`` to add KL pairs.

>>> import eager
>>> from eager.distribution import Normal, kl_divergence
>>> loc = eager.to_tensor([0.5], stop_gradient=False)
>>> kl = kl_divergence(Normal(loc, 1.0), Normal(0.0, 1.0))
>>> kl.backward()
>>> loc.grad.numpy().tolist()
[0.5]
"""
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .kl_registry import kl_divergence, register_kl
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Normal", "Uniform", "kl_divergence", "register_kl"]
