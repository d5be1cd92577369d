"""Classic move generation (Part A): the generating set of a position as
options (see :mod:`canasta.engine.options`), and the take moves."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Final

from canasta.engine import turns
from canasta.engine.cards import (
    CARD_RANK,
    CARD_VALUE,
    DEUCE_VALUE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    JOKER_RANK,
    JOKER_VALUE,
    NATURAL_RANKS,
    NUM_RANKS,
    RANK_VALUE,
    THREE,
    TWO,
    Card,
)
from canasta.engine.errors import IllegalMoveError, refuse
from canasta.engine.melds import check_meld_shape, wild_limit
from canasta.engine.moves import ASK, DRAW, END, MELD, NO, TAKE, YES, Group, Move
from canasta.engine.options import (
    DEUCE_ON_OPT,
    JOKER_ON_OPT,
    NATURAL_ON_OPT,
    NEW_PAIR_DEUCE_OPT,
    NEW_PAIR_JOKER_OPT,
    NEW_THREE_OPT,
    Option,
    Spec,
    pick,
    pick_deuces,
    suits,
)
from canasta.engine.state import ANSWER_PHASE, ASK_NO, ASK_NONE, ASK_YES, DRAW_PHASE, FINAL_PHASE, OVER
from canasta.families.classic.going_out import going_out_plans, may_take_concealed, qualifies_concealed
from canasta.families.classic.rules import finish_error, plan_take

if TYPE_CHECKING:
    from canasta.engine.game import Game

_ALL_RANKS: Final = tuple(range(NUM_RANKS))
_DRAW_MOVE: Final = Move(DRAW)
_END_MOVE: Final = Move(END)
_ASK_MOVE: Final = Move(ASK)
_YES_MOVE: Final = Move(YES)
_NO_MOVE: Final = Move(NO)


def group_rank(g: Group) -> int:
    """The rank (meld key) a Classic group goes on."""
    if g[0] < 0:
        return -g[0] - 1
    for c in g:
        if not IS_WILD[c]:
            return CARD_RANK[c]
    raise refuse("ALL_WILD_MELD.group")


def gen_takes(g: Game) -> Iterator[Move | tuple[Spec, ...]]:
    """The takes of the generating set: moves, and the takes that open as options (a tuple of
    :data:`Spec`, the group shown with the top card first; :meth:`Game.materialize` builds one)."""
    seat = g.turn
    side = g.side_of[seat]
    if g.pile_block() is not None:
        return
    if g.hand_sizes[seat] == 1 and len(g.pile) == 1:
        return
    top = g.pile[-1]
    rt = CARD_RANK[top]
    rc = g.rank_counts[seat]
    hand = g.hands[seat]
    k = rc[rt]
    frozen = g.family.pile_frozen_for(g, side)
    existing = g.melds[side].get(rt)
    if k < 2 and (frozen or (existing is None and (k == 0 or not (rc[TWO] or rc[JOKER_RANK])))):
        return
    options: list[tuple[int, int, int]] = []  # naturals, deuces, jokers shown with the top
    opened = g.opened[side]
    if not opened:
        # an initial meld: any number of the top card's rank, with wild cards
        for n0 in range(2, k + 1):
            for d, j in wild_splits(n0 + 1, 0, rc[TWO], rc[JOKER_RANK]):
                options.append((n0, d, j))
    elif frozen:
        if k >= 2:
            options.append((2, 0, 0))
    else:
        if existing is not None:
            options.append((0, 0, 0))
        else:
            if k >= 2:
                options.append((2, 0, 0))
            if k >= 1 and rc[TWO]:
                options.append((1, 1, 0))
            if k >= 1 and rc[JOKER_RANK]:
                options.append((1, 0, 1))
    if opened and existing is None and k >= 2 and k + 1 + min(3, rc[TWO] + rc[JOKER_RANK]) >= g.canasta_size:
        # a canasta laid complete from the hand with the top card (A.6.7), with
        # every number of the naturals held and every number of wild cards that
        # completes it (the rest may be discarded or added later)
        for kk in range(max(2, g.canasta_size - 4), k + 1):
            for d, j in wild_splits(kk + 1, 0, rc[TWO], rc[JOKER_RANK]):
                if kk + 1 + d + j >= g.canasta_size and (kk, d, j) not in options:
                    options.append((kk, d, j))
    # the cards the hand holds once the pile is in it (red threes are laid out), before laying
    room = g.hand_sizes[seat] + sum(1 for c in g.pile[:-1] if not IS_RED_THREE[c])
    for n0, d0, j0 in options:
        nat = 1 + n0 + (existing.naturals if existing else 0)
        wil = d0 + j0 + (existing.deuces + existing.jokers if existing else 0)
        if (existing is None or d0 + j0) and check_meld_shape(g.rules, nat, wil) is not None:
            continue
        g0 = pick(hand, rt, n0) + pick_deuces(hand, d0) + [JOKER] * j0
        if opened:
            left = room - len(g0)
            if left < 2:
                size = nat + wil
                grows = 1 if (size - len(g0) - 1 < g.canasta_size <= size) else 0
                if left < 2 and g.canasta_counts[side] + grows < g.rules.canastas_to_go_out:
                    continue
            yield Move(TAKE, (tuple(g0),))
        else:
            base = CARD_VALUE[top] + sum(CARD_VALUE[c] for c in g0)
            if base < g.minimum(seat) and may_take_concealed(g, seat):
                # below the minimum, to go out concealed in this turn (A.7.7, C-O5, C-O6); what
                # the take could lay besides, the melds after it lay as well
                move = Move(TAKE, (tuple(g0),))
                if take_ok(g, move):
                    yield move
            counts = rc[:]
            counts[rt] = 0  # all the top card's rank goes with it, if at all
            counts[TWO] -= d0
            counts[JOKER_RANK] -= j0
            head: Spec = (rt, n0, d0, j0)
            for extra in combos(g, counts, side, base, g.minimum(seat), exclude=rt):
                if opening_take_ok(g, seat, side, room, len(g0), extra):
                    # the option, built only if chosen (Game.materialize): the group shown with
                    # the top card first, then the new melds
                    yield (head, *extra)


def opening_take_ok(g: Game, seat: int, side: int, room: int, shown: int, extra: list[Spec]) -> bool:
    """Whether a take that opens is legal, read from counts: ``room`` the cards the hand would hold
    with the pile's (red threes aside) before laying, ``shown`` cards laid from the hand with the
    top card, and new melds ``extra`` (from :func:`combos`, which reach the minimum). The
    checks of :func:`.rules.plan_take` that such a take can fail, without building the move (an
    unopened hand of 23 cards offers tens of thousands of these takes, at every turn of a rollout)."""
    rules = g.rules
    full = g.canasta_size
    laid = shown
    canastas = g.side_canastas(side) + (1 if shown + 1 >= full else 0)
    for _, k, d, j in extra:
        if check_meld_shape(rules, k, d + j) is not None:
            return False
        laid += k + d + j
        if k + d + j >= full:
            canastas += 1
    left = room - laid
    return left >= 2 or finish_error(g, seat, canastas) is None


def take_ok(g: Game, move: Move) -> bool:
    try:
        plan_take(g, move)
    except IllegalMoveError:
        return False
    return True


def wild_splits(nat: int, wil: int, deuces: int, jokers: int) -> Iterator[tuple[int, int]]:
    """(deuces, jokers) that can still be added, jokers counted separately."""
    room = 3 - wil
    for d in range(0, min(deuces, room) + 1):
        for j in range(0, min(jokers, room - d) + 1):
            yield d, j


def combos(g: Game, counts: list[int], side: int, base: int, need: int,
            exclude: int = -1) -> Iterator[list[Spec]]:
    """Sets of new melds (rank, naturals, deuces, jokers) from ``counts``
    worth ``need`` or more together with ``base``; for initial melds."""
    ranks = [r for r in NATURAL_RANKS if counts[r] >= 2 and r != exclude]
    rules = g.rules
    chosen: list[Spec] = []
    tail = [0] * (len(ranks) + 1)  # value of all naturals from rank i on
    for i in range(len(ranks) - 1, -1, -1):
        tail[i] = tail[i + 1] + counts[ranks[i]] * RANK_VALUE[ranks[i]]

    def rec(i: int, value: int, deuces: int, jokers: int) -> Iterator[list[Spec]]:
        if i == len(ranks):
            if value >= need:
                yield list(chosen)
            return
        # upper bound: everything left melded
        if value + deuces * DEUCE_VALUE + jokers * JOKER_VALUE + tail[i] < need:
            return
        yield from rec(i + 1, value, deuces, jokers)
        r = ranks[i]
        for k in range(2, counts[r] + 1):
            lim = wild_limit(rules, k)
            for d in range(0, min(deuces, lim) + 1):
                for j in range(0, min(jokers, lim - d) + 1):
                    if k + d + j < 3:
                        continue
                    chosen.append((r, k, d, j))
                    yield from rec(i + 1, value + k * RANK_VALUE[r] + d * DEUCE_VALUE + j * JOKER_VALUE,
                                   deuces - d, jokers - j)
                    chosen.pop()

    yield from rec(0, base, counts[TWO], counts[JOKER_RANK])


def groups_from(hand: list[int], spec: list[Spec],
                 used: Sequence[Card] = ()) -> list[Group]:
    avail = hand[:]
    for c in used:
        avail[c] -= 1
    out: list[Group] = []
    for r, k, d, j in spec:
        cards = pick(avail, r, k) + pick_deuces(avail, d) + [JOKER] * j
        for c in cards:
            avail[c] -= 1
        out.append(tuple(cards))
    return out


def gen_openings(g: Game, final: bool) -> Iterator[Move | tuple[Spec, ...]]:
    """Initial melds of a side that has not melded: whole sets of melds that
    reach the minimum (or go out concealed, C-O5)."""
    seat = g.turn
    hand = g.hands[seat]
    rc = g.rank_counts[seat]
    hsize = g.hand_sizes[seat]
    rules = g.rules
    exempt = rules.concealed_out_exempt_from_minimum and not final and qualifies_concealed(g, seat)
    need = g.minimum(seat)
    may_finish = g.ask != ASK_NO
    for spec in combos(g, rc, g.side_of[seat], 0, 0 if exempt else need):
        if not spec:
            continue
        ncards = 0
        canastas = 0
        value = 0
        for r, k, d, j in spec:
            size = k + d + j
            ncards += size
            value += k * RANK_VALUE[r] + d * DEUCE_VALUE + j * JOKER_VALUE
            if size >= g.canasta_size:
                canastas += 1
        left = hsize - ncards
        if final:
            if left == 0:
                continue
        elif left <= 1 and (canastas < rules.canastas_to_go_out or not may_finish):
            continue
        if value < need and (final or left > 1 or not canastas):
            continue
        yield tuple(spec)
    b = rc[THREE]
    if b >= 3 and hsize - b <= 1:
        yield from if_ok(g, Move(MELD, (tuple(pick(hand, THREE, b)),)))


def fast_meld_options(g: Game, out: list[Option]) -> bool:
    """The common meld moves of a side that has melded, as option codes.
    Returns False when going out is certainly impossible (the same quick
    test as :func:`.going_out.classic_plan`, done in the same pass)."""
    seat = g.turn
    side = g.side_of[seat]
    hand = g.hands[seat]
    rc = g.rank_counts[seat]
    melds = g.melds[side]
    rules = g.rules
    hsize = g.hand_sizes[seat]
    # may the hand shrink to 0 or 1 card (going out) with this many canastas?
    can_now = g.canasta_counts[side]
    need = rules.canastas_to_go_out if g.ask != ASK_NO else 1 << 30
    deuces = rc[TWO]
    jokers = rc[JOKER_RANK]
    max3 = rules.wild_ratio == "max3_only"
    append = out.append
    full = g.canasta_size
    loose = 1 if rc[THREE] == 1 else (2 if rc[THREE] == 2 else 0)
    reach = can_now
    short: list[int] = []
    small_ok = hsize >= 3 or can_now >= need
    for r, m in melds.items():
        if r == THREE:
            continue
        k = rc[r]
        size = m.naturals + m.deuces + m.jokers
        if small_ok or (size == full - 1 and can_now + 1 >= need):
            if k:
                append(NATURAL_ON_OPT + r)
            if deuces or jokers:
                nat = m.naturals
                if m.deuces + m.jokers < (3 if (max3 or nat >= 3) else nat):
                    if deuces:
                        append(DEUCE_ON_OPT + r)
                    if jokers:
                        append(JOKER_ON_OPT + r)
        if size < full:
            if size + k >= full:
                reach += 1
            else:
                short.append(full - size - k)
    new_ok = hsize >= 5 or can_now >= need
    for r in NATURAL_RANKS:
        k = rc[r]
        if not k or r in melds:
            continue
        if k == 1:
            loose += 1
            continue
        if k >= full:
            reach += 1
        else:
            short.append(full - k)
        if not new_ok:
            continue
        if k >= 3:
            append(NEW_THREE_OPT + r)
        if deuces:
            append(NEW_PAIR_DEUCE_OPT + r)
        if jokers:
            append(NEW_PAIR_JOKER_OPT + r)
        if k + deuces + jokers >= full and k + 3 >= full:
            # a canasta laid complete (concealed, A.6.7), with every number of the
            # naturals held: the ones kept back may be discarded or added later
            for kk in range(max(2, full - 3), k + 1):
                nat_cards = pick(hand, r, kk)
                for d, j in wild_splits(kk, 0, deuces, jokers):
                    if kk + d + j >= full:
                        move = Move(MELD, (tuple(nat_cards + pick_deuces(hand, d)
                                                 + [JOKER] * j),))
                        if meld_ok(g, move):
                            append(move)
    b = rc[THREE]
    if b >= 3 and hsize - b <= 1:
        move = Move(MELD, (tuple(pick(hand, THREE, b)),))
        if meld_ok(g, move):
            append(move)
    if loose > 1:
        return False
    if reach < rules.canastas_to_go_out:
        pool = deuces + jokers
        for deficit in sorted(short):
            if deficit > 3 or deficit > pool:
                break
            pool -= deficit
            reach += 1
        return reach >= rules.canastas_to_go_out
    return True


def options(g: Game) -> list[Option]:
    """The generating set: option codes (``code * 16 + rank``) for the common
    moves, Move objects for the rest."""
    phase = g.phase
    if phase == OVER:
        return []
    if phase == ANSWER_PHASE:
        return [_YES_MOVE, _NO_MOVE]
    out: list[Option] = []
    if phase == DRAW_PHASE:
        if g.stock:
            # the common case, decided cheaply: nothing matches the top card
            pile = g.pile
            if not pile:
                return [_DRAW_MOVE]
            top = pile[-1]
            rt = CARD_RANK[top]
            if (not IS_NATURAL[top] or not g.rank_counts[g.turn][rt]) and (
                    rt not in g.melds[g.side_of[g.turn]]):
                return [_DRAW_MOVE]
        forced = turns.forced_take(g)
        if g.stock and not forced:
            out.append(_DRAW_MOVE)
        out.extend(gen_takes(g))
        if not g.stock and not forced:
            out.append(_END_MOVE)
        return out
    seat = g.turn
    opened = g.opened[g.side_of[seat]]
    if phase == FINAL_PHASE:
        out.extend(gen_melds_checked(g) if opened else gen_openings(g, True))
        out.append(_END_MOVE)
        return out
    maybe_out = True
    if not opened:
        if g.ask == ASK_YES:  # a yes binds (A.12.3): only openings after which the player can still go out
            out.extend([o for o in gen_openings(g, False) if g.is_legal(g.materialize(o))])
        else:
            out.extend(gen_openings(g, False))
    elif g.ask == ASK_YES or g.must_go_out:
        out.extend(gen_melds_checked(g))
    else:
        maybe_out = fast_meld_options(g, out)
    hsize = g.hand_sizes[seat]
    plans = going_out_plans(g) if maybe_out else []
    for plan in plans:
        if plan[1]:
            out.append(going_out_move(g, plan))
    # discards
    if hsize == 1:
        if finish_error(g, seat, g.canasta_counts[g.side_of[seat]]) is None:
            out.append(CARD_RANK[g.hand(seat)[0]])
    elif g.ask != ASK_YES and not g.must_go_out:
        rc = g.rank_counts[seat]
        out.extend([r for r in _ALL_RANKS if rc[r]])
    if plans and g.ask == ASK_NONE and hsize >= 2 and g.has_partner(seat) and not g.must_go_out:
        out.append(_ASK_MOVE)
    return out


def gen_melds_checked(g: Game) -> Iterator[Move]:
    """The single-group meld moves, each checked in full (rare states)."""
    seat = g.turn
    side = g.side_of[seat]
    hand = g.hands[seat]
    rc = g.rank_counts[seat]
    melds = g.melds[side]
    deuce = TWO * 4 + suits(hand, TWO, 1)[0] if rc[TWO] else -1
    for r in NATURAL_RANKS:
        k = rc[r]
        m = melds.get(r)
        if m is not None:
            if k:
                yield from if_ok(g, Move(MELD, ((pick(hand, r, 1)[0],),)))
                if k > 1:
                    yield from if_ok(g, Move(MELD, (tuple(pick(hand, r, k)),)))
            if deuce >= 0:
                yield from if_ok(g, Move(MELD, ((-(r + 1), deuce),)))
            if rc[JOKER_RANK]:
                yield from if_ok(g, Move(MELD, ((-(r + 1), JOKER),)))
        elif k >= 2:
            nat = pick(hand, r, k)
            if k >= 3:
                yield from if_ok(g, Move(MELD, (tuple(nat[:3]),)))
            if deuce >= 0:
                yield from if_ok(g, Move(MELD, ((nat[0], nat[1], deuce),)))
            if rc[JOKER_RANK]:
                yield from if_ok(g, Move(MELD, ((nat[0], nat[1], JOKER),)))
            if k + min(3, rc[TWO] + rc[JOKER_RANK]) >= g.canasta_size:
                for kk in range(max(2, g.canasta_size - 3), k + 1):
                    for d, j in wild_splits(kk, 0, rc[TWO], rc[JOKER_RANK]):
                        if kk + d + j >= g.canasta_size:
                            cards = nat[:kk] + pick_deuces(hand, d) + [JOKER] * j
                            yield from if_ok(g, Move(MELD, (tuple(cards),)))
    b = rc[THREE]
    if b >= 3 and g.hand_sizes[seat] - b <= 1:
        yield from if_ok(g, Move(MELD, (tuple(pick(hand, THREE, b)),)))


def going_out_move(g: Game, plan: tuple[int, list[Spec]]) -> Move:
    """The move that melds everything a way out (:func:`.going_out.going_out_plans`) lays."""
    avail = g.hands[g.turn][:]
    groups: list[Group] = []
    for r, k, d, j in plan[1]:
        cards = pick(avail, r, k) + pick_deuces(avail, d) + [JOKER] * j
        for c in cards:
            avail[c] -= 1
        groups.append(tuple(cards) if k else (-(r + 1),) + tuple(cards))
    return Move(MELD, tuple(groups))  # legal by construction (tests check it)


def if_ok(g: Game, move: Move) -> Iterator[Move]:
    if g.is_legal(move):
        yield move


def meld_ok(g: Game, move: Move) -> bool:
    return g.is_legal(move)
