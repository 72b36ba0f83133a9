"""Paddle's ``paddle.io.dataloader.worker`` path: WorkerInfo, get_worker_info of :mod:`eager.io`
(the same objects)."""
from ..worker import WorkerInfo, get_worker_info

__all__ = ["WorkerInfo", "get_worker_info"]
