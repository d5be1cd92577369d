"""Game review: the expert values every decision of a finished game, seat by seat.

For each decision of a reviewed seat, :func:`evaluate` gets that seat's
:class:`~canasta.views.seat.SeatView` at that moment and the move it made, and nothing
else: no game, no deal, no seed of the hand.  The hidden cards are therefore out
of reach by construction; the worlds it samples are dealt from the view
(:func:`canasta.views.seat.sample_world`, as the expert does), and the refusals the seat
saw are read from its own earlier views (:class:`canasta.bots.inference.PileWatch`).

The candidates are the expert's (:meth:`ExpertBot._candidates`) with the move made
added.  Every candidate is played in the same sampled worlds with the expert's
rollouts and the hand's position value (points for the side, squashed beyond about 800,
even where the family's expert plays for the match), and
a candidate trailing the best one by more than the family's ``drop_z`` standard
errors is dropped along the way, except the move made.  The result per decision
is a :class:`DecisionReview`: the value of the move made, of its best alternative,
the loss (alternative minus move made, at least 0) and its standard error over
the paired worlds, and a mark when the loss is clear beyond the noise
(:func:`mark_for`, thresholds in ``docs/review.md``).

Each decision's worlds come from a seed derived from the review's seed, the game,
the hand and the move's index: the same review whatever ``--jobs`` is.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Final

from canasta.bots.base import Budget, world
from canasta.bots.expert import ExpertBot
from canasta.bots.inference import PileWatch
from canasta.engine.errors import CanastaError
from canasta.engine.game import family_of
from canasta.engine.moves import DISCARD, Move
from canasta.engine.rules import RuleSet
from canasta.engine.state import ANSWER_PHASE
from canasta.i18n import N_, _
from canasta.play.record import GameRecord, cut_short, verify
from canasta.views.seat import SeatView, seat_view

#: the sidecar's format name
FORMAT: Final = "canasta-review/1"
#: the default number of sampled worlds per decision (``--budget expert:i96``)
DEFAULT_WORLDS: Final = 96
#: a loss is marked only when it exceeds this many standard errors of the paired difference
NOISE_Z: Final = 2.0
#: the marks, the heaviest first (the points each needs are the family's: :func:`thresholds_of`)
MARKS: Final = ("blunder", "mistake", "inaccuracy")
#: the marks' names as shown (``_(MARK_NAMES[mark])`` translates one)
MARK_NAMES: Final = {"inaccuracy": N_("inaccuracy"), "mistake": N_("mistake"), "blunder": N_("blunder")}
#: the marks as a move list shows them, as chess annotators do
MARK_SYMBOLS: Final = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


class ReviewError(CanastaError):
    """A record that cannot be reviewed (damaged, cut short, no such game, hand or seat)."""


@dataclass(frozen=True)
class Evaluation:
    """What the expert makes of one decision, from the seat's view alone."""

    value: float  # the move made: mean value over the worlds, points for the seat's side
    best: Move | None  # the best alternative (None: the expert considered no other)
    best_value: float  # its mean value (over the worlds it was tried in)
    gain: float  # best alternative minus the move made, over the same worlds (may be negative)
    stderr: float  # the standard error of ``gain``
    worlds: int  # worlds the move made was tried in
    candidates: int  # choices compared, the move made included


@dataclass(frozen=True)
class DecisionReview:
    """One reviewed decision, as the command line, the terminal replay and the card room read it.

    ``hand`` is the hand's number in the game (1, 2, ...), ``index`` the move's index in the
    hand's moves (0-based, every seat's moves counted), ``line`` the record's line (0 if unknown)."""

    game: int
    hand: int
    index: int
    line: int
    seat: int
    phase: str
    move: str
    best: str  # "" when the expert compared no other choice
    value: float
    best_value: float
    loss: float  # max(0, best_value - value) over the same worlds
    stderr: float
    worlds: int
    candidates: int
    mark: str  # "", "inaccuracy", "mistake" or "blunder"

    @staticmethod
    def from_dict(data: dict[str, Any]) -> DecisionReview:
        return DecisionReview(**{k: data[k] for k in DecisionReview.__dataclass_fields__})


@dataclass(frozen=True)
class PlayerSummary:
    seat: int
    player: str
    decisions: int
    lost: float  # points lost in all
    marks: dict[str, int]

    @property
    def lost_per_decision(self) -> float:
        return self.lost / self.decisions if self.decisions else 0.0


