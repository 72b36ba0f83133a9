"""Paddle's ``paddle.incubate.asp.utils`` path: the n:m mask helpers of
:mod:`eager.incubate.asp.masks` (the same objects), for scripts that import
them from there (``from paddle.incubate.asp.utils import create_mask``)."""
from .masks import (CheckMethod, MaskAlgo, calculate_density, check_mask_1d, check_mask_2d, check_sparsity,
                    create_mask, get_mask_1d, get_mask_2d_best, get_mask_2d_greedy)

__all__ = ["CheckMethod", "MaskAlgo", "calculate_density", "check_mask_1d", "check_mask_2d", "check_sparsity",
           "create_mask", "get_mask_1d", "get_mask_2d_best", "get_mask_2d_greedy"]
