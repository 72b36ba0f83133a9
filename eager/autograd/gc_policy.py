"""Keeps CPython's full garbage collections off a large autograd graph.

Every recorded op leaves a few objects that the cyclic garbage collector
tracks (its grad node, the edge tuples, a saved tensor's wrapper), and they
live until the graph is freed. CPython 3.11 runs a full (generation 2)
collection whenever the objects that survived the young generations reach a
quarter of the long-lived heap, and each one walks every tracked object, the
whole graph included. Recording a 100,000-op graph so triggers half a dozen
full collections that find nothing to free (a graph has no reference cycles
by construction: a node refers only to the nodes of its inputs) and double
the forward's cost per op (measured on CPython 3.11).

The policy: while at least :func:`min_nodes` grad nodes are alive, automatic
full collections are skipped (generation 2's threshold is raised);
generation 0 and 1 collections still run, so young cyclic garbage is freed as
before. Once the graph is freed, the user's thresholds come back. Nothing runs
per op: the collector's own callbacks (``gc.callbacks``) look at the number of
live grad nodes when a collection starts, and the live nodes are counted from
the node classes' reference counts (each instance holds one on its class).

A signal that arrives while the collector runs is handled at the first Python
instruction after it, which can be the callback's; the collector drops what a
callback raises, so a Ctrl-C pressed then would be lost (72 of 100 in a loop
that builds lists). The callback's KeyboardInterrupt reaches the collector's
report (``sys.unraisablehook``), where it is raised again in the main thread
(see _unraisable); every other report goes to the hook that was installed before.

What it never does: enable a collector the user disabled, run a collection,
or overwrite thresholds the user changed while the policy held its own (those
are kept). ``gc.collect()`` still collects everything. Opt out with
``eager.autograd.gc_policy.disable()``.

>>> from eager.autograd import gc_policy
>>> gc_policy.is_enabled()
True
>>> gc_policy.disable(); gc_policy.is_enabled()
False
>>> gc_policy.enable()
"""
from __future__ import annotations

import _thread
import gc
import sys
import time
import weakref
from collections import Counter

from .node import GradNodeBase

# Generation 2's threshold while a large graph is alive: a count of generation 1
# collections that a program does not reach (10 of them is CPython's default).
DEFERRED_THRESHOLD = 1 << 30

_MIN_NODES_DEFAULT = 10_000


class _Policy:
    """The policy's state; one per process (the collector is one per process)."""

    def __init__(self):
        self.enabled = True
        self.min_nodes = _MIN_NODES_DEFAULT
        self.saved = None  # (the thresholds found, the thresholds set) while deferring
        # (weak reference to a grad node class, its reference count without instances)
        self.classes: tuple = ()

    # -- counting live grad nodes ------------------------------------------------------
    def live_nodes(self, discover: bool) -> int:
        """Live grad nodes: each known node class's reference count above its
        baseline (what refers to the class besides its instances). ``discover``
        also looks for node classes defined or freed since the last look (a
        generated module loaded, a PyLayer defined) and, when there are, takes
        the baselines anew by counting the instances once (a scan of the tracked
        objects, as long as a young collection of them)."""
        if discover:
            classes = _node_classes()
            # (The sets are gone before _calibrate counts: they refer to the classes.)
            if {ref() for ref, _ in self.classes} != set(classes):
                self._calibrate(classes)
            del classes  # its references to the classes would count as nodes
        total = 0
        for ref, baseline in self.classes:
            cls = ref()
            if cls is not None:
                total += sys.getrefcount(cls) - baseline
        return total

    def recalibrate(self) -> None:
        """Takes every node class's baseline anew (see _calibrate)."""
        classes = _node_classes()
        self._calibrate(classes)
        del classes  # its references to the classes would count as nodes

    def _calibrate(self, classes: tuple) -> None:
        # Taken before the scan: its counter refers to every class that has instances.
        counts = [sys.getrefcount(cls) for cls in classes]
        instances = Counter(map(type, gc.get_objects()))
        # Here, besides instances, the tuple `classes` and the loop variable refer to
        # each class (and getrefcount's argument); in live_nodes, the loop variable alone.
        # Weak references: a PyLayer's node class must not outlive the PyLayer.
        self.classes = tuple((weakref.ref(cls), count - 1 - instances[cls])
                             for cls, count in zip(classes, counts))

    # -- the collector's callback ----------------------------------------------------------
    def on_collect(self, phase: str, info: dict) -> None:
        if phase != "start":
            return
        generation = info["generation"]
        if generation == 0:  # the frequent, cheap ones: nothing to decide
            return
        if self.saved is None:
            # A generation 1 collection (one in ten of them all) counts the nodes of
            # the classes known; a full one also looks for new node classes.
            if self.enabled and self.live_nodes(generation == 2) >= self.min_nodes:
                self.defer()
        elif self.live_nodes(False) < self.min_nodes:
            self.restore()

    def defer(self) -> None:
        found = gc.get_threshold()
        ours = (found[0], found[1], DEFERRED_THRESHOLD)
        gc.set_threshold(*ours)
        self.saved = (found, ours)

    def restore(self) -> None:
        if self.saved is None:
            return
        found, ours = self.saved
        self.saved = None
        now = gc.get_threshold()
        if now == ours:
            gc.set_threshold(*found)
        elif now[2] == DEFERRED_THRESHOLD:  # the user set generation 0's or 1's since: keep those
            gc.set_threshold(now[0], now[1], found[2])
        # else the user set all three since: theirs stay


