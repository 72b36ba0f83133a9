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
    adam_infer_meta, adamw_infer_meta, momentum_infer_meta, optimizer_state_dtype, sgd_infer_meta,
)
from .shape import (
    flatten_infer_meta, getitem_infer_meta, setitem_grad_infer_meta, setitem_infer_meta,
    squeeze_infer_meta, unsqueeze_infer_meta,
)
from .unary import (
    cast_infer_meta, create_like_infer_meta, expand_infer_meta, full_like_infer_meta, one_hot_infer_meta,
    reduce_infer_meta, softmax_infer_meta, reshape_infer_meta,
    sum_infer_meta, transpose_infer_meta, unchanged_infer_meta,
)

# The op groups of issue #9, one module each, list their functions in __all__.
from . import conv, creation, gather_scatter, linalg, math_binary, math_unary, rearrange, reduce_scan, search_sort
from .conv import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .gather_scatter import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .math_binary import *  # noqa: F401,F403
from .math_unary import *  # noqa: F401,F403
from .rearrange import *  # noqa: F401,F403
from .reduce_scan import *  # noqa: F401,F403
from .search_sort import *  # noqa: F401,F403

__all__ = [
    "expand_grad_infer_meta", "getitem_grad_infer_meta", "reduce_grad_infer_meta", "reshape_grad_infer_meta",
    "same_shape_grad_infer_meta", "elementwise_grad_infer_meta", "matmul_grad_infer_meta", "where_grad_infer_meta", "transpose_grad_infer_meta", "compare_infer_meta",
    "elementwise_infer_meta", "matmul_infer_meta", "create_infer_meta", "expand_infer_meta", "where_infer_meta", "softmax_infer_meta",
    "one_hot_infer_meta", "cross_entropy_with_softmax_infer_meta", "sigmoid_cross_entropy_with_logits_infer_meta", "full_infer_meta", "full_like_infer_meta", "cast_infer_meta",
    "create_like_infer_meta", "reduce_infer_meta", "reshape_infer_meta", "sum_infer_meta",
    "transpose_infer_meta", "unchanged_infer_meta", "flatten_infer_meta", "getitem_infer_meta",
    "setitem_grad_infer_meta", "setitem_infer_meta", "squeeze_infer_meta", "unsqueeze_infer_meta",
    "concat_infer_meta", "split_infer_meta", "stack_infer_meta",
    "unbind_infer_meta", "sgd_infer_meta", "momentum_infer_meta", "adam_infer_meta",
    "adamw_infer_meta", "optimizer_state_dtype",
]

for _group in (conv, creation, gather_scatter, linalg, math_binary, math_unary, rearrange, reduce_scan, search_sort):
    __all__ += _group.__all__
del _group
