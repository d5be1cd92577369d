"""The error hierarchy.  Every error is a ``ValueError`` whose message says why.

* :class:`NotationError`: a card, move or record string could not be read.
* :class:`IllegalMoveError`: a well-formed move that the rules forbid here; it
  carries a stable ``code`` (e.g. ``"WILDS_EXCEED_NATURALS"``) and the spec
  rule it breaks (e.g. ``"A.5.4"``), so an interface can explain it.
* :class:`RulesError`: a rule set or rules file that is malformed or inconsistent.
* :class:`PositionError`: a position (JSON) that is malformed or impossible.
"""

from __future__ import annotations

from pathlib import Path


class CanastaError(ValueError):
    """Base class of every error the library raises on bad input."""


class NotationError(CanastaError):
    """Text that is not valid card, move or record notation."""


class RulesError(CanastaError):
    """An unknown, mistyped or inconsistent rule option or rules file."""


class PositionError(CanastaError):
    """A position that cannot be read or cannot happen."""


class IllegalMoveError(CanastaError):
    """A move the rules forbid in the current position.  The game is unchanged."""

    def __init__(self, message: str, code: str = "ILLEGAL", rule: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule

    def __str__(self) -> str:
        text = super().__str__()
        return f"{text} (rule {self.rule})" if self.rule else text


def read_text(path: str | Path, what: str, error: type[CanastaError] = CanastaError) -> str:
    """A user's text file (``what``: "rules file", "record" ...), or ``error``
    with a message a person can act on (missing, unreadable, not text)."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot read the {what} {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise error(f"{str(path)!r} is not a {what}: it is not UTF-8 text") from None
