"""The ``play`` and ``replay`` commands' arguments and entry points.

Imported by :mod:`canasta.cli` whatever is installed: Textual is imported only
when a command runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from canasta import argtypes
from canasta.engine.errors import CanastaError
from canasta.i18n import N_, _, current

INSTALL_HINT = N_("the terminal interface needs Textual: pip install 'canasta[play]'")
#: said when the standard input or output is not a terminal (a pipe, a file, a service)
NO_TERMINAL = N_("'canasta {command}' is a full-screen app and needs a terminal: its input and output are "
                 "not one here (run it in a terminal window; 'canasta arena' plays bots without one)")


def configure_play(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", type=argtypes.rules, metavar="PRESET|FILE",
                        help=_("a preset (classic-4p, italian-4p, ...) or a .toml/.json rules file"))
    parser.add_argument("--seed", type=argtypes.whole, help=_("the match seed (default: random)"))
    parser.add_argument("--bots", metavar="LEVEL,...",
                        help=_("the other seats' levels in order: random, basic, advanced, expert "
                               "(one level for all, or one per seat)"))
    parser.add_argument("--target", type=argtypes.whole, help=_("the match target score (default: the rules' target)"))
    parser.add_argument("--name", default="South", help=_("your name at the table (default: South)"))
    parser.add_argument("--resume", metavar="FILE", help=_("continue a saved game (.json written by the app)"))
    parser.add_argument("--save-dir", metavar="DIR",
                        help=_("where records (.cgn) and saved games (.json) go "
                               "(default: $XDG_DATA_HOME/canasta/games or ~/.local/share/canasta/games)"))
    parser.add_argument("--delay", type=argtypes.seconds, default=0.6, metavar="SECONDS",
                        help=_("pause after each bot move so it can be read (default 0.6)"))
    parser.add_argument("--hints", action="store_true", help=_("start with hints shown (key h toggles)"))
    parser.add_argument("--hint-level", default="advanced", choices=("random", "basic", "advanced", "expert"),
                        help=_("the bot whose move is suggested as a hint (default advanced)"))
    parser.add_argument("--four-colour", action="store_true",
                        help=_("four-colour deck: hearts red, diamonds blue, clubs green, spades black"))


def configure_replay(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help=_("a record file (.cgn)"))
    parser.add_argument("--game", type=argtypes.whole, default=1, help=_("which game of the file (default 1)"))
    parser.add_argument("--seat", type=argtypes.whole,
                        help=_("start with the table as this seat saw it (default: face up)"))
    parser.add_argument("--four-colour", action="store_true", help=_("four-colour deck"))


def _require_textual() -> None:
    try:
        import textual  # noqa: F401
    except ImportError:
        raise CanastaError(_(INSTALL_HINT)) from None


def _require_terminal(command: str) -> None:
    """Refuse, in one line, to start the full-screen app where there is no terminal to draw it in."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CanastaError(_(NO_TERMINAL).format(command=command))


def play_setup(args: argparse.Namespace) -> tuple[Any, Any, str | None]:
    """The app's configuration and, when the command line says enough, its table
    (no new-game screen).  Raises CanastaError on bad arguments."""
    from canasta.play.table import Table
    from canasta.tui.app import PlayConfig, build_table, default_save_dir

    save_dir = Path(args.save_dir).expanduser() if getattr(args, "save_dir", None) else None
    bots = [b.strip() for b in args.bots.split(",") if b.strip()] if getattr(args, "bots", None) else None
    config = PlayConfig(rules=args.rules, seed=args.seed, bots=bots, target=args.target, name=args.name,
                        save_dir=save_dir or default_save_dir(), delay=args.delay, hints=args.hints,
                        four_colour=args.four_colour, hint_level=args.hint_level, lang=current().lang)
    if args.resume:
        path = Path(args.resume).expanduser()
        table = Table.load(path)
        table.hint_level = config.hint_level
        config.hints = config.hints or table.hints_shown
        if table.seats[0] is not None:
            raise CanastaError(_("{file}: seat 0 of this game is a bot, not a person").format(file=path))
        if save_dir is None:
            config.save_dir = path.parent
        config.resume = path
        return config, table, path.stem
    if not config.ready and config.target is None:
        return config, None, None
    from canasta.engine.rules import RuleSet

    rules = config.rules or RuleSet.preset("classic-4p")
    if config.target is not None:
        rules = rules.with_options({"target": config.target})
    import os

    seed = config.seed if config.seed is not None else int.from_bytes(os.urandom(4), "big")
    levels = bots or ["basic" if s % 2 else "advanced" for s in range(1, rules.players)]
    return config, build_table(rules, levels, seed, args.name, config.hint_level), None


def run_play(args: argparse.Namespace) -> int:
    _require_textual()
    from canasta.tui.app import CanastaApp

    config, table, game_id = play_setup(args)  # bad arguments are said first, terminal or not
    _require_terminal("play")
    app = CanastaApp(config, table, game_id)
    app.run()
    if app.saved_path is not None:
        print(_("saved: resume with  {command}").format(command=f"canasta play --resume {app.saved_path}"))
    return 0


def run_replay(args: argparse.Namespace) -> int:
    _require_textual()
    from canasta.tui.replay import ReplayApp, load_replay

    replay = load_replay(args.file, args.game)
    if args.seat is not None and not 0 <= args.seat < replay.rules.players:
        raise CanastaError(_("--seat must be from 0 to {last}").format(last=replay.rules.players - 1))
    _require_terminal("replay")
    app = ReplayApp(replay, seat=args.seat, four_colour=args.four_colour)
    app.run()
    return 0
