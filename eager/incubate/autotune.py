"""Paddle's ``paddle.incubate.autotune``: ``set_config`` switches Paddle's
kernel, layout and DataLoader auto-tuning. eager has no cuDNN algorithm search,
no layout rewriting and no DataLoader tuner, so the switches change no
computation: the settings are checked as Paddle checks them (a bad entry warns
and is ignored, as in Paddle) and kept, and :func:`get_config` reads them back.
"""
from __future__ import annotations

import copy
import json
import numbers
import warnings

_DEFAULT = {"kernel": {"enable": False, "tuning_range": [1, 10]}, "layout": {"enable": False},
            "dataloader": {"enable": False, "tuning_steps": 500}}
_CONFIG = copy.deepcopy(_DEFAULT)


def _bool(section: str, entries: dict, key: str) -> None:
    if key not in entries:
        return
    if isinstance(entries[key], bool):
        _CONFIG[section][key] = entries[key]
    else:
        warnings.warn(f"incubate.autotune.set_config: '{section}.{key}' expected a bool, got "
                      f"{entries[key]!r}; the entry is ignored", stacklevel=3)


def set_config(config=None):
    """Sets the auto-tuning switches: None enables kernel, layout and DataLoader
    tuning; a dict (or the path of a JSON file holding one) sets
    ``{"kernel": {"enable": bool, "tuning_range": [start, end]}, "layout":
    {"enable": bool}, "dataloader": {"enable": bool, "tuning_steps": int}}``,
    any part of it. No effect on computation here (see the module docstring).

    >>> eager.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [1, 3]}})
    >>> eager.incubate.autotune.get_config()["kernel"]
    {'enable': True, 'tuning_range': [1, 3]}
    """
    if config is None:
        for section in _CONFIG.values():
            section["enable"] = True
        return
    if isinstance(config, str):
        try:
            with open(config, encoding="utf-8") as file:
                config = json.load(file)
        except (OSError, ValueError) as error:
            warnings.warn(f"incubate.autotune.set_config: could not read {config!r} ({error}); the settings are "
                          f"unchanged", stacklevel=2)
            return
    if not isinstance(config, dict):
        raise TypeError(f"incubate.autotune.set_config: argument 'config' expected None, a dict or the path of a "
                        f"JSON file, got {type(config).__name__}")
    for section, entries in config.items():
        if section not in _CONFIG:
            continue  # Paddle reads only these three sections
        if not isinstance(entries, dict):
            warnings.warn(f"incubate.autotune.set_config: '{section}' expected a dict, got {entries!r}; the entry "
                          f"is ignored", stacklevel=2)
            continue
        _bool(section, entries, "enable")
        if section == "kernel" and "tuning_range" in entries:
            span = entries["tuning_range"]
            if isinstance(span, list) and len(span) == 2 and all(
                    isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in span):
                _CONFIG["kernel"]["tuning_range"] = [int(span[0]), int(span[1])]
            else:
                warnings.warn(f"incubate.autotune.set_config: 'kernel.tuning_range' expected a list of two ints, "
                              f"got {span!r}; the entry is ignored", stacklevel=2)
        if section == "dataloader" and "tuning_steps" in entries:
            steps = entries["tuning_steps"]
            if isinstance(steps, numbers.Integral) and not isinstance(steps, bool) and steps > 0:
                _CONFIG["dataloader"]["tuning_steps"] = int(steps)
            else:
                warnings.warn(f"incubate.autotune.set_config: 'dataloader.tuning_steps' expected a positive int, "
                              f"got {steps!r}; the entry is ignored", stacklevel=2)


def get_config() -> dict:
    """A copy of the current auto-tuning settings (eager's reader of what
    :func:`set_config` kept).

    >>> sorted(eager.incubate.autotune.get_config())
    ['dataloader', 'kernel', 'layout']
    """
    return copy.deepcopy(_CONFIG)


__all__ = ["get_config", "set_config"]
