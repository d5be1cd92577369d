"""What the heuristic players weigh where unfinished melds cost (Modern American, SPEC Part C).

A family says so as data (:class:`~canasta.engine.family.PlayTuning`): ``race_ranks`` whose
natural meld costs ``race_cost`` unfinished (aces and sevens, C.14.1 b), ``unfinished_wild_cost``
for a meld of wild cards, ``hoard_cost`` for three or more of a race rank held at the end
(C.14.1 f), and ``dead_ranks`` (C.5.8).  Where a family gives none of them (Classic, Italian)
every function here answers as if the rule did not exist, so their play is unchanged.

The race (a natural canasta of aces or sevens is 2,500, the same meld unfinished costs 2,500 and
bars going out) is judged by counting: a race meld is started, or the pack picked for one, only
when the side can still see the cards that finish it and holds most of them already.  A meld of
wild cards is started only with most of the seven wild cards it needs in hand.
"""

from __future__ import annotations

from canasta.engine.cards import CARD_RANK, IS_WILD, JOKER_RANK, TWO
from canasta.engine.game import Game
from canasta.engine.melds import WILD_MELD


def is_dead(g: Game, rank: int) -> bool:
    """``rank`` is dead (a canasta of it is finished on the table) in a family with dead ranks."""
    if not g.family.play.dead_ranks:
        return False
    size = g.canasta_size
    for side in range(g.num_sides):
        m = g.melds[side].get(rank)
        if m is not None and m.size >= size:
            return True
    return False


def pile_count(g: Game, rank: int) -> int:
    """The face-up pack's cards of ``rank`` (they go to whoever picks it)."""
    return sum(1 for c in g.pile if CARD_RANK[c] == rank and not IS_WILD[c])


def race_hope(g: Game, seat: int, rank: int, unseen: int, extra: int = 0, reach: int = 2) -> bool:
    """Can ``seat``'s side still finish a natural meld of race rank ``rank``?  It holds (its meld
    and ``seat``'s hand, plus ``extra`` cards of the pack it is picking) all but ``reach`` or fewer
    of the canasta, and at least that many are still ``unseen`` by it (or in the pack, when it is
    not picking it)."""
    side = g.side_of[seat]
    m = g.melds[side].get(rank)
    have = (m.naturals if m is not None else 0) + g.rank_counts[seat][rank] + extra
    missing = g.canasta_size - have
    if missing <= 0:
        return True
    return missing <= reach and missing <= unseen + (0 if extra else pile_count(g, rank))


def wild_hope(g: Game, seat: int, extra: int = 0, reach: int = 1) -> bool:
    """Can ``seat``'s side still finish a meld of wild cards (started, or to start with the wild
    cards in hand)?  The meld and the hand hold all but ``reach`` of the seven."""
    side = g.side_of[seat]
    m = g.melds[side].get(WILD_MELD)
    rc = g.rank_counts[seat]
    have = (m.size if m is not None else 0) + rc[TWO] + rc[JOKER_RANK] + extra
    return g.canasta_size - have <= reach


def unfinished_risk(g: Game, key: int, laid: int, wilds: int) -> bool:
    """Laying ``laid`` cards (``wilds`` of them wild) on the meld ``key`` of the player to move's
    side leaves, or keeps, a meld that costs if unfinished: a race meld without a wild card, or
    a meld of wild cards, short of a canasta."""
    play = g.family.play
    m = g.melds[g.side_of[g.turn]].get(key)
    size = (m.size if m is not None else 0) + laid
    if size >= g.canasta_size:
        return False
    if key == WILD_MELD:
        return play.unfinished_wild_cost > 0
    if key in play.race_ranks and play.race_cost:
        return wilds == 0 and (m is None or m.wilds == 0)
    return False


def opponents_race(g: Game, seat: int, rank: int) -> bool:
    """Another side has an unfinished natural meld of race rank ``rank`` (a card of it fed to them
    is worth a 5,000-point swing at the end of the hand)."""
    play = g.family.play
    if rank not in play.race_ranks:
        return False
    side = g.side_of[seat]
    for s in range(g.num_sides):
        if s != side:
            m = g.melds[s].get(rank)
            if m is not None and m.wilds == 0 and m.size < g.canasta_size:
                return True
    return False
