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
from . import constraint, variable
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .exponential_family import ExponentialFamily
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .lognormal import LogNormal
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
from .transform import (AbsTransform, AffineTransform, ChainTransform, ExpTransform, IndependentTransform,
                        PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform, StackTransform,
                        StickBreakingTransform, TanhTransform, Transform)
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "ContinuousBernoulli", "Dirichlet", "Distribution",
           "Exponential", "ExponentialFamily", "Gamma", "Geometric", "Gumbel", "Independent", "LKJCholesky", "Laplace", "LogNormal",
           "Multinomial", "MultivariateNormal", "Normal", "Poisson", "TransformedDistribution", "Uniform", "kl_divergence",
           "register_kl",
           "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform", "IndependentTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "TanhTransform", "Transform"]
