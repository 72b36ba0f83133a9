"""Reading members of a (possibly compressed) tar archive on demand, for the
datasets that keep their images inside one (Flowers, VOC2012)."""
from __future__ import annotations

import importlib
import io
import os
import tarfile


class TarMembers:
    """The file members of the tar archive at ``path``, read on demand. The
    archive is opened lazily in each process (a DataLoader worker reopens it),
    so the object pickles without an open file.

    >>> members = TarMembers("Flowers", "102flowers.tgz")
    >>> "jpg/image_00001.jpg" in members
    True
    """

    def __init__(self, fn: str, path: str):
        self.fn, self.path = fn, path
        self._archive = None
        try:
            archive = self._open()
            self.names = {m.name for m in archive.getmembers() if m.isfile()}
        except (tarfile.TarError, OSError, EOFError) as error:
            raise ValueError(f"{fn}: cannot read {path!r} as a tar archive: {error}") from None

    def _open(self):
        if self._archive is None or self._pid != os.getpid():
            self._archive, self._pid = tarfile.open(self.path), os.getpid()
        return self._archive

    def __contains__(self, name):
        return name in self.names

    def read(self, name: str) -> bytes:
        """The bytes of member ``name``; a missing member is an error naming it."""
        if name not in self.names:
            raise ValueError(f"{self.fn}: {self.path!r} has no member {name!r}")
        return self._open().extractfile(name).read()

    def image(self, name: str):
        """Member ``name`` decoded with Pillow (a PIL Image)."""
        try:
            image_module = importlib.import_module("PIL.Image")
        except ImportError:
            raise ImportError(f"{self.fn}: decoding {name!r} needs Pillow; install it") from None
        return image_module.open(io.BytesIO(self.read(name)))

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_archive"] = None
        return state
