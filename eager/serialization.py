"""Saving and loading: Paddle's ``paddle.save`` / ``paddle.load``, as safetensors files.

``eager.save(obj, path)`` writes what Paddle users save -- a Layer's or an
optimizer's ``state_dict()``, a single Tensor, or dicts, lists and tuples of
Tensors, NumPy arrays, numbers, strings, bools and None -- and
``eager.load(path)`` gives it back::

    >>> import numpy as np, eager
    >>> net = eager.nn.Linear(3, 2)
    >>> opt = eager.optimizer.Adam(parameters=net.parameters())
    >>> eager.save({"model": net.state_dict(), "opt": opt.state_dict(), "epoch": 7},
    ...            "checkpoint.pdparams")
    >>> ckpt = eager.load("checkpoint.pdparams")
    >>> missing, unexpected = net.set_state_dict(ckpt["model"])
    >>> opt.set_state_dict(ckpt["opt"])
    >>> ckpt["epoch"], ckpt["model"]["weight"].shape, ckpt["model"]["weight"].stop_gradient
    (7, [3, 2], True)

The format
----------
The file is a plain `safetensors <https://github.com/huggingface/safetensors>`_
file, written with the ``safetensors`` package's NumPy API: an 8-byte
little-endian header length, a JSON header naming each array's dtype, shape
and byte range, then the raw bytes. Every array of the saved object (Tensors
and NumPy arrays) is one entry, named after where it sits in the object
(``model.0.weight``; ``tensor`` for a lone Tensor); any safetensors reader
can open the file. The rest of the object is kept as JSON in the header's
string-only ``__metadata__`` under ``"eager.structure"`` (with
``"eager.format": "1"``): tagged nodes -- ``{"dict": [[key, node], ...]}``,
``{"odict": ...}`` (an OrderedDict, as ``Layer.state_dict()`` returns; a key
that is not a str -- a number, bool, None or a tuple of these -- is a node too),
``{"list": [...]}``, ``{"tuple": [...]}``, ``{"tensor": entry, "dtype": ...,
"shape": ..., "kind": "tensor" | "ndarray" (what was saved), "name": ...}``, ``{"scalar":
"float32", "value": ...}`` for a NumPy scalar, ``{"float": "nan"}`` and
``{"complex": "(1+2j)"}`` -- and JSON's own null, booleans, integers (of any
size), finite floats (written exactly) and strings. So dicts stay dicts,
OrderedDicts stay OrderedDicts, tuples stay tuples, and every dtype and shape
comes back exactly: bool, int8 to int64, uint8 to uint64, float16, float32,
float64, 0-d and size-0 arrays. complex64 and complex128, which safetensors
lacks (or has only in recent versions), are stored as their float32/float64
view with a trailing axis of 2 and turned back into complex on load.

A safetensors file written by another program (no ``eager.structure``) loads
as a dict of entry name -> Tensor, in the file's order.

Paddle's files
--------------
``eager.load`` also reads the pickles that Paddle's ``paddle.save`` writes
(``.pdparams``, ``.pdopt``, a saved Tensor; protocols 2 to 4), and gives what
``paddle.load`` gives: a Layer's or optimizer's state dict (what paddle.save
writes for a dict of Tensors: arrays and a ``"StructuredToParameterName@@"``
table) loads with its top-level arrays as Tensors named by that table (the
table itself only with ``keep_name_table=True``), other values as they are
(an optimizer's ``"LR_Scheduler"`` dict of numbers); arrays that paddle.save
split into slices (``"UnpackBigParamInfor@@"``) are joined. Anything else
(a Tensor, a list, a nested checkpoint dict) has its Tensors, which paddle.save
writes as ``(name, array)`` tuples, made named Tensors, NumPy arrays beside
them staying arrays; without such tuples every array becomes a Tensor.
``return_numpy=True`` gives arrays instead of Tensors, and a uint16 array
(how Paddle stores bfloat16) becomes a bfloat16 Tensor, as in Paddle. So
``net.set_state_dict(eager.load("resnet.pdparams"))`` and
``opt.set_state_dict(eager.load("resnet.pdopt"))`` work with files from
Paddle (the optimizer matches accumulators by parameter name, as Paddle, e.g.
``linear_0.w_0_moment1_0``: build the model in a fresh process or under
``eager.utils.unique_name.guard()``; ``eager.Model.load`` maps the names).

Safety
------
Loading never runs code from the file. A safetensors header is parsed as
JSON, the arrays are read as bytes by safetensors, and the structure is
rebuilt from a fixed set of tags. A pickle names the callables it needs and
``pickle.load`` calls whatever it names; eager reads pickles only through
:class:`eager.restricted_pickle.RestrictedUnpickler`, which admits the
globals of paddle.save's files (NumPy's array, dtype and scalar
reconstructors for bool and numeric dtypes, ``tuple``, ``list``, ``set``,
``collections.OrderedDict``, ``complex``, ``_codecs.encode`` to latin-1, and
``eval`` only as the ``eval('data', {'data': array})`` that Paddle writes for
a LoDTensor, which is not evaluated) and refuses every other global (any
function or class: ``os.system``, ``builtins.eval`` of code, a Layer
object), object arrays and persistent ids with a ValueError naming what it
refused, before anything is imported or called. A PyTorch zip archive
(``torch.save``) is refused with an explanation; convert it where you trust
the file and save its arrays with ``eager.save``. A file that is truncated,
empty, or whose header is not what eager writes raises a ValueError naming
the path and what is wrong; a missing file raises ModelNotFoundError (a
FileNotFoundError and the ValueError Paddle raises).
(safetensors keeps no checksum: a byte changed inside the array data goes
unnoticed.)

``safetensors`` is an optional dependency (``pip install safetensors``, or
the ``save`` extra); ``save``, and ``load`` of a safetensors file, raise
ImportError saying so when it is missing (Paddle's pickles load without it).

Differences from Paddle
-----------------------
- ``save`` writes safetensors, not a pickle: ``eager.load`` reads Paddle's
  ``.pdparams``/``.pdopt`` files and eager's, Paddle's ``load`` reads only its
  own (convert an eager file for Paddle with ``safetensors.numpy.load_file``
  and ``paddle.save``). ``protocol`` (and the ``pickle_protocol`` config) is
  checked as Paddle checks it (an int from 2 to 4) but does not change the file.
- Reading Paddle's pickles, eager admits only data (see Safety): a pickle that
  holds other objects (which Paddle's load would unpickle, running any code
  they name) is refused. Paddle's binary formats (``use_binary_format=True``,
  a saved Program) are not read; a pickle must be the whole file given by
  name (a torch.save file in torch's legacy format holds more).
- Only data is saved: Tensors, NumPy arrays, NumPy scalars, Python numbers,
  strings, bools, None, and dicts (keys: strs, numbers, bools, None or tuples
  of these), lists and tuples of these.
  Paddle pickles any picklable object; a Layer, optimizer or scheduler object
  raises here as in Paddle ("save its state_dict()"), and so does anything
  else (a function, a set, bytes, a custom class). Another dict subclass or
  mapping loads as a dict, a namedtuple as a tuple.
- From eager's files, every array loads as a Tensor (``stop_gradient=True``,
  on the CPU), NumPy arrays included, unless ``return_numpy=True`` gives
  NumPy arrays everywhere. Paddle keeps a NumPy array as a NumPy array when the saved
  object also holds Tensors. A NumPy array of a dtype eager's Tensors lack
  (uint16, uint32, uint64) loads as a NumPy array.
- A loaded Tensor keeps the saved tensor's name, for Layer state dicts too;
  Paddle restores names only for tensors nested below the top level (and
  gives the top-level ones through ``keep_name_table=True``, which eager also
  supports). eager names tensors lazily, so a tensor whose name was never set
  or read (by ParamAttr, an optimizer or your code) is saved without one and
  loads with a fresh name.
- Tensors that share memory (views, or one tensor saved twice) are saved as
  independent copies and load as independent tensors.
- A SelectedRows tensor (a sparse gradient) is saved as its dense values;
  Paddle refuses it.
- Paddle's ``model_filename``/``params_filename`` configs select files of
  its inference-model formats (``paddle.jit.save``), which eager does not
  read; giving them raises. ``use_binary_format`` only matters for Paddle's
  static graph and is accepted and ignored.
- A missing file raises ModelNotFoundError: a FileNotFoundError, and the
  ValueError Paddle raises.
- Saving to a path is atomic: the file is written under a temporary name in
  the same directory and renamed, so a failed save leaves an existing file as
  it was. As in Paddle, missing parent directories are created.
"""
from __future__ import annotations

