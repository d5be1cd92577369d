"""A live table's state: what :class:`RoomState` holds (the table as its stored events made
it, who is here, the timers), what it sends (each seat's own view beside the public things),
how an event changes it (:meth:`RoomState.apply_event`, the one way), and the jobs that state
waits for (:meth:`RoomState.due_jobs`).  The writes are :mod:`canasta.web.room_writes`'s, the
messages :mod:`canasta.web.room`'s."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from canasta.bots import LEVELS
from canasta.engine.errors import CanastaError
from canasta.i18n import DEFAULT, N_, translator
from canasta.i18n.words import seat_name
from canasta.play.table import Table
from canasta.present import describe
from canasta.review import DEFAULT_WORLDS
from canasta.views.seat import pile_note_list, table_note_list
from canasta.web.conn import CHAT_RATE, RATES, Conn, Limiter, chat_line
from canasta.web.language import say_error
from canasta.web.metrics import Metrics
from canasta.web.pause import (
    RATED_PAUSES,
    RESUME_SECONDS,
    Pause,
    apply_pause,
    complete,
    pause_refusal,
    voters,
)
from canasta.web.pause import public as pause_public
from canasta.web.store import (
    DB_TIMEOUT,
    Event,
    SeatRow,
    Store,
    apply_to_config,
    apply_to_table,
)

T = TypeVar("T")

BOT_LEVELS = LEVELS  # named levels only: a cmd: bot would run a command line on the server
MAX_BOT_DELAY = 5.0  # the slowest bot pace a table may ask for, in seconds
LOG_LINES = 60
QUICK_BOTS = ("random", "basic")  # levels that choose in well under a millisecond: played on the loop
FALLBACK_BOT = "basic"  # plays a move the bot pool did not answer in time
KEYS_KEPT = 256  # the last move keys a table remembers (a retry comes within seconds)
LIVE = ("open", "playing")  # a table in play; "finished" and "abandoned" tables are over
CHAT_KEPT = 40  # the last chat lines a state carries


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
    listed_per_address: int = 3  # open tables made from one client address that the lobby lists (0: no limit)
    idle_hours: float = 24.0  # a table nobody is connected to and nobody played at for this long closes (0: never)
    bot_workers: int | None = None  # processes for the searching bots (None: cores - 1; 0: a thread, as before)
    bot_timeout: float = 3.0  # seconds a pooled bot decision may take, waiting included; then a basic bot moves
    auto_deal: float = 15.0  # a table with at most one person deals the next hand by itself after this (0: never)
    message_rates: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(RATES))  # per socket
    allowed_hosts: tuple[str, ...] = ()  # Host names the server answers to (canasta.web.guards.host_allowed); (): any
    review_worlds: int = DEFAULT_WORLDS  # worlds sampled per reviewed decision (tests: a few)
    review_workers: int = 1  # processes that compute reviews (0: a thread of the server process)
    #: worlds one review of a hand may sample in all (decisions x worlds): bounds a review's cost
    review_work: int = 6144
    chat_rate: tuple[float, float] = CHAT_RATE  # chat lines a second and burst, per seat
    metrics_token: str | None = None  # /metrics for a bearer of this token (None: this machine only)
    passkey_rp_id: str | None = None  # WebAuthn RP id (None: the host the page was asked by; canasta.web.passkeys)
    passkey_origins: tuple[str, ...] = ()  # origins passkeys are used from (): the page's own and allow_origins


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
#: the pause's steps, told to every seat and kept in the log (``pause_start``'s seat: who asked)
PAUSE_NOTICES = {"pause_ask": N_("{name} asks for a pause"), "pause_decline": N_("{name} declines the pause"),
                 "pause_start": N_("the game is paused: every player agreed"),
                 "pause_resume": N_("{name} resumes the game")}
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
    def rooms(self) -> dict[str, Any]: ...  # table id -> its Room

    def on_broadcast(self, room: Any) -> None: ...  # a Room has sent its state

    def load_room(self, table_id: str) -> RoomState | None: ...

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
              "notice_count", "chat", "play_seq", "keys", "pause", "pauses", "resumed")
TALK = frozenset({"chat"})  # events that say something and change nothing of the play (no bot waits for them)
RETRIES = 3  # a change lost to another writer is re-checked against the truth and tried again


@dataclass
class RoomState:
    """One live table's state: the table as its stored events made it, the sockets watching
    it, and what it waits for (bots, a turn timer, a deal, a grace period) as jobs of its hub."""

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
    chat_by: dict[int, str] = field(default_factory=dict)  # a chat line's id -> the account that said it
    play_seq: int = -1  # the last event that was not talk (TALK): what a bot's move waits for
    #: move key -> (event number, seat, the move as stored), of the last KEYS_KEPT moves sent with a key
    keys: dict[str, tuple[int, int, str]] = field(default_factory=dict)
    unsure: bool = False  # a write's outcome is unknown: the table is read again until it is known
    pause: Pause | None = None  # a pause asked for, or in force (canasta.web.pause)
    pauses: int = 0  # the pauses that started in this match
    resumed: int = 0  # the event that last resumed play (0: none): the timers' jobs after it are new ones
    #: the turn timer a resume gives back (its key and seconds left), for derive_timers
    resume_held: tuple[tuple[int, int, int], float] | None = None

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

    @property
    def paused(self) -> bool:
        """Is the game paused (every person agreed), its clock stopped?"""
        return self.pause is not None and self.pause.paused

    @property
    def pause_limit(self) -> int | None:
        """The pauses this match allows (None: any number): a rated one, :data:`RATED_PAUSES`."""
        limit = self.config.get("pauses")
        if isinstance(limit, int) and not isinstance(limit, bool):
            return limit
        return RATED_PAUSES if self.config.get("rated") else None

    def pause_refusal(self, seat: int, does: str) -> dict[str, Any] | None:
        """Why ``seat`` may not ``does`` (ask, agree, decline, resume) about a pause now, or None."""
        why = pause_refusal(self.pause, self.pauses, self.pause_limit, self.status, seat, does)
        if why is None:
            return None
        code, template, fields = why
        return say_error(code, template, fields, ref="pause")

    def start_pause_if_agreed(self, at: float, number: int) -> None:
        """Every person has agreed to the pause asked for: it starts now (the turn timer keeps
        what it had left), and the log says so; ``number``: the event that made it start."""
        if not complete(self.pause, voters(self.seats, self.takeover)):
            return
        assert self.pause is not None
        self.pause.paused_at = at
        if self.timer_key is not None and self.deadline is not None:
            self.pause.held = (self.timer_key, max(0.0, self.deadline - at))
        self.pauses += 1
        self.note(number, "pause_start", self.pause.asked_by)

    def bot_plays(self, seat: int) -> bool:
        return self.table.is_bot(seat) or seat in self.takeover or seat == self.auto_turn

    def needs_bot(self) -> bool:
        t = self.table
        return (self.status == "playing" and t.dealt and not t.hand_over and self.any_human_connected()
                and self.bot_plays(t.to_move) and not self.paused)

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
        return self.status == "playing" and not t.match_over and (not t.dealt or t.hand_over) and not self.paused

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
            "rated": self.config.get("rated"),  # a rated table's pool (canasta.web.rated), or null
            "pause": pause_public(self.pause, voters(self.seats, self.takeover), self.pauses, self.pause_limit),
        }

    def note_timeout(self, seat: int, number: int) -> Notice:
        """Keep the notice that ``seat``'s turn timer ran out (shown to every seat); ``number``:
        the number of the event that said so."""
        return self.note(number, "timeout", seat)

    def note(self, number: int, kind: str, seat: int) -> Notice:
        """Keep a notice of ``kind`` about ``seat`` (a turn timer run out, a pause's step), placed
        in the log after the moves of the hand played so far; ``number``: the event's."""
        t = self.table
        moves = len(t.moves[-1]) if t.moves else 0
        notice = Notice(number, kind, seat, t.hand_number, moves)
        self.keep_notices([*self.notices, notice])
        return notice

    def notice_text(self, n: Notice, seat: int, tr: Any) -> str:
        """A notice said in ``tr``'s language to the connection at ``seat`` (None: as the log
        says it to everyone): "your time ran out" to the seat it ran out for."""
        name = seat_name(self.table.names[n.seat], tr)
        if n.kind in PAUSE_NOTICES:
            return str(tr.gettext(PAUSE_NOTICES[n.kind])).format(name=name)
        if n.seat == seat:
            return str(tr.gettext(TIMED_OUT_YOU))
        return str(tr.gettext(TIMED_OUT)).format(name=name)

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
        tr = translator(lang)
        return [{"id": n.id, "kind": n.kind, "seat": n.seat, "hand": n.hand, "after": n.after,
                 "text": self.notice_text(n, seat, tr)} for n in self.current_notices()]

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
                     "text": self.notice_text(n, -1, tr)} for n in notices]
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
                out.append(RoomState.notice_line(pending.pop(0)))
        return out + [RoomState.notice_line(n) for n in pending]  # after moves taken back

    @staticmethod
    def notice_line(n: dict[str, Any]) -> dict[str, Any]:
        return {"kind": "notice", "notice": n["kind"], "id": n["id"], "seat": n["seat"],
                "n": None, "move": None, "text": n["text"], "does": None}

    def payload_for(self, seat: int, public: dict[str, Any], lang: str = DEFAULT,
                    muted: frozenset[str] = frozenset()) -> dict[str, Any]:
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
            out["table_note_keys"] = [note._asdict() for note in table_note_list(seen)]
        else:
            out["view"] = None
            out["pile_notes"] = out["pile_note_keys"] = out["table_note_keys"] = []
        out["undoable"] = self.table.undoable(seat) if seat >= 0 else 0
        out["order"] = self.orders.get(seat) if seat >= 0 else None
        # the chat: for the seats, and for spectators only at a table that lets them read it
        out["chat"] = self.chat[-CHAT_KEPT:] if seat >= 0 or self.config.get("chat_spectators") else None
        if muted and out["chat"]:  # the lines of accounts this socket's player muted are not sent to it
            out["chat"] = [c for c in out["chat"] if self.chat_by.get(c["id"]) not in muted]
        mine = self.table.client_seeds()[seat] if seat >= 0 and self.table.pending is not None else ""
        out["my_seed"] = mine or None
        return out

    def broadcast(self) -> None:
        public = self.public()
        cache: dict[tuple[int, str, frozenset[str]], str] = {}
        for c in self.conns:
            key = (c.seat, c.lang, c.muted)
            if key not in cache:
                cache[key] = json.dumps(self.payload_for(c.seat, public, c.lang, c.muted))
            c.last_sent_seq = self.seq
            c.send(cache[key])
        self.hub.on_broadcast(self)

    def send_state(self, conn: Conn) -> None:
        conn.last_sent_seq = self.seq
        conn.send(self.payload_for(conn.seat, self.public(), conn.lang, conn.muted))

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
            self.start_pause_if_agreed(ev.at, ev.num)  # the last one to agree is now played by a stand-in
        elif k == "pause":
            if ev.line == "resume":
                self.resume_held = self.pause.held if self.pause is not None else None
                self.pause, self.resumed = None, ev.num
                self.gone = {seat: (ev.num, ev.at) for seat in self.gone}  # the grace periods start afresh
                self.note(ev.num, "pause_resume", ev.seat)
            else:
                self.pause = apply_pause(self.pause, ev.line, ev.seat, ev.at)
                if ev.line in ("ask", "decline"):
                    self.note(ev.num, f"pause_{ev.line}", ev.seat)
                self.start_pause_if_agreed(ev.at, ev.num)  # its notice replaces the ask's, if at once
        elif k == "auto_turn":
            self.auto_turn = ev.seat
            self.note_timeout(ev.seat, ev.num)  # every process says it, and a reload from the events too
        elif k == "abandon":
            self.status = "abandoned"
        elif k == "chat":
            self.chat = [*self.chat, chat_line(ev)][-CHAT_KEPT:]
            if data.get("by"):
                self.chat_by[ev.num] = str(data["by"])
                if len(self.chat_by) > 2 * CHAT_KEPT:
                    kept = {c["id"] for c in self.chat}
                    self.chat_by = {k: v for k, v in self.chat_by.items() if k in kept}
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
        if self.pause is not None and not self.paused and self.status != "playing":
            self.pause = None  # a request the match ended under (or the table closed) is void
        t = self.table
        if self.auto_turn is not None and (not t.dealt or t.hand_over or t.to_move != self.auto_turn):
            self.auto_turn = None
        self.derive_timers(ev.at)

    def derive_timers(self, at: float) -> None:
        """The turn timer's deadline and the next deal's time, from the event that started them
        (so every process shows the same)."""
        seconds = float(self.config.get("turn_seconds") or 0)
        t = self.table
        if seconds <= 0 or not t.dealt or t.hand_over or self.status != "playing" or self.bot_plays(t.to_move) \
                or self.paused:
            key = None
        else:
            key = (t.hand_number, t.turn_number, t.to_move)
        if key != self.timer_key:
            self.timer_key = key
            held = self.resume_held
            if key is None:
                self.deadline = None
            elif held is not None and held[0] == key:  # resumed: the seconds it had left when it stopped
                self.deadline = at + max(held[1], min(seconds, RESUME_SECONDS))
            else:
                self.deadline = at + seconds
        self.resume_held = None
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
        if self.status != "playing" or t.match_over or self.paused:
            return None
        if not t.dealt:
            return 0.0 if self.seeds_in() else self.hub.settings.grace
        pause = self.hub.settings.auto_deal
        if t.hand_over and len(self.people()) <= 1 and pause > 0:
            return pause
        return None

    # ------------------------------------------------------------- the jobs

    def due_jobs(self) -> list[tuple[str, str, tuple[Any, ...], float]]:
        """(function, job id, arguments, when) of what this state waits for
        (:mod:`canasta.web.jobs` runs them)."""
        jobs: list[tuple[str, str, tuple[Any, ...], float]] = []
        tid = self.id
        again = f":r{self.resumed}" if self.resumed else ""  # a timer resumed is a new job (the old one may wait still)
        if self.needs_bot():
            jobs.append(("bot", f"bot:{tid}:{self.play_seq}", (tid, self.play_seq), self.last_event_at + self.bot_delay))
        if self.timer_key is not None and self.deadline is not None:
            h, turn, seat = self.timer_key
            jobs.append(("turn", f"turn:{tid}:{h}:{turn}:{seat}{again}", (tid, h, turn, seat), self.deadline))
        if self.deal_key is not None and self.deal_at is not None:
            hand, now = self.deal_key
            jobs.append(("deal", f"deal:{tid}:{hand}:{'now' if now else 'later'}{again}", (tid, hand), self.deal_at))
        if self.status == "playing" and not self.paused:  # no grace period runs out during a pause
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

