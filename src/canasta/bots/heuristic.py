"""Rule-of-thumb players: ``basic`` and ``advanced``.

Both look only at what their seat may know: their own hand and the public table
(through a world rebuilt from the view; the hidden cards in it are random and
are never read).  ``advanced`` adds card tracking (which ranks the next opponent
can still take, counting the one-natural-and-a-wild-card takes of an unfrozen
pile, and which ranks it has itself discarded), pile judgement, freezing,
partnership asking and answering, and end-of-stock play.

Going out (issue 17): ``advanced`` follows a way out whenever there is one, in
Italian too, where it takes several melds (found with the engine's going-out
search); it goes out, or asks its partner first, when that pays: when the hand,
ended now, would not be lost by more than ``out_margin`` (the others' hidden
cards are those of its sampled world), or the stock is nearly gone, or an
opponent is about to go out.  Asked "may I go out?", it answers from what it
holds (no with a big hand early on) and sees (no when the hand, ended now,
would be lost by more than ``answer_margin``; yes late or under threat).  A
"no" is binding for the turn: the engine offers no way out then, and the bot
plays on with cards in hand.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple

from canasta.bots import stakes
from canasta.bots.base import Bot, world
from canasta.bots.value import WEIGHTS
from canasta.engine import compiled_pickle
from canasta.engine.cards import (
    CARD_RANK,
    CARD_VALUE,
    IS_BLACK_THREE,
    IS_WILD,
    JOKER_RANK,
    NUM_CARDS,
    NUM_RANKS,
    THREE,
    TWO,
    make_deck,
)
from canasta.engine.family import PlayTuning
from canasta.engine.game import Game
from canasta.engine.melds import WILD_MELD
from canasta.engine.moves import ASK, DRAW, NO, OPEN, TAKE, YES, Move, group_cards
from canasta.engine.native import mypyc_attr
from canasta.engine.options import Option, discard_card, option_groups, split_options
from canasta.engine.scoring import SideScore
from canasta.engine.state import ANSWER_PHASE, ASK_NONE, ASK_YES, DRAW_PHASE
from canasta.views.seat import SeatView


def unseen_ranks(g: Game, seat: int) -> list[int]:
    """Per rank, the cards this seat cannot place (other hands beyond known cards,
    stock, face-down pozzo cards), from public information and its own hand only:
    the pack less its hand, the cards known in other hands, the face-up pile, the
    melds (counted by their naturals, deuces and jokers), and the red threes."""
    out = [p - h for p, h in zip(_pack_ranks(g.rules.packs), g.rank_counts[seat], strict=True)]
    for s in range(g.players):
        if s != seat:
            known = g.known[s]
            if any(known):
                for c, k in enumerate(known):
                    if k:
                        out[c >> 2] -= k
    lo, hi = g.face_down()
    pile = g.pile
    for c in pile[:lo] + pile[hi:] if hi > lo else pile:
        out[c >> 2] -= 1
    for side in range(g.num_sides):
        for melds in (g.melds[side].values(), g.set_aside(side)):
            for m in melds:
                if m.naturals:
                    out[m.rank] -= m.naturals
                out[TWO] -= m.deuces
                out[JOKER_RANK] -= m.jokers
    for reds in g.red3:
        out[THREE] -= len(reds)
    return out


@functools.cache
def _pack_ranks(packs: int) -> tuple[int, ...]:
    counts = [0] * NUM_RANKS
    for c in make_deck(packs):
        counts[c >> 2] += 1
    return tuple(counts)


@functools.lru_cache(maxsize=65536)
def holds_at_least(k: int, copies: int, hand: int, pool: int) -> float:
    """Probability that a hand of ``hand`` cards dealt from ``pool`` unseen cards,
    ``copies`` of them of one rank, holds at least ``k`` of that rank."""
    if copies < k or hand < k:
        return 0.0
    hand = min(hand, pool)
    total = math.comb(pool, hand)
    below = sum(math.comb(copies, i) * math.comb(pool - copies, hand - i) for i in range(k))
    return max(0.0, 1.0 - below / total)


@mypyc_attr(allow_interpreted_subclasses=True)
class HeuristicBot(Bot):
    """Scores every legal move with rules of thumb and plays the best."""

    name = "basic"
    advanced = False
    pair_weight = 12.0
    value_weight = 0.1
    danger_scale = 1.0  # Italian
    classic_danger_scale = 1.0
    take_min_size = 3  # advanced: a pile worth taking once opened: this many cards ...
    take_min_value = 30  # ... or this many points
    wild_take_danger = False  # advanced: count takes with one natural and a wild card
    shed_danger = 1.0  # advanced: feeding risk factor for a rank the next opponent discarded
    no_penalty = 150  # advanced: answer "no" with more points than this in hand ...
    no_stock = 30  # ... while the stock still holds this many cards
    wild_meld_cost = 5.0  # advanced: per wild card melded without closing a canasta
    late_meld_stock = 15
    out_when_ahead = True  # advanced: go out (and ask) only when it wins the hand, until late
    answer_by_score = True  # advanced: say yes when the hand would be won
    answer_margin = -300  # ... or lost by less than this
    out_margin = -300
    asks_partner = True  # advanced: ask before going out where asking is optional (rollouts need not)
    late_discard_stock = 10
    freeze_value = 120
    _out_now = -1  # within a meld-phase decision: can the player go out (1, 0; -1 not asked yet)
    keep_hand = 10  # where unfinished melds cost (stakes): cards kept in hand (for pairs to pick the pack) ...
    race_reach = 1  # where unfinished melds cost (stakes): start a race meld missing at most this many cards
    hoard_shed = 0.02  # ... a card of a race rank held three times with no hope: shed for this share of hoard_cost
    hoard_shed_late = 0.05  # ... late in the hand
    stakes_asks = False  # ... ask "may I go out?" where asking is optional
    wild_reach = 1  # ... and a meld of wild cards
    natural_meld = 10.0  # what laying natural cards on a meld is worth (at or below 0: they wait)
    wild_discard = 200.0  # what discarding a wild card costs ...
    freeze_bonus = 150.0  # ... less this, for the advanced player, to freeze a rich pile
    own_meld_keep = 15.0  # what discarding a card of a rank the side has melded costs
    feed_stake = 30.0  # what feeding the pile to the next player costs: this ...
    feed_per_card = 4.0  # ... plus this a card in the pile ...
    feed_per_point = 0.3  # ... plus this a point in it, times the chance it takes the pile
    tracked_danger = 0.8  # advanced: the chance the next player takes the pile with a rank it picked up
    late_value_weight = 0.4  # value_weight late in the hand (the stock nearly gone, or an opponent about to go out)

    def set_habits(self, habits: Mapping[str, float]) -> None:
        """Play with other habits (:data:`HABITS`: names and values, from
        :func:`shipped_habits` or ``python -m canasta.rl.tune``)."""
        unknown = sorted(set(habits) - set(HABITS))
        if unknown:
            raise ValueError(f"unknown habits {', '.join(unknown)}: choose among {', '.join(HABITS)}")
        for name, value in habits.items():
            setattr(self, name, int(value) if HABITS[name].whole else float(value))

    def choose(self, view: SeatView) -> Move:
        g = world(view, self.rng)
        options = g.options()
        if len(options) == 1:
            return g.materialize(options[0])
        return self.pick(g, options)

    # the policy works on any game, seen from the player to move; it reads only
    # that player's hand and the public table
    def pick(self, g: Game, moves: Sequence[Option]) -> Move:
        """The move to play: ``moves`` are the legal moves, or the game's options
        (:meth:`Game.options`), of which only the chosen one is built."""
        if g.phase == ANSWER_PHASE:
            return self._answer(g, [g.materialize(m) for m in moves])
        if g.phase == DRAW_PHASE:
            return self._draw(g, moves)
        return g.materialize(self._meld_phase(g, moves))

    # -- draw phase ----------------------------------------------------------

    def _draw(self, g: Game, options: Sequence[Option]) -> Move:
        """The draw phase's move, from its moves or options: a take that opens may come as an
        option (a tuple of Spec, :mod:`canasta.engine.options`), built only if chosen."""
        takes: list[Option] = []
        moves: list[Move] = []
        for opt in options:
            if isinstance(opt, tuple):
                takes.append(opt)
                continue
            move = g.materialize(opt)
            moves.append(move)
            if move.kind == TAKE:
                takes.append(move)
        opens = [m for m in moves if m.kind == OPEN]
        draw = next((m for m in moves if m.kind == DRAW), None)
        if takes and self._stakes(g):
            takes = [m for m in takes if not self._hopeless(g, g.materialize(m))]
        if takes:
            lo, hi = g.face_down()
            pile_value = sum(CARD_VALUE[c] for c in g.pile) + 10 * (hi - lo)
            size = len(g.pile)
            worth = size >= 2 or not g.opened[g.side_of[g.turn]]
            if self.advanced:
                natural = [m for m in takes if not meld_groups(m)[0][2]]  # no wild card shown with the top
                if size <= 2 and natural:
                    takes = natural  # do not spend a wild card on a tiny pile
                # a one- or two-card pile is not worth a pair from the hand once we have melded
                worth = size >= self.take_min_size or pile_value >= self.take_min_value or not g.opened[g.side_of[g.turn]]
            if worth or draw is None:
                return g.materialize(max(takes, key=_laid))
        if opens:
            return opens[0]
        return draw if draw is not None else g.materialize(options[0])

    @staticmethod
    def _stakes(g: Game) -> bool:
        """Unfinished melds cost in this family (race ranks, melds of wild cards: :mod:`canasta.bots.stakes`)."""
        play = g.family.play
        return bool(play.race_cost or play.unfinished_wild_cost)

    def _hopeless(self, g: Game, move: Option) -> bool:
        """``move`` starts a meld that costs unfinished (or picks the pack for one) which the side
        cannot expect to finish."""
        seat = g.turn
        side = g.side_of[seat]
        take = isinstance(move, Move) and move.kind == TAKE
        unseen: list[int] | None = None
        for i, (key, laid, gw) in enumerate(meld_groups(move)):
            first = take and i == 0  # the pair: the pack's top card goes on it too
            if not stakes.unfinished_risk(g, key, laid + (1 if first else 0), gw):
                continue
            if g.melds[side].get(key) is not None:
                continue  # started already: more cards on it bring it nearer
            if key == WILD_MELD:
                if not stakes.wild_hope(g, seat, reach=self.wild_reach):
                    return True
                continue
            if unseen is None:
                unseen = unseen_ranks(g, seat)
            extra = stakes.pile_count(g, key) if first else 0
            if not stakes.race_hope(g, seat, key, unseen[key], extra, self.race_reach):
                return True
        return False

    # -- partnership -----------------------------------------------------------

    def _answer(self, g: Game, moves: list[Move]) -> Move:
        yes = next(m for m in moves if m.kind == YES)
        no = next(m for m in moves if m.kind == NO)
        if not self.advanced:
            return yes
        return yes if self.partner_out_pays(g) else no

    def partner_out_pays(self, g: Game) -> bool:
        """Should the partner (``g.to_move``) say yes to ``g.turn``'s "may I go out?"

        It answers from what it holds and sees: its own hand (the points it would
        pay), the table, and the stock.  Early in the hand, with a big hand of its
        own, it says no; otherwise it says yes when the hand, ended now by the asker
        going out, would be won by its side, or when the stock is nearly gone or
        an opponent is about to go out (there may be no better chance)."""
        me = g.to_move
        penalty = sum(g.card_value[c] * k for c, k in enumerate(g.hands[me]) if k)
        if len(g.stock) < self.no_stock or self._danger_of_going_out(g):
            return True
        if penalty > self.no_penalty:
            return False
        return not self.answer_by_score or _margin(g, me, out_scores(g, g.turn)) > self.answer_margin

    def asks_first(self, g: Game) -> bool:
        """Does the player ask "may I go out?" before going out?  Where the rules require it,
        always; where asking is optional, if :attr:`asks_partner`, except where unfinished melds
        cost (stakes) unless :attr:`stakes_asks`: there a partner's "no" keeps the side in a hand
        whose race melds and hoards it may not end in time (measured, docs/bots.md)."""
        if g.family.must_ask_to_go_out(g.rules):
            return True
        return self.asks_partner and (self.stakes_asks or not self._stakes(g))

    def out_pays(self, g: Game, path: Move) -> bool:
        """Does going out now (starting with ``path``) pay for the player to move?
        It does when it wins the hand as it stands (the others' hidden cards are
        those of the sampled world, an estimate), when the stock is nearly gone,
        or when an opponent is about to go out."""
        if not self.advanced or not self.out_when_ahead:
            return True
        if len(g.stock) < self.late_meld_stock or self._danger_of_going_out(g):
            return True
        h = g.copy()
        result = play_out(h, path, self)
        return result is None or _margin(h, g.turn, result) > self.out_margin

    # -- meld phase --------------------------------------------------------------

    def _meld_phase(self, g: Game, moves: Sequence[Option]) -> Option:
        try:
            return self._meld_phase_of(g, moves)
        finally:
            self._out_now = -1  # known within one decision only

    def _meld_phase_of(self, g: Game, moves: Sequence[Option]) -> Option:
        melds, discards, others = split_options(moves)
        asks = [m for m in others if m.kind == ASK]
        # 1. go out when allowed (and, for the advanced player, when it pays: ask first)
        # where "may I go out?" is offered exactly when the player can go out, the offer answers the search
        play = g.family.play
        known = int(bool(asks)) if (play.out_by_search or play.ask_tells_out) and g.ask == ASK_NONE \
            and not g.must_go_out and g.hand_sizes[g.turn] >= 2 and g.has_partner(g.turn) else -1
        way = _way_out(g, melds, discards, known) if self.advanced else _simple_out(g, melds, discards)
        if self.advanced and g.family.play.out_by_search:
            self._out_now = int(way is not None)  # the going-out search has answered for this decision
        if way is not None:
            path = g.materialize(way)
            if g.ask == ASK_YES or self.out_pays(g, path):
                if asks and self.advanced and g.ask == ASK_NONE and self.asks_first(g):
                    return asks[0]
                return path
        elif asks and self.advanced and g.ask == ASK_NONE and (self.stakes_asks or not self._stakes(g)) \
                and self.out_pays(g, asks[0]):
            return asks[0]  # Italian: the way out needs the partner's yes first
        # 2. meld: openings whole, then natural cards, wild cards only to close canastas
        best: tuple[float, Option] | None = None
        threat = self.advanced and self._danger_of_going_out(g)
        late = len(g.stock) < self.late_meld_stock or threat
        for m in melds:
            score = self._meld_score(g, m, late)
            if score > 0 and (best is None or score > best[0]):
                best = (score, m)
        if best is not None:
            return best[1]
        if discards:
            return self._discard(g, discards, threat)
        return melds[0] if melds else moves[0]

    @staticmethod
    def _shed_by(g: Game, player: int) -> set[int]:
        """Ranks ``player`` discarded onto the pile as it lies now (it holds no pair
        of them, most likely).  The pile's cards since the deal or the last take were
        discarded by the players in turn order, the top one by the previous player."""
        pile = g.pile
        discards = min(len(pile), g.turn_no - 1)
        out = set()
        for k in range(1, discards + 1):
            if (g.turn - k * g.step - player) % g.players == 0:
                c = pile[-k]
                if not IS_WILD[c]:
                    out.add(CARD_RANK[c])
        return out

    @staticmethod
    def _danger_of_going_out(g: Game) -> bool:
        """An opponent with a canasta is down to three cards or fewer: shed points now."""
        side = g.side_of[g.turn]
        return any(g.hand_sizes[p] <= 3 and (g.canasta_counts[g.side_of[p]] > 0 or bool(g.set_aside(g.side_of[p])))
                   for p in range(g.players) if g.side_of[p] != side)

    def _meld_score(self, g: Game, move: Option, late: bool) -> float:
        """The meld's worth to the player to move; ``late``: the stock is nearly gone
        or an opponent is about to go out."""
        seat = g.turn
        side = g.side_of[seat]
        groups = meld_groups(move)
        if not g.opened[side]:
            # an opening: as many natural cards as possible, few wild cards
            cards = sum(n for _, n, _ in groups)
            wilds = sum(w for _, _, w in groups)
            opening = 100 + (cards - wilds) * 3 - wilds * (2 if self.advanced else 1)
            if self._stakes(g) and self._hopeless(g, move):
                opening -= 150  # a race meld or a meld of wild cards it cannot finish: not worth opening with
            return opening
        score = 0.0
        race = g.family.play.race_ranks
        if self._stakes(g) and not late and g.hand_sizes[seat] - sum(n for _, n, _ in groups) < self.keep_hand \
                and not self._closes(g, groups) and not self._can_go_out(g):
            return -1.0  # a hand of one or two cards picks no pack: it only draws and discards
        for key, laid, gw in groups:
            m = g.melds[side].get(key)
            size = (m.size if m else 0) + laid
            if self._stakes(g) and stakes.unfinished_risk(g, key, laid, gw):
                if m is not None:
                    score += 40  # on the way to finishing what costs unfinished
                elif self._hopeless(g, move):
                    score -= 60
                else:
                    score += 15
                continue
            if m is not None and key in race and m.size < g.canasta_size <= size:
                score += 50  # a race canasta finished (C.6.2: 2,500)
            if gw:
                closes = size >= g.canasta_size and (m is None or m.size < g.canasta_size)
                if closes or late:
                    score += 30
                elif not self.advanced:
                    score += 8  # the basic player melds its wild cards as soon as it can
                elif key == WILD_MELD:  # a meld of wild cards only (Italian, B.8)
                    score += 5 if self.advanced else -1
                else:
                    score -= self.wild_meld_cost * gw
            else:
                score += self.natural_meld + (5 if size >= g.canasta_size - 1 else 0)
                if self.advanced and m is None and laid == 3 and not late and g.rank_counts[seat][key] == 3 \
                        and g.family.play.keep_pair_for_pile and len(g.pile) > 4:
                    # keep a natural pair back to take a big pile? meld only the third card later
                    score -= 2
        return score

    def _can_go_out(self, g: Game) -> bool:
        """The family's going-out search (costly where going out takes several melds), asked once a decision."""
        if self._out_now < 0:
            self._out_now = int(g.family.can_go_out(g))
        return self._out_now == 1

    @staticmethod
    def _closes(g: Game, groups: Sequence[tuple[int, int, int]]) -> bool:
        """The groups finish a canasta of the player to move's side."""
        melds = g.melds[g.side_of[g.turn]]
        for key, laid, _ in groups:
            m = melds.get(key)
            size = m.size if m is not None else 0
            if size < g.canasta_size <= size + laid:
                return True
        return False

    def _discard(self, g: Game, discards: Sequence[Option], threat: bool | None = None) -> Option:
        """The discard to make; ``threat``: an opponent is about to go out (worked out if not given)."""
        seat = g.turn
        side = g.side_of[seat]
        rc = g.rank_counts[seat]
        nxt = (seat + g.step) % g.players
        nside = g.side_of[nxt]
        feeds = nside != side  # a discard can feed the next player
        pile = g.pile
        pile_value = sum(CARD_VALUE[c] for c in pile)
        play = g.family.play
        advanced = self.advanced
        if threat is None:
            threat = advanced and self._danger_of_going_out(g)
        late = len(g.stock) < self.late_discard_stock or threat
        value_weight = self.late_value_weight if late else self.value_weight
        race = play.race_ranks if self._stakes(g) else ()
        dead_on = play.dead_ranks
        freeze = advanced and pile_value + len(pile) * 5 > self.freeze_value and rc[TWO] + rc[JOKER_RANK] >= 2
        melds, next_melds = g.melds[side], g.melds[nside]
        meld_feeds = not g.pile_frozen and play.meld_takes_pile
        scale = self.classic_danger_scale if play.classic_scale else self.danger_scale
        stake = self.feed_stake + len(pile) * self.feed_per_card + pile_value * self.feed_per_point
        known = g.known[nxt]
        tracked = advanced and any(known)
        # the chances the next player holds what takes the pile, worked out at the first card that needs them
        odds: tuple[list[int], int, int, set[int], float | None] | None = None
        best: tuple[float, Option] | None = None
        for m in discards:
            c = discard_card(g, m)
            r = CARD_RANK[c]
            cost = 0.0
            if IS_WILD[c]:
                cost += self.wild_discard
                if freeze:
                    cost -= self.freeze_bonus  # freeze a rich pile
            elif IS_BLACK_THREE[c]:
                cost -= play.black_three_discard
            elif dead_on and stakes.is_dead(g, r):
                cost -= 20 + CARD_VALUE[c] * value_weight  # a dead rank: no meld, no pick (C.5.8)
            else:
                if r in race:
                    cost += self._race_discard(g, seat, r, late)
                cost += self.pair_weight * (rc[r] - 1)  # keep pairs and sets
                if r in melds:
                    cost += self.own_meld_keep  # it would go on our meld
                cost -= CARD_VALUE[c] * value_weight
                # feeding: can the next player take the pile with it?
                danger = 0.0
                if feeds:
                    if r in next_melds and meld_feeds:
                        danger = 1.0
                    elif tracked and (known[4 * r] or known[4 * r + 1] or known[4 * r + 2] or known[4 * r + 3]):
                        danger = self.tracked_danger  # tracked: it picked up cards of this rank
                    elif advanced:
                        if odds is None:
                            odds = self._feed_odds(g, seat, nxt, play)
                        unseen, pool, held, shed, wild = odds
                        need = play.frozen_need if g.pile_frozen else 2
                        danger = holds_at_least(need, unseen[r], held, pool)
                        if wild is not None:
                            # an unfrozen pile also falls to one natural card and a wild card (A.9.3)
                            one = holds_at_least(1, unseen[r], held, pool) - danger
                            danger += one * wild
                        if r in shed:
                            danger *= self.shed_danger
                cost += danger * scale * stake
            if best is None or cost < best[0]:
                best = (cost, m)
        assert best is not None
        return best[1]

    def _race_discard(self, g: Game, seat: int, r: int, late: bool) -> float:
        """What discarding a card of race rank ``r`` costs beyond the usual: much when the side
        races it or another side does (a card nearer a 2,500 canasta); a shed of three or more
        held with no hope of the canasta is welcome (C.14.1 f)."""
        side = g.side_of[seat]
        m = g.melds[side].get(r)
        cost = 0.0
        if m is not None and m.size < g.canasta_size:
            cost += 100
        if stakes.opponents_race(g, seat, r):
            cost += 150
        held = g.rank_counts[seat][r]
        if m is None and held >= 3:
            if stakes.race_hope(g, seat, r, unseen_ranks(g, seat)[r], 0, self.race_reach):
                cost += 30
            else:
                cost -= g.family.play.hoard_cost * (self.hoard_shed_late if late else self.hoard_shed)
        return cost

    def _feed_odds(self, g: Game, seat: int, nxt: int, play: PlayTuning
                   ) -> tuple[list[int], int, int, set[int], float | None]:
        """What the next player's chances of taking the pile rest on: the unseen
        cards per rank and in all, its hand size, the ranks it shed, and (where one
        natural card and a wild card take an unfrozen pile) its chance of a wild card."""
        unseen = unseen_ranks(g, seat)
        pool = max(1, sum(unseen))
        held = g.hand_sizes[nxt]
        shed = self._shed_by(g, nxt) if play.track_shedding else set()
        wild = None
        if self.wild_take_danger and play.one_and_wild_takes and not g.pile_frozen_for(g.side_of[nxt]):
            wild = holds_at_least(1, unseen[TWO] + unseen[JOKER_RANK], held, pool)
        return unseen, pool, held, shed, wild


