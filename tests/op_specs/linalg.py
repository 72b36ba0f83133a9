"""The op table of the linalg ops."""
from __future__ import annotations

import numpy as np  # noqa: F401

import eager  # noqa: F401
from eager.generated import forward_api as F  # noqa: F401

from .core import FLOATS, INTS, Case, OpSpec  # noqa: F401

SPECS: list = []
