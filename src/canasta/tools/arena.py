"""The arena: two bots play matches on duplicate deals, in parallel.

Each deal (a match seed, hence every hand's seed) is played twice with the
bots' seats swapped, so the luck of the cards cancels out.  Every game is
saved in the record format (:mod:`canasta.play.record`), so ``canasta verify`` can
replay it exactly.

A bot is a spec (``"advanced"``, ``"cmd:python my_bot.py"``), a Python
:class:`~canasta.bots.Bot` subclass (made for each seat with its seed: the
duplicate pairs stay fair) or a ``Bot`` object (one object plays all its seats)::

    report = run_arena(RuleSet.preset("classic-4p"), (MyBot, "basic"), games=2, seed=1)
    print(report.table())

With ``jobs`` above 1 a Python bot must pickle (a class defined at a module's top level).
"""

from __future__ import annotations

import datetime
import hashlib
import math
import multiprocessing
import pickle
import queue as queue_module
import re
import signal
import statistics
import sys
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from canasta.bots import as_bot, bot_label, check_bot
from canasta.bots.base import Bot, BotLike
from canasta.engine.errors import CanastaError
from canasta.engine.files import atomic_file, atomic_path
from canasta.engine.moves import Move
from canasta.engine.rules import RuleSet
from canasta.play.match import Match, hand_seed
from canasta.play.record import (
    GameRecord,
    RecordedHand,
    cut_short,
    outcome,
    read_file,
    record_from_match,
    verify,
)
from canasta.views.seat import seat_view


@dataclass
class GameResult:
    """One match between bot A and bot B (``a_side_first``: A's seats)."""

    index: int
    orientation: int  # 0: A in the even slots; 1: swapped
    totals_a: int
    totals_b: int
    hands: int
    hands_won_a: int
    hands_won_b: int
    diffs: list[int]  # A minus B, per hand
    times: dict[str, list[float]]  # per bot label: decision times (s)
    errors: list[str]
    record: str  # the game in the record format (canasta.play.record)
    went_out: int = 0  # hands that ended by a player going out


def _team_of(rules: RuleSet) -> list[int]:
    """Each seat's team (its index in ``rules.teams``)."""
    return [next(i for i, t in enumerate(rules.teams) if seat in t) for seat in range(rules.players)]


def _slots(rules: RuleSet) -> list[int]:
    """Which bot (0 = A, 1 = B) sits in each seat: sides alternate A, B, A, ..."""
    return [team % 2 for team in _team_of(rules)]


@dataclass(frozen=True)
class Progress:
    """Where one game stands, as the process playing it reports it: after every
    hand, and every ``MOVE_REPORT_SECONDS`` within a hand (a slow hand, e.g.
    expert bots, still shows its moves)."""

    game: tuple[int, int]  # (duplicate pair, orientation)
    hands: int  # hands finished in this game
    moves: int  # moves of the hand under way (0 at a hand's end)
    hand_moves: int = 0  # when a hand has just ended: its moves
    lead: float = 0.0  # the leading side's total as a fraction of the target
    over: bool = False  # the game is finished


MOVE_REPORT_SECONDS = 0.25
#: the most matches one run plays (``canasta arena --games``, and each pair of ``canasta ladder``):
#: days of play for the fastest bots, so a bigger count is a slip (the command line refuses it)
MAX_GAMES = 1_000_000
#: a hand's tag in an arena record: how long each move's decision took, in milliseconds, in move
#: order (so a tally of a stopped run still has the decision times)
DECISION_TAG = "DecisionMs"  # one of canasta.play.record.HAND_TAGS


