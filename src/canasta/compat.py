"""Older names of :class:`~canasta.game.Game`'s fields, kept as properties for
code written before issue 14 (the interfaces, bots and tests may still use
them).  The engine itself uses the new names.

=================  ==========================
older name         name
=================  ==========================
``n``              ``players``
``val``            ``card_value``
``it``             ``rules.italian`` (ask ``family``)
``rc``             ``rank_counts``
``hsize``          ``hand_sizes``
``ncan``           ``canasta_counts``
``lone``           ``lone_seat``
``draw_mode``      ``opening_draw``
``_options``       ``options()``
``_materialize``   ``materialize()``
=================  ==========================
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from canasta.rules import RuleSet


class OlderNames:
    """A mixin of properties under the older names."""

    __slots__ = ()

    if TYPE_CHECKING:
        players: int
        card_value: tuple[int, ...]
        rules: RuleSet
        rank_counts: list[list[int]]
        hand_sizes: list[int]
        canasta_counts: list[int]
        lone_seat: int
        opening_draw: int

    @property
    def n(self) -> int:
        """Older name of :attr:`players`."""
        return self.players

    @property
    def it(self) -> bool:
        """Older flag: an Italian hand (ask :attr:`family` instead)."""
        return self.rules.italian

    @property
    def val(self) -> tuple[int, ...]:
        """Older name of :attr:`card_value`."""
        return self.card_value

    rc = property(lambda self: self.rank_counts, doc="Older name of :attr:`rank_counts`.")
    hsize = property(lambda self: self.hand_sizes, doc="Older name of :attr:`hand_sizes`.")
    ncan = property(lambda self: self.canasta_counts, doc="Older name of :attr:`canasta_counts`.")
    lone = property(lambda self: self.lone_seat, lambda self, v: setattr(self, "lone_seat", v),
                    doc="Older name of :attr:`lone_seat`.")
    draw_mode = property(lambda self: self.opening_draw, lambda self, v: setattr(self, "opening_draw", v),
                         doc="Older name of :attr:`opening_draw`.")
