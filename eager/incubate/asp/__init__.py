"""Paddle's ``paddle.incubate.asp``: n:m structured sparsity (2:4 by default).
The mask helpers work on NumPy arrays (eager.incubate.asp.masks); the training
workflow (``decorate``, ``prune_model``, excluded layers) on eager layers and
optimizers in the dynamic graph (eager.incubate.asp.asp). The masks only zero
weights: no sparse kernel runs (docs/incubate.md).

>>> import numpy as np
>>> eager.incubate.asp.calculate_density(np.array([[0, 1], [2, 0]]))
0.5
"""
from . import utils
from .asp import (OptimizerWithSparsityGuarantee, add_supported_layer, decorate, prune_model,
                  reset_excluded_layers, set_excluded_layers)
from .masks import (CheckMethod, MaskAlgo, calculate_density, check_mask_1d, check_mask_2d, check_sparsity,
                    create_mask, get_mask_1d, get_mask_2d_best, get_mask_2d_greedy)

__all__ = ["CheckMethod", "MaskAlgo", "OptimizerWithSparsityGuarantee", "add_supported_layer", "calculate_density",
           "check_mask_1d", "check_mask_2d", "check_sparsity", "create_mask", "decorate", "get_mask_1d",
           "get_mask_2d_best", "get_mask_2d_greedy", "prune_model", "reset_excluded_layers", "set_excluded_layers"]
