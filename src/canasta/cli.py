"""The ``canasta`` command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import NoReturn

from canasta import argtypes
from canasta.bench import run_bench
from canasta.cards import cards_str
from canasta.errors import CanastaError, RulesError
from canasta.rules import PRESETS, RuleSet, save_rules


class _Parser(argparse.ArgumentParser):
    """Bad arguments get one line that says what is wrong and where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="canasta", description="Canasta: rules engine, simulations and tools.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    rules_help = f"a preset ({', '.join(sorted(PRESETS))}) or a .toml/.json rules file"

    b = sub.add_parser("bench", help="random players play whole hands; prints hands/s and decisions/s")
    b.add_argument("--rules", type=argtypes.rules, default=RuleSet.preset("classic-4p"), help=rules_help)
    b.add_argument("--hands", type=argtypes.positive, default=2000)
    b.add_argument("--seed", type=argtypes.whole, default=1)
    b.add_argument("--runs", type=argtypes.positive, default=1, help="repeat and report the median run")
    b.add_argument("--json", action="store_true", help="print one JSON line")

    d = sub.add_parser("demo", help="deal one hand, let bots play it, show every move and the score")
    d.add_argument("--rules", type=argtypes.rules, default=RuleSet.preset("classic-4p"), help=rules_help)
    d.add_argument("--seed", type=argtypes.whole, default=1)
    d.add_argument("--bot", default="basic", help="the level of every player: random, basic, advanced, expert")

    c = sub.add_parser("selfcheck", help="soak: random hands through the checked API, invariants after every move")
    c.add_argument("--rules", type=argtypes.rules, default=RuleSet.preset("classic-4p"), help=rules_help)
    c.add_argument("--hands", type=argtypes.positive, default=200)
    c.add_argument("--seed", type=argtypes.whole, default=1)
    c.add_argument("--end-only", action="store_true", help="check the invariants only at the end of each hand")

    a = sub.add_parser("arena", help="two bots play matches on duplicate deals, in parallel")
    a.add_argument("--rules", type=argtypes.rules, default=RuleSet.preset("classic-4p"), help=rules_help)
    a.add_argument("--bots", metavar="A,B",
                   help="two bots: random, basic, advanced, expert[:SECONDS|:iN] or cmd:COMMAND")
    a.add_argument("--games", type=argtypes.positive, default=100, help="matches (two per duplicate deal)")
    a.add_argument("--jobs", type=argtypes.positive, default=os.cpu_count() or 1)
    a.add_argument("--seed", type=argtypes.whole, default=1)
    a.add_argument("--max-hands", type=argtypes.positive, default=60, help="a match stops after this many hands")
    a.add_argument("--save", metavar="FILE", help="write every game as a record (default runs/arena-*.cgn)")
    a.add_argument("--plot", metavar="FILE.png", help="draw the per-hand score differences (needs matplotlib)")
    a.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    a.add_argument("--tally", metavar="FILE.cgn", nargs="+",
                   help="play nothing: the figures of the games arena runs saved (a stopped run, or several "
                        "runs together)")

    v = sub.add_parser("verify", help="replay game records through the engine: every move, score and commitment")
    v.add_argument("file", help="a record file (.cgn)")

    r = sub.add_parser("rules", help="show a rule set with every option; save it as a rules file")
    r.add_argument("rules", nargs="?", type=argtypes.rules, default=RuleSet.preset("classic-4p"), help=rules_help)
    r.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE",
                   help="change an option, e.g. --set C-O1=max3_only --set target=3000")
    r.add_argument("--save", metavar="FILE", help="write the rules to FILE (.toml or .json)")
    from canasta.tui.commands import configure_play, configure_replay
    from canasta.web.commands import configure_serve

    configure_play(sub.add_parser("play", help="play at a table in the terminal, against or with bots"))
    configure_replay(sub.add_parser("replay", help="step through a game record in the terminal"))
    configure_serve(sub.add_parser("serve", help="run the online card room (web server)"))
    return p


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