import collections
import collections.abc
import json
import math
import numbers
import os
import secrets
import threading
import warnings

import numpy as np

from phi.common import DataType
from phi.common.data_type import BFloat16Unavailable, bfloat16_numpy_dtype
from phi.core import DenseTensor

from . import autograd  # noqa: F401  (the autograd core before eager.tensor, which needs it loaded)
from .arguments import to_bool
from .errors import ArgumentKindError, ModelNotFoundError
from .restricted_pickle import RefusedGlobal, RestrictedUnpickler, check_arrays
from .tensor import Tensor

__all__ = ["save", "load"]

_FORMAT_KEY = "eager.format"
_FORMAT_VERSION = "1"
_STRUCTURE_KEY = "eager.structure"
_HEADER_METADATA = "__metadata__"  # safetensors' header key for the string metadata
_NAME_TABLE_KEY = "StructuredToParameterName@@"  # Paddle's keep_name_table entry
_BIG_PARAMS_KEY = "UnpackBigParamInfor@@"  # Paddle's record of arrays split into slices (protocols 2, 3)
_JIT_MODEL, _JIT_PARAMS = ".pdmodel", ".pdiparams"  # the files eager.jit.save writes (jit/program.py)
# safetensors' own limit on the JSON header; a larger length means garbage.
_MAX_HEADER = 100_000_000
# The NumPy dtypes eager writes (safetensors' names beside them).
_STORABLE = {"bool": "BOOL", "int8": "I8", "uint8": "U8", "int16": "I16", "uint16": "U16",
             "int32": "I32", "uint32": "U32", "int64": "I64", "uint64": "U64",
             "float16": "F16", "float32": "F32", "float64": "F64"}
_COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}
# The safetensors dtypes the NumPy API reads (C64 only in recent versions).
_READABLE = {code: name for name, code in _STORABLE.items()} | {"C64": "complex64"}
# bfloat16 (ml_dtypes' NumPy dtype), which safetensors' NumPy API lacks: its bits go
# through that API as uint16, and the file's header names them BF16 (_bfloat16_header).
_BFLOAT16, _BF16, _U16 = "bfloat16", "BF16", "U16"


# -- save -------------------------------------------------------------------

def save(obj, path, protocol: int = 4, **configs) -> None:
    """Saves ``obj`` to ``path`` (a file name or a binary file object) as a
    safetensors file (Paddle's ``paddle.save``; never a pickle).

    ``obj`` is a Tensor, a NumPy array, a number, string, bool or None, or a
    dict (keys: strs, numbers, bools, None or tuples of these), list or tuple of these, nested as deep as you like: a
    Layer's or optimizer's ``state_dict()``, or a checkpoint dict holding
    both. Missing parent directories are created; the file is replaced only
    once it is completely written. ``protocol`` is Paddle's pickle protocol,
    checked (an int from 2 to 4) for compatibility; the configs Paddle takes
    (``use_binary_format``, ``pickle_protocol``) are accepted, ``use_binary_format=True``
    with a Tensor only (NotImplementedError otherwise, as Paddle). See
    :mod:`eager.serialization` for the format and the differences from
    Paddle.

    >>> net = eager.nn.Linear(4, 2)
    >>> eager.save(net.state_dict(), "linear.pdparams")
    >>> eager.save(eager.to_tensor([1.0, 2.0]), "runs/tensor.pdtensor")  # makes runs/
    """
    who = "eager.save"
    _write_saved(who, *_encode_saved(who, obj, path, protocol, configs))


