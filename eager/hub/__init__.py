"""Paddle's ``paddle.hub``: models published by a ``hubconf.py``.

A hub repository is a directory whose ``hubconf.py`` defines entrypoints:
public callables (``def resnet18(pretrained=False, **kwargs)``) and,
optionally, ``dependencies``, a list of modules they need. :func:`list` names
the entrypoints, :func:`help` prints one's docstring, :func:`load` calls one.
This build reads local directories only (``source='local'``):
``source='github'`` and ``'gitee'`` raise RuntimeError, as eager never downloads.

>>> eager.hub.list("path/to/repo", source="local")            # doctest: +SKIP
['resnet18']
>>> model = eager.hub.load("path/to/repo", "resnet18", source="local", pretrained=False)  # doctest: +SKIP
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys

__all__ = ["help", "list", "load"]  # noqa: A001  (Paddle's names)

_SOURCES = ("github", "gitee", "local")
_loaded = [0]  # a counter naming each loaded hubconf module uniquely


def _repo_dir(op: str, repo_dir, source, force_reload) -> str:
    if not isinstance(source, str) or source not in _SOURCES:
        raise ValueError(f'hub.{op}: Unknown source: "{source}". Allowed values: "github" | "gitee" | "local".')
    if not isinstance(force_reload, bool):
        raise TypeError(f"hub.{op}: argument 'force_reload' expected a bool, got {force_reload!r}")
    if not isinstance(repo_dir, (str, os.PathLike)):
        raise TypeError(f"hub.{op}: argument 'repo_dir' expected a directory path, got {type(repo_dir).__name__}")
    if source != "local":
        raise RuntimeError(f"hub.{op}: source={source!r} would download {repo_dir!r}; this build never "
                           f"downloads. Clone the repository and pass its directory with source='local'")
    path = os.fspath(repo_dir)
    if not os.path.isfile(os.path.join(path, "hubconf.py")):
        raise FileNotFoundError(f"hub.{op}: {path!r} has no hubconf.py (source='local' needs the directory "
                                f"of a hub repository)")
    return path


def _hubconf(op: str, path: str):
    """The repository's hubconf.py as a fresh module (its directory importable while
    it loads, so it can import its neighbours)."""
    _loaded[0] += 1
    spec = importlib.util.spec_from_file_location(f"eager_hubconf_{_loaded[0]}", os.path.join(path, "hubconf.py"))
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, path)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(path)
    return module


def _check_dependencies(op: str, module) -> None:
    """Only load checks ``dependencies``, as Paddle: list and help read a hubconf whose
    dependencies are missing."""
    dependencies = getattr(module, "dependencies", None) or []
    missing = [name for name in dependencies if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(f"hub.{op}: Missing dependencies: {', '.join(missing)}")


def _entry(op: str, module, model):
    if not isinstance(model, str):
        raise TypeError(f"hub.{op}: argument 'model' expected an entrypoint name, got {type(model).__name__}")
    entry = getattr(module, model, None)  # as Paddle's, a "_name" loads too; only list() hides those
    if entry is None or not callable(entry):
        raise RuntimeError(f"hub.{op}: Cannot find callable {model} in hubconf")
    return entry


def list(repo_dir, source="github", force_reload=False):  # noqa: A001
    """The names of the entrypoints (public callables) of ``repo_dir``'s hubconf.py.

    >>> eager.hub.list("path/to/repo", source="local")   # doctest: +SKIP
    ['resnet18', 'resnet50']
    """
    module = _hubconf("list", _repo_dir("list", repo_dir, source, force_reload))
    return [name for name in sorted(vars(module))
            if not name.startswith("_") and callable(getattr(module, name))]


def help(repo_dir, model, source="github", force_reload=False):  # noqa: A001
    """The docstring of entrypoint ``model`` of ``repo_dir``'s hubconf.py.

    >>> print(eager.hub.help("path/to/repo", "resnet18", source="local"))   # doctest: +SKIP
    """
    module = _hubconf("help", _repo_dir("help", repo_dir, source, force_reload))
    return _entry("help", module, model).__doc__


def load(repo_dir, model, source="github", force_reload=False, **kwargs):
    """What entrypoint ``model`` of ``repo_dir``'s hubconf.py returns, called with
    ``kwargs`` (usually a Layer).

    >>> net = eager.hub.load("path/to/repo", "resnet18", source="local")   # doctest: +SKIP
    """
    module = _hubconf("load", _repo_dir("load", repo_dir, source, force_reload))
    _check_dependencies("load", module)
    return _entry("load", module, model)(**kwargs)

