"""The error hierarchy.  Every error is a ``ValueError`` whose message says why.

* :class:`NotationError`: a card, move or record string could not be read.
* :class:`IllegalMoveError`: a well-formed move that the rules forbid here; it
  carries a stable ``code`` (e.g. ``"WILDS_EXCEED_NATURALS"``) and the spec
  rule it breaks (e.g. ``"A.5.4"``), so an interface can explain it.
* :class:`RulesError`: a rule set or rules file that is malformed or inconsistent.
* :class:`PositionError`: a position (JSON) that is malformed or impossible.
"""

from __future__ import annotations


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
