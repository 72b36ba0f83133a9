"""Metrics (Paddle's ``paddle.metric``): the Metric base, Accuracy, Precision,
Recall, Auc, and the functional ``accuracy``.

>>> import numpy as np, eager
>>> m = eager.metric.Accuracy()
>>> pred = eager.to_tensor([[0.1, 0.9], [0.8, 0.2]])
>>> m.update(m.compute(pred, eager.to_tensor([[1], [1]])))
0.5
"""
from .metrics import Accuracy, Auc, Metric, Precision, Recall, accuracy

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]
