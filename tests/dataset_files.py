"""Synthetic dataset files in the real on-disk formats (IDX, tar archives), shared by
the dataset tests so each writes the format one way."""
import gzip
import io
import struct
import tarfile

import numpy as np


def write_idx(path, array, magic, compress=True):
    """``array`` as an IDX file (MNIST's format): the magic number, the dimensions,
    then the uint8 values; gzip-compressed unless ``compress`` is False."""
    header = struct.pack(">I", magic) + b"".join(struct.pack(">I", n) for n in array.shape)
    with (gzip.open if compress else open)(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())
    return str(path)


def write_tar(path, members, mode="w:gz"):
    """A tar archive of ``members`` ({member name: bytes}); gzip-compressed by default."""
    with tarfile.open(path, mode) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return str(path)
