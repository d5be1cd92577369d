"""What the other players' refusals tell: inference for the expert's sampled worlds.

A seat view shows the pile as it lies, not who refused what.  A bot that
remembers the pile as it left it (after its own discard) sees, at its next
decision, the cards discarded on top since: if nobody took the pile, each
player after it drew from the stock instead of taking a pile whose top card was
the previous discard.  A pile worth taking (three cards or more) refused with a
natural top card says that the player held fewer natural cards of that rank than
a take needs (two; three for a frozen pozzo in Italian).  :class:`PileWatch`
collects these refusals for the round just seen, and :func:`respect` deals a
sampled world again where it contradicts them: surplus cards of a refused rank
in that player's hidden part are swapped with stock cards of other ranks.

Only the latest round's refusals are kept: the cards drawn since may have
brought the rank back in.

Discards tell less, and softly: a player who discarded a natural rank this hand
holds about half as many cards of it as a deal blind to that would give it
(docs/bots.md, "The expert's worlds").  :class:`PileWatch` also notes, at the
start of each of its seat's turns, who discarded the cards on top of the pile
since its last turn, and :func:`thin` sends half of a seat's hidden cards of
the ranks it discarded back to the stock.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from canasta.engine import compiled_pickle
from canasta.engine.cards import CARD_RANK, IS_BLACK_THREE, IS_RED_THREE, IS_WILD, RANK_CARDS
from canasta.engine.game import Game, family_of
from canasta.views.seat import SeatView

#: a pile smaller than this may be refused for being too small to pay a pair for
MIN_PILE = 3


@dataclass
class PileWatch:
    """Refusals seen by one seat in the current hand: ``limits[seat][rank]`` is
    the most natural cards of ``rank`` that ``seat`` can hold."""

    hand_key: tuple[object, ...] = ()
    left: tuple[int | None, ...] | None = None  # the pile as this seat's last discard left it
    limits: dict[int, dict[int, int]] = field(default_factory=dict)
    #: ``discards[seat]``: the natural ranks ``seat`` has discarded this hand, as far as seen
    discards: dict[int, set[int]] = field(default_factory=dict)
    read_turn: int = 0  # the turn whose pile the discards were last read from

    def observe(self, view: SeatView) -> None:
        """Read the refusals since this seat's last discard from ``view``, and who discarded
        the cards on the pile since."""
        key = (view.hand_number, view.dealer, view.scores)
        if key != self.hand_key:
            self.hand_key, self.left, self.limits = key, None, {}
            self.discards, self.read_turn = {}, 0
            self.read_discards(view)
            return
        self.read_discards(view)
        before = self.left
        if before is None or not before:
            return
        pile = view.pile
        if len(pile) <= len(before) or pile[:len(before)] != before:
            if pile != before:
                self.left, self.limits = None, {}  # the pile was taken: nothing to read this round
            return
        n = len(view.hand_sizes)
        step = -1 if view.rules.direction == "counter_clockwise" else 1
        limits: dict[int, dict[int, int]] = {}
        frozen_need = family_of(view.rules).frozen_take_naturals(view.rules)
        frozen = any(c is not None and (IS_WILD[c] or (IS_BLACK_THREE[c] and view.rules.black_three_freezes))
                     for c in before)
        for k in range(len(pile) - len(before)):
            refuser = (view.seat + (k + 1) * step) % n
            top = pile[len(before) + k - 1]
            size = len(before) + k
            if refuser == view.seat or top is None or size < MIN_PILE:
                continue
            if IS_WILD[top] or IS_BLACK_THREE[top] or IS_RED_THREE[top]:
                frozen = frozen or IS_WILD[top]
                continue
            need = frozen_need if frozen else 2
            limits.setdefault(refuser, {})[CARD_RANK[top]] = need - 1
            nxt = pile[len(before) + k]
            if nxt is not None and IS_WILD[nxt]:
                frozen = True
        self.limits = limits
        self.left = None

    def read_discards(self, view: SeatView) -> None:
        """At the start of this seat's turn: every turn since its last one ended with a discard,
        so the pile's top cards were discarded by the seats before it, the nearest on top (as
        many as the pile holds face up, the other seats and the turns played allow)."""
        if view.phase != "draw" or view.turn != view.seat or view.turn_number == self.read_turn:
            return
        self.read_turn = view.turn_number
        n = len(view.hand_sizes)
        step = -1 if view.rules.direction == "counter_clockwise" else 1
        pile = view.pile
        for j in range(min(len(pile), n - 1, view.turn_number - 1)):
            card = pile[len(pile) - 1 - j]
            if card is None:
                break
            if not (IS_WILD[card] or IS_BLACK_THREE[card] or IS_RED_THREE[card]):
                self.discards.setdefault((view.seat - (j + 1) * step) % n, set()).add(CARD_RANK[card])

    def discarded(self, view: SeatView, card: int) -> None:
        """This seat discards ``card`` now (the pile it leaves)."""
        if (view.hand_number, view.dealer, view.scores) != self.hand_key:
            self.hand_key, self.limits = (view.hand_number, view.dealer, view.scores), {}
            self.discards, self.read_turn = {}, 0
        self.left = view.pile + (card,)


def respect(g: Game, view: SeatView, limits: dict[int, dict[int, int]], rng: random.Random) -> int:
    """Deal ``g`` (a world sampled from ``view``) again where it contradicts
    ``limits``: surplus natural cards of a limited rank in a seat's hidden part
    go to the stock, swapped with stock cards of other ranks.  Returns the cards
    swapped."""
    swapped = 0
    stock = g.stock
    for seat, ranks in limits.items():
        if seat == view.seat or not 0 <= seat < g.players:
            continue
        known = view.known[seat]
        hand = g.hands[seat]
        for rank, most in ranks.items():
            cards = [c for c in RANK_CARDS[rank] if not IS_WILD[c]]
            held = sum(hand[c] for c in cards)
            fixed = sum(1 for c in known if c in cards)
            surplus = held - max(most, fixed)
            while surplus > 0:
                spots = [i for i, c in enumerate(stock) if CARD_RANK[c] not in ranks and not IS_RED_THREE[c]]
                if not spots:
                    break
                free = [c for c in cards for _ in range(hand[c] - sum(1 for k in known if k == c))]
                if not free:
                    break
                _swap(g, seat, rng.choice(free), rng.choice(spots))
                surplus -= 1
                swapped += 1
    return swapped


def _swap(g: Game, seat: int, card: int, i: int) -> None:
    """``card`` leaves ``seat``'s hand for the stock's place ``i``, whose card takes its place."""
    into = g.stock[i]
    g.hands[seat][card] -= 1
    g.rank_counts[seat][CARD_RANK[card]] -= 1
    g.hands[seat][into] += 1
    g.rank_counts[seat][CARD_RANK[into]] += 1
    g.stock[i] = card


def thin(g: Game, view: SeatView, discards: dict[int, set[int]], rng: random.Random, keep: float = 0.5) -> int:
    """Deal ``g`` (a world sampled from ``view``) again where it ignores the discards seen: each
    hidden natural card of a rank a seat has discarded stays in its hand with chance ``keep``, and
    otherwise is swapped with a stock card of a rank it has not discarded.  Returns the cards
    swapped."""
    swapped = 0
    stock = g.stock
    for seat, ranks in discards.items():
        if seat == view.seat or not 0 <= seat < g.players or not ranks:
            continue
        hand = g.hands[seat]
        spots = [i for i, c in enumerate(stock) if CARD_RANK[c] not in ranks and not IS_RED_THREE[c]]
        if not spots:
            continue
        known = list(view.known[seat])
        for rank in sorted(ranks):
            for c in RANK_CARDS[rank]:
                if IS_WILD[c]:
                    continue
                hidden = hand[c] - known.count(c)
                for _ in range(hidden):
                    if not spots or rng.random() < keep:
                        continue
                    _swap(g, seat, c, spots.pop(rng.randrange(len(spots))))
                    swapped += 1
    return swapped


compiled_pickle.register([__name__])  # compiled: this module's classes pickle and copy (canasta.engine.compiled_pickle)
