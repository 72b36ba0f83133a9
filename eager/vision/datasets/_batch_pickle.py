"""Reading the pickled batches of the python version of the CIFAR archives
(``cifar-10-python.tar.gz``, ``cifar-100-python.tar.gz``) without running code
from the file.

A pickle names the callables it needs (its "globals") and unpickling calls them;
``pickle.load`` imports whatever the file names (``os.system`` included). A
CIFAR batch is a dict of bytes keys holding lists of ints and bytes and one
uint8 NumPy array, so :class:`BatchUnpickler` admits only the callables that
rebuild a NumPy array (``ndarray``, ``dtype`` and NumPy's array reconstructors,
under either of NumPy's module names) and ``_codecs.encode`` to latin-1 (how a
protocol-2 pickle written by Python 3 stores bytes); any other global is
refused, before anything is imported or called.
"""
from __future__ import annotations

import codecs
import io
import pickle

import numpy as np

# NumPy's own reconstructors, taken from what it pickles (their module moved from
# numpy.core to numpy._core in NumPy 2): _reconstruct (protocols 0-4) and
# _frombuffer (protocol 5).
_RECONSTRUCT = np.zeros(1, np.uint8).__reduce__()[0]
_FROMBUFFER = np.zeros(1, np.uint8).__reduce_ex__(5)[0]


def _latin1_encode(text, encoding="utf-8", errors="strict"):
    """``_codecs.encode`` limited to what a pickle uses it for: str to latin-1 bytes."""
    if not isinstance(text, str) or encoding != "latin1" or errors != "strict":
        raise pickle.UnpicklingError(f"_codecs.encode is admitted only as encode(str, 'latin1'), got "
                                     f"encode({type(text).__name__}, {encoding!r}, {errors!r})")
    return codecs.encode(text, "latin1")


_ADMITTED = {
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
    ("numpy.core.multiarray", "_reconstruct"): _RECONSTRUCT,
    ("numpy._core.multiarray", "_reconstruct"): _RECONSTRUCT,
    ("numpy.core.numeric", "_frombuffer"): _FROMBUFFER,
    ("numpy._core.numeric", "_frombuffer"): _FROMBUFFER,
    ("_codecs", "encode"): _latin1_encode,
}


class RefusedGlobal(pickle.UnpicklingError):
    """A pickle named a global that a CIFAR batch does not contain."""


class BatchUnpickler(pickle.Unpickler):
    """An Unpickler that admits only the globals of a CIFAR batch (see the
    module's text) and no persistent ids; ``encoding='bytes'`` as Paddle, so
    Python 2's strings come back as bytes (``b'data'``, ``b'labels'``).

    >>> import pickle, io
    >>> BatchUnpickler(io.BytesIO(pickle.dumps({b"labels": [3]}))).load()
    {b'labels': [3]}
    """

    def __init__(self, file):
        super().__init__(file, encoding="bytes")

    def find_class(self, module, name):
        """The admitted callable ``module.name``; RefusedGlobal for any other."""
        try:
            return _ADMITTED[(module, name)]
        except (KeyError, TypeError):
            raise RefusedGlobal(f"{module}.{name}") from None

    def persistent_load(self, pid):
        """Refused: a CIFAR batch has no persistent ids."""
        raise pickle.UnpicklingError("persistent ids are not admitted")


def load_batch(who: str, data: bytes, where: str) -> dict:
    """The batch pickled in ``data`` (a member of an archive, named by ``where``
    in errors), read by :class:`BatchUnpickler`: a dict. A refused global or a
    file that is no such pickle is a ValueError naming ``who`` and ``where``."""
    try:
        batch = BatchUnpickler(io.BytesIO(data)).load()
    except RefusedGlobal as error:
        raise ValueError(f"{who}: {where} refers to the global {error}, which a CIFAR batch does not contain; "
                         f"refusing to unpickle it (only dict, list, bytes, str, int and NumPy arrays are "
                         f"admitted)") from None
    except Exception as error:  # a broken pickle can fail in many ways (truncation, bad opcodes, NumPy's checks)
        raise ValueError(f"{who}: {where} is not a readable CIFAR batch ({type(error).__name__}: {error})") \
            from None
    if not isinstance(batch, dict):
        raise ValueError(f"{who}: {where} expected a pickled dict (a CIFAR batch), got {type(batch).__name__}")
    return batch
