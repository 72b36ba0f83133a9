"""eager: a dynamic-graph autograd framework on the phi operator library.

>>> import numpy as np, eager
>>> w = eager.to_tensor(np.ones((3, 1), "float32"), stop_gradient=False)
>>> x = eager.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
>>> loss = (eager.matmul(x, w) ** 2).mean()
>>> loss.backward()
>>> w.grad.shape
[3, 1]
"""
import importlib
import os

__version__ = "0.1.0"


def _submodules(directory: str) -> frozenset:
    """The modules and packages in ``directory`` (what pkgutil.iter_modules lists, read
    with os.scandir: pkgutil imports inspect, two thirds of a bare ``import eager``)."""
    names = set()
    for entry in os.scandir(directory):
        stem, suffix = os.path.splitext(entry.name)
        if entry.is_dir():
            if entry.name.isidentifier() and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                names.add(entry.name)
        elif suffix == ".py" and stem.isidentifier() and stem != "__init__":
            names.add(stem)
    return frozenset(names)


_SUBMODULES = _submodules(__path__[0])


def __getattr__(name):
    # The public API is loaded on first use rather than at import, so that
    # `python -m eager.api_gen` can regenerate the code that the API is built from
    # even when that code is stale or broken. `from eager import tensor` asks for
    # the attribute before importing the submodule: give it the submodule alone.
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    api = importlib.import_module(".api", __name__)
    if name == "api":
        return api
    try:
        value = getattr(api, name)
    except AttributeError:
        raise AttributeError(f"module 'eager' has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__():
    api = importlib.import_module(".api", __name__)
    # Subpackages listed whether loaded or not: loading the API loaded them all while
    # it imported hapi's Model and DataParallel at once (it loads those at first use
    # now, eager/api.py), and dir(eager) keeps listing them. (A local name: a global
    # one would show in dir(eager) itself.)
    listed = {"distributed", "hapi", "io", "jit", "metric", "static", "vision"}
    return sorted(set(globals()) | listed | {n for n in dir(api) if not n.startswith("_")})
