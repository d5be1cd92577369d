"""What the command line's commands print and check alike: counts in the language of the moment,
the progress line of a long run, which optional modules are missing, and whether a file can be
written.  Used by :mod:`canasta.cli` and the tools' commands (:mod:`canasta.tools.commands`)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from canasta.engine.errors import CanastaError
from canasta.i18n import NN_, _, nplural

#: seconds before a progress line appears, so a quick run shows none
PROGRESS_DELAY = 0.5
#: seconds at least between two redraws of the progress line
PROGRESS_EVERY = 0.2


class Progress:
    """One progress line on stderr while a long command works: tqdm's bar when
    it is installed (the ``arena`` extra), else a plain line.  Shown only when
    stderr is a terminal; nothing is written otherwise."""

    def __init__(self, total: float, unit: str, fmt: str, leave: bool = True) -> None:
        self.start = time.perf_counter()
        self.unit = unit
        self.leave = leave
        self.shown_at = 0.0
        self.text = ""
        try:
            from tqdm import tqdm
        except ImportError:
            self.bar: Any = None
        else:
            self.bar = tqdm(total=total, unit=f" {unit}", file=sys.stderr, delay=PROGRESS_DELAY, leave=leave,
                            smoothing=0, mininterval=PROGRESS_EVERY, bar_format=fmt)

    @staticmethod
    def wanted(quiet: bool = False) -> bool:
        return not quiet and sys.stderr.isatty()

    def show(self, n: float, total: float, note: str) -> None:
        if self.bar is not None:
            self.bar.total = total
            self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(max(0.0, n - self.bar.n))
            return
        now = time.perf_counter()
        if now - self.start < PROGRESS_DELAY or (self.text and now - self.shown_at < PROGRESS_EVERY):
            return
        self.shown_at = now
        self._draw(n, total, note)

    def _draw(self, n: float, total: float, note: str) -> None:
        elapsed = time.perf_counter() - self.start
        rate = n / elapsed if elapsed > 0 else 0.0
        left = duration((total - n) / rate) if rate > 0 else "?"
        self.text = (f"{n:.1f}/{total:.0f} {self.unit}, {rate:.2f} {self.unit}/s, {left} left, {note}"
                     if self.unit == "hands" else f"{n:.0f}/{total:.0f} {self.unit}, at most {left} left, {note}")
        print(f"\r{self.text}", end="", file=sys.stderr, flush=True)

    def close(self, n: float | None = None, note: str = "") -> None:
        if self.bar is not None:
            if n is not None:
                self.bar.total = n
                self.bar.set_postfix_str(note, refresh=False)
                self.bar.update(max(0.0, n - self.bar.n))
            self.bar.close()
        elif self.text:
            if n is not None:
                self._draw(n, n, note)
            end = "\n" if self.leave else "\r" + " " * len(self.text) + "\r"
            print(end, end="", file=sys.stderr, flush=True)


def duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    h, rest = divmod(seconds, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


def count(n: int, word: str) -> str:
    """``1 problem``, ``2 problems`` (in the language of the moment)."""
    forms = {
        "problem": NN_("{n} problem", "{n} problems"),
        "hand": NN_("{n} hand", "{n} hands"),
        "move": NN_("{n} move", "{n} moves"),
        "check": NN_("{n} check", "{n} checks"),
    }
    one, many = forms[word]
    return nplural(one, many, n)


def missing(*modules: str) -> list[str]:
    """Which of these modules cannot be imported (looked up, not imported)."""
    import importlib.util

    out = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(name)
    return out


def check_writable(name: str, what: str = "", force: bool = False) -> None:
    """Refuse, in one line, a file that cannot be written: a missing folder, a folder, or
    (without ``force``) a file that exists."""
    what = what or _("file")
    path = Path(name)
    folder = path.parent
    if not folder.is_dir():
        raise CanastaError(_("cannot write {file}: the folder {folder} does not exist "
                             "(create it first, or choose another place)").format(file=repr(name),
                                                                                 folder=repr(str(folder))))
    if path.is_dir():
        raise CanastaError(_("cannot write {file}: it is a folder; give a {what} name").format(
            file=repr(name), what=what))
    if path.exists() and not force:
        raise CanastaError(_("{file} exists: add --force to overwrite it, or choose another name").format(
            file=repr(name)))