def play_game(rules: RuleSet, players: tuple[BotLike, BotLike], seed: int, index: int, orientation: int,
              max_hands: int = 60, report: Callable[[Progress], None] | None = None) -> GameResult:
    """Play one match of the duplicate pair ``index``; ``report`` hears how far it is.
    ``players`` are bot specs or Python bots (see the module docstring)."""
    match_seed = hand_seed(seed, 1_000_000 + index)
    slots = _slots(rules)
    if orientation:
        slots = [1 - x for x in slots]
    specs = (bot_label(players[0]), bot_label(players[1]))
    bots: list[Bot] = []
    owned: list[Bot] = []  # the bots made here, closed here (a bot object given is the caller's)
    try:
        for s in range(rules.players):
            bot, made = as_bot(players[slots[s]], seed=hand_seed(match_seed, 100 + s) & 0xFFFFFFFF)
            bots.append(bot)
            if made:
                owned.append(bot)
    except BaseException:
        for bot in owned:
            bot.close()
        raise
    labels = ["A", "B"]
    times: dict[str, list[float]] = {"A": [], "B": []}
    errors: list[str] = []
    match = Match(rules, seed=match_seed, first_dealer=index % rules.players)
    all_moves: list[list[tuple[int, Move]]] = []
    hand_times: list[list[float]] = []  # each hand's decision times, in move order (the record's DecisionMs)
    diffs: list[int] = []
    won = [0, 0]
    hands = 0
    went_out = 0
    key = (index, orientation)
    last_report = time.perf_counter()
    try:
        while not match.over and hands < max_hands:
            game = match.next_hand()
            moves: list[tuple[int, Move]] = []
            took: list[float] = []
            while not game.is_over():
                if report is not None and time.perf_counter() - last_report >= MOVE_REPORT_SECONDS:
                    last_report = time.perf_counter()
                    report(Progress(key, hands, len(moves), lead=_lead(rules, match.totals)))
                seat = game.to_move
                view = seat_view(game, seat)
                t0 = time.perf_counter()
                move = bots[seat].choose(view)
                took.append(time.perf_counter() - t0)
                times[labels[slots[seat]]].append(took[-1])
                err = game.why_illegal(move)
                if err is not None:
                    errors.append(f"{specs[slots[seat]]} (seat {seat}) played an illegal move {move}: {err}")
                    move = next(iter(game.legal_moves))
                game.push(move)
                moves.append((seat, move))
            all_moves.append(moves)
            hand_times.append(took)
            rec = match.record_hand()
            hands += 1
            went_out += game.went_out >= 0
            per_seat = _per_seat_scores(rules, game.side_of, [s.total for s in rec.scores])
            a = _bot_score(per_seat, slots, 0)
            b = _bot_score(per_seat, slots, 1)
            diffs.append(a - b)
            if a > b:
                won[0] += 1
            elif b > a:
                won[1] += 1
            for bot in {id(b): b for b in bots}.values():  # once per bot, however many seats
                hook = getattr(bot, "hand_over", None)
                if callable(hook):
                    hook([s.total for s in rec.scores])
            if report is not None:
                last_report = time.perf_counter()
                report(Progress(key, hands, 0, len(moves), _lead(rules, match.totals),
                                match.over or hands >= max_hands))
    finally:
        seen: set[int] = set()
        for i, bot in enumerate(bots):
            if id(bot) not in seen:
                seen.add(id(bot))
                errors.extend(f"{specs[slots[i]]} (seat {i}): {e}" for e in getattr(bot, "errors", []))
        for bot in owned:
            bot.close()
    team_of = _team_of(rules)
    final = _per_seat_scores(rules, team_of, match.totals)
    saved = record_from_match(match, all_moves, f"arena game {index}.{orientation}",
                              [specs[slots[s]] for s in range(rules.players)],
                              datetime.date.today().strftime("%Y.%m.%d"))
    for hand, took in zip(saved.hands, hand_times, strict=True):
        hand.tags[DECISION_TAG] = " ".join(f"{1000 * t:.2f}" for t in took)
    record = saved.to_text()
    return GameResult(index, orientation, _bot_score(final, slots, 0), _bot_score(final, slots, 1), hands,
                      won[0], won[1], diffs, times, errors, record, went_out)


def _lead(rules: RuleSet, totals: list[int]) -> float:
    """How near the match is to its end: the leading total over the target."""
    return max(totals, default=0) / rules.target


