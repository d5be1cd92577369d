"""The ``canasta`` command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from canasta import argtypes
from canasta.bench import BENCH_ORDER, MARKDOWN_HEADER, BenchResult, markdown_row, run_bench
from canasta.cards import cards_str
from canasta.errors import CanastaError, RulesError
from canasta.rules import PRESETS, RuleSet, save_rules

if TYPE_CHECKING:
    from canasta.record import GameRecord


class _Parser(argparse.ArgumentParser):
    """Bad arguments get one line that says what is wrong and where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows each option's default, except for on/off switches and
    options without one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False, [], argparse.SUPPRESS) or "default" in text:
            return text
        return super()._get_help_string(argparse.Action(action.option_strings or ["x"], action.dest,
                                                        nargs=action.nargs, default=action.default,
                                                        help=text or " "))


def _seconds(text: str) -> float:
    """A positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {text}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="canasta", description="Canasta: rules engine, simulations and tools.", formatter_class=_Help)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    rules_help = f"a preset ({', '.join(sorted(PRESETS))}) or a .toml/.json rules file"

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help, formatter_class=_Help)

    b = command("bench", "random players play whole hands; prints hands/s and decisions/s")
    b.add_argument("--rules", type=argtypes.rules, default="classic-4p", help=rules_help)
    b.add_argument("--env", choices=BENCH_ENVS,
                   help="measure an RL environment instead (steps/s with random masked actions, and the ratio "
                        "to the bare engine; needs the rl extra)")
    b.add_argument("--seconds", type=_seconds, default=5.0,
                   help="with --env: seconds per measurement")
    b.add_argument("--all", action="store_true", help="every preset in turn (--rules is ignored)")
    b.add_argument("--hands", type=argtypes.positive, default=2000, help="hands per run")
    b.add_argument("--seed", type=argtypes.whole, default=1, help="the first hand's seed")
    b.add_argument("--runs", type=argtypes.positive, default=1, help="repeat and report the median run")
    out = b.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON line (per preset)")
    out.add_argument("--markdown", action="store_true",
                     help="print a Markdown table, one row per preset (the README's speed table)")

    d = command("demo", "deal one hand, let bots play it, show every move and the score")
    d.add_argument("--rules", type=argtypes.rules, default="classic-4p", help=rules_help)
    d.add_argument("--seed", type=argtypes.whole, default=1, help="the deal and the bots' seed")
    d.add_argument("--bot", default="basic", help="the level of every player: random, basic, advanced, expert")

    c = command("selfcheck", "soak: random hands through the checked API, invariants after every move")
    c.add_argument("--rules", type=argtypes.rules, default="classic-4p", help=rules_help)
    c.add_argument("--hands", type=argtypes.positive, default=200, help="hands to play")
    c.add_argument("--seed", type=argtypes.whole, default=1, help="the first hand's seed")
    c.add_argument("--end-only", action="store_true", help="check the invariants only at the end of each hand")

    a = command("arena", "two bots play matches on duplicate deals, in parallel")
    a.add_argument("--rules", type=argtypes.rules, default="classic-4p", help=rules_help)
    a.add_argument("--bots", metavar="A,B",
                   help="two bots: random, basic, advanced, expert[:SECONDS|:iN] or cmd:COMMAND")
    a.add_argument("--games", type=argtypes.positive, default=100, help="matches (two per duplicate deal)")
    a.add_argument("--jobs", type=argtypes.positive, default=os.cpu_count() or 1,
                   help="processes playing at once (default: this machine's cores, %(default)s)")
    a.add_argument("--seed", type=argtypes.whole, default=1, help="the run's seed: the same seed, the same deals")
    a.add_argument("--max-hands", type=argtypes.positive, default=60, help="a match stops after this many hands")
    a.add_argument("--save", metavar="FILE",
                   help="write every game as a record (default: runs/arena-RULES-A-vs-B-SEED.cgn)")
    a.add_argument("--force", action="store_true", help="overwrite the record file of an earlier run")
    a.add_argument("--plot", metavar="FILE.png",
                   help="draw the per-hand score differences (needs the arena extra: matplotlib)")
    a.add_argument("--json", action="store_true", help="print the figures as one JSON line (no progress bar)")
    a.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="play the duplicate pairs as Ray tasks: on a local Ray (--jobs of its CPUs) or on the "
                        "cluster at ADDRESS ('auto', 'ray://host:10001'); needs the cluster extra")
    a.add_argument("--tally", metavar="FILE.cgn", nargs="+",
                   help="play nothing: the figures of the games arena runs saved (a stopped run, or several "
                        "runs together); every game is replayed first and a damaged record is refused")

    lad = command("ladder", "duplicate matches among bots, rated by Bradley-Terry (Elo scale) with intervals")
    lad.add_argument("--rules", type=argtypes.rules, default="classic-4p", help=rules_help)
    lad.add_argument("--bots", default="random,basic,advanced,expert", metavar="A,B,...",
                     help="the bots: random, basic, advanced, expert[:SECONDS|:iN], cmd:COMMAND, policy:PATH "
                          "(the first is rated 0)")
    lad.add_argument("--games", type=argtypes.positive, default=20,
                     help="matches per pair of bots (two per duplicate deal) for the pairs not tallied")
    lad.add_argument("--jobs", type=argtypes.positive, default=os.cpu_count() or 1,
                     help="processes playing at once (default: this machine's cores, %(default)s)")
    lad.add_argument("--seed", type=argtypes.whole, default=1, help="the run's seed (deals and bootstrap)")
    lad.add_argument("--max-hands", type=argtypes.positive, default=60, help="a match stops after this many hands")
    lad.add_argument("--pairs", choices=("all", "adjacent"), default="all",
                     help="play every pair, or only neighbours in the order of --bots (random-basic, "
                          "basic-advanced, ...; pairs found in --tally are used either way)")
    lad.add_argument("--tally", metavar="FILE.cgn", nargs="+",
                     help="saved arena or ladder records: a pair found in them is tallied, not played again")
    lad.add_argument("--save-dir", metavar="DIR",
                     help="write the games of each pair played as records there (default: runs/)")
    lad.add_argument("--plot", metavar="FILE.png", help="draw the ratings with their intervals (needs matplotlib)")
    lout = lad.add_mutually_exclusive_group()
    lout.add_argument("--json", action="store_true", help="print the ratings and pairs as one JSON line")
    lout.add_argument("--markdown", action="store_true",
                      help="print the README's strength-ladder table (with the command that made it)")

    v = command("verify", "replay game records through the engine: every move, score and commitment")
    v.add_argument("file", help="a record file (.cgn)")

    r = command("rules", "show a rule set with every option; save it as a rules file")
    r.add_argument("rules", nargs="?", type=argtypes.rules, default="classic-4p", help=rules_help)
    r.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                   help="change an option, e.g. --set C-O1=max3_only --set target=3000")
    r.add_argument("--save", metavar="FILE", help="write the rules to FILE (.toml or .json)")
    from canasta.tui.commands import configure_play, configure_replay
    from canasta.web.commands import configure_serve

    configure_play(command("play", "play at a table in the terminal, against or with bots"))
    configure_replay(command("replay", "step through a game record in the terminal"))
    configure_serve(command("serve", "run the online card room (web server)"))
    return p


#: seconds before a progress line appears, so a quick run shows none
_PROGRESS_DELAY = 0.5
#: seconds at least between two redraws of the progress line
_PROGRESS_EVERY = 0.2


class _Progress:
    """One progress line on stderr while a long command works: tqdm's bar when
    it is installed (the ``arena`` extra), else a plain line.  Shown only when
    stderr is a terminal; nothing is written otherwise."""

    def __init__(self, total: float, unit: str, fmt: str, leave: bool = True) -> None:
        self.start = time.perf_counter()
        self.unit = unit
        self.leave = leave
        self.shown_at = 0.0
        self.text = ""
        try:
            from tqdm import tqdm
        except ImportError:
            self.bar: Any = None
        else:
            self.bar = tqdm(total=total, unit=f" {unit}", file=sys.stderr, delay=_PROGRESS_DELAY, leave=leave,
                            smoothing=0, mininterval=_PROGRESS_EVERY, bar_format=fmt)

    @staticmethod
    def wanted(quiet: bool = False) -> bool:
        return not quiet and sys.stderr.isatty()

    def show(self, n: float, total: float, note: str) -> None:
        if self.bar is not None:
            self.bar.total = total
            self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(max(0.0, n - self.bar.n))
            return
        now = time.perf_counter()
        if now - self.start < _PROGRESS_DELAY or (self.text and now - self.shown_at < _PROGRESS_EVERY):
            return
        self.shown_at = now
        self._draw(n, total, note)

    def _draw(self, n: float, total: float, note: str) -> None:
        elapsed = time.perf_counter() - self.start
        rate = n / elapsed if elapsed > 0 else 0.0
        left = _duration((total - n) / rate) if rate > 0 else "?"
        self.text = (f"{n:.1f}/{total:.0f} {self.unit}, {rate:.2f} {self.unit}/s, {left} left, {note}"
                     if self.unit == "hands" else f"{n:.0f}/{total:.0f} {self.unit}, at most {left} left, {note}")
        print(f"\r{self.text}", end="", file=sys.stderr, flush=True)

    def close(self, n: float | None = None, note: str = "") -> None:
        if self.bar is not None:
            if n is not None:
                self.bar.total = n
                self.bar.set_postfix_str(note, refresh=False)
                self.bar.update(max(0.0, n - self.bar.n))
            self.bar.close()
        elif self.text:
            if n is not None:
                self._draw(n, n, note)
            end = "\n" if self.leave else "\r" + " " * len(self.text) + "\r"
            print(end, end="", file=sys.stderr, flush=True)


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    h, rest = divmod(seconds, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


def _count(n: int, word: str) -> str:
    """``1 problem``, ``2 problems``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _parse_value(text: str) -> object:
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(text)
    except ValueError:
        return text.strip()


