"""TESS: the Toronto emotional speech set (200 words spoken by two actresses in
seven emotions), read from Paddle's cache folder."""
from __future__ import annotations

import os

from ...vision.datasets import _files
from .dataset import AudioClassificationDataset, check_mode_and_feat, missing


class TESS(AudioClassificationDataset):
    """TESS from ``~/.cache/paddle/dataset/TESS_Toronto_emotional_speech_set/``
    (WAV files named ``<speaker>_<word>_<emotion>.wav`` in any subfolders);
    nothing is downloaded: a missing folder is an error saying where to put it.
    The files, in sorted path order, are dealt into ``n_folds`` folds in turn;
    ``mode='train'`` takes every fold but ``split``, ``'dev'`` fold ``split``.
    Labels index ``label_list`` by the file's emotion. Items are ``(feature,
    label)`` (see AudioClassificationDataset).
    """

    archive = {"url": "https://bj.bcebos.com/paddleaudio/datasets/TESS_Toronto_emotional_speech_set.zip"}
    label_list = ["angry", "disgust", "fear", "happy", "neutral", "ps", "sad"]
    audio_path = "TESS_Toronto_emotional_speech_set"

    def __init__(self, mode="train", n_folds=5, split=1, feat_type="raw", archive=None, **kwargs):
        check_mode_and_feat("TESS", mode, feat_type)
        if isinstance(n_folds, bool) or not isinstance(n_folds, int) or n_folds < 1:
            raise ValueError(f"TESS: argument 'n_folds' expected an int >= 1, got {n_folds!r}")
        if isinstance(split, bool) or not isinstance(split, int) or not 1 <= split <= n_folds:
            raise ValueError(f"TESS: argument 'split' expected an int in [1, {n_folds}], got {split!r}")
        if archive is not None:
            self.archive = archive
        files, labels = self._get_data(mode, n_folds, split)
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)

    def _get_data(self, mode, n_folds, split):
        root = os.path.join(_files.DATA_HOME, self.audio_path)
        if not os.path.isdir(root):
            raise missing("TESS", self.archive, [self.audio_path])
        wavs = sorted(os.path.join(folder, name) for folder, _, names in os.walk(root)
                      for name in names if name.lower().endswith(".wav"))
        files, labels = [], []
        for index, path in enumerate(wavs):
            emotion = os.path.splitext(os.path.basename(path))[0].rsplit("_", 1)[-1].lower()
            if emotion not in self.label_list:
                raise ValueError(f"TESS: file {path!r} expected a name <speaker>_<word>_<emotion>.wav with an "
                                 f"emotion of {self.label_list}")
            if (index % n_folds + 1 == split) != (mode == "train"):
                files.append(path)
                labels.append(self.label_list.index(emotion))
        return files, labels
