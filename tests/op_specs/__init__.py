"""The op table: one OpSpec per op of ops.yaml and backward.yaml (Chainer style).

Each entry says how to call the op, how to draw its inputs (``domains``), which
shapes and attributes to try (``cases``), an independent NumPy reference for
its values, which dtypes its kernel takes, and whether its eager function is
differentiable. ``tests/test_ops.py`` runs one generic checker over the table;
``tests/test_bad_inputs.py`` calls every op with bad values built from it.

One module per op group (the groups of phi/kernels), each with its ``SPECS``;
``core`` holds what they share.
"""
from . import activation
from . import attention
from . import conv
from . import creation
from . import embedding
from . import fft
from . import fused
from . import gather_scatter
from . import linalg
from . import loss
from . import math_binary
from . import math_unary
from . import norm
from . import pooling
from . import rearrange
from . import reduce_scan
from . import rnn
from . import search_sort
from . import spine
from . import vision
from .core import Case, OpSpec, draw  # noqa: F401

GROUPS = (
    spine,
    math_unary,
    math_binary,
    reduce_scan,
    search_sort,
    rearrange,
    gather_scatter,
    creation,
    linalg,
    conv,
    activation,
    loss,
    pooling,
    norm,
    vision,
    embedding,
    rnn,
    attention,
    fused,
    fft,
)
SPECS = [spec for group in GROUPS for spec in group.SPECS]
SPECS_BY_NAME = {spec.name: spec for spec in SPECS}
assert len(SPECS_BY_NAME) == len(SPECS), "two table entries for one op"
