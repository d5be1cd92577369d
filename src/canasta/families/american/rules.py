"""Modern American Canasta (SPEC Part C): the rules that are the family's own.

Pure functions over the game's state record: the deal (C.1, C.3), melding and the initial meld
(C.5, C.7), picking the pack (C.9), discards and the empty tray (C.10), the talon (C.8), going
out (C.11) and special hands laid (C.13).  Scoring is in :mod:`.scoring`, generation in
:mod:`.movegen`, the family that gives them to the game in the package
(:class:`canasta.families.american.American`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from canasta.engine import turns
from canasta.engine.cards import (
    ACE,
    CARD_RANK,
    IS_WILD,
    NATURAL_RANKS,
    NUM_CARDS,
    SEVEN,
    THREE,
    Card,
    make_deck,
)
from canasta.engine.errors import REFUSAL_FORMS, IllegalMoveError, refuse
from canasta.engine.melds import WILD_MELD, Meld
from canasta.engine.moves import Group, Move, group_cards, group_target
from canasta.engine.plans import GroupPlan, MeldPlan, TakePlan
from canasta.engine.state import ASK_NO, MELD_PHASE
from canasta.families.american import special
from canasta.families.american.melds import (
    CANASTA,
    CARD_VALUES,
    blocks_going_out,
    group_error,
    is_dead,
)
from canasta.families.american.options import american_rules
from canasta.families.american.state import part_of

if TYPE_CHECKING:
    from canasta.engine.game import Game

#: the turn card: the 9th card from the bottom of the stock; while the stock holds at least this
#: many cards it has not been drawn (C.1.5, C.8.3)
TURN_CARD: Final = 9
#: the talon of the first side to meld, and of the second (C.8.1)
TALONS: Final = (4, 3)
#: the plan key of a special hand (C.13): its one group holds all fourteen cards
SPECIAL: Final = -1
#: the threes' card codes, the natural cards' (not three, not wild) and every card's that is not wild
THREE_CARDS: Final = tuple(c for c in range(NUM_CARDS) if CARD_RANK[c] == THREE)
NATURALS: Final = tuple(c for c in range(NUM_CARDS) if CARD_RANK[c] != THREE and not IS_WILD[c])
NOT_WILD: Final = tuple(c for c in range(NUM_CARDS) if not IS_WILD[c])


def _refuse(key: str, rank: int) -> IllegalMoveError:
    """The refusal ``key``, with the rank if its sentence names one."""
    return refuse(key, rank=rank) if "rank" in REFUSAL_FORMS[key].fields else refuse(key)


# ---------------------------------------------------------------------------- the deal


def deal(g: Game, order: Sequence[Card] | None) -> None:
    """C.1.4: 13 cards each, no upcard; the threes dealt laid out at once or in each player's
    first turn (M-O3)."""
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
    for _ in range(r.hand_size):
        for k in range(1, n + 1):
            s = (g.dealer + k) % n
            c = deck.pop()
            g.hands[s][c] += 1
            g.rank_counts[s][CARD_RANK[c]] += 1
    for s in range(n):
        g.hand_sizes[s] = r.hand_size
    if american_rules(r).talon_source == "set_aside":  # the talons of 4 and 3, face down (M-O14)
        part_of(g).talon_packets = [[deck.pop() for _ in range(size)] for size in TALONS]
    after_deal = american_rules(r).dealt_threes == "after_deal"
    for k in range(1, n + 1):
        s = (g.dealer + k) % n
        if after_deal:
            turns.lay_out_red_threes(g, s)
        else:
            g.red3_pending[s] = True
    turns.begin_turn(g, (g.dealer + 1) % n, first=True)


def turn_card_drawn(g: Game) -> bool:
    """C.1.5: the turn card has left the stock (fewer than nine cards in it)."""
    return len(g.stock) < TURN_CARD


# ---------------------------------------------------------------------------- the opening turn


def opening_turn(g: Game, side: int) -> bool:
    """The side makes its initial meld in this turn: it has not melded, or melded in this turn."""
    return not g.opened[side] or part_of(g).opened_turn[side] == g.turn_no


def talon_due(g: Game, side: int) -> bool:
    """C.8.1, C.8.3: the player to move made the side's initial meld in this turn from the hand
    (not by picking the pack), and the turn card is still in the stock: a talon follows the discard."""
    return (g.opened[side] and part_of(g).opened_turn[side] == g.turn_no and not g.took_pile
            and not turn_card_drawn(g))


def talon_size(g: Game, side: int) -> int:
    """4 if the side is the first to meld in the hand, 3 if another side melded before it (C.8.1)."""
    return TALONS[1] if any(g.opened[o] for o in range(len(g.opened)) if o != side) else TALONS[0]


def give_talon(g: Game, seat: int) -> None:
    """After the discard (C.8.1): the talon from the top of the stock (M-O14 = stock_top) or the
    packet of its size set aside at the deal (set_aside), its threes laid out and replaced from
    the stock (C.3.1); kept with the player's hand (C.8.2)."""
    side = g.side_of[seat]
    p = part_of(g)
    size = talon_size(g, side)
    p.talons[side] = size
    before = g.hands[seat][:]
    if american_rules(g.rules).talon_source == "set_aside":
        packet = p.talon_packets[TALONS.index(size)]
        laid_out = g.family.laid_out
        for c in packet:
            if laid_out[c] and not g.family.keeps_laid_out(g, seat):
                g.red3[seat].append(c)
                turns.draw_cards(g, seat, 1)
            else:
                turns.add_to_hand(g, seat, c)
        packet.clear()
    else:
        turns.draw_cards(g, seat, size)
    got: list[Card] = []
    for c in range(NUM_CARDS):
        got.extend([c] * (g.hands[seat][c] - before[c]))
    p.talon_seats[side] = seat
    p.talon_cards[side] = got


