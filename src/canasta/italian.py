"""Italian Canasta (SPEC Part B): the rules that differ from Classic.

The same :class:`~canasta.game.Game` plays both families; for Italian rule sets
it calls the functions here for the deal (cut, pozzo), taking the pozzo, melds
that close at seven, wild-card melds and special canastas, the opening, going
out and scoring.  Nothing here keeps state of its own.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Final

from canasta.cards import (
    CARD_RANK,
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    JOKER_RANK,
    NATURAL_RANKS,
    NUM_CARDS,
    RANK_CARDS,
    THREE,
    TWO,
    Card,
    make_deck,
)
from canasta.errors import IllegalMoveError, refuse
from canasta.fairdeal import DealRandom
from canasta.melds import (
    CANASTA_SIZE,
    WILD_MELD,
    Meld,
    it_canasta,
    it_group_error,
    wild_meld_is_clean,
    wild_meld_kind,
)
from canasta.moves import MELD, TAKE, Group, Move, group_cards, group_target
from canasta.rules import RuleSet
from canasta.scoring import SideScore

if TYPE_CHECKING:
    from canasta.game import Game, Option

GroupPlan = tuple[int, list[Card]]  # (meld key, cards from the hand)


def card_values(rules: RuleSet) -> tuple[int, ...]:
    from canasta.cards import CARD_VALUE

    vals = list(CARD_VALUE)
    for c in (4, 7):  # 3S, 3C
        vals[c] = rules.black_three_value
    return tuple(vals)


def pozzo_count(card: Card) -> int:
    """Cards put under a turned natural card (B.4.1): pip value, J 11, Q 12, K 13, A 14."""
    return CARD_RANK[card] + 2


# ---------------------------------------------------------------------------- the deal


def deal(g: Game, order: Sequence[Card] | None, cut: int | None, stream: DealRandom | None = None) -> None:
    """Shuffle, cut (B.3.2), deal 15 each (B.3.3), replace dealt red threes
    (B.3.4), form the pozzo (B.4).  The randomness comes from ``stream`` (a fair
    deal) or from the game's seed."""
    r = g.rules
    n = g.n
    rng: DealRandom = stream if stream is not None else random.Random(g.seed)
    deck = make_deck(r.packs)
    if order is None:
        rng.shuffle(deck)
        top_first = deck[::-1]
    else:
        if sorted(order) != sorted(deck):
            raise ValueError(f"deck must be the {len(deck)} cards of {r.packs} packs in some order")
        top_first = list(order)
    lift = cut if cut is not None else rng.randrange(30, len(top_first) - 30)
    if not 1 <= lift < len(top_first):
        raise ValueError("cut must lift between 1 and all but one of the cards")
    lifted, rest = top_first[:lift], top_first[lift:]
    cutter = (g.dealer - g.step) % n  # the player on the dealer's right
    taken: list[Card] = []
    if r.cut_wilds != "off":
        while lifted and IS_WILD[lifted[-1]]:
            taken.append(lifted.pop())
    g.stock = (rest + lifted)[::-1]  # the lifted packet goes under; the stock's top is its end
    for c in taken:
        g.add_to_hand(cutter, c, known=True)
    g.cut_cards = taken
    quota = [r.hand_size] * n
    if r.cut_wilds == "counts_toward_15":
        quota[cutter] = max(0, r.hand_size - len(taken))
    stock = g.stock
    for i in range(r.hand_size):
        for k in range(1, n + 1):
            s = (g.dealer + k * g.step) % n
            if i < quota[s]:
                g.add_to_hand(s, stock.pop())
    for k in range(1, n + 1):
        s = (g.dealer + k * g.step) % n
        lay_out_dealt_red_threes(g, s)
    form_pozzo(g, rng)
    g.begin_turn((g.dealer + g.step) % n, first=True)


def lay_out_dealt_red_threes(g: Game, seat: int) -> None:
    """B.3.4: set aside red threes, replace them from the bottom (I-O10)."""
    hand = g.hands[seat]
    bottom = g.rules.dealt_red_three_replacement == "bottom_of_stock"
    for c in (5, 6):
        while hand[c]:
            g.remove_card(seat, c)
            g.red3[seat].append(c)
            while g.stock:
                new = g.stock.pop(0) if bottom else g.stock.pop()
                if IS_RED_THREE[new]:
                    g.red3[seat].append(new)
                    continue
                g.add_to_hand(seat, new)
                break


def form_pozzo(g: Game, rng: DealRandom) -> None:
    """B.4: turn cards until a natural one; put as many cards as its value under it."""
    r = g.rules
    stock = g.stock
    specials: list[Card] = []
    frozen = False
    guard = len(stock)
    top = -1
    while stock and guard >= 0:
        guard -= 1
        c = stock.pop()
        if IS_NATURAL[c]:
            top = c
            break
        if r.pozzo_special_card == "stay_in_pozzo":
            specials.append(c)
            if IS_WILD[c]:
                frozen = True
        elif r.pozzo_special_card == "bottom_and_turn_next":
            stock.insert(0, c)
        else:
            stock.insert(rng.randrange(len(stock) + 1), c)
    if top < 0:  # pragma: no cover - a 162-card pack always has natural cards left
        g.pile = specials
        return
    under = [stock.pop() for _ in range(min(pozzo_count(top), len(stock)))]
    g.pile = specials + under + [top]
    g.pile_frozen = frozen
    if r.pozzo_cards == "face_down" and under:
        g.hidden = [len(specials), len(specials) + len(under)]
    else:
        g.hidden = [0, 0]


# ---------------------------------------------------------------------------- melds


def closed_counts(g: Game, side: int, extra: Sequence[Meld] = ()) -> tuple[int, int, int]:
    """(clean, dirty, natural-rank) canastas a side has closed, plus ``extra``."""
    clean = dirty = natural = 0
    for m in list(g.closed[side]) + list(extra):
        _, counts, _ = it_canasta(g.rules, m)
        if m.rank != WILD_MELD:
            natural += 1
        if counts == "clean":
            clean += 1
        elif counts == "dirty":
            dirty += 1
    return clean, dirty, natural


def requirement_met(rules: RuleSet, clean: int, dirty: int, natural: int) -> bool:
    """B.13.1 with I-O22."""
    mode = rules.going_out_requirement
    if mode == "two_incl_one_clean":
        return clean + dirty >= 2 and clean >= 1
    if mode == "two_any":
        return natural >= 2
    return clean >= 1 and dirty >= 1


def _is_deuce_meld(rules: RuleSet, m: Meld) -> bool:
    return wild_meld_kind(rules, m.deuces, m.jokers) == "deuce"


