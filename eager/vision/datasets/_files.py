"""Where dataset files are looked for, and the error when they are missing."""
from __future__ import annotations

import os

from ...arguments import to_str

# Paddle's cache: ~/.cache/paddle/dataset/<name>/<file name of the URL>.
DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))


def resolve(fn: str, arg: str, path, download: bool, folder: str, url: str, hint: str = "") -> str:
    """``path`` when given (it must exist); else the file of ``url`` in Paddle's
    cache folder when present; else a clear error (this build never downloads)."""
    if path is not None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"{fn}: argument '{arg}' expected a path, got {type(path).__name__}")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{fn}: argument '{arg}': no file at {os.fspath(path)!r}")
        return os.fspath(path)
    cached = os.path.join(DATA_HOME, folder, url.rsplit("/", 1)[-1])
    if os.path.isfile(cached):
        return cached
    where = f"put {url.rsplit('/', 1)[-1]!r} (from {url}) at {cached!r}, or pass its path as '{arg}'"
    if not download:
        raise ValueError(f"{fn}: argument '{arg}' is not set and download is False: {where}{hint}")
    raise RuntimeError(f"{fn}: cannot download {url}: eager does not download datasets. Fetch it yourself and "
                       f"{where}{hint}")


def check_mode(fn: str, mode, modes) -> str:
    """``mode`` lower-cased (Paddle accepts 'TRAIN'), which must be one of ``modes``;
    a mode that is not a str is a TypeError, an unknown one a ValueError."""
    lowered = to_str(mode, fn, "mode").lower()
    if lowered not in modes:
        expected = ", ".join(repr(m) for m in modes[:-1]) + f" or {modes[-1]!r}"
        raise ValueError(f"{fn}: argument 'mode' expected {expected}, got {mode!r}")
    return lowered
