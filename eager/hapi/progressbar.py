"""The progress display of ``Model.fit``/``evaluate``/``predict`` (Paddle's
``paddle.hapi.progressbar.ProgressBar``).

Three ways to show the same numbers, chosen once when the bar is made:

- ``verbose=1`` on a terminal: a live bar redrawn in place, with the values
  (loss, metrics), steps per second and the time left. tqdm draws it when it is
  installed; otherwise a one-line ``\\r`` bar does.
- ``verbose=1`` when the output is not a terminal (a log file, CI): no carriage
  returns; each :meth:`ProgressBar.update` writes one plain line.
- ``verbose=2``: each :meth:`ProgressBar.update` writes one plain line in
  Paddle's format, ``step 10/10 - loss: 0.1234 - acc: 0.9000 - 5ms/step``.
"""
from __future__ import annotations

import numbers
import shutil
import sys
import time

import numpy as np


# The values Paddle writes with 4 decimals; others (float16 included) print as str().
_DECIMAL_TYPES = (float, np.float32, np.float64)
_DECIMAL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def format_values(values) -> str:
    """``' - name: value'`` for each ``(name, value)`` pair, as Paddle prints
    them: Python, float32 and float64 floats (and one-element float32/float64
    arrays) with 4 decimals (``%.4e`` when the magnitude is at most 1e-3),
    anything else (ints, float16, other arrays) as ``str()``; a list value as
    its items side by side.

    >>> format_values([("loss", [0.25]), ("acc", 0.5)])
    ' - loss: 0.2500 - acc: 0.5000'
    """
    text = ""
    for name, value in values:
        text += f" - {name}:"
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, np.ndarray) and item.size == 1 and item.dtype in _DECIMAL_DTYPES:
                item = item.reshape(()).item()
            if isinstance(item, _DECIMAL_TYPES):
                text += f" {item:.4f}" if abs(item) > 1e-3 else f" {item:.4e}"
            else:
                text += f" {item}"
    return text


def _per_step(seconds: float, name: str) -> str:
    """Paddle's time per step: ``' - 5ms/step'`` (s, ms or us)."""
    if seconds >= 1 or seconds == 0:
        return f" - {seconds:.0f}s/{name}"
    if seconds >= 1e-3:
        return f" - {seconds * 1e3:.0f}ms/{name}"
    return f" - {seconds * 1e6:.0f}us/{name}"


