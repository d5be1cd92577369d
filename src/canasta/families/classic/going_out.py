"""Classic going out (A.12): can the player to move meld every card but one this turn?

Decided by :func:`classic_plan`, which also gives the melds of a way out;
:func:`going_out_plans` gives the ways out the generator offers as one move each.
Going out concealed (A.12.6) is judged here too: who qualifies (:func:`qualifies_concealed`), and a take of the pile below the
minimum, which C-O5 with C-O6 allows when the turn then goes out concealed
(:func:`concealed_take_goes_out`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from canasta.engine.cards import (
    BLACK_THREE_VALUE,
    CARD_RANK,
    DEUCE_VALUE,
    IS_RED_THREE,
    JOKER_RANK,
    JOKER_VALUE,
    NATURAL_RANKS,
    RANK_VALUE,
    THREE,
    TWO,
)
from canasta.engine.melds import Meld, wild_limit
from canasta.engine.plans import TakePlan
from canasta.engine.state import ANSWER_PHASE, ASK_NO, MELD_PHASE, OVER

if TYPE_CHECKING:
    from canasta.engine.game import Game


def qualifies_concealed(g: Game, seat: int) -> bool:
    """Whether ``seat`` going out in this turn would go out concealed (A.12.6): nothing
    melded in an earlier turn, nothing added to the partner's melds (C-O12), and the pile
    not taken this turn where C-O6 says that cancels it."""
    r = g.rules
    if g.has_melded[seat] or g.added_to_partner[seat]:
        return False
    if g.took_pile and not r.concealed_out_may_take_pile:
        return False
    return not (g.touched_old and not r.concealed_out_may_add_to_partner)


def may_take_concealed(g: Game, seat: int) -> bool:
    """Whether ``seat``'s side, not yet melded, may take the pile below the minimum count on
    the strength of going out concealed in this turn (A.7.7: C-O5 exempts a concealed going
    out from the minimum; C-O6 lets that turn take the pile; with it ``false`` taking the pile
    cancels the concealed going out, and with it the exemption)."""
    r = g.rules
    return (r.concealed_out_exempt_from_minimum and r.concealed_out_may_take_pile
            and not g.has_melded[seat] and not g.added_to_partner[seat])


def concealed_take_goes_out(g: Game, seat: int, plan: TakePlan) -> bool:
    """Whether the take ``plan``, counting less than the minimum, leaves ``seat`` a way to go
    out concealed in this turn (the caller has checked :func:`may_take_concealed`).  A quick
    necessary condition first (after the take at most one card may be left with no meld of
    its rank to join), then the take played on a copy and :func:`classic_plan`'s exact search."""
    rc = g.rank_counts[seat][:]
    for c in plan.shown:
        rc[CARD_RANK[c]] -= 1
    for _, cards in plan.groups:
        for c in cards:
            rc[CARD_RANK[c]] -= 1
    for c in g.pile[:-1]:
        if not IS_RED_THREE[c]:
            rc[CARD_RANK[c]] += 1
    laid = {plan.rank, *(rank for rank, _ in plan.groups)}
    if sum(1 for x in NATURAL_RANKS if rc[x] == 1 and x not in laid) + (rc[THREE] in (1, 2)) > 1:
        return False
    after = g.copy()
    after.family.take(after, seat, plan)
    if after.phase == OVER:
        return after.went_out == seat
    return classic_plan(after, seat) is not None


def classic_plan(g: Game, seat: int | None = None) -> tuple[int, list[tuple[int, int, int, int]]] | None:
    """A way to go out now: (rank of the card to discard or -1, groups as
    (rank, naturals, deuces, jokers)); None if there is none.

    Exact: every natural card must go to its rank's meld (one per rank), so
    only the wild cards are placed by choice.  Each rank's meld can absorb a
    fixed number of them; completing a canasta costs its deficit to seven; so
    completing the cheapest melds first makes the most canastas, and the wild
    cards left fit iff the total room does.  Discarding a natural card never
    helps (it only lowers a meld's room and the count), so the discards tried
    are the one loose card, or none, or a wild card or a black three."""
    setup = _going_out_setup(g, g.turn if seat is None else seat)
    return None if setup is None else _first_way(g, *setup)


def _first_way(g: Game, side: int, candidates: list[int], rc: list[int], need_min: int,
               exempt: bool) -> tuple[int, list[tuple[int, int, int, int]]] | None:
    melds = g.melds[side]
    for discard in candidates:
        plan = _meld_all_plan(g, side, melds, _without(rc, discard), need_min, exempt)
        if plan is not None:
            return discard, plan
    return None


