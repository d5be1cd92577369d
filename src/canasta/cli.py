"""The ``canasta`` command line."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, TypeVar

from canasta import argtypes
from canasta.cliout import Progress, check_writable, count, missing
from canasta.engine.cards import cards_str
from canasta.engine.errors import CanastaError, RulesError
from canasta.engine.rules import PRESETS, RuleSet, save_rules
from canasta.i18n import _, current, nplural, use
from canasta.tools import commands
from canasta.tools.bench import (
    BENCH_ORDER,
    COMPARE_MARKDOWN_HEADER,
    MARKDOWN_HEADER,
    BenchResult,
    Comparison,
    compare_markdown_row,
    compare_pure,
    markdown_row,
    run_bench,
)

if TYPE_CHECKING:
    pass


class _Parser(argparse.ArgumentParser):
    """Bad arguments get one line that says what is wrong and where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, _("{prog}: error: {message} (see '{prog} --help')").format(prog=self.prog, message=message)
                  + "\n")


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows each option's default, except for on/off switches and
    options without one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False, [], argparse.SUPPRESS) or "default" in text or "predefinit" in text:
            return text
        if action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
            return (text or " ") + _(" (default: %(default)s)")
        return text


class _Version(argparse.Action):
    """``--version``: the version, and which engine runs (``engine: compiled`` or ``engine: pure``)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        from canasta import __version__
        from canasta.engine.native import engine

        print(f"canasta {__version__}\nengine: {engine()}")
        parser.exit(0)


def _seconds(text: str) -> float:
    """A positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("not a number of seconds: {text!r}").format(text=text)) from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(_("must be more than 0 seconds, not {text}").format(text=text))
    return value


def _games(text: str) -> int:
    """``--games``: a whole number from 1 to :data:`canasta.tools.arena.MAX_GAMES` (a bigger
    count is a slip, refused before any work)."""
    from canasta.tools.arena import MAX_GAMES

    value = argtypes.positive(text)
    if value > MAX_GAMES:
        raise argparse.ArgumentTypeError(
            _("at most {most} matches a run, not {n} (a longer study: several runs with other --seed values, "
              "counted together with --tally)").format(most=MAX_GAMES, n=value))
    return value


def LANG_HELP() -> str:
    return _("the language of this command: {languages} (default: the one 'canasta config lang' remembers, "
             "else LANG/LC_ALL/LC_MESSAGES)").format(languages=", ".join(_languages()))


#: the endings a rules file may have (``rules --save``, ``--rules FILE``)
RULES_SUFFIXES = (".toml", ".json")


