"""The turn's mechanics a family drives: dealing cards into hands, drawing (red threes laid out
and replaced), beginning and ending turns, the end of the hand, taking cards out of a hand and
going out; and the checks every plan shares (the cards a seat holds, a take's cards, whether
the pile must be taken).

These are the engine's own operations on a :class:`~canasta.engine.game.Game`, kept out of its
public methods: the game calls them as it plays a move, and a family's hooks
(:mod:`canasta.engine.family`) call them to deal, take and lay.  An interface, a bot or a
learner never needs them: it plays moves (``game.push``) and asks the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from canasta.engine.cards import CARD_RANK, IS_WILD, NUM_CARDS, Card
from canasta.engine.errors import REFUSAL_FORMS, refuse
from canasta.engine.moves import Group, Move, group_cards, group_target
from canasta.engine.state import ASK_NONE, DRAW_PHASE, OVER

if TYPE_CHECKING:
    from canasta.engine.game import Game


def add_to_hand(g: Game, seat: int, c: Card, known: bool = False) -> None:
    """Put card ``c`` in ``seat``'s hand (seen by the table if ``known``)."""
    g.hands[seat][c] += 1
    g.rank_counts[seat][CARD_RANK[c]] += 1
    g.hand_sizes[seat] += 1
    if known:
        g.known[seat][c] += 1


def lay_out_red_threes(g: Game, seat: int) -> None:
    """Lay out the red threes in ``seat``'s hand, drawing a card for each (A.4.3): the cards the
    family lays out (``RuleFamily.laid_out_cards``; C.3.1: every three)."""
    hand = g.hands[seat]
    keep = 1 if g.part is not None and g.family.keeps_laid_out(g, seat) else 0
    for c in g.family.laid_out_cards:
        n = hand[c]
        while n:
            n -= 1
            if keep:  # one kept in hand (C.3.2: M-O32)
                keep -= 1
                continue
            hand[c] -= 1
            g.rank_counts[seat][CARD_RANK[c]] -= 1
            g.hand_sizes[seat] -= 1
            g.red3[seat].append(c)
            draw_cards(g, seat, 1)


def draw_cards(g: Game, seat: int, count: int) -> bool:
    """Draw ``count`` cards, laying out and replacing red threes (A.4.3; the cards the family lays
    out, ``RuleFamily.laid_out``).  Returns False when the last stock card drawn was one (A.13.1)."""
    stock = g.stock
    hand = g.hands[seat]
    rcs = g.rank_counts[seat]
    laid_out = g.family.laid_out
    while count and stock:
        c = stock.pop()
        if laid_out[c] and not (g.part is not None and g.family.keeps_laid_out(g, seat)
                                and not any(hand[x] for x in g.family.laid_out_cards)):
            g.red3[seat].append(c)
            if not stock:
                return False
            continue
        hand[c] += 1
        rcs[CARD_RANK[c]] += 1
        g.hand_sizes[seat] += 1
        count -= 1
    return True


def begin_turn(g: Game, seat: int, first: bool = False) -> None:
    """Begin ``seat``'s turn (and end the hand if the stock is out)."""
    g.turn = seat
    g.phase = DRAW_PHASE
    g.turn_no += 1
    g.took_pile = False
    g.melded_now = False
    g.touched_old = False
    g.ask = ASK_NONE
    g.must_go_out = False
    part = g.part
    if part is not None:
        part.begin_turn()
    if g.red3_pending[seat]:
        g.red3_pending[seat] = False
        lay_out_red_threes(g, seat)
    if not g.stock and g.family.stock_out_ends_hand(g):
        end_hand(g, "the stock ran out")
    elif not g.stock and not any_take(g):
        end_hand(g, "the stock ran out and the pile could not be taken")