def meld_groups(move: Option) -> Sequence[tuple[int, int, int]]:
    """Per group of a meld move or option: the key of the meld it goes on, the
    cards it lays, and how many of them are wild."""
    if not isinstance(move, Move):
        return option_groups(move)
    out = []
    for grp in move.groups:
        gc = group_cards(grp)
        out.append((_key(gc, grp), len(gc), sum(1 for c in gc if IS_WILD[c])))
    return out


def _laid(move: Option) -> int:
    """The cards a meld move or option lays."""
    return sum(n for _, n, _ in meld_groups(move))


def _simple_out(g: Game, melds: list[Option], discards: list[Option]) -> Option | None:
    """The basic player's way out: a meld that leaves at most one card, or the last discard."""
    hsize = g.hand_sizes[g.turn]
    if hsize == 1 and discards:
        return discards[0]
    # (a meld option code lays at most three cards: none goes out of a bigger hand)
    outs = [m for m in melds if (hsize <= 4 or not isinstance(m, int)) and hsize - _laid(m) <= 1]
    return max(outs, key=_laid) if outs else None


def out_move(g: Game, moves: Sequence[Option]) -> Option | None:
    """A move on a way to go out this turn (the largest meld that keeps going out
    possible, or the last discard), or None when the player to move cannot go out
    now (or its partner said no).  In Classic one move melds everything needed; in
    Italian going out is several melds, found with the engine's going-out search."""
    melds, discards, _ = split_options(moves)
    return _way_out(g, melds, discards)


