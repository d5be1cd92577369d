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

    def observe(self, view: SeatView) -> None:
        """Read the refusals since this seat's last discard from ``view``."""
        key = (view.hand_number, view.dealer, view.scores)
        if key != self.hand_key:
            self.hand_key, self.left, self.limits = key, None, {}
            return
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

    def discarded(self, view: SeatView, card: int) -> None:
        """This seat discards ``card`` now (the pile it leaves)."""
        if (view.hand_number, view.dealer, view.scores) != self.hand_key:
            self.hand_key, self.limits = (view.hand_number, view.dealer, view.scores), {}
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
        rc = g.rank_counts[seat]
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
                out = rng.choice(free)
                i = rng.choice(spots)
                into = stock[i]
                hand[out] -= 1
                rc[rank] -= 1
                hand[into] += 1
                rc[CARD_RANK[into]] += 1
                stock[i] = out
                surplus -= 1
                swapped += 1
    return swapped


compiled_pickle.register([__name__])  # compiled: this module's classes pickle and copy (canasta.engine.compiled_pickle)
