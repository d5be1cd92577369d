"""Italian move generation (Part B): the pozzo takes, the meld options of an
opened team, and the generating set (:func:`options`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from canasta.engine import turns
from canasta.engine.cards import (
    CARD_RANK,
    IS_NATURAL,
    IS_WILD,
    JOKER,
    JOKER_RANK,
    NATURAL_RANKS,
    NUM_RANKS,
    RANK_CARDS,
    THREE,
    TWO,
)
from canasta.engine.melds import WILD_MELD
from canasta.engine.moves import ASK, DISCARD, DRAW, END, MELD, NO, OPEN, TAKE, YES, Move
from canasta.engine.options import (
    DEUCE_ON_OPT,
    DEUCE_ON_WILD_OPT,
    JOKER_ON_OPT,
    JOKER_ON_WILD_OPT,
    NATURAL_ON_OPT,
    NEW_PAIR_DEUCE_OPT,
    NEW_PAIR_JOKER_OPT,
    NEW_THREE_OPT,
    NEW_WILD_OPT,
    Option,
)
from canasta.engine.state import ANSWER_PHASE, ASK_NO, ASK_NONE, DRAW_PHASE, OVER, DrawMode
from canasta.families.italian.going_out import italian_can_go_out
from canasta.families.italian.melds import CANASTA, it_group_error, wild_meld_is_clean, wild_meld_kind
from canasta.families.italian.openings import groups_from, opening_options, opening_specs, pick, wilds
from canasta.families.italian.options import ItalianRules, italian_rules
from canasta.families.italian.rules import is_deuce_meld, open_allowed
from canasta.families.italian.state import part_of

if TYPE_CHECKING:
    from canasta.engine.game import Game

_ALL_RANKS: Final = tuple(range(NUM_RANKS))
_DRAW_MOVE: Final = Move(DRAW)
_END_MOVE: Final = Move(END)
_ASK_MOVE: Final = Move(ASK)
_YES_MOVE: Final = Move(YES)
_NO_MOVE: Final = Move(NO)

def gen_takes(g: Game) -> Iterator[Move]:
    seat = g.turn
    side = g.side_of[seat]
    r = g.rules
    house = italian_rules(r)
    if not g.pile:
        return
    top = g.pile[-1]
    if not IS_NATURAL[top]:
        return
    rt = CARD_RANK[top]
    rc = g.rank_counts[seat]
    hand = g.hands[seat]
    k = rc[rt]
    frozen = g.pile_frozen
    need = house.frozen_pozzo_naturals if frozen else 2
    options: list[tuple[int, int, int]] = []
    if k >= need:
        options.append((need, 0, 0))
    if not frozen and house.pozzo_take == "classic":
        if rt in g.melds[side]:
            options.append((0, 0, 0))
        elif k >= 1:
            if rc[TWO]:
                options.append((1, 1, 0))
            if rc[JOKER_RANK]:
                options.append((1, 0, 1))
    if g.opened[side]:
        for n0, d0, j0 in options:
            move = Move(TAKE, (tuple(pick(hand, rt, n0) + wilds(hand, d0, j0)),))
            if g.is_legal(move):
                yield move
        return
    # Opening with the pozzo (B.9.6): the cards shown with the top card beyond the
    # taking pair (three if frozen) count towards the minimum, so every size of the
    # top card's meld is its own choice: more naturals of its rank, and wild cards.
    vals = g.card_value
    minimum = g.minimum(seat)
    clean_only = house.dirty_opening_blocks_pozzo or house.opening_must_be_clean(minimum)
    heads: list[tuple[int, int, int]] = []
    for n0, d0, j0 in options:
        for extra in range(0, k - n0 + 1):
            for dd in range((0 if clean_only else rc[TWO] - d0) + 1):
                for jj in range((0 if clean_only else rc[JOKER_RANK] - j0) + 1):
                    h = (n0 + extra, d0 + dd, j0 + jj)
                    size = 1 + sum(h)
                    if size <= CANASTA and h not in heads and it_group_error(
                            house, 1 + h[0], h[1], h[2], False) is None:
                        heads.append(h)
    skip = need if (frozen or house.pozzo_take == "natural_pair_only") else 2
    for n0, d0, j0 in heads:
        g0 = tuple(pick(hand, rt, n0) + wilds(hand, d0, j0))
        counted = sum(vals[c] for c in g0 if IS_WILD[c]) + sum(
            vals[c] for c in [x for x in g0 if not IS_WILD[x]][min(skip, n0):])
        counts = rc[:]
        counts[rt] = 0
        counts[TWO] -= d0
        counts[JOKER_RANK] -= j0
        avail = hand[:]
        for c in g0:
            avail[c] -= 1
        for spec in opening_specs(g, counts, minimum=minimum - counted, clean_only=clean_only, threshold=minimum):
            move = Move(TAKE, (g0, *groups_from(avail, spec)))
            if g.is_legal(move):
                yield move


def gen_melds(g: Game) -> Iterator[Move]:
    """Single-group meld moves for an opened team (each checked), openings otherwise."""
    seat = g.turn
    side = g.side_of[seat]
    hand = g.hands[seat]
    rc = g.rank_counts[seat]
    if not g.opened[side]:
        for opt in opening_options(g):
            yield opt if isinstance(opt, Move) else Move(MELD, tuple(groups_from(hand, list(opt))))
        return
    melds = g.melds[side]
    deuce = pick(hand, TWO, 1)
    cands: list[Move] = []
    for x in NATURAL_RANKS:
        k = rc[x]
        if x in melds:
            if k:
                cands.append(Move(MELD, ((pick(hand, x, 1)[0],),)))
            if deuce:
                cands.append(Move(MELD, ((-(x + 1), deuce[0]),)))
            if rc[JOKER_RANK]:
                cands.append(Move(MELD, ((-(x + 1), JOKER),)))
        elif k >= 2:
            nat = pick(hand, x, 3)
            if k >= 3:
                cands.append(Move(MELD, (tuple(nat),)))
            if deuce:
                cands.append(Move(MELD, ((nat[0], nat[1], deuce[0]),)))
            if rc[JOKER_RANK]:
                cands.append(Move(MELD, ((nat[0], nat[1], JOKER),)))
    d, j = rc[TWO], rc[JOKER_RANK]
    if WILD_MELD in melds:
        if d:
            cands.append(Move(MELD, ((deuce[0],),)))
        if j:
            cands.append(Move(MELD, ((JOKER,),)))
        for dd, jj in ((2, 0), (1, 1), (0, 2)):  # two at once (see fast_meld_options)
            if dd <= d and jj <= j:
                cands.append(Move(MELD, (tuple(wilds(hand, dd, jj)),)))
    else:
        for dd, jj in ((3, 0), (2, 1), (1, 2), (0, 3)):
            if dd <= d and jj <= j:
                cands.append(Move(MELD, (tuple(wilds(hand, dd, jj)),)))
    b = rc[THREE]
    if b >= 3 and italian_rules(g.rules).black_three_melds != "never":
        cands.append(Move(MELD, (tuple(pick(hand, THREE, b)),)))
    for move in cands:
        if g.is_legal(move):
            yield move


def fast_meld_options(g: Game, out: list[Option]) -> None:
    """The single-group meld moves of an opened team as option codes (see
    ``Game.materialize``), checked directly; moves that would leave the hand
    with fewer than two cards are checked in full."""
    r = g.rules
    house = italian_rules(r)
    seat = g.turn
    side = g.side_of[seat]
    hand = g.hands[seat]
    rc = g.rank_counts[seat]
    melds = g.melds[side]
    hsize = g.hand_sizes[seat]
    deuces = rc[TWO]
    jokers = rc[JOKER_RANK]
    clean_turn = part_of(g).clean_turn
    wm = melds.get(WILD_MELD)
    wild_open = wm is not None
    deuce_open = wild_open and wm is not None and is_deuce_meld(house, wm)
    blocks_dirty = house.open_deuce_meld == "no_dirty_canasta_while_deuce_meld_open" and (
        wild_open if house.wild_meld_obligation_all else deuce_open)
    rgit = house.open_deuce_meld == "rgit" and deuce_open
    jw = 2 if house.joker_counts_double else 1
    append = out.append
    slow: list[Move] = []
    never_again = house.new_meld_after_close == "never"
    for x in NATURAL_RANKS:
        k = rc[x]
        m = melds.get(x)
        if m is not None:
            size = m.naturals + m.deuces + m.jokers
            dirty = m.deuces + m.jokers > 0
            closes = size == CANASTA - 1
            if k and not (closes and dirty and blocks_dirty):
                if hsize >= 3:
                    append(NATURAL_ON_OPT + x)
                else:
                    slow.append(Move(MELD, ((pick(hand, x, 1)[0],),)))
            if (deuces or jokers) and not clean_turn and not (closes and blocks_dirty):
                nat = m.naturals
                counted = m.deuces + jw * m.jokers
                if deuces and not rgit and it_limit_ok(house, nat, counted + 1):
                    if hsize >= 3:
                        append(DEUCE_ON_OPT + x)
                    else:
                        slow.append(Move(MELD, ((-(x + 1), pick(hand, TWO, 1)[0]),)))
                if jokers and it_limit_ok(house, nat, counted + jw):
                    if hsize >= 3:
                        append(JOKER_ON_OPT + x)
                    else:
                        slow.append(Move(MELD, ((-(x + 1), JOKER),)))
        elif k >= 2:
            if never_again and any(c.rank == x for c in part_of(g).closed[side]):
                continue
            if hsize < 5:
                three = pick(hand, x, 3)
                if k >= 3:
                    slow.append(Move(MELD, (tuple(three),)))
                if deuces:
                    slow.append(Move(MELD, ((three[0], three[1], pick(hand, TWO, 1)[0]),)))
                if jokers:
                    slow.append(Move(MELD, ((three[0], three[1], JOKER),)))
                continue
            if k >= 3:
                append(NEW_THREE_OPT + x)
            if not clean_turn:
                if deuces and not rgit and it_limit_ok(house, 2, 1):
                    append(NEW_PAIR_DEUCE_OPT + x)
                if jokers and it_limit_ok(house, 2, jw):
                    append(NEW_PAIR_JOKER_OPT + x)
    if deuces or jokers:
        if wild_open and wm is not None:
            if wm.size < CANASTA:
                for code, dd, jj in ((DEUCE_ON_WILD_OPT, 1, 0), (JOKER_ON_WILD_OPT, 0, 1)):
                    if (dd and not deuces) or (jj and not jokers):
                        continue
                    nd, nj = wm.deuces + dd, wm.jokers + jj
                    if wild_meld_kind(house, nd, nj) is None or (clean_turn and not wild_meld_is_clean(nd, nj)):
                        continue
                    if hsize >= 3:
                        append(code)
                    else:
                        slow.append(Move(MELD, ((pick(hand, TWO, 1)[0] if dd else JOKER,),)))
                # two wild cards at once where neither one alone leaves a legal meld
                # (B.8.0: 2 jokers + 2 deuces reads as neither kind; 3 deuces + 2 jokers does)
                for dd, jj in ((2, 0), (1, 1), (0, 2)):
                    nd, nj = wm.deuces + dd, wm.jokers + jj
                    if dd > deuces or jj > jokers or nd + nj > CANASTA or wild_meld_kind(house, nd, nj) is None:
                        continue
                    if any(wild_meld_kind(house, wm.deuces + a, wm.jokers + b) is not None and (
                            not clean_turn or wild_meld_is_clean(wm.deuces + a, wm.jokers + b))
                           for a, b in ((1, 0), (0, 1)) if a <= dd and b <= jj):
                        continue  # reached one card at a time
                    slow.append(Move(MELD, (tuple(wilds(hand, dd, jj)),)))
        elif deuces + jokers >= 3:
            for jj in range(4):
                dd = 3 - jj
                if dd > deuces or jj > jokers or wild_meld_kind(house, dd, jj) is None:
                    continue
                if clean_turn and not wild_meld_is_clean(dd, jj):
                    continue
                if hsize >= 5:
                    append(NEW_WILD_OPT + jj)
                else:
                    slow.append(Move(MELD, (tuple(wilds(hand, dd, jj)),)))
    b = rc[THREE]
    if b >= 3 and house.black_three_melds != "never":
        slow.append(Move(MELD, (tuple(pick(hand, THREE, b)),)))
    for move in slow:
        if g.is_legal(move):
            append(move)


def it_limit_ok(house: ItalianRules, naturals: int, wilds: int) -> bool:
    """B.6.2 / I-O1 as a quick test."""
    if naturals < 2:
        return False
    mode = house.it_wild_limit
    if mode == "italian_1_or_2":
        return wilds <= (1 if naturals == 2 else 2)
    if mode == "max3":
        return wilds <= 3
    return wilds < naturals



def _legal_discards(g: Game, seat: int, rc: list[int]) -> list[Move]:
    """A legal discard of each rank ``seat`` holds (``rc``: its rank counts), one card a rank."""
    hand = g.hands[seat]
    out: list[Move] = []
    for r in _ALL_RANKS:
        if rc[r]:
            move = Move(DISCARD, ((next(x for x in RANK_CARDS[r] if hand[x]),),))
            if g.is_legal(move):
                out.append(move)
    return out

def options(g: Game) -> list[Option]:
    """The Italian generating set (see :mod:`canasta.engine.options`)."""
    phase = g.phase
    if phase == OVER:
        return []
    if phase == ANSWER_PHASE:
        return [_YES_MOVE, _NO_MOVE]
    out: list[Option] = []
    seat = g.turn
    if g.phase == DRAW_PHASE:
        house = italian_rules(g.rules)
        if g.stock and not (house.opening_draws_one and not g.opened[g.side_of[seat]]):
            pile = g.pile
            if not pile:
                return [_DRAW_MOVE]
            top = pile[-1]
            need = house.frozen_pozzo_naturals if g.pile_frozen else 2
            if (not IS_NATURAL[top] or g.rank_counts[seat][CARD_RANK[top]] < need) and (
                    house.pozzo_take != "classic" or g.pile_frozen):
                return [_DRAW_MOVE]
        forced = turns.forced_take(g)
        if g.stock and not forced:
            out.append(_DRAW_MOVE)
            if house.opening_draws_one and open_allowed(g):
                out.append(Move(OPEN))
        out.extend(gen_takes(g))
        if not g.stock and not forced:
            out.append(_END_MOVE)
        return out
    side = g.side_of[seat]
    rc = g.rank_counts[seat]
    if g.ask == ASK_NONE or g.ask == ASK_NO:
        announced = False  # an unopened team that announced a one-card draw opens before discarding
        if g.opened[side]:
            fast_meld_options(g, out)
        else:
            opening_draw = part_of(g).opening_draw
            if opening_draw != DrawMode.UNANNOUNCED:
                out.extend(opening_options(g))
            announced = opening_draw == DrawMode.ANNOUNCED
        if not announced and g.hand_sizes[seat] >= 2:
            out.extend([r for r in _ALL_RANKS if rc[r]])
        elif not announced:
            out.extend(_legal_discards(g, seat, rc))
    else:
        out.extend(m for m in gen_melds(g) if g.is_legal(m))
        out.extend(_legal_discards(g, seat, rc))
    if (g.ask == ASK_NONE and g.hand_sizes[seat] >= 2 and g.has_partner(seat)
            and italian_can_go_out(g, assume_yes=True)):
        out.append(_ASK_MOVE)
    return out
