"""The exception classes of the library (:mod:`canasta.engine.errors` adds the
refusals of moves, and re-exports these)."""

from __future__ import annotations


class CanastaError(ValueError):
    """Base class of every error the library raises on bad input."""


class NotationError(CanastaError):
    """Text that is not valid card, move or record notation."""


class RulesError(CanastaError):
    """An unknown, mistyped or inconsistent rule option or rules file."""


class PositionError(CanastaError):
    """A position that cannot be read or cannot happen."""


__all__ = ["CanastaError", "NotationError", "PositionError", "RulesError"]
