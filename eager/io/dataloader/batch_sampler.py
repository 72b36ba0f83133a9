"""Paddle's ``paddle.io.dataloader.batch_sampler`` path: BatchSampler, DistributedBatchSampler of :mod:`eager.io`
(the same objects)."""
from ..sampler import BatchSampler, DistributedBatchSampler

__all__ = ["BatchSampler", "DistributedBatchSampler"]
