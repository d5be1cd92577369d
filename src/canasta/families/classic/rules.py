"""Classic Canasta (SPEC Part A): the rules that are Classic's own.

Pure functions over the game's state record: the deal (A.3), taking the pile
(A.9), meld planning and laying (A.5, A.7), cut-throat sides (C-O10), going
out concealed (A.12, C-O5) and scoring (A.14).  Generation is in
:mod:`.movegen`, going out in :mod:`.going_out`, the family that gives them to
the game in the package (:class:`canasta.families.classic.Classic`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from canasta.engine import turns
from canasta.engine.cards import (
    CARD_RANK,
    CARD_VALUE,
    IS_BLACK_THREE,
    IS_RED_THREE,
    IS_WILD,
    JOKER_RANK,
    THREE,
    TWO,
    Card,
    make_deck,
)
from canasta.engine.errors import IllegalMoveError, refuse
from canasta.engine.melds import Meld, check_meld_shape
from canasta.engine.moves import Group, Move, group_cards, group_target
from canasta.engine.plans import GroupPlan, MeldPlan, TakePlan
from canasta.engine.scoring import SideScore, red_three_score, score_side
from canasta.engine.state import ASK_NO, MELD_PHASE
from canasta.families.classic.going_out import (
    concealed_take_goes_out,
    may_take_concealed,
    qualifies_concealed,
)

if TYPE_CHECKING:
    from canasta.engine.game import Game


def deal(g: Game, order: Sequence[Card] | None = None) -> None:
    r = g.rules
    deck = make_deck(r.packs)
    if order is None:
        random.Random(g.seed).shuffle(deck)
    else:
        if sorted(order) != sorted(deck):
            raise ValueError(f"deck must be the {len(deck)} cards of {r.packs} packs in some order")
        deck = list(order)[::-1]  # given top first; the stock's top is its end
    g.stock = deck
    n = g.players
    hands = g.hands
    rc = g.rank_counts
    for _ in range(r.hand_size):
        for k in range(1, n + 1):
            s = (g.dealer + k) % n
            c = deck.pop()
            hands[s][c] += 1
            rc[s][CARD_RANK[c]] += 1
    for s in range(n):
        g.hand_sizes[s] = r.hand_size
    # the upcard (A.3.2, A.3.3)
    while g.stock:
        c = g.stock.pop()
        g.pile.append(c)
        if IS_WILD[c]:
            g.pile_frozen = True
            continue
        if IS_RED_THREE[c]:
            if r.red_three_upcard_freezes:
                g.pile_frozen = True
            continue
        if IS_BLACK_THREE[c]:
            if r.black_three_freezes:  # C-O2: a black three turned up freezes, covered or not
                g.pile_frozen = True
            if r.black_three_upcard_covered:
                continue
        break
    # dealt red threes (A.3.4, C-O8)
    for k in range(1, n + 1):
        s = (g.dealer + k) % n
        if r.dealt_red_threes == "immediately_after_deal":
            turns.lay_out_red_threes(g, s)
        else:
            g.red3_pending[s] = True
    turns.begin_turn(g, (g.dealer + 1) % n, first=True)


def finish_error(g: Game, seat: int, canastas_after: int) -> IllegalMoveError | None:
    """May this seat's hand become empty (going out) with this many canastas?"""
    need = g.rules.canastas_to_go_out
    if canastas_after < need:
        if need == 1:
            return refuse("NEEDS_CANASTA")
        return refuse("NEEDS_CANASTA.two_hands" if g.players == 2 else "NEEDS_CANASTA.partners", need=need)
    if g.ask == ASK_NO:
        return refuse("PARTNER_SAID_NO")
    return None


def check_hand_after(g: Game, seat: int, left: int, canastas_after: int, can_discard: bool = True) -> None:
    """A turn must end with a discard unless the player goes out."""
    if left >= 2 or (left == 1 and not can_discard):
        return
    err = finish_error(g, seat, canastas_after)
    if err is not None:
        raise err


