"""Game records: a text format in the spirit of PGN, a lenient parser, and a verifier.

::

    [Event "Arena"]
    [Date "2026.11.30"]
    [Rules "classic-4p"]
    [RulesOptions "C-O1=max3_only target=3000"]
    [Players "0=advanced 1=basic 2=advanced 3=basic"]
    [MatchSeed "17"]
    [FirstDealer "2"]
    [Result "side 0"]

    [Hand "1"]
    [Dealer "2"]
    [Commitment "3f0c..."]
    [Seed "9876543210"]
    3: draw
    3: meld 8H 8S 2C {a comment}
    3: discard 9C
    ...
    [Score "1340 495"]
    [End "went out"]
    [DecisionMs "0.31 2.05 0.27 ..."]

    [Hand "2"]
    ...
    [Final "side 0"]

A game's last line is its ``Final`` tag: the result the replay must reach
(``side N``, ``draw``, or ``*`` for a match the record leaves unfinished: stopped
at a hand limit, or saved between hands).  A game without it is *cut short* (a
stopped run, a truncated file: ``head -n 203``), unless its own content proves it
whole, as for records written before the tag existed: the replay reaches the
match's end, or (a run stopped at its hand limit) the match is unfinished after
as many hands as another unfinished game of the same file and rules that more
games follow; and its last hand carries its ``Score`` and ``End`` and every tag
its first one does.  A file whose
last line has no line end was cut inside that line (``head -c 5000``): the line is
not read, and its game is cut short.  :func:`verify` reports a game cut short with
problems that say ``(cut short)`` (:func:`cut_short`), so that a tally lists it
apart and never counts it as played to its end.

An arena record's hands carry ``DecisionMs``: how long each move's decision
took, in milliseconds, one per move in order (so a tally of the record has the
decision times).  A hand's ``Commitment`` is shown before the hand is played and checked against
what is revealed after it, proving the deal was fixed in advance.  A hand dealt
provably fairly (the card room; :mod:`canasta.engine.fairdeal`, ``docs/fair-deals.md``)
carries ``[Secret "<64 hex>"]`` and ``[ClientSeeds "0=3f9a 1= 2=c0de 3="]``: its
commitment is the SHA-256 of the secret's bytes, and its deck is derived from
secret, client seeds and hand number.  A seeded hand (local games, arena, tests)
carries ``[Seed "N"]`` and its commitment is the SHA-256 of ``canasta-deal:N``
(a 64-bit seed: fine on your own machine, not a defence against a brute-forcing
opponent).  ``canasta verify FILE`` replays a record through the engine and
checks every move, every score, every commitment and every fair deal.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from canasta.engine.errors import CanastaError, IllegalMoveError, NotationError, read_text
from canasta.engine.fairdeal import FairDeal, commitment_of, parse_secret, parse_seeds_text
from canasta.engine.moves import Move
from canasta.engine.rules import PRESETS, RuleSet
from canasta.play.match import Match

#: the tags a hand may carry; any other tag starts a new game's headers.  ``DecisionMs``
#: (arena records): each move's decision time in milliseconds, in move order
HAND_TAGS = ("Dealer", "Commitment", "Seed", "Secret", "ClientSeeds", "Score", "End", "DecisionMs")
#: the tag that closes a game: the result the replay must reach (``*``: the match is unfinished)
FINAL_TAG = "Final"
#: in every problem that says a record stops before its game's end (see :func:`cut_short`)
CUT_SHORT = "(cut short)"
_TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_MOVE = re.compile(r"^(\d+)\s*:\s*([^{;]*?)\s*(?:\{([^}]*)\})?\s*(?:;.*)?$")


def commitment(seed: int) -> str:
    """The public commitment to a hand's seed."""
    return hashlib.sha256(f"canasta-deal:{seed}".encode()).hexdigest()


@dataclass
class RecordedHand:
    """One hand as a record file writes it: its tags and its moves."""

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[tuple[int, Move, str, int]] = field(default_factory=list)  # seat, move, comment, line

    def fair_deal(self, number: int, players: int) -> FairDeal | None:
        """The hand's provably fair deal (from its revealed ``Secret`` and
        ``ClientSeeds``), or None for a seeded hand; a malformed one raises
        :class:`~canasta.engine.fairdeal.FairDealError`."""
        if "Secret" not in self.tags:
            return None
        return FairDeal(parse_secret(self.tags["Secret"]),
                        parse_seeds_text(self.tags.get("ClientSeeds", ""), players), number)

    def proof(self) -> str:
        """What proves the deal, in words: the revealed secret or seed and its commitment."""
        if "Secret" in self.tags:
            return (f"secret {self.tags['Secret']}, client seeds {self.tags.get('ClientSeeds', '')!r}; "
                    f"commitment {self.tags.get('Commitment', '?')}")
        return f"seed {self.tags.get('Seed', '?')}; commitment {self.tags.get('Commitment', '?')}"



