"""Paddle's ``paddle.utils.download`` without the network: eager never
downloads. A URL names a file in a cache folder (Paddle's layout:
``<root_dir>/<last part of the URL>``); when that file is there (and matches
``md5sum`` when one is given) its path comes back, as Paddle's does after a
download, and when it is missing the error names the URL and the path to put
the file at. An archive (``.tar``, ``.tar.gz``, ``.tgz``, ``.zip``) that is
there is unpacked beside itself on first use, as Paddle unpacks a download.

>>> from eager.utils.download import get_weights_path_from_url
>>> get_weights_path_from_url("https://example.com/models/resnet18.pdparams")  # doctest: +SKIP
'/home/me/.cache/paddle/hapi/weights/resnet18.pdparams'
"""
from __future__ import annotations

import hashlib
import os
import tarfile
import zipfile

__all__ = ["get_weights_path_from_url"]

# Where Paddle keeps downloaded model weights.
WEIGHTS_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "hapi", "weights"))

_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")


def is_url(path) -> bool:
    """Whether ``path`` is an http(s) URL."""
    return isinstance(path, str) and path.startswith(("http://", "https://"))


def get_weights_path_from_url(url: str, md5sum=None) -> str:
    """The local path of the weights file at ``url``: the file of that name in
    Paddle's weights folder (``~/.cache/paddle/hapi/weights``). eager never
    downloads: a missing file (or one whose MD5 is not ``md5sum``) raises an
    error naming the URL and where to put the file."""
    return _local_path("get_weights_path_from_url", url, WEIGHTS_HOME, md5sum, decompress=True)


def get_path_from_url(url: str, root_dir: str, md5sum=None, check_exist: bool = True, decompress: bool = True,
                      method: str = "get") -> str:
    """The local path of the file at ``url`` in folder ``root_dir`` (its last
    URL part), checked against ``md5sum`` when given; an archive is unpacked
    there when ``decompress`` and the unpacked folder (or file) returned.
    ``check_exist`` and ``method`` concern downloading, which eager never does;
    a missing file raises an error naming the URL and where to put it."""
    if not isinstance(root_dir, (str, os.PathLike)):
        raise TypeError(f"get_path_from_url: argument 'root_dir' expected a folder path, got "
                        f"{type(root_dir).__name__}")
    if method not in ("get", "wget"):
        raise ValueError(f"get_path_from_url: argument 'method' expected 'get' or 'wget', got {method!r}")
    return _local_path("get_path_from_url", url, os.fspath(root_dir), md5sum, decompress=bool(decompress))


def _local_path(fn: str, url, root_dir: str, md5sum, decompress: bool) -> str:
    if not is_url(url):
        raise ValueError(f"{fn}: argument 'url' expected an http(s) URL, got {url!r}")
    if md5sum is not None and not isinstance(md5sum, str):
        raise TypeError(f"{fn}: argument 'md5sum' expected a hex str or None, got {type(md5sum).__name__}")
    name = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    path = os.path.join(root_dir, name)
    if not os.path.isfile(path):
        raise RuntimeError(f"{fn}: cannot download {url}: eager never downloads. Fetch it yourself and put "
                           f"{name!r} at {path!r}")
    if md5sum is not None:
        digest = _md5(path)
        if digest != md5sum.lower():
            raise ValueError(f"{fn}: {path!r} has MD5 {digest}, expected {md5sum} (the file of {url}); "
                             f"replace it with the right file")
    if decompress and (name.endswith(_TAR_SUFFIXES) or name.endswith(".zip")):
        return _unpacked(fn, path)
    return path


def _md5(path: str) -> str:
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _unpacked(fn: str, path: str) -> str:
    """Unpacks archive ``path`` beside itself (once) and returns what it holds:
    its one top-level entry, or a folder named after the archive holding its
    several entries (Paddle's layout)."""
    folder = os.path.dirname(path)
    is_zip = path.endswith(".zip")
    with (zipfile.ZipFile(path) if is_zip else tarfile.open(path)) as archive:
        top = _top_level(fn, path, archive.namelist() if is_zip else archive.getnames())
        target = folder if len(top) == 1 else os.path.join(folder, _stem(path))
        result = os.path.join(folder, next(iter(top))) if len(top) == 1 else target
        if not os.path.exists(result):
            if is_zip:
                archive.extractall(target)  # zipfile drops '..' and absolute parts of member names
            else:
                archive.extractall(target, filter="data")  # refuses members that would land outside target
        return result


def _top_level(fn: str, path: str, names) -> set:
    """The first path parts of the archive's member names ('.' parts skipped)."""
    top = set()
    for name in names:
        parts = [part for part in name.replace("\\", "/").split("/") if part not in ("", ".")]
        if parts:
            if parts[0] == "..":
                raise ValueError(f"{fn}: archive {path!r} has a member outside its folder: {name!r}")
            top.add(parts[0])
    if not top:
        raise ValueError(f"{fn}: archive {path!r} is empty")
    return top


def _stem(path: str) -> str:
    name = os.path.basename(path)
    for suffix in _TAR_SUFFIXES + (".zip",):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name
