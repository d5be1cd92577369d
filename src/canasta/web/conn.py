"""A client's socket as a room sees it: the limits on its messages, its token buckets
(:class:`Limiter`), the queue a slow client cannot hold a table up with (:class:`Conn`), and
the reading of the messages' shapes every handler shares (a selection, a chat line)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from canasta.engine.cards import parse_card, parse_rank
from canasta.engine.errors import NotationError
from canasta.present import Selection
from canasta.web.language import localize
from canasta.web.store import (
    Event,
)

MAX_MESSAGE = 4096
MAX_CHECKS = 16
MAX_GROUPS = 12  # groups set aside in one selection (a check's "selection")
MAX_PICKED = 60  # cards in one selection: more than any hand holds
MAX_QUEUE = 512  # messages waiting for one slow client
MAX_BACKLOG = 64  # a socket's messages waiting for the change it asked for to be written
MAX_REF = 64  # characters of a check message's "id"
MAX_KEY = 64  # characters of a move's idempotency key ("key")
MESSAGES = ("move", "check", "hint", "undo", "next_hand", "seed", "pace", "sync", "ping", "order", "chat",
            "pause")  # after hello
ACTIONS = frozenset({"move", "check", "hint", "undo", "next_hand", "seed", "pace", "order", "chat",
                     "pause"})  # a seat's socket only
SORTS = ("rank", "suit", "meld")  # how a person may have their hand sorted (the page does the sorting)
MAX_ORDER = 200  # cards in a hand's own arrangement: more than any hand holds
MAX_CHAT = 200  # characters of one chat line
CHAT_RATE = (0.5, 5.0)  # chat lines per second and burst, per seat (all of its sockets together)
Reply = Callable[[dict[str, Any]], None]
#: the table chat's quick phrases, by key: each page says them in its reader's language
PHRASES = ("hello", "luck", "nice", "thanks", "moment", "oops", "gg")

class Sink(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...

# per socket and kind of message: (messages a second, burst).  Moves, undos and deals are not
# counted: the game itself allows them only in turn.  "bad": messages that are not JSON or have
# no known type.
RATES: dict[str, tuple[float, float]] = {"pace": (2.0, 8.0), "seed": (1.0, 8.0), "check": (10.0, 30.0),
                                         "sync": (1.0, 5.0), "hint": (2.0, 10.0), "ping": (5.0, 20.0),
                                         "order": (4.0, 20.0), "chat": (4.0, 12.0), "pause": (2.0, 10.0),
                                         "bad": (5.0, 20.0)}


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
        self.account: str | None = None  # the account whose socket it is (canasta.web.social), if any
        self.muted: frozenset[str] = frozenset()  # the accounts it mutes: their chat is not sent to it

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