def plan_groups(
    g: Game, seat: int, groups: Sequence[Group], skip_key: int = -1, going_out: bool = False,
) -> tuple[list[GroupPlan], list[Meld], bool]:
    """Check meld groups for an Italian side.  Returns the plans, the melds that
    close (as they will be), and whether an open wild meld remains afterwards."""
    r = g.rules
    side = g.side_of[seat]
    melds = g.melds[side]
    seen: set[int] = set()
    plans: list[GroupPlan] = []
    closing: list[Meld] = []
    wild_after = WILD_MELD in melds
    deuce_meld_after = wild_after and _is_deuce_meld(r, melds[WILD_MELD])
    adds_deuces_to_naturals = False
    for grp in groups:
        cards = list(group_cards(grp))
        target = group_target(grp)
        if not cards:
            raise refuse("EMPTY_MELD.italian_group")
        if any(IS_RED_THREE[c] for c in cards):
            raise refuse("RED_THREE_MELD.italian")
        ranks = {CARD_RANK[c] for c in cards if not IS_WILD[c]}
        if len(ranks) > 1:
            raise refuse("MIXED_RANKS.italian", ranks=" ".join(str(x) for x in sorted(ranks)))
        if ranks:
            key = ranks.pop()
            if target is not None and target != key:
                raise refuse("WRONG_TARGET.italian", rank=key, target_rank=target)
        elif target is None or target in (TWO, JOKER_RANK):
            key = WILD_MELD
        else:
            key = target
        if key in seen or key == skip_key:
            if key == WILD_MELD:
                raise refuse("ONE_MELD_PER_RANK.italian_wild")
            raise refuse("ONE_MELD_PER_RANK.italian", rank=key)
        seen.add(key)
        if key == THREE:
            mode = r.black_three_melds
            if mode == "never":
                raise refuse("THREES_NEVER_MELDED")
            if any(IS_WILD[c] for c in cards):
                raise refuse("BLACK_THREE_MIXED.italian")
            if not going_out:
                raise refuse("BLACK_THREES_NOT_GOING_OUT.italian")
            top = 6 if mode == "going_out_3_to_6" else 4
            if not 3 <= len(cards) <= top:
                raise refuse("BLACK_THREE_COUNT.italian", top=top)
            plans.append((key, cards))
            continue
        m = melds.get(key)
        if key != WILD_MELD and m is None and target is not None:
            raise refuse("NO_SUCH_MELD", rank=key)
        if key != WILD_MELD and m is None and r.new_meld_after_close == "never" and any(
            x.rank == key for x in g.closed[side]
        ):
            raise refuse("RANK_CLOSED", rank=key)
        nat = sum(1 for c in cards if not IS_WILD[c])
        d = sum(1 for c in cards if CARD_RANK[c] == TWO)
        j = len(cards) - nat - d
        tn = nat + (m.naturals if m else 0)
        td = d + (m.deuces if m else 0)
        tj = j + (m.jokers if m else 0)
        bad = it_group_error(r, tn, td, tj, key == WILD_MELD)
        if bad is not None:
            raise refuse(bad)
        if key != WILD_MELD and d:
            adds_deuces_to_naturals = True
        if tn + td + tj == CANASTA_SIZE:
            after = Meld(key)
            for c in (m.cards if m else []) + cards:
                after.add(c)
            closing.append(after)
            if key == WILD_MELD:
                wild_after = deuce_meld_after = False
        elif key == WILD_MELD:
            wild_after = True
            tmp = Meld(key)
            tmp.deuces, tmp.jokers = td, tj
            deuce_meld_after = _is_deuce_meld(r, tmp)
        plans.append((key, cards))
    # B.8.5: no dirty canasta while a deuce meld (I-O38: any wild meld) stays open
    rule = r.open_deuce_meld
    blocking = wild_after if r.wild_meld_obligation_all else deuce_meld_after
    if rule == "no_dirty_canasta_while_deuce_meld_open" and blocking:
        for m in closing:
            if m.rank != WILD_MELD and m.deuces + m.jokers:
                raise refuse("WILD_MELD_OPEN")
    if rule == "rgit" and deuce_meld_after and adds_deuces_to_naturals:
        raise refuse("DEUCE_MELD_OPEN")
    return plans, closing, wild_after


def groups_are_clean(rules: RuleSet, g: Game, side: int, plans: Sequence[GroupPlan]) -> bool:
    """B.9.2 / B.9.4: no joker or deuce except in wild melds that count as clean."""
    for key, cards in plans:
        wilds = [c for c in cards if IS_WILD[c]]
        if key == WILD_MELD:
            m = g.melds[side].get(WILD_MELD)
            d = sum(1 for c in wilds if c != JOKER) + (m.deuces if m else 0)
            j = sum(1 for c in wilds if c == JOKER) + (m.jokers if m else 0)
            if not wild_meld_is_clean(d, j):
                return False
        elif wilds:
            return False
    return True


_NEEDS_CANASTAS: Final = {"clean_and_dirty": "NEEDS_CANASTAS", "two_incl_one_clean": "NEEDS_CANASTAS.two_incl_one_clean",
                           "two_any": "NEEDS_CANASTAS.two_any"}


def finish_error(g: Game, seat: int, closing: Sequence[Meld], wild_after: bool) -> IllegalMoveError | None:
    """Why this seat may not go out with these canastas closing (None if it may)."""
    r = g.rules
    side = g.side_of[seat]
    clean, dirty, natural = closed_counts(g, side, closing)
    if not requirement_met(r, clean, dirty, natural):
        return refuse(_NEEDS_CANASTAS[r.going_out_requirement])
    if wild_after and r.wild_meld_obligation_all:
        return refuse("WILD_MELD_OPEN.going_out")
    if g.ask == 3:  # ASK_NO
        return refuse("PARTNER_SAID_NO.italian")
    if r.asking_partner == "required" and g.has_partner(seat) and g.ask != 2:
        return refuse("MUST_ASK")
    return None


def final_discard_error(rules: RuleSet, card: Card) -> IllegalMoveError | None:
    if rules.final_discard == "discard_not_wild_or_black3" and (IS_WILD[card] or IS_BLACK_THREE[card]):
        return refuse("BAD_FINAL_DISCARD")
    return None


def check_hand_after(g: Game, seat: int, left: list[int], closing: Sequence[Meld], wild_after: bool) -> None:
    """The player must end the turn with a discard; going out needs a legal final discard."""
    size = sum(left)
    if size >= 2:
        return
    if size == 0 and g.rules.final_discard != "discard_optional":
        raise refuse("KEEP_FINAL_DISCARD")
    err = finish_error(g, seat, closing, wild_after)
    if err is not None:
        raise err
    if size == 1:
        last = next(c for c in range(NUM_CARDS) if left[c])
        err = final_discard_error(g.rules, last)
        if err is not None:
            raise refuse("BAD_FINAL_DISCARD.left_wild" if IS_WILD[last] else "BAD_FINAL_DISCARD.left_black_three")