@dataclass
class GameRecord:
    headers: dict[str, str] = field(default_factory=dict)
    hands: list[RecordedHand] = field(default_factory=list)
    #: the ``Final`` tag's result, None when the record has none (cut short, or older than the tag)
    final: str | None = None
    #: why the game's text is known to be cut (a last line without its line end), else ""
    cut: str = ""
    #: the games read from the same text, this one included (what proves an older record whole)
    peers: list[GameRecord] = field(default_factory=list, repr=False, compare=False)
    #: once replayed without a problem: (the match is over, hands)
    _outcome: tuple[bool, int] | None = field(default=None, repr=False, compare=False)

    def seated(self) -> dict[int, str]:
        """The player of each seat the ``Players`` tag names (``0=expert 1=advanced ...``); a word
        that is not ``SEAT=NAME`` is passed over."""
        out: dict[int, str] = {}
        for word in self.headers.get("Players", "").split():
            seat, sep, name = word.partition("=")
            if sep and seat.isdigit():
                out[int(seat)] = name
        return out

    def players(self) -> list[str]:
        """The players the ``Players`` tag names, in seat order."""
        seated = self.seated()
        return [seated[seat] for seat in sorted(seated)]

    def rules(self) -> RuleSet:
        name = self.headers.get("Rules", "classic-4p")
        options = parse_options(self.headers.get("RulesOptions", ""))
        return RuleSet.preset(name, options)

    def match(self) -> Match:
        """A new match with the record's rules, seed and first dealer (nothing played)."""
        try:
            first = self.headers.get("FirstDealer")
            return Match(self.rules(), seed=int(self.headers.get("MatchSeed", "0")),
                         first_dealer=int(first) if first is not None else None)
        except (CanastaError, ValueError) as exc:
            raise CanastaError(f"the record's headers are unusable: {exc}") from None

    def to_text(self) -> str:
        lines = [f'[{k} "{_esc(v)}"]' for k, v in self.headers.items()]
        for hand in self.hands:
            lines.append("")
            order = ["Hand", "Dealer", "Commitment", "Seed", "Secret", "ClientSeeds"]
            for key in order:
                if key in hand.tags:
                    lines.append(f'[{key} "{_esc(hand.tags[key])}"]')
            for seat, move, comment, _ in hand.moves:
                lines.append(f"{seat}: {move}" + (f" {{{comment}}}" if comment else ""))
            for key, value in hand.tags.items():
                if key not in order:
                    lines.append(f'[{key} "{_esc(value)}"]')
        if self.final is not None:
            lines += ["", f'[{FINAL_TAG} "{_esc(self.final)}"]']
        return "\n".join(lines) + "\n"


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _unesc(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def options_text(rules: RuleSet) -> str:
    """The settings that differ from the rule set's preset, as ``key=value`` words."""
    base = PRESETS.get(rules.name)
    data = rules.to_dict()
    ref = base.to_dict() if base is not None else RuleSet().to_dict()
    words = []
    for key, value in data.items():
        if key != "name" and ref.get(key) != value:
            words.append(f"{key}={json.dumps(value, separators=(',', ':'))}")
    return " ".join(words)


def parse_options(text: str) -> dict[str, object]:
    out: dict[str, object] = {}
    for word in text.split():
        key, sep, value = word.partition("=")
        if not sep:
            raise NotationError(f"rules option {word!r} must be written key=value")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def parse_records(text: str) -> tuple[list[GameRecord], list[str]]:
    """Read one or more games; lenient: problems are collected as ``line N: ...``
    and the rest is still read.  A last line without its line end is not read
    unless it is a whole tag: the text was cut inside it, and its game is marked
    :attr:`GameRecord.cut`."""
    games: list[GameRecord] = []
    errors: list[str] = []
    game: GameRecord | None = None
    hand: RecordedHand | None = None
    closed = False  # the game has its Final tag: what follows is another game

    def new_game() -> GameRecord:
        nonlocal closed, hand
        games.append(GameRecord())
        closed = False
        hand = None
        return games[-1]

    lines = text.splitlines()
    last_cut = bool(lines) and not text.endswith(("\n", "\r"))
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if last_cut and n == len(lines) and line and not _TAG.match(line):
            note = f"line {n}: the file ends inside this line {CUT_SHORT}: {line[:60]!r}"
            errors.append(note)
            if game is not None:  # a cut just after a game's Final tag cuts the next game's first line
                (new_game() if closed else game).cut = note
            break
        if not line or line.startswith(";"):
            continue
        tag = _TAG.match(line)
        if tag:
            key, value = tag.group(1), _unesc(tag.group(2))
            if key == FINAL_TAG:
                if game is None or closed:
                    errors.append(f"line {n}: a [{FINAL_TAG}] tag closes a game, and no game is open here")
                    continue
                game.final = value
                closed = True
                hand = None
            elif key == "Hand":
                if game is None or closed:
                    game = new_game()
                hand = RecordedHand({"Hand": value})
                game.hands.append(hand)
            elif hand is not None and key in HAND_TAGS:
                hand.tags[key] = value
            else:
                if game is None or game.hands or closed:
                    game = new_game()
                game.headers[key] = value
            continue
        if line.startswith("["):
            errors.append(f"line {n}: a tag is written [Name \"value\"]: {line[:60]}")
            continue
        mv = _MOVE.match(line)
        if not mv:
            errors.append(f"line {n}: expected a tag or 'SEAT: move', got {line[:60]!r}")
            continue
        if hand is None:
            errors.append(f"line {n}: a move before any [Hand \"...\"] tag")
            continue
        try:
            move = Move.parse(mv.group(2))
        except NotationError as exc:
            errors.append(f"line {n}: {exc}")
            continue
        hand.moves.append((int(mv.group(1)), move, (mv.group(3) or "").strip(), n))
    for g in games:
        g.peers = games
    return games, errors


def cut_short(problems: Sequence[str]) -> bool:
    """Do these problems (of :func:`verify`) say only that the record stops before its
    game's end (a stopped run, a truncated file), and nothing else is wrong?"""
    return bool(problems) and all(CUT_SHORT in p for p in problems)


def verify(game: GameRecord) -> list[str]:
    """Replay a record through the engine; returns the problems (empty if none).  A
    record that stops before its game's end (no ``Final`` tag, and nothing in it proves
    it whole) has problems that say ``(cut short)``: see :func:`cut_short`."""
    problems, match = _replay(game)
    if match is None:
        return problems
    if game.cut:
        problems.append(game.cut)
    want = result_text(match)
    if game.final is not None:
        if game.final != want:
            problems.append(f"result: the [{FINAL_TAG}] tag says {game.final!r}, the replay ends {want!r}")
    elif not problems:
        problems.extend(_unproved(game, match.over))
    result = game.headers.get("Result")
    if result is not None and (match.over or game.final is not None) and result != want:
        problems.append(f"result: recorded {result!r}, the engine says {want!r}")
    return problems


def _replay(game: GameRecord) -> tuple[list[str], Match | None]:
    """Every move, score and deal of the record checked; the match as the record
    leaves it (None when the headers are unusable)."""
    problems: list[str] = []
    try:
        match = game.match()
    except CanastaError as exc:
        return [f"headers: {exc}"], None
    for number, hand in enumerate(game.hands, start=1):
        label = f"hand {hand.tags.get('Hand', '?')}"
        try:
            fair = hand.fair_deal(number, match.rules.players)
        except CanastaError as exc:
            problems.append(f"{label}: {exc}")
            return problems, match
        if fair is not None:  # a provably fair deal
            if hand.tags.get("Commitment") != commitment_of(fair.secret):
                problems.append(f"{label}: the commitment shown before the deal is not the SHA-256 of the "
                                "revealed secret")
            g = match.next_hand(fair)
        else:
            g = match.next_hand()
            if "Seed" in hand.tags and hand.tags["Seed"] != str(g.seed):
                problems.append(f"{label}: the seed {hand.tags['Seed']} is not the match's seed for this hand")
            if "Commitment" in hand.tags and hand.tags["Commitment"] != commitment(g.seed):
                problems.append(f"{label}: the commitment does not match the revealed seed")
        if "Dealer" in hand.tags and hand.tags["Dealer"] != str(g.dealer):
            problems.append(f"{label}: the dealer should be seat {g.dealer}")
        for seat, move, _, line in hand.moves:
            if g.is_over():
                problems.append(f"line {line}: a move after the hand ended")
                break
            if seat != g.to_move:
                problems.append(f"line {line}: seat {seat} moved, but it was seat {g.to_move}'s move")
                break
            try:
                g.play(move)  # checked, and no undo kept: a replay never takes a move back
            except IllegalMoveError as exc:
                problems.append(f"line {line}: illegal move {move}: {exc}")
                break
        if not g.is_over():
            problems.append(f"{label}: the record stops before the hand is over {CUT_SHORT}")
            return problems, match
        rec = match.record_hand()
        if "Score" in hand.tags:
            want = " ".join(str(s.total) for s in rec.scores)
            if hand.tags["Score"] != want:
                problems.append(f"{label}: recorded score {hand.tags['Score']!r}, the engine scores {want!r}")
    if not problems:
        game._outcome = (match.over, len(game.hands))
    return problems, match


def outcome(game: GameRecord) -> tuple[bool, int] | None:
    """(the match is over, hands) of a game that replays without a problem, else None."""
    if game._outcome is None:
        _replay(game)
    return game._outcome


def _unproved(game: GameRecord, over: bool) -> list[str]:
    """Why a record without a ``Final`` tag is not provably whole (empty when it is)."""
    if not game.hands:
        return [f"the record stops before its first hand {CUT_SHORT}"]
    if not over and not _at_hand_limit(game):
        return [f"the record stops after {len(game.hands)} hands, before the match is over, and has no "
                f"[{FINAL_TAG}] tag {CUT_SHORT}"]
    last = game.hands[-1]
    missing = [key for key in ("Score", "End", *game.hands[0].tags) if key not in last.tags]
    if missing:
        return [f"hand {last.tags.get('Hand', '?')}: the record stops before its [{missing[0]}] tag, and has no "
                f"[{FINAL_TAG}] tag {CUT_SHORT}"]
    return []


def _at_hand_limit(game: GameRecord) -> bool:
    """An unfinished match stopped by its run's hand limit: another game of the same text,
    rules and hand count, with more games after it (so its own text is whole), is
    unfinished too: the run stopped its matches after that many hands."""
    rules = (game.headers.get("Rules"), game.headers.get("RulesOptions"))
    for peer in game.peers[:-1]:
        if (peer is game or peer.final is not None or peer.cut or len(peer.hands) != len(game.hands)
                or (peer.headers.get("Rules"), peer.headers.get("RulesOptions")) != rules):
            continue
        if outcome(peer) == (False, len(game.hands)):
            return True
    return False


def result_text(match: Match) -> str:
    if not match.over:
        return "*"
    return "draw" if match.winner == -1 else f"side {match.winner}"


def players_tag(players: Iterable[str]) -> str:
    """The ``Players`` tag of the players in seat order (a space in a name becomes ``_``)."""
    return " ".join(f"{i}={p.replace(' ', '_')}" for i, p in enumerate(players))


def record_from_match(match: Match, hands_moves: Iterable[list[tuple[int, Move]]], event: str,
                      players: list[str], date: str) -> GameRecord:
    """A record of a played match (its hands in order, with their moves)."""
    rules = match.rules
    headers = {"Event": event, "Date": date, "Rules": rules.name}
    opts = options_text(rules)
    if opts:
        headers["RulesOptions"] = opts
    headers["Players"] = players_tag(players)
    headers["MatchSeed"] = str(match.seed)
    headers["FirstDealer"] = str(match.first_dealer)
    headers["Result"] = result_text(match)
    rec = GameRecord(headers, final=result_text(match))
    for hr, moves in zip(match.hands, hands_moves, strict=False):
        if hr.fair is not None:
            hand = RecordedHand({"Hand": str(hr.hand_number), "Dealer": str(hr.dealer),
                               "Commitment": hr.fair.commitment, "Secret": hr.fair.secret.hex(),
                               "ClientSeeds": hr.fair.seeds_text()})
        else:
            hand = RecordedHand({"Hand": str(hr.hand_number), "Dealer": str(hr.dealer),
                               "Commitment": commitment(hr.seed), "Seed": str(hr.seed)})
        hand.moves = [(seat, move, "", 0) for seat, move in moves]
        hand.tags["Score"] = " ".join(str(s.total) for s in hr.scores)
        hand.tags["End"] = hr.end_reason
        rec.hands.append(hand)
    return rec


def read_file(path: str | Path) -> tuple[list[GameRecord], list[str]]:
    """The games of a record file, plain or gzip-compressed (a name ending in
    ``.gz``, such as the measured runs in ``docs/strength/``), and the
    problems met while reading it (line numbers of the text)."""
    if Path(path).suffix != ".gz":
        return parse_records(read_text(path, "game record"))
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            return parse_records(f.read())
    except FileNotFoundError as exc:
        raise CanastaError(f"cannot read the game record {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        reason = "it is not UTF-8 text"
    except (OSError, EOFError) as exc:  # not gzip data (gzip.BadGzipFile), unreadable, or cut short
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    raise CanastaError(f"{str(path)!r} is not a gzip-compressed game record: {reason}")
