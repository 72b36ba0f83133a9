"""Modules generated from ops.yaml and backward.yaml by `python -m eager.api_gen`.

Tensor's class body takes the generated functions as methods, and the
functions make Tensors, so the two load together: whichever is imported
first, eager.tensor drives the order.
"""
from .. import tensor as _tensor  # noqa: F401