def _per_seat_scores(rules: RuleSet, side_of: list[int], totals: list[int]) -> list[int]:
    if rules.cutthroat:
        return list(totals)
    return [totals[side_of[s]] for s in range(rules.players)]


def _bot_score(per_seat: list[int], slots: list[int], who: int) -> int:
    """A bot's score: the best of the sides it holds (they are the same side in
    partnership games)."""
    mine = [per_seat[s] for s in range(len(slots)) if slots[s] == who]
    return max(mine) if mine else 0


_Task = tuple[RuleSet, tuple[BotLike, BotLike], int, int, int, int]
#: in a worker process: where its games' progress goes (set by the pool's initializer)
_QUEUE: Any = None


def _init_worker(queue: Any) -> None:
    """A worker ignores Ctrl-C: the run's process hears it, keeps what is finished and
    stops the pool (a worker stopped by it would print its own traceback); SIGTERM ends a
    worker as usual, whatever handler the run's process had when it forked."""
    global _QUEUE
    _QUEUE = queue
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _worker(args: _Task, report: Callable[[Progress], None] | None = None) -> list[GameResult]:
    rules, specs, seed, index, max_hands, _ = args
    if report is None and _QUEUE is not None:
        report = _QUEUE.put
    return [play_game(rules, specs, seed, index, o, max_hands, report) for o in (0, 1)]


class ProgressEstimate:
    """Progress of a run in hands (a fraction of a hand for the moves of the
    hands under way) and an estimate of its total, from the games' reports.

    A game that is over counts its hands; one under way is projected from how
    near its leading side is to the target; a game not yet started is taken to
    last as long as the games seen so far (``prior_hands`` before any)."""

    def __init__(self, games: int, max_hands: int, prior_hands: float = 6.0, prior_moves: float = 100.0) -> None:
        self.games = games
        self.max_hands = max_hands
        self.prior_hands = min(float(max_hands), prior_hands)
        self.prior_moves = prior_moves
        self.latest: dict[tuple[int, int], Progress] = {}
        self.finished_hands = 0
        self.finished_hand_moves = 0

    def update(self, p: Progress) -> None:
        before = self.latest.get(p.game)
        if before is not None and (before.hands, before.moves) >= (p.hands, p.moves):
            return  # heard already
        if p.hand_moves:
            self.finished_hands += 1
            self.finished_hand_moves += p.hand_moves
        self.latest[p.game] = p

    @property
    def moves(self) -> int:
        """Every move played so far (as reported)."""
        return self.finished_hand_moves + sum(p.moves for p in self.latest.values())

    @property
    def games_done(self) -> int:
        return sum(p.over for p in self.latest.values())

    @property
    def moves_per_hand(self) -> float:
        if self.finished_hands:
            return self.finished_hand_moves / self.finished_hands
        return self.prior_moves

    @property
    def hands_done(self) -> float:
        """Finished hands, plus the share of the hands under way their moves make."""
        part = sum(min(0.95, p.moves / self.moves_per_hand) for p in self.latest.values() if not p.over)
        return self.finished_hands + part

    def _projected(self, p: Progress) -> float | None:
        if p.over:
            return float(p.hands)
        if p.hands and p.lead > 0.05:
            return min(float(self.max_hands), max(p.hands + 1.0, p.hands / p.lead))
        return None

    @property
    def total_hands(self) -> float:
        """The estimated hands of the whole run (never below the hands done)."""
        over = [float(p.hands) for p in self.latest.values() if p.over]
        seen = [x for x in (self._projected(p) for p in self.latest.values()) if x is not None]
        typical = statistics.fmean(over) if over else statistics.fmean(seen) if seen else self.prior_hands
        total = 0.0
        for p in self.latest.values():
            projected = self._projected(p)
            total += projected if projected is not None else max(p.hands + 1.0, typical)
        total += (self.games - len(self.latest)) * typical
        return max(total, self.hands_done)


