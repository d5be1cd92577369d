"""Live tables: connections, per-seat broadcasting, and the one way a table changes.

The engine decides: a client only proposes moves, which :class:`Room` checks
with :meth:`Table.why_not`.  Every change (a move, an undo, a deal, a seed, a
seat taken, the bots' pace, who is here, a turn timer run out, a rematch, a
table closed) is an event: checked against the room's copy without changing it,
written as the table's next event number (:meth:`canasta.web.store.Store.append`,
which the database refuses unless it follows the stored last one), and only
then applied to the copy and sent to each connection as that seat's own view
(``table.view(seat).to_dict()``) or, to spectators, the public view, with public
things (names, log lines, scores) beside it.  A write the database does not
take leaves the copy as the database has it, and the asker is told "not saved".

This is the same in every deployment; what differs is the room's host
(:class:`RoomHost`): where events are published, where the jobs a state waits
for run (bots, the turn timer, the next deal, a grace period:
:mod:`canasta.web.jobs`), and how the sockets of a seat are counted.

Messages from a client (JSON objects, at most :data:`MAX_MESSAGE` bytes)::

    {"type": "hello", "token": "...", "seq": 12}   first; no token: a spectator
    {"type": "move", "move": "meld 8H 8S 2C", "key": "k3f9..."}   "key" (optional): the request's own
                                   id; the same move sent again with it is played at most once
    {"type": "check", "id": 3, "moves": ["draw", "discard 9C"]}   is each legal now? why not?
    {"type": "check", "id": 4, "selection": {"staged": [["8H", "8S"]], "cards": ["KH", "KS"], "target": null}}
                                   what would each action make of these cards, and is it legal?
    {"type": "hint"}  {"type": "undo"}  {"type": "next_hand"}  {"type": "ping"}
    {"type": "order", "sort": "suit", "cards": ["8H", "KS"]}   how this seat arranges its hand (not an event)
    {"type": "chat", "text": "..."}  {"type": "chat", "phrase": "gg"}   a line of the table chat (an event)

Messages to a client: ``welcome``, ``state`` (carries ``seq``: the table's event
number; a reconnecting client sends the last one it saw), ``check``, ``hint``,
``error`` (``code`` and ``message``; nothing was changed, except for ``UNKNOWN``: the
database did not say whether a move was stored; send it again with the same key),
``moved`` (a move sent with a key is stored: its event ``num`` and ``move`` as stored;
``again``: it had been stored before, this is that stored result), ``pong``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from canasta.bots import LEVELS
from canasta.cards import card_str, parse_card, parse_rank
from canasta.errors import CanastaError, IllegalMoveError, NotationError
from canasta.fairdeal import FairDeal, check_client_seed
from canasta.i18n import DEFAULT, N_, translator
from canasta.moves import Move
from canasta.play.table import TURN_REFUSALS, Table, TableError
from canasta.present import Selection, candidates, describe, proposal
from canasta.review import DEFAULT_WORLDS
from canasta.view import pile_note_list
from canasta.web.language import REFUSAL, TEMPLATE, localize, refused, say_error
from canasta.web.metrics import Metrics
from canasta.web.redact import said
from canasta.web.store import (
    DB_TIMEOUT,
    Conflict,
    Event,
    NeverRan,
    NotSaved,
    SeatRow,
    Store,
    Unreached,
    apply_to_config,
    apply_to_table,
)

T = TypeVar("T")

BOT_LEVELS = LEVELS  # named levels only: a cmd: bot would run a command line on the server
MAX_MESSAGE = 4096
MAX_BOT_DELAY = 5.0  # the slowest bot pace a table may ask for, in seconds
MAX_CHECKS = 16
MAX_GROUPS = 12  # groups set aside in one selection (a check's "selection")
MAX_PICKED = 60  # cards in one selection: more than any hand holds
MAX_QUEUE = 512  # messages waiting for one slow client
MAX_BACKLOG = 64  # a socket's messages waiting for the change it asked for to be written
LOG_LINES = 60
QUICK_BOTS = ("random", "basic")  # levels that choose in well under a millisecond: played on the loop
FALLBACK_BOT = "basic"  # plays a move the bot pool did not answer in time
MAX_REF = 64  # characters of a check message's "id"
MAX_KEY = 64  # characters of a move's idempotency key ("key")
KEYS_KEPT = 256  # the last move keys a table remembers (a retry comes within seconds)
LIVE = ("open", "playing")  # a table in play; "finished" and "abandoned" tables are over


class Sink(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


# per socket and kind of message: (messages a second, burst).  Moves, undos and deals are not
# counted: the game itself allows them only in turn.  "bad": messages that are not JSON or have
# no known type.
RATES: dict[str, tuple[float, float]] = {"pace": (2.0, 8.0), "seed": (1.0, 8.0), "check": (10.0, 30.0),
                                         "sync": (1.0, 5.0), "hint": (2.0, 10.0), "ping": (5.0, 20.0),
                                         "order": (4.0, 20.0), "chat": (4.0, 12.0), "bad": (5.0, 20.0)}
PACE_SETTLE = 0.3  # seconds a table waits for more pace changes before it writes the last one
MESSAGES = ("move", "check", "hint", "undo", "next_hand", "seed", "pace", "sync", "ping", "order", "chat")  # after hello
ACTIONS = frozenset({"move", "check", "hint", "undo", "next_hand", "seed", "pace", "order", "chat"})  # a seat's socket only
SORTS = ("rank", "suit", "meld")  # how a person may have their hand sorted (the page does the sorting)
MAX_ORDER = 200  # cards in a hand's own arrangement: more than any hand holds
#: the table chat's quick phrases, by key: each page says them in its reader's language
PHRASES = ("hello", "luck", "nice", "thanks", "moment", "oops", "gg")
MAX_CHAT = 200  # characters of one chat line
CHAT_KEPT = 40  # the last chat lines a state carries
CHAT_RATE = (0.5, 5.0)  # chat lines per second and burst, per seat (all of its sockets together)
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
    chat_rate: tuple[float, float] = CHAT_RATE  # chat lines a second and burst, per seat


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


def clean_chat(text: Any) -> str | None:
    """A chat text as kept: its whitespace made single spaces, characters that are not printable
    left out; None if that leaves nothing or more than :data:`MAX_CHAT` characters."""
    if not isinstance(text, str):
        return None
    line = "".join(ch for ch in " ".join(text.split()) if ch.isprintable())
    return line if 0 < len(line) <= MAX_CHAT else None


def chat_line(ev: Event) -> dict[str, Any]:
    """A chat event as the pages get it: its number, the seat, and its text or its phrase's key."""
    phrase = (ev.data or {}).get("phrase")
    return {"id": ev.num, "seat": ev.seat, "text": None if phrase else ev.line, "phrase": phrase, "at": ev.at}


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
        self.acting = False  # a change this socket asked for is being written (Room.act)
        self.backlog: deque[dict[str, Any]] = deque()  # its messages since, handled in order after it

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
#: a write whose commit the database did not confirm (the page sends the move again with its key
#: by itself, and shows the state that comes)
UNKNOWN = N_("not known yet whether this move was saved (the table's database did not answer in time): "
             "checking; sent again with the same key it is played at most once")
