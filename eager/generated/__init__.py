"""Modules generated from ops.yaml and backward.yaml by `python -m eager.api_gen`.

Loading them also loads the hand-written modules that complete them, so no op
can run half-assembled: eager.composite (registers the composite rules the grad
nodes call by name), eager.tensor_api (attaches the op methods and operators to
Tensor), and eager.inplace_shape and eager.tensor_queries (each attaches its own
Tensor methods). They import the generated modules, never the other way round. Loading them also installs the garbage-collector policy for the
graphs they record.
"""
from .. import composite, tensor_api, inplace_shape, tensor_queries  # noqa: F401
from ..autograd.gc_policy import install as _install_gc_policy

# Full garbage collections stay off the large live graphs these ops record
# (eager/autograd/gc_policy.py; opt out there).
_install_gc_policy()