@dataclass
class ArenaReport:
    rules: str
    bots: tuple[str, str]
    games: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    hands: int = 0
    hands_won: list[int] = field(default_factory=lambda: [0, 0])
    went_out: int = 0  # hands that ended by a player going out
    diffs: list[int] = field(default_factory=list)
    times: dict[str, list[float]] = field(default_factory=lambda: {"A": [], "B": []})
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cut_off: list[str] = field(default_factory=list)  # tally: games a stopped run left unfinished, not counted
    repeated: list[str] = field(default_factory=list)  # tally: games given again ("B repeats A"), not counted

    def add(self, r: GameResult) -> None:
        self.games += 1
        if r.totals_a > r.totals_b:
            self.wins[0] += 1
        elif r.totals_b > r.totals_a:
            self.wins[1] += 1
        self.hands += r.hands
        self.hands_won[0] += r.hands_won_a
        self.hands_won[1] += r.hands_won_b
        self.went_out += r.went_out
        self.diffs.extend(r.diffs)
        for k, v in r.times.items():
            self.times[k].extend(v)
        self.errors.extend(r.errors)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rules": self.rules, "bots": list(self.bots), "games": self.games,
                               "hands": self.hands, "seconds": round(self.seconds, 1)}
        for i, label in enumerate("AB"):
            lo, hi = wilson(self.wins[i], self.games)
            hlo, hhi = wilson(self.hands_won[i], self.hands)
            t = self.times[label]
            out[label] = {
                "bot": self.bots[i],
                "games_won": self.wins[i], "games_won_pct": pct(self.wins[i], self.games),
                "games_won_ci95": [round(100 * lo, 1), round(100 * hi, 1)],
                "hands_won": self.hands_won[i], "hands_won_pct": pct(self.hands_won[i], self.hands),
                "hands_won_ci95": [round(100 * hlo, 1), round(100 * hhi, 1)],
                "mean_decision_ms": round(1000 * statistics.fmean(t), 2) if t else None,
                "worst_decision_ms": round(1000 * max(t), 1) if t else None,
            }
        out["mean_score_diff_per_hand_A_minus_B"] = round(statistics.fmean(self.diffs), 1) if self.diffs else 0
        out["hands_per_game"] = round(self.hands / self.games, 2) if self.games else 0
        olo, ohi = wilson(self.went_out, self.hands)
        out["hands_went_out"] = self.went_out
        out["hands_went_out_pct"] = pct(self.went_out, self.hands)
        out["hands_went_out_ci95"] = [round(100 * olo, 1), round(100 * ohi, 1)]
        out["errors"] = self.errors[:50]
        out["cut_off_games_not_counted"] = list(self.cut_off)
        out["repeated_games_not_counted"] = list(self.repeated)
        return out

    def table(self) -> str:
        d = self.as_dict()
        took = f", {d['seconds']} s" if self.seconds else ""
        width = max(24, 1 + max(len(d[label]["bot"]) for label in "AB"))  # a bot's whole name
        lines = [f"arena {self.rules}: {self.games} games ({self.games // 2} duplicate deals), "
                 f"{self.hands} hands, {d['hands_per_game']} hands per game{took}",
                 f"{'bot':<{width}}{'games won':>12}{'95% CI':>16}{'hands won':>12}{'95% CI':>16}"
                 f"{'mean ms':>10}{'worst ms':>10}"]
        for label in "AB":
            x = d[label]
            lines.append(
                f"{x['bot']:<{width}}{x['games_won_pct']:>11.1f}%"
                f"{'[' + str(x['games_won_ci95'][0]) + ', ' + str(x['games_won_ci95'][1]) + ']':>16}"
                f"{x['hands_won_pct']:>11.1f}%"
                f"{'[' + str(x['hands_won_ci95'][0]) + ', ' + str(x['hands_won_ci95'][1]) + ']':>16}"
                f"{_ms(x['mean_decision_ms'], 2):>10}{_ms(x['worst_decision_ms'], 1):>10}")
        lines.append(f"mean score difference per hand (A - B): {d['mean_score_diff_per_hand_A_minus_B']}")
        lines.append(f"hands ended by a player going out: {self.went_out} of {self.hands}, "
                     f"{d['hands_went_out_pct']}% {d['hands_went_out_ci95']} (the others: the stock ran out)")
        if self.errors:
            lines.append(f"{_count(len(self.errors), 'bot error')}, e.g.: {self.errors[0]}")
        if self.cut_off:
            lines.append(f"{_count(len(self.cut_off), 'cut-off game')} not counted (the record stops before the "
                         f"game's end: a stopped run or a cut file): {'; '.join(self.cut_off[:5])}")
        if self.repeated:
            lines.append(f"{_count(len(self.repeated), 'repeated game')} not counted (the same game given "
                         f"again, in one file or another): {'; '.join(self.repeated[:5])}")
        return "\n".join(lines)