def _encode_saved(who: str, obj, path, protocol, configs: dict) -> tuple:
    """Checks the arguments and turns ``obj`` into its arrays and header
    (raising before anything is written): what :func:`_write_saved` takes."""
    _check_protocol(who, "protocol", protocol)
    _check_save_configs(who, configs)
    if configs.get("use_binary_format") and not isinstance(obj, Tensor):
        # Paddle's binary format holds one tensor (its LoDTensor file); other objects are refused
        raise NotImplementedError(f"{who}: use_binary_format=True saves a single Tensor (as Paddle's), got "
                                  f"{type(obj).__name__}; save other objects without it")
    safetensors_numpy = _import_safetensors(who)
    target = _save_target(who, path)
    encoder = _Encoder(who)
    try:
        structure = encoder.node(obj, "obj", ())
    except RecursionError:
        raise ValueError(f"{who}: argument 'obj' is nested too deeply to save") from None
    metadata = {_FORMAT_KEY: _FORMAT_VERSION,
                _STRUCTURE_KEY: json.dumps(structure, allow_nan=False, separators=(",", ":"))}
    return target, encoder, metadata, safetensors_numpy


def _write_saved(who: str, target, encoder, metadata: dict, safetensors_numpy) -> None:
    """Writes what :func:`_encode_saved` made to the file name or file object."""
    if isinstance(target, str) and not encoder.bfloat16_entries:
        _write_file(who, target, encoder.arrays, metadata, safetensors_numpy)
        return
    data = safetensors_numpy.save(encoder.arrays, metadata)
    if encoder.bfloat16_entries:
        data = _bfloat16_header(data, encoder.bfloat16_entries, _U16, _BF16)
    if isinstance(target, str):
        _write_file(who, target, data, metadata, safetensors_numpy)
        return
    try:
        target.write(data)
    except TypeError:  # Paddle refuses such a file with ValueError: ArgumentKindError is both
        raise ArgumentKindError(f"{who}: argument 'path' is a file object that does not take bytes (a text-mode "
                        f"file?); open it in binary mode, e.g. open(name, 'wb')") from None


_async_saves = []  # [thread, [error or None]] of each async_save not yet waited for
_async_lock = threading.Lock()


def async_save(obj, path, protocol: int = 4, sync_other_task: bool = False, **configs) -> None:
    """Paddle's ``paddle.async_save``: :func:`save` in a background thread.

    ``obj`` is a dict (a state dict, a checkpoint) or a Tensor, as Paddle
    allows (TypeError otherwise). Its values are copied before this returns, so
    training may go on changing the tensors: the file holds the state at the
    call (Paddle writes the live tensors, whatever they hold by then). Errors
    in the arguments or the object raise here; an error while writing is raised
    by :func:`clear_async_save_task_queue`. ``sync_other_task=True`` first waits
    for the saves still running. Paddle's extra configs are accepted with a
    warning, and not used (as Paddle).

    >>> net = eager.nn.Linear(4, 2)
    >>> eager.async_save(net.state_dict(), "linear.pdparams")
    >>> eager.clear_async_save_task_queue()  # waits until the file is written
    """
    who = "eager.async_save"
    if not isinstance(obj, (dict, Tensor)):
        raise TypeError(f"{who}: argument 'obj' expected a dict or a Tensor (as Paddle's async_save), got "
                        f"{type(obj).__name__}; use eager.save for other objects")
    sync_other_task = to_bool(sync_other_task, who, "sync_other_task")
    if configs:
        warnings.warn(f"{who}: configs {sorted(configs)} are not used by async_save (as in Paddle)",
                      stacklevel=2)
    target, encoder, metadata, safetensors_numpy = _encode_saved(who, obj, path, protocol, {})
    # Copies: a tensor's array may share the live buffer that the next step updates in place.
    encoder.arrays = {entry: np.array(array, copy=True) for entry, array in encoder.arrays.items()}
    if sync_other_task:
        clear_async_save_task_queue()
    error = [None]

    def write():
        try:
            _write_saved(who, target, encoder, metadata, safetensors_numpy)
        except BaseException as caught:  # handed to clear_async_save_task_queue
            error[0] = caught

    thread = threading.Thread(target=write, name="eager.async_save", daemon=False)
    with _async_lock:
        _async_saves.append((thread, error))
    thread.start()


def clear_async_save_task_queue() -> None:
    """Waits until every :func:`async_save` has written its file (Paddle's
    ``paddle.clear_async_save_task_queue``); the first error a save met while
    writing is raised then (the other saves still finish)."""
    with _async_lock:
        pending = list(_async_saves)
        _async_saves.clear()
    failure = None
    for thread, error in pending:
        thread.join()
        if error[0] is not None and failure is None:
            failure = error[0]
    if failure is not None:
        raise failure


def _check_protocol(who: str, argument: str, protocol) -> None:
    if isinstance(protocol, bool) or not isinstance(protocol, numbers.Integral):
        raise ArgumentKindError(f"{who}: argument {argument!r} expected an int (Paddle's pickle protocol, 2 to 4), "
                        f"got {protocol!r}")
    if not 2 <= protocol <= 4:
        raise ValueError(f"{who}: argument {argument!r} expected 1 < protocol < 5 (as Paddle), got "
                         f"{protocol}; it does not change eager's file, which is never a pickle")


def _check_save_configs(who: str, configs: dict) -> None:
    for key, value in configs.items():
        if key == "use_binary_format":
            if not isinstance(value, bool):
                raise TypeError(f"{who}: config 'use_binary_format' expected a bool, got {value!r}")
        elif key == "pickle_protocol":
            if value is not None:
                _check_protocol(who, "pickle_protocol", value)
        else:
            raise ValueError(f"{who}: the config {key!r} is not supported; Paddle's save takes "
                             f"'use_binary_format' and 'pickle_protocol'")


def _import_safetensors(who: str):
    try:
        import safetensors.numpy as safetensors_numpy
    except ImportError:
        raise ImportError(f"{who} needs the safetensors package, which is not installed: "
                          f"pip install safetensors (or pip install 'eager-phi[save]')") from None
    return safetensors_numpy


def _save_target(who: str, path):
    """The file name to write (after checking it) or the binary file object."""
    if hasattr(path, "write") and not isinstance(path, (str, bytes, os.PathLike)):
        return path
    if not isinstance(path, (str, bytes, os.PathLike)):  # Paddle: ValueError; ArgumentKindError is both
        raise ArgumentKindError(f"{who}: argument 'path' expected a file name (str or os.PathLike) or a binary "
                        f"file object, got {type(path).__name__}")
    path = os.fsdecode(os.fspath(path))
    if os.path.basename(path) == "":
        raise ValueError(f"{who}: argument 'path' must be a file name (dirname/filename), got {path!r}, "
                         f"whose file name is empty")
    if os.path.isdir(path):
        raise IsADirectoryError(f"{who}: {path!r} is a directory; give the name of a file to write")
    return path


