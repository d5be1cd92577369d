"""``expert``: information-set search by determinised rollouts.

For each decision it samples the unseen cards consistently with its view
(:func:`canasta.views.seat.sample_world`), tries the few choices that matter (draw or
take, meld now or wait, which discard, go out or not) and plays each sampled
world forward with the advanced player's rules of thumb for 40 decisions (about
three rounds), then values the position.  Short rollouts are far less noisy
than whole hands, so the same budget tells the choices apart.  It plays the
advanced player's own choice unless another scores better over the same worlds
by more than the sampling noise.

How it searches is data each rule family gives (``RuleFamily.search``).  In Classic a
position is worth the hand's score as it would stand if the hand ended there
(the family's own scoring: natural and mixed canastas, red threes, the cards
still in hand), plus a little for melds on their way to a canasta, side against
side, the difference squashed so that one wild world does not outvote the
rest; and the worlds go where the decision is close: after a first look (12
worlds) and then every 6 worlds, a choice that trails the best one by more than
``drop_z`` standard errors over the same worlds is dropped, and the search stops
when only the advanced player's choice is left.  Italian values a position
roughly (melded points, any canasta 300, minus the cards in hand), and drops
choices the same way over up to 60 worlds.

A family (or a variant measured against it) may value a position for the match instead
(``SearchTuning.objective="match"``, :func:`match_chance`): the chance the side wins the match
once this hand's score, as it would stand, joins the match's totals, with the hands still to play
as noise; the hand's value stays beside it, small, to tell apart what the match does not.  Its
worlds may also read the discards (``read_discards``, :func:`canasta.bots.inference.thin`).

The budget bounds each decision: the family's number of worlds, and one second:
the clock starts with the decision, and rollouts stop at 65% of the time so
that the engine step under way and the choice still end within it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Protocol

from canasta.bots.base import Bot, Budget, world
from canasta.bots.heuristic import SHIPPED_HABITS, AdvancedBot, meld_groups, shipped_habits
from canasta.bots.inference import PileWatch, respect, thin
from canasta.bots.value import shipped
from canasta.engine.cards import CARD_RANK, THREE
from canasta.engine.family import SearchTuning
from canasta.engine.game import Game
from canasta.engine.moves import ASK, DISCARD, Move
from canasta.engine.options import Option, discard_card, split_options
from canasta.engine.state import ANSWER_PHASE, DRAW_PHASE
from canasta.views.seat import SeatView

ROLLOUT_LIMIT = 400  # decisions; a rollout that long is scored where it stands
STEP_MARGIN = 0.35  # the share of the time budget kept back for the engine step in progress
PROGRESS = 50.0  # a meld's worth per card beyond three, until it is a canasta
SQUASH = 800.0  # the scale of the match's chance, and SearchTuning.squash's default
MATCH_TIEBREAK = 0.05  # the hand's value beside the match's chance (SearchTuning.objective "match")


class RolloutPlayer(Protocol):
    """Who plays a sampled world forward: a move for the seat to move among ``options``."""

    def pick(self, g: Game, options: Sequence[Option]) -> Move: ...


class ExpertBot(Bot):
    name = "expert"
    switch_z = 1.0  # how many standard errors a choice must beat the guide's move by
    first_look = 12  # worlds before the first drop
    look_every = 6  # worlds between drops
    rollout_depth: int | None = 40  # decisions before a rollout is scored where it stands (None: to the end)
    discard_choices = 3  # the discards tried: the guide's and the next best by its own ranking
    meld_choices = 0  # melds besides the guide's tried too: the best by the guide's own meld scoring
    infer = True  # sampled worlds respect the refusals seen (canasta.bots.inference)
    read_discards = False  # sampled worlds thin the ranks each seat has discarded (canasta.bots.inference.thin)
    tuning: SearchTuning | None = None  # a variant's own search (None: the family's, RuleFamily.search)

    def __init__(self, seed: int = 0, budget: Budget | None = None, rollout: str = "advanced") -> None:
        """``budget``: seconds and/or worlds per decision (default: one second, and
        the family's ``SEARCH`` worlds; a budget in seconds alone thinks that long).
        ``rollout``: who plays the sampled worlds forward: ``advanced`` (the rules of thumb),
        ``policy`` (the shipped policy network of the game's rules, :mod:`canasta.rl.rollout`;
        needs numpy) or ``policy:PATH`` (a saved policy)."""
        super().__init__(seed, budget or Budget(seconds=1.0))
        self.family_worlds = budget is None
        self.guide = AdvancedBot(seed)
        self.rollout: RolloutPlayer
        if rollout == "advanced":
            self.rollout = AdvancedBot(seed)
            self.rollout.asks_partner = False  # rollouts go out without asking where asking is optional
        elif rollout == "policy" or rollout.startswith("policy:"):
            from canasta.rl.rollout import PolicyRollout  # numpy, only for this option

            self.rollout = PolicyRollout(rollout[7:] or None)
        else:
            raise ValueError(f"unknown rollout {rollout!r}: choose advanced, policy or policy:PATH")
        self.watch = PileWatch()
        self.habits_of = ""  # the preset whose habits the guide and the rollouts play with ("": as shipped)

    def choose(self, view: SeatView) -> Move:
        started = time.perf_counter()  # the budget counts the whole decision
        if self.infer:
            self.watch.observe(view)
        move = self._choose(view, started)
        if move.kind == DISCARD:
            self.watch.discarded(view, move.groups[0][0])
        return move

    def _world(self, view: SeatView) -> Game:
        """A world sampled from the view, dealt again where it contradicts the refusals seen."""
        w = world(view, self.rng)
        if self.infer and self.watch.limits:
            respect(w, view, self.watch.limits, self.rng)
        if self.infer and self.read_discards and self.watch.discards:
            thin(w, view, self.watch.discards, self.rng)
        return w

    def _choose(self, view: SeatView, started: float) -> Move:
        g = world(view, self.rng)
        # options, not moves: an unopened hand of twenty cards and more has tens of thousands of
        # openings, and only the candidates are built into moves
        options = g.options()
        if len(options) == 1:
            return g.materialize(options[0])
        if g.phase == ANSWER_PHASE:
            # the asker's hand is hidden, but it can go out (that is why it asked);
            # sampled worlds would not know that, so answer by the rules of thumb
            return self.guide.pick(g, options)
        self._habits(g)
        cands = self._candidates(g, options)
        if len(cands) == 1:
            return cands[0]
        if isinstance(self.rollout, AdvancedBot):
            # where going out is found meld by meld by the family's search (Modern American),
            # judging whether it pays plays the way out to its end: two thirds of a rollout's
            # time, for no measured gain (the advanced player judging it or not won as many
            # hands against basic); there the rollouts go out whenever they can
            self.rollout.out_when_ahead = not g.family.play.out_by_search
        me = view.seat
        # values[i][w]: candidate i's value in world w; a dropped candidate's list stops growing
        values: list[list[float]] = [[] for _ in cands]
        active = list(range(len(cands)))  # cands[0], the guide's move, is never dropped
        done = 0
        assert self.budget is not None
        seconds = self.budget.seconds
        search = self._search(g)
        worlds = self.budget.iterations or (search.worlds if self.family_worlds else math.inf)
        # rollouts stop early enough that the engine step in progress (rarely up to
        # ~0.2 s in Italian: opening and going-out searches) still ends within budget
        deadline = started + (1 - STEP_MARGIN) * seconds if seconds is not None else math.inf
        while done < worlds and time.perf_counter() < deadline:
            w = self._world(view)
            row: list[float] = []
            for i in active:
                h = w.copy()
                h.play_unchecked(cands[i])
                value = self._playout(h, me, deadline)
                if value is None:
                    break
                row.append(value)
            if len(row) < len(active):  # out of time inside this world: it is not counted
                break
            for i, v in zip(active, row, strict=True):
                values[i].append(v)
            done += 1
            if search.drop_z is not None and done >= self.first_look and (done - self.first_look) % self.look_every == 0:
                active = self._keep(values, active, search.drop_z)
                if len(active) == 1:
                    break
        gains = [[v - values[0][k] for k, v in enumerate(vs)] for vs in values]
        return cands[self._best(gains, self.switch_z)]

    @staticmethod
    def _keep(values: list[list[float]], active: list[int], z: float) -> list[int]:
        """The candidates still worth trying: the guide's (``active[0]``), the best
        by mean value, and every other not behind the best by more than ``z``
        standard errors of the difference over the same worlds."""
        n = len(values[active[0]])
        top = max(active, key=lambda i: sum(values[i]))
        keep = []
        for i in active:
            if i in (active[0], top):
                keep.append(i)
                continue
            d = [a - b for a, b in zip(values[i], values[top], strict=True)]
            mean = sum(d) / n
            var = sum((x - mean) ** 2 for x in d) / (n - 1)
            if mean >= -z * math.sqrt(var / n):
                keep.append(i)
        return keep

    @staticmethod
    def _best(gains: list[list[float]], z: float) -> int:
        """The candidate with the best mean gain over the guide's move, but only
        if that gain stands out from the noise of the sampled worlds (one standard
        error): a switch on noise alone is more often wrong than right."""
        best, best_mean = 0, 0.0
        for i in range(1, len(gains)):
            g = gains[i]
            n = len(g)
            if n < 2:
                continue
            mean = sum(g) / n
            var = sum((x - mean) ** 2 for x in g) / (n - 1)
            if mean > best_mean and mean > z * math.sqrt(var / n):
                best, best_mean = i, mean
        return best

    def _candidates(self, g: Game, options: Sequence[Option]) -> list[Move]:
        """The moves the search tries, the guide's first, from the legal moves or the game's
        options (only these are built into moves)."""
        guided = self.guide.pick(g, options)
        out = [guided]  # first: the move the others must beat

        def add(opt: Option) -> bool:
            """Build the option's move and try it too, unless it is tried already."""
            move = g.materialize(opt)
            if move in out:
                return False
            out.append(move)
            return True

        if g.phase in (DRAW_PHASE, ANSWER_PHASE):
            if len(options) <= 6:
                for opt in options:
                    add(opt)
            return out  # beyond six (takes that open), the guide's choice alone
        melds, discards, others = split_options(options)
        hsize = g.hand_sizes[g.turn]
        for opt in melds:
            if hsize - sum(n for _, n, _ in meld_groups(opt)) <= 1 and add(opt):
                break  # going out now
        asks = [m for m in others if m.kind == ASK]
        if asks and asks[0] not in out and self.guide.asks_first(g):
            out.append(asks[0])
        if discards:
            best = self.guide._discard(g, discards)
            rank = g.rank_counts[g.turn]
            ranked = sorted(discards, key=lambda m: 0 if m == best else 1 + rank[CARD_RANK[discard_card(g, m)]])
            for opt in ranked[:self.discard_choices]:
                add(opt)
        if self.meld_choices:
            late = len(g.stock) < self.guide.late_meld_stock
            added = 0
            for opt in sorted(melds, key=lambda m: -self.guide._meld_score(g, m, late)):
                if added == self.meld_choices:
                    break
                added += add(opt)
        return out

    def _playout(self, g: Game, me: int, deadline: float = math.inf) -> float | None:
        """Play ``g`` forward with the rollout policy and score it for ``me``'s side;
        None if the deadline passed first."""
        policy = self.rollout
        steps = 0
        limit = self.rollout_depth or ROLLOUT_LIMIT
        while not g.is_over() and steps < limit:
            if time.perf_counter() > deadline:
                return None
            options = g.family.options_of(g)
            if not options:  # pragma: no cover - a sampled world the real table excludes
                break
            g.play_unchecked(g.materialize(options[0]) if len(options) == 1 else policy.pick(g, options))
            steps += 1
        search = self._search(g)
        model = shipped(g.rules.name) if search.learned and not g.is_over() else None
        totals = standing(g) if search.scored or search.objective == "match" or model is not None else []
        if model is not None:
            totals = model.totals(g, totals)
        value = (_value(g, me, search.rivals, totals, search.squash) if search.scored or model is not None
                 else _rough_value(g, me, search.rivals))
        if search.objective == "match":
            # the match's chance decides; the hand's value only where the match's does not move
            return SQUASH * (2 * match_chance(g, me, search, totals) - 1) + MATCH_TIEBREAK * value
        return value

    def _habits(self, g: Game) -> None:
        """Give the guide and the rollouts the habits tuned for ``g``'s preset, where the search
        asks for them (``SearchTuning.habits``) and some are shipped; once a preset."""
        name = g.rules.name if self._search(g).habits else ""
        if name == self.habits_of:
            return
        habits = shipped_habits(name) if name else None
        players: list[object] = [self.guide, self.rollout]
        for bot in players:
            if isinstance(bot, AdvancedBot):
                bot.set_habits(habits or SHIPPED_HABITS)
        self.habits_of = name

    def _search(self, g: Game) -> SearchTuning:
        """How the expert searches in ``g``'s family: the family's :attr:`search`, unless
        this bot names its own :attr:`tuning` (a variant measured against it)."""
        return self.tuning or g.family.search


def _lead(g: Game, me: int, totals: Sequence[float], rivals: str = "best") -> float:
    """``me``'s total minus the best of the other sides' (``rivals="best"``) or their mean
    (``totals`` per side, or per player in cut-throat, where ``me``'s partners of the moment
    are not others)."""
    side = g.side_of[me]
    mine = me if g.rules.cutthroat else side
    others = [t for i, t in enumerate(totals) if (g.side_of[i] if g.rules.cutthroat else i) != side]
    if rivals == "mean" and others:
        return float(totals[mine] - sum(others) / len(others))
    return float(totals[mine] - max(others, default=0.0))


def standing(g: Game) -> list[float]:
    """The hand's score per side (per player in cut-throat) as it would stand were the hand to
    end now (its real score once it has ended), with ``PROGRESS`` points per card beyond three in
    melds not yet canastas while it goes on."""
    result = g.result if g.is_over() and g.result else g.family.score(g)
    totals = [float(s.total) for s in result]
    if not g.is_over():
        for side in range(g.num_sides):
            grow = PROGRESS * sum(m.size - 3 for m in g.melds[side].values()
                                  if 3 < m.size < g.canasta_size and m.rank != THREE)
            if grow:
                for i in range(len(totals)):
                    if (g.side_of[i] if g.rules.cutthroat else i) == side:
                        totals[i] += grow
    return totals


def _value(g: Game, me: int, rivals: str = "best", totals: Sequence[float] | None = None,
           squash: float = SQUASH) -> float:
    """``me``'s side's score minus the best other side's, by :func:`standing` (given, or worked
    out), squashed by ``squash`` (``SearchTuning.squash``); an unfinished hand's lead is over the
    best other side or, ``rivals="mean"``, the others' mean."""
    return squash * math.tanh(_lead(g, me, totals or standing(g), "best" if g.is_over() else rivals) / squash)


def match_chance(g: Game, me: int, search: SearchTuning, hand: Sequence[float] | None = None) -> float:
    """The chance that ``me``'s side wins the match from ``g``, by a simple model: the match's
    totals once this hand is added (:func:`standing`) give a lead over the best other side, and
    the hands still to play add noise to it, each with a standard deviation of
    ``search.spread`` times the target.  The hands left are those the rules fix, or those the
    leader needs to reach the target at ``search.pace`` times the target a hand, and half a
    hand for the rest of this one while it goes on.  A hand that ended the match is won or lost
    (a tie is even).  ``hand``: :func:`standing` of ``g``, when the caller has them."""
    rules = g.rules
    target = rules.target
    totals = [t + s for t, s in zip(hand or standing(g), g.start_scores, strict=True)]
    lead = _lead(g, me, totals)
    fixed = rules.hands_in_match()
    if fixed:
        left = float(fixed - g.hand_number)
    else:
        left = max(0.0, (target - max(totals)) / (search.pace * target)) if target > 0 else 1.0
    if g.is_over():
        if left <= 0:  # this hand ended the match
            return 1.0 if lead > 0 else 0.0 if lead < 0 else 0.5
        left = max(left, 1.0)
    else:
        left += 0.5
    scale = search.spread * (target if target > 0 else 5000) * math.sqrt(left)
    return 0.5 * (1 + math.erf(lead / (scale * math.sqrt(2))))


def _rough_value(g: Game, me: int, rivals: str = "mean") -> float:
    """The first version's value: the score difference of a finished hand; of an
    unfinished one, melded points (any canasta 300) and red threes minus cards in
    hand, against the other sides' mean (``rivals="mean"``) or the best of them."""
    if g.is_over():
        return _lead(g, me, [s.total for s in g.result or []])
    side = g.side_of[me]
    value = 0.0
    best_other = -math.inf
    for s in range(g.num_sides):
        pts = sum(m.points for m in g.melds[s].values()) + sum(m.points + 300 for m in g.set_aside(s))
        pts += 300 * sum(1 for m in g.melds[s].values() if m.is_canasta)
        pts -= sum(g.card_value[c] * k for p in range(g.players) if g.side_of[p] == s for c, k in enumerate(g.hands[p]) if k)
        pts += 100 * sum(len(g.red3[p]) for p in range(g.players) if g.side_of[p] == s)
        if s == side:
            value += pts
        elif rivals == "mean":
            value -= pts / max(1, g.num_sides - 1)
        else:
            best_other = max(best_other, pts)
    return value if rivals == "mean" or best_other == -math.inf else value - best_other
