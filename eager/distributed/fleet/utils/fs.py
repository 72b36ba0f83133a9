"""``fleet.utils.fs``: Paddle's ``LocalFS``, the local-disk file system that fleet's
checkpoint helpers and scripts use through one interface (``ls_dir``, ``mkdirs``,
``delete``, ``mv``, ``touch``, ...). Paddle's ``HDFSClient`` / ``AFSClient`` drive a
Hadoop command line and are not provided.

>>> from eager.distributed.fleet.utils import LocalFS
>>> fs = LocalFS()
>>> fs.need_upload_download()
False
"""
from __future__ import annotations

import os
import shutil

__all__ = ["LocalFS", "FSFileExistsError", "FSFileNotExistsError"]


class FSFileExistsError(Exception):
    """The target of ``touch(exist_ok=False)`` or ``mv`` already exists (Paddle's)."""


class FSFileNotExistsError(Exception):
    """The source of ``mv`` does not exist (Paddle's)."""


class LocalFS:
    """The local file system behind Paddle's file-system interface.

    >>> import tempfile, os
    >>> fs, root = LocalFS(), tempfile.mkdtemp()
    >>> fs.mkdirs(os.path.join(root, "a")); fs.touch(os.path.join(root, "f"))
    >>> sorted(fs.ls_dir(root)[0]), fs.ls_dir(root)[1]
    (['a'], ['f'])
    """

    def ls_dir(self, fs_path):
        """``(subdirectories, files)`` directly under ``fs_path`` (names); ``([], [])`` when it
        does not exist."""
        if not self.is_exist(fs_path):
            return [], []
        dirs, files = [], []
        for name in os.listdir(fs_path):
            (dirs if os.path.isdir(os.path.join(fs_path, name)) else files).append(name)
        return dirs, files

    def list_dirs(self, fs_path):
        """The subdirectories directly under ``fs_path``; ``[]`` when it does not exist."""
        return self.ls_dir(fs_path)[0]

    def mkdirs(self, fs_path):
        """Creates the directory ``fs_path`` and its parents (nothing when it exists); a file
        there is an AssertionError, as in Paddle."""
        if os.path.isfile(fs_path):
            raise AssertionError(f"LocalFS.mkdirs: {fs_path} is already a file")
        os.makedirs(fs_path, exist_ok=True)

    def rename(self, fs_src_path, fs_dst_path):
        """Renames ``fs_src_path`` to ``fs_dst_path`` (``os.rename``)."""
        os.rename(fs_src_path, fs_dst_path)

    def delete(self, fs_path):
        """Removes the file or the directory tree ``fs_path``; nothing when it does not exist."""
        if not self.is_exist(fs_path):
            return
        if os.path.isfile(fs_path) or os.path.islink(fs_path):
            os.remove(fs_path)
        else:
            shutil.rmtree(fs_path)

    def need_upload_download(self):
        """False: the files are local."""
        return False

    def is_file(self, fs_path):
        """Whether ``fs_path`` exists and is a file."""
        return os.path.isfile(fs_path)

    def is_dir(self, fs_path):
        """Whether ``fs_path`` exists and is a directory."""
        return os.path.isdir(fs_path)

    def is_exist(self, fs_path):
        """Whether ``fs_path`` exists (a file or a directory)."""
        return os.path.exists(fs_path)

    def touch(self, fs_path, exist_ok=True):
        """Creates the empty file ``fs_path``; when it exists, nothing with ``exist_ok``, else
        :class:`FSFileExistsError`."""
        if self.is_exist(fs_path):
            if exist_ok:
                return
            raise FSFileExistsError(f"LocalFS.touch: {fs_path} exists and exist_ok is False")
        with open(fs_path, "a"):
            pass

    def mv(self, src_path, dst_path, overwrite=False, test_exists=False):
        """Moves ``src_path`` to ``dst_path``: :class:`FSFileNotExistsError` when the source is
        missing; an existing ``dst_path`` is deleted first with ``overwrite``, else
        :class:`FSFileExistsError`. ``test_exists`` is Paddle's, unused there too."""
        if not self.is_exist(src_path):
            raise FSFileNotExistsError(f"LocalFS.mv: the source {src_path} does not exist")
        if overwrite and self.is_exist(dst_path):
            self.delete(dst_path)
        if self.is_exist(dst_path):
            raise FSFileExistsError(f"LocalFS.mv: the destination {dst_path} exists; pass overwrite=True "
                                    f"to replace it")
        return self.rename(src_path, dst_path)