def _bfloat16_header(data: bytes, entries, old: str, new: str) -> bytes:
    """The safetensors file ``data`` with the header's dtype of ``entries``
    changed from ``old`` to ``new`` (U16 <-> BF16: the same two bytes per
    element). The data offsets count from the header's end, so the arrays'
    bytes stay as they are; the header is padded to 8 bytes as safetensors does."""
    length = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + length].decode("utf-8"))
    for entry in entries:
        if header[entry]["dtype"] == old:
            header[entry]["dtype"] = new
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)
    return len(raw).to_bytes(8, "little") + raw + data[8 + length:]


def _write_file(who: str, path: str, arrays, metadata: dict, safetensors_numpy) -> None:
    """Writes under a temporary name in the target's directory, then renames,
    so that a failure leaves an existing file as it was. ``arrays``: the dict
    of arrays to store, or the file's bytes already made."""
    directory, name = os.path.split(path)
    try:
        if directory:
            os.makedirs(directory, exist_ok=True)  # as Paddle's save does
    except OSError as error:
        raise type(error)(f"{who}: cannot create the directory {directory!r} for {path!r}: "
                          f"{error.strerror or error}") from None
    temporary = os.path.join(directory, f".{name}.{secrets.token_hex(6)}.tmp")
    try:
        if isinstance(arrays, bytes):
            with open(temporary, "wb") as file:
                file.write(arrays)
        else:
            safetensors_numpy.save_file(arrays, temporary, metadata)
        os.replace(temporary, path)
    except OSError as error:
        raise type(error)(f"{who}: cannot write {path!r}: {error.strerror or error}") from None
    except Exception as error:  # safetensors reports I/O trouble as its own error
        raise OSError(f"{who}: cannot write {path!r}: {error}") from None
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


class _Encoder:
    """Turns the object into a JSON node tree and a dict of arrays to store,
    checking every part; raises before anything is written."""

    def __init__(self, who: str):
        self.who = who
        self.arrays = {}
        self.bfloat16_entries = []  # stored as uint16 bits, named BF16 in the file

    def node(self, value, where: str, parts: tuple, active=frozenset()):
        # NumPy scalars first: np.float64 and np.bool_ would pass for float / bool.
        if isinstance(value, np.str_):
            return str(value)
        if isinstance(value, np.generic):
            return self._scalar(value, where)
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, numbers.Integral):
            return int(value)
        if isinstance(value, numbers.Real) and not isinstance(value, numbers.Rational):
            return _float_node(float(value))
        if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
            return {"complex": repr(complex(value))}
        if isinstance(value, Tensor):
            node = self._array(value.numpy(), where, parts, "tensor")
            if value._name is not None:  # only a name it was given: reading .name would make one
                node["name"] = value._name
            return node
        if isinstance(value, np.ndarray):
            return self._array(value, where, parts, "ndarray")
        if isinstance(value, (collections.abc.Mapping, list, tuple)):
            if id(value) in active:
                raise ValueError(f"{self.who}: {where} contains itself; a saved object must be a tree")
            active = active | {id(value)}
            if isinstance(value, collections.abc.Mapping):
                items = []
                for key, item in value.items():
                    key_node = key if isinstance(key, str) else self._key(key, where)
                    items.append([key_node, self.node(item, f"{where}[{key!r}]", parts + (str(key),), active)])
                return {"odict" if isinstance(value, collections.OrderedDict) else "dict": items}
            tag = "tuple" if isinstance(value, tuple) else "list"
            return {tag: [self.node(item, f"{where}[{i}]", parts + (str(i),), active)
                          for i, item in enumerate(value)]}
        kind = type(value).__name__
        if callable(getattr(value, "state_dict", None)):  # Paddle: ValueError for a Layer; this is both
            raise ArgumentKindError(f"{self.who}: {where} is a {kind} object, which eager does not save (nor does "
                            f"Paddle); save its state: eager.save(obj.state_dict(), path), and restore it "
                            f"with set_state_dict(eager.load(path))")
        raise TypeError(f"{self.who}: {where} has the type {kind}, which eager cannot save; it saves "
                        f"Tensors, NumPy arrays and scalars, numbers, strings, bools, None, and dicts, "
                        f"lists and tuples of these (data only: eager never pickles)")

    def _key(self, key, where: str):
        """The node of a dict key that is not a str: a number, bool, None, NumPy
        scalar or a tuple of these (paddle.save's pickles keep such keys too)."""
        def plain(k):
            return k is None or isinstance(k, (numbers.Number, np.generic)) and not isinstance(k, np.ndarray) \
                or isinstance(k, str) or isinstance(k, tuple) and all(plain(part) for part in k)
        if not plain(key):
            raise TypeError(f"{self.who}: {where} has the key {key!r} ({type(key).__name__}); eager saves dict "
                            f"keys that are strs, numbers, bools, None or tuples of these")
        return self.node(key, f"{where}'s key {key!r}", ())

    def _scalar(self, value, where: str):
        name = value.dtype.name
        if name not in _STORABLE and name not in _COMPLEX_PARTS:
            raise TypeError(f"{self.who}: {where} is a NumPy {name} scalar, which eager cannot save; "
                            f"expected bool, an int, float16/32/64 or complex64/128")
        return {"scalar": name, "value": self.node(value.item(), where, ())}

    def _array(self, array: np.ndarray, where: str, parts: tuple, kind: str) -> dict:
        dtype = array.dtype.newbyteorder("=")  # safetensors is little-endian: stored natively
        name = dtype.name
        if name == _BFLOAT16 and dtype.kind == "V":  # ml_dtypes' bfloat16: its bits as uint16
            entry = self._entry_name(parts)
            # np.asarray keeps a 0-d array 0-d (np.ascontiguousarray makes it 1-d)
            self.arrays[entry] = np.asarray(array, order="C").view(np.uint16)
            self.bfloat16_entries.append(entry)
            return {"tensor": entry, "dtype": name, "shape": list(array.shape), "kind": kind}
        if name not in _STORABLE and name not in _COMPLEX_PARTS:
            raise TypeError(f"{self.who}: {where} is an array of dtype {array.dtype}, which eager cannot "
                            f"save; expected bool, an int or uint type, float16/32/64 or complex64/128")
        stored = np.asarray(array, dtype=dtype, order="C")  # native order and C order, as stored
        if name in _COMPLEX_PARTS:  # safetensors has no complex128 (complex64 only lately)
            stored = stored[..., None].view(_COMPLEX_PARTS[name])
        entry = self._entry_name(parts)
        self.arrays[entry] = stored
        return {"tensor": entry, "dtype": name, "shape": list(array.shape), "kind": kind}

    def _entry_name(self, parts: tuple) -> str:
        base = ".".join(parts) or "tensor"
        entry, count = base, 1
        # "__metadata__" is the safetensors header's own key: an entry so named would be
        # written beside it and make the file unreadable ({"__metadata__": tensor}).
        while entry in self.arrays or entry == _HEADER_METADATA:
            count += 1
            entry = f"{base}#{count}"
        return entry