@dataclass
class Review:
    """A game's review: its settings and its decisions in order."""

    game: int
    seats: tuple[int, ...]
    hand: int | None  # only this hand, or every hand
    worlds: int
    seed: int
    players: dict[int, str] = field(default_factory=dict)
    decisions: list[DecisionReview] = field(default_factory=list)
    record_digest: str = ""
    #: the points lost each mark needed (``thresholds_of`` the game's rules)
    thresholds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> list[PlayerSummary]:
        out = []
        for seat in self.seats:
            mine = [d for d in self.decisions if d.seat == seat]
            out.append(PlayerSummary(seat, self.players.get(seat, str(seat)), len(mine), sum(d.loss for d in mine),
                                     {m: sum(1 for d in mine if d.mark == m) for m in MARKS}))
        return out

    def marked(self) -> list[DecisionReview]:
        return [d for d in self.decisions if d.mark]

    def key(self) -> dict[str, Any]:
        """What a stored review must share to be reused."""
        return {"game": self.game, "seats": list(self.seats), "hand": self.hand, "worlds": self.worlds,
                "seed": self.seed, "record": self.record_digest, "thresholds": dict(self.thresholds),
                "noise_z": NOISE_Z}

    def to_dict(self) -> dict[str, Any]:
        return {**self.key(), "players": {str(k): v for k, v in self.players.items()},
                "summary": [{**asdict(s), "lost_per_decision": round(s.lost_per_decision, 1)}
                            for s in self.summary()],
                "decisions": [asdict(d) for d in self.decisions]}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Review:
        try:
            return Review(int(data["game"]), tuple(int(s) for s in data["seats"]),
                          None if data["hand"] is None else int(data["hand"]), int(data["worlds"]),
                          int(data["seed"]), {int(k): str(v) for k, v in data.get("players", {}).items()},
                          [DecisionReview.from_dict(d) for d in data["decisions"]], str(data.get("record", "")),
                          {str(k): float(v) for k, v in data.get("thresholds", {}).items()})
        except (KeyError, TypeError, ValueError) as exc:
            raise ReviewError(_("the stored review is malformed: {error}").format(error=repr(exc))) from None


def thresholds_of(rules: RuleSet) -> tuple[tuple[str, float], ...]:
    """(mark, points lost) from the heaviest down, as the rules' family measured them."""
    return family_of(rules).review_marks.thresholds()


def mark_for(loss: float, stderr: float, thresholds: Sequence[tuple[str, float]]) -> str:
    """The mark a loss earns: the heaviest whose threshold it reaches, and only when it
    stands ``NOISE_Z`` standard errors clear of nothing lost."""
    if loss <= NOISE_Z * stderr:
        return ""
    for name, points in thresholds:
        if loss >= points:
            return name
    return ""


def decision_seed(seed: int, game: int, hand: int, index: int) -> int:
    """The sampling seed of one decision (never the deal's: the deal is hidden)."""
    digest = hashlib.sha256(f"canasta-review:{seed}:{game}:{hand}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _same(a: Move, b: Move) -> bool:
    return a == b or str(a) == str(b)


def _stats(diffs: Sequence[float]) -> tuple[float, float]:
    n = len(diffs)
    if n == 0:
        return 0.0, 0.0
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in diffs) / (n - 1)
    return mean, math.sqrt(var / n)


def evaluate(view: SeatView, made: Move, worlds: int, seed: int,
             limits: dict[int, dict[int, int]] | None = None) -> Evaluation | None:
    """The expert's judgement of ``made`` at ``view`` (the seat's view before it moved),
    over ``worlds`` worlds sampled from the view with ``seed``; ``limits``: the refusals
    the seat saw (:attr:`PileWatch.limits`).  None when there was nothing to choose
    (one legal move) or the decision is not judged (an answer to a partner's ask: the
    asker's hand is what matters, and no sampled world knows it)."""
    bot = ExpertBot(seed, Budget(iterations=worlds))
    # in points, whatever the family's expert plays for (Classic's plays for the match): a
    # review's losses and marks are the hand's points (docs/review.md)
    bot.tuning = replace(family_of(view.rules).search, objective="hand")
    if limits:
        bot.watch.limits = {s: dict(r) for s, r in limits.items()}
    g = world(view, bot.rng)
    moves = list(g.generate())
    if len(moves) <= 1 or g.phase == ANSWER_PHASE:
        return None
    chosen = next((m for m in moves if _same(m, made)), made)
    cands = [chosen] + [m for m in bot._candidates(g, moves) if not _same(m, chosen)]
    me = view.seat
    values: list[list[float]] = [[] for _ in cands]
    active = list(range(len(cands)))  # cands[0], the move made, is never dropped
    drop_z = g.family.search.drop_z
    for done in range(1, worlds + 1):
        w = bot._world(view)
        for i in active:
            h = w.copy()
            h.play_unchecked(cands[i])
            value = bot._playout(h, me)
            assert value is not None  # no deadline
            values[i].append(value)
        if drop_z is not None and len(active) > 2 and done >= bot.first_look \
                and (done - bot.first_look) % bot.look_every == 0:
            kept = ExpertBot._keep(values, active, drop_z)
            rival = max(active[1:], key=lambda i: sum(values[i]))  # the best alternative stays
            active = kept if rival in kept else sorted(kept + [rival])
    if len(cands) == 1:
        value = sum(values[0]) / len(values[0])
        return Evaluation(value, None, value, 0.0, 0.0, len(values[0]), 1)
    best_i, best_gain, best_se = 1, -math.inf, 0.0
    for i in range(1, len(cands)):
        k = len(values[i])
        gain, se = _stats([values[i][j] - values[0][j] for j in range(k)])
        # a candidate dropped early is compared over its own (fewer) worlds
        if gain > best_gain:
            best_i, best_gain, best_se = i, gain, se
    k = len(values[best_i])  # both over the same worlds
    return Evaluation(sum(values[0][:k]) / k, cands[best_i], sum(values[best_i]) / k, best_gain, best_se, k,
                      len(cands))