def _way_out(g: Game, melds: list[Option], discards: list[Option], known: int = -1) -> Option | None:
    """``known``: whether the player can go out, if the caller knows (1, 0), else -1."""
    if g.family.goes_out_in_one_move:
        way = _simple_out(g, melds, discards)
        if way is not None or not g.family.play.out_by_search:
            return way
    if known == 0 or (known < 0 and not g.family.can_go_out(g)):  # False after a "no", and before asking where asking is required
        return None
    seat = g.turn
    if g.hand_sizes[seat] == 1:
        return discards[0] if discards else None
    for m in sorted(melds, key=lambda m: -_laid(m)):
        h = g.copy()
        h.play_unchecked(g.materialize(m))
        if h.is_over() or h.family.can_go_out(h):
            return m
    return None


def play_out(g: Game, first: Move, policy: HeuristicBot) -> list[SideScore] | None:
    """Play ``first`` and then the way out on ``g`` (changed); the hand's result,
    or None if the player did not get out (or first had to ask)."""
    seat = g.turn
    move: Move | None = first
    for _ in range(30):
        if move is None or move.kind == ASK:
            if move is not None and move.kind == ASK:
                g.play_unchecked(move)
                g.play_unchecked(Move(YES))
            else:
                return None
        else:
            g.play_unchecked(move)
        if g.is_over():
            return g.result if g.went_out == seat else None
        if g.turn != seat:
            return None
        way = out_move(g, g.options())
        move = None if way is None else g.materialize(way)
    return None