def going_out_plans(g: Game) -> list[tuple[int, list[tuple[int, int, int, int]]]]:
    """The ways out the generating set offers as one move each: :func:`classic_plan`'s (the
    bots' usual one) first, then every placing of the wild cards that melds the whole hand
    and that no shorter move can lead to.

    Which those are: a way out that keeps a card back to discard, or that has a wild card it
    could lay last with its canastas already made, is reached a card at a time by the other
    generated moves (the melds grow one card at a time; a hand of one card may be laid or
    discarded once the canastas are made).  What only one move reaches is a whole hand whose
    every wild card is needed: each meld takes the least it must (a new pair one), or exactly
    the cards that complete it, and the canastas are then exactly enough.  Where the wild
    cards go there decides which meld is completed (and whether a canasta stays natural), so
    each such placing is a move of its own (deuces and jokers told apart)."""
    setup = _going_out_setup(g, g.turn)
    way = None if setup is None else _first_way(g, *setup)
    if setup is None or way is None:
        return []
    side, candidates, rc, need_min, exempt = setup
    out = [way]
    if candidates[0] == -1 and rc[TWO] + rc[JOKER_RANK]:  # without wild cards every card's place is forced
        first = sorted(way[1]) if way[0] == -1 else None
        for other in _meld_all_plans(g, side, g.melds[side], rc, need_min, exempt):
            if sorted(other) != first:
                out.append((-1, other))
    return out


def _going_out_setup(g: Game, s: int) -> tuple[int, list[int], list[int], int, bool] | None:
    """What both searches start from: the side, the discards worth trying, the hand's rank
    counts, the minimum and whether it is waived; None when quick
    necessary conditions already rule going out out."""
    if g.phase not in (MELD_PHASE, ANSWER_PHASE) or g.ask == ASK_NO:
        return None
    side = g.side_of[s]
    rc = g.rank_counts[s]
    melds = g.melds[side]
    need_min = 0
    if not g.opened[side]:
        need_min = g.minimum(s)
        exempt = g.rules.concealed_out_exempt_from_minimum and qualifies_concealed(g, s)
    else:
        exempt = True
    # quick necessary conditions: at most one card can be left over to
    # discard, and enough canastas must be within reach of the wild cards
    b = rc[THREE]
    if b == 2:
        return None
    loose = [THREE] if b == 1 else []
    reach = g.canasta_counts[side]
    short: list[int] = []
    for r in NATURAL_RANKS:
        k = rc[r]
        m = melds.get(r)
        if m is None:
            if k == 0:
                continue
            if k == 1:
                loose.append(r)
                continue
            size = k
        else:
            size = m.naturals + m.deuces + m.jokers
            if size >= g.canasta_size:
                continue
            size += k
        if size >= g.canasta_size:
            reach += 1
        else:
            short.append(g.canasta_size - size)
    if len(loose) > 1:
        return None
    need_can = g.rules.canastas_to_go_out
    if reach < need_can:
        pool = rc[TWO] + rc[JOKER_RANK]
        for deficit in sorted(short):
            if deficit > 3 or deficit > pool:
                break
            pool -= deficit
            reach += 1
        if reach < need_can:
            return None
    if loose:
        candidates = loose
    else:
        # discarding a natural card never helps: only a wild card (too many
        # for the melds) or a fifth black three can be worth keeping back
        candidates = [-1] + [r for r in (TWO, JOKER_RANK) if rc[r]] + ([THREE] if b > 4 else [])
    return side, candidates, rc, need_min, exempt


def _without(rc: list[int], discard: int) -> list[int]:
    """The hand's rank counts with one card kept back to discard (-1: none)."""
    counts = rc[:]
    if discard >= 0:
        counts[discard] -= 1
    return counts


