"""Unpickling data files without running code from them: the pickled batches of
the CIFAR archives (:mod:`eager.vision.datasets.cifar`) and Paddle's checkpoints
(``paddle.save``'s ``.pdparams``/``.pdopt``, read by :func:`eager.load`).

A pickle names the callables it needs (its "globals") and unpickling calls them;
``pickle.load`` imports whatever the file names (``os.system`` included).
:class:`RestrictedUnpickler` admits only the callables that such data files
use, each replaced where needed by a stand-in that accepts only the data form:

- NumPy arrays and scalars: ``ndarray``, ``dtype`` (numeric and bool dtypes
  only: an object array could hold anything), the array reconstructors and
  ``scalar`` under either of NumPy's module names (``numpy.core`` before
  NumPy 2, ``numpy._core`` since);
- the containers ``tuple`` (how Paddle writes a Tensor: ``(name, array)``),
  ``list``, ``set``, ``frozenset``, ``collections.OrderedDict``, and
  ``complex``, under Python 3's and Python 2's module names (a protocol-2
  pickle names ``__builtin__``);
- ``_codecs.encode(str, 'latin1')`` and ``bytes()`` (how a protocol-2 pickle
  written by Python 3 stores bytes);
- ``eval`` only as ``eval('data', {'data': array})``, the form Paddle writes
  for a static-graph LoDTensor: the stand-in returns the array and never
  evaluates anything.

Any other global, and any persistent id, is refused before anything is
imported or called; :func:`check_arrays` refuses arrays whose dtype was
altered into a non-numeric one after construction.
"""
from __future__ import annotations

import codecs
import collections
import io
import pickle

import numpy as np

# NumPy's own reconstructors, taken from what it pickles (their module moved from
# numpy.core to numpy._core in NumPy 2): _reconstruct (protocols 0-4),
# _frombuffer (protocol 5) and scalar (NumPy scalars).
_RECONSTRUCT = np.zeros(1, np.uint8).__reduce__()[0]
_FROMBUFFER = np.zeros(1, np.uint8).__reduce_ex__(5)[0]
_SCALAR = np.float32(0).__reduce__()[0]
# The dtype kinds admitted: bool, signed and unsigned ints, floats, complex.
# Object arrays ("O") could hold any object; structured ("V"), string and time
# dtypes are no Tensor's either.
_DATA_KINDS = "biufc"


class RefusedGlobal(pickle.UnpicklingError):
    """A pickle named a global that data files do not contain, or called an
    admitted one in a form they do not use. ``str(error)`` names it."""


def _checked_dtype(dtype: np.dtype) -> np.dtype:
    if dtype.kind not in _DATA_KINDS:
        what = "object" if dtype.hasobject else str(dtype)
        raise RefusedGlobal(f"numpy.dtype({what!r}) (only bool, int, uint, float and complex arrays are "
                            f"admitted; an object array can hold anything)")
    return dtype


def _dtype(spec, align=False, copy=False):
    """``numpy.dtype`` limited to the numeric and bool dtypes."""
    return _checked_dtype(np.dtype(spec, align, copy))


def _ndarray(*args, **kwargs):
    """What a pickle gets for ``numpy.ndarray``: NumPy's pickles only pass the
    class to ``_reconstruct``; calling it (an array of any dtype over any
    buffer) is refused."""
    raise RefusedGlobal("numpy.ndarray(...) called directly (arrays are admitted only as NumPy pickles them)")


def _reconstruct(subtype, shape, typecode):
    """NumPy's ``_reconstruct``, for plain ndarrays only (no subclass)."""
    if subtype is not _ndarray:
        raise RefusedGlobal(f"numpy's _reconstruct of {subtype!r:.60} (only numpy.ndarray is admitted)")
    return _RECONSTRUCT(np.ndarray, shape, typecode)


def _frombuffer(buffer, dtype, shape, order):
    """NumPy's protocol-5 ``_frombuffer``, for the admitted dtypes only."""
    return _FROMBUFFER(buffer, _checked_dtype(np.dtype(dtype)), shape, order)


def _scalar(dtype, *data):
    """``numpy...multiarray.scalar``: a NumPy scalar of an admitted dtype."""
    if not isinstance(dtype, np.dtype):
        raise RefusedGlobal(f"numpy's scalar of {type(dtype).__name__} (expected a dtype)")
    return _SCALAR(_checked_dtype(dtype), *data)


