"""The table through which generated code reaches the hand-written composite
rules of :mod:`eager.composite`.

A composite rule is written with the generated op functions, and the generated
grad nodes call the rules: importing each other would be a cycle. So the
generated code looks rules up here by name (``COMPOSITE.add_grad``), and
eager.composite fills the table when eager loads, as JAX's ``ad.defjvp``
fills its rule tables.
"""
from __future__ import annotations

from .errors import AutogradError


class RuleTable:
    """name -> rule, read as attributes; a missing rule is a clear error."""

    def __init__(self, kind: str):
        self._kind = kind

    def register(self, rules: dict) -> None:
        """Adds every rule of ``rules`` (name -> function)."""
        for name, rule in rules.items():
            setattr(self, name, rule)

    def __getattr__(self, name: str):
        # Only reached for a name that was never registered.
        if name.startswith("__"):
            raise AttributeError(name)
        raise AutogradError(
            f"the {self._kind} rule {name!r} is not registered: rules are defined in "
            f"eager/composite/, which `import eager` loads; import eager (or "
            f"eager.composite) before running ops"
        )


COMPOSITE = RuleTable("composite")