#: the environments ``canasta bench --env`` measures (canasta.rl.bench.env_bench)
BENCH_ENVS = ("pettingzoo", "gymnasium", "table")
_ENV_NEEDS = {"pettingzoo": ("numpy", "pettingzoo"), "gymnasium": ("numpy", "gymnasium"), "table": ("numpy",)}


def _missing(*modules: str) -> list[str]:
    """Which of these modules cannot be imported (looked up, not imported)."""
    import importlib.util

    out = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(name)
    return out


def _cmd_bench(args: argparse.Namespace) -> int:
    presets = [RuleSet.preset(name) for name in BENCH_ORDER] if args.all else [args.rules]
    if args.env:
        return _bench_env(args, presets)
    if args.markdown:
        print(MARKDOWN_HEADER)
    for rules in presets:
        res = run_bench(rules, args.hands, args.seed, args.runs)
        if args.json:
            print(json.dumps(res.as_dict()), flush=True)
        elif args.markdown:
            print(markdown_row(res), flush=True)
        else:
            _print_bench(res)
    return 0


def _bench_env(args: argparse.Namespace, presets: list[RuleSet]) -> int:
    missing = _missing(*_ENV_NEEDS[args.env])
    if missing:
        raise CanastaError(f"bench --env {args.env} needs {' and '.join(missing)}: pip install -e '.[rl]'")
    if args.markdown:
        raise CanastaError("--markdown is the engine's speed table: leave out --env, or use --json")
    from canasta.rl.bench import env_bench

    for rules in presets:
        result = env_bench(rules, args.env, float(args.seconds), args.seed)
        print(json.dumps(result.as_dict()) if args.json else result.text(), flush=True)
    return 0