def _count(n: int, word: str) -> str:
    """``1 bot error``, ``2 bot errors``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _ms(value: float | None, digits: int) -> str:
    """A decision time for the table; ``-`` when none was measured (a tally of records)."""
    return "-" if value is None else f"{value:.{digits}f}"


def pct(k: int, n: int) -> float:
    return round(100 * k / n, 1) if n else 0.0


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default)."""
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run: what it kept (``games`` finished games, saved whole to ``save``)."""

    def __init__(self, report: ArenaReport, save: Path | None) -> None:
        super().__init__()
        self.report = report
        self.save = save if save is not None and report.games else None


def run_arena(rules: RuleSet | str, specs: tuple[BotLike, BotLike], games: int, seed: int, jobs: int = 1,
              max_hands: int = 60, save: Path | None = None,
              progress: Callable[[ProgressEstimate], None] | None = None, resume: bool = False) -> ArenaReport:
    """Play ``games`` matches (rounded up to whole duplicate pairs) between bots A and B,
    ``specs``: each a spec string or a Python bot (the module docstring), under ``rules``
    (a :class:`RuleSet` or a preset name).  ``progress``
    is called with the run's :class:`ProgressEstimate` as games report.

    ``save`` gets every game as a record, written whole or not at all
    (:func:`canasta.engine.files.atomic_file`: ``save`` takes the run's file when it ends).  A
    run stopped by Ctrl-C keeps the games finished so far (``save`` holds them, each
    whole; nothing replaces ``save`` if none was) and raises :class:`Interrupted`.

    ``resume`` continues a stopped run of the same rules, bots and seed from its record
    (``save``): the duplicate pairs it holds whole are counted, not played again, and are
    written first to the new ``save`` (see :func:`held_pairs`)."""
    if isinstance(rules, str):
        rules = RuleSet.preset(rules)
    pairs = max(1, (games + 1) // 2)
    for spec in specs:  # a bot that cannot play these rules is refused before the first game
        if isinstance(spec, str):
            check_bot(spec, rules)
    if jobs > 1 and not all(isinstance(s, str) for s in specs):
        try:
            pickle.dumps(specs)
        except Exception as exc:
            raise CanastaError(f"with jobs={jobs} each bot goes to another process, and this one cannot ({exc}): "
                               "define its class at a module's top level, or run with jobs=1") from None
    held = (held_pairs(rules, specs, seed, pairs, max_hands, save) if resume and save is not None and save.is_file()
            else {})
    kept = [game for index in sorted(held) for game in held[index]]
    report = tally(kept) if kept else ArenaReport(rules.name, (bot_label(specs[0]), bot_label(specs[1])))
    report.bots = (bot_label(specs[0]), bot_label(specs[1]))
    start = time.perf_counter()
    tasks = _tasks(rules, specs, seed, pairs, max_hands, set(held))  # made one at a time, as the games are played
    estimate = ProgressEstimate(2 * (pairs - len(held)), max_hands)
    heard: Callable[[Progress], None] | None = None
    if progress is not None:
        def heard(p: Progress) -> None:
            estimate.update(p)
            progress(estimate)
    written = [0]
    try:
        with ExitStack() as stack:
            out: IO[str] | None = None
            if save is not None:
                save.parent.mkdir(parents=True, exist_ok=True)
                out = stack.enter_context(atomic_file(save, keep=lambda: written[0] > 0))
                out.write("".join(game.to_text() + "\n" for game in kept))
                written[0] += len(kept)
            played = _map(tasks, jobs, heard)
            stack.callback(played.close)  # the pool stops before the file is kept
            for results in played:
                if out is not None:  # both games of a deal in one write: a stopped run keeps whole deals
                    out.write("".join(r.record + "\n" for r in results))
                    written[0] += len(results)
                for r in results:
                    report.add(r)
    except KeyboardInterrupt:
        report.seconds = time.perf_counter() - start
        raise Interrupted(report, save) from None
    report.seconds = time.perf_counter() - start
    return report


def cut_off(game: GameRecord, problems: list[str]) -> bool:
    """Is this a game whose record stops before the game's end (a stopped run, a cut
    file), with nothing else wrong with it?  See :func:`canasta.play.record.verify`."""
    return cut_short(problems)


def tally(games: list[GameRecord], names: list[str] | None = None) -> ArenaReport:
    """The figures of saved arena games (the records an arena run writes as it
    goes), e.g. of a run that was stopped, with the decision times the records keep
    (their ``DecisionMs`` tags; records without them give none).

    Every game is replayed (:func:`canasta.play.record.verify`) before it is counted:
    a damaged record (an illegal move, a changed score, a wrong deal) is refused
    with the game's name (``names``, e.g. ``"runs/x.cgn, game 3"``) and its first
    problem; a game cut off by a stopped run is not counted and is listed in
    ``cut_off``; a game given again (the same record, in one file or another, its
    date and decision times aside) is counted once, the others listed in ``repeated``.

    Bot A is the bot in seat 0 of the first game; a game's orientation is read
    from its seats, or from its ``Event`` tag when both bots have one name."""
    if not games:
        raise CanastaError("no games to tally")
    if names is None:
        names = [f"game {n}" for n in range(1, len(games) + 1)]
    first = games[0].players()
    bots = sorted(set(first), key=first.index)
    if len(bots) > 2:
        raise CanastaError(f"an arena game has two bots, this one has {len(bots)}: {', '.join(bots)}")
    a_name = bots[0]
    b_name = bots[-1]
    report = ArenaReport(games[0].headers.get("Rules", "?"), (a_name, b_name))
    seen: dict[bytes, str] = {}  # each game's identity: the first name it was given under
    for n, game in enumerate(games, start=1):
        name = names[n - 1]
        identity = _identity(game)
        if identity in seen:
            earlier = seen[identity]
            report.repeated.append(f"{name} repeats {earlier}" if earlier != name else f"{name} (its file given twice)")
            continue
        seen[identity] = name
        try:
            rules = game.rules()
        except CanastaError as exc:
            raise CanastaError(f"{name}: {exc}") from None
        labels = game.players()
        if len(labels) != rules.players or not set(labels) <= {a_name, b_name}:
            raise CanastaError(f"{name}: its players {game.headers.get('Players', '')!r} are not "
                               f"{a_name} and {b_name} in {rules.players} seats")
        problems = verify(game)
        if cut_off(game, problems):
            report.cut_off.append(name)
            continue
        if problems:
            more = f" (and {_count(len(problems) - 1, 'more problem')})" if len(problems) > 1 else ""
            raise CanastaError(f"{name} is damaged: {problems[0]}{more}; tally counts only records that "
                               "replay exactly ('canasta verify' shows every problem)")
        if a_name != b_name:
            slots = [0 if label == a_name else 1 for label in labels]
        else:
            event = re.search(r"\.(\d)$", game.headers.get("Event", ""))
            slots = _slots(rules)
            if event and event.group(1) == "1":
                slots = [1 - x for x in slots]
        team_of = _team_of(rules)
        diffs: list[int] = []
        won = [0, 0]
        went_out = 0
        totals = [0] * (rules.players if rules.cutthroat else len(rules.teams))
        times: dict[str, list[float]] = {"A": [], "B": []}
        for hand in game.hands:
            _read_times(hand, slots, times, name)
            went_out += hand.tags.get("End") == "went out"
            if "Score" not in hand.tags:
                raise CanastaError(f"{name}, hand {hand.tags.get('Hand', '?')}: no [Score] tag; tally counts "
                                   "only records with every hand's score")
            # verify compared the [Score] tags with the engine's, so they are numbers of the right count
            scores = [int(x) for x in hand.tags["Score"].split()]
            totals = [t + x for t, x in zip(totals, scores, strict=True)]
            per_seat = _per_seat_scores(rules, team_of, scores)
            a, b = _bot_score(per_seat, slots, 0), _bot_score(per_seat, slots, 1)
            diffs.append(a - b)
            won[0] += a > b
            won[1] += b > a
        final = _per_seat_scores(rules, team_of, totals)
        report.add(GameResult(n, 0, _bot_score(final, slots, 0), _bot_score(final, slots, 1), len(game.hands),
                              won[0], won[1], diffs, times, [], "", went_out))
    return report


def _identity(game: GameRecord) -> bytes:
    """What makes a record the same game: its text but for the date it was written and the
    decision times (which differ between two runs of the same deals by the same bots)."""
    kept = [line for line in game.to_text().splitlines()
            if not line.startswith(("[Date ", f"[{DECISION_TAG} "))]
    return hashlib.sha256("\n".join(kept).encode()).digest()


def _read_times(hand: RecordedHand, slots: list[int], times: dict[str, list[float]], name: str) -> None:
    """Add the decision times of ``hand`` (its ``DecisionMs`` tag, one per move; none in
    records other than the arena's, or older ones) to ``times`` of bot A and B."""
    text = hand.tags.get(DECISION_TAG)
    if text is None:
        return
    where = f"{name}, hand {hand.tags.get('Hand', '?')}"
    try:
        took = [float(x) / 1000 for x in text.split()]
    except ValueError:
        raise CanastaError(f"{where}: its [{DECISION_TAG}] tag is not a list of milliseconds") from None
    if len(took) != len(hand.moves) or any(not 0 <= t < math.inf for t in took):
        raise CanastaError(f"{where}: its [{DECISION_TAG}] tag holds {len(took)} times for "
                           f"{len(hand.moves)} moves (one time of 0 ms or more per move)")
    for (seat, *_), t in zip(hand.moves, took, strict=True):
        times["AB"[slots[seat]]].append(t)


def _tasks(rules: RuleSet, specs: tuple[BotLike, BotLike], seed: int, pairs: int,
           max_hands: int, held: set[int] | frozenset[int] = frozenset()) -> Iterator[_Task]:
    """The duplicate pairs of a run, one at a time (but those ``held``, played already): nothing
    is planned ahead, so memory stays flat however many games are asked for."""
    return ((rules, specs, seed, i, max_hands, 0) for i in range(pairs) if i not in held)


def held_pairs(rules: RuleSet, specs: tuple[BotLike, BotLike], seed: int, pairs: int, max_hands: int,
               path: Path) -> dict[int, list[GameRecord]]:
    """The duplicate pairs (of the first ``pairs``) that the record at ``path`` holds whole, each
    as its two games: what a resumed run keeps.  A game cut off by the stop is dropped (its pair
    is played again).  A file with a game of another run (other rules, bots or seed: its
    ``MatchSeed`` is not this run's for its pair), or a damaged game, is refused: nothing is
    played and the file stays as it was."""
    games, errors = read_file(path)
    if errors:
        raise CanastaError(f"cannot resume from {path}: {errors[0]}")
    labels = (bot_label(specs[0]), bot_label(specs[1]))
    found: dict[int, dict[int, GameRecord]] = {}
    for n, game in enumerate(games, start=1):
        where = f"cannot resume from {path}: its game {n}"
        event = re.fullmatch(r"arena game (\d+)\.([01])", game.headers.get("Event", ""))
        if event is None:
            raise CanastaError(f"{where} is not an arena game (its Event is {game.headers.get('Event', '')!r})")
        index, orientation = int(event.group(1)), int(event.group(2))
        slots = [x if orientation == 0 else 1 - x for x in _slots(rules)]
        expected = [labels[x] for x in slots]
        try:
            same_rules = game.rules() == rules
        except CanastaError:
            same_rules = False
        if (not same_rules or game.players() != expected
                or game.headers.get("MatchSeed") != str(hand_seed(seed, 1_000_000 + index))):
            raise CanastaError(f"{where} is of another run (rules {game.headers.get('Rules', '?')}, players "
                               f"{game.headers.get('Players', '?')!r}, or another seed): resume with the rules, "
                               f"--bots and --seed of the run that wrote it, or choose another file")
        problems = verify(game)
        if cut_off(game, problems):
            continue
        if problems:
            raise CanastaError(f"{where} is damaged: {problems[0]}")
        over, hands = outcome(game) or (False, 0)
        if hands > max_hands or (not over and hands != max_hands):
            raise CanastaError(f"{where} stopped after {hands} hands, unfinished: its run had another "
                               f"--max-hands; resume with the run's own")
        if index < pairs:
            found.setdefault(index, {})[orientation] = game
    return {index: [both[0], both[1]] for index, both in found.items() if len(both) == 2}


def _map(tasks: Iterable[_Task], jobs: int,
         heard: Callable[[Progress], None] | None = None) -> Generator[list[GameResult], None, None]:
    """Play ``tasks`` (in ``jobs`` processes), yielding each pair's games as they finish.
    At most two tasks a process are handed out ahead (a pool's ``imap`` would read the
    whole iterable at once)."""
    if jobs <= 1:
        for t in tasks:
            yield _worker(t, heard)
        return
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    queue = ctx.Queue() if heard is not None else None
    finished: queue_module.SimpleQueue[tuple[bool, Any]] = queue_module.SimpleQueue()

    def drain() -> None:
        while queue is not None and heard is not None:
            try:
                heard(queue.get_nowait())
            except queue_module.Empty:
                return

    def done(result: Any) -> None:
        finished.put((True, result))

    def failed(exc: BaseException) -> None:
        finished.put((False, exc))

    todo = iter(tasks)
    more = True
    pending = 0
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(queue,)) as pool:
        while True:
            while more and pending < 2 * jobs:
                task = next(todo, None)
                if task is None:
                    more = False
                    break
                pool.apply_async(_worker, (task,), callback=done, error_callback=failed)
                pending += 1
            if not pending:
                return
            while True:
                try:
                    ok, value = finished.get(timeout=0.2)
                    break
                except queue_module.Empty:
                    drain()
            pending -= 1
            drain()
            if not ok:
                raise value
            yield value