def out_scores(g: Game, seat: int) -> list[SideScore]:
    """The hand's scores if ``seat`` went out now with the cards it holds melded
    (their value not counted: unknown to its partner), the others' hands as they are."""
    h = g.copy()
    h.hands = [row[:] for row in h.hands]
    h.hands[seat] = [0] * NUM_CARDS
    h.went_out = seat
    return h.family.score(h)


def _margin(g: Game, seat: int, result: list[SideScore]) -> int:
    """``seat``'s side's hand score minus the best other side's (player in cut-throat)."""
    me = seat if g.rules.cutthroat else g.side_of[seat]
    mine = result[me].total
    others = [s.total for i, s in enumerate(result) if i != me]
    return mine - max(others, default=0)


def _key(cards: Sequence[int], grp: Sequence[int]) -> int:
    for c in cards:
        if not IS_WILD[c]:
            return CARD_RANK[c] if not IS_BLACK_THREE[c] else THREE
    if grp and grp[0] < 0:
        return -grp[0] - 1
    return WILD_MELD


class BasicBot(HeuristicBot):
    """Sound rules of thumb: meld when allowed, keep pairs, avoid feeding the pile, go out."""

    name = "basic"
    advanced = False


class AdvancedBot(HeuristicBot):
    """A club player's habits: card tracking, safe discards, freezing, pile judgement,
    partnership asking/answering, end-of-stock play."""

    name = "advanced"
    advanced = True
    wild_take_danger = True
    classic_danger_scale = 1.5
    shed_danger = 0.0
    hoard_shed = 0.1  # a third ace or seven is shed, whatever the risk of feeding it (measured, docs/bots.md)
    hoard_shed_late = 0.2