def forget_talon(g: Game, seat: int) -> None:
    """``seat``'s next turn has begun: a talon it holds is part of its hand now (M-O31)."""
    p = part_of(g)
    side = g.side_of[seat]
    if p.talon_seats[side] == seat:
        p.talon_seats[side] = -1
        p.talon_cards[side] = []


# ---------------------------------------------------------------------------- discards


def _barred(g: Game, hand: Sequence[int], card: Card) -> bool:
    """C.10.3 (M-O16): the card may not be discarded on an empty tray."""
    r = CARD_RANK[card]
    bar = american_rules(g.rules).empty_tray_bar
    if bar == "aces_sevens":
        if r not in (ACE, SEVEN):
            return False
        others = any(hand[c] for rr in NATURAL_RANKS if rr not in (ACE, SEVEN) for c in range(rr * 4, rr * 4 + 4))
        return others
    if IS_WILD[card] or r in (ACE, SEVEN):
        return True
    return bar == "swad" and is_dead(g.melds, r)


def discard_ok(g: Game, hand: Sequence[int], card: Card, size: int) -> bool:
    """Whether ``card`` may be discarded from ``hand`` (counts by card, ``size`` cards) on the
    pack as it is now (C.10.2, C.10.3), before the fallback of M-O17."""
    if CARD_RANK[card] == THREE:
        return False
    if IS_WILD[card] and size > 1 and _holds_natural(hand):
        return False
    return bool(g.pile) or not _barred(g, hand, card)


def _holds_natural(hand: Sequence[int]) -> bool:
    """``hand`` holds a card that is not wild (a natural card or a three)."""
    for c in NOT_WILD:  # noqa: SIM110  (a loop: no generator on this hot path)
        if hand[c]:
            return True
    return False


