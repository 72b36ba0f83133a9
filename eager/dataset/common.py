"""Paddle's ``paddle.dataset.common``: where the legacy readers find their files,
and helpers to split a reader into files and read them back.

eager never downloads: :func:`download` returns the file that Paddle would have
downloaded when it is already in ``DATA_HOME/<module_name>/`` with the right
MD5, and otherwise raises an error naming the URL and where to put the file.

>>> import os
>>> os.path.basename(DATA_HOME), os.path.basename(os.path.dirname(DATA_HOME))
('dataset', 'paddle')
"""
from __future__ import annotations

import glob
import hashlib
import importlib
import os
import pickle
import tempfile

from ..reader.decorator import _check_count

__all__ = []

HOME = os.path.expanduser("~")
# As Paddle: a home folder that cannot be written falls back to the temporary folder.
if not os.access(HOME, os.W_OK):
    HOME = tempfile.gettempdir()

DATA_HOME = os.path.join(HOME, ".cache", "paddle", "dataset")

# The dataset modules of the package, which :func:`fetch_all` visits.
DATASETS = ("cifar", "conll05", "flowers", "imdb", "imikolov", "mnist", "movielens", "uci_housing", "voc2012",
            "wmt14", "wmt16")


def must_mkdirs(path) -> None:
    """Creates the folder ``path`` (and its parents) unless it exists; safe when
    several processes race to create it. (Paddle's creates ``DATA_HOME``
    whatever ``path`` says; eager does not create ``DATA_HOME`` at import.)"""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"must_mkdirs: argument 'path' expected a path, got {type(path).__name__}")
    os.makedirs(path, exist_ok=True)


