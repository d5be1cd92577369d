"""Italian groups and openings (B.9): cards picked for a group's counts, the
meld a group goes on, and the openings a hand can make."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from canasta.engine.cards import (
    CARD_RANK,
    DEUCE_VALUE,
    IS_WILD,
    JOKER,
    JOKER_RANK,
    JOKER_VALUE,
    NATURAL_RANKS,
    RANK_CARDS,
    TWO,
    Card,
)
from canasta.engine.melds import WILD_MELD
from canasta.engine.moves import MELD, Group, Move, group_cards, group_target
from canasta.engine.options import Spec
from canasta.families.italian.melds import CANASTA, it_group_error, wild_meld_is_clean, wild_meld_kind
from canasta.families.italian.options import italian_rules

if TYPE_CHECKING:
    from canasta.engine.game import Game


def pick(hand: list[int], rank: int, k: int) -> list[Card]:
    out: list[Card] = []
    for c in RANK_CARDS[rank]:
        for _ in range(hand[c]):
            if len(out) == k:
                return out
            out.append(c)
    return out[:k]


def wilds(hand: list[int], d: int, j: int) -> list[Card]:
    return pick(hand, TWO, d) + [JOKER] * min(j, hand[JOKER])


def opening_specs(g: Game, counts: list[int], minimum: int, clean_only: bool,
                  threshold: int | None = None) -> Iterator[list[Spec]]:
    """Sets of new melds (key, naturals, deuces, jokers) worth ``minimum`` or more:
    natural melds of every rank held in pairs, and one meld of wild cards.  Whether
    they must be clean follows ``clean_only`` and the opening ``threshold`` (by
    default ``minimum``)."""
    r = g.rules
    house = italian_rules(r)
    vals = g.card_value
    clean_needed = clean_only or house.opening_must_be_clean(minimum if threshold is None else threshold)
    ranks = [x for x in NATURAL_RANKS if counts[x] >= 2]
    chosen: list[Spec] = []
    tail = [0] * (len(ranks) + 1)
    for i in range(len(ranks) - 1, -1, -1):
        tail[i] = tail[i + 1] + counts[ranks[i]] * vals[RANK_CARDS[ranks[i]][0]]
    dv, jv = DEUCE_VALUE, JOKER_VALUE
    rgit = house.open_deuce_meld == "rgit"

    def rec(i: int, value: int, deuces: int, jokers: int) -> Iterator[list[Spec]]:
        if i == len(ranks):
            # optionally one meld of wild cards
            if value >= minimum:
                yield list(chosen)
            for d in range(0, min(deuces, CANASTA) + 1):
                for j in range(0, min(jokers, CANASTA - d) + 1):
                    if d + j < 3 or it_group_error(house, 0, d, j, True) is not None:
                        continue
                    if clean_needed and not wild_meld_is_clean(d, j):
                        continue
                    if rgit and d + j < CANASTA and wild_meld_kind(house, d, j) == "deuce" and any(
                            q[2] for q in chosen):
                        continue  # I-O14 rgit: no deuces on natural melds beside an open deuce meld
                    if value + d * dv + j * jv >= minimum:
                        chosen.append((WILD_MELD, 0, d, j))
                        yield list(chosen)
                        chosen.pop()
            return
        if value + deuces * dv + jokers * jv + tail[i] < minimum:
            return
        yield from rec(i + 1, value, deuces, jokers)
        x = ranks[i]
        v = vals[RANK_CARDS[x][0]]
        wild_opts = [(0, 0)] if clean_needed else [
            (d, j) for d in range(min(deuces, 3) + 1) for j in range(min(jokers, 3) + 1)]
        for n in range(2, min(counts[x], CANASTA) + 1):
            for d, j in wild_opts:
                if n + d + j < 3 or n + d + j > CANASTA or it_group_error(house, n, d, j, False) is not None:
                    continue
                chosen.append((x, n, d, j))
                yield from rec(i + 1, value + n * v + d * dv + j * jv, deuces - d, jokers - j)
                chosen.pop()

    yield from rec(0, 0, counts[TWO], counts[JOKER_RANK])


def opening_options(g: Game) -> Iterator[Move | tuple[Spec, ...]]:
    """Openings as (key, naturals, deuces, jokers) specs, built legal; the few
    that close a meld or leave under two cards are checked in full."""
    seat = g.turn
    hand = g.hands[seat]
    hsize = g.hand_sizes[seat]
    for spec in opening_specs(g, g.rank_counts[seat][:], minimum=g.minimum(seat), clean_only=False):
        if not spec:
            continue
        used = 0
        closes = False
        for _, n, d, j in spec:
            used += n + d + j
            closes = closes or n + d + j == CANASTA
        if hsize - used >= 2 and not closes:
            yield tuple(spec)
        else:
            move = Move(MELD, tuple(groups_from(hand, spec)))
            if g.is_legal(move):
                yield move


def groups_from(avail: list[int], spec: Sequence[Spec]) -> list[Group]:
    avail = avail[:]
    out: list[Group] = []
    for key, n, d, j in spec:
        cards = (pick(avail, key, n) if key != WILD_MELD else []) + wilds(avail, d, j)
        for c in cards:
            avail[c] -= 1
        out.append(tuple(cards))
    return out


def group_key(grp: Group) -> int:
    """The meld a group goes on: its natural rank, its target, or the wild meld."""
    target = group_target(grp)
    for c in group_cards(grp):
        if not IS_WILD[c]:
            return CARD_RANK[c]
    return WILD_MELD if target is None or target in (TWO, JOKER_RANK) else target
