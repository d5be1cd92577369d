"""The strength ladder: duplicate matches among bots, rated by Bradley–Terry.

:func:`run_ladder` plays every pair of the bots given (``random``, ``basic``,
``advanced``, ``expert``, ``cmd:...``, ``policy:PATH``) on duplicate deals with
the arena, or takes a pair's figures from saved arena records
(:func:`tally_records`), and :func:`fit` rates them from the hands each pair
won: the Bradley–Terry model P(i beats j) = p_i / (p_i + p_j), fitted by
Hunter's MM iterations, shown on the Elo scale (400 log10 p, the first bot at
0).  A hand that neither side won (equal scores) counts half to each.  The 95%
intervals come from a seeded parametric bootstrap: each pair's hands won are
drawn again from their binomial and the ratings refitted.  Hands of one match
are treated as independent, which makes the intervals somewhat narrow.

A ladder may rate by matches won instead (``by="matches"``, ``canasta ladder --by
matches``): what players feel, where a bot that plays for the match wins no more
hands than one that plays for points.  Each pair then counts its matches (a drawn
match half to each), from whole matches only: records of matches cut short
(``--max-hands``) belong to a hand ladder.
"""

from __future__ import annotations

import dataclasses
import math
import random
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from canasta.engine.errors import CanastaError
from canasta.engine.rules import RuleSet
from canasta.play.record import GameRecord, players_tag
from canasta.tools.arena import (
    ArenaReport,
    Interrupted,
    ProgressEstimate,
    run_arena,
    save_figure,
    tally,
    wilson,
)

#: pseudo-hands added to every pair, split evenly, so that a bot that won every
#: hand still gets a finite rating
PRIOR_HANDS = 1.0
BOOTSTRAP = 400


#: what a ladder rates: the hands or the matches each pair won
UNITS = ("hands", "matches")


@dataclass
class Pair:
    """What bots ``a`` and ``b`` did against each other: of ``hands`` counted (hands, or
    matches in a ladder by matches), those each won."""

    a: str
    b: str
    hands: int
    won_a: int
    won_b: int
    games: int
    source: str  # "played" or the record files it was tallied from
    mean_ms: tuple[float | None, float | None] = (None, None)
    worst_ms: tuple[float | None, float | None] = (None, None)

    @property
    def score_a(self) -> float:
        """A's share of the hands, a tie counting half."""
        return (self.won_a + (self.hands - self.won_a - self.won_b) / 2) / self.hands if self.hands else 0.5


@dataclass
class Rating:
    bot: str
    elo: float
    low: float
    high: float
    hands: int


