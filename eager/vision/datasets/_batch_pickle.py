"""Reading the pickled batches of the python version of the CIFAR archives
(``cifar-10-python.tar.gz``, ``cifar-100-python.tar.gz``) without running code
from the file, through :class:`eager.restricted_pickle.RestrictedUnpickler`.

A CIFAR batch is a dict of bytes keys holding lists of ints and bytes and one
uint8 NumPy array; the unpickler admits only the globals of such data files
and refuses any other before anything is imported or called.

>>> import pickle
>>> load_batch("Cifar10", pickle.dumps({b"labels": [3]}, protocol=2), "a batch")
{b'labels': [3]}
"""
from __future__ import annotations

from ...restricted_pickle import RefusedGlobal, check_arrays, loads


def load_batch(who: str, data: bytes, where: str) -> dict:
    """The batch pickled in ``data`` (a member of an archive, named by ``where``
    in errors): a dict, with Python 2's strings as bytes (``encoding='bytes'``,
    as Paddle). A refused global or a file that is no such pickle is a
    ValueError naming ``who`` and ``where``."""
    try:
        batch = loads(data, "bytes")
        check_arrays(batch)
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