def _print_bench(res: BenchResult) -> None:
    print(f"rules {res.rules}: {res.hands} hands in {res.seconds:.2f} s on one core")
    print(f"  hands/s            {res.hands_per_s:10.1f}")
    print(f"  decisions/s        {res.decisions_per_s:10.1f}")
    print(f"  decisions per hand {res.decisions_per_hand:10.1f}")
    if len(res.runs) > 1:
        print("  runs (hands/s)     " + ", ".join(f"{x:.1f}" for x in res.runs))


def _cmd_demo(args: argparse.Namespace) -> int:
    import datetime

    from canasta.bots import make_bot
    from canasta.match import Match
    from canasta.record import record_from_match
    from canasta.view import seat_view

    rules: RuleSet = args.rules
    bots = [make_bot(args.bot, seed=args.seed * 10 + s) for s in range(rules.players)]
    match = Match(rules, seed=args.seed)
    game = match.next_hand()
    print(f"{rules.name}: one hand played by four {args.bot} players" if rules.players == 4 else
          f"{rules.name}: one hand played by {rules.players} {args.bot} players")
    for s in range(rules.players):
        print(f"  seat {s} is dealt {cards_str(sorted(game.hand(s)))}")
    lo, hi = game.hidden
    shown = ["??" if lo <= i < hi else cards_str([c]) for i, c in enumerate(game.pile)]
    print(f"  the pile, bottom to top: {' '.join(shown)}")
    moves = []
    stock = len(game.stock)
    line = _Progress(stock, "stock cards", "this hand: {n:.0f}/{total:.0f} stock cards drawn |{bar}| "
                     "{elapsed}, at most {remaining} left{postfix}", leave=False) if _Progress.wanted() else None
    start = time.perf_counter()
    while not game.is_over():
        seat = game.to_move
        move = bots[seat].choose(seat_view(game, seat))
        game.push(move)
        moves.append((seat, move))
        if line is not None:
            secs = time.perf_counter() - start
            line.show(stock - len(game.stock), stock,
                      _count(len(moves), "move") + (f", {len(moves) / secs:.1f} moves/s" if secs > 0 else ""))
    if line is not None:
        line.close()
    match.record_hand()
    record = record_from_match(match, [moves], "demo", [args.bot] * rules.players,
                               datetime.date.today().strftime("%Y.%m.%d"))
    print()
    print(record.to_text(), end="")
    print()
    print(f"the hand ended: {game.end_reason}" + (f" (seat {game.went_out})" if game.went_out >= 0 else ""))
    for i, sc in enumerate(game.result or []):
        parts = ", ".join(f"{k.replace('_', ' ')} {_words(v)}" for k, v in sc.as_dict().items()
                          if v not in (0, []) or k == "total")
        print(f"  {'player' if rules.cutthroat else 'side'} {i}: {parts}")
    return 0