@dataclass
class Ladder:
    rules: str
    bots: list[str]
    pairs: list[Pair]
    ratings: list[Rating] = field(default_factory=list)
    seed: int = 1
    by: str = "hands"  # what the pairs count: "hands" or "matches"

    def table(self) -> str:
        u = self.by
        lines = [f"ladder {self.rules}: {len(self.bots)} bots, {len(self.pairs)} pairs, "
                 f"{sum(p.hands for p in self.pairs)} {u} (Bradley-Terry on {u} won, Elo scale, "
                 f"{self.bots[0]} = 0, 95% bootstrap interval)",
                 f"{'rank':<6}{'bot':<28}{'Elo':>8}{'95% interval':>20}{u:>8}"]
        for i, r in enumerate(sorted(self.ratings, key=lambda r: -r.elo), start=1):
            lines.append(f"{i:<6}{r.bot[:27]:<28}{r.elo:>8.0f}{f'[{r.low:.0f}, {r.high:.0f}]':>20}{r.hands:>8}")
        lines.append(f"pairs ({u} won by A, Wilson 95% interval):")
        for p in self.pairs:
            lo, hi = wilson(p.won_a, p.hands)
            lines.append(f"  {p.a} vs {p.b}: {p.hands} {u}, A won {100 * p.won_a / max(1, p.hands):.1f}% "
                         f"[{100 * lo:.1f}, {100 * hi:.1f}], B won {100 * p.won_b / max(1, p.hands):.1f}% "
                         f"({p.source})")
        return "\n".join(lines)

    def markdown(self, command: str) -> str:
        """The ladder section of docs/strength.md: the command, the ratings and the pairs."""
        u = self.by
        out = [f"`{command}` prints this (duplicate deals: every deal played twice with the seats swapped; "
               f"a Bradley–Terry rating from the {u} each pair won, on the Elo scale with {self.bots[0]} "
               f"at 0; 95% intervals by a seeded bootstrap over each pair's {u}; rules {self.rules}):",
               "",
               f"| rank | bot | Elo | 95% interval | {u} played |",
               "|---|---|---|---|---|"]
        for i, r in enumerate(sorted(self.ratings, key=lambda r: -r.elo), start=1):
            out.append(f"| {i} | {r.bot} | {r.elo:.0f} | [{r.low:.0f}, {r.high:.0f}] | {r.hands} |")
        out += ["", f"| A vs B | {u} | {u} won by A | {u} won by B | A's decision time, mean / worst | source |",
                "|---|---|---|---|---|---|"]
        for p in self.pairs:
            lo, hi = wilson(p.won_a, p.hands)
            ms = (f"{p.mean_ms[0]:.1f} ms / {p.worst_ms[0]:.0f} ms"
                  if p.mean_ms[0] is not None and p.worst_ms[0] is not None else "-")
            out.append(f"| {p.a} vs {p.b} | {p.hands} | {100 * p.won_a / max(1, p.hands):.1f}% "
                       f"[{100 * lo:.1f}, {100 * hi:.1f}] | {100 * p.won_b / max(1, p.hands):.1f}% | {ms} | "
                       f"{p.source} |")
        return "\n".join(out)

    def as_dict(self) -> dict[str, Any]:
        return {"rules": self.rules, "bots": self.bots, "seed": self.seed, "by": self.by,
                "ratings": [{"bot": r.bot, "elo": round(r.elo, 1), "ci95": [round(r.low, 1), round(r.high, 1)],
                             "hands": r.hands} for r in self.ratings],
                "pairs": [{"a": p.a, "b": p.b, "hands": p.hands, "won_a": p.won_a, "won_b": p.won_b,
                           "games": p.games, "source": p.source} for p in self.pairs]}


def fit(bots: Sequence[str], pairs: Sequence[Pair], iterations: int = 2000) -> list[float]:
    """Bradley–Terry strengths on the Elo scale (the first bot at 0), by Hunter's
    MM iterations on the pairs' hand scores (plus ``PRIOR_HANDS``)."""
    idx = {b: i for i, b in enumerate(bots)}
    k = len(bots)
    wins = [[0.0] * k for _ in range(k)]
    for p in pairs:
        i, j = idx[p.a], idx[p.b]
        sa = p.score_a * p.hands
        wins[i][j] += sa + PRIOR_HANDS / 2
        wins[j][i] += p.hands - sa + PRIOR_HANDS / 2
    _check_connected(bots, pairs)
    strength = [1.0] * k
    for _ in range(iterations):
        new = []
        for i in range(k):
            w = sum(wins[i])
            denom = sum((wins[i][j] + wins[j][i]) / (strength[i] + strength[j]) for j in range(k) if j != i)
            new.append(w / denom if denom > 0 else strength[i])
        norm = math.exp(statistics.fmean(math.log(x) for x in new))
        new = [x / norm for x in new]
        done = max(abs(math.log(a) - math.log(b)) for a, b in zip(new, strength, strict=True)) < 1e-10
        strength = new
        if done:
            break
    base = math.log10(strength[0])
    return [400 * (math.log10(s) - base) for s in strength]


def _check_connected(bots: Sequence[str], pairs: Sequence[Pair]) -> None:
    seen = {bots[0]}
    frontier = [bots[0]]
    while frontier:
        b = frontier.pop()
        for p in pairs:
            for x, y in ((p.a, p.b), (p.b, p.a)):
                if x == b and y not in seen and p.hands:
                    seen.add(y)
                    frontier.append(y)
    missing = [b for b in bots if b not in seen]
    if missing:
        raise CanastaError(f"no pair links {', '.join(missing)} to {bots[0]}: the ladder needs every bot connected")


