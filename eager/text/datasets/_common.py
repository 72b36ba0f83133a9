"""Checks and file readers shared by the text datasets (a private module)."""
from __future__ import annotations

import tarfile
import zipfile

from ...composite._paddle_api import integer  # noqa: F401  (the project's int check, for the datasets)
from ...vision.datasets._files import resolve  # noqa: F401  (the same cache folder and missing-file error)


def mode(fn: str, value, options=("train", "test")) -> str:
    """``value`` lower-cased when it is one of ``options``, else ValueError."""
    if not isinstance(value, str) or value.lower() not in options:
        raise ValueError(f"{fn}: argument 'mode' expected one of {', '.join(map(repr, options))}, got {value!r}")
    return value.lower()


def lines(data: bytes) -> list:
    """The lines of ``data`` as iterating over its file gives them (split at b'\\n'
    only, no empty line after a final newline), without their newlines."""
    pieces = data.split(b"\n")
    if pieces[-1] == b"":
        pieces.pop()
    return pieces


def open_tar(fn: str, path: str) -> tarfile.TarFile:
    """The tar archive at ``path`` (any compression), else ValueError naming it."""
    try:
        return tarfile.open(path)
    except (tarfile.TarError, OSError, EOFError) as error:
        raise ValueError(f"{fn}: cannot read {path!r} as a tar archive: {error}") from None


def tar_member(fn: str, archive: tarfile.TarFile, path: str, name: str):
    """The file object of member ``name`` of ``archive``, else ValueError naming both."""
    try:
        member = archive.extractfile(name)
    except KeyError:
        member = None
    if member is None:
        raise ValueError(f"{fn}: {path!r} has no file {name!r}")
    return member


def open_zip(fn: str, path: str) -> zipfile.ZipFile:
    """The zip archive at ``path``, else ValueError naming it."""
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        raise ValueError(f"{fn}: cannot read {path!r} as a zip archive: {error}") from None


def zip_lines(fn: str, archive: zipfile.ZipFile, path: str, name: str, encoding: str = "latin-1") -> list:
    """The decoded lines of member ``name`` of ``archive``, else ValueError naming both."""
    try:
        data = archive.read(name)
    except KeyError:
        raise ValueError(f"{fn}: {path!r} has no file {name!r}") from None
    return [line.decode(encoding) for line in lines(data)]