def _meld_all_plan(g: Game, side: int, melds: dict[int, Meld], counts: list[int],
                   need_min: int, exempt: bool) -> list[tuple[int, int, int, int]] | None:
    r = g.rules
    b = counts[THREE]
    if b and not (3 <= b + (melds[THREE].size if THREE in melds else 0) <= 4):
        return None
    pool = counts[TWO] + counts[JOKER_RANK]
    canastas = g.side_canastas(side)
    value = counts[TWO] * DEUCE_VALUE + counts[JOKER_RANK] * JOKER_VALUE + b * BLACK_THREE_VALUE
    # per target rank (the melds untouched by the hand too, which can take wild cards alone):
    # [naturals from hand, wilds given, capacity left, deficit to a canasta]
    rows: dict[int, list[int]] = {}
    for rank in NATURAL_RANKS:
        k = counts[rank]
        m = melds.get(rank)
        if m is None:
            if k == 0:
                continue
            if k == 1:
                return None
            nat, wil, given = k, 0, 0
            if k == 2:  # a pair needs a wild card to be a meld
                if pool == 0:
                    return None
                pool -= 1
                wil = given = 1
        else:
            nat, wil, given = m.naturals + k, m.deuces + m.jokers, 0
        value += k * RANK_VALUE[rank]
        # an over-full meld (cut-throat partners' melds combined) still takes naturals, no wilds
        cap = max(0, wild_limit(r, nat) - wil)
        size = nat + wil
        before = m.size if m is not None else 0
        if before < g.canasta_size <= size:
            canastas += 1
        rows[rank] = [k, given, cap, max(0, g.canasta_size - size)]
    if not exempt and value < need_min:
        return None
    if canastas < r.canastas_to_go_out:
        # complete the cheapest melds with the free wild cards
        for rank in sorted(rows, key=lambda q: rows[q][3]):
            row = rows[rank]
            if canastas >= r.canastas_to_go_out:
                break
            if 0 < row[3] <= min(row[2], pool):
                pool -= row[3]
                row[1] += row[3]
                row[2] -= row[3]
                canastas += 1
        if canastas < r.canastas_to_go_out:
            return None
    for row in rows.values():
        if not pool:
            break
        give = min(pool, max(row[2], 0))
        row[1] += give
        row[2] -= give
        pool -= give
    if pool:
        return None
    jokers = counts[JOKER_RANK]
    plan: list[tuple[int, int, int, int]] = []
    for rank, (k, given, _, _) in rows.items():
        if k == 0 and given == 0:
            continue
        j = min(jokers, given)
        jokers -= j
        plan.append((rank, k, given - j, j))
    if b:
        plan.append((THREE, b, 0, 0))
    return plan


def _meld_all_plans(g: Game, side: int, melds: dict[int, Meld], counts: list[int],
                    need_min: int, exempt: bool) -> list[list[tuple[int, int, int, int]]]:
    """The placings of the whole hand (``counts``) that go out and that only one move reaches
    (:func:`going_out_plans`): the naturals and black threes go where they must, each meld
    takes the least wild cards it must or exactly those that complete it, and the canastas
    are enough (exactly enough where a meld is completed by wild cards)."""
    r = g.rules
    b = counts[THREE]
    if b and not (3 <= b + (melds[THREE].size if THREE in melds else 0) <= 4):
        return []
    value = counts[TWO] * DEUCE_VALUE + counts[JOKER_RANK] * JOKER_VALUE + b * BLACK_THREE_VALUE
    full = g.canasta_size
    # per meld (those on the table too, which can take wild cards alone): rank, naturals
    # from hand, the wild cards it may take (the least it must, and those completing it) with
    # the canastas each makes
    rows: list[tuple[int, int, list[tuple[int, int]]]] = []
    canastas = g.side_canastas(side)
    for rank in NATURAL_RANKS:
        k = counts[rank]
        m = melds.get(rank)
        if m is None:
            if k == 0:
                continue
            if k == 1:
                return []
            nat, wil, before = k, 0, 0
        else:
            nat, wil, before = m.naturals + k, m.deuces + m.jokers, m.size
        value += k * RANK_VALUE[rank]
        size = nat + wil
        if before < full <= size:
            canastas += 1
        least = 1 if m is None and k == 2 else 0  # a pair needs a wild card to be a meld
        most = max(0, wild_limit(r, nat) - wil)
        takes = [(least, 0)] if least <= most else []
        if size < full and least < full - size <= most:
            takes.append((full - size, 1))
        if not takes:
            return []
        rows.append((rank, k, takes))
    if not exempt and value < need_min:
        return []
    out: list[list[tuple[int, int, int, int]]] = []
    _place_wilds(rows, 0, counts[TWO], counts[JOKER_RANK], canastas, r.canastas_to_go_out, False, [], b, out)
    return out


def _place_wilds(rows: list[tuple[int, int, list[tuple[int, int]]]], i: int, deuces: int, jokers: int,
                 canastas: int, need: int, completed: bool, chosen: list[tuple[int, int, int, int]],
                 threes: int, out: list[list[tuple[int, int, int, int]]]) -> None:
    if i == len(rows):
        if not deuces and not jokers and canastas >= need and not (completed and canastas > need):
            out.append(chosen + [(THREE, threes, 0, 0)] if threes else chosen[:])
        return
    rank, k, takes = rows[i]
    for w, n in takes:
        for d in range(max(0, w - jokers), min(deuces, w) + 1):
            if k or w:
                chosen.append((rank, k, d, w - d))
            _place_wilds(rows, i + 1, deuces - d, jokers - (w - d), canastas + n, need, completed or n == 1,
                         chosen, threes, out)
            if k or w:
                chosen.pop()
