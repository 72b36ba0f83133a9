"""Paddle's ``paddle.incubate.nn.functional``: the fused ops of transformer
training, each composed of existing differentiable ops (the values of Paddle's
fused kernels, gradients from the ops' own rules; no kernel of its own).

>>> F = eager.incubate.nn.functional
>>> F.fused_linear(eager.ones([2, 3]), eager.ones([3, 4]), eager.ones([4])).numpy()[0]
array([4., 4., 4., 4.], dtype=float32)
"""
# Through Paddle's file-named modules, so that importing one of them (``from
# paddle.incubate.nn.functional.fused_layer_norm import fused_layer_norm``) finds it
# loaded here and leaves the package's function names bound to the functions.
from .activation import swiglu
from .fused_dropout_add import fused_dropout_add
from .fused_ec_moe import fused_ec_moe
from .fused_layer_norm import fused_layer_norm
from .fused_matmul_bias import fused_linear, fused_linear_activation, fused_matmul_bias
from .fused_rms_norm import fused_rms_norm
from .fused_rotary_position_embedding import fused_rotary_position_embedding
from .fused_transformer import (fused_bias_dropout_residual_layer_norm, fused_feedforward, fused_multi_head_attention,
                                fused_multi_transformer)

__all__ = ["fused_bias_dropout_residual_layer_norm", "fused_dropout_add", "fused_ec_moe", "fused_feedforward",
           "fused_layer_norm",
           "fused_linear", "fused_linear_activation", "fused_matmul_bias", "fused_multi_head_attention",
           "fused_multi_transformer",
           "fused_rms_norm", "fused_rotary_position_embedding", "swiglu"]
