"""Files written whole or not at all: a crash, a full disk or an interrupted run leaves the
old file as it was (game records, saved tables, rules files, reviews, arena runs)."""

from __future__ import annotations

import gzip
import io
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from canasta.engine.exceptions import CanastaError


def refuse_overwrite(path: str | Path, force: bool, what: str = "file", hint: str = "") -> None:
    """Refuse, in one line, to replace an existing file unless ``force``."""
    if not force and Path(path).exists():
        raise CanastaError(f"{str(path)!r} exists: add --force to overwrite it" + (f" ({hint})" if hint else ""))


@contextmanager
def atomic_path(path: str | Path, keep: Callable[[], bool] | None = None) -> Iterator[Path]:
    """Write ``path`` whole or not at all: the block writes the temporary file it is given,
    in the same folder, which replaces ``path`` (``os.replace``) when the block ends.  If
    the block raises, the temporary file is removed and ``path`` is left as it was, unless
    ``keep()`` says what was written is worth keeping (a stopped run's finished games, each
    written whole): then it still replaces ``path`` before the error goes on."""
    target = Path(path)
    try:
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp" + target.suffix)
    except OSError as exc:  # the temporary file is ours: the error names the file asked for
        raise OSError(exc.errno, exc.strerror, str(target)) from None
    os.close(fd)
    tmp = Path(name)
    try:
        try:
            yield tmp
        except BaseException:
            if keep is not None and keep():
                _publish(tmp, target)
            raise
        _publish(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


@contextmanager
def atomic_file(path: str | Path, keep: Callable[[], bool] | None = None) -> Iterator[IO[str]]:
    """A text file written whole or not at all (:func:`atomic_path`); gzip-compressed when
    its name ends in ``.gz``, as :func:`canasta.play.record.read_file` reads such a name."""
    with atomic_path(path, keep) as tmp:
        if Path(path).suffix == ".gz":
            # no name and no time in the gzip header: the same games make the same bytes
            with tmp.open("wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0) as raw, \
                    io.TextIOWrapper(raw, encoding="utf-8") as out:
                yield out
        else:
            with tmp.open("w", encoding="utf-8") as out:
                yield out


def _publish(tmp: Path, target: Path) -> None:
    """The temporary file, on disk, takes the target's name (with a new file's usual permissions)."""
    with tmp.open("rb") as f:
        os.fsync(f.fileno())
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)
    try:
        os.replace(tmp, target)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(target)) from None


def write_text_atomic(path: str | Path, text: str) -> None:
    """``Path(path).write_text(text)``, whole or not at all (:func:`atomic_file`)."""
    with atomic_file(path) as out:
        out.write(text)