def _float_node(value: float):
    return value if math.isfinite(value) else {"float": repr(value)}


# -- load -------------------------------------------------------------------

def load(path, **configs):
    """Loads what :func:`eager.save` or Paddle's ``paddle.save`` wrote to
    ``path`` (a file name or a binary file object; Paddle's ``paddle.load``).

    Tensors (and NumPy arrays) come back as Tensors with ``stop_gradient=True``
    on the CPU, keeping their dtype, shape and name; ``return_numpy=True``
    gives NumPy arrays instead. Dicts, OrderedDicts, lists, tuples, numbers,
    strings, bools and None come back as they were saved. With
    ``keep_name_table=True`` a dict gets Paddle's ``"StructuredToParameterName@@"``
    entry: key -> the saved tensor's name. A path prefix that :func:`eager.jit.save`
    wrote (``path + ".pdmodel"`` and ``path + ".pdiparams"``) loads as its
    parameters and buffers, structured name -> NumPy array, as Paddle's load
    of a ``paddle.jit.save`` prefix. A safetensors file written by
    another program loads as a dict of name -> Tensor.

    A pickle that Paddle's ``paddle.save`` wrote (``.pdparams``, ``.pdopt``,
    a saved Tensor) loads as ``paddle.load`` gives it: Tensors named as in
    Paddle, the rest as saved. It is read by a restricted unpickler that runs
    nothing from the file: a pickle naming any other global (a function,
    a class), an object array or a persistent id raises a ValueError naming
    it, as does a ``torch.save`` archive. See :mod:`eager.serialization`.

    >>> eager.save({"w": eager.to_tensor([[1.0, 2.0]]), "step": 3}, "state.pdparams")
    >>> state = eager.load("state.pdparams")
    >>> state["w"].numpy(), state["step"]
    (array([[1., 2.]], dtype=float32), 3)
    >>> eager.load("state.pdparams", return_numpy=True)["w"]
    array([[1., 2.]], dtype=float32)
    """
    who = "eager.load"
    return_numpy, keep_name_table = _check_load_configs(who, configs)
    source = _load_source(who, path)
    if isinstance(source, str) and source != os.fsdecode(os.fspath(path)):
        return_numpy = True  # a paddle.jit.save prefix: Paddle gives its parameters as NumPy arrays
    label = repr(source) if isinstance(source, str) else "the file object"
    if isinstance(source, str):
        try:
            stream = open(source, "rb")
        except OSError as error:
            raise type(error)(f"{who}: cannot read {source!r}: {error.strerror or error}") from None
        with stream:
            try:
                header, arrays = _read(who, label, stream, source)
            except _PickleFile:
                stream.seek(0)
                return _load_pickle(who, label, stream, return_numpy, keep_name_table, whole_file=True)
    else:
        start = _tell(source)
        try:
            header, arrays = _read(who, label, source)
        except _PickleFile:
            if start is None:
                raise ValueError(f"{who}: {label} holds a pickle (as paddle.save writes), which eager reads "
                                 f"from a seekable file object only; give the file name or an io.BytesIO") \
                    from None
            source.seek(start)
            return _load_pickle(who, label, source, return_numpy, keep_name_table, whole_file=False)
    metadata = header.get("__metadata__") or {}
    if _STRUCTURE_KEY not in metadata:  # a safetensors file from elsewhere: name -> array
        order = sorted((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"])
        return {key: _as_result(arrays[key], None, return_numpy) for key in order}
    version = metadata.get(_FORMAT_KEY)
    if version != _FORMAT_VERSION:
        raise ValueError(f"{who}: {label} was written by a newer eager (format {version!r}); this one reads "
                         f"format {_FORMAT_VERSION!r}")
    decoder = _Decoder(who, label, arrays, return_numpy)
    try:
        structure = json.loads(metadata[_STRUCTURE_KEY])
        result = decoder.value(structure)
    except RecursionError:
        raise ValueError(f"{who}: {label} is corrupted: its structure is nested too deeply") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{who}: {label} is corrupted: its structure is not valid JSON ({error})") from None
    except ValueError as error:
        if str(error).startswith(who):
            raise
        raise ValueError(f"{who}: {label} is corrupted: its structure cannot be read ({error})") from None
    if keep_name_table and isinstance(result, dict):
        result[_NAME_TABLE_KEY] = decoder.top_names
    return result


def _check_load_configs(who: str, configs: dict) -> tuple:
    return_numpy, keep_name_table = False, False
    for key, value in configs.items():
        if key == "return_numpy":
            if not isinstance(value, bool):
                raise TypeError(f"{who}: config 'return_numpy' expected a bool, got {value!r}")
            return_numpy = value
        elif key == "keep_name_table":
            if value is not None and not isinstance(value, bool):
                raise TypeError(f"{who}: config 'keep_name_table' expected a bool, got {value!r}")
            keep_name_table = bool(value)
        elif key in ("model_filename", "params_filename"):
            if value is not None:
                raise ValueError(f"{who}: the config {key!r} selects a file of Paddle's inference-model "
                                 f"formats (paddle.jit.save, save_inference_model), which eager does not "
                                 f"read; eager.load reads one file written by eager.save or paddle.save")
        else:
            raise ValueError(f"{who}: the config {key!r} is not supported; Paddle's load takes "
                             f"'return_numpy', 'keep_name_table', 'model_filename' and 'params_filename'")
    return return_numpy, keep_name_table


def _load_source(who: str, path):
    if hasattr(path, "read") and not isinstance(path, (str, bytes, os.PathLike)):
        return path
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"{who}: argument 'path' expected a file name (str or os.PathLike) or a binary "
                        f"file object, got {type(path).__name__}")
    path = os.fsdecode(os.fspath(path))
    if os.path.isdir(path):
        raise IsADirectoryError(f"{who}: {path!r} is a directory; eager.load reads one file written by "
                                f"eager.save or paddle.save (Paddle's inference-model directories are not "
                                f"supported)")
    if not os.path.exists(path) and os.path.isfile(path + _JIT_PARAMS) and os.path.isfile(path + _JIT_MODEL):
        return path + _JIT_PARAMS  # the path prefix eager.jit.save wrote: its parameters and buffers
    if not os.path.exists(path):
        hint = next((f"; did you mean {path + suffix!r}? give the full file name"
                     for suffix in (".pdparams", ".pdopt", ".pdtensor", ".safetensors")
                     if os.path.isfile(path + suffix)), "")
        raise ModelNotFoundError(f"{who}: there is no file {path!r}{hint}")
    return path


def _read(who: str, label: str, stream, path=None):
    """(header dict, entry name -> writable array) of the safetensors file that
    starts at the stream's position (the file ``path`` when given); checks the
    header before safetensors reads the arrays."""
    size = os.fstat(stream.fileno()).st_size if path is not None else None
    def corrupted(what):
        return ValueError(f"{who}: {label} is not a safetensors file as eager.save writes, or it is "
                          f"corrupted: {what}")

    def truncated(what):
        return ValueError(f"{who}: {label} is truncated ({what}); was the save or copy interrupted?")

    prefix = _read_bytes(who, stream, 8)
    if not prefix:
        raise ValueError(f"{who}: {label} is empty")
    if len(prefix) < 8:
        # "\x80\x04" also starts a safetensors file whose header is 0x480 bytes: so
        # short a file is a pickle only if it is a whole one (ends with STOP, ".").
        if prefix[-1:] == b".":
            _refuse_foreign_formats(who, label, prefix)
        raise truncated(f"{len(prefix)} bytes, shorter than the 8-byte header length")
    length = int.from_bytes(prefix, "little")
    raw = b""
    # A safetensors header starts with "{". Only when this is no such header is
    # the file checked for another format's magic bytes: a header length of
    # 0x280 reads "\x80\x02" like a pickle's start.
    if length <= _MAX_HEADER and (size is None or length <= size - 8 or _looks_like_json(stream)):
        raw = _read_bytes(who, stream, length)
        if raw[:1] in (b"{", b""):
            if len(raw) < length:
                raise truncated(f"it ends inside the {length}-byte header")
        else:
            _refuse_foreign_formats(who, label, prefix)
            raise corrupted(f"the {length}-byte header does not start with '{{'")
    else:
        _refuse_foreign_formats(who, label, prefix)
        raise corrupted(f"its first 8 bytes give a header of {length} bytes")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise corrupted(f"the header is not JSON ({error})") from None
    if not isinstance(header, dict):
        raise corrupted("the header is not a JSON object")
    data_length = 0
    bfloat16_entries = []
    for key, info in header.items():
        if key == "__metadata__":
            if not isinstance(info, dict) or not all(isinstance(v, str) for v in info.values()):
                raise corrupted("'__metadata__' is not a dict of strings")
            continue
        offsets = info.get("data_offsets") if isinstance(info, dict) else None
        if not (isinstance(offsets, list) and len(offsets) == 2
                and all(isinstance(o, int) and not isinstance(o, bool) and o >= 0 for o in offsets)):
            raise corrupted(f"the header's entry {key!r} has no valid 'data_offsets'")
        if info.get("dtype") == _BF16:
            bfloat16_entries.append(key)
        elif info.get("dtype") not in _READABLE:
            raise ValueError(f"{who}: {label} holds the entry {key!r} of dtype {info.get('dtype')!r}, which "
                             f"NumPy (and so eager) has no type for")
        data_length = max(data_length, offsets[1])
    if size is not None and size != 8 + length + data_length:
        if size < 8 + length + data_length:
            raise truncated(f"{size} bytes where its header describes {8 + length + data_length}")
        raise corrupted(f"{size - 8 - length - data_length} bytes follow the data its header describes")
    if bfloat16_entries:
        bfloat16 = _bfloat16_dtype(who, label)
    safetensors_numpy = _import_safetensors(who)  # only here: Paddle's pickles load without it
    try:
        if path is not None and not bfloat16_entries:
            arrays = safetensors_numpy.load_file(path)  # memory-mapped: one copy fewer
        elif bfloat16_entries:  # read through the NumPy API as uint16 (the same bits)
            data = _read_bytes(who, stream, data_length)
            if len(data) < data_length:
                raise truncated(f"the data ends {data_length - len(data)} bytes early")
            arrays = safetensors_numpy.load(_bfloat16_header(prefix + raw + data, bfloat16_entries, _BF16, _U16))
            for key in bfloat16_entries:
                arrays[key] = arrays[key].view(bfloat16)
        else:
            data = _read_bytes(who, stream, data_length)
            if len(data) < data_length:
                raise truncated(f"the data ends {data_length - len(data)} bytes early")
            arrays = safetensors_numpy.load(prefix + raw + data)
    except ValueError as error:
        if str(error).startswith(who):
            raise
        raise corrupted(str(error)) from None
    except Exception as error:  # safetensors' checks of the offsets, dtypes and shapes
        raise corrupted(str(error)) from None
    return header, {k: a if a.flags.writeable else a.copy() for k, a in arrays.items()}


def _bfloat16_dtype(who: str, label: str) -> np.dtype:
    try:
        return bfloat16_numpy_dtype()
    except BFloat16Unavailable as error:
        raise BFloat16Unavailable(f"{who}: {label} holds bfloat16 (BF16) arrays: {error}") from None


def _read_bytes(who: str, stream, count: int) -> bytes:
    chunks, left = [], count
    while left > 0:
        chunk = stream.read(min(left, 1 << 28))  # in pieces: a garbage length must not allocate
        if isinstance(chunk, str):
            raise TypeError(f"{who}: argument 'path' is a text-mode file object; open it in binary mode, "
                            f"e.g. open(name, 'rb')")
        if not chunk:
            break
        chunks.append(bytes(chunk))
        left -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _looks_like_json(stream) -> bool:
    """Whether the bytes after the length could start a JSON object (a header cut
    short, or nothing at all after the length)."""
    position = stream.tell()
    start = stream.read(64)
    stream.seek(position)
    return start[:1] in (b"{", b"")


def _refuse_foreign_formats(who: str, label: str, prefix: bytes) -> None:
    """Raises for a file of another format; _PickleFile for a pickle, which
    load() then reads as Paddle's checkpoint."""
    if prefix[:1] == b"\x80" and prefix[1:2] and 2 <= prefix[1] <= 5:
        raise _PickleFile
    if prefix[:4] == b"PK\x03\x04":
        raise ValueError(
            f"{who}: {label} is a zip archive (a torch.save checkpoint or a NumPy .npz?), not a file that "
            f"paddle.save or eager.save writes; eager does not unpickle torch's checkpoints (their pickles "
            f"name torch's classes). Load it where you trust it and save the arrays with eager.save")
    if prefix[:6] == b"\x93NUMPY":
        raise ValueError(f"{who}: {label} is a NumPy .npy file; read it with numpy.load(path) (eager.load "
                         f"reads the files written by eager.save and paddle.save)")


class _Decoder:
    """Rebuilds the object from the JSON node tree, checking every node."""

    def __init__(self, who: str, label: str, arrays: dict, return_numpy: bool):
        self.who, self.label, self.arrays, self.return_numpy = who, label, arrays, return_numpy
        self.top_names = {}
        self.used = set()  # entries already handed out: one named twice is copied

    def corrupted(self, what: str) -> ValueError:
        return ValueError(f"{self.who}: {self.label} is corrupted: its structure {what}")

    def value(self, node, top: bool = True):
        if node is None or isinstance(node, (bool, str, int, float)):
            return node
        if isinstance(node, dict) and len(node) == 1:
            (tag, body), = node.items()
            if tag in ("list", "tuple") and isinstance(body, list):
                items = [self.value(item, False) for item in body]
                return tuple(items) if tag == "tuple" else items
            if tag in ("dict", "odict") and isinstance(body, list):
                out = collections.OrderedDict() if tag == "odict" else {}
                for pair in body:
                    if not (isinstance(pair, list) and len(pair) == 2):
                        raise self.corrupted(f"has a malformed dict entry {pair!r:.80}")
                    key = pair[0] if isinstance(pair[0], str) else self._key(pair[0])
                    out[key] = self.value(pair[1], False)
                    if top and isinstance(pair[1], dict) and "tensor" in pair[1] \
                            and isinstance(pair[1].get("name"), str):
                        self.top_names[pair[0]] = pair[1]["name"]
                return out
            if tag == "float" and body in ("nan", "inf", "-inf"):
                return float(body)
            if tag == "complex" and isinstance(body, str):
                try:
                    return complex(body)
                except ValueError:
                    pass
        if isinstance(node, dict) and "scalar" in node:
            return self._scalar(node)
        if isinstance(node, dict) and "tensor" in node:
            return self._array(node)
        raise self.corrupted(f"has an unknown node {node!r:.80}")

    def _key(self, node):
        """A dict key saved as a node (a number, bool, None, a tuple of these)."""
        if isinstance(node, dict) and "tensor" in node:
            raise self.corrupted(f"has an array as a dict key")
        key = self.value(node, False)
        try:
            hash(key)
        except TypeError:
            raise self.corrupted(f"has the unhashable dict key {node!r:.80}") from None
        return key

    def _scalar(self, node: dict):
        name = node.get("scalar")
        if name not in _STORABLE and name not in _COMPLEX_PARTS:
            raise self.corrupted(f"has a scalar of unknown dtype {name!r}")
        value = self.value(node.get("value"), False)
        if not isinstance(value, (bool, int, float, complex)):
            raise self.corrupted(f"has a {name} scalar whose value is {value!r:.80}")
        try:
            return np.dtype(name).type(value)
        except (OverflowError, TypeError, ValueError):
            raise self.corrupted(f"has a {name} scalar whose value is {value!r:.80}") from None

    def _array(self, node: dict):
        entry, name, shape = node.get("tensor"), node.get("dtype"), node.get("shape")
        array = self.arrays.get(entry) if isinstance(entry, str) else None
        if array is None:
            raise self.corrupted(f"names the array {entry!r:.80}, which the file does not hold")
        if not (isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape)):
            raise self.corrupted(f"gives {entry!r} the shape {shape!r:.80}")
        if name in _COMPLEX_PARTS:
            if array.dtype.name != _COMPLEX_PARTS[name] or list(array.shape) != shape + [2]:
                raise self.corrupted(_mismatch(entry, name, shape, array))
            array = np.array(array, order="C", copy=None).view(name)[..., 0]
        elif (name not in _STORABLE and name != _BFLOAT16) or array.dtype.name != name or list(array.shape) != shape:
            raise self.corrupted(_mismatch(entry, name, shape, array))
        if entry in self.used:
            array = array.copy()
        self.used.add(entry)
        tensor_name = node.get("name")
        if tensor_name is not None and not isinstance(tensor_name, str):
            raise self.corrupted(f"gives {entry!r} the name {tensor_name!r:.80}")
        return _as_result(array, tensor_name, self.return_numpy)


