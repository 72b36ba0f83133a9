"""The phi API: every op of ops.yaml and backward.yaml over DenseTensors, no autograd.

>>> import numpy as np, phi
>>> from phi.api import add
>>> add(phi.DenseTensor(np.ones(3)), phi.DenseTensor(np.ones(3))).array
array([2., 2., 2.])
"""
from .accumulation import (  # noqa: F401
    accumulate_, merge_selected_rows, owned_copy, selected_rows_to_dense, zero_,
)
from .buffers import assign_out_, copy_to, nan_inf_count  # noqa: F401
from .generated_api import *  # noqa: F401,F403
from .optimizer import adam_, adamw_, momentum_, sgd_  # noqa: F401
from .sparse import sparse_copy_to, sparse_to_dense  # noqa: F401
from .support import FLAGS