def opening_check(g: Game, seat: int, value: int, clean: bool, with_pozzo: bool) -> None:
    r = g.rules
    need = g.minimum(seat)
    if value < need:
        raise refuse("INITIAL_MELD_TOO_LOW.pozzo" if with_pozzo else "INITIAL_MELD_TOO_LOW.italian",
                     value=value, need=need)
    if not clean and r.opening_must_be_clean(need):
        raise refuse("OPENING_NOT_CLEAN", need=need)
    if with_pozzo and not clean and r.dirty_opening_blocks_pozzo:
        raise refuse("DIRTY_OPENING_NO_POZZO")


def open_allowed(g: Game) -> bool:
    """I-O31: an opening may be announced (drawing one card) when the hand can
    already make one."""
    seat = g.turn
    if g.opened[g.side_of[seat]] or not g.stock:
        return False
    return any(True for _ in opening_options(g))


def plan_open(g: Game) -> None:
    if not g.rules.opening_draws_one:
        raise refuse("NO_ANNOUNCED_OPENING")
    if g.opened[g.side_of[g.turn]]:
        raise refuse("ALREADY_OPENED")
    if not g.stock:
        raise refuse("STOCK_EMPTY.italian")
    if not open_allowed(g):
        raise refuse("CANNOT_OPEN")


def plan_meld(g: Game, move: Move) -> list[GroupPlan]:
    seat = g.turn
    side = g.side_of[seat]
    if g.draw_mode == 2 and not g.opened[side]:
        raise refuse("OPENING_NOT_ANNOUNCED")
    if not move.groups:
        raise refuse("EMPTY_MELD.italian")
    cards = [c for grp in move.groups for c in group_cards(grp)]
    g.holds(seat, cards)
    left = g.hands[seat][:]
    for c in cards:
        left[c] -= 1
    plans, closing, wild_after = plan_groups(g, seat, move.groups, going_out=sum(left) <= 1)
    vals = g.val
    if not g.opened[side]:
        clean = groups_are_clean(g.rules, g, side, plans)
        opening_check(g, seat, sum(vals[c] for c in cards), clean, with_pozzo=False)
    elif g.clean_turn and not groups_are_clean(g.rules, g, side, plans):
        raise refuse("OPENING_NOT_CLEAN.meld")
    check_hand_after(g, seat, left, closing, wild_after)
    return plans


def plan_take(g: Game, move: Move) -> tuple[int, tuple[Card, ...], list[GroupPlan]]:
    r = g.rules
    seat = g.turn
    side = g.side_of[seat]
    if not g.pile:
        raise refuse("PILE_EMPTY")
    top = g.pile[-1]
    rt = CARD_RANK[top]
    if IS_WILD[top]:
        raise refuse("PILE_BLOCKED.pozzo_wild")
    if IS_BLACK_THREE[top] or IS_RED_THREE[top]:
        raise refuse("PILE_BLOCKED.pozzo_three")
    block = r.pozzo_closed_rank_block
    if block != "off":
        own = block == "own_closed"
        for other in range(g.num_sides):
            if (other == side) == own and any(m.rank == rt for m in g.closed[other]):
                raise refuse("PILE_BLOCKED_CLOSED_RANK" if own else "PILE_BLOCKED_CLOSED_RANK.other", rank=rt)
    g0, extras, all_cards, n0, w0 = g.read_take(move, pozzo=True)
    existing = g.melds[side].get(rt)
    frozen = g.pile_frozen
    need_nat = r.frozen_pozzo_naturals if frozen else 2
    if frozen or r.pozzo_take == "natural_pair_only":
        if n0 < need_nat:
            raise refuse("FROZEN_NEEDS_NATURAL_PAIR.pozzo" if frozen else "NEEDS_NATURAL_PAIR",
                         need=need_nat, rank=rt)
    elif existing is None and (n0 == 0 or n0 + w0 < 2):
        raise refuse("NO_MATCH_FOR_TOP.pozzo", rank=rt)
    d0 = sum(1 for c in g0 if CARD_RANK[c] == TWO)
    j0 = w0 - d0
    tn = 1 + n0 + (existing.naturals if existing else 0)
    td = d0 + (existing.deuces if existing else 0)
    tj = j0 + (existing.jokers if existing else 0)
    bad = it_group_error(r, tn, td, tj, False)
    if bad is not None:
        raise refuse(bad)
    head_meld = Meld(rt)
    for c in (existing.cards if existing else []) + [top, *g0]:
        head_meld.add(c)
    left = g.hands[seat][:]
    for c in all_cards:
        left[c] -= 1
    plans, closing, wild_after = plan_groups(g, seat, extras, skip_key=rt)
    if tn + td + tj == CANASTA_SIZE:
        closing = [head_meld, *closing]
        if r.open_deuce_meld == "no_dirty_canasta_while_deuce_meld_open" and (td + tj) and (
            wild_after if r.wild_meld_obligation_all else (wild_after and _is_deuce_meld(r, g.melds[side][WILD_MELD])
                                                          if WILD_MELD in g.melds[side] else False)
        ):
            raise refuse("WILD_MELD_OPEN")
    vals = g.val
    if not g.opened[side]:
        # B.9.6: the taking cards (the pair, three if frozen) and the top card do not count
        skip = need_nat if (frozen or r.pozzo_take == "natural_pair_only") else min(n0, 2)
        counted = [c for c in g0 if IS_WILD[c]] + [c for c in g0 if not IS_WILD[c]][skip:]
        value = sum(vals[c] for c in counted) + sum(vals[c] for grp in extras for c in group_cards(grp))
        clean = w0 == 0 and groups_are_clean(r, g, side, plans)
        opening_check(g, seat, value, clean, with_pozzo=True)
    elif g.clean_turn and (w0 or not groups_are_clean(r, g, side, plans)):
        raise refuse("OPENING_NOT_CLEAN.take")
    gained = 0
    if r.pozzo_taking == "whole_pozzo":
        gained = sum(1 for c in g.pile[:-1] if not IS_RED_THREE[c])
    if sum(left) + gained < 1:
        raise refuse("KEEP_FINAL_DISCARD.pozzo")
    return rt, tuple(g0), plans


def lay_groups(g: Game, seat: int, plans: Sequence[GroupPlan], extra: Card = -1) -> None:
    """Lay the groups; a meld that reaches seven cards closes and is set aside (B.7.2)."""
    side = g.side_of[seat]
    melds = g.melds[side]
    for key, cards in plans:
        m = melds.get(key)
        if m is None:
            m = Meld(key, seat, g.turn_no)
            melds[key] = m
        elif m.turn != g.turn_no or m.owner != seat:
            g.touched_old = True
        if extra >= 0:
            m.add(extra)
            extra = -1
        for c in cards:
            g.remove_card(seat, c)
            m.add(c)
        if m.size >= CANASTA_SIZE and key != THREE:
            del melds[key]
            g.closed[side].append(m)
            g.ncan[side] += 1
    g.opened[side] = True
    g.melded_now = True


