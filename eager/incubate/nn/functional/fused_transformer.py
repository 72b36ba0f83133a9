"""Paddle's ``paddle.incubate.nn.functional.fused_transformer`` path: the fused
transformer functionals (the same functions)."""
from .multi_transformer import fused_multi_transformer
from .transformer import fused_bias_dropout_residual_layer_norm, fused_feedforward, fused_multi_head_attention

__all__ = ["fused_bias_dropout_residual_layer_norm", "fused_feedforward", "fused_multi_head_attention",
           "fused_multi_transformer"]