def plan_take(g: Game, move: Move) -> TakePlan:
    seat = g.turn
    side = g.side_of[seat]
    blocked = g.pile_block()
    if blocked is not None:
        raise refuse(blocked)
    if g.hand_sizes[seat] == 1 and len(g.pile) == 1:
        raise refuse("ONE_CARD_PILE")
    top = g.pile[-1]
    rt = CARD_RANK[top]
    g0, extras, all_cards, n0, w0 = turns.read_take(g, move)
    existing = g.melds[side].get(rt)
    if g.family.pile_frozen_for(g, side):
        if n0 < 2:
            raise refuse("FROZEN_NEEDS_NATURAL_PAIR" if g.pile_frozen
                         else "FROZEN_NEEDS_NATURAL_PAIR.unmelded", rank=rt)
    elif existing is None and (n0 == 0 or n0 + w0 < 2):
        raise refuse("NO_MATCH_FOR_TOP", rank=rt)
    nat = 1 + n0 + (existing.naturals if existing else 0)
    wil = w0 + (existing.deuces + existing.jokers if existing else 0)
    bad = None if (existing is not None and w0 == 0) else check_meld_shape(g.rules, nat, wil)
    if bad is not None:
        raise refuse(bad)
    remaining = g.hands[seat][:]
    for c in g0:
        remaining[c] -= 1
    groups = plan_groups(g, seat, side, extras, remaining, skip_rank=rt, going_out_ok=False)
    plan = TakePlan(rt, g0, tuple(groups))
    value = take_count(g, plan)
    need = 0 if g.opened[side] else g.minimum(seat)
    if value < need and not may_take_concealed(g, seat):
        raise refuse("INITIAL_MELD_TOO_LOW.pile", value=value, need=need)
    gained = sum(1 for c in g.pile[:-1] if not IS_RED_THREE[c])
    left = g.hand_sizes[seat] - len(all_cards) + gained
    canastas = canastas_after(g, side, [(rt, (*g0, top)), *groups])
    check_hand_after(g, seat, left, canastas)
    if value < need and not concealed_take_goes_out(g, seat, plan):
        # A.7.7 (C-O5, C-O6): below the minimum only as the start of a concealed going out
        raise refuse("INITIAL_MELD_TOO_LOW.pile", value=value, need=need)
    return plan


def take_count(g: Game, plan: TakePlan) -> int:
    """What a take counts towards the minimum (A.7.4): the pile's top card and the cards
    laid from the hand with it."""
    return CARD_VALUE[g.pile[-1]] + sum(CARD_VALUE[c] for c in plan.shown) + sum(
        CARD_VALUE[c] for _, cards in plan.groups for c in cards)


def canastas_after(g: Game, side: int, groups: Sequence[GroupPlan]) -> int:
    melds = g.melds[side]
    count = g.side_canastas(side)
    for r, cards in groups:
        if r == THREE:
            continue
        m = melds.get(r)
        before = m.size if m else 0
        if before < g.canasta_size <= before + len(cards):
            count += 1
    return count


def plan_groups(
    g: Game,
    seat: int,
    side: int,
    groups: Sequence[Group],
    remaining: list[int],
    skip_rank: int = -1,
    going_out_ok: bool = True,
) -> list[GroupPlan]:
    """Check meld groups against the side's melds; returns (rank, cards) pairs."""
    melds = g.melds[side]
    seen: set[int] = set()
    out: list[GroupPlan] = []
    for grp in groups:
        cards = group_cards(grp)
        target = group_target(grp)
        if not cards:
            raise refuse("EMPTY_MELD.group")
        if any(IS_RED_THREE[c] for c in cards):
            raise refuse("RED_THREE_MELD")
        ranks = {CARD_RANK[c] for c in cards if not IS_WILD[c]}
        if len(ranks) > 1:
            raise refuse("MIXED_RANKS", ranks=" ".join(str(r) for r in sorted(ranks)))
        if ranks:
            r = ranks.pop()
            if target is not None and target != r:
                raise refuse("WRONG_TARGET", rank=r, target_rank=target)
        elif target is None:
            raise refuse("ALL_WILD_MELD.name_it")
        else:
            r = target
        if r in seen or r == skip_rank:
            raise refuse("ONE_MELD_PER_RANK", rank=r)
        seen.add(r)
        if r == THREE:
            if any(IS_WILD[c] for c in cards):
                raise refuse("BLACK_THREE_MIXED")
            if not going_out_ok:
                raise refuse("BLACK_THREES_NOT_GOING_OUT")
            have = melds.get(THREE)
            total = len(cards) + (have.size if have else 0)
            if not 3 <= total <= 4:
                raise refuse("BLACK_THREE_COUNT")
            out.append((r, cards))
            continue
        if r in (JOKER_RANK, TWO):
            raise refuse("ALL_WILD_MELD")
        m = melds.get(r)
        nat = sum(1 for c in cards if not IS_WILD[c])
        wil = len(cards) - nat
        if m is None and nat < 2:
            raise refuse("NEEDS_TWO_NATURALS.new_meld", rank=r)
        tn = nat + (m.naturals if m else 0)
        tw = wil + (m.deuces + m.jokers if m else 0)
        # natural cards never make a meld worse (a cut-throat merged meld may be over the limits)
        bad = None if (m is not None and wil == 0) else check_meld_shape(g.rules, tn, tw)
        if bad is not None:
            raise refuse(bad)
        for c in cards:
            remaining[c] -= 1
        out.append((r, cards))
    return out


