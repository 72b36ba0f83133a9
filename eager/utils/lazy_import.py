"""Paddle's ``paddle.utils.try_import``: a module a feature needs, or an ImportError
saying what to install."""
from __future__ import annotations

import importlib

__all__ = ["try_import"]

# Module name -> the package that installs it, where the two differ.
_PACKAGES = {"cv2": "opencv-python", "PIL": "Pillow", "sklearn": "scikit-learn", "yaml": "pyyaml"}


def try_import(module_name: str, err_msg: str | None = None):
    """The module ``module_name``, imported; if it cannot be, ImportError with
    ``err_msg`` or a message naming the package to install.

    >>> eager.utils.try_import("math").sqrt(4.0)
    2.0
    """
    if not isinstance(module_name, str) or not module_name:
        raise TypeError(f"try_import: argument 'module_name' expected a module name, got {module_name!r}")
    if err_msg is not None and not isinstance(err_msg, str):
        raise TypeError(f"try_import: argument 'err_msg' expected a str or None, got {type(err_msg).__name__}")
    try:
        return importlib.import_module(module_name)
    except ImportError:
        if err_msg is None:
            package = _PACKAGES.get(module_name.split(".")[0], module_name.split(".")[0])
            err_msg = (f"Failed importing {module_name}. This likely means that some eager modules require "
                       f"additional dependencies that have to be manually installed (usually with "
                       f"`pip install {package}`).")
        raise ImportError(err_msg) from None