def take(g: Game, seat: int, rt: int, g0: Sequence[Card], plans: list[GroupPlan]) -> bool:
    """Take the pozzo (B.10.8): meld the top card, the rest into the hand
    (I-O32), then draw one card.  Returns False if the hand ended."""
    r = g.rules
    side = g.side_of[seat]
    was_open = g.opened[side]
    top = g.pile.pop()
    lay_groups(g, seat, [(rt, list(g0)), *plans], extra=top)
    if r.pozzo_taking == "whole_pozzo":
        lo, hi = g.hidden
        for i, c in enumerate(g.pile):
            if IS_RED_THREE[c]:
                g.red3[seat].append(c)
                if r.red_three_in_pozzo == "replaced" and not g.draw_cards(seat, 1):
                    return False
            else:
                g.add_to_hand(seat, c, known=not lo <= i < hi)
        g.pile.clear()
        g.hidden = [0, 0]
    g.pile_frozen = False
    g.took_pile = True
    if not was_open and g.rules.opening_must_be_clean(g.minimum(seat)):
        g.clean_turn = True
    return g.draw_cards(seat, 1)


# ---------------------------------------------------------------------------- generation


def _pick(hand: list[int], rank: int, k: int) -> list[Card]:
    out: list[Card] = []
    for c in RANK_CARDS[rank]:
        for _ in range(hand[c]):
            if len(out) == k:
                return out
            out.append(c)
    return out[:k]


def _wilds(hand: list[int], d: int, j: int) -> list[Card]:
    return _pick(hand, TWO, d) + [JOKER] * min(j, hand[JOKER])


def gen_takes(g: Game) -> Iterator[Move]:
    seat = g.turn
    side = g.side_of[seat]
    r = g.rules
    if not g.pile:
        return
    top = g.pile[-1]
    if not IS_NATURAL[top]:
        return
    rt = CARD_RANK[top]
    rc = g.rc[seat]
    hand = g.hands[seat]
    k = rc[rt]
    frozen = g.pile_frozen
    need = r.frozen_pozzo_naturals if frozen else 2
    options: list[tuple[int, int, int]] = []
    if k >= need:
        options.append((need, 0, 0))
    if not frozen and r.pozzo_take == "classic":
        if rt in g.melds[side]:
            options.append((0, 0, 0))
        elif k >= 1:
            if rc[TWO]:
                options.append((1, 1, 0))
            if rc[JOKER_RANK]:
                options.append((1, 0, 1))
    if g.opened[side]:
        for n0, d0, j0 in options:
            move = Move(TAKE, (tuple(_pick(hand, rt, n0) + _wilds(hand, d0, j0)),))
            if g.is_legal(move):
                yield move
        return
    # Opening with the pozzo (B.9.6): the cards shown with the top card beyond the
    # taking pair (three if frozen) count towards the minimum, so every size of the
    # top card's meld is its own choice: more naturals of its rank, and wild cards.
    vals = g.val
    minimum = g.minimum(seat)
    clean_only = r.dirty_opening_blocks_pozzo or r.opening_must_be_clean(minimum)
    heads: list[tuple[int, int, int]] = []
    for n0, d0, j0 in options:
        for extra in range(0, k - n0 + 1):
            for dd in range((0 if clean_only else rc[TWO] - d0) + 1):
                for jj in range((0 if clean_only else rc[JOKER_RANK] - j0) + 1):
                    h = (n0 + extra, d0 + dd, j0 + jj)
                    size = 1 + sum(h)
                    if size <= CANASTA_SIZE and h not in heads and it_group_error(
                            r, 1 + h[0], h[1], h[2], False) is None:
                        heads.append(h)
    skip = need if (frozen or r.pozzo_take == "natural_pair_only") else 2
    for n0, d0, j0 in heads:
        g0 = tuple(_pick(hand, rt, n0) + _wilds(hand, d0, j0))
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


