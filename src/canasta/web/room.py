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
    {"type": "pause", "do": "ask"}   the game's pause: "ask", "agree", "decline" or "resume" (canasta.web.pause)
    {"type": "chat", "text": "..."}  {"type": "chat", "phrase": "gg"}   a line of the table chat (an event)

Messages to a client: ``welcome``, ``state`` (carries ``seq``: the table's event
number; a reconnecting client sends the last one it saw), ``check``, ``hint``,
``error`` (``code`` and ``message``; nothing was changed, except for ``UNKNOWN``: the
database did not say whether a move was stored; send it again with the same key),
``moved`` (a move sent with a key is stored: its event ``num`` and ``move`` as stored;
``again``: it had been stored before, this is that stored result), ``pong``.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from canasta.engine.cards import card_str, parse_card
from canasta.engine.errors import NotationError
from canasta.engine.moves import Move
from canasta.i18n import N_, translator
from canasta.present import candidates, proposal
from canasta.web.conn import (
    ACTIONS,
    MAX_BACKLOG,
    MAX_CHAT,
    MAX_CHECKS,
    MAX_KEY,
    MAX_MESSAGE,
    MAX_ORDER,
    MAX_QUEUE,
    MAX_REF,
    MESSAGES,
    PHRASES,
    RATES,
    SORTS,
    Conn,
    Limiter,
    Reply,
    clean_chat,
    error,
    read_selection,
)
from canasta.web.language import REFUSAL, TEMPLATE, say_error
from canasta.web.pause import DOES, PAUSED
from canasta.web.room_state import (
    BOT_LEVELS,
    BUSY,
    DB_UNAVAILABLE,
    FALLBACK_BOT,
    FIRST_DEAL_WAITS,
    LIVE,
    MAX_BOT_DELAY,
    NOT_SAVED,
    NOTHING_TO_UNDO,
    QUICK_BOTS,
    RETRIES,
    ROOM_STATE,
    TIMED_OUT,
    TIMED_OUT_YOU,
    UNKNOWN,
    Notice,
    RoomHost,
    RoomState,
    Settings,
)
from canasta.web.room_writes import RoomWrites
from canasta.web.store import (
    NotSaved,
)


class Room(RoomWrites):
    """One live table: the table as its stored events made it, the sockets watching it, and
    what it waits for (bots, a turn timer, a deal, a grace period) as jobs of its hub
    (:class:`RoomState`); its writes (:class:`RoomWrites`); and here, the messages of its
    clients, each passed to its handler (``on_`` + its type) once the checks every message
    passes are done."""

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
        if self.config.get("rated"):  # a bot's advice has no place in a rated game (canasta.web.rated)
            reply(say_error("REFUSED", N_("no hints at a rated table"), ref="hint"))
            return
        if self.status != "playing" or t.hand_over or t.to_move != seat:
            reply(say_error("NOT_YOUR_TURN", N_("a hint is given only when it is your move"), ref="hint"))
            return
        move = t.hint(seat)
        reply({"type": "hint", "move": str(move), "text": proposal(move, t.rules, translator(conn.lang))})

    def on_pause(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        """``{"type": "pause", "do": "ask" | "agree" | "decline" | "resume"}``: the game's pause
        (:mod:`canasta.web.pause`); refused with its reason if it makes no sense now."""
        does = msg.get("do")
        if does not in DOES:
            reply(error("BAD_MESSAGE", f"a pause message is {{\"do\": one of {', '.join(DOES)}}}", ref="pause"))
            return
        refused_now = self.pause_refusal(conn.seat, does)
        if refused_now is not None:
            reply(refused_now)
            return
        self.act(conn, self.apause(conn.seat, does))

    def on_undo(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        if self.paused:
            reply(say_error(*PAUSED, ref="undo"))
            return
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
        self.act(conn, self.achat(conn.seat, line, phrase, conn.account))

    async def achat(self, seat: int, line: str, phrase: str | None, by: str | None = None) -> dict[str, Any] | None:
        """Write a chat line as the table's next event (``by``: the account whose socket said it,
        kept in the event so a player who mutes it is not sent it: :mod:`canasta.web.social`)."""
        for _ in range(RETRIES):
            try:
                data = {k: v for k, v in (("phrase", phrase), ("by", by)) if v}
                if await self.commit("chat", seat, line, data or None):
                    return None
            except NotSaved:
                return say_error("NOT_SAVED", NOT_SAVED, ref="chat")
        return say_error("REFUSED", BUSY, ref="chat")

    def on_next_hand(self, conn: Conn, msg: dict[str, Any], reply: Reply) -> None:
        t = self.table
        if self.paused:
            reply(say_error(*PAUSED, ref="next_hand"))
            return
        if not t.dealt:
            reply(say_error("WAITING", FIRST_DEAL_WAITS, ref="next_hand"))
            return
        if not t.hand_over or t.match_over:
            reply(say_error("HAND_NOT_OVER", N_("the hand is still being played"), ref="next_hand")
                  if not t.hand_over else say_error("MATCH_OVER", N_("the match is over"), ref="next_hand"))
            return
        self.act(conn, self._next_hand())



#: the names other modules and the tests read here, wherever they are defined
__all__ = ["BOT_LEVELS", "DB_UNAVAILABLE", "FALLBACK_BOT", "LIVE", "MAX_BOT_DELAY", "MAX_MESSAGE", "MAX_QUEUE",
           "NOT_SAVED", "QUICK_BOTS", "RATES", "ROOM_STATE", "TIMED_OUT", "TIMED_OUT_YOU", "UNKNOWN", "Conn",
           "Limiter", "Notice", "Room", "RoomHost", "RoomState", "RoomWrites", "Settings", "error"]