def rate(bots: Sequence[str], pairs: Sequence[Pair], seed: int = 1, samples: int = BOOTSTRAP) -> list[Rating]:
    """Ratings with 95% intervals (seeded parametric bootstrap over each pair's hands)."""
    point = fit(bots, pairs)
    rng = random.Random(seed)
    draws: list[list[float]] = [[] for _ in bots]
    for _ in range(samples):
        again = []
        for p in pairs:
            q = p.score_a
            won = sum(1 for _ in range(p.hands) if rng.random() < q)
            again.append(Pair(p.a, p.b, p.hands, won, p.hands - won, p.games, p.source))
        for i, x in enumerate(fit(bots, again, iterations=300)):
            draws[i].append(x)
    out = []
    for i, b in enumerate(bots):
        d = sorted(draws[i])
        lo = d[int(0.025 * (len(d) - 1))] if d else point[i]
        hi = d[math.ceil(0.975 * (len(d) - 1))] if d else point[i]
        hands = sum(p.hands for p in pairs if b in (p.a, p.b))
        out.append(Rating(b, point[i], lo, hi, hands))
    return out


def pair_from_report(report: ArenaReport, source: str, by: str = "hands") -> Pair:
    """The pair's figures; ``by="matches"`` counts its matches (``report.games``) and those each won."""
    t = report.times
    counted, won = (report.games, report.wins) if by == "matches" else (report.hands, report.hands_won)
    return Pair(report.bots[0], report.bots[1], counted, won[0], won[1], report.games, source,
                (1000 * statistics.fmean(t["A"]) if t["A"] else None, 1000 * statistics.fmean(t["B"]) if t["B"] else None),
                (1000 * max(t["A"]) if t["A"] else None, 1000 * max(t["B"]) if t["B"] else None))


def tally_records(games: list[GameRecord], names: list[str], rules_name: str, by: str = "hands",
                  same: Mapping[str, str] | None = None) -> list[Pair]:
    """The pairs of saved arena games (grouped by their two bots; every game replayed); ``by``:
    what they count, hands or matches (whole matches only: a match a run cut short at its
    ``--max-hands`` is refused, naming its record); ``same``: a record's name for a player ->
    the bot it counts as (``--same``)."""
    groups: dict[frozenset[str], list[tuple[GameRecord, str]]] = {}
    for game, name in zip(games, names, strict=True):
        if game.headers.get("Rules", "?") != rules_name:
            continue
        if same:
            game = _renamed(game, name, same)
        labels = set(game.players())
        if len(labels) != 2:
            continue
        groups.setdefault(frozenset(labels), []).append((game, name))
    pairs = []
    for group in groups.values():
        report = tally([g for g, _ in group], [n for _, n in group])
        if by == "matches":
            _whole_matches([(g, n) for g, n in group if n not in report.cut_off])
        files = sorted({n.rpartition(", game")[0] for _, n in group})
        cut = (f" ({len(report.cut_off)} cut-off game{'s' if len(report.cut_off) > 1 else ''} not counted: "
               f"{'; '.join(report.cut_off[:3])})") if report.cut_off else ""
        again = (f" ({len(report.repeated)} repeated game{'s' if len(report.repeated) > 1 else ''} not "
                 f"counted: {'; '.join(report.repeated[:3])})") if report.repeated else ""
        pairs.append(pair_from_report(report, "tallied from " + ", ".join(files) + cut + again, by))
    return pairs


def _renamed(game: GameRecord, name: str, same: Mapping[str, str]) -> GameRecord:
    """The game with its players renamed by ``same``; refused where both sides would become one bot."""
    labels = game.players()
    bots = [same.get(label, label) for label in labels]
    if len(set(labels)) == 2 and len(set(bots)) == 1:
        raise CanastaError(f"{name}: --same makes both of its players {bots[0]!r}: a pair needs two bots")
    return dataclasses.replace(game, headers={**game.headers, "Players": players_tag(bots)})


def _whole_matches(group: list[tuple[GameRecord, str]]) -> None:
    """Refuse, for a ladder by matches, a record whose matches ended before a side won (a run's
    ``--max-hands``): who won such a match says little of who would have."""
    for game, name in group:
        if (game.final or game.headers.get("Result", "*")) == "*":
            raise CanastaError(f"{name}: the match ended before a side won it (a run's --max-hands): "
                               "a ladder by matches counts whole matches only; rate such records by hands")


class LadderInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a ladder: the record files it wrote (the pairs finished, and the
    finished games of the pair under way)."""

    def __init__(self, files: list[Path]) -> None:
        super().__init__()
        self.files = files


def save_path(save_dir: Path, rules_name: str, a: str, b: str, seed: int) -> Path:
    """Where a ladder writes the games of the pair ``a`` vs ``b``."""
    return save_dir / (f"ladder-{rules_name}-{a}-vs-{b}-{seed}.cgn"
                       .replace(":", "_").replace("/", "_").replace(" ", "_"))


def pairs_to_play(bots: Sequence[str], saved: Sequence[Pair] = (), adjacent: bool = False) -> list[tuple[str, str]]:
    """The pairs a ladder plays (in order): every pair of ``bots``, or only neighbours
    with ``adjacent``, less the pairs ``saved`` already holds."""
    names = list(dict.fromkeys(bots))
    out = []
    for i, a in enumerate(names):
        for j, b in enumerate(names[i + 1:], start=i + 1):
            known = any({p.a, p.b} == {a, b} for p in saved)
            if not known and not (adjacent and j != i + 1):
                out.append((a, b))
    return out


def run_ladder(rules: RuleSet, bots: Sequence[str], games: int, seed: int, jobs: int = 1, max_hands: int = 60,
               saved: Sequence[Pair] = (), save_dir: Path | None = None,
               progress: Callable[[str, ProgressEstimate], None] | None = None,
               samples: int = BOOTSTRAP, adjacent: bool = False, by: str = "hands") -> Ladder:
    """Play every pair of ``bots`` not already in ``saved`` (``games`` matches each) and rate them.
    ``adjacent``: only the neighbours in the order given (``a-b``, ``b-c``, ...), a rung at a
    time, plus whatever other pairs ``saved`` holds.  ``by``: rate by the hands or the matches
    each pair won (``saved`` counts the same)."""
    names = list(dict.fromkeys(bots))
    if len(names) < 2:
        raise CanastaError("a ladder needs at least two different bots")
    if by not in UNITS:
        raise CanastaError(f"a ladder rates by hands or matches, not {by!r}")
    pairs: list[Pair] = []
    written: list[Path] = []
    for i, a in enumerate(names):
        for j, b in enumerate(names[i + 1:], start=i + 1):
            if adjacent and j != i + 1 and not any({p.a, p.b} == {a, b} for p in saved):
                continue
            known = [p for p in saved if {p.a, p.b} == {a, b}]
            if known:
                p = known[0]
                if p.a != a:  # orient as listed
                    p = Pair(a, b, p.hands, p.won_b, p.won_a, p.games, p.source, (p.mean_ms[1], p.mean_ms[0]),
                             (p.worst_ms[1], p.worst_ms[0]))
                pairs.append(p)
                continue
            save = save_path(save_dir, rules.name, a, b, seed) if save_dir is not None else None
            heard = None
            if progress is not None:
                label = f"{a} vs {b}"

                def heard(est: ProgressEstimate, label: str = label) -> None:
                    progress(label, est)
            try:
                report = run_arena(rules, (a, b), games, seed, jobs, max_hands, save, heard)
            except Interrupted as stop:
                raise LadderInterrupted(written + ([stop.save] if stop.save is not None else [])) from None
            if save is not None:
                written.append(save)
            pairs.append(pair_from_report(report, f"played, {report.games} games" +
                                          (f", saved to {save}" if save is not None else ""), by))
    ladder = Ladder(rules.name, names, pairs, seed=seed, by=by)
    ladder.ratings = rate(names, pairs, seed, samples)
    return ladder


def plot_ladder(ladder: Ladder, path: Path) -> None:
    """The ratings with their intervals, strongest on top (needs matplotlib)."""
    from canasta.tools.arena import plot_needs

    need = plot_needs()
    if need is not None:
        raise CanastaError(need)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = sorted(ladder.ratings, key=lambda r: r.elo)
    fig, ax = plt.subplots(figsize=(8, 0.6 * len(rs) + 1.8))
    ys = list(range(len(rs)))
    ax.errorbar([r.elo for r in rs], ys, xerr=[[r.elo - r.low for r in rs], [r.high - r.elo for r in rs]],
                fmt="o", color="#3465a4", capsize=4)
    ax.set_yticks(ys)
    ax.set_yticklabels([r.bot for r in rs])
    ax.set_xlabel(f"Elo (Bradley-Terry on {ladder.by} won; {ladder.bots[0]} = 0), 95% interval")
    ax.set_title(f"{ladder.rules}: the strength ladder ({sum(p.hands for p in ladder.pairs)} {ladder.by})")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