#: what every seat is told when a person's turn timer ran out (a bot finishes the turn)
TIMED_OUT = N_("time ran out: the computer played for {name}")
TIMED_OUT_YOU = N_("your time ran out: the computer played your turn")
MAX_NOTICES = 20  # the notices of a hand kept (the oldest go first)


class RoomHost(Protocol):
    """What a room needs of the process that holds it: :class:`canasta.web.hub.Hub` (one
    server: jobs run on its own loop, presence is its own sockets) or
    :class:`canasta.web.cluster_hub.ClusterHub` (several: events published in Redis, jobs in
    its queue, presence in its hashes).  The room itself is the same in both."""

    @property
    def store(self) -> Store: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def metrics(self) -> Metrics: ...

    @property
    def rooms(self) -> dict[str, Room]: ...

    def on_broadcast(self, room: Room) -> None: ...

    def load_room(self, table_id: str) -> Room | None: ...

    def publish(self, table_id: str, ev: Event) -> None: ...

    def enqueue(self, fn: str, job_id: str, args: tuple[Any, ...], when: float) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None: ...

    def warn(self, text: str) -> None: ...

    async def db(self, fn: Callable[..., T], *args: Any, timeout: float = DB_TIMEOUT) -> T: ...

    async def count_socket(self, table_id: str, seat: int, delta: int) -> None: ...

    async def live_seats(self, table_id: str) -> set[int]: ...


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


ROOM_STATE = ("table", "seats", "config", "status", "seq", "takeover", "auto_turn", "present", "gone",
              "deadline", "timer_key", "deal_at", "deal_key", "last_active", "last_event_at", "notices",
              "notice_count", "chat", "play_seq", "keys")
TALK = frozenset({"chat"})  # events that say something and change nothing of the play (no bot waits for them)
RETRIES = 3  # a change lost to another writer is re-checked against the truth and tried again


