"""The ``tournament`` command: a pairs tournament of bots on duplicate boards, and its standings
(``docs/tournaments.md``, ``docs/commands.md``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from canasta import argtypes
from canasta.bots import BotSpecError, check_bot
from canasta.cliout import check_writable
from canasta.club.scoring import SCORINGS, Standing
from canasta.club.tournament import FORMATS, Tournament, TournamentError, bot_partnerships, default_bots
from canasta.engine.errors import CanastaError
from canasta.engine.files import write_text_atomic
from canasta.engine.rules import RuleSet
from canasta.i18n import _, nplural

#: the most partnerships, rounds and hands the command takes (the library's own bounds)
_BOUNDS = {"pairs": (4, 1000), "rounds": (1, 50), "hands": (1, 20)}


def _bounded(name: str) -> Callable[[str], int]:
    low, high = _BOUNDS[name]

    def parse(text: str) -> int:
        value = argtypes.whole(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(_("a whole number from {low} to {high}, not {value}").format(
                low=low, high=high, value=value))
        if name == "pairs" and value % 2:
            raise argparse.ArgumentTypeError(_("an even number of partnerships (two at each table), not {value}")
                                             .format(value=value))
        return value

    return parse


def _bots(text: str) -> list[str]:
    specs = [s.strip() for s in text.split(",") if s.strip()]
    if not specs:
        raise argparse.ArgumentTypeError(_("name at least one bot, e.g. --bots basic,random"))
    return specs


def configure_tournament(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", type=argtypes.rules, default="classic-4p",
                        help=_("a preset with two sides (classic-4p, italian-4p, classic-2p ...) or a rules file"))
    parser.add_argument("--pairs", type=_bounded("pairs"), default=16,
                        help=_("partnerships entered, an even number (two at each table)"))
    parser.add_argument("--rounds", type=_bounded("rounds"), default=4, help=_("rounds played"))
    parser.add_argument("--hands", type=_bounded("hands"), default=2,
                        help=_("hands (boards) in each round, the same at every table"))
    parser.add_argument("--format", choices=FORMATS, default="swiss",
                        help=_("swiss: partnerships paired by score; duplicate: the Mitchell movement"))
    parser.add_argument("--scoring", choices=SCORINGS, default="matchpoints",
                        help=_("matchpoints against the field, or victory points of each table's match"))
    parser.add_argument("--seed", type=argtypes.whole, default=1,
                        help=_("the tournament's number: round secrets, draw and bots derive from it"))
    parser.add_argument("--bots", type=_bots, default=",".join(default_bots()), metavar="BOT,BOT",
                        help=_("the bots entered, in turn: partnership 1 plays the first, 2 the second ..."))
    parser.add_argument("--final", action="store_true",
                        help=_("print the final table too: each partnership's result on each board"))
    parser.add_argument("--json", action="store_true",
                        help=_("print standings, final table and the deals' proof as one JSON object"))
    parser.add_argument("--save", metavar="FILE",
                        help=_("write every table's hands as game records to FILE (.cgn; canasta verify reads it)"))
    parser.add_argument("--force", action="store_true", help=_("with --save: overwrite FILE if it exists"))


def run_tournament(args: argparse.Namespace) -> int:
    rules: RuleSet = args.rules
    if len(rules.teams) != 2 or rules.cutthroat:
        raise CanastaError(_("{rules} has no two sides: a pairs tournament needs a preset such as classic-4p, "
                             "italian-4p or classic-2p").format(rules=rules.name))
    if args.format == "duplicate" and args.rounds > args.pairs // 2:
        raise CanastaError(_("duplicate pairs with {pairs} partnerships plays at most {most} rounds (one per "
                             "table), not {rounds}: fewer rounds, or --format swiss").format(
            pairs=args.pairs, most=args.pairs // 2, rounds=args.rounds))
    for spec in args.bots:
        try:
            check_bot(spec, rules)
        except BotSpecError as exc:
            raise CanastaError(_("--bots: {error}").format(error=exc)) from None
    if args.save:
        check_writable(args.save, _("record file"), args.force)
    try:
        t = Tournament(rules, bot_partnerships(args.pairs, args.bots, len(rules.teams[0])), rounds=args.rounds,
                       hands=args.hands, form=args.format, scoring=args.scoring, seed=args.seed,
                       name=f"canasta tournament --seed {args.seed}")
    except TournamentError as exc:
        raise CanastaError(str(exc)) from None
    show = not args.json and sys.stderr.isatty()

    def progress(r: int, board: int, table: int) -> None:
        if show:
            print("\r" + _("round {r}/{rounds}, board {board}/{hands}, table {table}/{tables}").format(
                r=r, rounds=t.rounds, board=board, hands=t.hands, table=table, tables=t.tables), end="",
                file=sys.stderr, flush=True)

    standings = t.run(progress)
    if show:
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    if args.save:
        write_text_atomic(args.save, t.records_text())
    if args.json:
        print(json.dumps({"rules": rules.name, "format": t.form, "scoring": t.scoring, "rounds": t.rounds,
                          "hands": t.hands, "standings": [row.__dict__ for row in standings],
                          "final": t.final_table(), "proof": t.proof()}))
        return 0
    form = _("Swiss pairs") if t.form == "swiss" else _("Duplicate pairs")
    scoring = _("matchpoints") if t.scoring == "matchpoints" else _("victory points")
    print(_("{format}, {rules}: {pairs}, {rounds}, {hands} a round, scored in {scoring}").format(
        format=form, rules=rules.name, pairs=nplural("{n} partnership", "{n} partnerships", len(t.entrants)),
        rounds=nplural("{n} round", "{n} rounds", t.rounds), hands=nplural("{n} hand", "{n} hands", t.hands),
        scoring=scoring))
    print()
    print(_table(t, standings))
    if any(row.stand_in for row in standings):
        print(_("* a house bot stood in for a player: no place, no prize"))
    if args.final:
        print()
        print(_final(t))
    print()
    for row in t.proof()["rounds"]:
        print(_("round {r}: commitment {commitment}, secret {secret}").format(
            r=row["round"], commitment=row["commitment"], secret=row.get("secret", "-")))
    if args.save:
        print(_("records saved to {file} (check them with canasta verify)").format(file=args.save))
    return 0


def _table(t: Tournament, standings: list[Standing]) -> str:
    rows: list[list[str]] = []
    for s in standings:
        score = f"{s.score:.2f}%" if t.scoring == "matchpoints" else f"{s.score:.2f}"
        rows.append([str(s.place) if s.place is not None else "*", str(s.pair), s.name, score,
                     f"{s.matchpoints}/{s.tops}", f"{s.vp:.2f}", f"{s.net:+d}"])
    head = [_("place"), _("pair"), _("partnership"), _("score"), _("matchpoints"), _("VP"), _("result")]
    return _columns(head, rows, right={0, 1, 3, 4, 5, 6})


def _final(t: Tournament) -> str:
    # TRANSLATORS: the directions at a table: north-south and east-west, as bridge writes them
    directions = {"NS": _("NS"), "EW": _("EW")}
    rows = [[str(r["pair"]), str(r["round"]), str(r["board"]), str(r["table"]), directions[r["direction"]],
             str(r["opponents"]),
             str(r["score"]), f"{r['net']:+d}", "-" if r["matchpoints"] is None else str(r["matchpoints"])
             + ("*" if r["stand_in"] else "")] for r in t.final_table()]
    head = [_("pair"), _("round"), _("board"), _("table"), _("direction"), _("opponents"), _("score"), _("result"),
            _("matchpoints")]
    return _columns(head, rows, right={0, 1, 2, 3, 5, 6, 7, 8})


def _columns(head: list[str], rows: list[list[str]], right: set[int]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(head, *rows, strict=True)]
    lines = []
    for row in [head, *rows]:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


__all__ = ["configure_tournament", "run_tournament"]
