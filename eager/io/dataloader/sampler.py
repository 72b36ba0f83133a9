"""Paddle's ``paddle.io.dataloader.sampler`` path: the samplers of :mod:`eager.io`
(the same objects)."""
from ..sampler import RandomSampler, Sampler, SequenceSampler, SubsetRandomSampler, WeightedRandomSampler

__all__ = ["RandomSampler", "Sampler", "SequenceSampler", "SubsetRandomSampler", "WeightedRandomSampler"]
