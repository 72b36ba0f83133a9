"""``eager.audio.datasets``: Paddle's audio classification datasets, ESC50 and
TESS, read from Paddle's cache folder (``~/.cache/paddle/dataset/``); eager
never downloads, so a missing dataset is an error naming the archive and where
to unpack it."""
from .dataset import AudioClassificationDataset
from .esc50 import ESC50
from .tess import TESS

__all__ = ["AudioClassificationDataset", "ESC50", "TESS"]