def any_discard(g: Game, hand: Sequence[int], size: int) -> bool:
    """Some card of ``hand`` may be discarded (C.10.2, C.10.3)."""
    if g.pile:  # only a three, and a wild card beside other cards, are kept from a pack
        for c in NATURALS:
            if hand[c]:
                return True
        return size > 0 and not _holds_natural(hand)  # wild cards only
    natural = _holds_natural(hand)  # discard_ok's checks, each rank once
    last = -1
    for c in range(NUM_CARDS):
        if hand[c]:
            r = CARD_RANK[c]
            if r == last:
                continue
            last = r
            if r == THREE or (IS_WILD[c] and size > 1 and natural):
                continue
            if not _barred(g, hand, c):
                return True
    return False


def may_discard(g: Game, seat: int, card: Card) -> bool:
    """``discard_error(g, seat, card) is None``, without building the refusal (generation asks it)."""
    hand = g.hands[seat]
    size = g.hand_sizes[seat]
    if CARD_RANK[card] == THREE:
        return False
    if discard_ok(g, hand, card, size):
        return True
    return not any_discard(g, hand, size) and not (size > 1 and back_cards(g, seat))


def discard_error(g: Game, seat: int, card: Card) -> IllegalMoveError | None:
    """Why ``seat`` may not discard ``card`` now (C.10.2 to C.10.4), or None."""
    hand = g.hands[seat]
    size = g.hand_sizes[seat]
    if CARD_RANK[card] == THREE:
        return refuse("THREE_DISCARD")
    if discard_ok(g, hand, card, size):
        return None
    if not any_discard(g, hand, size):
        if size > 1 and back_cards(g, seat):
            return refuse("TAKE_BACK_FIRST")  # M-O17 = take_back
        return None  # a player left with no card that may be discarded discards any but a three (M-O17)
    if not g.pile and _barred(g, hand, card):
        bar = american_rules(g.rules).empty_tray_bar
        return refuse("EMPTY_TRAY_BARRED" if bar == "swad" else f"EMPTY_TRAY_BARRED.{bar}")
    return refuse("WILD_DISCARD")


# ---------------------------------------------------------------------------- taking melded cards back


def back_cards(g: Game, seat: int) -> list[Card]:
    """C.10.4 with M-O17 = take_back, for a player on an empty tray with no card that may be
    discarded: the melded cards the player may take back and discard (one each; none under
    ``prevent``).  A natural card, not held, of a meld of the side that stays a meld without it
    (three cards, two natural), of a rank that may then be discarded on the empty tray (C.10.3,
    a canasta broken by it no longer making the rank dead); from a finished canasta only when no
    unfinished meld can give one."""
    if american_rules(g.rules).no_discard != "take_back" or g.pile:
        return []
    side = g.side_of[seat]
    hand = g.hands[seat]
    open_ones: list[Card] = []
    canastas: list[Card] = []
    for key, m in g.melds[side].items():
        if key == WILD_MELD or m.size < 4 or m.naturals < 3:
            continue
        dead = m.size - 1 >= CANASTA or any(
            o != side and key in g.melds[o] and g.melds[o][key].size >= CANASTA for o in range(len(g.melds)))
        if _barred_rank(g, hand, key, dead):
            continue
        for c in m.cards:
            if not IS_WILD[c] and not hand[c]:
                (canastas if m.size >= CANASTA else open_ones).append(c)
    return sorted(set(open_ones or canastas))


def _barred_rank(g: Game, hand: Sequence[int], rank: int, dead: bool) -> bool:
    """C.10.3 (M-O16) for a card of ``rank`` taken back into ``hand`` (``dead``: the rank still is)."""
    bar = american_rules(g.rules).empty_tray_bar
    if rank in (ACE, SEVEN):
        if bar != "aces_sevens":
            return True
        return any(hand[c] for rr in NATURAL_RANKS if rr not in (ACE, SEVEN) for c in range(rr * 4, rr * 4 + 4))
    return bar == "swad" and dead


