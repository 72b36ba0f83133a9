"""Paddle's ``paddle.base.reader``: the legacy generator loader
(``DataLoader.from_generator``, ``PyReader``) of :mod:`eager.io.generator_loader`,
and the switches ``use_pinned_memory`` and ``keep_data_loader_order``."""
from ..io.generator_loader import (QUEUE_GET_TIMEOUT, DataLoader, DygraphGeneratorLoader, PyReader,
                                   _reader_process_loop, keep_data_loader_order, use_pinned_memory)

__all__ = ["DataLoader", "DygraphGeneratorLoader", "PyReader", "QUEUE_GET_TIMEOUT", "_reader_process_loop",
           "keep_data_loader_order", "use_pinned_memory"]
