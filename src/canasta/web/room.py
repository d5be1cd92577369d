"""Live tables: connections, per-seat broadcasting, bots, grace and turn timers.

The engine decides: a client only proposes moves, which :class:`Room` checks
with :meth:`Table.why_not` and plays with :meth:`Table.play`.  Every accepted
change is written to the store, then sent to each connection as that seat's
own view (``table.view(seat).to_dict()``) or, to spectators, the public
view, with public things (names, log lines, scores) beside it.

Messages from a client (JSON objects, at most :data:`MAX_MESSAGE` bytes)::

    {"type": "hello", "token": "...", "seq": 12}   first; no token: a spectator
    {"type": "move", "move": "meld 8H 8S 2C"}
    {"type": "check", "id": 3, "moves": ["draw", "discard 9C"]}   is each legal now? why not?
    {"type": "check", "id": 4, "selection": {"staged": [["8H", "8S"]], "cards": ["KH", "KS"], "target": null}}
                                   what would each action make of these cards, and is it legal?
    {"type": "hint"}  {"type": "undo"}  {"type": "next_hand"}  {"type": "ping"}

Messages to a client: ``welcome``, ``state`` (carries ``seq``: the table's event
number; a reconnecting client sends the last one it saw), ``check``, ``hint``,
``error`` (``code`` and ``message``; nothing was changed), ``pong``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from canasta.bots import LEVELS, Bot, make_bot
from canasta.cards import parse_card, parse_rank
from canasta.errors import CanastaError, IllegalMoveError, NotationError
from canasta.fairdeal import check_client_seed
from canasta.i18n import DEFAULT, N_, translator
from canasta.moves import Move
from canasta.present import Selection, candidates, describe, proposal
from canasta.review import DEFAULT_WORLDS
from canasta.table import TURN_REFUSALS, Table, TableError
from canasta.view import pile_note_list
from canasta.web.botpool import BotPool, decision_seed
from canasta.web.language import REFUSAL, TEMPLATE, localize, refused, say_error
from canasta.web.metrics import Metrics
from canasta.web.store import NotSaved, SeatRow, Store

BOT_LEVELS = LEVELS  # named levels only: a cmd: bot would run a command line on the server
MAX_MESSAGE = 4096
MAX_BOT_DELAY = 5.0  # the slowest bot pace a table may ask for, in seconds
MAX_CHECKS = 16
MAX_GROUPS = 12  # groups set aside in one selection (a check's "selection")
MAX_PICKED = 60  # cards in one selection: more than any hand holds
MAX_QUEUE = 512  # messages waiting for one slow client
LOG_LINES = 60
QUICK_BOTS = ("random", "basic")  # levels that choose in well under a millisecond: played on the loop
FALLBACK_BOT = "basic"  # plays a move the bot pool did not answer in time
MAX_REF = 64  # characters of a check message's "id"
LIVE = ("open", "playing")  # a table in play; "finished" and "abandoned" tables are over


class Sink(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


# per socket and kind of message: (messages a second, burst).  Moves, undos and deals are not
# counted: the game itself allows them only in turn.  "bad": messages that are not JSON or have
# no known type.
RATES: dict[str, tuple[float, float]] = {"pace": (2.0, 8.0), "seed": (1.0, 8.0), "check": (10.0, 30.0),
                                         "sync": (1.0, 5.0), "hint": (2.0, 10.0), "ping": (5.0, 20.0),
                                         "bad": (5.0, 20.0)}
PACE_SETTLE = 0.3  # seconds a table waits for more pace changes before it writes the last one
MESSAGES = ("move", "check", "hint", "undo", "next_hand", "seed", "pace", "sync", "ping")  # a client's, after hello
ACTIONS = frozenset({"move", "check", "hint", "undo", "next_hand", "seed", "pace"})  # only a seat's socket sends
Reply = Callable[[dict[str, Any]], None]


@dataclass
class Settings:
    grace: float = 30.0  # seconds a dropped player keeps the seat before a bot plays it
    bot_delay: float = 0.7  # seconds between bot moves, so people can follow
    substitute: str = "basic"  # the bot level that plays for an absent player
    fixed_seeds: bool = False  # let a table's creator choose the deal (tests, demos; never in public)
    allow_origins: tuple[str, ...] = ()  # origins besides the server's own (scheme://host[:port], behind a proxy)
    api_docs: bool = False  # serve /openapi.json, /docs and /redoc
    sockets_per_address: int = 20  # open websockets per client address (0: no limit)
    tables_per_minute: int = 10  # tables one client address may create per minute (0: no limit)
    idle_hours: float = 24.0  # a table nobody is connected to and nobody played at for this long closes (0: never)
    bot_workers: int | None = None  # processes for the searching bots (None: cores - 1; 0: a thread, as before)
    bot_timeout: float = 3.0  # seconds a pooled bot decision may take, waiting included; then a basic bot moves
    auto_deal: float = 15.0  # a table with at most one person deals the next hand by itself after this (0: never)
    message_rates: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(RATES))  # per socket
    allowed_hosts: tuple[str, ...] = ()  # Host names the server answers to (canasta.web.guards.host_allowed); (): any
    review_worlds: int = DEFAULT_WORLDS  # worlds sampled per reviewed decision (tests: a few)
    review_workers: int = 1  # processes that compute reviews (0: a thread of the server process)


class Limiter:
    """A token bucket per kind of message (:data:`RATES`) for one socket."""

    def __init__(self, rates: dict[str, tuple[float, float]] | None = None) -> None:
        self.rates = rates or RATES
        now = time.monotonic()
        self.tokens = {k: (burst, now) for k, (_, burst) in self.rates.items()}

    def take(self, kind: str) -> str | None:
        """Spend a token for a message of ``kind``: None, or the kind whose rate it exceeds."""
        if kind not in self.rates:
            return None
        now = time.monotonic()
        rate, burst = self.rates[kind]
        left, then = self.tokens.get(kind, (burst, now))
        left = min(burst, left + (now - then) * rate)
        if left < 1.0:
            self.tokens[kind] = (left, now)
            return kind
        self.tokens[kind] = (left - 1.0, now)
        return None


def read_selection(data: Any) -> Selection | str:
    """A check's ``"selection"``: ``{"staged": [["8H", "8S"], {"cards": ["2C"], "target": "K"}],
    "cards": ["KH"], "target": "K"}`` (groups set aside, each its cards or its cards and the
    meld wild cards go on; the cards picked now; the meld wild cards picked now go on); or
    why it is not one."""
    shape = ('a selection is {"staged": [groups], "cards": [cards], "target": a rank or null}, a group '
             'being [cards] or {"cards": [cards], "target": a rank}, with at most '
             f"{MAX_GROUPS} groups of cards in notation (\"8H\")")
    if not isinstance(data, dict):
        return shape
    staged, cards, target = data.get("staged", []), data.get("cards", []), data.get("target")
    if not isinstance(staged, list) or not isinstance(cards, list) or len(staged) >= MAX_GROUPS:
        return shape
    texts: list[Any] = []
    targets: list[Any] = []
    for g in staged:
        if isinstance(g, dict):
            texts.append(g.get("cards"))
            targets.append(g.get("target"))
        else:
            texts.append(g)
            targets.append(None)
    texts.append(cards)
    targets.append(target)
    if not all(isinstance(g, list) and all(isinstance(c, str) for c in g) for g in texts) \
            or not all(x is None or isinstance(x, str) for x in targets) or sum(len(g) for g in texts) > MAX_PICKED:
        return shape
    try:
        groups = [tuple(parse_card(c) for c in g) for g in texts]
        # "wild": the page's name for a meld of wild cards only, which wild cards join without a target
        ranks = [parse_rank(x) if x is not None and x != "wild" else None for x in targets]
    except NotationError as exc:
        return f"{exc}; {shape}"
    return Selection.of(groups[:-1], groups[-1], ranks[-1], ranks[:-1])


class Conn:
    """One websocket: a seat (or -1, a spectator) and a queue its writer drains,
    so a slow client never holds up the table."""

    def __init__(self, sink: Sink, seat: int, lang: str = "en", rates: dict[str, tuple[float, float]] | None = None,
                 ) -> None:
        self.sink = sink
        self.seat = seat
        self.lang = lang  # the client's language: errors are said in it (canasta.web.language)
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.last_sent_seq = -1
        self.overflowed = False
        self.closing: tuple[int, str] | None = None  # close the socket with this code and reason
        self.limiter = Limiter(rates)

    def start(self) -> None:
        self.task = asyncio.create_task(self._writer())

    def send(self, payload: dict[str, Any] | str) -> None:
        if self.overflowed:
            return
        if self.queue.qsize() >= MAX_QUEUE:  # a client that does not read: drop it; it resyncs on reconnect
            self.overflowed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(payload if isinstance(payload, str) else json.dumps(localize(payload, self.lang)))

    async def _writer(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                msg = await self.queue.get()
                if msg is None:
                    if self.overflowed:
                        await self.sink.close(code=1013, reason="too far behind: reconnect")
                    elif self.closing is not None:
                        await self.sink.close(code=self.closing[0], reason=self.closing[1])
                    return
                await self.sink.send_text(msg)

    def drop(self, code: int, reason: str) -> None:
        """Close the socket once what is queued is sent (the page reconnects)."""
        self.closing = (code, reason)
        self.queue.put_nowait(None)

    async def close(self) -> None:
        self.queue.put_nowait(None)
        if self.task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.task, 2)


def error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """An error about the protocol (for the programmer of a client: English only);
    what a person reads is said in their language (canasta.web.language.say_error)."""
    return {"type": "error", "code": code, "message": message, **extra}


# what a person may be told from more than one place
FIRST_DEAL_WAITS = N_("the first hand is dealt once every player's page has sent its client seed")
NO_NEXT_DEAL = N_("the match is over: there is no next deal")
NOTHING_TO_UNDO = N_("nothing to undo: only melds laid in this turn, before the discard, can be taken back")
BUSY = N_("the table is busy: try again")
DB_UNAVAILABLE = N_("the table's database does not answer right now: try again in a moment")
NOT_SAVED = N_("not saved: the table's database did not answer, so nothing changed; try again")
#: what every seat is told when a person's turn timer ran out (a bot finishes the turn)
TIMED_OUT = N_("time ran out: the computer played for {name}")
TIMED_OUT_YOU = N_("your time ran out: the computer played your turn")
MAX_NOTICES = 20  # the notices of a hand kept (the oldest go first)


class RoomHost(Protocol):
    """What a room needs of the process that holds it (:class:`canasta.web.hub.Hub`)."""

    @property
    def store(self) -> Store: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def metrics(self) -> Metrics: ...

    @property
    def rooms(self) -> dict[str, Room]: ...

    def bot_pool(self) -> BotPool | None: ...

    def on_broadcast(self, room: Room) -> None: ...


@dataclass(frozen=True)
class Notice:
    """Something every seat is told besides the moves: ``timeout`` (``seat``'s turn timer ran
    out and a bot finished the turn).  ``after``: the number of moves of hand ``hand`` played
    when it happened, so the log shows it in its place; ``id``: its number at this table."""

    id: int
    kind: str
    seat: int
    hand: int
    after: int

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "seat": self.seat, "hand": self.hand, "after": self.after}

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Notice:
        return Notice(int(d["id"]), str(d["kind"]), int(d["seat"]), int(d["hand"]), int(d["after"]))


@dataclass
class Room:
    """One live table."""

    hub: RoomHost
    id: str
    config: dict[str, Any]
    seats: list[SeatRow]
    table: Table
    seq: int
    status: str
    conns: list[Conn] = field(default_factory=list)
    takeover: set[int] = field(default_factory=set)  # dropped seats a bot plays for now
    auto_turn: int | None = None  # a seat whose turn timer ran out: a bot finishes its turn
    grace_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    bot_task: asyncio.Task[None] | None = None
    timer_task: asyncio.Task[None] | None = None
    timer_key: tuple[int, int, int] | None = None
    deadline: float | None = None
    sub_bots: dict[int, Bot] = field(default_factory=dict)
    next_idx: int = 0  # the store's index for the next move
    last_active: float = field(default_factory=time.time)  # the last change, connection or disconnection
    fallback_bots: dict[int, Bot] = field(default_factory=dict)  # play when the bot pool does not answer
    deal_task: asyncio.Task[None] | None = None  # deals by itself: the first hand after the grace, or the next
    deal_at: float | None = None  # when deal_task deals (sent to clients as auto_deal_at)
    dead: bool = False  # a change was not saved: this copy was forgotten (the store has the table)
    pace_wanted: float | None = None  # the pace last asked for, written by pace_task
    pace_task: asyncio.Task[None] | None = None
    #: the log and the last moves said in each language, for one state of the table (Room.said)
    said_by_lang: dict[str, tuple[tuple[Any, ...], list[dict[str, Any]], dict[str, str]]] = field(default_factory=dict)
    notices: list[Notice] = field(default_factory=list)  # public notices of the current hand
    notice_count: int = 0  # the last notice's number at this table (the page shows a new one once)

    # ---------------------------------------------------------------- status

    @property
    def players(self) -> int:
        return self.table.rules.players

    def filled(self) -> bool:
        return all(s.kind in ("human", "bot") for s in self.seats)

    def connected(self, seat: int) -> bool:
        return any(c.seat == seat for c in self.conns)

    def any_human_connected(self) -> bool:
        return any(c.seat >= 0 for c in self.conns)

    def bot_plays(self, seat: int) -> bool:
        return self.table.is_bot(seat) or seat in self.takeover or seat == self.auto_turn

    def needs_bot(self) -> bool:
        t = self.table
        return (self.status == "playing" and t.dealt and not t.hand_over and self.any_human_connected()
                and self.bot_plays(t.to_move))

    @property
    def bot_delay(self) -> float:
        """Seconds between bot moves at this table (its players may change it)."""
        value = self.config.get("bot_delay")
        return float(value) if isinstance(value, (int, float)) else self.hub.settings.bot_delay

    # ------------------------------------------------------------- payloads

    def public(self) -> dict[str, Any]:
        """What everyone at the table may know.  Of the deals: the current hand's
        commitment, the next hand's (before it is dealt) and, for finished hands
        only, the revealed secrets and client seeds."""
        t = self.table
        players = []
        for s in self.seats:
            players.append({
                "name": t.names[s.seat], "kind": s.kind, "level": s.level,
                "connected": self.connected(s.seat), "bot_playing": s.seat in self.takeover or s.seat == self.auto_turn,
                "minimum": t.minimum(s.seat),
            })
        sheet = [{"hand": h.hand_number, "went_out": h.went_out, "end_reason": h.end_reason,
                  "concealed_out": h.concealed_out, "scores": [sc.as_dict() for sc in h.scores]}
                 for h in t.match.hands]
        shown = t.next_commitment()
        return {
            "type": "state", "seq": self.seq, "table": self.id, "status": self.status, "dealt": t.dealt,
            "players": players,
            "totals": list(t.match.totals), "target": t.rules.target, "sheet": sheet,
            "hand_over": t.hand_over, "match_over": t.match_over, "winner": t.match.winner,
            "commitment": t.commitment(), "deadline": self.deadline,
            "deal": {"hand": t.hand_number, "commitment": t.commitment()} if t.dealt else None,
            "next_deal": ({"hand": t.hand_number + 1, "commitment": shown,
                           "seeds": [bool(x) for x in t.client_seeds()]} if shown is not None else None),
            "revealed": t.revealed(), "auto_deal_at": self.deal_at if t.dealt else None,
            "bot_delay": self.bot_delay, "turn_seconds": float(self.config.get("turn_seconds") or 0),
            "rematch": self.config.get("rematch"),  # the finished match's rematch (a table id), once made
            "review_others": bool(self.config.get("review_others")),  # every seat's review, once the match is over
        }

    def note_timeout(self, seat: int, number: int | None = None) -> Notice:
        """Keep the notice that ``seat``'s turn timer ran out (shown to every seat); ``number``:
        its number (a cluster's event number), else the next one of this table."""
        t = self.table
        moves = len(t.moves[-1]) if t.moves else 0
        notice = Notice(self.notice_count + 1 if number is None else number, "timeout", seat, t.hand_number, moves)
        self.keep_notices([*self.notices, notice])
        return notice

    def keep_notices(self, notices: list[Notice]) -> None:
        """Keep the current hand's last :data:`MAX_NOTICES` of ``notices``."""
        hand = self.table.hand_number
        self.notices = [n for n in notices if n.hand == hand][-MAX_NOTICES:]
        self.notice_count = max([self.notice_count, *(n.id for n in notices)])

    def current_notices(self) -> list[Notice]:
        hand = self.table.hand_number
        return [n for n in self.notices if n.hand == hand]

    def notice_lines(self, seat: int, lang: str) -> list[dict[str, Any]]:
        """The current hand's notices said in ``lang`` for the connection at ``seat`` (the
        seat whose time ran out is told "your time ran out", everyone else the name)."""
        tr, t = translator(lang), self.table
        return [{"id": n.id, "kind": n.kind, "seat": n.seat, "hand": n.hand, "after": n.after,
                 "text": tr.gettext(TIMED_OUT_YOU) if n.seat == seat else
                 tr.gettext(TIMED_OUT).format(name=t.names[n.seat])}
                for n in self.current_notices()]

    def said(self, lang: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The hand's last moves as the log shows them, and each seat's last move of the hand
        (however long ago: :meth:`Table.last_moves`), in ``lang``: each move's ``text``
        ("West melds 8H 8S 2C") and ``does`` ("melds 8H 8S 2C"), said by :mod:`canasta.present`
        (the page describes nothing itself).  Public, so said once per event and language,
        not once per seat."""
        t, tr = self.table, translator(lang)
        notices = self.current_notices()
        key = (self.seq, t.version, t.hand_number, tuple(t.names), tuple(notices))  # what the words depend on
        cached = self.said_by_lang.get(lang)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        log: list[dict[str, Any]] = [{"n": e.number, "seat": e.seat, "move": str(e.move),
                "text": describe(e.move, t.rules, t.names[e.seat], tr), "does": describe(e.move, t.rules, None, tr)}
               for e in t.log(LOG_LINES)]
        shown: dict[int, str] = {line["n"]: line["does"] for line in log}
        last: dict[str, str] = {str(s): shown.get(e.number) or describe(e.move, t.rules, None, tr) for s, e in t.last_moves().items()}
        if notices:
            said = [{"id": n.id, "kind": n.kind, "seat": n.seat, "after": n.after,
                     "text": tr.gettext(TIMED_OUT).format(name=t.names[n.seat])} for n in notices]
            log = self.with_notices(log, said)
        if any(k != key for k, _log, _last in self.said_by_lang.values()):
            self.said_by_lang.clear()  # an earlier event's words
        self.said_by_lang[lang] = (key, log, last)
        return log, last

    @staticmethod
    def with_notices(lines: list[dict[str, Any]], notices: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The log with each notice after the move it followed (a line of ``kind`` "notice",
        its ``notice`` the notice's kind, and no move)."""
        first = lines[0]["n"] if lines else 1
        out: list[dict[str, Any]] = []
        pending = [n for n in notices if n["after"] >= first - 1]
        for line in [{"n": first - 1}, *lines]:
            if line["n"] >= first:
                out.append(line)
            while pending and pending[0]["after"] <= line["n"]:
                out.append(Room.notice_line(pending.pop(0)))
        return out + [Room.notice_line(n) for n in pending]  # after moves taken back

    @staticmethod
    def notice_line(n: dict[str, Any]) -> dict[str, Any]:
        return {"kind": "notice", "notice": n["kind"], "id": n["id"], "seat": n["seat"],
                "n": None, "move": None, "text": n["text"], "does": None}

    def payload_for(self, seat: int, public: dict[str, Any], lang: str = DEFAULT) -> dict[str, Any]:
        # the rules are sent once, in the welcome
        out = dict(public)
        out["seat"] = seat
        out["log"], out["last_moves"] = self.said(lang)
        out["notices"] = self.notice_lines(seat, lang)
        if self.table.dealt:
            seen = self.table.view(seat) if seat >= 0 else self.table.spectator_view()
            out["view"] = seen.to_dict(include_rules=False)
            notes = pile_note_list(seen)
            out["pile_notes"] = [note.text for note in notes]  # in English, for programs
            out["pile_note_keys"] = [note._asdict() for note in notes]
        else:
            out["view"] = None
            out["pile_notes"] = out["pile_note_keys"] = []
        out["undoable"] = self.table.undoable(seat) if seat >= 0 else 0
        mine = self.table.client_seeds()[seat] if seat >= 0 and self.table.pending is not None else ""
        out["my_seed"] = mine or None
        return out

    def broadcast(self) -> None:
        public = self.public()
        cache: dict[tuple[int, str], str] = {}
        for c in self.conns:
            key = (c.seat, c.lang)
            if key not in cache:
                cache[key] = json.dumps(self.payload_for(c.seat, public, c.lang))
            c.last_sent_seq = self.seq
            c.send(cache[key])
        self.hub.on_broadcast(self)

    def send_state(self, conn: Conn) -> None:
        conn.last_sent_seq = self.seq
        conn.send(self.payload_for(conn.seat, self.public(), conn.lang))

    # --------------------------------------------------------------- changes

    def _persist(self, change: str) -> None:
        """Write one change: ``moved`` (the move is written: its status, if it changed),
        ``undo`` (drop the last move), ``deal`` (a new hand) or ``header`` (names, seats)."""
        before = self.status
        self.status = "finished" if self.table.match_over else ("playing" if self.filled() else "open")
        store, t = self.hub.store, self.table
        if change == "moved":  # written by apply, before it was played: only a new status remains
            if self.status != before:
                store.set_status(self.id, self.status)
        elif change == "undo":
            store.undo_move(self.id, self.seq)
        elif change == "deal":
            store.set_hands(self.id, len(t.moves), self.seq, self.status)
            if t.fair:  # the next hand's secret was drawn with this deal
                store.save_header(self.id, t.to_dict(), self.seq, self.status)
        else:
            store.save_header(self.id, t.to_dict(), self.seq, self.status)

    def _changed(self, change: str) -> None:
        """After an accepted change: store it, then tell everyone, then let bots and timers go.
        If the store does not take it, this copy is forgotten (:meth:`_lost`)."""
        self.seq += 1
        self.last_active = time.time()
        if self.auto_turn is not None and (self.table.hand_over or self.table.to_move != self.auto_turn):
            self.auto_turn = None
        try:
            self._persist(change)
        except Exception as exc:
            self._lost(exc)
            return
        self._arm_timer()
        self._arm_deal()
        self.broadcast()
        self.kick()

    def _presence_changed(self) -> None:
        if self.dead:
            return
        self.seq += 1
        try:
            self.hub.store.save_seq(self.id, self.seq)
        except Exception as exc:
            self._lost(exc)
            return
        self._arm_timer()  # a seat a bot took over, or handed back, has its timer stopped or started
        self.broadcast()
        self.kick()

    def _lost(self, exc: Exception) -> None:
        """The store did not take a change already made here: this copy is ahead of the
        database, so it is forgotten.  Everyone connected is told and disconnected; their
        pages reconnect and get the table as the database has it."""
        self.dead = True
        self.hub.metrics.failed_writes += 1
        print(f"canasta: table {self.id} was not saved ({exc}); it is read again from the database",
              file=sys.stderr, flush=True)
        if self.hub.rooms.get(self.id) is self:
            del self.hub.rooms[self.id]
        self._stop()
        for c in self.conns:
            c.send(say_error("NOT_SAVED", NOT_SAVED))
            c.drop(1013, "the table's database did not answer: reconnect")

    def apply(self, seat: int, move: Move | str, checked: bool = False) -> None:
        """Play a move: written to the store first, so that nothing is shown or kept that
        the store does not hold (:class:`NotSaved` if it did not take it: nothing changed).
        ``checked``: the caller has just found it legal (:meth:`refusal`, or a bot's choice
        in this very position), so it is not checked twice before the write."""
        t = self.table
        if isinstance(move, str):
            try:
                move = Move.parse(move)
            except NotationError as exc:
                raise TableError(str(exc)) from None
        if not checked:
            why = t.why_not(seat, move)
            if why is not None:
                raise why
        try:
            self.hub.store.add_move(self.id, self.next_idx, len(t.moves), f"{seat}: {move}", self.seq + 1,
                                    self.status)
        except Exception as exc:
            self.hub.metrics.failed_writes += 1
            raise NotSaved(f"the move was not saved: {exc}") from None
        self.next_idx += 1
        t.play(seat, move)
        self.hub.metrics.events["move"] += 1
        self._changed("moved")

    def play_move(self, seat: int, move_text: Any) -> dict[str, Any] | None:
        """A seat's proposed move: played, or the error message saying why not."""
        started = time.perf_counter()
        err = self.refusal(seat, move_text)
        if err is not None:
            return err | {"ref": "move", "move": move_text if isinstance(move_text, str) else None}
        try:
            self.apply(seat, str(move_text), checked=True)  # refusal() above found it legal
        except NotSaved:
            return say_error("NOT_SAVED", NOT_SAVED, ref="move", move=move_text)
        except CanastaError as exc:  # refused after all: nothing changed
            return refused(exc, ref="move") if isinstance(exc, IllegalMoveError) else error("ILLEGAL", str(exc), ref="move")
        self.hub.metrics.move_latency.observe(time.perf_counter() - started)
        return None

    def undo_move(self, seat: int) -> dict[str, Any] | None:
        """Take back ``seat``'s last meld of this turn (checked by the caller)."""
        self.table.undo(seat)
        self._changed("undo")
        return None

    def set_pace(self, seconds: float) -> None:
        """The bots' pause between moves at this table (checked by the caller)."""
        self.config["bot_delay"] = seconds
        try:
            self.hub.store.save_config(self.id, self.config)
        except Exception as exc:
            self._lost(exc)
            return
        self._presence_changed()  # everyone sees the new pace

    def want_pace(self, seconds: float) -> None:
        """A player asked for a pace: the last one asked within :data:`PACE_SETTLE` is written,
        as one change (a slider dragged, or a flood of pace messages, is not an event each)."""
        self.pace_wanted = seconds
        if self.pace_task is None:
            self.pace_task = asyncio.create_task(self._settle_pace())

    async def _settle_pace(self) -> None:
        try:
            await asyncio.sleep(PACE_SETTLE)
        finally:
            self.pace_task = None
        wanted = self.pace_wanted
        if wanted is not None and wanted != self.bot_delay and not self.dead:
            self.set_pace(wanted)

    def take_seat(self, seat: int, name: str, token_hash: str) -> str | None:
        """A person sits down at an open (or their reserved) seat; None, or why not
        (a seat taken meanwhile: only in a cluster, where another server may seat someone)."""
        s = self.seats[seat]
        s.kind, s.name, s.token_hash, s.invite_hash = "human", name, token_hash, None
        self.table.rename(seat, name)
        self.status = "playing" if self.filled() else "open"
        try:
            self.hub.store.save_seat(self.id, s)
        except Exception as exc:
            self._lost(exc)
            return NOT_SAVED
        self._changed("header")  # the new name is in the saved table; everyone sees the seat taken
        return None

    async def atake_seat(self, seat: int, name: str, token_hash: str) -> str | None:
        """:meth:`take_seat` from the lobby (a cluster's room writes it asynchronously)."""
        return self.take_seat(seat, name, token_hash)

    def refusal(self, seat: int, move_text: Any) -> dict[str, Any] | None:
        """Why ``seat`` may not play this move now, as an error message, or None."""
        if not isinstance(move_text, str) or not move_text.strip():
            return error("BAD_MESSAGE", "a move message needs \"move\": the move in notation, e.g. \"draw\"")
        if self.status == "open":
            return say_error("WAITING", N_("the table is waiting for players to take the open seats"))
        if not self.table.dealt:
            return say_error("WAITING", FIRST_DEAL_WAITS)
        if self.status == "finished":
            return say_error("MATCH_OVER", N_("the match is over"))
        t = self.table
        turn = t.turn_refusal(seat)
        if turn is not None:  # the table's own refusal, said from its code (canasta.table.TURN_REFUSALS)
            return say_error(turn.code, TURN_REFUSALS[turn.code], turn.fields)
        if self.bot_plays(seat):
            return say_error("BOT_PLAYING", N_("a bot is playing this seat's turn"))
        why = t.why_not(seat, move_text)
        if why is None:
            return None
        if isinstance(why, IllegalMoveError):
            return refused(why)
        return error("BAD_MOVE", str(why))

    # ------------------------------------------------------------------- bots

    def kick(self) -> None:
        if self.bot_task is None and self.needs_bot():
            self.bot_task = asyncio.create_task(self._run_bots())

    async def _run_bots(self) -> None:
        try:
            while self.needs_bot():
                await asyncio.sleep(self.bot_delay)  # 0: still lets others in
                if not self.needs_bot():
                    break
                t = self.table
                turn = t.turn()
                if turn is None:
                    break
                seat = turn.seat
                pool = self.hub.bot_pool()
                try:
                    if self._quick_bot(seat):
                        move = self._choose(seat)  # well under a millisecond: no thread hand-off
                    elif pool is None:
                        move = await asyncio.to_thread(self._choose, seat)
                    else:  # in a worker process: the loop serves every other table meanwhile
                        text = await pool.choose(t.view(seat).to_dict(), self._level(seat),
                                                 decision_seed(t.seed, seat, t.hand_number, len(t.moves[-1])))
                        if not t.still(turn) or not self.needs_bot():
                            continue
                        move = self._checked(seat, text) or self._fallback(seat)
                except Exception:  # the position changed under the bot (a player came back)
                    continue
                if not t.still(turn) or not self.needs_bot():  # the table moved on: the answer is dropped
                    continue
                try:
                    self.apply(seat, move, checked=True)  # a bot's legal choice in this very position
                except NotSaved:  # the database is away: the bot tries again in a moment
                    await asyncio.sleep(1.0)
        finally:
            self.bot_task = None
        if self.needs_bot():  # a change raced with the end of the loop
            self.kick()

    def _level(self, seat: int) -> str:
        level = self.table.seats[seat] if self.table.is_bot(seat) else self.hub.settings.substitute
        return level or self.hub.settings.substitute

    def _quick_bot(self, seat: int) -> bool:
        return self._level(seat) in QUICK_BOTS

    def _checked(self, seat: int, text: str | None) -> Move | None:
        """A pooled bot's answer, if it is a legal move now."""
        if text is None or self.table.why_not(seat, text) is not None:
            return None
        return Move.parse(text)

    def _fallback(self, seat: int) -> Move:
        """A quick bot's move for a seat whose pooled decision did not come in time."""
        bot = self.fallback_bots.get(seat)
        if bot is None:
            bot = self.fallback_bots[seat] = make_bot(FALLBACK_BOT, seed=secrets.randbits(32))
        return self.table.bot_move(stand_in=bot)

    def _choose(self, seat: int) -> Move:
        t = self.table
        if t.is_bot(seat):
            return t.bot_move()
        bot = self.sub_bots.get(seat)
        if bot is None:
            bot = self.sub_bots[seat] = make_bot(self.hub.settings.substitute, seed=secrets.randbits(32))
        return t.bot_move(stand_in=bot)

    # --------------------------------------------------------- presence/timers

    def presence(self) -> tuple[frozenset[int], frozenset[int]]:
        """What others see of who is here: the seats connected, the seats a bot plays."""
        return frozenset(c.seat for c in self.conns if c.seat >= 0), frozenset(self.takeover)

    def attach(self, conn: Conn) -> None:
        """A client said hello.  Only a seat's presence changing is an event (stored,
        sent to all); a spectator, or a second window of a seat already here, just
        gets the state."""
        before = self.presence()
        self.conns.append(conn)
        self.last_active = time.time()
        self._refresh_presence(before)
        if conn.last_sent_seq != self.seq:
            self.send_state(conn)

    def detach(self, conn: Conn) -> None:
        before = self.presence()
        if conn in self.conns:
            self.conns.remove(conn)
        self.last_active = time.time()
        if self.dead:
            return
        if self.status == "finished" and not self.conns:
            self.hub.rooms.pop(self.id, None)  # it lives on in the store (history, replay)
            return
        self._refresh_presence(before)

    def _refresh_presence(self, before: tuple[frozenset[int], frozenset[int]]) -> None:
        for s in self.seats:
            if s.kind != "human":
                continue
            if self.connected(s.seat):
                task = self.grace_tasks.pop(s.seat, None)
                if task is not None:
                    task.cancel()
                self.takeover.discard(s.seat)  # handed back on return
            elif s.seat not in self.takeover and s.seat not in self.grace_tasks:
                self.grace_tasks[s.seat] = asyncio.create_task(self._grace(s.seat))
        if self.presence() != before:
            self._presence_changed()

    async def _grace(self, seat: int) -> None:
        try:
            await asyncio.sleep(self.hub.settings.grace)
        except asyncio.CancelledError:
            return
        self.grace_tasks.pop(seat, None)
        if not self.connected(seat):
            self.takeover.add(seat)
            self._presence_changed()

    def _arm_timer(self) -> None:
        seconds = float(self.config.get("turn_seconds") or 0)
        t = self.table
        if seconds <= 0 or not t.dealt or t.hand_over or self.status != "playing" or self.bot_plays(t.to_move):
            key = None
        else:
            key = (t.hand_number, t.turn_number, t.to_move)
        if key == self.timer_key:
            return
        if self.timer_task is not None:
            self.timer_task.cancel()
            self.timer_task = None
        self.timer_key = key
        self.deadline = None
        if key is not None:
            self.deadline = time.time() + seconds
            self.timer_task = asyncio.create_task(self._turn_timer(key, seconds))

    async def _turn_timer(self, key: tuple[int, int, int], seconds: float) -> None:
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            return
        if self.timer_key == key and not self.table.hand_over:
            self.timer_task = None
            self.timer_key = None
            self.deadline = None
            self.auto_turn = self.table.to_move
            notice = self.note_timeout(self.auto_turn)
            try:  # kept with the table: a restarted server shows it in the log as before
                self.hub.store.add_notice(self.id, notice.to_dict())
            except Exception as exc:
                self._lost(exc)
                return
            self._presence_changed()

    # ------------------------------------------------------------------ deals

    def people(self) -> list[int]:
        return [s.seat for s in self.seats if s.kind == "human"]

    def seeds_in(self) -> bool:
        """Has every seated person's page sent its client seed for the next deal?"""
        seeds = self.table.client_seeds()
        return all(seeds[s] for s in self.people()) if seeds else True

    def _deal_delay(self) -> float | None:
        """Seconds until this table deals by itself, or None: the first hand once
        every seat is taken (at once when every person's seed is in, else after the
        grace period, so an absent player cannot hold the table); a next hand after
        the auto-deal pause when at most one person plays here (a bot game)."""
        t = self.table
        if self.status != "playing" or t.match_over:
            return None
        if not t.dealt:
            return 0.0 if self.seeds_in() else self.hub.settings.grace
        pause = self.hub.settings.auto_deal
        if t.hand_over and len(self.people()) <= 1 and pause > 0:
            return pause
        return None

    def resume(self) -> None:
        """Start what the table waits for by itself (a deal) once it is live on a loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self._arm_deal()

    def _arm_deal(self) -> None:
        delay = self._deal_delay()
        key_hand = self.table.hand_number
        if delay is None:
            if self.deal_task is not None:
                self.deal_task.cancel()
            self.deal_task, self.deal_at = None, None
            return
        if delay == 0.0:
            if self.deal_task is not None:
                self.deal_task.cancel()
            self.deal_task, self.deal_at = None, None
            self.deal()
            return
        if self.deal_task is None:
            self.deal_at = time.time() + delay
            self.deal_task = asyncio.create_task(self._deal_later(delay, key_hand))

    async def _deal_later(self, delay: float, hand: int) -> None:
        try:
            await asyncio.sleep(delay)
        except asyncio.CancelledError:
            return
        self.deal_task, self.deal_at = None, None
        if self.table.hand_number == hand and self._deal_delay() is not None:
            self.deal()

    def may_deal(self) -> bool:
        """May the next hand (or the first) be dealt now?"""
        t = self.table
        return self.status == "playing" and not t.match_over and (not t.dealt or t.hand_over)

    def deal(self) -> bool:
        """Deal the next hand (or the first) if the table may; True if it did."""
        if not self.may_deal():
            return False
        self.table.next_hand()
        self._changed("deal")
        return True

    def seed_refusal(self, value: Any) -> dict[str, Any] | None:
        """Why a client seed for the next deal is refused (an error message), or None."""
        t = self.table
        if t.pending is None:
            return say_error("REFUSED", N_("this table's deals come from a fixed seed: it takes no client seeds"), ref="seed")
        if t.match_over:
            return say_error("MATCH_OVER", NO_NEXT_DEAL, ref="seed")
        try:
            check_client_seed(value)
        except CanastaError as exc:
            return error("BAD_SEED", str(exc), ref="seed")
        return None

    def set_seed(self, seat: int, value: Any) -> dict[str, Any] | None:
        """A seated person's client seed for the next deal; an error message if refused."""
        refused = self.seed_refusal(value)
        if refused is not None:
            return refused
        t = self.table
        t.set_client_seed(seat, value)
        try:
            self.hub.store.save_header(self.id, t.to_dict(), self.seq, self.status)  # not an event: seq unchanged
        except Exception as exc:
            self._lost(exc)
            return say_error("NOT_SAVED", NOT_SAVED, ref="seed")
        if not t.dealt:
            self._arm_deal()
        return None

    def idle(self, now: float, seconds: float) -> bool:
        """Nobody connected, and no change, connection or disconnection for ``seconds``."""
        return self.status in LIVE and not self.conns and now - self.last_active >= seconds

    def abandon(self) -> None:
        """Close an idle table: it stays in the store (status ``abandoned``), is no
        longer listed, loaded or played."""
        self.status = "abandoned"
        self.hub.store.set_status(self.id, self.status)
        self._stop()

    async def aabandon(self) -> None:
        """:meth:`abandon` from the lobby (a cluster's room writes it as an event)."""
        self.abandon()
        self.hub.rooms.pop(self.id, None)

    async def arematch(self, table_id: str) -> str:
        """Point this finished match at its rematch ``table_id``, unless one is there already
        (the first one made stands); the rematch's id.  :class:`NotSaved` if the store did not
        take it (nothing changed)."""
        made = self.config.get("rematch")
        if isinstance(made, str):
            return made
        try:
            self.hub.store.save_config(self.id, {**self.config, "rematch": table_id})
        except Exception as exc:
            self.hub.metrics.failed_writes += 1
            raise NotSaved(f"the rematch was not saved: {exc}") from None
        self.config["rematch"] = table_id
        self._presence_changed()  # everyone at the table sees it (state "rematch")
        return table_id

    def _stop(self) -> None:
        for task in [self.bot_task, self.timer_task, self.deal_task, self.pace_task, *self.grace_tasks.values()]:
            if task is not None:
                task.cancel()
        self.table.close()
        for b in [*self.sub_bots.values(), *self.fallback_bots.values()]:
            b.close()

    async def shutdown(self) -> None:
        for c in list(self.conns):
            await c.close()
        self._stop()

    # --------------------------------------------------------------- messages

    def handle(self, conn: Conn, msg: dict[str, Any]) -> None:
        """One message from a client who has said hello: the checks every message passes
        (the table not forgotten, the socket's rate, a seat for acting), then its handler
        (``on_`` + its type)."""
        kind = msg.get("type")
        ref = kind if isinstance(kind, str) else None

        def reply(m: dict[str, Any]) -> None:  # every reply carries the table's current event number
            m.setdefault("seq", self.seq)
            conn.send(m)

        if self.dead:  # forgotten after a failed write: the page reconnects to the stored table
            reply(say_error("NOT_SAVED", NOT_SAVED, ref=ref))
            return
        over = conn.limiter.take(kind if kind in MESSAGES else "bad")
        if over is not None:  # a flood from one socket must not cost the table or the server
            reply(say_error("TOO_FAST", N_("too many messages: at most {rate} a second; wait a moment"),
                            {"rate": f"{conn.limiter.rates[over][0]:g}"}, ref=ref))
            return
        if kind not in MESSAGES:
            reply(error("UNKNOWN_TYPE", f"unknown message type {kind!r}: use {', '.join(MESSAGES)}", ref=ref))
            return
        if kind in ACTIONS:
            refused = self.acting_refusal(conn.seat, msg, str(kind))
            if refused is not None:
                reply(refused)
                return
        getattr(self, f"on_{kind}")(conn, msg, reply)

    def acting_refusal(self, seat: int, msg: dict[str, Any], kind: str) -> dict[str, Any] | None:
        """Why the socket of ``seat`` may not act (a spectator, or a message naming another seat)."""
        if seat < 0:
            return say_error("SPECTATOR", N_("spectators cannot act: join the table to take a seat"), ref=kind)
        if "seat" in msg:
            claimed = msg["seat"]
            if type(claimed) is not int:  # true is not seat 1, "1" is not seat 1
                return error("BAD_MESSAGE", "\"seat\" is a seat number (or leave it out)", ref=kind)
            if claimed != seat:
                return error("WRONG_SEAT", f"your token is for seat {seat}; you cannot act for seat {claimed}",
                             ref=kind)
        return None

    # one handler per message type (MESSAGES); each answers through ``reply``

    def on_ping(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        reply({"type": "pong", "seq": self.seq})

    def on_sync(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        self.send_state(conn)

    def on_seed(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        refused = self.set_seed(conn.seat, msg.get("seed"))
        if refused is not None:
            reply(refused)
            return
        reply({"type": "seed", "hand": self.table.hand_number + 1, "seed": msg["seed"]})
        self.send_state(conn)

    def on_pace(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        seconds = msg.get("seconds")
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds <= MAX_BOT_DELAY:
            reply(error("BAD_MESSAGE", f"the bots' pace is a number of seconds from 0 to {MAX_BOT_DELAY:g}",
                        ref="pace"))
            return
        self.want_pace(float(seconds))

    def on_check(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        """Is each move legal now, and why not?  The moves are given in notation
        (``"moves"``), or as the cards a person has picked (``"selection"``): then the
        server says which move each action would make (:func:`canasta.present.candidates`),
        so that every interface means the same by the same gesture."""
        ref = msg.get("id")
        if not (ref is None or type(ref) is int or (isinstance(ref, str) and len(ref) <= MAX_REF)):
            reply(error("BAD_MESSAGE", f"a check's \"id\" is a whole number or a text of at most {MAX_REF} "
                        "characters", ref="check"))
            return
        actions: list[str] | None = None
        moves: Any
        if "selection" in msg:
            picked = read_selection(msg["selection"])
            if isinstance(picked, str):
                reply(error("BAD_MESSAGE", picked, ref="check"))
                return
            made = candidates(self.table.view(conn.seat), picked) if self.table.dealt else {}
            actions, moves = list(made), [str(m) for m in made.values()]
        else:
            moves = msg.get("moves")
            if not isinstance(moves, list) or len(moves) > MAX_CHECKS or not all(isinstance(m, str) for m in moves):
                reply(error("BAD_MESSAGE", f"check needs \"moves\": a list of at most {MAX_CHECKS} move texts, "
                            "or \"selection\": the cards picked", ref="check"))
                return
        results: list[dict[str, Any] | None] = []
        texts: list[str | None] = []
        tr = translator(conn.lang)
        for m in moves:
            err = self.refusal(conn.seat, m)
            results.append(None if err is None else {k: err[k] for k in ("code", "message", TEMPLATE, REFUSAL)
                                                     if k in err} | ({"rule": err["rule"]} if err.get("rule") else {}))
            try:
                texts.append(proposal(Move.parse(m), self.table.rules, tr))
            except NotationError:
                texts.append(None)
        answer: dict[str, Any] = {"type": "check", "id": ref, "seq": self.seq, "results": results, "texts": texts}
        if actions is not None:
            answer["actions"], answer["moves"] = actions, moves
        reply(answer)

    def on_move(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        refused = self.play_move(conn.seat, msg.get("move"))
        if refused is not None:
            reply(refused)

    def on_hint(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        t, seat = self.table, conn.seat
        if self.status != "playing" or t.hand_over or t.to_move != seat:
            reply(say_error("NOT_YOUR_TURN", N_("a hint is given only when it is your move"), ref="hint"))
            return
        move = t.hint(seat)
        reply({"type": "hint", "move": str(move), "text": proposal(move, t.rules, translator(conn.lang))})

    def on_undo(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        if self.status != "playing" or not self.table.undoable(conn.seat):
            reply(say_error("NOTHING_TO_UNDO", NOTHING_TO_UNDO, ref="undo"))
            return
        refused = self.undo_move(conn.seat)
        if refused is not None:
            reply(refused)

    def on_next_hand(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        t = self.table
        if not t.dealt:
            reply(say_error("WAITING", FIRST_DEAL_WAITS, ref="next_hand"))
            return
        if not t.hand_over or t.match_over:
            reply(say_error("HAND_NOT_OVER", N_("the hand is still being played"), ref="next_hand")
                  if not t.hand_over else say_error("MATCH_OVER", N_("the match is over"), ref="next_hand"))
            return
        try:
            self.deal()
        except TableError as exc:
            reply(error("REFUSED", str(exc), ref="next_hand"))


__all__ = ["BOT_LEVELS", "MAX_MESSAGE", "Conn", "Room", "RoomHost", "Settings", "error"]