def takes_back(g: Game, seat: int, card: Card) -> bool:
    """Whether discarding ``card``, not held, takes it back from the side's melds (C.10.4,
    M-O17 = take_back), or IllegalMoveError naming why it may not."""
    if not 0 <= card < NUM_CARDS or g.hands[seat][card] or american_rules(g.rules).no_discard != "take_back":
        return False
    if not any(card in m.cards for m in g.melds[g.side_of[seat]].values()):
        return False
    if g.pile or g.hand_sizes[seat] < 2 or any_discard(g, g.hands[seat], g.hand_sizes[seat]):
        raise refuse("TAKE_BACK_NOT_NEEDED")
    if card not in back_cards(g, seat):
        raise refuse("TAKE_BACK_WHICH")
    return True


def take_back(g: Game, seat: int, card: Card) -> None:
    """Move ``card`` from the side's meld of its rank into the hand, breaking a canasta if it was one."""
    side = g.side_of[seat]
    key = CARD_RANK[card]
    old = g.melds[side][key]
    m = Meld(key, old.owner, old.turn, old.concealed, old.full)
    cards = list(old.cards)
    cards.remove(card)
    for c in cards:
        m.add(c)
    g.melds[side][key] = m
    if old.size >= CANASTA > m.size:
        g.canasta_counts[side] -= 1
    turns.add_to_hand(g, seat, card, known=True)


# ---------------------------------------------------------------------------- going out


def finish_error(g: Game, seat: int, canastas: int, blocking: bool) -> IllegalMoveError | None:
    """Why ``seat`` may not go out with the side's ``canastas`` and an unfinished meld of natural
    aces, sevens or wild cards (``blocking``) (C.11.1, C.11.3), or None."""
    if canastas < g.rules.canastas_to_go_out:
        return refuse("NEEDS_CANASTAS.american", need=g.rules.canastas_to_go_out)
    if blocking:
        return refuse("UNFINISHED_MELD_BLOCKS")
    if g.ask == ASK_NO:
        return refuse("PARTNER_SAID_NO.american")
    return None


def side_blocks(melds: dict[int, Meld]) -> bool:
    """The side has an unfinished meld that keeps it from going out (C.11.1)."""
    return any(blocks_going_out(m) for m in melds.values())


# ---------------------------------------------------------------------------- planning melds


def group_key(grp: Group) -> int:
    """The meld a group goes on: its natural rank, its target, or the meld of wild cards."""
    target = group_target(grp)
    for c in group_cards(grp):
        if not IS_WILD[c]:
            return CARD_RANK[c]
    if target is None or target in (0, 13):
        return WILD_MELD
    return target


def plan_groups(g: Game, side: int, groups: Sequence[Group], opening: bool,
                skip: int = -1, beyond: bool = False) -> list[GroupPlan]:
    """Check meld groups against the side's melds (C.5); returns (key, cards) pairs.  ``skip``: a
    key already laid by the move (a take's own group); ``beyond``: cards may go on a finished
    canasta (M-O9: the caller checks that the move is the last before going out)."""
    melds = g.melds[side]
    rules5 = american_rules(g.rules).rule_of_five
    seen: set[int] = {skip} if skip >= 0 else set()
    out: list[GroupPlan] = []
    wild_after = melds[WILD_MELD].size if WILD_MELD in melds else -1
    wilds_on_naturals = False
    for grp in groups:
        cards = group_cards(grp)
        target = group_target(grp)
        if not cards:
            raise refuse("EMPTY_MELD.american_group")
        ranks = {CARD_RANK[c] for c in cards if not IS_WILD[c]}
        if len(ranks) > 1:
            raise refuse("MIXED_RANKS.american", ranks=" ".join(str(r) for r in sorted(ranks)))
        key = group_key(grp)
        if ranks and target is not None and target != key:
            raise refuse("WRONG_TARGET.american", rank=key, target_rank=target)
        if key in seen:
            raise refuse("ONE_MELD_PER_RANK.american_wild") if key == WILD_MELD else refuse(
                "ONE_MELD_PER_RANK.american", rank=key)
        seen.add(key)
        wilds = sum(1 for c in cards if IS_WILD[c])
        bad = group_error(melds, g.melds, key, len(cards) - wilds, wilds, opening, rules5, beyond)
        if bad is not None:
            raise _refuse(bad, key)
        if key == WILD_MELD:
            wild_after = max(wild_after, 0) + len(cards)
        elif wilds:
            wilds_on_naturals = True
        out.append((key, cards))
    if wilds_on_naturals and 0 <= wild_after < CANASTA:
        raise refuse("WILD_MELD_OPEN.american")
    return out


