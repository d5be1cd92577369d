"""The command line's commands that run the tools: ``selfcheck``, ``soak``, ``check-family``,
``arena``, ``ladder`` and ``verify`` (:mod:`canasta.cli` parses their arguments and calls them)."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from canasta.cliout import Progress, check_writable, count, missing
from canasta.engine.errors import CanastaError
from canasta.engine.rules import PRESETS, RuleSet
from canasta.i18n import _, current, nplural

if TYPE_CHECKING:
    from canasta.play.record import GameRecord
    from canasta.tools.arena import ArenaReport


def cmd_selfcheck(args: argparse.Namespace) -> int:
    from canasta.tools.selfcheck import run_selfcheck

    done = [0]
    tty = sys.stderr.isatty()

    def tick() -> None:
        done[0] += 1
        if tty and (done[0] % 10 == 0 or done[0] == args.hands):
            print("\r" + _("{done}/{total} hands").format(done=done[0], total=args.hands), end="", file=sys.stderr,
                  flush=True)

    start = time.perf_counter()
    rep = run_selfcheck(args.rules, args.hands, args.seed, not args.end_only, tick)
    if tty:
        print(file=sys.stderr)
    secs = time.perf_counter() - start
    print(_("rules {rules}: {hands}, {moves} checked in {seconds} s; {out} ended by going out; {problems}").format(
        rules=rep.rules, hands=count(rep.hands, "hand"), moves=count(rep.decisions, "move"),
        seconds=current().number(secs, 1), out=count(rep.went_out, "hand"),
        problems=count(len(rep.problems), "problem")))
    for p in rep.problems[:20]:
        print("  " + p)
    return 1 if rep.problems else 0


def cmd_soak(args: argparse.Namespace) -> int:
    from canasta.tools.soak import reference_check, reference_record

    every = [RuleSet.preset(name) for name in sorted(PRESETS)]
    chosen: list[RuleSet] = args.rules or every
    tty = sys.stderr.isatty()
    found = 0

    def ticker(name: str) -> Callable[[], None]:
        done = [0]

        def tick() -> None:
            done[0] += 1
            if tty:
                print("\r" + _("{rules}: {done}/{total} seeds").format(rules=name, done=done[0], total=args.reference),
                      end="", file=sys.stderr, flush=True)
        return tick

    for rules in chosen:
        start = time.process_time()
        rep = reference_check(rules, args.reference, args.seed, tick=ticker(rules.name), limit=args.limit)
        cpu = time.process_time() - start
        if tty:
            print(file=sys.stderr)
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(rep.kinds.items()))
        print(_("{rules}: {positions} positions ({kinds}), {states} ends of a turn compared; {gaps} not generated, "
                "{refused} generated moves refused, {big} too big to walk; {problems} in {seconds} s CPU").format(
            rules=rep.rules, positions=rep.positions, kinds=kinds, states=rep.states, gaps=rep.gaps,
            refused=rep.refused, big=rep.too_big, problems=count(len(rep.problems), "problem"),
            seconds=current().number(cpu, 1)))
        for p in rep.problems[:20]:
            print("  " + p)
        found += len(rep.problems)
        if args.record:  # each preset's line as soon as it is done: a stopped run keeps what it finished
            with open(args.record, "a", encoding="utf-8") as f:
                f.write(json.dumps(reference_record(rep, args.reference, args.seed, cpu, args.limit)) + "\n")
    if len(chosen) > 1:
        print(_("{presets} rule sets: {problems}").format(presets=len(chosen), problems=count(found, "problem")))
    return 1 if found else 0


def cmd_check_family(args: argparse.Namespace) -> int:
    import importlib

    from canasta.tools.familycheck import check_family

    for name in args.modules:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise CanastaError(_("cannot import {module}: {error}").format(module=name, error=exc)) from None
        register = getattr(module, "register", None)
        if callable(register):  # a family kept unregistered until asked (a test's) registers now
            register()
    start = time.process_time()
    rep = check_family(args.family, seeds=args.seeds, hands=args.hands, seed=args.seed)
    for line in rep.lines():
        print(line)
    failed = sum(1 for found in rep.problems.values() if found)
    print(_("{family}: {checks} failed, {skipped} skipped, in {seconds} s CPU").format(
        family=args.family, checks=count(failed, "check"), skipped=len(rep.skipped),
        seconds=current().number(time.process_time() - start, 1)))
    return 0 if rep.ok else 1


def _check_plot(path: str | None, force: bool) -> None:
    """Before any work: matplotlib is there, and the picture can be written."""
    if not path:
        return
    from canasta.tools.arena import plot_needs

    need = plot_needs()
    if need is not None:
        raise CanastaError(need)
    check_writable(path, _("picture file"), force)


def _read_records(paths: list[str], show_errors: bool) -> tuple[list[GameRecord], list[str]]:
    """Every game of the record files, with a name for each (``FILE, game N``)."""
    from canasta.play.record import read_file

    games: list[GameRecord] = []
    names: list[str] = []
    for name in paths:
        found, errors = read_file(name)
        if not found:
            raise CanastaError(_("{file}: no game record found").format(file=name)
                               + (f" ({errors[0]})" if errors else ""))
        if show_errors:
            for e in errors[:5]:
                print(f"{name}: {e}", file=sys.stderr)
        games.extend(found)
        names.extend(f"{name}, game {i}" for i in range(1, len(found) + 1))  # ids in the report: kept as they are
    return games, names


def _holds_records(path: Path) -> bool:
    """Does this file hold game records (an earlier run's), rather than anything else?"""
    from canasta.play.record import read_file

    try:
        return bool(read_file(path)[0])
    except CanastaError:
        return False


def cmd_arena(args: argparse.Namespace) -> int:
    from pathlib import Path

    from canasta.bots import check_bot
    from canasta.tools.arena import Interrupted, ProgressEstimate, plot, run_arena, tally

    _check_plot(args.plot, args.force)
    report: ArenaReport
    if args.tally:
        games, names = _read_records(args.tally, show_errors=True)
        report = tally(games, names)
        print(json.dumps(report.as_dict()) if args.json else report.table())
        if args.plot:
            plot(report, Path(args.plot))
        return 0
    if not args.bots:
        raise CanastaError(_("arena needs --bots A,B (or --tally FILE.cgn to count saved games)"))
    specs = [x.strip() for x in args.bots.split(",")]
    if len(specs) != 2 or not all(specs):
        raise CanastaError(_("--bots needs two bots separated by a comma, e.g. --bots advanced,basic"))
    for spec in specs:
        check_bot(spec, args.rules)  # refuse a bad name, policy or command before starting
    if args.save:
        check_writable(args.save, _("record file"), force=True)  # an earlier run's file: refused below
        save = Path(args.save)
    else:
        save = Path("runs") / (f"arena-{args.rules.name}-{specs[0]}-vs-{specs[1]}-{args.seed}.cgn"
                               .replace(":", "_").replace("/", "_").replace(" ", "_"))
    if args.resume and args.force:
        raise CanastaError(_("--resume continues the run in the record file and --force overwrites it: "
                             "give one of them"))
    if args.resume and args.ray is not None:
        raise CanastaError(_("--resume plays on this machine: leave out --ray, or start the Ray run afresh"))
    if save.exists() and not args.force:
        if not _holds_records(save):
            raise CanastaError(_("{file} exists and holds no game record: choose another file with --save FILE, "
                                 "or add --force to overwrite it").format(file=repr(str(save))))
        if not args.resume:  # with --resume, run_arena keeps this run's games or refuses the file
            raise CanastaError(_("{file} holds the games of an earlier run: --tally it, choose another file "
                                 "with --save FILE, or add --force to overwrite it").format(file=repr(str(save))))
    pairs = max(1, (args.games + 1) // 2)
    if args.ray is not None:
        return _arena_ray(args, (specs[0], specs[1]), save)
    line = Progress(pairs * 2 * 6, "hands", _("{n:.1f}/{total:.0f} hands (estimated) |{bar}| {rate_noinv_fmt}, "
                                               "{remaining} left{postfix}")) if Progress.wanted(args.json) else None

    def progress(est: ProgressEstimate) -> None:
        if line is not None:
            line.show(est.hands_done, est.total_hands,
                      _("{done}/{total} games, {moves} moves").format(done=est.games_done, total=est.games,
                                                                       moves=est.moves))

    try:
        with stoppable():
            report = run_arena(args.rules, (specs[0], specs[1]), args.games, args.seed, args.jobs, args.max_hands,
                               save, progress, resume=args.resume)
    except Interrupted as stop:
        if line is not None:
            line.close()
        _interrupted([stop.save] if stop.save is not None else [], stop.report.games, "canasta arena")
        return 130
    except BaseException:
        if line is not None:
            line.close()
        raise
    if line is not None:  # the figures as counted (the last reports of a pool may still be on their way)
        line.close(report.hands, _("{done}/{total} games").format(done=report.games, total=report.games))
    return _arena_figures(args, report, save)


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """Within it, SIGINT and SIGTERM stop the command as Ctrl-C does (KeyboardInterrupt: a run
    keeps what it finished).  A command started in the background by a shell (``cmd &``)
    inherits SIGINT ignored, and a plain ``kill`` sends SIGTERM: without this, one stop was not
    heard and the other ended the process before its record was kept."""
    if threading.current_thread() is not threading.main_thread():  # signals go to the main thread only
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _arena_figures(args: argparse.Namespace, report: ArenaReport, save: Path) -> int:
    """What an arena run prints (its JSON line, or its table and where its games went) and plots."""
    from canasta.tools.arena import plot

    if args.json:
        print(json.dumps(report.as_dict()))
    else:
        print(report.table())
        print(_("games saved to {file}").format(file=save))
    if args.plot:
        plot(report, Path(args.plot))
    return 0


def _interrupted(files: list[Path], games: int | None, command: str) -> None:
    """After Ctrl-C: what was kept, and the command that counts it (``command`` with
    ``--tally FILES`` added)."""
    if not files:
        print(_("canasta: interrupted: no game was finished, nothing was saved"), file=sys.stderr)
        return
    names = " ".join(str(f) for f in files)
    kept = (nplural("{n} finished game is saved in {files}", "{n} finished games are saved in {files}", games,
                    files=names) if games is not None
            else _("the finished games are saved in {files}").format(files=names))
    print(_("canasta: interrupted: {kept}; their figures: {command}").format(
        kept=kept, command=f"{command} --tally {names}"), file=sys.stderr)


def _arena_ray(args: argparse.Namespace, specs: tuple[str, str], save: Path) -> int:
    """``arena --ray [ADDRESS]``: the same matches and report, the pairs played as Ray tasks."""
    if missing("ray"):
        raise CanastaError(_("arena --ray needs ray: pip install -e '.[cluster]'"))
    from canasta.cluster import run_arena_ray

    pairs = max(1, (args.games + 1) // 2)
    line = Progress(pairs * 2, "games", _("{n:.0f}/{total:.0f} games |{bar}| {remaining} left{postfix}")) \
        if Progress.wanted(args.json) else None

    def progress(done: int, total: int) -> None:
        if line is not None:
            line.show(done, total, _("on Ray"))

    try:
        report = run_arena_ray(args.rules, specs, args.games, args.seed, address=args.ray or None,
                               max_hands=args.max_hands, save=save, progress=progress,
                               num_cpus=None if args.ray else args.jobs)
    finally:
        if line is not None:
            line.close()
    return _arena_figures(args, report, save)


def cmd_ladder(args: argparse.Namespace) -> int:
    from canasta.bots import check_bot
    from canasta.tools.arena import ProgressEstimate
    from canasta.tools.ladder import (
        LadderInterrupted,
        Pair,
        pairs_to_play,
        plot_ladder,
        run_ladder,
        save_path,
        tally_records,
    )

    _check_plot(args.plot, args.force)
    specs = [x.strip() for x in args.bots.split(",") if x.strip()]
    if len(set(specs)) < 2:
        raise CanastaError(_("--bots needs at least two different bots, e.g. --bots random,basic,advanced"))
    if args.by == "matches" and args.max_hands != 60:
        raise CanastaError(_("--by matches counts whole matches: leave --max-hands at 60, or rate by hands"))
    if args.same and not args.tally:
        raise CanastaError(_("--same renames the players of --tally records: name the records with --tally"))
    saved: list[Pair] = []
    if args.tally:
        games, names = _read_records(args.tally, show_errors=False)
        saved = [p for p in tally_records(games, names, args.rules.name, args.by, dict(args.same))
                 if {p.a, p.b} <= set(specs)]
    to_play = pairs_to_play(specs, saved, args.pairs == "adjacent")
    for spec in specs:
        if any(spec in pair for pair in to_play):  # a bot only tallied is a record's name (a variant's, say)
            check_bot(spec, args.rules)  # refuse a bad name, policy or command before starting
    save_dir = Path(args.save_dir) if args.save_dir else Path("runs")
    if args.save_dir and not save_dir.is_dir():
        raise CanastaError(_("--save-dir {dir} is not a folder (create it first)").format(dir=repr(args.save_dir)))
    earlier = [path for a, b in to_play if (path := save_path(save_dir, args.rules.name, a, b, args.seed)).exists()]
    if earlier and not args.force:
        raise CanastaError(_("{files} hold the games of an earlier run: --tally them, choose another --seed or "
                             "--save-dir, or add --force to overwrite them").format(
            files=", ".join(repr(str(f)) for f in earlier)))
    line = Progress(1, "hands", _("{desc}{n:.1f}/{total:.0f} hands (estimated) |{bar}| {remaining} left{postfix}")) \
        if Progress.wanted(args.json or args.markdown) else None

    def progress(label: str, est: ProgressEstimate) -> None:
        if line is not None:
            line.show(est.hands_done, est.total_hands,
                      f"{label}: " + _("{done}/{total} games").format(done=est.games_done, total=est.games))

    try:
        ladder = run_ladder(args.rules, specs, args.games, args.seed, args.jobs, args.max_hands, saved, save_dir,
                            progress, adjacent=args.pairs == "adjacent", by=args.by)
    except LadderInterrupted as stop:
        if line is not None:
            line.close()
            line = None
        _interrupted(stop.files, None, f"canasta ladder --rules {args.rules.name} --bots {args.bots}")
        return 130
    finally:
        if line is not None:
            line.close()
    if args.json:
        print(json.dumps(ladder.as_dict()))
    elif args.markdown:
        print(ladder.markdown(_ladder_command(args, played=bool(to_play))))
    else:
        print(ladder.table())
    if args.plot:
        plot_ladder(ladder, Path(args.plot))
    return 0


def _ladder_command(args: argparse.Namespace, played: bool = True) -> str:
    """The command line that made a ladder (as docs/strength.md shows it); without ``--games``
    when every pair was tallied from records (``played`` False), as it then plays nothing."""
    parts = ["canasta ladder", f"--rules {args.rules.name}", f"--bots {args.bots}"]
    parts += [f"--games {args.games}"] if played else []
    parts.append(f"--seed {args.seed}")
    if args.max_hands != 60:
        parts.append(f"--max-hands {args.max_hands}")
    if args.pairs != "all":
        parts.append(f"--pairs {args.pairs}")
    if args.by != "hands":
        parts.append(f"--by {args.by}")
    parts += [f"--same {label}={bot}" for label, bot in args.same]
    if args.tally:
        parts.append("--tally " + " ".join(args.tally))
    return " ".join(parts + ["--markdown"])


def cmd_verify(args: argparse.Namespace) -> int:
    from canasta.play.record import cut_short, read_file, verify

    games, errors = read_file(args.file)
    if not games:
        first = f" ({errors[0]})" if errors else ""
        raise CanastaError(_("{file}: no game record found").format(file=args.file) + first)
    for e in errors:
        print(f"{args.file}: {e}")
    bad = 0
    for i, game in enumerate(games, start=1):
        problems = verify(game)
        hands = len(game.hands)
        moves = sum(len(h.moves) for h in game.hands)
        if problems and cut_short(problems):
            bad += 1
            print(_("game {n}: {hands}, {moves}: cut short, the record stops before the game's end "
                    "(not a finished game)").format(n=i, hands=count(hands, "hand"), moves=count(moves, "move")))
            for p in problems[:10]:
                print("  " + p)
        elif problems:
            bad += 1
            print(_("game {n}: {hands}, {moves}: {problems}").format(
                n=i, hands=count(hands, "hand"), moves=count(moves, "move"), problems=count(len(problems), "problem")))
            for p in problems[:10]:
                print("  " + p)
        else:
            print(_("game {n}: {hands}, {moves}, scores and commitments verified").format(
                n=i, hands=count(hands, "hand"), moves=count(moves, "move")))
    return 1 if bad or errors else 0
