"""The engine core: the rules machinery every family builds on.

Cards and their notation (:mod:`~canasta.engine.cards`), moves, melds, the rule set and its
presets (:mod:`~canasta.engine.rules`), the hand's state, scoring, the family contract
(:mod:`~canasta.engine.family`) and the game that drives it (:mod:`~canasta.engine.game`).
Pure standard library; it imports no rule family (they live beside it in
:mod:`canasta.families`) and no interface.  The public names are re-exported by
:mod:`canasta` itself.
"""