class Habit(NamedTuple):
    """One of the advanced player's habits: its value as shipped, the scale of the tuning's steps,
    its bounds, and whether it is a whole number."""

    value: float
    scale: float
    low: float
    high: float
    whole: bool


_SHIPPED = AdvancedBot(0)
#: the advanced player's habits that self-play tunes (``python -m canasta.rl.tune``)
HABITS: Final[dict[str, Habit]] = {
    "pair_weight": Habit(_SHIPPED.pair_weight, 10.0, 0.0, 60.0, False),
    "value_weight": Habit(_SHIPPED.value_weight, 0.1, 0.0, 1.0, False),
    "classic_danger_scale": Habit(_SHIPPED.classic_danger_scale, 1.0, 0.0, 5.0, False),
    "shed_danger": Habit(_SHIPPED.shed_danger, 0.5, 0.0, 1.0, False),
    "wild_meld_cost": Habit(_SHIPPED.wild_meld_cost, 10.0, 0.0, 60.0, False),
    "take_min_size": Habit(_SHIPPED.take_min_size, 2.0, 1.0, 8.0, True),
    "take_min_value": Habit(_SHIPPED.take_min_value, 30.0, 0.0, 150.0, True),
    "no_penalty": Habit(_SHIPPED.no_penalty, 100.0, 0.0, 600.0, True),
    "no_stock": Habit(_SHIPPED.no_stock, 15.0, 0.0, 80.0, True),
    "late_meld_stock": Habit(_SHIPPED.late_meld_stock, 10.0, 0.0, 60.0, True),
    "late_discard_stock": Habit(_SHIPPED.late_discard_stock, 8.0, 0.0, 60.0, True),
    "answer_margin": Habit(_SHIPPED.answer_margin, 200.0, -1500.0, 500.0, True),
    "out_margin": Habit(_SHIPPED.out_margin, 200.0, -1500.0, 500.0, True),
    "freeze_value": Habit(_SHIPPED.freeze_value, 80.0, 0.0, 600.0, True),
    "natural_meld": Habit(_SHIPPED.natural_meld, 10.0, -30.0, 40.0, False),
    "wild_discard": Habit(_SHIPPED.wild_discard, 80.0, 0.0, 600.0, False),
    "freeze_bonus": Habit(_SHIPPED.freeze_bonus, 80.0, 0.0, 600.0, False),
    "own_meld_keep": Habit(_SHIPPED.own_meld_keep, 10.0, -20.0, 80.0, False),
    "feed_stake": Habit(_SHIPPED.feed_stake, 20.0, 0.0, 200.0, False),
    "feed_per_card": Habit(_SHIPPED.feed_per_card, 3.0, 0.0, 20.0, False),
    "feed_per_point": Habit(_SHIPPED.feed_per_point, 0.2, 0.0, 2.0, False),
    "tracked_danger": Habit(_SHIPPED.tracked_danger, 0.2, 0.0, 1.0, False),
    "late_value_weight": Habit(_SHIPPED.late_value_weight, 0.2, 0.0, 2.0, False),
}
#: the habits' values as shipped
SHIPPED_HABITS: Final[dict[str, float]] = {name: h.value for name, h in HABITS.items()}


