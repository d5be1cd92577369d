"""The rule families, one package each: :mod:`canasta.families.classic` (SPEC
Part A) and :mod:`canasta.families.italian` (Part B).

A family package imports the engine core (:mod:`canasta.game` and what it is
built on), never another family; the core never imports a family.  Importing a
family package registers it (:func:`canasta.game.register_family`); importing
this package registers the two built in (``import canasta`` does).
"""

from __future__ import annotations

from canasta.families import classic, italian

__all__ = ["classic", "italian"]
