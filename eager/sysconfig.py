"""Paddle's ``paddle.sysconfig``: where a C++ extension would find the framework's
headers and libraries.

eager is pure Python: it ships no C++ headers and no shared libraries, so the
directories these functions name (``include`` and ``libs`` inside the installed
package, Paddle's layout) do not exist. They are returned, as Paddle returns
its own, so that build scripts which only read them keep running; compiling
against them fails with the compiler's missing-header error.

>>> import os
>>> os.path.basename(eager.sysconfig.get_include())
'include'
"""
from __future__ import annotations

import os

__all__ = ["get_include", "get_lib"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def get_include() -> str:
    """The directory where the framework's C++ headers would be: ``<package>/include``
    (absent: eager has no C++ headers)."""
    return os.path.join(_PACKAGE_DIR, "include")


def get_lib() -> str:
    """The directory where the framework's shared libraries would be: ``<package>/libs``
    (absent: eager has no shared libraries)."""
    return os.path.join(_PACKAGE_DIR, "libs")