def plan_meld(g: Game, move: Move, final: bool = False) -> MeldPlan:
    seat = g.turn
    side = g.side_of[seat]
    if not move.groups:
        raise refuse("EMPTY_MELD")
    all_cards = [c for grp in move.groups for c in group_cards(grp)]
    turns.holds(g, seat, all_cards)
    left = g.hand_sizes[seat] - len(all_cards)
    remaining = g.hands[seat][:]
    groups = plan_groups(g, seat, side, move.groups, remaining, going_out_ok=left <= 1 and not final)
    canastas = canastas_after(g, side, groups)
    if final:
        if left == 0:
            raise refuse("FINAL_KEEP_CARD")
    else:
        check_hand_after(g, seat, left, canastas)
    if not g.opened[side]:
        value = sum(CARD_VALUE[c] for c in all_cards)
        need = g.minimum(seat)
        if value < need and not (
            g.rules.concealed_out_exempt_from_minimum and left <= 1 and not final
            and qualifies_concealed(g, seat) and any(
                r != THREE and len(cs) >= g.canasta_size for r, cs in groups)
        ):
            raise refuse("INITIAL_MELD_TOO_LOW", value=value, need=need)
    return MeldPlan(tuple(groups))


def lay_groups(g: Game, seat: int, plan: Sequence[GroupPlan], extra: Card = -1) -> None:
    """Lay planned groups ``(rank, cards)``; ``extra``: the pile's top card, added to the first."""
    side = g.side_of[seat]
    melds = g.melds[side]
    turn_no = g.turn_no
    for r, cards in plan:
        m = melds.get(r)
        if m is None:
            size = len(cards) + (1 if extra >= 0 else 0)
            m = Meld(r, seat, turn_no, size >= g.canasta_size and r != THREE, g.canasta_size)
            melds[r] = m
        elif m.turn != turn_no or m.owner != seat:
            g.touched_old = True
        before = m.naturals + m.deuces + m.jokers
        if extra >= 0:
            m.add(extra)
            extra = -1
        for c in cards:
            turns.remove_card(g, seat, c)
            m.add(c)
        if before < g.canasta_size <= m.naturals + m.deuces + m.jokers and r != THREE:
            g.canasta_counts[side] += 1
    g.opened[side] = True
    g.melded_now = True


def take(g: Game, seat: int, plan: TakePlan) -> None:
    """Take the pile as planned by :func:`plan_take`.  A side's first take that counts less
    than the minimum binds the turn to end by going out (``must_go_out``, A.7.7)."""
    side = g.side_of[seat]
    if not g.opened[side] and take_count(g, plan) < g.minimum(seat):
        g.must_go_out = True
    pile = g.pile
    top = pile.pop()
    lay_groups(g, seat, ((plan.rank, plan.shown), *plan.groups), extra=top)
    hand = g.hands[seat]
    rcs = g.rank_counts[seat]
    known = g.known[seat]
    for c in pile:
        if IS_RED_THREE[c]:
            g.red3[seat].append(c)
        else:
            hand[c] += 1
            rcs[CARD_RANK[c]] += 1
            known[c] += 1
            g.hand_sizes[seat] += 1
    pile.clear()
    g.pile_frozen = False
    g.took_pile = True
    g.phase = MELD_PHASE
    if g.rules.cutthroat and g.lone_seat < 0:
        form_cutthroat_sides(g, seat)
    if g.hand_sizes[seat] == 0:
        turns.go_out(g, seat)


def form_cutthroat_sides(g: Game, lone: int) -> None:
    """C-O10: the first player to take the pile plays alone against the other two."""
    g.lone_seat = lone
    others = [s for s in range(g.players) if s != lone]
    a, b = (g.side_of[s] for s in others)
    keep, drop = min(a, b), max(a, b)
    merged = g.melds[keep]
    for r, m in g.melds[drop].items():
        if r in merged:
            base = merged[r]
            for c in m.cards:
                base.add(c)
            base.concealed = False
        else:
            merged[r] = m
    g.melds[drop] = {}
    g.opened[keep] = g.opened[keep] or g.opened[drop]
    g.opened[drop] = False
    g.recount_canastas()
    for s in others:
        g.side_of[s] = keep


def score(g: Game) -> list[SideScore]:
    """Per side (per player in cut-throat)."""
    r = g.rules
    sides = range(g.num_sides)
    side_scores = []
    for side in sides:
        seats = [s for s in range(g.players) if g.side_of[s] == side]
        cards = [c for s in seats for c in g.hand(s)]
        red = sum(len(g.red3[s]) for s in seats)
        out = g.went_out >= 0 and g.side_of[g.went_out] == side
        side_scores.append(score_side(r, list(g.melds[side].values()), red, g.opened[side],
                                      cards, out, out and g.out_concealed))
    if not r.cutthroat:
        return side_scores
    # cut-throat: every player gets the side's score, red threes counted per player
    out_scores = []
    for s in range(g.players):
        side = g.side_of[s]
        base = side_scores[side]
        has_can = bool(base.canastas)
        own_red = red_three_score(r, len(g.red3[s]), g.opened[side], has_can)
        out_scores.append(SideScore(base.meld_points, base.canasta_bonuses, own_red, base.going_out,
                                    base.hand_penalty, base.canastas))
    return out_scores