def read_habits(text: str) -> dict[str, float]:
    """The habits of a habits file's text (``{"habits": {NAME: VALUE, ...}, ...}``, as
    ``python -m canasta.rl.tune`` writes it); a malformed one is refused with the reason."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"a habits file is JSON: {exc}") from None
    habits = data.get("habits") if isinstance(data, dict) else None
    if not isinstance(habits, dict):
        raise ValueError('a habits file holds {"habits": {NAME: VALUE, ...}}')
    out: dict[str, float] = {}
    for name, value in habits.items():
        if name not in HABITS:
            raise ValueError(f"unknown habit {name!r}: choose among {', '.join(HABITS)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"the habit {name} is a number, not {value!r}")
        habit = HABITS[name]
        if not habit.low <= value <= habit.high:
            raise ValueError(f"the habit {name} lies between {habit.low:g} and {habit.high:g}, not {value}")
        out[name] = float(value)
    return out


@functools.cache
def shipped_habits(rules_name: str) -> dict[str, float] | None:
    """The habits self-play tuned for a preset (``canasta/bots/weights/habits-PRESET.json``), if shipped."""
    path = WEIGHTS / f"habits-{rules_name}.json"
    if not path.is_file():
        return None
    return read_habits(path.read_text(encoding="utf-8"))


compiled_pickle.register([__name__])  # compiled: this module's classes pickle and copy (canasta.engine.compiled_pickle)
