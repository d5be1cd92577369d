"""The ``review`` command's arguments and entry point (see docs/review.md)."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from canasta import argtypes
from canasta.engine.errors import CanastaError
from canasta.i18n import _
from canasta.play.record import GameRecord
from canasta.review import (
    DEFAULT_WORLDS,
    FORMAT,
    MARK_NAMES,
    MARK_SYMBOLS,
    MARKS,
    NOISE_Z,
    DecisionReview,
    Review,
    ReviewError,
    review_record,
    thresholds_of,
)


def _budget(text: str) -> int:
    """``expert:iN``: sampled worlds per decision (a budget in seconds would make the review
    depend on the machine's load, so it is refused)."""
    name, sep, arg = text.partition(":")
    if name.lower() == "expert" and sep and arg[:1].lower() == "i" and arg[1:].isdigit() and int(arg[1:]) >= 2:
        return int(arg[1:])
    raise argparse.ArgumentTypeError(_("a review budget is expert:iN, N sampled worlds a decision from 2 "
                                       "(not {text!r})").format(text=text))


def configure_review(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help=_("a record file (.cgn, or .cgn.gz)"))
    parser.add_argument("--game", type=argtypes.positive, default=1, help=_("which game of the file (default 1)"))
    parser.add_argument("--hand", type=argtypes.positive, help=_("only this hand of the game (default: every hand)"))
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--seat", type=argtypes.whole, help=_("the seat to review (default 0)"))
    who.add_argument("--all", action="store_true", help=_("review every seat"))
    parser.add_argument("--budget", type=_budget, default=DEFAULT_WORLDS, metavar="expert:iN",
                        help=_("sampled worlds per decision (default expert:i{n})").format(n=DEFAULT_WORLDS))
    parser.add_argument("--seed", type=argtypes.whole, default=1, help=_("the sampling seed (default 1)"))
    parser.add_argument("--jobs", type=argtypes.processes, default=1,
                        help=_("processes at once (the review does not depend on it)"))
    parser.add_argument("--json", action="store_true", help=_("print the review as one JSON line"))
    parser.add_argument("--force", action="store_true",
                        help=_("review again and replace a stored review with other settings"))
    parser.set_defaults(handler=run_review)


def sidecar_path(record: str | Path) -> Path:
    """Where a record's reviews are kept: ``GAME.cgn`` (or ``GAME.cgn.gz``) -> ``GAME.review.json``."""
    path = Path(record)
    name = path.name
    for suffix in (".gz", ".cgn"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return path.with_name(name + ".review.json")


def _read_sidecar(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReviewError(_("{file} is not a stored review: {error}").format(file=repr(str(path)), error=exc)) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("reviews"), list):
        raise ReviewError(_("{file} is not a stored review (expected format {format})").format(
            file=repr(str(path)), format=FORMAT))
    return list(data["reviews"])


def _keyed(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: entry.get(k) for k in ("game", "seats", "hand", "worlds", "seed", "record", "thresholds", "noise_z")}


def load_review(record: str | Path, key: dict[str, Any]) -> Review | None:
    """A stored review of the record with these settings (``Review.key()``), else None; a stored
    review of more seats or of every hand, with the same budget, seed and record, gives the part
    asked for."""
    # a review marked with other thresholds (an earlier calibration) is computed again: they are of its key
    entries = _read_sidecar(sidecar_path(record))
    for entry in entries:
        if _keyed(entry) == key:
            return Review.from_dict(entry)
    for entry in entries:
        same = all(entry.get(k) == key[k] for k in ("game", "worlds", "seed", "record", "thresholds", "noise_z"))
        if same and set(key["seats"]) <= set(entry.get("seats", [])) and entry.get("hand") in (None, key["hand"]):
            whole = Review.from_dict(entry)
            seats = tuple(key["seats"])
            return Review(whole.game, seats, key["hand"], whole.worlds, whole.seed, whole.players,
                          [d for d in whole.decisions if d.seat in seats and key["hand"] in (None, d.hand)],
                          whole.record_digest, whole.thresholds)
    return None


def record_digest(record: GameRecord) -> str:
    """What a stored review names its game by: a digest of the game's record text."""
    return hashlib.sha256(record.to_text().encode()).hexdigest()[:16]


def stored_decisions(path: str | Path, record: GameRecord, game: int) -> dict[tuple[int, int], DecisionReview]:
    """Every decision of ``game`` a stored review beside the file ``path`` holds, by (hand, the move's
    index in the hand), whatever the settings it was made with (a finer review first: more worlds);
    nothing when the record changed since.  For the terminal replay's marks."""
    digest = record_digest(record)
    entries = [e for e in _read_sidecar(sidecar_path(path)) if e.get("game") == game and e.get("record") == digest]
    out: dict[tuple[int, int], DecisionReview] = {}
    for entry in sorted(entries, key=lambda e: -int(e.get("worlds") or 0)):
        for d in Review.from_dict(entry).decisions:
            out.setdefault((d.hand, d.index), d)
    return out


def store_review(record: str | Path, review: Review, force: bool) -> Path:
    """Keep the review beside the record, written whole; another review of the same game
    with other settings is replaced only with ``force``."""
    from canasta.engine.files import write_text_atomic

    path = sidecar_path(record)
    entries = _read_sidecar(path)
    key = review.key()
    clash = [e for e in entries if e.get("game") == review.game and _keyed(e) != key]
    if clash and not force:
        raise ReviewError(_("{file} keeps a review of game {n} with other settings: add --force to replace "
                            "it").format(file=repr(str(path)), n=review.game))
    entries = [e for e in entries if e.get("game") != review.game]
    entries.append(review.to_dict())
    entries.sort(key=lambda e: int(e.get("game", 0)))
    write_text_atomic(path, json.dumps({"format": FORMAT, "reviews": entries}, indent=1) + "\n")
    return path


def _progress(total_hint: str) -> Any:
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=0, unit=" " + _("decisions"), file=sys.stderr, disable=None, leave=False, desc=total_hint)


def run_review(args: argparse.Namespace) -> int:
    from canasta.play.record import read_file

    games, _errors = read_file(args.file)
    if not 1 <= args.game <= len(games):
        raise ReviewError(_("{file} has {count} games: there is no game {n}").format(
            file=args.file, count=len(games), n=args.game))
    record = games[args.game - 1]
    players = record.rules().players
    if args.seat is not None and not 0 <= args.seat < players:
        raise CanastaError(_("--seat must be from 0 to {last}").format(last=players - 1))
    seats = tuple(range(players)) if args.all else (args.seat if args.seat is not None else 0,)
    digest = record_digest(record)
    key = {"game": args.game, "seats": list(seats), "hand": args.hand, "worlds": args.budget, "seed": args.seed,
           "record": digest, "thresholds": dict(thresholds_of(record.rules())), "noise_z": NOISE_Z}
    review = None if args.force else load_review(args.file, key)
    stored = review is not None
    if review is None:
        bar = _progress(_("review"))

        def progress(done: int, total: int) -> None:
            if bar is not None:
                bar.total = total
                bar.update(done - bar.n)

        label = _("{file}, game {n}").format(file=args.file, n=args.game)
        try:
            review = review_record(record, args.game, seats, args.hand, args.budget, args.seed, args.jobs, progress,
                                   label)
        finally:
            if bar is not None:
                bar.close()
        review.record_digest = digest
        path = store_review(args.file, review, args.force)
    else:
        path = sidecar_path(args.file)
    if args.json:
        print(json.dumps({**review.to_dict(), "stored": str(path), "reused": stored}, separators=(",", ":")))
        return 0
    print(render(review))
    print(_("kept in {file}").format(file=path) if not stored else
          _("read from {file} (not computed again; --force reviews again)").format(file=path))
    return 0


def render(review: Review) -> str:
    """The review as text: every decision, then a summary per player."""
    lines = [_("game {n}, {worlds} worlds a decision, seed {seed}; values are the expert's, in points for the "
               "seat's side, ± one standard error of the loss").format(n=review.game, worlds=review.worlds,
                                                                      seed=review.seed)]
    for d in review.decisions:
        mark = MARK_SYMBOLS.get(d.mark, "")
        line = _("hand {hand} move {index} seat {seat}: {move}{mark}  {value:+.0f}").format(
            hand=d.hand, index=d.index + 1, seat=d.seat, move=d.move, mark=mark, value=d.value)
        if d.best:
            line += "  " + _("best other: {best} {value:+.0f}, lost {loss:.0f} ± {se:.0f}").format(
                best=d.best, value=d.best_value, loss=d.loss, se=d.stderr)
        if d.mark:
            line += "  [" + _(MARK_NAMES[d.mark]) + "]"
        lines.append(line)
    lines.append("")
    for s in review.summary():
        marks = ", ".join(f"{_(MARK_NAMES[m])}: {s.marks[m]}" for m in MARKS)
        lines.append(_("seat {seat} ({player}): {decisions} decisions, {lost:.1f} points lost a decision; "
                       "{marks}").format(seat=s.seat, player=s.player, decisions=s.decisions,
                                         lost=s.lost_per_decision, marks=marks))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m canasta.review FILE ...``: the command without the rest of the command line."""
    parser = argparse.ArgumentParser(prog="canasta review")
    configure_review(parser)
    args = parser.parse_args(argv)
    try:
        return run_review(args)
    except CanastaError as exc:
        print(_("canasta: error: {message}").format(message=" ".join(str(exc).split())), file=sys.stderr)
        return 2
