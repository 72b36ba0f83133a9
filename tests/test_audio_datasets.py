"""eager.audio.datasets (Paddle's ESC50 / TESS) on small dataset trees written
here in Paddle's cache layout: fold selection and labels from the metadata,
waveforms against the samples written (16-bit quantized), feature shapes from
the framing arithmetic, and the missing-dataset and argument errors."""
from __future__ import annotations

import csv
import os
import wave

import numpy as np
import pytest

import eager
from eager.audio import datasets
from eager.vision.datasets import _files

RATE = 8000


def _write_wav(path, samples):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(path, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes((np.asarray(samples) * 2 ** 15).astype("<i2").tobytes())


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "DATA_HOME", str(tmp_path))
    return tmp_path


def _esc50(home, rng):
    rows, clips = [], {}
    for i in range(10):
        name = f"clip-{i}.wav"
        clips[name] = rng.uniform(-0.5, 0.5, 400 + 10 * i)
        _write_wav(str(home / "ESC-50-master" / "audio" / name), clips[name])
        rows.append({"filename": name, "fold": i % 5 + 1, "target": 3 * i, "category": "c", "esc10": "False",
                     "src_file": "s", "take": "A"})
    os.makedirs(home / "ESC-50-master" / "meta")
    with open(home / "ESC-50-master" / "meta" / "esc50.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return clips


def test_esc50_folds_labels_and_waveforms(home, rng):
    clips = _esc50(home, rng)
    dev = datasets.ESC50(mode="dev", split=2)
    assert len(dev) == 2 and dev.labels == [3, 18]                 # clips 1 and 6 are in fold 2
    train = datasets.ESC50(mode="train", split=2)
    assert len(train) == 8 and 3 not in train.labels and 18 not in train.labels
    audio, label = dev[1]
    assert label == 18 and audio.shape == [460] and audio.dtype == eager.float32
    np.testing.assert_allclose(audio.numpy(), np.trunc(clips["clip-6.wav"] * 2 ** 15) / 2 ** 15, atol=1 / 2 ** 15)
    assert dev.sample_rate == RATE


def test_esc50_features_are_configured_by_kwargs(home, rng):
    _esc50(home, rng)
    mfcc = datasets.ESC50(mode="dev", split=1, feat_type="mfcc", n_mfcc=13, n_fft=128, hop_length=32, n_mels=20)
    feature, label = mfcc[0]
    assert label == 0 and feature.shape == [13, 1 + 400 // 32]     # centered frames: 1 + T // hop
    spec = datasets.ESC50(mode="dev", split=1, feat_type="spectrogram", n_fft=64, hop_length=16)
    assert spec[0][0].shape == [33, 1 + 400 // 16]
    direct = eager.audio.features.MelSpectrogram(sr=RATE, n_fft=128, hop_length=32, n_mels=16)
    mel = datasets.ESC50(mode="dev", split=1, feat_type="melspectrogram", n_fft=128, hop_length=32, n_mels=16)
    np.testing.assert_allclose(mel[0][0].numpy(), direct(datasets.ESC50(mode="dev", split=1)[0][0].unsqueeze(0))
                               .squeeze(0).numpy(), rtol=1e-6)


def test_tess_emotions_and_folds(home, rng):
    emotions = ["angry", "ps", "sad", "neutral", "fear", "happy", "disgust"]
    for i, emotion in enumerate(emotions):
        _write_wav(str(home / "TESS_Toronto_emotional_speech_set" / f"OAF_{emotion}" / f"OAF_w{i}_{emotion}.wav"),
                   rng.uniform(-0.1, 0.1, 200))
    dev = datasets.TESS(mode="dev", n_folds=3, split=1)
    train = datasets.TESS(mode="train", n_folds=3, split=1)
    assert len(dev) + len(train) == 7 and len(dev) == 3            # sorted paths dealt into 3 folds
    ordered = sorted(emotions)                                     # folders OAF_<emotion> sort by emotion
    want = [datasets.TESS.label_list.index(e) for e in ordered[0::3]]
    assert dev.labels == want
    assert dev[0][0].shape == [200]


def test_missing_datasets_and_bad_arguments(home):
    with pytest.raises(RuntimeError, match="ESC50: cannot download https://paddleaudio.bj.bcebos.com/datasets/"
                                           "ESC-50-master.zip: eager does not download datasets.*esc50.csv"):
        datasets.ESC50()
    with pytest.raises(RuntimeError, match="TESS: cannot download .*TESS_Toronto_emotional_speech_set' exists"):
        datasets.TESS(mode="dev")
    with pytest.raises(ValueError, match="ESC50: argument 'split' expected an int in \\[1, 5\\], got 6"):
        datasets.ESC50(split=6)
    with pytest.raises(ValueError, match="ESC50: argument 'feat_type' expected one of \\['raw', "):
        datasets.ESC50(feat_type="wav")
    with pytest.raises(ValueError, match="TESS: argument 'mode' expected 'train' or 'dev'"):
        datasets.TESS(mode="eval")
    with pytest.raises(ValueError, match="TESS: argument 'split' expected an int in \\[1, 2\\], got 3"):
        datasets.TESS(n_folds=2, split=3)
