"""InferMeta functions: pure shape/dtype/layout inference shared between ops.

Each takes its inputs (anything with dims and dtype) and attributes in the YAML
``param`` order, then one MetaTensor per output, which it fills. Bad input is
caught here, before any kernel runs.
"""
from .backward import (
    elementwise_grad_infer_meta, expand_grad_infer_meta, getitem_grad_infer_meta, matmul_grad_infer_meta,
    reduce_grad_infer_meta, reshape_grad_infer_meta, same_shape_grad_infer_meta, transpose_grad_infer_meta,
    where_grad_infer_meta,
)
from .binary import (
    compare_infer_meta, cross_entropy_with_softmax_infer_meta, elementwise_infer_meta, matmul_infer_meta,
    sigmoid_cross_entropy_with_logits_infer_meta, where_infer_meta,
)
from .multiary import (
    concat_infer_meta, split_infer_meta, stack_infer_meta, unbind_infer_meta,
)
from .nullary import create_infer_meta, full_infer_meta
from .optimizer import (
    adam_infer_meta, adamw_infer_meta, grad_dtype_fits, momentum_infer_meta, optimizer_state_dtype, sgd_infer_meta,
)
from .shape import (
    flatten_infer_meta, getitem_infer_meta, setitem_grad_infer_meta, setitem_infer_meta,
    squeeze_infer_meta, unsqueeze_infer_meta,
)
from .unary import (
    cast_infer_meta, create_like_infer_meta, expand_infer_meta, full_like_infer_meta, one_hot_infer_meta,
    mean_infer_meta, reduce_infer_meta, softmax_infer_meta, reshape_infer_meta,
    sum_infer_meta, transpose_infer_meta, unchanged_infer_meta,
)

# The op groups of issues #9 and #10, one module each, list their functions in __all__.
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
from . import vision
from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .embedding import *  # noqa: F401,F403
from .fft import *  # noqa: F401,F403
from .fused import *  # noqa: F401,F403
from .gather_scatter import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .math_binary import *  # noqa: F401,F403
from .math_unary import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rearrange import *  # noqa: F401,F403
from .reduce_scan import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .search_sort import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403

GROUPS = (
    activation,
    attention,
    conv,
    creation,
    embedding,
    fft,
    fused,
    gather_scatter,
    linalg,
    loss,
    math_binary,
    math_unary,
    norm,
    pooling,
    rearrange,
    reduce_scan,
    rnn,
    search_sort,
    vision,
)

__all__ = [
    "expand_grad_infer_meta", "getitem_grad_infer_meta", "reduce_grad_infer_meta", "reshape_grad_infer_meta",
    "same_shape_grad_infer_meta", "elementwise_grad_infer_meta", "matmul_grad_infer_meta", "where_grad_infer_meta", "transpose_grad_infer_meta", "compare_infer_meta",
    "elementwise_infer_meta", "matmul_infer_meta", "create_infer_meta", "expand_infer_meta", "where_infer_meta", "softmax_infer_meta",
    "one_hot_infer_meta", "cross_entropy_with_softmax_infer_meta", "sigmoid_cross_entropy_with_logits_infer_meta", "full_infer_meta", "full_like_infer_meta", "cast_infer_meta",
    "create_like_infer_meta", "mean_infer_meta", "reduce_infer_meta", "reshape_infer_meta", "sum_infer_meta",
    "transpose_infer_meta", "unchanged_infer_meta", "flatten_infer_meta", "getitem_infer_meta",
    "setitem_grad_infer_meta", "setitem_infer_meta", "squeeze_infer_meta", "unsqueeze_infer_meta",
    "concat_infer_meta", "split_infer_meta", "stack_infer_meta",
    "unbind_infer_meta", "sgd_infer_meta", "momentum_infer_meta", "adam_infer_meta",
    "adamw_infer_meta", "grad_dtype_fits", "optimizer_state_dtype",
]

for _group in GROUPS:
    __all__ += _group.__all__
del _group