def _rules_arg(text: str) -> RuleSet:
    """``--rules``: a preset or a rules file, and a rules file that sets nothing is refused
    (it would quietly play the default rules)."""
    rules = argtypes.rules(text)
    path = Path(text)
    if path.suffix.lower() in RULES_SUFFIXES and path.is_file():
        raw = path.read_text(encoding="utf-8", errors="replace").removeprefix("\ufeff")
        if path.suffix.lower() == ".json":
            empty = not raw.strip() or json.loads(raw) in ({}, None)
        else:
            import tomllib

            empty = not tomllib.loads(raw)
        if empty:
            raise argparse.ArgumentTypeError(
                _("the rules file {file} is empty: name a preset ({preset}), or write a rules file with "
                  "'canasta rules {preset} --save {path} --force'").format(file=repr(text), path=text,
                                                                           preset="classic-4p"))
    return rules


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="canasta", description=_("Canasta: rules engine, simulations and tools."), formatter_class=_Help)
    p.add_argument("--lang", metavar="LANG", help=LANG_HELP())
    p.add_argument("--version", action=_Version, help=_("print the version and which engine runs (compiled or pure)"))
    sub = p.add_subparsers(dest="command", metavar=_("COMMAND"), parser_class=_Parser)
    from canasta.tools.arena import MAX_GAMES

    rules_help = _("a preset ({presets}) or a .toml/.json rules file").format(presets=", ".join(sorted(PRESETS)))

    def command(name: str, help: str) -> argparse.ArgumentParser:
        cmd = sub.add_parser(name, help=help, description=help, formatter_class=_Help)
        cmd.add_argument("--lang", metavar="LANG", default=argparse.SUPPRESS, help=LANG_HELP())
        return cmd

    b = command("bench", _("random players play whole hands; prints hands/s and decisions/s"))
    b.add_argument("--rules", type=argtypes.rules, default="classic-4p", help=rules_help)
    b.add_argument("--env", choices=BENCH_ENVS,
                   help=_("measure an RL environment instead (steps/s with random masked actions, and the ratio "
                        "to the bare engine; needs the rl extra)"))
    b.add_argument("--seconds", type=_seconds, default=5.0,
                   help=_("with --env: seconds per measurement"))
    b.add_argument("--all", action="store_true", help=_("every preset in turn (--rules is ignored)"))
    b.add_argument("--hands", type=argtypes.positive, default=2000, help=_("hands per run"))
    b.add_argument("--seed", type=argtypes.whole, default=1, help=_("the first hand's seed"))
    b.add_argument("--runs", type=argtypes.positive, default=1, help=_("repeat and report the median run"))
    b.add_argument("--compare-pure", action="store_true",
                   help=_("play the same hands with the compiled engine and the pure-Python one, in child "
                        "processes, alternated --runs times (3 unless given); print the CPU-time ratio"))
    out = b.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help=_("print one JSON line (per preset)"))
    out.add_argument("--markdown", action="store_true",
                     help=_("print a Markdown table, one row per preset (the speed table of docs/speed.md)"))

    d = command("demo", _("deal one hand, let bots play it, show every move and the score"))
    d.add_argument("--rules", type=argtypes.rules, default="classic-4p", help=rules_help)
    d.add_argument("--seed", type=argtypes.whole, default=1, help=_("the deal and the bots' seed"))
    d.add_argument("--bot", default="basic", help=_("the level of every player: random, basic, advanced, expert"))

    c = command("selfcheck", _("soak: random hands through the checked API, invariants after every move"))
    c.add_argument("--rules", type=argtypes.rules, default="classic-4p", help=rules_help)
    c.add_argument("--hands", type=argtypes.positive, default=200, help=_("hands to play"))
    c.add_argument("--seed", type=argtypes.whole, default=1, help=_("the first hand's seed"))
    c.add_argument("--end-only", action="store_true", help=_("check the invariants only at the end of each hand"))

    k = command("soak", _("compare the move generator with the exhaustive reference on random positions of every "
                          "preset: every end of a turn the rules allow must be reached by the generated moves"))
    k.add_argument("--reference", type=argtypes.positive, default=100, metavar="N",
                   help=_("seeds per preset; each gives up to three positions (small, near going out, many "
                        "naturals meeting the pile's top card)"))
    k.add_argument("--rules", type=argtypes.rules, action="append", metavar="RULES",
                   help=_("a preset or rules file to check (may be given again); every preset if left out"))
    k.add_argument("--seed", type=argtypes.whole, default=1, help=_("the first seed"))
    k.add_argument("--limit", type=argtypes.positive, default=3000,
                   help=_("states of one turn walked at most; a bigger position is counted as too big and left"))
    k.add_argument("--record", metavar="FILE",
                   help=_("append one JSON line per preset to FILE (what was walked, what was found, the CPU "
                        "time and the load average)"))

    f = command("check-family", _("check a rule family end to end: its contract, its generated moves against the "
                                  "exhaustive reference, the invariants, positions and views, the bots, both "
                                  "interfaces and the translations; says what is missing"))
    f.add_argument("family", help=_("the family's name (classic, italian, or one a module registers)"))
    f.add_argument("--import", dest="modules", action="append", default=[], metavar="MODULE",
                   help=_("import this Python module first, to register a family of your own (may be given again)"))
    f.add_argument("--seeds", type=argtypes.positive, default=40, help=_("seeds per preset for the reference check"))
    f.add_argument("--hands", type=argtypes.positive, default=10, help=_("hands per preset for the invariants"))
    f.add_argument("--seed", type=argtypes.whole, default=1, help=_("the first seed"))

    a = command("arena", _("two bots play matches on duplicate deals, in parallel"))
    a.add_argument("--rules", type=argtypes.rules, default="classic-4p", help=rules_help)
    a.add_argument("--bots", metavar="A,B",
                   help=_("two bots: random, basic, advanced, expert[:SECONDS|:iN] or cmd:COMMAND"))
    a.add_argument("--games", type=_games, default=100,
                   help=_("matches (two per duplicate deal), at most {most}").format(most=MAX_GAMES))
    a.add_argument("--jobs", type=argtypes.processes, default=os.cpu_count() or 1,
                   help=_("processes playing at once (default: this machine's cores, %(default)s)"))
    a.add_argument("--seed", type=argtypes.whole, default=1, help=_("the run's seed: the same seed, the same deals"))
    a.add_argument("--max-hands", type=argtypes.positive, default=60, help=_("a match stops after this many hands"))
    a.add_argument("--save", metavar="FILE",
                   help=_("write every game as a record (default: runs/arena-RULES-A-vs-B-SEED.cgn)"))
    a.add_argument("--force", action="store_true",
                   help=_("overwrite the record file (and --plot's picture) of an earlier run"))
    a.add_argument("--resume", action="store_true",
                   help=_("continue a stopped run (the same rules, --bots and --seed) from its record file: the "
                        "deals it holds whole are counted, not played again"))
    a.add_argument("--plot", metavar="FILE.png",
                   help=_("draw the per-hand score differences (needs the arena extra: matplotlib)"))
    a.add_argument("--json", action="store_true", help=_("print the figures as one JSON line (no progress bar)"))
    a.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help=_("play the duplicate pairs as Ray tasks: on a local Ray (--jobs of its CPUs) or on the "
                        "cluster at ADDRESS ('auto', 'ray://host:10001'); needs the cluster extra"))
    a.add_argument("--tally", metavar="FILE.cgn", nargs="+",
                   help=_("play nothing: the figures of the games arena runs saved (a stopped run, or several "
                        "runs together); every game is replayed first and a damaged record is refused"))

    lad = command("ladder", _("duplicate matches among bots, rated by Bradley-Terry (Elo scale) with intervals"))
    lad.add_argument("--rules", type=argtypes.rules, default="classic-4p", help=rules_help)
    lad.add_argument("--bots", default="random,basic,advanced,expert", metavar="A,B,...",
                     help=_("the bots: random, basic, advanced, expert[:SECONDS|:iN], cmd:COMMAND, policy:PATH "
                          "(the first is rated 0)"))
    lad.add_argument("--games", type=_games, default=20,
                     help=_("matches per pair of bots (two per duplicate deal) for the pairs not tallied, at most "
                            "{most}").format(most=MAX_GAMES))
    lad.add_argument("--jobs", type=argtypes.processes, default=os.cpu_count() or 1,
                     help=_("processes playing at once (default: this machine's cores, %(default)s)"))
    lad.add_argument("--seed", type=argtypes.whole, default=1, help=_("the run's seed (deals and bootstrap)"))
    lad.add_argument("--max-hands", type=argtypes.positive, default=60, help=_("a match stops after this many hands"))
    lad.add_argument("--pairs", choices=("all", "adjacent"), default="all",
                     help=_("play every pair, or only neighbours in the order of --bots (random-basic, "
                          "basic-advanced, ...; pairs found in --tally are used either way)"))
    lad.add_argument("--tally", metavar="FILE.cgn", nargs="+",
                     help=_("saved arena or ladder records: a pair found in them is tallied, not played again"))
    lad.add_argument("--same", action="append", default=[], metavar="LABEL=BOT", type=argtypes.same_bot,
                     help=_("count the player a --tally record names LABEL as BOT (one bot under two names: "
                            "a variant that became the default, say); may be repeated"))
    lad.add_argument("--by", choices=("hands", "matches"), default="hands",
                     help=_("rate by the hands each pair won, or by the matches (whole matches only)"))
    lad.add_argument("--save-dir", metavar="DIR",
                     help=_("write the games of each pair played as records there (default: runs/)"))
    lad.add_argument("--plot", metavar="FILE.png", help=_("draw the ratings with their intervals (needs matplotlib)"))
    lad.add_argument("--force", action="store_true",
                     help=_("overwrite the record files (and --plot's picture) of an earlier run"))
    lout = lad.add_mutually_exclusive_group()
    lout.add_argument("--json", action="store_true", help=_("print the ratings and pairs as one JSON line"))
    lout.add_argument("--markdown", action="store_true",
                      help=_("print the strength-ladder table of docs/strength.md (with the command that made it)"))

    v = command("verify", _("replay game records through the engine: every move, score and commitment"))
    v.add_argument("file", help=_("a record file (.cgn)"))

    r = command("rules", _("show a rule set with every option; save it as a rules file"))
    r.add_argument("rules", nargs="?", type=argtypes.rules, default="classic-4p", help=rules_help)
    r.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                   help=_("change an option, e.g. --set C-O1=max3_only --set target=3000"))
    r.add_argument("--save", metavar="FILE", help=_("write the rules to FILE (.toml or .json)"))
    r.add_argument("--force", action="store_true", help=_("with --save: overwrite FILE if it exists"))
    r.add_argument("--markdown", action="store_true",
                   help=_("print the rules page (every option, its choices, default and sources) as Markdown"))
    from canasta.club.commands import configure_tournament
    from canasta.review.commands import configure_review
    from canasta.tui.commands import configure_play, configure_replay
    from canasta.web.account_commands import configure_accounts
    from canasta.web.commands import configure_serve

    configure_play(command("play", _("play at a table in the terminal, against or with bots")))
    configure_replay(command("replay", _("step through a game record in the terminal")))
    configure_serve(command("serve", _("run the online card room (web server)")))
    configure_accounts(command("accounts", _("the card room's accounts: create, list, role, password, ban, unban, "
                                             "delete")))
    configure_review(command("review", _("the expert reviews a recorded game: the points each decision lost")))
    configure_tournament(command("tournament", _("a pairs tournament of bots on duplicate deals: its standings")))
    cfg = command("config", _("remember a choice for later commands (where it is kept is shown)"))
    cfg.add_argument("key", choices=("lang",), help=_("what to remember: lang, the language"))
    cfg.add_argument("value", nargs="?", metavar="VALUE",
                     help=_("the language to remember ({languages}), or 'auto' to follow LANG again; "
                            "without it: show what is remembered").format(languages=", ".join(_languages())))
    for action in _actions(p):
        if action.type is argtypes.rules:  # every --rules, the terminal app's too, refuses an empty file
            action.type = _rules_arg
    return p


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every option of a parser and of its commands."""
    out = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out.extend(_actions(sub))
    return out


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


def _cmd_bench(args: argparse.Namespace) -> int:
    presets = [RuleSet.preset(name) for name in BENCH_ORDER] if args.all else [args.rules]
    if args.env:
        return _bench_env(args, presets)
    if args.compare_pure:
        return _bench_compare(args, presets)
    _print_each(args, MARKDOWN_HEADER, (run_bench(rules, args.hands, args.seed, args.runs) for rules in presets),
                markdown_row, _print_bench)
    return 0


class _Measured(Protocol):
    def as_dict(self) -> dict[str, Any]: ...


_M = TypeVar("_M", bound=_Measured)


def _print_each(args: argparse.Namespace, header: str, results: Iterable[_M], row: Callable[[_M], str],
                text: Callable[[_M], None]) -> None:
    """Each result as it comes: a JSON line (``--json``), a row under ``header`` (``--markdown``)
    or lines of text."""
    if args.markdown:
        print(header)
    for res in results:
        if args.json:
            print(json.dumps(res.as_dict()), flush=True)
        elif args.markdown:
            print(row(res), flush=True)
        else:
            text(res)


def _bench_env(args: argparse.Namespace, presets: list[RuleSet]) -> int:
    absent = missing(*_ENV_NEEDS[args.env])
    if absent:
        raise CanastaError(_("bench --env {env} needs {modules}: pip install -e '.[rl]'").format(
            env=args.env, modules=", ".join(absent)))
    if args.markdown:
        raise CanastaError(_("--markdown is the engine's speed table: leave out --env, or use --json"))
    from canasta.rl.bench import env_bench

    for rules in presets:
        result = env_bench(rules, args.env, float(args.seconds), args.seed)
        print(json.dumps(result.as_dict()) if args.json else result.text(), flush=True)
    return 0


def _bench_compare(args: argparse.Namespace, presets: list[RuleSet]) -> int:
    def compared() -> Iterator[Comparison]:
        for rules in presets:
            c = compare_pure(rules, args.hands, args.seed, 3 if args.runs == 1 else args.runs)
            yield c  # printed, then checked
            if not c.identical:
                raise CanastaError(f"{rules.name}: the compiled and the pure engine did not play the same hands")

    _print_each(args, COMPARE_MARKDOWN_HEADER, compared(), compare_markdown_row, _print_compare)
    return 0


def _print_compare(c: Comparison) -> None:
    t = current()
    print(_("rules {rules}: {hands}, pure and compiled engines alternated, {runs} runs each").format(
        rules=c.rules, hands=count(c.hands, "hand"), runs=len(c.pure)))
    for label, results, rate in ((_("pure"), c.pure, c.pure_rate), (_("compiled"), c.compiled, c.compiled_rate)):
        runs = ", ".join(t.number(r.hands_per_cpu_s, 0) for r in results)
        print(f"  {label:<10} {t.number(1000 / rate, 3):>8} " + _("ms CPU per hand") + f"  ({runs} " +
              _("hands per CPU second") + ")")
    print(f"  {_('ratio'):<10} {t.number(c.ratio, 2):>8}× " + _("(compiled over pure, CPU time, medians)"))


def _print_bench(res: BenchResult) -> None:
    t = current()
    print(_("rules {rules}: {hands} in {seconds} s on one core").format(
        rules=res.rules, hands=count(res.hands, "hand"), seconds=t.number(res.seconds, 2)))
    print(f"  engine: {res.engine}")
    rows = ((_("hands/s"), res.hands_per_s), (_("decisions/s"), res.decisions_per_s),
            (_("decisions per hand"), res.decisions_per_hand))
    for label, value in rows:
        print(f"  {label:<18} {t.number(value, 1):>10}")
    for label, ms in ((_("ms per hand (wall)"), res.ms_per_hand), (_("ms per hand (CPU)"), res.cpu_ms_per_hand)):
        print(f"  {label:<18} {t.number(ms, 3):>10}")
    if len(res.runs) > 1:
        print(f"  {_('runs (hands/s)'):<18} " + ", ".join(t.number(x, 1) for x in res.runs))


def _cmd_demo(args: argparse.Namespace) -> int:
    import datetime

    from canasta.bots import check_bot, make_bot
    from canasta.play.match import Match
    from canasta.play.record import record_from_match
    from canasta.views.seat import seat_view

    rules: RuleSet = args.rules
    check_bot(args.bot, rules)
    bots = [make_bot(args.bot, seed=args.seed * 10 + s) for s in range(rules.players)]
    match = Match(rules, seed=args.seed)
    game = match.next_hand()
    print(nplural("{rules}: one hand played by {n} {bot} player", "{rules}: one hand played by {n} {bot} players",
                  rules.players, rules=rules.name, bot=args.bot))
    for s in range(rules.players):
        print("  " + _("seat {seat} is dealt {cards}").format(seat=s, cards=cards_str(sorted(game.hand(s)))))
    lo, hi = game.face_down()
    shown = ["??" if lo <= i < hi else cards_str([c]) for i, c in enumerate(game.pile)]
    print("  " + _("the pile, bottom to top: {cards}").format(cards=" ".join(shown) or _("(empty)")))
    moves = []
    stock = len(game.stock)
    line = Progress(stock, "stock cards", _("this hand: {n:.0f}/{total:.0f} stock cards drawn |{bar}| "
                                             "{elapsed}, at most {remaining} left{postfix}"),
                     leave=False) if Progress.wanted() else None
    start = time.perf_counter()
    try:
        while not game.is_over():
            seat = game.to_move
            move = bots[seat].choose(seat_view(game, seat))
            game.push(move)
            moves.append((seat, move))
            if line is not None:
                secs = time.perf_counter() - start
                line.show(stock - len(game.stock), stock,
                          count(len(moves), "move") + (", " + _("{rate} moves/s").format(
                              rate=current().number(len(moves) / secs, 1)) if secs > 0 else ""))
    finally:
        if line is not None:
            line.close()
        for bot in bots:
            bot.close()
    match.record_hand()
    record = record_from_match(match, [moves], "demo", [args.bot] * rules.players,
                               datetime.date.today().strftime("%Y.%m.%d"))
    print()
    print(record.to_text(), end="")
    print()
    from canasta.engine.game import family_of
    from canasta.i18n.words import end_reason, score_item

    print(_("the hand ended: {reason}").format(reason=end_reason(game.end_reason))
          + (" " + _("(seat {seat})").format(seat=game.went_out) if game.went_out >= 0 else ""))
    for i, sc in enumerate(game.result or []):
        parts = ", ".join(score_item(k, v, laid_out=family_of(rules).words.laid_out) for k, v in sc.as_dict().items()
                          if k != "lines" and (v not in (0, []) or k == "total"))
        print("  " + (_("player {n}: {parts}") if rules.cutthroat else _("side {n}: {parts}")).format(n=i, parts=parts))
    for seat, bot in enumerate(bots):  # an external bot that failed: the engine's fallback played for it
        problems = getattr(bot, "errors", [])
        if problems:
            print(_("seat {seat} ({bot}) fell back to the first legal move of each turn: {problem}").format(
                seat=seat, bot=args.bot, problem=problems[0]))
    return 0


def _cmd_rules(args: argparse.Namespace) -> int:
    rules: RuleSet = args.rules
    if args.save:  # before anything is printed
        if Path(args.save).suffix.lower() not in RULES_SUFFIXES:
            raise CanastaError(_("cannot save rules to {file}: a rules file ends in .toml or .json").format(
                file=repr(args.save)))
        check_writable(args.save, _("rules file"), args.force)
    changes = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise RulesError(_("--set needs OPTION=VALUE, e.g. C-O1=max3_only, not {item}").format(item=repr(item)))
        changes[key.strip()] = _parse_value(value)
    if changes:
        rules = rules.with_options(changes)
    from canasta.i18n.rulespage import rules_markdown, rules_summary

    if args.markdown:
        print(rules_markdown(rules, current()), end="")
    else:
        print(rules_summary(rules, current()), end="")
    if args.save:
        save_rules(rules, args.save)
        print(_("saved to {file}").format(file=args.save))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    """``replay``: a game whose record stops before its end is refused, saying so."""
    from canasta.play.record import cut_short, read_file, verify
    from canasta.tui.commands import _require_textual, run_replay

    _require_textual()  # without the extra, that first
    games, _errors = read_file(args.file)
    if 1 <= args.game <= len(games):
        problems = verify(games[args.game - 1])
        if cut_short(problems):
            raise CanastaError(_("{file}, game {n} is cut short: {problem}; 'canasta verify {file}' shows "
                                 "every game").format(file=args.file, n=args.game, problem=problems[0]))
    return run_replay(args)


def _cmd_config(args: argparse.Namespace) -> int:
    """``config lang [LANG|auto]``: the remembered language, shown or set, and where it is kept."""
    from canasta.i18n.settings import forget_language, remember_language, saved_language, settings_path

    if args.value is None:
        lang = saved_language()
        print(_("remembered language: {lang} (in {file})").format(lang=lang, file=settings_path()) if lang
              else _("no language is remembered: LANG/LC_ALL/LC_MESSAGES choose ({file} would keep one)").format(
                  file=settings_path()))
        return 0
    if args.value == "auto":
        path = forget_language()
        if path is None:
            raise CanastaError(_("cannot write the settings file {file}").format(file=repr(str(settings_path()))))
        print(_("the language is no longer remembered (in {file}): LANG/LC_ALL/LC_MESSAGES choose").format(
            file=path))
        return 0
    lang = _known_language(args.value)
    path = remember_language(lang)
    if path is None:
        raise CanastaError(_("cannot write the settings file {file}").format(file=repr(str(settings_path()))))
    print(_("remembered language: {lang} (in {file}); 'canasta config lang auto' forgets it").format(
        lang=lang, file=path))
    return 0


def _languages() -> list[str]:
    from canasta.i18n import LANGUAGES

    return list(LANGUAGES)


def _known_language(text: str) -> str:
    """The language ``text`` names (``it``, ``it_IT.UTF-8``, the pseudo-language ``qps``); an
    unknown one is refused with the list of the known ones."""
    from canasta.i18n import DEFAULT, PSEUDO, negotiate

    lang = negotiate(text, environ={})
    if lang == DEFAULT and text.replace("-", "_").split("_")[0].split(".")[0].lower() != DEFAULT:
        raise CanastaError(_("unknown language {lang}: choose {languages} (or {pseudo}, the test "
                             "pseudo-language)").format(lang=repr(text), languages=", ".join(_languages()),
                                                        pseudo=PSEUDO))
    return lang


def _requested_language(argv: Sequence[str]) -> str | None:
    """The value of ``--lang`` anywhere on the command line (before the parser, whose
    texts are in that language)."""
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.partition("=")[2]
    return None


def set_language(requested: str | None) -> str:
    """Choose the language (``--lang``, for this command only, else the remembered
    choice, else the environment), use it for every text, argparse's own included, and
    return it.  An unknown ``--lang`` raises :class:`CanastaError`."""
    from canasta.i18n.settings import choose_language

    lang = choose_language(_known_language(requested) if requested else None)
    t = use(lang)
    argparse._ = t.gettext  # type: ignore[attr-defined]
    argparse.ngettext = t.ngettext  # type: ignore[attr-defined]
    return lang


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        set_language(_requested_language(argv))
    except CanastaError as exc:
        set_language(None)
        print(_("canasta: error: {message}").format(message=_error_text(exc)), file=sys.stderr)
        return 2
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        from canasta.club.commands import run_tournament
        from canasta.review.commands import run_review
        from canasta.tui.commands import run_play
        from canasta.web.account_commands import run_accounts
        from canasta.web.commands import run_serve

        handler = {"bench": _cmd_bench, "demo": _cmd_demo, "rules": _cmd_rules,
                   "selfcheck": commands.cmd_selfcheck, "soak": commands.cmd_soak, "check-family": commands.cmd_check_family, "arena": commands.cmd_arena, "verify": commands.cmd_verify, "ladder": commands.cmd_ladder,
                   "play": run_play, "replay": _cmd_replay, "serve": run_serve, "accounts": run_accounts, "review": run_review,
                   "tournament": run_tournament,
                   "config": _cmd_config}[args.command]
        return handler(args)
    except CanastaError as exc:
        print(_("canasta: error: {message}").format(message=_error_text(exc)), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        text = f"{exc.strerror}: {str(exc.filename)!r}" if exc.filename and exc.strerror else str(exc)
        print(_("canasta: error: {message}").format(message=text), file=sys.stderr)
        return 2
    except Exception as exc:  # never a traceback at the command line
        if os.environ.get("CANASTA_DEBUG"):
            raise
        print(_("canasta: internal error: {error} (set CANASTA_DEBUG=1 for details and please report it)").format(
            error=f"{type(exc).__name__}: {exc}"), file=sys.stderr)
        return 70


def _error_text(exc: CanastaError) -> str:
    """An error in the language of the moment: a refusal from its code; a message the
    catalog knows, translated; any other as the engine wrote it (English)."""
    from canasta.engine.errors import IllegalMoveError

    if isinstance(exc, IllegalMoveError):
        return current().refusal(exc)
    return _one_line(_install_advice(current().gettext(str(exc))))


_BACKGROUND_LINK = re.compile(r"\s*\(Background on this error at: [^)]*\)")
_EXTRA_HINT = re.compile(r"pip install (?:-e )?'(?:canasta|\.)\[([\w,-]+)\]'")


def _one_line(text: str) -> str:
    """An error in one line: a database driver's "Background on this error" link dropped,
    and any line breaks left made spaces."""
    return " ".join(_BACKGROUND_LINK.sub("", text).split())


def _checkout() -> Path | None:
    """The source checkout canasta runs from (a pyproject.toml beside ``src/``), or None
    for an installed package."""
    import canasta

    root = Path(canasta.__file__).resolve().parent.parent.parent
    return root if (root / "pyproject.toml").is_file() and (root / "src" / "canasta").is_dir() else None


def _install_advice(text: str) -> str:
    """An extra's install command as it works here: ``pip install -e '.[play]'`` in a source
    checkout (naming it when it is not the current folder), ``pip install 'canasta[play]'``
    for an installed package."""
    root = _checkout()

    def advice(found: re.Match[str]) -> str:
        if root is None:
            return f"pip install 'canasta[{found.group(1)}]'"
        where = "" if Path.cwd().resolve() == root else " " + _("(in {folder})").format(folder=root)
        return f"pip install -e '.[{found.group(1)}]'" + where

    return _EXTRA_HINT.sub(advice, text)


if __name__ == "__main__":
    sys.exit(main())
