"""Which ops auto_cast runs in float16 or bfloat16 (the white list) and which in float32
(the black list), keyed by eager's op names (those of ops.yaml), as Paddle's
``paddle.amp.amp_lists``. Ops in neither list follow their inputs (``use_promote``:
float32 when any floating input is float32, else the amp dtype).

``white_list()`` and ``black_list()`` give the tables per dtype and level, as
Paddle 2.6's functions of the same names do:

>>> "matmul" in eager.amp.white_list()["float16"]["O1"]
True
>>> "softmax" in eager.amp.black_list()["float16"]["O1"]
True
"""
from __future__ import annotations

# Numerically safe and worth running in float16: always cast to it.
FP16_WHITE_LIST = frozenset({
    "conv2d",
    "einsum",
    "matmul",
    "max_pool2d_with_index",
    "linear",  # Paddle's fused_gemm_epilogue; auto_cast runs nn.Linear as matmul + add, as Paddle's dygraph
})

# Numerically dangerous in float16 (overflow, large sums, exp/log): run in float32 at O1.
FP16_BLACK_LIST = frozenset({
    "tan", "acos", "asin", "sinh", "cosh", "atanh", "tanhshrink", "erfinv",
    "exp", "expm1", "log", "log10", "log2", "reciprocal", "rsqrt", "pow", "square",
    "sum", "mean", "prod", "cumprod", "cumsum", "norm",
    "group_norm", "layer_norm",
    "softmax", "softplus", "log_softmax",
    "cross_entropy_with_softmax", "fused_softmax_cross_entropy",
    "sigmoid_cross_entropy_with_logits", "nll_loss",
})

# Float32 at every level but OD (their float16 backward is slow or lossy).
EXTRA_BLACK_LIST = frozenset({
    "linear_interp", "nearest_interp", "bilinear_interp", "bicubic_interp", "trilinear_interp",
    "embedding", "scatter",
})

# Paddle 2.6's bfloat16 lists are its float16 ones (Paddle 2.5 had a shorter white list and
# an empty black list): exp, log, sums, softmax and the losses run in float32 at O1 as well.
BF16_WHITE_LIST = FP16_WHITE_LIST
BF16_BLACK_LIST = FP16_BLACK_LIST

# Paddle's (fluid) op names that scripts put in custom lists -> eager's op names.
PADDLE_OP_NAMES = {
    "elementwise_add": "add", "elementwise_sub": "subtract", "elementwise_mul": "multiply",
    "elementwise_div": "divide", "elementwise_max": "maximum", "elementwise_min": "minimum",
    "elementwise_mod": "remainder", "elementwise_floordiv": "floor_divide",
    "matmul_v2": "matmul", "fused_gemm_epilogue": "linear",
    "reduce_sum": "sum", "reduce_mean": "mean", "reduce_prod": "prod",
    "reduce_max": "max", "reduce_min": "min", "reduce_all": "all", "reduce_any": "any",
    "lookup_table": "embedding", "lookup_table_v2": "embedding",
    "softmax_with_cross_entropy": "cross_entropy_with_softmax",
    "cross_entropy": "fused_softmax_cross_entropy", "cross_entropy2": "fused_softmax_cross_entropy",
    "tanh_shrink": "tanhshrink", "pnorm": "norm", "frobenius_norm": "norm",
    "linear_interp_v2": "linear_interp", "nearest_interp_v2": "nearest_interp",
    "bilinear_interp_v2": "bilinear_interp", "bicubic_interp_v2": "bicubic_interp",
    "trilinear_interp_v2": "trilinear_interp",
    "sync_batch_norm": "batch_norm",
}

LEVELS = ("O0", "OD", "O1", "O2")


def _white_tables() -> dict:
    return {
        "float16": {"OD": FP16_WHITE_LIST, "O1": FP16_WHITE_LIST, "O2": FP16_WHITE_LIST},
        "bfloat16": {"OD": BF16_WHITE_LIST, "O1": BF16_WHITE_LIST, "O2": BF16_WHITE_LIST},
    }


def _black_tables() -> dict:
    return {
        "float16": {"OD": frozenset(), "O1": FP16_BLACK_LIST | EXTRA_BLACK_LIST, "O2": EXTRA_BLACK_LIST},
        "bfloat16": {"OD": frozenset(), "O1": BF16_BLACK_LIST | EXTRA_BLACK_LIST, "O2": EXTRA_BLACK_LIST},
    }


def _with_paddle_names(tables: dict) -> dict:
    """Copies of the tables that also hold Paddle's names of their ops
    (``linear_interp_v2`` beside ``linear_interp``), so a script that asks
    ``"matmul_v2" in white_list()["float16"]["O1"]`` gets Paddle's answer."""
    return {dtype: {level: set(ops) | {paddle for paddle, ours in PADDLE_OP_NAMES.items() if ours in ops}
                    for level, ops in levels.items()}
            for dtype, levels in tables.items()}


def white_list() -> dict:
    """``{dtype: {level: set of op names}}``: the ops run in the amp dtype (copies,
    by eager's op names and Paddle's)."""
    return _with_paddle_names(_white_tables())


def black_list() -> dict:
    """``{dtype: {level: set of op names}}``: the ops kept in float32 (copies, by
    eager's op names and Paddle's). At OD nothing is listed: every op outside the
    white list runs in float32."""
    return _with_paddle_names(_black_tables())


def lists_for(level: str, dtype: str, custom_white, custom_black) -> tuple:
    """(white, black) frozensets for a level and dtype with the (already checked,
    eager-named) custom lists applied: a custom white op leaves the black list
    and a custom black op the white list."""
    if level == "O0":
        return frozenset(), frozenset()
    white = set(_white_tables()[dtype][level])
    black = set(_black_tables()[dtype][level])
    white = (white - set(custom_black)) | set(custom_white)
    black = (black - set(custom_white)) | set(custom_black)
    return frozenset(white), frozenset(black)