def canastas_after(g: Game, side: int, groups: Sequence[GroupPlan], extra: int = -1) -> tuple[int, bool]:
    """The side's canastas after laying ``groups`` (``extra``: a key that gains one more card, the
    pack's top card), and whether an unfinished meld then keeps it from going out."""
    melds = g.melds[side]
    count = g.canasta_counts[side]
    sizes: dict[int, tuple[int, int, int]] = {}
    for key, cards in groups:
        m = melds.get(key)
        n0, w0 = (m.naturals, m.wilds) if m is not None else (0, 0)
        w = sum(1 for c in cards if IS_WILD[c])
        n = len(cards) - w + (1 if key == extra else 0)
        sizes[key] = (n0 + n, w0 + w, n0 + w0)
    for n, w, before in sizes.values():
        if before < CANASTA <= n + w:
            count += 1
    blocking = False
    for key, m in melds.items():
        n, w, _ = sizes.get(key, (m.naturals, m.wilds, 0))
        if n + w < CANASTA and (key == WILD_MELD or (key in (ACE, SEVEN) and w == 0)):
            blocking = True
    for key, (n, w, _) in sizes.items():
        if key not in melds and n + w < CANASTA and (key == WILD_MELD or (key in (ACE, SEVEN) and w == 0)):
            blocking = True
    return count, blocking


def opening_error(g: Game, seat: int, groups: Sequence[GroupPlan], counted: Sequence[Card],
                  triple_in_head: bool = False) -> IllegalMoveError | None:
    """C.7: the initial meld's count (the cards of ``counted``) and its clean triple."""
    rules = american_rules(g.rules)
    value = sum(CARD_VALUES[c] for c in counted)
    need = g.minimum(seat)
    splash = rules.splash and any(len(cards) >= CANASTA and (key == WILD_MELD or not any(IS_WILD[c] for c in cards))
                                  for key, cards in groups)
    if value < need and not splash:
        return refuse("INITIAL_MELD_TOO_LOW.american", value=value, need=need)
    wild_ok = rules.opening_needs == "clean_triple_or_wild_meld"
    triple = triple_in_head or splash or any(
        (key == WILD_MELD and wild_ok) or (key != WILD_MELD and len(cards) >= 3 and not any(IS_WILD[c] for c in cards))
        for key, cards in groups)
    if not triple:
        return refuse("NO_CLEAN_TRIPLE")
    return None


def hand_after_error(g: Game, seat: int, left: int, canastas: int, blocking: bool, talon: bool,
                     remaining: Sequence[int], before_ok: bool) -> IllegalMoveError | None:
    """What the hand left after a meld or a take must allow: a discard, and a card to hold unless
    the player goes out (C.10.5, M-O13); on an empty tray, a card that may be discarded (M-O17)."""
    if left <= 0 or (american_rules(g.rules).three_for_straight == "keep_one"
                     and sum(remaining[c] for c in THREE_CARDS) >= left):
        return refuse("KEEP_DISCARD.american")  # a three kept for the Straight is no discard (C.3.2)
    if left == 1 and not (talon and american_rules(g.rules).talon_holds):
        err = finish_error(g, seat, canastas, blocking)
        if err is not None:
            return refuse("KEEP_CARD_TO_HOLD", need=g.rules.canastas_to_go_out) if err.code == "NEEDS_CANASTAS" else err
    if (before_ok and not g.pile and american_rules(g.rules).no_discard == "prevent"
            and not any_discard(g, remaining, left)):
        return refuse("NO_LEGAL_DISCARD_LEFT")
    return None


