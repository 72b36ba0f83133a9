"""One thread-local object for the per-thread autograd switches a recorded op reads.

Grad mode (``enabled`` and the ``saved`` modes of open ``with`` blocks), the name
scope (``current``) and the saved-tensor hook stack (``pack_hooks``) all live on
``THREAD``; grad_mode.STATE, scope.SCOPE and saved_hooks.HOOKS are this same
object under their old names, so every reader and writer keeps working.

Why one object: each attribute read on a ``threading.local`` first finds the
calling thread's dict (~40-60 ns). A generated forward reads
``THREAD.__dict__`` once (the local special-cases ``__dict__`` and returns that
dict) and then indexes it, instead of three separate thread-local reads.
Every thread gets its own values from ``__init__``, which ``threading.local``
runs once per thread on first use: a new thread starts recording, outside any
name scope and with no hooks.

>>> from eager.autograd.thread_state import THREAD
>>> THREAD.__dict__["enabled"]
True
"""
from __future__ import annotations

import threading


class _ThreadState(threading.local):
    def __init__(self):
        self.enabled = True  # ops record the graph (grad_mode)
        # The modes to restore, one per open no_grad/enable_grad `with` block of this
        # thread: one no_grad() object may be entered from several threads at once.
        self.saved = []
        self.current = ()  # the name-scope path (scope)
        self.pack_hooks = ()  # (pack_hook, unpack_hook) pairs, innermost last (saved_hooks)


THREAD = _ThreadState()