@dataclass(frozen=True)
class Task:
    """One decision to evaluate: all an evaluation may know (picklable, for the workers)."""

    game: int
    hand: int
    index: int
    line: int
    view: SeatView
    move: Move
    worlds: int
    seed: int
    limits: dict[int, dict[int, int]]


def run_task(task: Task) -> DecisionReview | None:
    ev = evaluate(task.view, task.move, task.worlds, task.seed, task.limits)
    if ev is None:
        return None
    loss = max(0.0, ev.gain)
    se = ev.stderr if math.isfinite(ev.stderr) else 0.0
    return DecisionReview(
        game=task.game, hand=task.hand, index=task.index, line=task.line, seat=task.view.seat,
        phase=task.view.phase, move=str(task.move), best="" if ev.best is None else str(ev.best),
        value=round(ev.value, 1), best_value=round(ev.best_value, 1), loss=round(loss, 1), stderr=round(se, 1),
        worlds=ev.worlds, candidates=ev.candidates,
        mark=mark_for(loss, ev.stderr, thresholds_of(task.view.rules)) if ev.best is not None else "")


def check_record(record: GameRecord, label: str) -> None:
    """Refuse, in one line, a record that is cut short or damaged."""
    problems = verify(record)
    if not problems:
        return
    if cut_short(problems):
        raise ReviewError(_("{game} is cut short: {problem}; only a whole game can be reviewed").format(
            game=label, problem=problems[0]))
    raise ReviewError(_("{game} is damaged: {problem} ('canasta verify' lists every problem)").format(
        game=label, problem=problems[0]))


def tasks_of(record: GameRecord, game: int, seats: Iterable[int], hand: int | None, worlds: int,
             seed: int) -> list[Task]:
    """Every decision of ``seats`` in the game (or its hand ``hand``), each with the seat's view
    before it moved and the refusals that seat had seen (its own views only)."""
    chosen = set(seats)
    match = record.match()
    players = match.rules.players
    out: list[Task] = []
    for number, rec_hand in enumerate(record.hands, start=1):
        fair = rec_hand.fair_deal(number, players)
        g = match.next_hand(fair) if fair is not None else match.next_hand()
        watches = {s: PileWatch() for s in chosen}
        for index, (seat, move, _comment, line) in enumerate(rec_hand.moves):
            if seat in chosen:
                view = seat_view(g, seat)
                watch = watches[seat]
                watch.observe(view)  # as the expert does, at each of its decisions
                if hand is None or hand == number:
                    out.append(Task(game, number, index, line, view, move, worlds,
                                    decision_seed(seed, game, number, index),
                                    {s: dict(r) for s, r in watch.limits.items()}))
                if move.kind == DISCARD:
                    watch.discarded(view, move.groups[0][0])
            g.push(move)
        match.record_hand()
    return out


def review_record(record: GameRecord, game: int, seats: Sequence[int], hand: int | None = None,
                  worlds: int = DEFAULT_WORLDS, seed: int = 1, jobs: int = 1,
                  progress: Callable[[int, int], None] | None = None, label: str = "") -> Review:
    """Review one game of a record (checked first: a damaged or cut-short one is refused)."""
    check_record(record, label or _("game {n}").format(n=game))
    if hand is not None and not 1 <= hand <= len(record.hands):
        raise ReviewError(_("there is no hand {hand}: the game has {count}").format(hand=hand,
                                                                                  count=len(record.hands)))
    tasks = tasks_of(record, game, seats, hand, worlds, seed)
    results = run_tasks(tasks, jobs, progress)
    return Review(game, tuple(seats), hand, worlds, seed, record.seated(),
                  [r for r in results if r is not None], thresholds=dict(thresholds_of(record.rules())))


def run_tasks(tasks: Sequence[Task], jobs: int = 1,
              progress: Callable[[int, int], None] | None = None) -> list[DecisionReview | None]:
    """The tasks' results in order, in ``jobs`` processes (each task is seeded on its own)."""
    out: list[DecisionReview | None] = []
    total = len(tasks)
    if jobs <= 1 or total <= 1:
        for t in tasks:
            out.append(run_task(t))
            if progress:
                progress(len(out), total)
        return out
    import multiprocessing

    with multiprocessing.get_context("spawn" if _threads_running() else "fork").Pool(jobs) as pool:
        for r in pool.imap(run_task, tasks, chunksize=1):
            out.append(r)
            if progress:
                progress(len(out), total)
    return out


def _threads_running() -> bool:
    import threading

    return threading.active_count() > 1
