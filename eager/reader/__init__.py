"""Paddle's ``paddle.reader``: the legacy reader decorators (see :mod:`eager.reader.decorator`).

New code reads data with :mod:`eager.io` (Dataset, DataLoader); these remain
for scripts written against Paddle's 1.x-style readers.
"""
from .decorator import (ComposeNotAligned, buffered, cache, chain, compose, firstn, map_readers,
                        multiprocess_reader, shuffle, xmap_readers)

__all__ = ["ComposeNotAligned", "buffered", "cache", "chain", "compose", "firstn", "map_readers",
           "multiprocess_reader", "shuffle", "xmap_readers"]