def _words(value: object) -> str:
    """A score-sheet value as words: ``clean aces, mixed`` for a list of canastas."""
    if isinstance(value, (list, tuple)):
        return " and ".join(str(v).replace("_", " ") for v in value)
    return str(value)


def _cmd_selfcheck(args: argparse.Namespace) -> int:
    from canasta.selfcheck import run_selfcheck

    done = [0]
    tty = sys.stderr.isatty()

    def tick() -> None:
        done[0] += 1
        if tty and (done[0] % 10 == 0 or done[0] == args.hands):
            print(f"\r{done[0]}/{args.hands} hands", end="", file=sys.stderr, flush=True)

    start = time.perf_counter()
    rep = run_selfcheck(args.rules, args.hands, args.seed, not args.end_only, tick)
    if tty:
        print(file=sys.stderr)
    secs = time.perf_counter() - start
    print(f"rules {rep.rules}: {_count(rep.hands, 'hand')}, {_count(rep.decisions, 'move')} checked in {secs:.1f} s; "
          f"{_count(rep.went_out, 'hand')} ended by going out; {_count(len(rep.problems), 'problem')}")
    for p in rep.problems[:20]:
        print("  " + p)
    return 1 if rep.problems else 0


def _check_plot(path: str | None) -> None:
    """Before any work: matplotlib is there, and the picture can be written."""
    if not path:
        return
    from canasta.arena import plot_needs

    need = plot_needs()
    if need is not None:
        raise CanastaError(need)
    _check_writable(path, "picture file")


def _read_records(paths: list[str], show_errors: bool) -> tuple[list[GameRecord], list[str]]:
    """Every game of the record files, with a name for each (``FILE, game N``)."""
    from canasta.record import read_file

    games: list[GameRecord] = []
    names: list[str] = []
    for name in paths:
        found, errors = read_file(name)
        if not found:
            raise CanastaError(f"{name}: no game record found" + (f" ({errors[0]})" if errors else ""))
        if show_errors:
            for e in errors[:5]:
                print(f"{name}: {e}", file=sys.stderr)
        games.extend(found)
        names.extend(f"{name}, game {i}" for i in range(1, len(found) + 1))
    return games, names


