"""The rule families, one package each: :mod:`canasta.families.classic` (SPEC
Part A), :mod:`canasta.families.italian` (Part B) and :mod:`canasta.families.american`
(Part C, built on Classic).

A family package imports the engine core (:mod:`canasta.engine.game` and what it is
built on) and the families it names in its ``EXTENDS``, never another; the core never
imports a family.  Importing a
family package registers it (:func:`canasta.engine.game.register_family`); importing
this package registers the three built in (``import canasta`` does).
"""

from __future__ import annotations

from canasta.families import american, classic, italian

__all__ = ["american", "classic", "italian"]