# -- Paddle's pickles ---------------------------------------------------------

class _PickleFile(Exception):
    """Raised by _read when the file is a pickle (what paddle.save writes)."""


def _tell(stream):
    try:
        return stream.tell() if stream.seekable() else None
    except (AttributeError, OSError, ValueError):
        return None


def _load_pickle(who: str, label: str, stream, return_numpy: bool, keep_name_table: bool, whole_file: bool):
    """What paddle.load gives for the pickle at the stream's position, read by
    the restricted unpickler (eager.restricted_pickle): nothing in the file is
    run, and a global that paddle.save does not write is refused."""
    try:
        obj = RestrictedUnpickler(stream, "latin1").load()  # latin1: as paddle.load (Python 2's str)
        check_arrays(obj)
    except RefusedGlobal as error:
        raise ValueError(
            f"{who}: {label} is a pickle that refers to {error}, which Paddle's paddle.save does not write; "
            f"refusing to unpickle it (unpickling would run code chosen by whoever made the file). eager "
            f"reads the pickles of paddle.save: Tensors, NumPy arrays of numbers, Python numbers, strings, "
            f"and dicts, lists and tuples of these (a Layer's or optimizer's state_dict)") from None
    except RecursionError:
        raise ValueError(f"{who}: {label} is a pickle nested too deeply to read") from None
    except Exception as error:  # truncation, bad opcodes, NumPy's checks of an array's state
        raise ValueError(f"{who}: {label} is a pickle that cannot be read, truncated or corrupted? "
                         f"({type(error).__name__}: {error})") from None
    if whole_file and stream.read(1):
        raise ValueError(f"{who}: {label} holds more data after its pickle; paddle.save writes one pickle per "
                         f"file (a torch.save file in torch's legacy format? eager does not read those)")
    try:
        return _paddle_result(who, label, obj, return_numpy, keep_name_table)
    except RecursionError:
        raise ValueError(f"{who}: {label} is a pickle nested too deeply (or containing itself) to "
                         f"read") from None


