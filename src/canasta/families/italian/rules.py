"""Italian Canasta (SPEC Part B): the rules that are Italian's own.

Pure functions over the game's state record: the deal (cut, pozzo), taking the
pozzo, melds that close at seven, wild-card melds and special canastas, the
opening, the checks of going out and scoring.  Nothing here keeps state of its
own.  The family that gives them to the game is
:class:`canasta.families.italian.Italian`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from canasta.engine import turns
from canasta.engine.cards import (
    BLACK_THREES,
    CARD_RANK,
    CARD_VALUE,
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    JOKER_RANK,
    NUM_CARDS,
    RED_THREES,
    THREE,
    TWO,
    Card,
    make_deck,
)
from canasta.engine.errors import IllegalMoveError, refuse
from canasta.engine.fairdeal import DealRandom
from canasta.engine.melds import WILD_MELD, Meld
from canasta.engine.moves import Group, Move, group_cards, group_target
from canasta.engine.plans import GroupPlan, MeldPlan, TakePlan
from canasta.engine.rules import RuleSet
from canasta.engine.scoring import SideScore
from canasta.engine.state import ASK_NO, ASK_YES, DrawMode
from canasta.families.italian.melds import (
    CANASTA,
    it_canasta,
    it_group_error,
    wild_meld_is_clean,
    wild_meld_kind,
)
from canasta.families.italian.openings import opening_options
from canasta.families.italian.options import ItalianRules, italian_rules
from canasta.families.italian.state import part_of

if TYPE_CHECKING:
    from canasta.engine.game import Game


def card_values(rules: RuleSet) -> tuple[int, ...]:
    vals = list(CARD_VALUE)
    for c in BLACK_THREES:
        vals[c] = italian_rules(rules).black_three_value
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
    house = italian_rules(r)
    n = g.players
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
    if house.cut_wilds != "off":
        while lifted and IS_WILD[lifted[-1]]:
            taken.append(lifted.pop())
    g.stock = (rest + lifted)[::-1]  # the lifted packet goes under; the stock's top is its end
    for c in taken:
        turns.add_to_hand(g, cutter, c, known=True)
    part_of(g).cut_cards = taken
    quota = [r.hand_size] * n
    if house.cut_wilds == "counts_toward_15":
        quota[cutter] = max(0, r.hand_size - len(taken))
    stock = g.stock
    for i in range(r.hand_size):
        for k in range(1, n + 1):
            s = (g.dealer + k * g.step) % n
            if i < quota[s]:
                turns.add_to_hand(g, s, stock.pop())
    for k in range(1, n + 1):
        s = (g.dealer + k * g.step) % n
        lay_out_dealt_red_threes(g, s)
    form_pozzo(g, rng)
    turns.begin_turn(g, (g.dealer + g.step) % n, first=True)


def lay_out_dealt_red_threes(g: Game, seat: int) -> None:
    """B.3.4: set aside red threes, replace them from the bottom (I-O10)."""
    hand = g.hands[seat]
    bottom = italian_rules(g.rules).dealt_red_three_replacement == "bottom_of_stock"
    for c in RED_THREES:
        while hand[c]:
            turns.remove_card(g, seat, c)
            g.red3[seat].append(c)
            while g.stock:
                new = g.stock.pop(0) if bottom else g.stock.pop()
                if IS_RED_THREE[new]:
                    g.red3[seat].append(new)
                    continue
                turns.add_to_hand(g, seat, new)
                break


def form_pozzo(g: Game, rng: DealRandom) -> None:
    """B.4: turn cards until a natural one; put as many cards as its value under it."""
    r = g.rules
    house = italian_rules(r)
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
        if house.pozzo_special_card == "stay_in_pozzo":
            specials.append(c)
            if IS_WILD[c]:
                frozen = True
        elif house.pozzo_special_card == "bottom_and_turn_next":
            stock.insert(0, c)
        else:
            stock.insert(rng.randrange(len(stock) + 1), c)
    if top < 0:  # pragma: no cover - a 162-card pack always has natural cards left
        g.pile = specials
        return
    under = [stock.pop() for _ in range(min(pozzo_count(top), len(stock)))]
    g.pile = specials + under + [top]
    g.pile_frozen = frozen
    if house.pozzo_cards == "face_down" and under:
        part_of(g).hidden = [len(specials), len(specials) + len(under)]
    else:
        part_of(g).hidden = [0, 0]


# ---------------------------------------------------------------------------- melds


def closed_counts(g: Game, side: int, extra: Sequence[Meld] = ()) -> tuple[int, int, int]:
    """(clean, dirty, natural-rank) canastas a side has closed, plus ``extra``."""
    clean = dirty = natural = 0
    for m in list(part_of(g).closed[side]) + list(extra):
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
    mode = italian_rules(rules).going_out_requirement
    if mode == "two_incl_one_clean":
        return clean + dirty >= 2 and clean >= 1
    if mode == "two_any":
        return natural >= 2
    return clean >= 1 and dirty >= 1


def is_deuce_meld(house: ItalianRules, m: Meld) -> bool:
    return wild_meld_kind(house, m.deuces, m.jokers) == "deuce"


def plan_groups(
    g: Game, seat: int, groups: Sequence[Group], skip_key: int = -1, going_out: bool = False,
) -> tuple[list[GroupPlan], list[Meld], bool]:
    """Check meld groups for an Italian side.  Returns the plans, the melds that
    close (as they will be), and whether an open wild meld remains afterwards."""
    r = g.rules
    house = italian_rules(r)
    side = g.side_of[seat]
    melds = g.melds[side]
    seen: set[int] = set()
    plans: list[GroupPlan] = []
    closing: list[Meld] = []
    wild_after = WILD_MELD in melds
    deuce_meld_after = wild_after and is_deuce_meld(house, melds[WILD_MELD])
    adds_deuces_to_naturals = False
    for grp in groups:
        cards = group_cards(grp)
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
            mode = house.black_three_melds
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
        if key != WILD_MELD and m is None and house.new_meld_after_close == "never" and any(
            x.rank == key for x in part_of(g).closed[side]
        ):
            raise refuse("RANK_CLOSED", rank=key)
        nat = sum(1 for c in cards if not IS_WILD[c])
        d = sum(1 for c in cards if CARD_RANK[c] == TWO)
        j = len(cards) - nat - d
        tn = nat + (m.naturals if m else 0)
        td = d + (m.deuces if m else 0)
        tj = j + (m.jokers if m else 0)
        bad = it_group_error(house, tn, td, tj, key == WILD_MELD)
        if bad is not None:
            raise refuse(bad)
        if key != WILD_MELD and d:
            adds_deuces_to_naturals = True
        if tn + td + tj == CANASTA:
            after = Meld(key)
            for c in (*(m.cards if m else ()), *cards):
                after.add(c)
            closing.append(after)
            if key == WILD_MELD:
                wild_after = deuce_meld_after = False
        elif key == WILD_MELD:
            wild_after = True
            tmp = Meld(key)
            tmp.deuces, tmp.jokers = td, tj
            deuce_meld_after = is_deuce_meld(house, tmp)
        plans.append((key, cards))
    # B.8.5: no dirty canasta while a deuce meld (I-O38: any wild meld) stays open
    rule = house.open_deuce_meld
    blocking = wild_after if house.wild_meld_obligation_all else deuce_meld_after
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
    house = italian_rules(r)
    side = g.side_of[seat]
    clean, dirty, natural = closed_counts(g, side, closing)
    if not requirement_met(r, clean, dirty, natural):
        return refuse(_NEEDS_CANASTAS[house.going_out_requirement])
    if wild_after and house.wild_meld_obligation_all:
        return refuse("WILD_MELD_OPEN.going_out")
    if g.ask == ASK_NO:
        return refuse("PARTNER_SAID_NO.italian")
    if house.asking_partner == "required" and g.has_partner(seat) and g.ask != ASK_YES:
        return refuse("MUST_ASK")
    return None


def final_discard_error(rules: RuleSet, card: Card) -> IllegalMoveError | None:
    if italian_rules(rules).final_discard == "discard_not_wild_or_black3" and (IS_WILD[card] or IS_BLACK_THREE[card]):
        return refuse("BAD_FINAL_DISCARD")
    return None


def check_hand_after(g: Game, seat: int, left: list[int], closing: Sequence[Meld], wild_after: bool) -> None:
    """The player must end the turn with a discard; going out needs a legal final discard."""
    size = sum(left)
    if size >= 2:
        return
    if size == 0 and italian_rules(g.rules).final_discard != "discard_optional":
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
    house = italian_rules(r)
    need = g.minimum(seat)
    if value < need:
        raise refuse("INITIAL_MELD_TOO_LOW.pozzo" if with_pozzo else "INITIAL_MELD_TOO_LOW.italian",
                     value=value, need=need)
    if not clean and house.opening_must_be_clean(need):
        raise refuse("OPENING_NOT_CLEAN", need=need)
    if with_pozzo and not clean and house.dirty_opening_blocks_pozzo:
        raise refuse("DIRTY_OPENING_NO_POZZO")


def open_allowed(g: Game) -> bool:
    """I-O31: an opening may be announced (drawing one card) when the hand can
    already make one."""
    seat = g.turn
    if g.opened[g.side_of[seat]] or not g.stock:
        return False
    return any(True for _ in opening_options(g))


def plan_open(g: Game) -> None:
    if not italian_rules(g.rules).opening_draws_one:
        raise refuse("NO_ANNOUNCED_OPENING")
    if g.opened[g.side_of[g.turn]]:
        raise refuse("ALREADY_OPENED")
    if not g.stock:
        raise refuse("STOCK_EMPTY.italian")
    if not open_allowed(g):
        raise refuse("CANNOT_OPEN")


def plan_meld(g: Game, move: Move) -> MeldPlan:
    seat = g.turn
    side = g.side_of[seat]
    if part_of(g).opening_draw == DrawMode.UNANNOUNCED and not g.opened[side]:
        raise refuse("OPENING_NOT_ANNOUNCED")
    if not move.groups:
        raise refuse("EMPTY_MELD.italian")
    cards = [c for grp in move.groups for c in group_cards(grp)]
    turns.holds(g, seat, cards)
    left = g.hands[seat][:]
    for c in cards:
        left[c] -= 1
    plans, closing, wild_after = plan_groups(g, seat, move.groups, going_out=sum(left) <= 1)
    vals = g.card_value
    if not g.opened[side]:
        clean = groups_are_clean(g.rules, g, side, plans)
        opening_check(g, seat, sum(vals[c] for c in cards), clean, with_pozzo=False)
    elif part_of(g).clean_turn and not groups_are_clean(g.rules, g, side, plans):
        raise refuse("OPENING_NOT_CLEAN.meld")
    check_hand_after(g, seat, left, closing, wild_after)
    return MeldPlan(tuple(plans))


def plan_take(g: Game, move: Move) -> TakePlan:
    r = g.rules
    house = italian_rules(r)
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
    block = house.pozzo_closed_rank_block
    if block != "off":
        own = block == "own_closed"
        for other in range(g.num_sides):
            if (other == side) == own and any(m.rank == rt for m in part_of(g).closed[other]):
                raise refuse("PILE_BLOCKED_CLOSED_RANK" if own else "PILE_BLOCKED_CLOSED_RANK.other", rank=rt)
    g0, extras, all_cards, n0, w0 = turns.read_take(g, move)
    existing = g.melds[side].get(rt)
    if existing is None and house.new_meld_after_close == "never" and any(m.rank == rt for m in part_of(g).closed[side]):
        raise refuse("RANK_CLOSED", rank=rt)  # I-O3: as for a new meld from the hand (B.6.4, B.10.9)
    frozen = g.pile_frozen
    need_nat = house.frozen_pozzo_naturals if frozen else 2
    if frozen or house.pozzo_take == "natural_pair_only":
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
    bad = it_group_error(house, tn, td, tj, False)
    if bad is not None:
        raise refuse(bad)
    head_meld = Meld(rt)
    for c in (existing.cards if existing else []) + [top, *g0]:
        head_meld.add(c)
    left = g.hands[seat][:]
    for c in all_cards:
        left[c] -= 1
    plans, closing, wild_after = plan_groups(g, seat, extras, skip_key=rt)
    if tn + td + tj == CANASTA:
        closing = [head_meld, *closing]
        if house.open_deuce_meld == "no_dirty_canasta_while_deuce_meld_open" and (td + tj) and (
            wild_after if house.wild_meld_obligation_all else (wild_after and is_deuce_meld(house, g.melds[side][WILD_MELD])
                                                          if WILD_MELD in g.melds[side] else False)
        ):
            raise refuse("WILD_MELD_OPEN")
    vals = g.card_value
    if not g.opened[side]:
        # B.9.6: the taking cards (the pair, three if frozen) and the top card do not count
        skip = need_nat if (frozen or house.pozzo_take == "natural_pair_only") else min(n0, 2)
        counted = [c for c in g0 if IS_WILD[c]] + [c for c in g0 if not IS_WILD[c]][skip:]
        value = sum(vals[c] for c in counted) + sum(vals[c] for grp in extras for c in group_cards(grp))
        clean = w0 == 0 and groups_are_clean(r, g, side, plans)
        opening_check(g, seat, value, clean, with_pozzo=True)
    elif part_of(g).clean_turn and (w0 or not groups_are_clean(r, g, side, plans)):
        raise refuse("OPENING_NOT_CLEAN.take")
    gained = 0
    if house.pozzo_taking == "whole_pozzo":
        gained = sum(1 for c in g.pile[:-1] if not IS_RED_THREE[c])
    if sum(left) + gained < 1:
        raise refuse("KEEP_FINAL_DISCARD.pozzo")
    return TakePlan(rt, g0, tuple(plans))


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
            turns.remove_card(g, seat, c)
            m.add(c)
        if m.size >= CANASTA and key != THREE:
            del melds[key]
            part_of(g).closed[side].append(m)
            g.canasta_counts[side] += 1
    g.opened[side] = True
    g.melded_now = True


def take(g: Game, seat: int, plan: TakePlan) -> bool:
    """Take the pozzo (B.10.8): meld the top card, the rest into the hand
    (I-O32), then draw one card.  Returns False if the hand ended."""
    r = g.rules
    house = italian_rules(r)
    side = g.side_of[seat]
    was_open = g.opened[side]
    top = g.pile.pop()
    lay_groups(g, seat, ((plan.rank, plan.shown), *plan.groups), extra=top)
    if house.pozzo_taking == "whole_pozzo":
        lo, hi = part_of(g).hidden
        for i, c in enumerate(g.pile):
            if IS_RED_THREE[c]:
                g.red3[seat].append(c)
                if house.red_three_in_pozzo == "replaced" and not turns.draw_cards(g, seat, 1):
                    return False
            else:
                turns.add_to_hand(g, seat, c, known=not lo <= i < hi)
        g.pile.clear()
        part_of(g).hidden = [0, 0]
    g.pile_frozen = False
    g.took_pile = True
    if not was_open and italian_rules(g.rules).opening_must_be_clean(g.minimum(seat)):
        part_of(g).clean_turn = True
    return turns.draw_cards(g, seat, 1)


# ---------------------------------------------------------------------------- scoring


def score(g: Game) -> list[SideScore]:
    r = g.rules
    house = italian_rules(r)
    vals = g.card_value
    went_side = g.side_of[g.went_out] if g.went_out >= 0 else -1
    out = []
    for side in range(g.num_sides):
        seats = [s for s in range(g.players) if g.side_of[s] == side]
        meld_points = 0
        bonuses = 0
        kinds = []
        clean = dirty = total = 0
        for m in part_of(g).closed[side]:
            kind, counts, bonus = it_canasta(r, m)
            bonuses += bonus
            kinds.append(kind)
            total += 1
            if counts == "clean":
                clean += 1
            elif counts == "dirty":
                dirty += 1
            if m.rank == WILD_MELD and not house.special_card_values_count:
                continue
            meld_points += sum(vals[c] for c in m.cards)
        for m in g.melds[side].values():
            meld_points += sum(vals[c] for c in m.cards)
        went = side == went_side
        five = 0
        if went:
            mode = house.five_canasta_bonus
            if mode == "hoyle":
                five = 2000 if clean >= 5 else (1000 if clean >= 4 and dirty >= 1 else 0)
            elif mode == "any_vs_all_clean":
                five = 2000 if clean >= 5 else (1000 if total >= 5 else 0)
            elif clean + dirty >= 5 and clean >= 1 and dirty >= 1:
                five = 2000 if clean >= 5 else 1000
            if house.ten_canasta_bonus == "on" and total >= 10:
                five += 2000
        red = sum(len(g.red3[s]) for s in seats)
        red_points = red_three_score(r, red, clean, dirty)
        penalty = -sum(vals[c] * g.hands[s][c] for s in seats for c in range(NUM_CARDS) if g.hands[s][c])
        doubled = house.unopened_pays_double and g.went_out >= 0 and not went and not g.opened[side]
        if doubled:
            penalty *= 2
        out.append(SideScore(meld_points=meld_points, canasta_bonuses=bonuses, red_threes=red_points,
                             going_out=300 if went else 0, hand_penalty=penalty, canastas=tuple(kinds),
                             bonuses=(("five_canasta_bonus", five),), penalty_doubled=doubled))
    return out


def red_three_score(rules: RuleSet, count: int, clean: int, dirty: int) -> int:
    """B.11.2 x B.11.3 (I-O18)."""
    if count == 0:
        return 0
    value = rules.red_three_points(count)
    if italian_rules(rules).red_three_table == "hoyle_italian":
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