def plan_meld(g: Game, move: Move, final: bool = False) -> MeldPlan:
    seat = g.turn
    side = g.side_of[seat]
    if not move.groups:
        raise refuse("EMPTY_MELD.american")
    all_cards = [c for grp in move.groups for c in group_cards(grp)]
    turns.holds(g, seat, all_cards)
    left = g.hand_sizes[seat] - len(all_cards)
    if left == 0:
        return plan_special(g, seat, all_cards)
    opening = opening_turn(g, side)
    beyond = american_rules(g.rules).eighth_card_going_out
    groups = plan_groups(g, side, move.groups, opening, beyond=beyond)
    if not g.opened[side]:
        err = opening_error(g, seat, groups, all_cards)
        if err is not None:
            raise err
    # the canastas and an unfinished blocking meld matter only to a move that leaves one card (C.11.1)
    canastas, blocking = canastas_after(g, side, groups) if left == 1 else (0, False)
    talon = opening and not g.took_pile and not turn_card_drawn(g)
    remaining = g.hands[seat][:]
    for c in all_cards:
        remaining[c] -= 1
    # M-O9: cards on a finished canasta only in the move that leaves the card to go out with
    if beyond and any(key in g.melds[side] and g.melds[side][key].size >= CANASTA for key, _ in groups) and (
            left != 1 or talon or any(remaining[c] for c in THREE_CARDS)
            or finish_error(g, seat, canastas, blocking) is not None):
        raise refuse("EIGHTH_CARD_NOT_OUT")
    before_ok = not g.pile and any_discard(g, g.hands[seat], g.hand_sizes[seat])  # (only asked on an empty tray)
    err = hand_after_error(g, seat, left, canastas, blocking, talon, remaining, before_ok)
    if err is not None:
        raise err
    return MeldPlan(tuple(groups))


def special_time(g: Game, seat: int) -> bool:
    """C.13.1: ``seat`` may lay a special hand in this turn as far as the side's melds go: its side
    has not melded, or (M-O25 = courtesy) the partner made the side's initial meld and this is
    the player's first turn since."""
    side = g.side_of[seat]
    if not g.opened[side]:
        return True
    if american_rules(g.rules).special_timing != "courtesy":
        return False
    t = part_of(g).opened_turn[side]
    if g.turn_no - t >= g.players:
        return False
    opener = -1
    for m in g.melds[side].values():
        if m.turn == t:
            opener = m.owner
    return opener >= 0 and opener != seat


def plan_special(g: Game, seat: int, cards: list[Card]) -> MeldPlan:
    """C.13.1: fourteen cards laid at once, by a player whose side has not melded (or under
    M-O25 = courtesy, in the first turn after the partner's initial meld), just after drawing
    from the stock."""
    if not special_time(g, seat):
        raise refuse("KEEP_DISCARD.american")
    if g.took_pile or g.phase != MELD_PHASE:
        raise refuse("SPECIAL_HAND_AFTER_DRAW")
    found = special.recognise(american_rules(g.rules), special.rank_counts(cards))
    if found is None:
        raise refuse("NOT_A_SPECIAL_HAND")
    return MeldPlan(((SPECIAL, tuple(cards)),))


# ---------------------------------------------------------------------------- laying


def lay(g: Game, seat: int, plan: MeldPlan, extra: Card = -1) -> None:
    """Lay planned groups ``(key, cards)``; ``extra``: the pack's top card, added to the first."""
    if plan.groups and plan.groups[0][0] == SPECIAL:
        lay_special(g, seat, plan.groups[0][1])
        return
    lay_groups(g, seat, plan.groups, extra)


