"""AudioClassificationDataset: (feature, label) pairs read from WAV files, the
base of eager.audio.datasets' ESC50 and TESS (Paddle's ``paddle.audio.datasets``)."""
from __future__ import annotations

import os

from ...io import Dataset
from ...vision.datasets import _files
from ..backends import load
from ..features import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram

# feat_type -> the feature layer applied to each waveform (None: the waveform itself).
FEATURES = {"raw": None, "melspectrogram": MelSpectrogram, "mfcc": MFCC, "logmelspectrogram": LogMelSpectrogram,
            "spectrogram": Spectrogram}
MODES = ("train", "dev", "test")


def check_mode_and_feat(name: str, mode, feat_type) -> None:
    if mode not in MODES:
        raise ValueError(f"{name}: argument 'mode' expected 'train' or 'dev' ('test' is the same as 'dev'), got "
                         f"{mode!r}")
    if feat_type not in FEATURES:
        raise ValueError(f"{name}: argument 'feat_type' expected one of {list(FEATURES)}, got {feat_type!r}")


def missing(name: str, archive: dict, needed: list) -> RuntimeError:
    """The error for a dataset whose files are not in Paddle's cache folder."""
    url = archive.get("url", "?") if isinstance(archive, dict) else "?"
    paths = " and ".join(repr(os.path.join(_files.DATA_HOME, p)) for p in needed)
    verb = "exist" if len(needed) > 1 else "exists"
    return RuntimeError(f"{name}: cannot download {url}: eager does not download datasets. Fetch the archive "
                        f"yourself and unpack it into {_files.DATA_HOME!r} so that {paths} {verb}")


class AudioClassificationDataset(Dataset):
    """Labelled WAV files as ``(feature, label)``: the feature is the mono
    waveform (a 1-D float32 Tensor in [-1, 1)) for ``feat_type='raw'``, else the
    layer ``feat_type`` names applied to it (``'mfcc'``, ``'melspectrogram'``,
    ``'logmelspectrogram'``, ``'spectrogram'``; ``**kwargs`` configure it, the
    file's sample rate is its ``sr``), without the batch axis. The label is an int.
    """

    def __init__(self, files, labels, feat_type="raw", sample_rate=None, **kwargs):
        super().__init__()
        name = type(self).__name__
        if feat_type not in FEATURES:
            raise ValueError(f"{name}: argument 'feat_type' expected one of {list(FEATURES)}, got {feat_type!r}")
        if len(files) != len(labels):
            raise ValueError(f"{name}: arguments 'files' and 'labels' expected the same length, got {len(files)} "
                             f"and {len(labels)}")
        self.files = list(files)
        self.labels = list(labels)
        self.feat_type = feat_type
        self.sample_rate = sample_rate
        self.feat_config = kwargs
        self._extractors = {}

    def _extractor(self, sample_rate):
        layer = FEATURES[self.feat_type]
        if sample_rate not in self._extractors:
            config = dict(self.feat_config)
            if layer is not Spectrogram:
                config.setdefault("sr", sample_rate)
            self._extractors[sample_rate] = layer(**config)
        return self._extractors[sample_rate]

    def __getitem__(self, idx):
        waveform, sample_rate = load(self.files[idx])
        self.sample_rate = sample_rate
        if waveform.shape[0] == 1:
            waveform = waveform.squeeze(0)
        if FEATURES[self.feat_type] is not None:
            waveform = self._extractor(sample_rate)(waveform.unsqueeze(0)).squeeze(0)
        return waveform, self.labels[idx]

    def __len__(self):
        return len(self.files)