def md5file(fname) -> str:
    """The MD5 hex digest of the file at ``fname``.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile(delete=False) as f:
    ...     _ = f.write(b"abc")
    >>> md5file(f.name)
    '900150983cd24fb0d6963f7d28e17f72'
    >>> os.remove(f.name)
    """
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError(f"md5file: argument 'fname' expected a path, got {type(fname).__name__}")
    if not os.path.isfile(fname):
        raise FileNotFoundError(f"md5file: argument 'fname': no file at {os.fspath(fname)!r}")
    digest = hashlib.md5()
    with open(fname, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_str(fn: str, arg: str, value) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{fn}: argument '{arg}' expected a non-empty str, got {value!r}")
    return value


def download(url, module_name, md5sum, save_name=None) -> str:
    """The local path of the file of ``url`` for dataset ``module_name``:
    ``DATA_HOME/<module_name>/<save_name or the last part of the URL>``, checked
    against ``md5sum``. eager never downloads: a missing file raises
    RuntimeError naming the URL and the path to put it at, and a file whose MD5
    is not ``md5sum`` raises ValueError (Paddle would download it again).
    Nothing is created or written.

    >>> download("https://example.com/data/none.tgz", "nothing", "0" * 32)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    RuntimeError: download: cannot download https://example.com/data/none.tgz: eager never downloads...
    """
    _check_str("download", "url", url)
    _check_str("download", "module_name", module_name)
    _check_str("download", "md5sum", md5sum)
    if save_name is not None:
        _check_str("download", "save_name", save_name)
    name = url.split("/")[-1] if save_name is None else save_name
    filename = os.path.join(DATA_HOME, module_name, name)
    if not os.path.isfile(filename):
        raise RuntimeError(f"download: cannot download {url}: eager never downloads datasets. Fetch it yourself "
                           f"and put it at {filename!r} (MD5 {md5sum})")
    digest = md5file(filename)
    if digest != md5sum.lower():
        raise ValueError(f"download: {filename!r} has MD5 {digest}, expected {md5sum} (the file of {url}); "
                         f"replace it with the right file")
    return filename


def fetch_all() -> None:
    """Checks that the files of every legacy dataset are in ``DATA_HOME``
    (Paddle downloads them): calls each dataset module's ``fetch()``, so the
    first missing file raises :func:`download`'s error."""
    package = __name__.rsplit(".", 1)[0]
    for name in DATASETS:
        # Looked up when called: the dataset modules import this one.
        module = importlib.import_module(f"{package}.{name}")
        if hasattr(module, "fetch"):
            module.fetch()


def _check_suffix(fn: str, suffix) -> str:
    if not isinstance(suffix, str):
        raise TypeError(f"{fn}: argument 'suffix' expected a str holding one %d, got {type(suffix).__name__}")
    try:
        suffix % 0
    except (TypeError, ValueError):
        raise ValueError(f"{fn}: argument 'suffix' expected a str holding one %d (the file number), "
                         f"got {suffix!r}") from None
    return suffix


def split(reader, line_count, suffix="%05d.pickle", dumper=pickle.dump) -> None:
    """Writes the samples of ``reader`` to files of ``line_count`` samples each
    (the last one holds the rest): file ``i`` is ``suffix % i``, written with
    ``dumper(list_of_samples, file)`` on a file opened for binary writing.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> split(lambda: iter(range(5)), 2, os.path.join(folder, "part-%02d.pickle"))
    >>> sorted(os.listdir(folder))
    ['part-00.pickle', 'part-01.pickle', 'part-02.pickle']
    """
    if not callable(reader):
        raise TypeError(f"split: argument 'reader' expected a reader (a callable returning an iterable), "
                        f"got {type(reader).__name__}")
    line_count = _check_count("split", "line_count", line_count, 1)
    suffix = _check_suffix("split", suffix)
    if not callable(dumper):
        raise TypeError(f"split: argument 'dumper' expected a callable, got {type(dumper).__name__}")
    lines, index = [], 0
    for sample in reader():
        lines.append(sample)
        if len(lines) == line_count:
            with open(suffix % index, "wb") as f:
                dumper(lines, f)
            lines, index = [], index + 1
    if lines:
        with open(suffix % index, "wb") as f:
            dumper(lines, f)


def cluster_files_reader(files_pattern, trainer_count, trainer_id, loader=pickle.load):
    """A reader of the samples in the files matching ``files_pattern`` (a glob,
    as :func:`split` writes them) that fall to trainer ``trainer_id`` of
    ``trainer_count``: the files in sorted order, every ``trainer_count``-th one
    from ``trainer_id``. Each file is opened for binary reading and
    ``loader(file)`` must return its list of samples. The default loader
    unpickles, which runs code a file names: read only files you wrote.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> split(lambda: iter(range(5)), 2, os.path.join(folder, "part-%02d.pickle"))
    >>> list(cluster_files_reader(os.path.join(folder, "part-*.pickle"), 2, 0)())
    [0, 1, 4]
    """
    if not isinstance(files_pattern, (str, os.PathLike)):
        raise TypeError(f"cluster_files_reader: argument 'files_pattern' expected a str, got "
                        f"{type(files_pattern).__name__}")
    trainer_count = _check_count("cluster_files_reader", "trainer_count", trainer_count, 1)
    trainer_id = _check_count("cluster_files_reader", "trainer_id", trainer_id, 0)
    if trainer_id >= trainer_count:
        raise ValueError(f"cluster_files_reader: argument 'trainer_id' expected an int in [0, {trainer_count}), "
                         f"got {trainer_id}")
    if not callable(loader):
        raise TypeError(f"cluster_files_reader: argument 'loader' expected a callable, got {type(loader).__name__}")

    def reader():
        names = sorted(glob.glob(os.fspath(files_pattern)))
        for name in names[trainer_id::trainer_count]:
            with open(name, "rb") as f:
                yield from loader(f)
    return reader


def _check_exists_and_download(path, url, md5, module_name, download=True) -> str:
    """``path`` when it exists; else the cached file of ``url`` (see
    :func:`download`) when ``download``; else ValueError."""
    if path and os.path.exists(path):
        return path
    if download:
        return _download(url, module_name, md5)
    raise ValueError(f"{path} not exists and auto download disabled")


_download = download  # for _check_exists_and_download, whose argument 'download' hides the function