def end_turn(g: Game) -> None:
    """The mover's turn is over: what it did is kept (melded, added to a partner's meld) and the
    next seat's turn begins."""
    s = g.turn
    if g.melded_now:
        g.has_melded[s] = True
    if g.touched_old:
        g.added_to_partner[s] = True
    begin_turn(g, (s + g.step) % g.players)


def end_hand(g: Game, reason: str) -> None:
    """The hand is over, for ``reason`` (:attr:`end_reason`)."""
    g.phase = OVER
    g.end_reason = reason
    g._result = None


def holds(g: Game, seat: int, cards: Sequence[Card]) -> None:
    """Refuse (IllegalMoveError) cards ``seat`` does not hold."""
    hand = g.hands[seat]
    need: dict[int, int] = {}
    for c in cards:
        if not 0 <= c < NUM_CARDS:
            raise refuse("NOT_A_CARD", card=c)
        need[c] = need.get(c, 0) + 1
    for c, k in need.items():
        if hand[c] < k:
            if hand[c] == 0:
                raise refuse("CARD_NOT_IN_HAND", card=c)
            raise refuse("CARD_NOT_IN_HAND.some", card=c, count=hand[c])


def forced_take(g: Game) -> bool:
    """Whether the player to move must take the pile (A.13.2: with no stock, a discard that fits a
    meld must be taken), asked before drawing."""
    if g.stock or not g.pile or g.pile_block() is not None:
        return False
    side = g.side_of[g.turn]
    if g.pile_frozen_for(side):
        return False
    if g.hand_sizes[g.turn] == 1 and len(g.pile) == 1:
        return False
    top = g.pile[-1]
    return CARD_RANK[top] in g.melds[side] and any_take(g)


def any_take(g: Game) -> bool:
    """Whether the family lists any way to take the pile now."""
    for _ in g.family.gen_takes(g):
        return True
    return False


def worded(key: str, word: str) -> str:
    """The refusal form ``key.word`` (the family's word for the discards: ``WRONG_RANK.pozzo``)
    if there is one, else the pile's (``key.pile``) if there is one, else ``key``."""
    for own in (f"{key}.{word}", f"{key}.pile"):
        if own in REFUSAL_FORMS:
            return own
    return key


def read_take(g: Game, move: Move) -> tuple[Group, tuple[Group, ...], list[Card], int, int]:
    """The cards of a take move: the group shown with the top card, the further
    groups, all cards (checked to be held), and the group's naturals and wilds; refused in the
    family's word for the discards."""
    word = g.family.pile_word
    top = g.pile[-1]
    rt = CARD_RANK[top]
    head = move.groups[0] if move.groups else ()
    if group_target(head) not in (None, rt):
        raise refuse(worded("WRONG_TARGET", word))
    g0 = group_cards(head)
    extras = move.groups[1:]
    all_cards = list(g0) + [c for grp in extras for c in group_cards(grp)]
    holds(g, g.turn, all_cards)
    n0 = w0 = 0
    for c in g0:
        if IS_WILD[c]:
            w0 += 1
        elif CARD_RANK[c] == rt:
            n0 += 1
        else:
            raise refuse(worded("WRONG_RANK", word), top_card=top, rank=rt, card=c)
    return g0, extras, all_cards, n0, w0


def remove_card(g: Game, seat: int, c: Card) -> None:
    """Take card ``c`` out of ``seat``'s hand."""
    hand = g.hands[seat]
    hand[c] -= 1
    g.rank_counts[seat][CARD_RANK[c]] -= 1
    g.hand_sizes[seat] -= 1
    known = g.known[seat]
    if known[c]:  # the table cannot tell which copy was played
        known[c] -= 1


def go_out(g: Game, seat: int) -> None:
    """``seat`` has just emptied its hand: the hand ends (A.12)."""
    g.family.before_going_out(g, seat)
    g.went_out = seat
    g.out_concealed = g.family.went_out_concealed(g, seat)
    if g.melded_now:
        g.has_melded[seat] = True
    end_hand(g, "went out")
