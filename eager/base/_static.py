"""The one error eager.base's modules give for Paddle's static-graph names."""
from __future__ import annotations


def missing(module: str, name: str, static_only: frozenset) -> AttributeError:
    """The AttributeError for ``module.name``: a static-graph name (one of
    ``static_only``) says so and what to use instead; any other name is simply absent.
    It is an AttributeError so that ``hasattr`` and ``from ... import`` behave as for
    any missing name."""
    if name in static_only:
        return AttributeError(f"{module}.{name} is part of Paddle's static-graph API (Program, Executor, "
                              f"Scope, LoDTensor, ...), which eager does not have: eager runs in dynamic "
                              f"graph mode only (use eager.jit.to_static to trace and compile a model)")
    return AttributeError(f"module {module!r} has no attribute {name!r}")