def lay_groups(g: Game, seat: int, groups: Sequence[GroupPlan], extra: Card = -1) -> None:
    side = g.side_of[seat]
    melds = g.melds[side]
    turn_no = g.turn_no
    for key, cards in groups:
        m = melds.get(key)
        if m is None:
            m = Meld(key, seat, turn_no, False, CANASTA)
            melds[key] = m
        elif m.turn != turn_no or m.owner != seat:
            g.touched_old = True
        before = m.size
        if extra >= 0:
            m.add(extra)
            extra = -1
        for c in cards:
            turns.remove_card(g, seat, c)
            m.add(c)
        if before < CANASTA <= m.size:
            g.canasta_counts[side] += 1
    if not g.opened[side]:
        g.opened[side] = True
        part_of(g).opened_turn[side] = turn_no
        for s in range(g.players):  # a three kept for the Straight is laid out in its next turn (C.3.2)
            if g.side_of[s] == side and g.rank_counts[s][THREE]:
                g.red3_pending[s] = True
    g.melded_now = True


def lay_special(g: Game, seat: int, cards: Sequence[Card]) -> None:
    """C.13.1: the special hand goes on the table and the hand ends (the game sees the empty hand)."""
    p = part_of(g)
    name, _ = special.recognise(american_rules(g.rules), special.rank_counts(cards)) or ("", 0)
    for c in cards:
        turns.remove_card(g, seat, c)
    p.special_seat = seat
    p.special_name = name
    p.special_cards = list(cards)


# ---------------------------------------------------------------------------- picking the pack


def plan_take(g: Game, move: Move) -> TakePlan:
    """C.9: the pack, picked with a natural pair of its top card's rank from the hand."""
    seat = g.turn
    side = g.side_of[seat]
    if not g.pile:
        raise refuse("PILE_EMPTY.american")
    top = g.pile[-1]
    if IS_WILD[top]:
        raise refuse("PILE_BLOCKED.american_wild")
    rt = CARD_RANK[top]
    if is_dead(g.melds, rt):
        raise refuse("PILE_DEAD_RANK", rank=rt)
    g0, extras, all_cards, n0, w0 = turns.read_take(g, move)
    if w0 or n0 < 2:
        raise refuse("NEEDS_NATURAL_PAIR.american", rank=rt)
    opening = opening_turn(g, side)
    bad = group_error(g.melds[side], g.melds, rt, n0 + 1, 0, opening, False)
    if bad is not None:
        raise _refuse(bad, rt)
    groups = plan_groups(g, side, extras, opening, skip=rt)
    if not g.opened[side]:
        counted = list(g0) + [c for _, cards in groups for c in cards]
        err = opening_error(g, seat, groups, counted, triple_in_head=n0 >= 3)
        if err is not None:
            raise err
    remaining = g.hands[seat][:]
    for c in all_cards:
        remaining[c] -= 1
    for c in g.pile[:-1]:
        remaining[c] += 1
    left = g.hand_sizes[seat] - len(all_cards) + len(g.pile) - 1
    canastas, blocking = canastas_after(g, side, [(rt, g0), *groups], extra=rt) if left == 1 else (0, False)
    saved = g.pile
    g.pile = []  # the tray is empty once the pack is picked (C.9.6)
    try:
        err = hand_after_error(g, seat, left, canastas, blocking, False, remaining, True)
    finally:
        g.pile = saved
    if err is not None:
        raise err
    return TakePlan(rt, g0, tuple(groups))


def take(g: Game, seat: int, plan: TakePlan) -> None:
    """Pick the pack as planned by :func:`plan_take` (C.9.2, C.9.5)."""
    pile = g.pile
    top = pile.pop()
    lay_groups(g, seat, ((plan.rank, plan.shown), *plan.groups), extra=top)
    for c in pile:
        turns.add_to_hand(g, seat, c, known=True)
    pile.clear()
    g.pile_frozen = False
    g.took_pile = True
    g.phase = MELD_PHASE
    forget_talon(g, seat)
