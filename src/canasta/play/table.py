"""A table: people and bots playing a match, the way every interface runs one.

The terminal app, the web server and the tests all drive a :class:`Table`;
none of them touches the engine's state directly.  A table knows who sits
where (a person, or a bot with its level), keeps every move of every hand,
lets a person undo melds within their turn, gives hints, and is saved as
rules + seeds + moves, so loading it replays the match exactly::

    table = Table(RuleSet.preset("classic-4p"), seats=[None, "basic", "basic", "basic"], seed=7)
    while table.game.to_move != 0:
        table.play_bot()                  # one bot move at a time, at the caller's pace
    view = table.view(0)                  # what seat 0 may know, nothing more
    table.play(0, "draw")                 # an illegal move raises IllegalMoveError, changing nothing

Only :meth:`view` and :meth:`spectator_view` hand out the table's state, and
both are copied out of the game by :mod:`canasta.views.seat`.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from canasta.bots import Bot, BotLike, as_bot, bot_label, make_bot
from canasta.engine.errors import CanastaError, IllegalMoveError, NotationError, read_text
from canasta.engine.fairdeal import FairDeal
from canasta.engine.files import write_text_atomic
from canasta.engine.game import Game
from canasta.engine.moves import DRAW, MELD, OPEN, TAKE, Move
from canasta.engine.rules import RuleSet
from canasta.engine.state import ASK_NONE
from canasta.play.match import Match
from canasta.play.record import GameRecord, commitment, record_from_match
from canasta.views.seat import SeatView, seat_view, spectator_view

SAVE_FORMAT = "canasta-table/1"
COMPASS = {2: ("South", "North"), 3: ("South", "West", "East"),
           4: ("South", "West", "North", "East"),
           5: ("South", "South-west", "North-west", "North-east", "South-east"),
           6: ("South", "South-west", "North-west", "North", "North-east", "South-east")}


class TableError(CanastaError):
    """A request the table refuses (not your turn, nothing to undo, a bad save file ...).
    ``code`` names the refusal for a program (``NOT_YOUR_TURN``, ``HAND_OVER``, ``WAITING``;
    ``REFUSED`` for the others) and ``fields`` its details, so that an interface says it
    in its reader's language from the code, not from the English text."""

    def __init__(self, message: str, code: str = "REFUSED", **fields: str) -> None:
        super().__init__(message)
        self.code = code
        self.fields = fields


#: the refusals of a move out of turn, by code: the one wording every interface starts from
TURN_REFUSALS: dict[str, str] = {
    "WAITING": "the first hand has not been dealt yet",
    "HAND_OVER": "the hand is over: deal the next hand first",
    "NOT_YOUR_TURN": "it is {name}'s move, not yours",
}


def seat_names(players: int) -> tuple[str, ...]:
    """Compass names, seat 0 at the bottom and play going round to its left."""
    return COMPASS.get(players, tuple(f"Seat {i}" for i in range(players)))


@dataclass(frozen=True)
class Turn:
    """A decision to make at the table: ``seat``'s, at table :attr:`Table.version` ``version``.
    Whoever decides it (a bot in a thread, a worker process, a person's stand-in) plays the
    answer only while the table is still there: :meth:`Table.still`."""

    seat: int
    version: int


@dataclass(frozen=True)
class LogEntry:
    """One move of the current hand, as a log lists it; an interface says it in words with
    :func:`canasta.present.describe` (``describe(entry.move, table.rules, table.names[entry.seat])``)."""

    hand: int
    seat: int
    move: Move
    number: int = 0  # the move's number in its hand, from 1 (stable while the hand is played)