def plot(report: ArenaReport, path: Path) -> None:
    """Draw the distribution of per-hand score differences (needs matplotlib)."""
    import matplotlib.pyplot as plt

    fig = figure(report)
    save_figure(fig, path)
    plt.close(fig)


def save_figure(fig: Any, path: Path) -> None:
    """Write a matplotlib figure whole or not at all, in the format its name's ending says."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=110, format=path.suffix.lstrip(".").lower() or "png")


def plot_needs() -> str | None:
    """What ``--plot`` lacks (a one-line message naming the extra), or None."""
    import importlib.util

    try:
        found = importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):
        found = False
    return None if found else "--plot needs matplotlib: pip install -e '.[arena]' (or pip install matplotlib)"


def figure(report: ArenaReport) -> Any:
    """The histogram of per-hand score differences (a matplotlib figure)."""
    need = plot_needs()
    if need is not None:
        raise CanastaError(need)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.hist(report.diffs, bins=60, color="#3465a4")
    ax.axvline(0, color="black", linewidth=1)
    ax.set_title(f"{report.rules}: {report.bots[0]} minus {report.bots[1]}, per hand "
                 f"({len(report.diffs)} hands)")
    ax.set_xlabel("score difference per hand")
    ax.set_ylabel("hands")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # hands are counted: no half-hand ticks
    fig.tight_layout()
    return fig