def _paddle_result(who: str, label: str, obj, return_numpy: bool, keep_name_table: bool):
    """paddle.load's result from the unpickled object: a state dict (what
    paddle.save writes for a dict of Tensors) has its top-level arrays named
    by its "StructuredToParameterName@@" table; anything else has its
    (name, array) tuples, or when it has none its arrays, made Tensors."""
    if isinstance(obj, dict):
        obj = _join_big_params(who, label, obj)
        if _NAME_TABLE_KEY in obj:
            table = obj[_NAME_TABLE_KEY]
            if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                      for k, v in table.items()):
                raise ValueError(f"{who}: {label} is corrupted: its {_NAME_TABLE_KEY!r} entry is not a dict "
                                 f"of str -> str")
            for key, name in table.items():
                if key not in obj:
                    raise ValueError(f"{who}: {label} is corrupted: its {_NAME_TABLE_KEY!r} names {key!r}, "
                                     f"which it does not hold")
                if isinstance(obj[key], np.ndarray):
                    obj[key] = _paddle_array(who, label, obj[key], name, return_numpy)
            if not keep_name_table:
                del obj[_NAME_TABLE_KEY]
            return obj
    if _holds(obj, _is_named_array):
        return _converted(obj, _is_named_array,
                          lambda pair: _paddle_array(who, label, pair[1], pair[0], return_numpy))
    return _converted(obj, lambda item: isinstance(item, np.ndarray),
                      lambda array: _paddle_array(who, label, array, None, return_numpy))