def _node_classes() -> tuple:
    classes, stack = [], [GradNodeBase]
    while stack:
        for cls in stack.pop().__subclasses__():
            classes.append(cls)
            stack.append(cls)
    return tuple(dict.fromkeys(classes))  # a class with two node bases appears twice


_POLICY = _Policy()


def _on_collect(phase, info):
    _POLICY.on_collect(phase, info)


def _interrupt_main_soon() -> None:
    # Another thread, a millisecond on: the interrupt lands in the main thread's
    # code after the collection, not in the hook that asked for it (any Python
    # code of the hook would handle it at once, and drop it with the report).
    time.sleep(0.001)
    _thread.interrupt_main()


def _unraisable(unraisable) -> None:
    """sys.unraisablehook while the policy is installed: a KeyboardInterrupt the
    collector took from _on_collect (a Ctrl-C pressed during a collection) is
    raised again in the main thread; anything else goes to the previous hook."""
    if unraisable.object is _on_collect and issubclass(unraisable.exc_type, KeyboardInterrupt):
        try:
            _thread.start_new_thread(_interrupt_main_soon, ())
        except KeyboardInterrupt:  # a second Ctrl-C landed here: the thread asked for is enough
            pass
        except RuntimeError:  # the interpreter is shutting down: no thread, and nothing left to interrupt
            pass
        return
    _previous_unraisablehook(unraisable)


_previous_unraisablehook = sys.unraisablehook


def install() -> None:
    """Registers the policy's callback with the collector (``gc.callbacks``) and
    its report hook (``sys.unraisablehook``, chained to the one before); done
    when eager is imported. Registering twice keeps one."""
    global _previous_unraisablehook
    if _on_collect not in gc.callbacks:
        gc.callbacks.append(_on_collect)
    if sys.unraisablehook is not _unraisable:
        _previous_unraisablehook = sys.unraisablehook
        sys.unraisablehook = _unraisable


def enable(min_nodes: int = _MIN_NODES_DEFAULT) -> None:
    """Turns the policy on (the default): automatic full collections are
    skipped while at least ``min_nodes`` grad nodes are alive.

    >>> from eager.autograd import gc_policy
    >>> gc_policy.enable(min_nodes=50_000)  # only for graphs of 50,000 ops and more
    >>> gc_policy.enable()                  # back to the default, 10,000
    """
    if isinstance(min_nodes, bool) or not isinstance(min_nodes, int) or min_nodes < 1:
        raise ValueError(f"gc_policy.enable: min_nodes expected a positive int, got {min_nodes!r}")
    _POLICY.min_nodes = min_nodes
    _POLICY.enabled = True
    install()


def disable() -> None:
    """Turns the policy off: the collector runs as configured by the user, and
    thresholds the policy raised are restored now (unless the user has changed
    them since)."""
    _POLICY.enabled = False
    _POLICY.restore()


def is_enabled() -> bool:
    """Whether the policy is on."""
    return _POLICY.enabled


def is_deferring() -> bool:
    """Whether full collections are being skipped now (a large graph is alive)."""
    return _POLICY.saved is not None


def min_nodes() -> int:
    """How many live grad nodes make the policy skip full collections."""
    return _POLICY.min_nodes


def live_grad_nodes() -> int:
    """The number of grad nodes alive in the process (every graph, every thread),
    counted exactly: the baselines are taken anew by one scan of the tracked
    objects (milliseconds for a large heap). The collector's callback reads the
    cheap count, which drifts by one whenever something other than an instance
    comes to refer to a node class (a traceback's frame holding ``type(node)``)
    until the next calibration: harmless against a threshold of thousands, not
    in an answer to this question."""
    _POLICY.recalibrate()
    return _POLICY.live_nodes(False)