def _cmd_bench(args: argparse.Namespace) -> int:
    res = run_bench(args.rules, args.hands, args.seed, args.runs)
    if args.json:
        print(json.dumps(res.as_dict()))
    else:
        print(f"rules {res.rules}: {res.hands} hands in {res.seconds:.2f} s on one core")
        print(f"  hands/s            {res.hands_per_s:10.1f}")
        print(f"  decisions/s        {res.decisions_per_s:10.1f}")
        print(f"  decisions per hand {res.decisions_per_hand:10.1f}")
        if len(res.runs) > 1:
            print("  runs (hands/s)     " + ", ".join(f"{x:.1f}" for x in res.runs))
    return 0


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
    while not game.is_over():
        seat = game.to_move
        move = bots[seat].choose(seat_view(game, seat))
        game.push(move)
        moves.append((seat, move))
    match.record_hand()
    record = record_from_match(match, [moves], "demo", [args.bot] * rules.players,
                               datetime.date.today().strftime("%Y.%m.%d"))
    print()
    print(record.to_text(), end="")
    print()
    print(f"the hand ended: {game.end_reason}" + (f" (seat {game.went_out})" if game.went_out >= 0 else ""))
    for i, sc in enumerate(game.result or []):
        parts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sc.as_dict().items()
                          if v not in (0, []) or k == "total")
        print(f"  {'player' if rules.cutthroat else 'side'} {i}: {parts}")
    return 0


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
    print(f"rules {rep.rules}: {rep.hands} hands, {rep.decisions} moves checked in {secs:.1f} s; "
          f"{rep.went_out} hands ended by going out; {len(rep.problems)} problems")
    for p in rep.problems[:20]:
        print("  " + p)
    return 1 if rep.problems else 0


def _cmd_arena(args: argparse.Namespace) -> int:
    from pathlib import Path

    from canasta.arena import ArenaReport, plot, run_arena, tally
    from canasta.bots import make_bot

    report: ArenaReport
    if args.tally:
        from canasta.record import read_file

        games = []
        for name in args.tally:
            found, errors = read_file(name)
            if not found:
                raise CanastaError(f"{name}: no game record found" + (f" ({errors[0]})" if errors else ""))
            for e in errors[:5]:
                print(f"{name}: {e}", file=sys.stderr)
            games.extend(found)
        report = tally(games)
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
    save = Path(args.save) if args.save else Path("runs") / (
        f"arena-{args.rules.name}-{specs[0]}-vs-{specs[1]}-{args.seed}.cgn".replace(":", "_").replace("/", "_")
        .replace(" ", "_"))
    tty = sys.stderr.isatty()
    bar = None
    try:
        from tqdm import tqdm

        bar = tqdm(total=2 * ((args.games + 1) // 2), unit="game", disable=not tty)
    except ImportError:
        pass

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.n = done
            bar.refresh()
        elif tty:
            print(f"\r{done}/{total} games", end="", file=sys.stderr, flush=True)

    report = run_arena(args.rules, (specs[0], specs[1]), args.games, args.seed, args.jobs, args.max_hands,
                       save, progress)
    if bar is not None:
        bar.close()
    elif tty:
        print(file=sys.stderr)
    if args.json:
        print(json.dumps(report.as_dict()))
    else:
        print(report.table())
        print(f"games saved to {save}")
    if args.plot:
        plot(report, Path(args.plot))
    return 0


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
            print(f"game {i}: {hands} hands, {moves} moves: {len(problems)} problems")
            for p in problems[:10]:
                print("  " + p)
        else:
            print(f"game {i}: {hands} hands, {moves} moves, scores and commitments verified")
    return 1 if bad or errors else 0


def _cmd_rules(args: argparse.Namespace) -> int:
    rules: RuleSet = args.rules
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
                   "selfcheck": _cmd_selfcheck, "arena": _cmd_arena, "verify": _cmd_verify,
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
        print(f"canasta: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # never a traceback at the command line
        if os.environ.get("CANASTA_DEBUG"):
            raise
        print(f"canasta: internal error: {type(exc).__name__}: {exc} "
              "(set CANASTA_DEBUG=1 for details and please report it)", file=sys.stderr)
        return 70


if __name__ == "__main__":
    sys.exit(main())
