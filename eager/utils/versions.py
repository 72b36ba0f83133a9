"""Paddle's ``paddle.utils.require_version``: checks the installed version."""
from __future__ import annotations

import re

import eager  # its __version__: the version checked

__all__ = ["require_version"]

_VERSION = re.compile(r"^\d+(\.\d+){0,3}$")


def _parts(arg: str, text) -> list:
    if not isinstance(text, str):
        raise TypeError(f"require_version: argument '{arg}' expected a str, got {type(text).__name__}")
    if not _VERSION.match(text):
        raise ValueError(f"require_version: argument '{arg}' expected a version like '1.2.3' (up to four "
                         f"numbers), got {text!r}")
    parts = [int(p) for p in text.split(".")]
    return parts + [0] * (4 - len(parts))


def require_version(min_version: str, max_version: str | None = None) -> None:
    """Checks that the installed eager's version (``eager.__version__``) is at least
    ``min_version`` and at most ``max_version`` (when given), versions being up to
    four dot-separated numbers; raises Exception naming both otherwise, as Paddle's.

    >>> eager.utils.require_version("0.1")
    """
    low = _parts("min_version", min_version)
    high = None if max_version is None else _parts("max_version", max_version)
    installed = _parts("installed version", eager.__version__)
    if installed < low or (high is not None and installed > high):
        wanted = f"[{min_version}, {max_version}]" if max_version is not None else f">= {min_version}"
        raise Exception(f"require_version: version {wanted} is required, but {eager.__version__} is installed")
