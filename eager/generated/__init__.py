"""Modules generated from ops.yaml and backward.yaml by `python -m eager.api_gen`.

Loading them also loads the two hand-written modules that complete them, so
no op can run half-assembled: eager.composite (registers the composite rules
the grad nodes call by name) and eager.tensor_api (attaches the op methods
and operators to Tensor). Both import the generated modules, never the other
way round.
"""
from .. import composite, tensor_api  # noqa: F401
