"""The exceptions eager raises for broken autograd rules (and the few others
that must be two builtin types at once), and the one error for Paddle's
static-graph names, in one module at the bottom of the house so every layer can
import them."""
from __future__ import annotations

from phi.core.errors import ArgumentKindError  # defined in phi: its argument parsers raise it too


class AutogradError(RuntimeError, ValueError):
    """An autograd rule was broken: a released graph, a modified saved tensor, ...

    A RuntimeError as in PyTorch, and a ValueError as Paddle raises for the same
    mistakes, so a ported ``except ValueError`` still catches it.
    """


class PyLayerResultError(TypeError, ValueError):
    """A PyLayer's forward or backward returned something of the wrong kind (no
    Tensor from forward, an int as a gradient).

    A TypeError by eager's rule for wrong kinds, and a ValueError as Paddle
    raises for the same mistakes.
    """


class UnsupportedAudioError(ValueError, NotImplementedError):
    """An audio file or backend the wave backend does not handle (not 16-bit PCM WAV,
    a backend other than ``wave_backend``).

    A ValueError by eager's rule for bad values, and a NotImplementedError as
    Paddle raises for the same inputs, so a ported ``except NotImplementedError``
    (Paddle's test_audio_backend) still catches it.
    """


class ModelNotFoundError(FileNotFoundError, ValueError):
    """``load`` found no file, or ``jit.load`` no saved program, at the path.

    A FileNotFoundError, and a ValueError as Paddle raises for a missing model,
    so a ported ``except ValueError`` still catches it.
    """


class UnsupportedOptionError(NotImplementedError, ValueError):
    """A documented option value that Paddle names but does not implement
    (``line_search_fn='hager_zhang'``).

    A NotImplementedError (so a RuntimeError) as Paddle raises, and a ValueError
    by eager's rule for wrong values.
    """


class StateDictKeyError(RuntimeError, KeyError):
    """A state dict given to ``set_state_dict`` lacks an entry the object
    saves (a scheduler's ``last_epoch``, LinearWarmup's ``LinearWarmup_LR``).

    A RuntimeError as Paddle's schedulers raise, and a KeyError as Paddle's
    LinearWarmup raises for its inner schedule's entry; the message reads as a
    RuntimeError's, not as a quoted key.
    """

    __str__ = RuntimeError.__str__


class AnomalyError(FloatingPointError):
    """Anomaly mode found a NaN or Inf in an op's output or a gradient."""


class GradcheckError(AssertionError):
    """An analytic gradient differs from the finite-difference one, or the
    function cannot be checked (non-float64 input, non-Tensor output)."""


def static_graph_missing(module: str, name: str, static_only: frozenset) -> AttributeError:
    """The AttributeError for ``module.name``: a static-graph name (one of
    ``static_only``) says so and what to use instead; any other name is simply absent.
    It is an AttributeError so that ``hasattr`` and ``from ... import`` behave as for
    any missing name."""
    if name in static_only:
        return AttributeError(f"{module}.{name} is part of Paddle's static-graph API (Program, Executor, "
                              f"Scope, LoDTensor, ...), which eager does not have: eager runs in dynamic "
                              f"graph mode only (use eager.jit.to_static to trace and compile a model)")
    return AttributeError(f"module {module!r} has no attribute {name!r}")


__all__ = ["AnomalyError", "ArgumentKindError", "AutogradError", "GradcheckError", "ModelNotFoundError",
           "PyLayerResultError", "static_graph_missing"]