@dataclass
class Room:
    """One live table: the table as its stored events made it, the sockets watching it, and
    what it waits for (bots, a turn timer, a deal, a grace period) as jobs of its hub."""

    hub: RoomHost
    id: str
    config: dict[str, Any]
    seats: list[SeatRow]
    table: Table
    seq: int  # the last event applied (the clients' seq)
    status: str
    conns: list[Conn] = field(default_factory=list)
    takeover: set[int] = field(default_factory=set)  # seats of absent people a bot plays for now
    auto_turn: int | None = None  # a seat whose turn timer ran out: a bot finishes its turn
    present: set[int] = field(default_factory=set)  # seats with a socket (on some live server)
    gone: dict[int, tuple[int, float]] = field(default_factory=dict)  # seat -> (event, time) it was last seen
    timer_key: tuple[int, int, int] | None = None  # (hand, turn, seat) the turn timer runs for
    deadline: float | None = None  # when it runs out
    deal_key: tuple[int, bool] | None = None  # (hand, now?) of the deal this table waits for
    deal_at: float | None = None  # when it deals by itself (sent to clients as auto_deal_at)
    last_active: float = field(default_factory=time.time)  # the last change, connection or disconnection
    last_event_at: float = 0.0
    jobs_sent: set[str] = field(default_factory=set)
    presence_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    write_lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one write of this table at a time here
    presence_stale: bool = False  # a presence change could not be written yet (the heartbeat tries again)
    behind: bool = False  # events were published while a write was under way
    catching: bool = False  # a task is reading missed events
    pace_wanted: float | None = None  # the pace last asked for, written by pace_task
    pace_task: asyncio.Task[None] | None = None
    #: the log and the last moves said in each language, for one state of the table (Room.said)
    said_by_lang: dict[str, tuple[tuple[Any, ...], list[dict[str, Any]], dict[str, str]]] = field(default_factory=dict)
    notices: list[Notice] = field(default_factory=list)  # public notices of the current hand
    notice_count: int = 0  # the last notice's number at this table (the page shows a new one once)
    #: seat -> how its person arranges their hand ({"sort", "cards", "hand"}): theirs alone, not an event
    #: of the game; stored beside the table (Store.save_order) and read back when the seat connects
    orders: dict[int, dict[str, Any]] = field(default_factory=dict)
    order_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    chat: list[dict[str, Any]] = field(default_factory=list)  # the table's last chat lines (its chat events)
    chat_limits: dict[int, Limiter] = field(default_factory=dict)  # seat -> its chat allowance
    play_seq: int = -1  # the last event that was not talk (TALK): what a bot's move waits for
    #: move key -> (event number, seat, the move as stored), of the last KEYS_KEPT moves sent with a key
    keys: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    unsure: bool = False  # a write's outcome is unknown: the table is read again until it is known

    # ---------------------------------------------------------------- status

    @property
    def players(self) -> int:
        return self.table.rules.players

    def filled(self) -> bool:
        return all(s.kind in ("human", "bot") for s in self.seats)

    def connected(self, seat: int) -> bool:
        return seat in self.present

    def any_human_connected(self) -> bool:
        return bool(self.present)

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

    def people(self) -> list[int]:
        return [s.seat for s in self.seats if s.kind == "human"]

    def seeds_in(self) -> bool:
        """Has every seated person's page sent its client seed for the next deal?"""
        seeds = self.table.client_seeds()
        return all(seeds[s] for s in self.people()) if seeds else True

    def may_deal(self) -> bool:
        """May the next hand (or the first) be dealt now?"""
        t = self.table
        return self.status == "playing" and not t.match_over and (not t.dealt or t.hand_over)

    def idle(self, now: float, seconds: float) -> bool:
        """Nobody connected, and no change, connection or disconnection for ``seconds``."""
        return self.status in LIVE and not self.conns and now - self.last_active >= seconds

    def level(self, seat: int) -> str:
        """The bot level that plays ``seat`` (its own, or the stand-in for an absent person)."""
        level = self.table.seats[seat] if self.table.is_bot(seat) else self.hub.settings.substitute
        return level or self.hub.settings.substitute

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
            "chat_spectators": bool(self.config.get("chat_spectators")),  # spectators read the chat
        }

    def note_timeout(self, seat: int, number: int) -> Notice:
        """Keep the notice that ``seat``'s turn timer ran out (shown to every seat); ``number``:
        the number of the event that said so."""
        t = self.table
        moves = len(t.moves[-1]) if t.moves else 0
        notice = Notice(number, "timeout", seat, t.hand_number, moves)
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
        out["order"] = self.orders.get(seat) if seat >= 0 else None
        # the chat: for the seats, and for spectators only at a table that lets them read it
        out["chat"] = self.chat[-CHAT_KEPT:] if seat >= 0 or self.config.get("chat_spectators") else None
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

    # ------------------------------------------------------------ the state

    def apply_event(self, ev: Event) -> None:
        """Apply one stored event (the next number) to this copy of the table."""
        if ev.num != self.seq + 1:
            raise CanastaError(f"event {ev.num} does not follow {self.seq}")
        apply_to_table(self.table, ev)
        apply_to_config(self.config, ev)
        k, data = ev.kind, ev.data or {}
        if k == "join":
            s = self.seats[ev.seat]
            s.kind, s.name, s.token_hash, s.invite_hash = "human", ev.line, data.get("token_hash"), None
        elif k == "presence":
            self.present = {int(x) for x in data["present"]}
            self.takeover = {int(x) for x in data["takeover"]}
            for s in self.seats:
                if s.seat in self.present:
                    self.gone.pop(s.seat, None)
                elif s.kind == "human" and s.seat not in self.gone:
                    self.gone[s.seat] = (ev.num, ev.at)
        elif k == "auto_turn":
            self.auto_turn = ev.seat
            self.note_timeout(ev.seat, ev.num)  # every process says it, and a reload from the events too
        elif k == "abandon":
            self.status = "abandoned"
        elif k == "chat":
            self.chat = [*self.chat, chat_line(ev)][-CHAT_KEPT:]
        elif k == "move" and isinstance(data.get("key"), str):
            self.keys[data["key"]] = (ev.num, ev.seat, ev.line)
            if len(self.keys) > KEYS_KEPT:
                self.keys.pop(next(iter(self.keys)))
        self.seq = ev.num
        if k not in TALK:  # a word said does not make a bot wait again, nor lose the move it is choosing
            self.play_seq = ev.num
            self.last_event_at = ev.at
        self.last_active = ev.at
        if self.status != "abandoned":
            self.status = "finished" if self.table.match_over else ("playing" if self.filled() else "open")
        t = self.table
        if self.auto_turn is not None and (not t.dealt or t.hand_over or t.to_move != self.auto_turn):
            self.auto_turn = None
        self.derive_timers(ev.at)

    def derive_timers(self, at: float) -> None:
        """The turn timer's deadline and the next deal's time, from the event that started them
        (so every process shows the same)."""
        seconds = float(self.config.get("turn_seconds") or 0)
        t = self.table
        if seconds <= 0 or not t.dealt or t.hand_over or self.status != "playing" or self.bot_plays(t.to_move):
            key = None
        else:
            key = (t.hand_number, t.turn_number, t.to_move)
        if key != self.timer_key:
            self.timer_key = key
            self.deadline = None if key is None else at + seconds
        delay = self._deal_delay()
        dkey = None if delay is None else (t.hand_number, delay == 0.0)
        if dkey != self.deal_key:
            self.deal_key = dkey
            self.deal_at = None if delay is None else at + delay

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

    # ------------------------------------------------------------ the writes

    async def commit(self, kind: str, seat: int = -1, line: str = "", data: dict[str, Any] | None = None,
                     checked: bool = False) -> bool:
        """Write a change as the next event, then apply it.  False: another writer took the
        number first; the room has been read again from the database (answer from it)."""
        async with self.writing():
            return await self.write(kind, seat, line, data, checked)

    async def write(self, kind: str, seat: int, line: str, data: dict[str, Any] | None,
                     checked: bool = False) -> bool:
        """:meth:`commit` with the write lock held.  The event is checked and completed
        against this copy first (:meth:`prepare`, which changes nothing), written, and only
        once the database holds it applied here: what a seat is shown is always a prefix of
        the stored game.  The database write runs in a thread, so the loop serves other
        tables while it waits for the commit to be durable.  :class:`NotSaved` if the
        database did not take it (this copy is then as it was).  ``checked``: a move the
        caller has just found legal here (with the write lock held), not checked again."""
        ev = Event(self.seq + 1, kind, seat, line, data, time.time())
        self.prepare(ev, checked)  # refuses an illegal move before anything is written
        joined = self.seats[seat] if kind == "join" else None
        if joined is not None:
            joined = SeatRow(joined.seat, "human", ev.line, joined.level, (data or {}).get("token_hash"))
        hands = len(self.table.moves) + (kind == "deal")
        status = "abandoned" if kind == "abandon" else self.status
        try:
            # a hung database must not hold the table: given up after DB_TIMEOUT, in a bounded
            # pool of threads (Hub.db).  If the write commits after all, the next write here
            # finds the number taken and reads the truth; meanwhile the table is read again
            # until its outcome is known (_settle)
            await self.hub.db(self.hub.store.append, self.id, ev, status, hands, joined)
        except Conflict:
            self.hub.metrics.conflicts += 1
            with contextlib.suppress(Exception):  # the database away again: what it held when last read stands
                await self.areload()
            self.broadcast()  # the truth, which the other writer's publication will not bring (it is read)
            return False
        except (Unreached, NeverRan) as exc:  # nothing of it reached the database
            self.hub.metrics.failed_writes += 1
            raise NotSaved(f"event {ev.num} of table {self.id} was not saved: {said(exc)}") from None
        except Exception as exc:  # sent, and no answer: it may be committed, now or later
            self.hub.metrics.failed_writes += 1
            if not self.unsure:
                self.unsure = True
                self.hub.spawn(self._settle())
            raise NotSaved(f"event {ev.num} of table {self.id}: outcome unknown ({said(exc)})", unknown=True) \
                from None
        was = self.status
        try:
            self.apply_event(ev)
        except CanastaError:  # never: prepare checked it; the database is the truth
            await self.areload()
        if self.status != was:  # the lobby's list and the history read it from the header row
            with contextlib.suppress(Exception):
                await self.hub.db(self.hub.store.note_status, self.id, self.status, self.seq)
        self.hub.metrics.events[kind] += 1
        self.hub.publish(self.id, ev)
        self.broadcast()
        self.schedule()
        return True

    def prepare(self, ev: Event, checked: bool = False) -> None:
        """Check that ``ev`` applies to this copy and complete it as the database must hold
        it (the move as the engine writes it; a deal's next secret), changing nothing here.
        Raises the engine's refusal if it does not apply (a move ``checked`` just now is not
        checked twice)."""
        t = self.table
        if ev.kind == "move":
            why = None if checked else t.why_not(ev.seat, ev.line)
            if why is not None:
                raise why
            ev.line = str(Move.parse(ev.line))
        elif ev.kind == "undo":
            if not t.undoable(ev.seat):
                raise TableError(NOTHING_TO_UNDO)
        elif ev.kind == "deal":
            if t.match_over or (t.dealt and not t.hand_over):
                raise TableError("there is no hand to deal now")
            if t.fair and ev.data is None:  # the next hand's secret is drawn now and goes into the event
                assert t.pending is not None
                ev.data = {"pending": FairDeal.new(t.pending.hand_number + 1, t.rules.players).to_dict()}
        elif ev.kind == "seed":
            if t.pending is None or t.match_over:
                raise TableError(NO_NEXT_DEAL)
            check_client_seed(ev.line)

    async def areload(self) -> None:
        """:meth:`reload` with the database read (and the replay) in a database thread."""
        self._take(await self.hub.db(self.hub.load_room, self.id))

    async def _settle(self, every: float = 1.0, tries: int = 120) -> None:
        """After a write whose outcome is unknown: read the table's events until the database
        answers, so that what it holds (the write, if it committed) is shown."""
        try:
            for _ in range(tries):
                await asyncio.sleep(every)
                try:
                    async with self.write_lock:
                        events = await self.hub.db(self.hub.store.events_after, self.id, self.seq)
                        changed = self.apply_all(events)
                except Exception:  # still no answer
                    continue
                if changed:
                    self.broadcast()
                    self.schedule()
                return
        finally:
            self.unsure = False

    def reload(self) -> None:
        """Read the table again from the database (after losing a race, or a gap)."""
        self._take(self.hub.load_room(self.id))

    def _take(self, fresh: Room | None) -> None:
        if fresh is None:
            return
        old = self.table
        for name in ROOM_STATE:
            setattr(self, name, getattr(fresh, name))
        self.jobs_sent = set()
        old.close()

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[None]:
        """The table's write lock; events published while it was held are read after it."""
        async with self.write_lock:
            yield
        if self.behind:
            self.want_catch_up()

    # ------------------------------------------ events written elsewhere

    def want_catch_up(self) -> None:
        """Read the missed events in a task (the database read in a thread; one task per table)."""
        if self.catching:
            self.behind = True
            return
        self.catching = True
        self.hub.spawn(self._catch_up_task())

    async def _catch_up_task(self) -> None:
        changed = False
        try:
            async with self.write_lock:
                self.behind = False
                events = await self.hub.db(self.hub.store.events_after, self.id, self.seq)
                changed = self.apply_all(events)
        finally:
            self.catching = False
        if changed:
            self.hub.metrics.caught_up += 1
            self.broadcast()
        if self.behind:
            self.want_catch_up()

    def apply_all(self, events: list[Event]) -> bool:
        """Apply the events this copy has not seen; on a failure, reload from the database.
        Whether anything changed."""
        changed = False
        for ev in events:
            if ev.num <= self.seq:
                continue
            try:
                self.apply_event(ev)
            except CanastaError:
                self.reload()
                return True
            changed = True
        return changed

    def catch_up(self) -> bool:
        """Apply the events this copy missed; True if there were any.  While this process
        writes an event of the table, they are read when the write is done."""
        if self.write_lock.locked():
            self.behind = True
            return False
        events = self.hub.store.events_after(self.id, self.seq)
        if not events:
            return False
        self.hub.metrics.caught_up += 1
        self.apply_all(events)
        return True

    def on_published(self, msg: dict[str, Any]) -> None:
        """An event another process wrote, as published on the table's channel."""
        num = int(msg["num"])
        if num <= self.seq and not self.write_lock.locked():
            return  # ours, or already read
        if self.write_lock.locked() or self.catching:  # a write or a read is under way: read after it
            self.behind = True
            return
        ev = Event.from_message(msg)
        if ev is not None and num == self.seq + 1:
            try:
                self.apply_event(ev)
            except CanastaError:
                self.want_catch_up()
                return
            self.broadcast()
        else:  # a gap, or a deal (its secret is read from the database only)
            self.want_catch_up()

    # ------------------------------------------------------------- the jobs

    def due_jobs(self) -> list[tuple[str, str, tuple[Any, ...], float]]:
        """(function, job id, arguments, when) of what this state waits for
        (:mod:`canasta.web.jobs` runs them)."""
        jobs: list[tuple[str, str, tuple[Any, ...], float]] = []
        tid = self.id
        if self.needs_bot():
            jobs.append(("bot", f"bot:{tid}:{self.play_seq}", (tid, self.play_seq), self.last_event_at + self.bot_delay))
        if self.timer_key is not None and self.deadline is not None:
            h, turn, seat = self.timer_key
            jobs.append(("turn", f"turn:{tid}:{h}:{turn}:{seat}", (tid, h, turn, seat), self.deadline))
        if self.deal_key is not None and self.deal_at is not None:
            hand, now = self.deal_key
            jobs.append(("deal", f"deal:{tid}:{hand}:{'now' if now else 'later'}", (tid, hand), self.deal_at))
        if self.status == "playing":
            grace = self.hub.settings.grace
            for seat, (num, at) in sorted(self.gone.items()):
                if seat not in self.takeover and self.seats[seat].kind == "human":
                    jobs.append(("grace", f"grace:{tid}:{seat}:{num}", (tid, seat, num), at + grace))
        return jobs

    def schedule(self, again: bool = False) -> None:
        """Enqueue the jobs this state waits for (each job id once)."""
        jobs = self.due_jobs()
        if again:
            self.jobs_sent = set()
        for fn, job_id, args, when in jobs:
            if job_id not in self.jobs_sent:
                self.hub.enqueue(fn, job_id, args, when)
        self.jobs_sent = {j[1] for j in jobs}

    def heal(self, now: float, stall: float) -> None:
        """Enqueue again what should have happened ``stall`` seconds ago and has not (its
        writer died between writing the event and enqueueing the job, or every try failed)."""
        if any(when < now - stall for _, _, _, when in self.due_jobs()):
            self.schedule(again=True)

    # ----------------------------------------------------- client requests
    # Each request takes the table's write lock, checks against the table as it is then,
    # and writes; the answer (None: done, or the error message) goes to who asked.

    def act(self, conn: Conn, work: Coroutine[Any, Any, dict[str, Any] | None]) -> None:
        """Run a change ``conn`` asked for; its answer (None: done, or the error message) goes
        back to it.  Until it is done, the socket's next messages wait (:meth:`handle`), so a
        socket's messages are handled in the order it sent them: a check sent after a move
        is answered about the position after that move."""
        conn.acting = True
        self.hub.spawn(self._acted(conn, work))

    async def _acted(self, conn: Conn, work: Coroutine[Any, Any, dict[str, Any] | None]) -> None:
        try:
            await self.answer(conn, work)
        finally:
            conn.acting = False
            while conn.backlog and not conn.acting:
                self.handle(conn, conn.backlog.popleft())

    async def answer(self, conn: Conn | None, work: Coroutine[Any, Any, dict[str, Any] | None]) -> None:
        message = await work
        if conn is not None and message is not None:
            message.setdefault("seq", self.seq)
            conn.send(message)

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
        if turn is not None:  # the table's own refusal, said from its code (canasta.play.table.TURN_REFUSALS)
            return say_error(turn.code, TURN_REFUSALS[turn.code], turn.fields)
        if self.bot_plays(seat):
            return say_error("BOT_PLAYING", N_("a bot is playing this seat's turn"))
        why = t.why_not(seat, move_text)
        if why is None:
            return None
        if isinstance(why, IllegalMoveError):
            return refused(why)
        return error("BAD_MOVE", str(why))

    def stored_move(self, key: str | None, seat: int, again: bool) -> dict[str, Any] | None:
        """The answer to a move sent with ``key`` that the table holds (None: it holds none)."""
        found = None if key is None else self.keys.get(key)
        if found is None or found[1] != seat:
            return None
        return {"type": "moved", "key": key, "num": found[0], "move": found[2], "again": again}

    async def amove(self, seat: int, move_text: Any, key: str | None = None) -> dict[str, Any] | None:
        """A seat's proposed move: played (None, or with a ``key`` the ``moved`` answer), or the
        error message saying why not.  A move whose ``key`` the table already holds is not
        played again: the answer is the stored one (a retry after an unknown outcome).  After
        a lost race the table is read again, so a retry whose first try did commit finds it."""
        started = time.perf_counter()
        for _ in range(RETRIES):
            async with self.writing():
                stored = self.stored_move(key, seat, again=True)
                if stored is not None:
                    return stored
                err = self.refusal(seat, move_text)
                if err is not None:
                    return err | {"ref": "move", "move": move_text if isinstance(move_text, str) else None}
                try:  # refusal() above checked it
                    done = await self.write("move", seat, move_text, None if key is None else {"key": key},
                                            checked=True)
                except NotSaved as exc:
                    if exc.unknown:
                        return say_error("UNKNOWN", UNKNOWN, ref="move", move=move_text, key=key)
                    return say_error("NOT_SAVED", NOT_SAVED, ref="move", move=move_text)
                except CanastaError as exc:
                    return refused(exc, ref="move") if isinstance(exc, IllegalMoveError) else error("ILLEGAL", str(exc), ref="move")
            if done:
                self.hub.metrics.move_latency.observe(time.perf_counter() - started)
                return self.stored_move(key, seat, again=False)
        return say_error("REFUSED", BUSY, ref="move")

    async def aundo(self, seat: int) -> dict[str, Any] | None:
        """Take back ``seat``'s last meld of this turn."""
        for _ in range(RETRIES):
            async with self.writing():
                if self.status != "playing" or not self.table.undoable(seat):
                    break
                try:
                    if await self.write("undo", seat, "", None):
                        return None
                except NotSaved:
                    return say_error("NOT_SAVED", NOT_SAVED, ref="undo")
        return say_error("NOTHING_TO_UNDO", NOTHING_TO_UNDO, ref="undo")

    async def adeal(self) -> bool:
        """Deal the next hand (or the first) if the table may; True if it did.  :class:`NotSaved`
        if the database did not take it."""
        for _ in range(RETRIES):
            async with self.writing():
                if not self.may_deal():
                    return False
                if await self.write("deal", -1, "", None):
                    return True
        return False

    async def _next_hand(self) -> dict[str, Any] | None:
        try:
            await self.adeal()
        except NotSaved:
            return say_error("NOT_SAVED", NOT_SAVED, ref="next_hand")
        return None

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

    async def aseed(self, seat: int, seed: str) -> dict[str, Any] | None:
        """A seated person's client seed for the next deal (checked by :meth:`seed_refusal`)."""
        for _ in range(RETRIES):
            async with self.writing():
                if self.table.pending is None or self.table.match_over:
                    return say_error("MATCH_OVER", NO_NEXT_DEAL, ref="seed")
                try:
                    if await self.write("seed", seat, seed, None):
                        return None
                except NotSaved:
                    return say_error("NOT_SAVED", NOT_SAVED, ref="seed")
                except CanastaError as exc:
                    return error("BAD_SEED", str(exc), ref="seed")
        return say_error("REFUSED", BUSY, ref="seed")

    async def _seeded(self, conn: Conn, seed: str) -> dict[str, Any] | None:
        refused_now = await self.aseed(conn.seat, seed)
        if refused_now is not None:
            return refused_now
        conn.send({"type": "seed", "hand": self.table.hand_number + 1, "seed": seed, "seq": self.seq})
        self.send_state(conn)  # after the answer too: the page reads the seed it sent in it ("my_seed")
        return None

    def want_pace(self, seconds: float, conn: Conn | None = None) -> None:
        """A player asked for a pace: the last one asked within :data:`PACE_SETTLE` is written,
        as one event (a slider dragged, or a flood of pace messages, is not an event each)."""
        self.pace_wanted = seconds
        if self.pace_task is None:
            self.pace_task = asyncio.create_task(self._settle_pace(conn))

    async def _settle_pace(self, conn: Conn | None) -> None:
        try:
            await asyncio.sleep(PACE_SETTLE)
        finally:
            self.pace_task = None
        wanted = self.pace_wanted
        if wanted is not None and wanted != self.bot_delay:
            await self.answer(conn, self.apace(wanted))

    async def apace(self, seconds: float) -> dict[str, Any] | None:
        """The bots' pause between moves at this table (checked by the caller)."""
        for _ in range(RETRIES):
            try:
                if await self.commit("pace", data={"seconds": seconds}):
                    break
            except NotSaved:
                return say_error("NOT_SAVED", NOT_SAVED, ref="pace")
        return None

    async def atake_seat(self, seat: int, name: str, token_hash: str) -> str | None:
        """A person sits down at an open (or their reserved) seat; None, or why not."""
        for _ in range(RETRIES):
            async with self.writing():
                if self.seats[seat].kind not in ("open", "reserved"):
                    return "this seat is taken"
                try:
                    if await self.write("join", seat, name, {"token_hash": token_hash}):
                        return None
                except NotSaved:
                    return NOT_SAVED
        return "the table is busy: try again"

    async def arematch(self, table_id: str) -> str:
        """Point this finished match at its rematch ``table_id``, unless one is there already
        (the first one made stands); the rematch's id.  :class:`NotSaved` if the database did
        not take it (nothing changed)."""
        for _ in range(RETRIES):
            async with self.writing():
                made = self.config.get("rematch")
                if isinstance(made, str):
                    return made
                if await self.write("rematch", -1, table_id, None):
                    return table_id
        raise NotSaved(f"the rematch of table {self.id} was not saved: the table is busy")

    async def aabandon(self) -> None:
        """Close an idle table: it stays in the store (status ``abandoned``), is no longer
        listed, loaded or played."""
        for _ in range(RETRIES):
            async with self.writing():
                if self.status not in LIVE or await self.write("abandon", -1, "", None):
                    break
        self.hub.rooms.pop(self.id, None)
        self._stop()

    # -------------------------------------------------------------- presence

    def attach(self, conn: Conn) -> None:
        """A client said hello: it gets the state.  A seat's socket counts towards its presence
        first (a change of who is here is an event, written by :meth:`sync_presence`), so the
        first state a returning player sees already shows them back."""
        self.conns.append(conn)
        self.last_active = time.time()
        if conn.seat < 0:
            self.send_state(conn)
        else:
            self.hub.spawn(self._arrive(conn))

    async def _arrive(self, conn: Conn) -> None:
        try:
            with contextlib.suppress(Exception):  # the database away: the order this server holds, if any
                found = await self.hub.db(self.hub.store.load_order, self.id, conn.seat)
                if found is not None:  # written here, or by another server of a cluster
                    self.orders[conn.seat] = found
            await self.count_socket(conn.seat, +1)
        finally:
            if conn in self.conns and conn.last_sent_seq != self.seq:  # no event sent it the state
                self.send_state(conn)

    def detach(self, conn: Conn) -> None:
        if conn in self.conns:
            self.conns.remove(conn)
        self.last_active = time.time()
        if conn.seat >= 0:
            self.hub.spawn(self.count_socket(conn.seat, -1))
        if self.status == "finished" and not self.conns:
            self.hub.rooms.pop(self.id, None)  # it lives on in the store (history, replay)

    async def count_socket(self, seat: int, delta: int) -> None:
        async with self.presence_lock:
            try:
                await self.hub.count_socket(self.id, seat, delta)
                await self.sync_presence()
            except Exception as exc:  # Redis or the database away: the heartbeat writes it when they are back
                self.presence_stale = True
                self.hub.warn(f"presence of table {self.id}: {said(exc)}")

    def presence_lags(self) -> bool:
        """Does the table show one of this server's connected seats away (its presence was
        lost with Redis, or while this process was paused), or did a presence write fail?"""
        mine = {c.seat for c in self.conns if c.seat >= 0}
        return self.presence_stale or bool(mine - self.present) or bool(mine & self.takeover)

    async def sync_presence(self) -> None:
        """Write a presence event if the seats connected anywhere are not those the table shows.
        They are read with the write lock held, so what is written is never older than the
        table it is written on (a race with another server's presence event is lost at the
        database, and re-read)."""
        for _ in range(RETRIES):
            async with self.writing():
                live = await self.hub.live_seats(self.id)
                if (live == self.present and not (self.takeover & live)) or self.status not in LIVE:
                    self.presence_stale = False
                    return
                try:
                    done = await self.write("presence", -1, "", {"present": sorted(live),
                                                                  "takeover": sorted(self.takeover - live)})
                except NotSaved:
                    self.presence_stale = True
                    return
                if done:
                    self.presence_stale = False
                    return

    async def take_over(self, seat: int, num: int) -> None:
        """The grace period of ``seat`` (away since event ``num``) is over: a bot plays it
        until the person is back."""
        for _ in range(RETRIES):
            async with self.writing():
                seen = self.gone.get(seat)
                if self.status != "playing" or seen is None or seen[0] != num or seat in self.takeover:
                    return
                live = await self.hub.live_seats(self.id)
                if seat in live:
                    return  # back: the server it is on writes the presence event
                if await self.write("presence", -1, "", {"present": sorted(live),
                                                          "takeover": sorted((self.takeover - live) | {seat})}):
                    return

    # ------------------------------------------------------------- lifetime

    def _stop(self) -> None:
        if self.pace_task is not None:
            self.pace_task.cancel()
        self.table.close()

    async def shutdown(self) -> None:
        for c in list(self.conns):
            await c.close()
        self._stop()

    # --------------------------------------------------------------- messages

    def handle(self, conn: Conn, msg: dict[str, Any]) -> None:
        """One message from a client who has said hello: the checks every message passes
        (the socket's rate, a seat for acting), then its handler (``on_`` + its type)."""
        kind = msg.get("type")
        ref = kind if isinstance(kind, str) else None

        def reply(m: dict[str, Any]) -> None:  # every reply carries the table's current event number
            m.setdefault("seq", self.seq)
            conn.send(m)

        if conn.acting:  # a change this socket asked for is being written: after it, in order
            if len(conn.backlog) >= MAX_BACKLOG:
                reply(say_error("TOO_FAST", N_("too many messages while your last change is being saved; "
                                               "wait a moment"), ref=ref))
                return
            conn.backlog.append(msg)
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
            refused_now = self.acting_refusal(conn.seat, msg, str(kind))
            if refused_now is not None:
                reply(refused_now)
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
        refused_now = self.seed_refusal(msg.get("seed"))
        if refused_now is not None:
            reply(refused_now)
            return
        self.act(conn, self._seeded(conn, msg["seed"]))

    def on_pace(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        seconds = msg.get("seconds")
        if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds <= MAX_BOT_DELAY:
            reply(error("BAD_MESSAGE", f"the bots' pace is a number of seconds from 0 to {MAX_BOT_DELAY:g}",
                        ref="pace"))
            return
        self.want_pace(float(seconds), conn)

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
        text, key = msg.get("move"), msg.get("key")
        if not isinstance(text, str) or not text.strip():
            reply((self.refusal(conn.seat, text) or {}) | {"ref": "move", "move": None})
            return
        if not (key is None or (isinstance(key, str) and 0 < len(key) <= MAX_KEY and key.isprintable())):
            reply(error("BAD_MESSAGE", f"a move's \"key\" is a text of 1 to {MAX_KEY} characters, the same "
                        "for the same move sent again (or leave it out)", ref="move", move=text))
            return
        self.act(conn, self.amove(conn.seat, text, key))

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
        self.act(conn, self.aundo(conn.seat))

    def on_order(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        """How this seat's person arranges their hand: sorted by ``sort``, or in their own order
        (``cards``, the hand's cards as they lie, dragged into place).  Kept for the seat (a
        reconnect, another of its pages, a restart find it), sent to its sockets only."""
        sort, cards = msg.get("sort"), msg.get("cards")
        if sort not in SORTS or not (cards is None or (isinstance(cards, list) and len(cards) <= MAX_ORDER
                                                       and all(isinstance(c, str) for c in cards))):
            reply(error("BAD_MESSAGE", f"an order is {{\"sort\": one of {', '.join(SORTS)}, \"cards\": the hand's "
                        f"cards in your order (at most {MAX_ORDER}) or null}}", ref="order"))
            return
        try:
            own = None if cards is None else [card_str(parse_card(c)) for c in cards]
        except NotationError as exc:
            reply(error("BAD_MESSAGE", f"{exc}: cards in notation (\"8H\")", ref="order"))
            return
        order = {"sort": sort, "cards": own, "hand": self.table.hand_number}
        self.orders[conn.seat] = order
        self.hub.spawn(self._save_order(conn, order))

    async def _save_order(self, conn: Conn, order: dict[str, Any]) -> None:
        """Store a seat's order, then tell its sockets (the one that sent it learns it is kept)."""
        async with self.order_lock:  # one at a time, in the order they came: the last one stands
            try:
                await self.hub.db(self.hub.store.save_order, self.id, conn.seat, order)
            except Exception:  # kept by this server only; said to the page, which keeps its own
                conn.send(say_error("NOT_SAVED", NOT_SAVED, ref="order") | {"seq": self.seq})
                return
        for c in self.conns:
            if c.seat == conn.seat:
                c.send({"type": "order", "order": order, "seq": self.seq})

    def on_chat(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        """A line of the table chat: a quick phrase (``phrase``, one of :data:`PHRASES`, said in
        each reader's language) or a text of at most :data:`MAX_CHAT` characters (``text``, shown
        as text, never as markup).  Kept with the table as its event; each seat has an allowance
        (:attr:`Settings.chat_rate`) shared by its sockets."""
        phrase, text = msg.get("phrase"), msg.get("text")
        line = "" if phrase in PHRASES and text is None else clean_chat(text) if phrase is None else None
        if line is None:
            reply(error("BAD_MESSAGE", f"a chat line is {{\"phrase\": one of {', '.join(PHRASES)}}} or "
                        f"{{\"text\": at most {MAX_CHAT} characters}}", ref="chat"))
            return
        if self.status not in LIVE and self.status != "finished":
            reply(say_error("REFUSED", N_("this table is closed"), ref="chat"))
            return
        allowance = self.chat_limits.setdefault(conn.seat, Limiter({"chat": self.hub.settings.chat_rate}))
        if allowance.take("chat") is not None:
            reply(say_error("TOO_FAST", N_("you are chatting too fast: wait a moment"), ref="chat"))
            return
        self.act(conn, self.achat(conn.seat, line, phrase))

    async def achat(self, seat: int, line: str, phrase: str | None) -> dict[str, Any] | None:
        """Write a chat line as the table's next event."""
        for _ in range(RETRIES):
            try:
                if await self.commit("chat", seat, line, {"phrase": phrase} if phrase else None):
                    return None
            except NotSaved:
                return say_error("NOT_SAVED", NOT_SAVED, ref="chat")
        return say_error("REFUSED", BUSY, ref="chat")

    def on_next_hand(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        t = self.table
        if not t.dealt:
            reply(say_error("WAITING", FIRST_DEAL_WAITS, ref="next_hand"))
            return
        if not t.hand_over or t.match_over:
            reply(say_error("HAND_NOT_OVER", N_("the hand is still being played"), ref="next_hand")
                  if not t.hand_over else say_error("MATCH_OVER", N_("the match is over"), ref="next_hand"))
            return
        self.act(conn, self._next_hand())


__all__ = ["BOT_LEVELS", "MAX_MESSAGE", "ROOM_STATE", "Conn", "Room", "RoomHost", "Settings", "error"]