def _cmd_arena(args: argparse.Namespace) -> int:
    from pathlib import Path

    from canasta.arena import ArenaReport, ProgressEstimate, plot, run_arena, tally
    from canasta.bots import make_bot

    _check_plot(args.plot)
    report: ArenaReport
    if args.tally:
        games, names = _read_records(args.tally, show_errors=True)
        report = tally(games, names)
        print(json.dumps(report.as_dict()) if args.json else report.table())
        if args.plot:
            plot(report, Path(args.plot))
        return 0
    if not args.bots:
        raise CanastaError("arena needs --bots A,B (or --tally FILE.cgn to count saved games)")
    specs = [x.strip() for x in args.bots.split(",")]
    if len(specs) != 2 or not all(specs):
        raise CanastaError("--bots needs two bots separated by a comma, e.g. --bots advanced,basic")
    for spec in specs:
        if not spec.startswith("cmd:"):
            make_bot(spec)  # refuse a bad name before starting
    if args.save:
        _check_writable(args.save, "record file")
        save = Path(args.save)
    else:
        save = Path("runs") / (f"arena-{args.rules.name}-{specs[0]}-vs-{specs[1]}-{args.seed}.cgn"
                               .replace(":", "_").replace("/", "_").replace(" ", "_"))
    if save.exists() and not args.force:
        raise CanastaError(f"{str(save)!r} holds the games of an earlier run: --tally it, choose another file "
                           "with --save FILE, or add --force to overwrite it")
    pairs = max(1, (args.games + 1) // 2)
    if args.ray is not None:
        return _arena_ray(args, (specs[0], specs[1]), save)
    line = _Progress(pairs * 2 * 6, "hands", "{n:.1f}/{total:.0f} hands (estimated) |{bar}| {rate_noinv_fmt}, "
                     "{remaining} left{postfix}") if _Progress.wanted(args.json) else None

    def progress(est: ProgressEstimate) -> None:
        if line is not None:
            line.show(est.hands_done, est.total_hands,
                      f"{est.games_done}/{est.games} games, {est.moves} moves")

    try:
        report = run_arena(args.rules, (specs[0], specs[1]), args.games, args.seed, args.jobs, args.max_hands,
                           save, progress)
    except BaseException:
        if line is not None:
            line.close()
        raise
    if line is not None:  # the figures as counted (the last reports of a pool may still be on their way)
        line.close(report.hands, f"{report.games}/{report.games} games")
    if args.json:
        print(json.dumps(report.as_dict()))
    else:
        print(report.table())
        print(f"games saved to {save}")
    if args.plot:
        plot(report, Path(args.plot))
    return 0


def _arena_ray(args: argparse.Namespace, specs: tuple[str, str], save: Path) -> int:
    """``arena --ray [ADDRESS]``: the same matches and report, the pairs played as Ray tasks."""
    if _missing("ray"):
        raise CanastaError("arena --ray needs ray: pip install -e '.[cluster]'")
    from canasta.cluster import run_arena_ray

    pairs = max(1, (args.games + 1) // 2)
    line = _Progress(pairs * 2, "games", "{n:.0f}/{total:.0f} games |{bar}| {remaining} left{postfix}") \
        if _Progress.wanted(args.json) else None

    def progress(done: int, total: int) -> None:
        if line is not None:
            line.show(done, total, "on Ray")

    try:
        report = run_arena_ray(args.rules, specs, args.games, args.seed, address=args.ray or None,
                               max_hands=args.max_hands, save=save, progress=progress,
                               num_cpus=None if args.ray else args.jobs)
    finally:
        if line is not None:
            line.close()
    if args.json:
        print(json.dumps(report.as_dict()))
    else:
        print(report.table())
        print(f"games saved to {save}")
    if args.plot:
        from canasta.arena import plot

        plot(report, Path(args.plot))
    return 0


def _cmd_ladder(args: argparse.Namespace) -> int:
    from canasta.arena import ProgressEstimate
    from canasta.bots import make_bot
    from canasta.ladder import Pair, plot_ladder, run_ladder, tally_records

    _check_plot(args.plot)
    specs = [x.strip() for x in args.bots.split(",") if x.strip()]
    if len(set(specs)) < 2:
        raise CanastaError("--bots needs at least two different bots, e.g. --bots random,basic,advanced")
    for spec in specs:
        if not spec.startswith("cmd:"):
            make_bot(spec).close()  # refuse a bad name (or a missing policy file) before starting
    saved: list[Pair] = []
    if args.tally:
        games, names = _read_records(args.tally, show_errors=False)
        saved = [p for p in tally_records(games, names, args.rules.name) if {p.a, p.b} <= set(specs)]
    save_dir = Path(args.save_dir) if args.save_dir else Path("runs")
    if args.save_dir and not save_dir.is_dir():
        raise CanastaError(f"--save-dir {args.save_dir!r} is not a folder (create it first)")
    line = _Progress(1, "hands", "{desc}{n:.1f}/{total:.0f} hands (estimated) |{bar}| {remaining} left{postfix}") \
        if _Progress.wanted(args.json or args.markdown) else None

    def progress(label: str, est: ProgressEstimate) -> None:
        if line is not None:
            line.show(est.hands_done, est.total_hands, f"{label}: {est.games_done}/{est.games} games")

    try:
        ladder = run_ladder(args.rules, specs, args.games, args.seed, args.jobs, args.max_hands, saved, save_dir,
                            progress, adjacent=args.pairs == "adjacent")
    finally:
        if line is not None:
            line.close()
    if args.json:
        print(json.dumps(ladder.as_dict()))
    elif args.markdown:
        print(ladder.markdown(_ladder_command(args)))
    else:
        print(ladder.table())
    if args.plot:
        plot_ladder(ladder, Path(args.plot))
    return 0


def _ladder_command(args: argparse.Namespace) -> str:
    """The command line that made a ladder (as the README shows it)."""
    parts = ["canasta ladder", f"--rules {args.rules.name}", f"--bots {args.bots}", f"--games {args.games}",
             f"--seed {args.seed}"]
    if args.max_hands != 60:
        parts.append(f"--max-hands {args.max_hands}")
    if args.pairs != "all":
        parts.append(f"--pairs {args.pairs}")
    if args.tally:
        parts.append("--tally " + " ".join(args.tally))
    return " ".join(parts + ["--markdown"])


def _cmd_verify(args: argparse.Namespace) -> int:
    from canasta.record import read_file, verify

    games, errors = read_file(args.file)
    if not games:
        first = f" ({errors[0]})" if errors else ""
        raise CanastaError(f"{args.file}: no game record found{first}")
    for e in errors:
        print(f"{args.file}: {e}")
    bad = 0
    for i, game in enumerate(games, start=1):
        problems = verify(game)
        hands = len(game.hands)
        moves = sum(len(h.moves) for h in game.hands)
        if problems:
            bad += 1
            print(f"game {i}: {_count(hands, 'hand')}, {_count(moves, 'move')}: {_count(len(problems), 'problem')}")
            for p in problems[:10]:
                print("  " + p)
        else:
            print(f"game {i}: {_count(hands, 'hand')}, {_count(moves, 'move')}, scores and commitments verified")
    return 1 if bad or errors else 0


def _cmd_rules(args: argparse.Namespace) -> int:
    rules: RuleSet = args.rules
    if args.save:
        _check_writable(args.save)  # before anything is printed
    changes = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise RulesError(f"--set needs OPTION=VALUE, e.g. C-O1=max3_only, not {item!r}")
        changes[key.strip()] = _parse_value(value)
    if changes:
        rules = rules.with_options(changes)
    print(f"rules {rules.name}: {rules.players} players, {rules.packs} packs, {rules.hand_size} cards each, "
          f"draw {rules.draw_count}, {rules.canastas_to_go_out} canasta(s) to go out, target {rules.target}")
    for oid, topic, value in rules.describe():
        print(f"  {oid:6} {topic}: {value}")
    if args.save:
        save_rules(rules, args.save)
        print(f"saved to {args.save}")
    return 0


def _check_writable(name: str, what: str = "file") -> None:
    """Refuse, in one line, a file that cannot be written: a missing folder, a folder."""
    from pathlib import Path

    path = Path(name)
    folder = path.parent
    if not folder.is_dir():
        raise CanastaError(f"cannot write {name!r}: the folder {str(folder)!r} does not exist "
                           "(create it first, or choose another place)")
    if path.is_dir():
        raise CanastaError(f"cannot write {name!r}: it is a folder; give a {what} name")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        from canasta.tui.commands import run_play, run_replay
        from canasta.web.commands import run_serve

        handler = {"bench": _cmd_bench, "demo": _cmd_demo, "rules": _cmd_rules,
                   "selfcheck": _cmd_selfcheck, "arena": _cmd_arena, "verify": _cmd_verify, "ladder": _cmd_ladder,
                   "play": run_play, "replay": run_replay, "serve": run_serve}[args.command]
        return handler(args)
    except CanastaError as exc:
        print(f"canasta: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        text = f"{exc.strerror}: {str(exc.filename)!r}" if exc.filename and exc.strerror else str(exc)
        print(f"canasta: error: {text}", file=sys.stderr)
        return 2
    except Exception as exc:  # never a traceback at the command line
        if os.environ.get("CANASTA_DEBUG"):
            raise
        print(f"canasta: internal error: {type(exc).__name__}: {exc} "
              "(set CANASTA_DEBUG=1 for details and please report it)", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
