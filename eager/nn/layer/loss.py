"""Paddle's ``paddle.nn.layer.loss`` path: the layers Paddle defines in that file, re-exported
from the eager.nn modules that implement them (the objects of ``eager.nn``, not copies)."""
from ..loss import (BCEWithLogitsLoss, CrossEntropyLoss, HSigmoidLoss, MSELoss, L1Loss, BCELoss, NLLLoss,
    PoissonNLLLoss, KLDivLoss, MarginRankingLoss, CTCLoss, RNNTLoss, SmoothL1Loss, MultiLabelSoftMarginLoss,
    HingeEmbeddingLoss, CosineEmbeddingLoss, TripletMarginWithDistanceLoss, TripletMarginLoss, MultiMarginLoss,
    SoftMarginLoss, GaussianNLLLoss)

__all__ = ['BCEWithLogitsLoss', 'CrossEntropyLoss', 'HSigmoidLoss', 'MSELoss', 'L1Loss', 'BCELoss', 'NLLLoss',
           'PoissonNLLLoss', 'KLDivLoss', 'MarginRankingLoss', 'CTCLoss', 'RNNTLoss', 'SmoothL1Loss',
           'MultiLabelSoftMarginLoss', 'HingeEmbeddingLoss', 'CosineEmbeddingLoss',
           'TripletMarginWithDistanceLoss', 'TripletMarginLoss', 'MultiMarginLoss', 'SoftMarginLoss',
           'GaussianNLLLoss']