def opening_specs(g: Game, counts: list[int], minimum: int, clean_only: bool,
                  threshold: int | None = None) -> Iterator[list[tuple[int, int, int, int]]]:
    """Sets of new melds (key, naturals, deuces, jokers) worth ``minimum`` or more:
    natural melds of every rank held in pairs, and one meld of wild cards.  Whether
    they must be clean follows ``clean_only`` and the opening ``threshold`` (by
    default ``minimum``)."""
    r = g.rules
    vals = g.val
    clean_needed = clean_only or r.opening_must_be_clean(minimum if threshold is None else threshold)
    ranks = [x for x in NATURAL_RANKS if counts[x] >= 2]
    chosen: list[tuple[int, int, int, int]] = []
    tail = [0] * (len(ranks) + 1)
    for i in range(len(ranks) - 1, -1, -1):
        tail[i] = tail[i + 1] + counts[ranks[i]] * vals[RANK_CARDS[ranks[i]][0]]
    dv, jv = 20, 50
    rgit = r.open_deuce_meld == "rgit"

    def rec(i: int, value: int, deuces: int, jokers: int) -> Iterator[list[tuple[int, int, int, int]]]:
        if i == len(ranks):
            # optionally one meld of wild cards
            if value >= minimum:
                yield list(chosen)
            for d in range(0, min(deuces, CANASTA_SIZE) + 1):
                for j in range(0, min(jokers, CANASTA_SIZE - d) + 1):
                    if d + j < 3 or it_group_error(r, 0, d, j, True) is not None:
                        continue
                    if clean_needed and not wild_meld_is_clean(d, j):
                        continue
                    if rgit and d + j < CANASTA_SIZE and wild_meld_kind(r, d, j) == "deuce" and any(
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
        for n in range(2, min(counts[x], CANASTA_SIZE) + 1):
            for d, j in wild_opts:
                if n + d + j < 3 or n + d + j > CANASTA_SIZE or it_group_error(r, n, d, j, False) is not None:
                    continue
                chosen.append((x, n, d, j))
                yield from rec(i + 1, value + n * v + d * dv + j * jv, deuces - d, jokers - j)
                chosen.pop()

    yield from rec(0, 0, counts[TWO], counts[JOKER_RANK])


def opening_options(g: Game) -> Iterator[Move | tuple[tuple[int, int, int, int], ...]]:
    """Openings as (key, naturals, deuces, jokers) specs, built legal; the few
    that close a meld or leave under two cards are checked in full."""
    seat = g.turn
    hand = g.hands[seat]
    hsize = g.hsize[seat]
    for spec in opening_specs(g, g.rc[seat][:], minimum=g.minimum(seat), clean_only=False):
        if not spec:
            continue
        used = 0
        closes = False
        for _, n, d, j in spec:
            used += n + d + j
            closes = closes or n + d + j == CANASTA_SIZE
        if hsize - used >= 2 and not closes:
            yield tuple(spec)
        else:
            move = Move(MELD, tuple(groups_from(hand, spec)))
            if g.is_legal(move):
                yield move


def groups_from(avail: list[int], spec: Sequence[tuple[int, int, int, int]]) -> list[Group]:
    avail = avail[:]
    out: list[Group] = []
    for key, n, d, j in spec:
        cards = (_pick(avail, key, n) if key != WILD_MELD else []) + _wilds(avail, d, j)
        for c in cards:
            avail[c] -= 1
        out.append(tuple(cards))
    return out


def gen_melds(g: Game) -> Iterator[Move]:
    """Single-group meld moves for an opened team (each checked), openings otherwise."""
    seat = g.turn
    side = g.side_of[seat]
    hand = g.hands[seat]
    rc = g.rc[seat]
    if not g.opened[side]:
        for opt in opening_options(g):
            yield opt if isinstance(opt, Move) else Move(MELD, tuple(groups_from(hand, list(opt))))
        return
    melds = g.melds[side]
    deuce = _pick(hand, TWO, 1)
    cands: list[Move] = []
    for x in NATURAL_RANKS:
        k = rc[x]
        if x in melds:
            if k:
                cands.append(Move(MELD, ((_pick(hand, x, 1)[0],),)))
            if deuce:
                cands.append(Move(MELD, ((-(x + 1), deuce[0]),)))
            if rc[JOKER_RANK]:
                cands.append(Move(MELD, ((-(x + 1), JOKER),)))
        elif k >= 2:
            nat = _pick(hand, x, 3)
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
                cands.append(Move(MELD, (tuple(_wilds(hand, dd, jj)),)))
    else:
        for dd, jj in ((3, 0), (2, 1), (1, 2), (0, 3)):
            if dd <= d and jj <= j:
                cands.append(Move(MELD, (tuple(_wilds(hand, dd, jj)),)))
    b = rc[THREE]
    if b >= 3 and g.rules.black_three_melds != "never":
        cands.append(Move(MELD, (tuple(_pick(hand, THREE, b)),)))
    for move in cands:
        if g.is_legal(move):
            yield move


def group_key(grp: Group) -> int:
    """The meld a group goes on: its natural rank, its target, or the wild meld."""
    target = group_target(grp)
    for c in group_cards(grp):
        if not IS_WILD[c]:
            return CARD_RANK[c]
    return WILD_MELD if target is None or target in (TWO, JOKER_RANK) else target


def fast_meld_options(g: Game, out: list[Option]) -> None:
    """The single-group meld moves of an opened team as option codes (see
    ``Game._materialize``), checked directly; moves that would leave the hand
    with fewer than two cards are checked in full."""
    r = g.rules
    seat = g.turn
    side = g.side_of[seat]
    hand = g.hands[seat]
    rc = g.rc[seat]
    melds = g.melds[side]
    hsize = g.hsize[seat]
    deuces = rc[TWO]
    jokers = rc[JOKER_RANK]
    clean_turn = g.clean_turn
    wm = melds.get(WILD_MELD)
    wild_open = wm is not None
    deuce_open = wild_open and wm is not None and _is_deuce_meld(r, wm)
    blocks_dirty = r.open_deuce_meld == "no_dirty_canasta_while_deuce_meld_open" and (
        wild_open if r.wild_meld_obligation_all else deuce_open)
    rgit = r.open_deuce_meld == "rgit" and deuce_open
    jw = 2 if r.joker_counts_double else 1
    append = out.append
    slow: list[Move] = []
    never_again = r.new_meld_after_close == "never"
    for x in NATURAL_RANKS:
        k = rc[x]
        m = melds.get(x)
        if m is not None:
            size = m.naturals + m.deuces + m.jokers
            dirty = m.deuces + m.jokers > 0
            closes = size == CANASTA_SIZE - 1
            if k and not (closes and dirty and blocks_dirty):
                if hsize >= 3:
                    append(16 + x)
                else:
                    slow.append(Move(MELD, ((_pick(hand, x, 1)[0],),)))
            if (deuces or jokers) and not clean_turn and not (closes and blocks_dirty):
                nat = m.naturals
                counted = m.deuces + jw * m.jokers
                if deuces and not rgit and it_limit_ok(r, nat, counted + 1):
                    if hsize >= 3:
                        append(32 + x)
                    else:
                        slow.append(Move(MELD, ((-(x + 1), _pick(hand, TWO, 1)[0]),)))
                if jokers and it_limit_ok(r, nat, counted + jw):
                    if hsize >= 3:
                        append(48 + x)
                    else:
                        slow.append(Move(MELD, ((-(x + 1), JOKER),)))
        elif k >= 2:
            if never_again and any(c.rank == x for c in g.closed[side]):
                continue
            if hsize < 5:
                three = _pick(hand, x, 3)
                if k >= 3:
                    slow.append(Move(MELD, (tuple(three),)))
                if deuces:
                    slow.append(Move(MELD, ((three[0], three[1], _pick(hand, TWO, 1)[0]),)))
                if jokers:
                    slow.append(Move(MELD, ((three[0], three[1], JOKER),)))
                continue
            if k >= 3:
                append(64 + x)
            if not clean_turn:
                if deuces and not rgit and it_limit_ok(r, 2, 1):
                    append(80 + x)
                if jokers and it_limit_ok(r, 2, jw):
                    append(96 + x)
    if deuces or jokers:
        if wild_open and wm is not None:
            if wm.size < CANASTA_SIZE:
                for code, dd, jj in ((7, 1, 0), (8, 0, 1)):
                    if (dd and not deuces) or (jj and not jokers):
                        continue
                    nd, nj = wm.deuces + dd, wm.jokers + jj
                    if wild_meld_kind(r, nd, nj) is None or (clean_turn and not wild_meld_is_clean(nd, nj)):
                        continue
                    if hsize >= 3:
                        append(code << 4)
                    else:
                        slow.append(Move(MELD, ((_pick(hand, TWO, 1)[0] if dd else JOKER,),)))
                # two wild cards at once where neither one alone leaves a legal meld
                # (B.8.0: 2 jokers + 2 deuces reads as neither kind; 3 deuces + 2 jokers does)
                for dd, jj in ((2, 0), (1, 1), (0, 2)):
                    nd, nj = wm.deuces + dd, wm.jokers + jj
                    if dd > deuces or jj > jokers or nd + nj > CANASTA_SIZE or wild_meld_kind(r, nd, nj) is None:
                        continue
                    if any(wild_meld_kind(r, wm.deuces + a, wm.jokers + b) is not None and (
                            not clean_turn or wild_meld_is_clean(wm.deuces + a, wm.jokers + b))
                           for a, b in ((1, 0), (0, 1)) if a <= dd and b <= jj):
                        continue  # reached one card at a time
                    slow.append(Move(MELD, (tuple(_wilds(hand, dd, jj)),)))
        elif deuces + jokers >= 3:
            for jj in range(4):
                dd = 3 - jj
                if dd > deuces or jj > jokers or wild_meld_kind(r, dd, jj) is None:
                    continue
                if clean_turn and not wild_meld_is_clean(dd, jj):
                    continue
                if hsize >= 5:
                    append((9 << 4) + jj)
                else:
                    slow.append(Move(MELD, (tuple(_wilds(hand, dd, jj)),)))
    b = rc[THREE]
    if b >= 3 and r.black_three_melds != "never":
        slow.append(Move(MELD, (tuple(_pick(hand, THREE, b)),)))
    for move in slow:
        if g.is_legal(move):
            append(move)


def it_limit_ok(rules: RuleSet, naturals: int, wilds: int) -> bool:
    """B.6.2 / I-O1 as a quick test."""
    if naturals < 2:
        return False
    mode = rules.it_wild_limit
    if mode == "italian_1_or_2":
        return wilds <= (1 if naturals == 2 else 2)
    if mode == "max3":
        return wilds <= 3
    return wilds < naturals


# ---------------------------------------------------------------------------- going out


def can_go_out(g: Game, budget: int = 0, assume_yes: bool = False) -> bool:
    """Whether the player to move, whose team has opened, can still go out this turn
    (melding every card but a legal final discard, B.13), decided exactly by
    :func:`going_out_possible`.  ``assume_yes``: as if the partner had already said
    yes (for deciding whether asking makes sense).  ``budget`` is accepted for
    older callers and ignored: the search is exact and always completes."""
    del budget
    seat = g.turn
    side = g.side_of[seat]
    r = g.rules
    if not g.opened[side]:
        return False  # going out while opening is one opening move (offered among the openings)
    if g.ask == 3 or (r.asking_partner == "required" and g.has_partner(seat) and g.ask != 2 and not assume_yes):
        return False  # a "no", or asking is required and has not been answered yes (B.13.4)
    melds = g.melds[side]
    rc = g.rc[seat]
    # a quick necessary condition: a natural card with no meld of its rank to join and
    # no second card of its rank can only be the final discard, so at most one such
    loose = 0
    forced = -1  # the one card that can only be the final discard, if any
    for x in NATURAL_RANKS:
        if rc[x] == 1 and x not in melds:
            loose += 1
            forced = x
    b = rc[THREE]
    if b and not (r.black_three_melds != "never" and 3 <= b <= (6 if r.black_three_melds == "going_out_3_to_6"
                                                                else 4)):
        loose += b
        forced = THREE
    if loose > 1:
        return False
    # more quick necessary conditions: a pair with no meld of its rank needs a wild
    # card; and the canastas this turn could close at most (each rank's cards with
    # every wild card) must be able to meet the requirement (B.13.1)
    wilds = rc[TWO] + rc[JOKER_RANK]
    pairs = 0
    can_clean = can_dirty = 0
    for x in NATURAL_RANKS:
        k = rc[x]
        m = melds.get(x)
        if m is None:
            if k == 2:
                pairs += 1
            size = k
        else:
            size = m.size + k
        can_clean += size // CANASTA_SIZE
        can_dirty += (size + wilds) // CANASTA_SIZE if size else 0
    if pairs > wilds:
        return False
    clean, dirty, natural = closed_counts(g, side)
    if not requirement_met(r, clean, dirty, natural):
        wm = melds.get(WILD_MELD)
        w = (wilds + (wm.size if wm is not None else 0)) // CANASTA_SIZE if r.wild_canastas_count else 0
        if not requirement_met(r, clean + can_clean + w, dirty + can_dirty + w, natural + can_dirty):
            return False
    open_melds = tuple(sorted((k, m.naturals, m.deuces, m.jokers) for k, m in melds.items() if k != THREE))
    closed_ranks = frozenset(m.rank for m in g.closed[side])
    key = (_rules_key(r), tuple(rc), open_melds, min(clean, 2), min(dirty, 2), min(natural, 2), closed_ranks,
           g.clean_turn)
    found = _OUT_ANSWERS.get(key)
    if found is None:
        if len(_OUT_ANSWERS) >= _OUT_ANSWERS_KEPT:
            _OUT_ANSWERS.clear()
        found = _OUT_ANSWERS[key] = going_out_possible(r, tuple(g.rc[seat]), open_melds, clean, dirty, natural,
                                                       closed_ranks, g.clean_turn, forced)
    return found


_OUT_ANSWERS: dict[tuple[object, ...], bool] = {}
_OUT_ANSWERS_KEPT = 4096
_RULE_KEYS: dict[int, tuple[RuleSet, int]] = {}  # id -> (the rule set, kept alive so the id stays its own; key)


def _rules_key(r: RuleSet) -> int:
    """A small number standing for a rule set in cache keys (hashing a RuleSet is slow):
    equal rule sets get the same number."""
    got = _RULE_KEYS.get(id(r))
    if got is not None and got[0] is r:
        return got[1]
    same = [k for other, k in _RULE_KEYS.values() if other == r]
    key = same[0] if same else len({v[1] for v in _RULE_KEYS.values()})
    _RULE_KEYS[id(r)] = (r, key)
    return key

_Shape = tuple[int, int, int]  # naturals, deuces, jokers of one meld


def going_out_possible(r: RuleSet, hand: tuple[int, ...], open_melds: tuple[tuple[int, int, int, int], ...],
                       clean: int, dirty: int, natural: int, closed_ranks: frozenset[int] = frozenset(),
                       clean_turn: bool = False, forced: int = -1) -> bool:
    """The exact going-out decision for an opened team (B.13 with B.6, B.7, B.8.5).

    ``hand`` holds the mover's cards by rank; ``open_melds`` the team's open melds
    as (key, naturals, deuces, jokers); ``clean``/``dirty``/``natural`` the
    canastas it has closed.  The player goes out when every card but the final
    discard can be melded this turn.  Suits do not matter and a turn may hold any
    number of meld moves, so the question is one of counts, decided rank by rank:
    each natural rank takes its naturals and some wild cards, first onto its open
    meld (closing it at seven), then into new melds (each closing at seven, the
    last possibly left open); the rest of the wild cards go to the meld of wild
    cards the same way.  A search over the ranks in order, remembering the wild
    cards left and the canastas closed, tries every split.  The open-wild-meld
    rule (I-O14, I-O38) is decided on the whole turn: a dirty canasta may close
    when the wild meld is not blocking before the turn, after it, or at some
    state it passes through, since the moves can be ordered so.  ``forced``: the
    rank of a card that can only be the final discard (a caller's shortcut), or -1."""
    top3 = 6 if r.black_three_melds == "going_out_3_to_6" else 4
    final = r.final_discard
    wild_discard = final != "discard_not_wild_or_black3"
    counts = list(hand)
    start_disc = False
    if 0 <= forced != THREE:
        counts[forced] -= 1  # a natural card that can only be the final discard
        start_disc = True
    for three_out in (False, True):
        if three_out and (not hand[THREE] or not wild_discard or start_disc):
            continue
        if forced == THREE and not three_out:
            continue
        nb = hand[THREE] - three_out
        if nb and not (r.black_three_melds != "never" and 3 <= nb <= top3):
            continue
        c2 = list(counts)
        c2[THREE] = nb
        if _melds_all(r, tuple(c2), open_melds, clean, dirty, natural, closed_ranks, clean_turn,
                      start_disc or three_out):
            return True
    return False


def _melds_all(r: RuleSet, counts: tuple[int, ...], open_melds: tuple[tuple[int, int, int, int], ...],
               clean: int, dirty: int, natural: int, closed_ranks: frozenset[int], clean_turn: bool,
               discarded: bool) -> bool:
    """Can every card of ``counts`` be melded but one final discard (none yet
    chosen unless ``discarded``): the search over the ranks."""
    by_key = {k: (n, d, j) for k, n, d, j in open_melds}
    ranks = [x for x in NATURAL_RANKS if counts[x] or x in by_key]
    options = []
    less = []  # the same with one card of the rank kept back as the final discard
    for x in ranks:
        may_new = r.new_meld_after_close != "never" or x not in closed_ranks
        opts = _rank_options(r, counts[x], by_key.get(x), may_new, clean_turn)
        options.append(opts)
        less.append(_rank_options(r, counts[x] - 1, by_key.get(x), may_new, clean_turn) if counts[x] else {})
        if not opts and not less[-1]:
            return False
    wild_opts = _wild_options(r, by_key.get(WILD_MELD), clean_turn)
    final = r.final_discard
    cap = 2  # the requirement never asks for more than two of a kind

    def finish(d: int, j: int, c: int, dt: int, nat: int, dirty_closed: bool, deuces_on_nat: bool) -> bool:
        for (dw, jw), outs in wild_opts.items():
            if dw != d or jw != j:
                continue
            for wc, wd, w0_blocks, wf_blocks, between_free, w0_deuce, wf_deuce, between_deuce_free in outs:
                if not requirement_met(r, min(cap, c + wc), min(cap, dt + wd), nat):
                    continue
                if r.wild_meld_obligation_all and wf_blocks:
                    continue  # B.13.3: the open wild meld must be closed first
                rule = r.open_deuce_meld
                if rule == "no_dirty_canasta_while_deuce_meld_open" and dirty_closed and \
                        w0_blocks and wf_blocks and not between_free:
                    continue
                if rule == "rgit" and deuces_on_nat and w0_deuce and wf_deuce and not between_deuce_free:
                    continue
                return True
        return False

    @functools.cache
    def rec(i: int, d: int, j: int, c: int, dt: int, nat: int, dirty_closed: bool, deuces_on_nat: bool,
            disc: bool) -> bool:
        if i == len(options):
            if (disc or final == "discard_optional") and finish(d, j, c, dt, nat, dirty_closed, deuces_on_nat):
                return True
            if not disc and final != "discard_not_wild_or_black3":  # a wild card as the final discard
                if d and finish(d - 1, j, c, dt, nat, dirty_closed, deuces_on_nat):
                    return True
                if j and finish(d, j - 1, c, dt, nat, dirty_closed, deuces_on_nat):
                    return True
            return False
        for table, used in ((options[i], disc), (less[i], True)):
            if table is less[i] and disc:
                continue
            for (dx, jx), rank_outs in table.items():
                if dx > d or jx > j:
                    continue
                for oc, od, odirty in rank_outs:
                    if rec(i + 1, d - dx, j - jx, min(cap, c + oc), min(cap, dt + od), min(cap, nat + oc + od),
                           dirty_closed or odirty, deuces_on_nat or dx > 0, used):
                        return True
        return False

    return rec(0, counts[TWO], counts[JOKER_RANK], min(cap, clean), min(cap, dirty), min(cap, natural), False, False,
               discarded)


def _natural_shape_ok(r: RuleSet, n: int, d: int, j: int) -> bool:
    return it_group_error(r, n, d, j, False) is None


_RANK_OPTIONS: dict[tuple[object, ...], dict[tuple[int, int], set[tuple[int, int, bool]]]] = {}


def _rank_options(r: RuleSet, k: int, meld: _Shape | None, may_new: bool, clean_turn: bool
                  ) -> dict[tuple[int, int], set[tuple[int, int, bool]]]:
    """For one natural rank: {(deuces, jokers) used: {(clean closed, dirty closed,
    a dirty canasta closed)}} over every way of melding all ``k`` naturals."""
    ckey = (_rules_key(r), k, meld, may_new, clean_turn)
    cached = _RANK_OPTIONS.get(ckey)
    if cached is not None:
        return cached
    if len(_RANK_OPTIONS) > 65536:
        _RANK_OPTIONS.clear()
    out: dict[tuple[int, int], set[tuple[int, int, bool]]] = {}
    _RANK_OPTIONS[ckey] = out
    wild_choices = [(0, 0)] if clean_turn else [(d, j) for d in range(4) for j in range(4) if d + j <= 3]

    def add(dj: tuple[int, int], res: tuple[int, int, bool]) -> None:
        out.setdefault(dj, set()).add(res)

    def chain(left: int, new_ok: bool, d: int, j: int, c: int, dt: int) -> None:
        """New melds from ``left`` naturals, the wild cards used so far being d, j."""
        if left == 0:
            add((d, j), (c, dt, dt > 0))
            return
        if not new_ok or left < 2:
            return
        for n in range(2, min(left, CANASTA_SIZE) + 1):
            for dd, jj in wild_choices:
                size = n + dd + jj
                if size < 3 or size > CANASTA_SIZE or not _natural_shape_ok(r, n, dd, jj):
                    continue
                if size == CANASTA_SIZE:
                    pure = dd + jj == 0
                    chain(left - n, new_ok and r.new_meld_after_close != "never", d + dd, j + jj,
                          c + pure, dt + (not pure))
                elif n == left:
                    add((d + dd, j + jj), (c, dt, dt > 0))

    if meld is None:
        if k:
            chain(k, may_new, 0, 0, 0, 0)
        else:
            add((0, 0), (0, 0, False))
        return out
    n0, d0, j0 = meld
    for a in range(0, min(k, CANASTA_SIZE - n0 - d0 - j0) + 1):
        for dd, jj in wild_choices:
            n, d, j = n0 + a, d0 + dd, j0 + jj
            size = n + d + j
            if size > CANASTA_SIZE or (a + dd + jj and not _natural_shape_ok(r, n, d, j)):
                continue
            if size == CANASTA_SIZE:
                pure = d + j == 0
                chain(k - a, r.new_meld_after_close != "never", dd, jj, int(pure), int(not pure))
            elif a == k:
                add((dd, jj), (0, 0, False))
    return out


_WildOutcome = tuple[int, int, bool, bool, bool, bool, bool, bool]


_WILD_OPTIONS: dict[tuple[object, ...], dict[tuple[int, int], set[_WildOutcome]]] = {}


def _wild_options(r: RuleSet, meld: _Shape | None, clean_turn: bool) -> dict[tuple[int, int], set[_WildOutcome]]:
    """For the meld of wild cards: {(deuces, jokers) laid: {(clean closed, dirty
    closed, blocking before, blocking after, not blocking at some point of the
    turn, deuce meld open before, after, no deuce meld open at some point)}}.
    The open meld grows (maybe closing at seven), then new ones may follow, each
    closing at seven but the last; "blocking" is the I-O14/I-O38 state."""
    ckey = (_rules_key(r), meld, clean_turn)
    cached = _WILD_OPTIONS.get(ckey)
    if cached is not None:
        return cached
    out: dict[tuple[int, int], set[_WildOutcome]] = {}
    _WILD_OPTIONS[ckey] = out

    def legal(d: int, j: int) -> bool:
        return 3 <= d + j <= CANASTA_SIZE and it_group_error(r, 0, d, j, True) is None and (
            not clean_turn or wild_meld_is_clean(d, j))

    def deuce_open(shape: tuple[int, int] | None) -> bool:
        return shape is not None and wild_meld_kind(r, shape[0], shape[1]) == "deuce"

    def blocking(shape: tuple[int, int] | None) -> bool:
        return shape is not None and (r.wild_meld_obligation_all or deuce_open(shape))

    def counted(d: int, j: int) -> tuple[int, int]:
        tmp = Meld(WILD_MELD)
        tmp.deuces, tmp.jokers = d, j
        _, kind_counts, _ = it_canasta(r, tmp)
        return (1, 0) if kind_counts == "clean" else ((0, 1) if kind_counts == "dirty" else (0, 0))

    closing = [(d, CANASTA_SIZE - d) for d in range(CANASTA_SIZE + 1) if legal(d, CANASTA_SIZE - d)]
    opening = [(d, j) for d in range(CANASTA_SIZE) for j in range(CANASTA_SIZE - d) if 3 <= d + j < CANASTA_SIZE
               and legal(d, j)]
    start = (meld[1], meld[2]) if meld is not None else None
    w0b, w0d = blocking(start), deuce_open(start)

    def record(ud: int, uj: int, c: int, dt: int, final: tuple[int, int] | None, free: bool, dfree: bool) -> None:
        wfb, wfd = blocking(final), deuce_open(final)
        out.setdefault((ud, uj), set()).add(
            (min(c, 2), min(dt, 2), w0b, wfb, free or not w0b or not wfb, w0d, wfd, dfree or not w0d or not wfd))

    def new_melds(ud: int, uj: int, c: int, dt: int, depth: int) -> None:
        """After the open meld closed (or with none): new wild melds."""
        record(ud, uj, c, dt, None, True, True)
        for d, j in opening:
            record(ud + d, uj + j, c, dt, (d, j), True, True)
        if depth < 2:  # 12 deuces and 6 jokers make at most two wild canastas in a turn
            for d, j in closing:
                cc, cd = counted(d, j)
                new_melds(ud + d, uj + j, c + cc, dt + cd, depth + 1)

    if start is None:
        new_melds(0, 0, 0, 0, 0)
        return out
    d0, j0 = start
    for dd in range(CANASTA_SIZE + 1 - d0 - j0):
        for jj in range(CANASTA_SIZE + 1 - d0 - j0 - dd):
            d, j = d0 + dd, j0 + jj
            if dd + jj and not legal(d, j):
                continue
            if d + j == CANASTA_SIZE:
                cc, cd = counted(d, j)
                new_melds(dd, jj, cc, cd, 1)
            else:
                # stays open: a state on the way that is not blocking lets the dirty
                # canastas (I-O14) or the deuces on natural melds (rgit) come then
                between = [(d0 + a, j0 + b) for a in range(dd + 1) for b in range(jj + 1)
                           if (a, b) not in ((0, 0), (dd, jj)) and legal(d0 + a, j0 + b)]
                free = any(not blocking(s) for s in between)
                dfree = any(not deuce_open(s) for s in between)
                record(dd, jj, 0, 0, (d, j), free, dfree)
    return out


# ---------------------------------------------------------------------------- scoring


def score(g: Game) -> list[SideScore]:
    r = g.rules
    vals = g.val
    went_side = g.side_of[g.went_out] if g.went_out >= 0 else -1
    out = []
    for side in range(g.num_sides):
        seats = [s for s in range(g.n) if g.side_of[s] == side]
        meld_points = 0
        bonuses = 0
        kinds = []
        clean = dirty = total = 0
        for m in g.closed[side]:
            kind, counts, bonus = it_canasta(r, m)
            bonuses += bonus
            kinds.append(kind)
            total += 1
            if counts == "clean":
                clean += 1
            elif counts == "dirty":
                dirty += 1
            if m.rank == WILD_MELD and not r.special_card_values_count:
                continue
            meld_points += sum(vals[c] for c in m.cards)
        for m in g.melds[side].values():
            meld_points += sum(vals[c] for c in m.cards)
        went = side == went_side
        five = 0
        if went:
            mode = r.five_canasta_bonus
            if mode == "hoyle":
                five = 2000 if clean >= 5 else (1000 if clean >= 4 and dirty >= 1 else 0)
            elif mode == "any_vs_all_clean":
                five = 2000 if clean >= 5 else (1000 if total >= 5 else 0)
            elif clean + dirty >= 5 and clean >= 1 and dirty >= 1:
                five = 2000 if clean >= 5 else 1000
            if r.ten_canasta_bonus == "on" and total >= 10:
                five += 2000
        red = sum(len(g.red3[s]) for s in seats)
        red_points = red_three_score(r, red, clean, dirty)
        penalty = -sum(vals[c] * g.hands[s][c] for s in seats for c in range(NUM_CARDS) if g.hands[s][c])
        doubled = r.unopened_pays_double and g.went_out >= 0 and not went and not g.opened[side]
        if doubled:
            penalty *= 2
        out.append(SideScore(meld_points=meld_points, canasta_bonuses=bonuses, red_threes=red_points,
                             going_out=300 if went else 0, hand_penalty=penalty, canastas=tuple(kinds),
                             five_canasta_bonus=five, penalty_doubled=doubled))
    return out


def red_three_score(rules: RuleSet, count: int, clean: int, dirty: int) -> int:
    """B.11.2 x B.11.3 (I-O18)."""
    if count == 0:
        return 0
    value = rules.red_three_points(count)
    if rules.red_three_table == "hoyle_italian":
        return value
    if clean and dirty:
        return value
    if clean:
        return 0
    if dirty:
        return -value
    return -2 * value


def multiplier(clean: int, dirty: int) -> int:
    return 1 if clean and dirty else (0 if clean else (-1 if dirty else -2))