def _latin1_encode(text, encoding="utf-8", errors="strict"):
    """``_codecs.encode`` limited to what a pickle uses it for: str to latin-1 bytes."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1") or errors != "strict":
        raise RefusedGlobal(f"_codecs.encode({type(text).__name__}, {encoding!r}, {errors!r}) (only "
                            f"encode(str, 'latin1') is admitted)")
    return codecs.encode(text, "latin1")


def _empty_bytes(*args):
    """``bytes()``: how a protocol-2 pickle writes b''."""
    if args:
        raise RefusedGlobal(f"bytes() with {len(args)} arguments (only bytes() is admitted)")
    return b""


def _lod_tensor_eval(source, env=None, *rest):
    """Paddle's ``eval('data', {'data': array})`` (a LoDTensor): the array, with
    nothing evaluated."""
    if source != "data" or rest or not isinstance(env, dict) or set(env) != {"data"} \
            or not isinstance(env["data"], np.ndarray):
        raise RefusedGlobal(f"builtins.eval({source!r:.60}, ...) (eval is admitted only as Paddle's "
                            f"eval('data', {{'data': array}}), which is not evaluated)")
    return env["data"]


def _container(kind):
    def make(*args):
        if len(args) > 1:
            raise RefusedGlobal(f"{kind.__name__} with {len(args)} arguments")
        return kind(*args)
    make.__name__ = kind.__name__
    return make


_BUILTINS = {"tuple": _container(tuple), "list": _container(list), "set": _container(set),
             "frozenset": _container(frozenset), "complex": complex, "bytes": _empty_bytes,
             "eval": _lod_tensor_eval}
_ADMITTED = {
    ("numpy", "ndarray"): _ndarray,
    ("numpy", "dtype"): _dtype,
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("_codecs", "encode"): _latin1_encode,
}
for _core in ("numpy.core", "numpy._core"):
    _ADMITTED[(f"{_core}.multiarray", "_reconstruct")] = _reconstruct
    _ADMITTED[(f"{_core}.multiarray", "scalar")] = _scalar
    _ADMITTED[(f"{_core}.numeric", "_frombuffer")] = _frombuffer
for _name, _callable in _BUILTINS.items():
    _ADMITTED[("builtins", _name)] = _callable
# A protocol-2 pickle written by Python 3 names Python 2's modules (pickle's fix_imports).
_PYTHON2_MODULES = {"__builtin__": "builtins", "copy_reg": "copyreg"}


class RestrictedUnpickler(pickle.Unpickler):
    """An Unpickler that admits only the globals of data files (see the
    module's text) and no persistent ids. ``encoding`` is how Python 2's
    strings are read: ``'bytes'`` for the CIFAR batches (``b'data'``), as
    Paddle's reader; ``'latin1'`` for Paddle's checkpoints, as ``paddle.load``.

    >>> import pickle, io
    >>> RestrictedUnpickler(io.BytesIO(pickle.dumps({b"labels": [3]})), "bytes").load()
    {b'labels': [3]}
    """

    def __init__(self, file, encoding: str):
        super().__init__(file, encoding=encoding)

    def find_class(self, module, name):
        """The admitted callable ``module.name``; RefusedGlobal for any other."""
        module = _PYTHON2_MODULES.get(module, module)
        try:
            return _ADMITTED[(module, name)]
        except (KeyError, TypeError):
            raise RefusedGlobal(f"{module}.{name}") from None

    def persistent_load(self, pid):
        """Refused: data files have no persistent ids (torch's legacy files do)."""
        raise RefusedGlobal(f"the persistent id {pid!r:.60} (persistent ids are not admitted)")


def loads(data: bytes, encoding: str):
    """The object pickled in ``data``, read by :class:`RestrictedUnpickler`."""
    return RestrictedUnpickler(io.BytesIO(data), encoding).load()


def check_arrays(obj) -> None:
    """Raises RefusedGlobal if ``obj`` (an unpickled tree of containers) holds a
    NumPy array or scalar whose dtype is not numeric or bool: a dtype can be
    altered after it is made (its pickled state is applied afterwards)."""
    seen = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, (np.ndarray, np.generic)):
            _checked_dtype(item.dtype)
        elif isinstance(item, (dict, list, tuple, set, frozenset)):
            if id(item) in seen:
                continue
            seen.add(id(item))
            if isinstance(item, dict):
                stack.extend(item.keys())
                item = item.values()
            stack.extend(item)
