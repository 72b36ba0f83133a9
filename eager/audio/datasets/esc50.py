"""ESC50: the ESC-50 environmental sound classification dataset (2000 five-second
clips at 44.1 kHz, 50 classes, five folds), read from Paddle's cache folder."""
from __future__ import annotations

import csv
import os

from ...vision.datasets import _files
from .dataset import AudioClassificationDataset, check_mode_and_feat, missing


class ESC50(AudioClassificationDataset):
    """ESC-50 from ``~/.cache/paddle/dataset/ESC-50-master/`` (``meta/esc50.csv``
    and ``audio/*.wav``, as the ESC-50 archive unpacks); nothing is downloaded: a
    missing folder is an error saying where to put it. ``mode='train'`` takes the
    clips of every fold but ``split`` (1 to 5), ``'dev'`` those of fold ``split``.
    Items are ``(feature, label)`` (see AudioClassificationDataset): the raw
    waveform is ``[220500]``; ``feat_type='mfcc', n_mfcc=40`` gives ``[40, frames]``.
    ``archive`` (Paddle's download source) only names the URL in that error.
    """

    archive = {"url": "https://paddleaudio.bj.bcebos.com/datasets/ESC-50-master.zip"}
    meta = os.path.join("ESC-50-master", "meta", "esc50.csv")
    audio_path = os.path.join("ESC-50-master", "audio")

    def __init__(self, mode="train", split=1, feat_type="raw", archive=None, **kwargs):
        check_mode_and_feat("ESC50", mode, feat_type)
        if isinstance(split, bool) or not isinstance(split, int) or not 1 <= split <= 5:
            raise ValueError(f"ESC50: argument 'split' expected an int in [1, 5], got {split!r}")
        if archive is not None:
            self.archive = archive
        files, labels = self._get_data(mode, split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)

    def _get_data(self, mode, split):
        home = _files.DATA_HOME
        meta, audio = os.path.join(home, self.meta), os.path.join(home, self.audio_path)
        if not os.path.isfile(meta) or not os.path.isdir(audio):
            raise missing("ESC50", self.archive, [self.meta, self.audio_path])
        files, labels = [], []
        with open(meta, newline="") as handle:
            for row in csv.DictReader(handle):
                if (int(row["fold"]) == split) != (mode == "train"):
                    files.append(os.path.join(audio, row["filename"]))
                    labels.append(int(row["target"]))
        return files, labels