class Table:
    """A match at one table.  ``seats[i]`` is ``None`` for a person, a bot spec
    (``"basic"``, ``"expert:0.5"``, ``"cmd:python my_bot.py"`` ...), or a Python bot:
    a :class:`~canasta.bots.Bot` object (played as it is, and never closed by the
    table) or a ``Bot`` subclass (made with the seat's seed).  :attr:`seats` keeps
    each seat's label: the spec, or ``python:NAME`` for a Python bot."""

    def __init__(self, rules: RuleSet | str, seats: Sequence[BotLike | None], seed: int = 0, *,
                 names: Sequence[str] | None = None, first_dealer: int | None = None,
                 hint_level: str = "advanced", event: str = "Table", date: str | None = None,
                 fair: bool = False, deal: bool = True) -> None:
        """``fair``: deal every hand provably fairly (:mod:`canasta.engine.fairdeal`: a
        committed secret per hand and the players' client seeds; ``seed`` then
        chooses only the first dealer and the bots' own randomness).  ``deal=False``:
        wait for :meth:`next_hand` to deal the first hand (so client seeds can be
        collected after the first commitment is shown).  ``rules`` is a
        :class:`RuleSet` or a preset name."""
        if isinstance(rules, str):
            rules = RuleSet.preset(rules)
        if len(seats) != rules.players:
            raise TableError(f"{rules.name} is played by {rules.players} players, not {len(seats)}")
        self.rules = rules
        players = [None if s is None or (isinstance(s, str) and not s.strip()) else s for s in seats]
        #: each seat's label: None for a person, the bot spec, or ``python:NAME`` for a Python bot
        self.seats: list[str | None] = [None if s is None else bot_label(s) for s in players]
        self.names = list(names) if names is not None else list(seat_names(rules.players))
        if len(self.names) != rules.players:
            raise TableError(f"give {rules.players} names, not {len(self.names)}")
        self.seed = seed
        self.hint_level = hint_level
        #: whether the person's interface shows hints (saved with the game, so a resume keeps it)
        self.hints_shown = False
        self.event = event
        self.date = date or datetime.date.today().strftime("%Y.%m.%d")
        self.match = Match(rules, seed=seed, first_dealer=first_dealer)
        self.moves: list[list[tuple[int, Move]]] = []
        self.version = 0  # bumped on every change; clients resynchronise from it
        self.fair = fair
        self.deals: list[FairDeal] = []  # the fair deal of each hand dealt
        self.pending: FairDeal | None = FairDeal.new(1, rules.players) if fair else None  # the next hand's
        self._bots: dict[int, Bot] = {}
        self._own_bots: list[Bot] = []  # the bots the table made, and so closes
        for s, player in enumerate(players):
            if player is not None:
                bot, made = as_bot(player, seed=self._bot_seed(s))
                self._bots[s] = bot
                if made:
                    self._own_bots.append(bot)
        if deal:
            self._deal()

    # ------------------------------------------------------------------ state

    @property
    def game(self) -> Game:
        """The hand being played (TableError before the first deal).  Interfaces ask the
        table instead (:meth:`view`, :attr:`to_move` ...): only tests and tools read it."""
        if self.match.game is None:
            raise TableError("no hand has been dealt yet")
        return self.match.game

    @property
    def dealt(self) -> bool:
        """Has the first hand been dealt?"""
        return self.match.game is not None

    @property
    def hand_number(self) -> int:
        """The current hand's number, from 1 (0 before the first deal)."""
        return self.game.hand_number if self.dealt else 0

    @property
    def hand_over(self) -> bool:
        """Whether the current hand is over (its score is recorded)."""
        return self.dealt and self.game.is_over()

    @property
    def match_over(self) -> bool:
        """Whether the match is over (a side reached the target)."""
        return self.match.over

    # -- what an interface asks of the hand (so that none reads ``table.game``) ------

    @property
    def to_move(self) -> int:
        """The seat whose move it is (-1 before the first deal)."""
        return self.game.to_move if self.dealt else -1

    @property
    def turn_number(self) -> int:
        """How many turns of this hand have begun (0 before the first deal)."""
        return self.game.turn_no if self.dealt else 0

    def minimum(self, seat: int) -> int | None:
        """The initial-meld minimum of ``seat``'s side now (None before the first deal)."""
        return self.game.minimum(seat) if self.dealt else None

    def side_of(self, seat: int) -> int:
        """The side ``seat`` plays for in the hand now (its partners' and its own)."""
        return self.game.side_of[seat]

    def is_bot(self, seat: int) -> bool:
        """Whether a bot plays ``seat`` (a spec or a Python bot)."""
        return self.seats[seat] is not None

    def rename(self, seat: int, name: str) -> None:
        """Give ``seat`` a new name (a guest sitting down, a person at the terminal)."""
        self._check_seat(seat)
        name = " ".join(str(name).split())
        if not name:
            raise TableError("a name cannot be empty")
        self.names[seat] = name[:40]

    def bot_to_move(self) -> bool:
        """Is it a bot's move (in a hand still being played)?"""
        return self.dealt and not self.hand_over and self.is_bot(self.game.to_move)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know: the only way a player's client sees the table."""
        self._check_seat(seat)
        return seat_view(self.game, seat)

    def spectator_view(self) -> SeatView:
        """What anyone watching may know (no hand is shown)."""
        return spectator_view(self.game)

    def commitment(self) -> str:
        """The current hand's deal commitment, shown before the hand is played
        ("" before the first deal)."""
        if not self.dealt:
            return ""
        if self.fair:
            return self.deals[-1].commitment
        return commitment(self.game.seed)

    def next_commitment(self) -> str | None:
        """A fair table's commitment to the next hand's secret, published before
        that hand is dealt (so client seeds can be sent for it); None otherwise."""
        if self.pending is None or self.match_over:
            return None
        return self.pending.commitment

    def client_seeds(self) -> tuple[str, ...]:
        """The client seeds received so far for the next fair deal ("" for none)."""
        return self.pending.client_seeds if self.pending is not None else ()

    def set_client_seed(self, seat: int, seed: str) -> None:
        """``seat``'s client seed for the next fair deal (up to 64 of ``A-Z a-z 0-9 _ -``);
        it counts if it arrives before that hand is dealt."""
        self._check_seat(seat)
        if self.pending is None:
            raise TableError("this table deals from a seed: it takes no client seeds")
        if self.match_over:
            raise TableError("the match is over: there is no next deal")
        self.pending = self.pending.with_client_seed(seat, seed)
        self.version += 1

    def revealed(self) -> list[dict[str, Any]]:
        """What proves each finished hand's deal: its commitment and, revealed now
        that the hand is over, its secret and client seeds (or, for a seeded deal, its seed)."""
        out: list[dict[str, Any]] = []
        for h in self.match.hands:
            if h.fair is not None:
                out.append({"hand": h.hand_number, "commitment": h.fair.commitment, "secret": h.fair.secret.hex(),
                            "client_seeds": list(h.fair.client_seeds)})
            else:
                out.append({"hand": h.hand_number, "commitment": commitment(h.seed), "seed": h.seed})
        return out

    def log(self, last: int | None = None) -> list[LogEntry]:
        """The moves of the current hand, oldest first (:class:`LogEntry`)."""
        if not self.moves:
            return []
        moves = self.moves[-1]
        start = 0 if last is None else max(0, len(moves) - last)
        return [LogEntry(self.hand_number, seat, mv, n)
                for n, (seat, mv) in enumerate(moves[start:], start=start + 1)]

    def last_moves(self) -> dict[int, LogEntry]:
        """Each seat's last move of the current hand (a seat that has not moved is missing)."""
        return {e.seat: e for e in self.log()}

    # ----------------------------------------------------------------- playing

    def turn_refusal(self, seat: int) -> TableError | None:
        """Why ``seat`` may not move at all now (no hand dealt, the hand over, another seat's
        turn: :data:`TURN_REFUSALS`), or None: the one answer every interface gives."""
        if not self.dealt:
            return TableError(TURN_REFUSALS["WAITING"], "WAITING")
        if self.hand_over:
            return TableError(TURN_REFUSALS["HAND_OVER"], "HAND_OVER")
        if seat != self.game.to_move:
            name = self.names[self.game.to_move]
            return TableError(TURN_REFUSALS["NOT_YOUR_TURN"].format(name=name), "NOT_YOUR_TURN", name=name)
        return None

    def why_not(self, seat: int, move: Move | str) -> CanastaError | None:
        """Why ``seat`` may not play ``move`` now (the rule it breaks), or None if it may.
        Clients call this to explain a move before it is committed."""
        try:
            self._check_seat(seat)
            turn = self.turn_refusal(seat)
            if turn is not None:
                return turn
            if isinstance(move, str):
                move = Move.parse(move)
        except NotationError as exc:
            return TableError(str(exc))
        except TableError as exc:
            return exc
        return self.game.why_illegal(move)

    def play(self, seat: int, move: Move | str) -> Move:
        """Play ``move`` for ``seat``.  Refused with a reason, changing nothing, when
        it is not that seat's move or the move is illegal (the rule is named)."""
        self._check_seat(seat)
        turn = self.turn_refusal(seat)
        if turn is not None:
            raise turn
        g = self.game
        if isinstance(move, str):
            try:
                move = Move.parse(move)
            except NotationError as exc:
                raise TableError(str(exc)) from None
        g.push(move)  # validated: an illegal move raises IllegalMoveError, changing nothing
        self.moves[-1].append((seat, move))
        if g.is_over():
            self.match.record_hand()
            for bot in {id(b): b for b in self._bots.values()}.values():  # once per bot, however many seats
                hook = getattr(bot, "hand_over", None)
                if callable(hook):
                    hook([s.total for s in g.result or []])
        self.version += 1
        return move

    def turn(self) -> Turn | None:
        """The decision the table waits for now (None: no hand is being played)."""
        if not self.dealt or self.hand_over:
            return None
        return Turn(self.game.to_move, self.version)

    def still(self, turn: Turn) -> bool:
        """Whether ``turn`` is still the decision to make: nothing was played or taken back
        since (the version guard every bot loop needs before it plays its answer)."""
        return self.version == turn.version and self.dealt and not self.hand_over and self.game.to_move == turn.seat

    def play_turn(self, turn: Turn, move: Move | str) -> bool:
        """Play ``move`` for ``turn`` if it is :meth:`still` the decision to make; False if the
        table moved on meanwhile (the answer is dropped, nothing changes)."""
        if not self.still(turn):
            return False
        self.play(turn.seat, move)
        return True

    def bot_move(self, stand_in: Bot | None = None) -> Move:
        """The move the bot to move would play (not played yet; may take a while).
        ``stand_in`` plays instead for a person's seat (a player who dropped out).
        Nothing may change the table while this runs."""
        if not self.dealt or self.hand_over:
            raise TableError("the hand is over")
        seat = self.game.to_move
        bot = stand_in if stand_in is not None else self._bots.get(seat)
        if bot is None:
            raise TableError("it is not a bot's move")
        move = bot.choose(seat_view(self.game, seat))
        if self.game.why_illegal(move) is not None:  # a misbehaving external bot: documented fallback
            move = next(iter(self.game.legal_moves))
        return move

    def play_bot(self) -> tuple[int, Move]:
        """Let the bot to move play one move."""
        seat = self.game.to_move
        return seat, self.play(seat, self.bot_move())

    def play_bots(self) -> list[tuple[int, Move]]:
        """Let bots play until a person is to move or the hand is over."""
        done = []
        while self.bot_to_move():
            done.append(self.play_bot())
        return done

    def hint(self, seat: int) -> Move:
        """What the hint bot would play for ``seat`` (it sees only that seat's view)."""
        self._check_seat(seat)
        if not self.dealt or self.hand_over or self.game.to_move != seat:
            raise TableError("a hint is given only when it is your move")
        bot = make_bot(self.hint_level, seed=self._bot_seed(seat) ^ len(self.moves[-1]))
        try:
            return bot.choose(seat_view(self.game, seat))
        finally:
            bot.close()

    def undoable(self, seat: int) -> int:
        """How many of ``seat``'s moves can be taken back: the melds laid since it
        drew or took the pile in this turn (drawing, taking, asking and discarding
        reveal or commit something and are never taken back)."""
        if not self.dealt or self.hand_over or self.game.to_move != seat:
            return 0
        g = self.game
        moves = self.moves[-1]
        n = 0
        for s, mv in reversed(moves):
            if s != seat or mv.kind != MELD:
                break
            n += 1
        # the melds must belong to this turn: the move before them is this seat's draw/take
        i = len(moves) - n - 1
        if n and (i < 0 or moves[i][0] != seat or moves[i][1].kind not in (DRAW, TAKE, OPEN)):
            return 0
        if g.ask != ASK_NONE:  # a question to the partner is pending or answered: melds stand
            return 0
        return n

    def undo(self, seat: int) -> Move:
        """Take back ``seat``'s last meld of this turn."""
        self._check_seat(seat)
        if not self.undoable(seat):
            raise TableError("nothing to undo: only melds laid in this turn, before the discard, can be taken back")
        self.game.pop()
        _, move = self.moves[-1].pop()
        self.version += 1
        return move

    def next_hand(self) -> Game:
        """Deal the next hand once this one is over (or the first, if it waits)."""
        if self.dealt and not self.hand_over:
            raise TableError("the hand is still being played")
        if self.match_over:
            raise TableError("the match is over")
        self._deal()
        self.version += 1
        return self.game

    def close(self) -> None:
        """Close the bots the table made (not the bot objects it was given)."""
        for bot in self._own_bots:
            bot.close()

    # ------------------------------------------------------------ save / load

    def record(self) -> GameRecord:
        """The finished hands in the record format (:mod:`canasta.play.record`)."""
        players = [spec if spec is not None else f"human:{self.names[s]}" for s, spec in enumerate(self.seats)]
        finished = self.moves[: len(self.match.hands)]
        return record_from_match(self.match, finished, self.event, players, self.date)

    def to_dict(self) -> dict[str, Any]:
        """The table as JSON-ready data: rules, seats, seeds and every move (:meth:`from_dict` replays it)."""
        return {
            "format": SAVE_FORMAT,
            "rules": self.rules.to_dict(),
            "seats": self.seats,
            "names": self.names,
            "seed": self.seed,
            "first_dealer": self.match.first_dealer,
            "hint_level": self.hint_level,
            **({"hints_shown": True} if self.hints_shown else {}),
            "event": self.event,
            "date": self.date,
            "hands": [[f"{seat}: {mv}" for seat, mv in hand] for hand in self.moves],
            **({"fair": {"deals": [d.to_dict() for d in self.deals],
                         "pending": self.pending.to_dict() if self.pending is not None else None}}
               if self.fair else {}),
        }

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_dict` to ``path`` as JSON (:meth:`load` reads it), whole or not at
        all: an interrupted save leaves the earlier file as it was."""
        write_text_atomic(path, json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, bots: Mapping[int, BotLike] | None = None) -> Table:
        """Rebuild a table by replaying its moves; anything malformed is refused
        with a message (and no half-built table).  ``bots`` seats Python bots again
        (a saved ``python:NAME`` seat cannot be built from its name)."""
        steps = cls.replay(data, bots=bots)
        table, _, _ = next(steps)  # dealt
        for _ in steps:
            pass
        return table

    @classmethod
    def replay(cls, data: Mapping[str, Any], *, bots: Mapping[int, BotLike] | None = None
               ) -> Iterator[tuple[Table, int, Move | None]]:
        """Replay a saved table step by step: ``(table, seat, move)`` after each
        move, and ``(table, -1, None)`` after each deal.  The same table object is
        yielded each time, advanced in place.  ``bots``: as :meth:`from_dict`."""
        if not isinstance(data, Mapping) or data.get("format") != SAVE_FORMAT:
            raise TableError(f"not a saved canasta table (expected \"format\": \"{SAVE_FORMAT}\")")
        try:
            rules = RuleSet.from_dict(data["rules"])
            fair = data.get("fair")
            seats: list[BotLike | None] = list(data["seats"])
            for seat, bot in (bots or {}).items():
                if not isinstance(seat, int) or not 0 <= seat < len(seats):
                    raise TableError(f"bots: there is no seat {seat!r}")
                seats[seat] = bot
            table = cls(rules, seats, int(data["seed"]), names=data.get("names"),
                        first_dealer=data.get("first_dealer"), hint_level=str(data.get("hint_level", "advanced")),
                        event=str(data.get("event", "Table")), date=data.get("date"), fair=fair is not None,
                        deal=False)
            table.hints_shown = data.get("hints_shown") is True
            hands = data["hands"]
            if not isinstance(hands, list):
                raise TableError("\"hands\" must be a list of hands")
            deals: list[FairDeal] = []
            if fair is not None:
                if not isinstance(fair, Mapping) or not isinstance(fair.get("deals"), list):
                    raise TableError("\"fair\" must hold the list of \"deals\"")
                deals = [FairDeal.from_dict(d, rules.players) for d in fair["deals"]]
                pending = fair.get("pending")
                if len(deals) != len(hands) or [d.hand_number for d in deals] != list(range(1, len(deals) + 1)):
                    raise TableError("a fair table saves one deal per hand, numbered from 1")
                table.pending = FairDeal.from_dict(pending, rules.players) if pending is not None else None
        except KeyError as exc:
            raise TableError(f"the saved table lacks {exc}") from None
        except (TypeError, ValueError, CanastaError) as exc:
            raise TableError(f"the saved table is malformed: {exc}") from None
        if table.fair and not hands:  # waiting for its first deal
            yield table, -1, None
            return
        pending_after = table.pending
        for h, hand in enumerate(hands or [[]], start=1):
            if table.fair:
                table.pending = deals[h - 1]
            table.next_hand()
            yield table, -1, None
            if not isinstance(hand, list):
                raise TableError(f"hand {h} must be a list of moves")
            for i, line in enumerate(hand, start=1):
                seat_text, sep, move_text = str(line).partition(":")
                if not sep:
                    raise TableError(f"hand {h}, move {i}: expected 'SEAT: move', got {line!r}")
                try:
                    seat = int(seat_text)
                    move = table.play(seat, move_text.strip())
                except (IllegalMoveError, TableError, ValueError) as exc:
                    raise TableError(f"hand {h}, move {i} ({str(line).strip()}): {exc}") from None
                yield table, seat, move
        if table.fair:
            table.pending = pending_after

    @classmethod
    def load(cls, path: str | Path, *, bots: Mapping[int, BotLike] | None = None) -> Table:
        """Read a table saved by :meth:`save` (``bots``: as :meth:`from_dict`)."""
        text = read_text(path, "saved table", TableError)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise TableError(f"{str(path)!r} is not a saved table: line {exc.lineno}: {exc.msg}") from None
        return cls.from_dict(data, bots=bots)

    # ---------------------------------------------------------------- helpers

    def _deal(self) -> None:
        if self.fair:
            assert self.pending is not None
            deal = self.pending
            self.match.next_hand(deal)
            self.deals.append(deal)
            self.pending = FairDeal.new(deal.hand_number + 1, self.rules.players)
        else:
            self.match.next_hand()
        self.moves.append([])

    def _bot_seed(self, seat: int) -> int:
        digest = hashlib.sha256(f"canasta-table-bot:{self.seed}:{seat}".encode()).digest()
        return int.from_bytes(digest[:4], "big")

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < self.rules.players:
            raise TableError(f"there is no seat {seat!r}: seats are 0 to {self.rules.players - 1}")


__all__ = ["COMPASS", "SAVE_FORMAT", "TURN_REFUSALS", "LogEntry", "Table", "TableError", "Turn", "seat_names"]
