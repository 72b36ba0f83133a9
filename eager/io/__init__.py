"""Data loading (Paddle's ``paddle.io``): datasets, samplers and DataLoader."""
from .dataset import (ChainDataset, ComposeDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset,
                      random_split)
from .collate import default_collate_fn, default_convert_fn
from .dataloader import DataLoader
from .sampler import (BatchSampler, DistributedBatchSampler, RandomSampler, Sampler, SequenceSampler,
                      SubsetRandomSampler, WeightedRandomSampler)
from .worker import WorkerInfo, get_worker_info

__all__ = ["BatchSampler", "ChainDataset", "ComposeDataset", "ConcatDataset", "DataLoader", "Dataset", "DistributedBatchSampler",
           "IterableDataset", "RandomSampler", "Sampler", "SequenceSampler", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "default_collate_fn", "default_convert_fn",
           "get_worker_info", "random_split"]