def _is_named_array(item) -> bool:
    """How paddle.save writes a Tensor: the tuple (name, array)."""
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) \
        and isinstance(item[1], np.ndarray)


_WALKED = (dict, collections.OrderedDict, list, tuple)  # the containers paddle.load looks into


def _holds(obj, condition) -> bool:
    if condition(obj):
        return True
    if type(obj) in _WALKED:
        return any(_holds(item, condition) for item in (obj.values() if isinstance(obj, dict) else obj))
    return False


def _converted(obj, condition, convert):
    """``obj`` with every part that meets ``condition`` converted: dicts and
    lists in place (as paddle.load), tuples rebuilt."""
    if condition(obj):
        return convert(obj)
    if type(obj) in (dict, collections.OrderedDict):
        for key, item in obj.items():
            obj[key] = _converted(item, condition, convert)
    elif type(obj) is list:
        obj[:] = [_converted(item, condition, convert) for item in obj]
    elif type(obj) is tuple:
        return tuple(_converted(item, condition, convert) for item in obj)
    return obj


def _paddle_array(who: str, label: str, array: np.ndarray, name, return_numpy: bool):
    """A loaded array as paddle.load gives it: a Tensor named ``name``, or the
    array with return_numpy. Paddle stores a bfloat16 Tensor's bits as uint16
    and makes a uint16 array a bfloat16 Tensor again."""
    if not return_numpy and array.dtype == np.uint16:
        array = array.view(_bfloat16_dtype(who, label))
    return _as_result(array, name, return_numpy)


def _join_big_params(who: str, label: str, obj: dict) -> dict:
    """The state dict with the arrays paddle.save split into slices (a
    protocol 2 or 3 pickle holds at most 4 GB per object) joined again."""
    info = obj.get(_BIG_PARAMS_KEY)
    if info is None:
        return obj

    def corrupted(what):
        return ValueError(f"{who}: {label} is corrupted: its {_BIG_PARAMS_KEY!r} entry {what}")

    if not isinstance(info, dict):
        raise corrupted(f"is a {type(info).__name__}, not a dict")
    joined, used = {}, []
    for key, spec in info.items():
        slices = spec.get("slices") if isinstance(spec, dict) else None
        shape = spec.get("OriginShape") if isinstance(spec, dict) else None
        if not (isinstance(slices, list) and slices and all(isinstance(part, str) for part in slices)
                and isinstance(shape, (tuple, list))
                and all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0 for d in shape)):
            raise corrupted(f"gives {key!r} no list of slices and shape: {spec!r:.120}")
        parts = [obj.get(part) for part in slices]
        if not all(isinstance(part, np.ndarray) and part.ndim == 1 and part.dtype == parts[0].dtype
                   for part in parts):
            raise corrupted(f"names slices of {key!r} that are not 1-D arrays of one dtype")
        whole = np.concatenate(parts)
        if whole.size != math.prod(int(d) for d in shape):
            raise corrupted(f"joins {whole.size} elements for {key!r}, whose shape is {list(shape)}")
        joined[key] = whole.reshape(tuple(int(d) for d in shape))
        used += slices
    for part in used:
        obj.pop(part, None)
    del obj[_BIG_PARAMS_KEY]
    obj.update(joined)
    return obj


def _mismatch(entry: str, name, shape, array: np.ndarray) -> str:
    return f"says {entry!r} is {name}{shape}, stored as {array.dtype}{list(array.shape)}"


def _as_result(array: np.ndarray, name, return_numpy: bool):
    """A Tensor wrapping the loaded array (a conversion point), or the array
    itself with return_numpy or when eager's Tensors lack its dtype."""
    if return_numpy:
        return array
    try:
        DataType.from_numpy(array.dtype)
    except TypeError:
        return array  # uint16/32/64: no phi dtype
    tensor = Tensor(DenseTensor(array))
    if name is not None:
        tensor.name = name
    return tensor