def _eta(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    if seconds >= 60:
        return f"{seconds // 60}:{seconds % 60:02d}"
    return f"{seconds}s"


def _is_terminal(file) -> bool:
    isatty = getattr(file, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):  # a closed or detached stream
        return False


def _load_tqdm():
    try:
        from tqdm import tqdm
    except ImportError:  # tqdm is optional: the plain '\r' bar stands in
        return None
    return tqdm


class ProgressBar:
    """Progress of one pass over ``num`` steps (``None`` when the length is not
    known), updated with the step count and ``(name, value)`` pairs.

    ``verbose``: 1 for a live bar (plain lines when ``file`` is not a terminal),
    2 or 3 for plain lines (as Paddle's bar), 0 for none. ``file``: where to write (default: ``sys.stdout`` when the
    bar is made). ``use_tqdm``: draw the live bar with tqdm when installed
    (default) or always with the built-in ``\\r`` bar.

    >>> bar = ProgressBar(num=3, verbose=2)
    >>> for step in range(1, 4):
    ...     bar.update(step, [("loss", 0.5 / step)])
    >>> bar.close()
    """

    def __init__(self, num=None, width: int = 30, verbose: int = 1, start: bool = True, file=None,
                 name: str = "step", use_tqdm: bool = True):
        if num is not None and (isinstance(num, bool) or not isinstance(num, numbers.Integral) or num <= 0):
            # TypeError for a count below 1 too, as Paddle raises
            raise TypeError(f"ProgressBar: argument 'num' expected None or a positive int, got {num!r}")
        if isinstance(verbose, bool) or verbose not in (0, 1, 2, 3):
            raise ValueError(f"ProgressBar: argument 'verbose' expected 0 (silent), 1 (live bar) or 2/3 "
                             f"(plain lines), got {verbose!r}")
        self._num = None if num is None else int(num)
        self._width = int(width)
        self._verbose = verbose
        self._file = sys.stdout if file is None else file
        self.name = name
        self._live = verbose == 1 and _is_terminal(self._file)
        self._tqdm_class = _load_tqdm() if self._live and use_tqdm else None
        self._tqdm = None
        self._shown = 0          # steps the tqdm bar has been advanced by
        self._last_width = 0     # characters of the last '\r' line
        self._closed = False
        self._start = time.time()
        if start:
            self.start()

    @property
    def mode(self) -> str:
        """``'tqdm'``, ``'bar'`` (the ``\\r`` bar) or ``'lines'``."""
        if not self._live:
            return "lines"
        return "tqdm" if self._tqdm_class is not None else "bar"

    def start(self) -> None:
        """(Re)starts the clock the rate and time left are measured from (and
        shows an empty live bar)."""
        self._start = time.time()
        if self.mode == "tqdm" and self._tqdm is None and not self._closed:
            self._tqdm_open()

    def update(self, current_num: int, values=()) -> None:
        """Shows ``current_num`` steps done with ``values``, a list of
        ``(name, value)`` pairs (a value may be a number or a list of numbers)."""
        if self._closed or not self._verbose:
            return
        values = list(values.items()) if isinstance(values, dict) else list(values)
        elapsed = time.time() - self._start
        per_step = elapsed / current_num if current_num else 0.0
        mode = self.mode
        if mode == "lines":
            self._write_line(current_num, values, per_step)
        elif mode == "tqdm":
            self._tqdm_update(current_num, values)
        else:
            self._bar_update(current_num, values, per_step)

    def close(self) -> None:
        """Ends the bar: a live bar is finished with a newline. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._tqdm is not None:
            self._tqdm.close()
        elif self.mode == "bar" and self._last_width:
            self._file.write("\n")
            self._file.flush()

    # -- the three displays -------------------------------------------------
    def _count(self, current_num) -> str:
        current_num = int(current_num)  # Paddle's '%d': a float step count prints truncated
        if self._num:
            digits = len(str(self._num))
            return f"{self.name} {current_num:{digits}d}/{self._num}"
        return f"{self.name} {current_num:3d}"

    def _write_line(self, current_num, values, per_step) -> None:
        line = self._count(current_num) + format_values(values) + _per_step(per_step, self.name)
        self._file.write(line + "\n")
        self._file.flush()

    def _bar_update(self, current_num, values, per_step) -> None:
        text = self._count(current_num)
        if self._num:
            done = int(self._width * min(current_num / self._num, 1.0))
            arrow = ">" if 0 < done < self._width and current_num < self._num else ("=" if done else "")
            text += " [" + "=" * max(done - 1, 0) + arrow + "." * (self._width - done) + "]"
        text += format_values(values)
        if per_step > 0:
            text += f" - {1.0 / per_step:.1f} {self.name}s/s"
        if self._num and current_num < self._num:
            text += f" - ETA: {_eta(per_step * (self._num - current_num))}"
        padding = " " * max(self._last_width - len(text), 0)
        self._file.write("\r" + text + padding)
        self._last_width = len(text)
        self._file.flush()

    def _tqdm_open(self) -> None:
        # The size now (80x24 where the terminal reports none, as a pseudo-
        # terminal without a size does: tqdm would draw nothing).
        size = shutil.get_terminal_size((80, 24))
        self._tqdm = self._tqdm_class(total=self._num, file=self._file, unit=self.name, leave=True,
                                      ncols=size.columns if size.columns > 0 else 80,
                                      nrows=size.lines if size.lines > 0 else 24)

    def _tqdm_update(self, current_num, values) -> None:
        if self._tqdm is None:
            self._tqdm_open()
        self._tqdm.set_postfix_str(format_values(values)[3:], refresh=False)
        if current_num > self._shown:
            self._tqdm.update(current_num - self._shown)
            self._shown = current_num
        else:
            self._tqdm.refresh()


__all__ = ["ProgressBar", "format_values"]
