"""External bots: any program that speaks the line protocol ``canasta-bot/1``.

One JSON object per line, over the program's stdin and stdout:

==========================================  ==============================================
engine -> bot                               bot -> engine
==========================================  ==============================================
``{"type": "hello", "protocol":             ``{"type": "ready", "name": "my bot"}``
"canasta-bot/1", "rules": {...},
"seat": 2}``
``{"type": "turn", "view": {...},           ``{"type": "move", "move": "discard 9C"}``
"legal": ["draw", ...], "time_ms": 5000}``
``{"type": "hand_over", "scores": [...]}``  (nothing)
``{"type": "bye"}``                         (the bot exits)
==========================================  ==============================================

``view`` is the seat view (:meth:`canasta.views.seat.SeatView.to_dict`); ``legal``
lists the legal moves in notation (any other legal move is accepted too).

Fallback: a bot that answers an illegal move, garbage, too late or not at all
gets the first move of ``legal`` played for it, and the problem is recorded in
:attr:`ExternalBot.errors` (the arena prints them).  A bot that has died or
stopped answering is not asked again; the fallback plays for it.  The game is
never corrupted: every move goes through the engine's checks.
"""

from __future__ import annotations

import json
import os
import selectors
import shlex
import subprocess
import time
from typing import Any

from canasta.bots.base import Bot, world
from canasta.engine.errors import CanastaError, NotationError
from canasta.engine.moves import Move
from canasta.views.seat import SeatView

PROTOCOL = "canasta-bot/1"
MAX_LINE = 1 << 20


def command_words(command: str) -> list[str]:
    """The program and arguments of an external bot's command line (as a shell splits it);
    an empty or unreadable one is refused in one line."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise CanastaError(f"cannot read the external bot's command {command!r}: {exc} "
                           "(quote it as a shell would)") from None
    if not words:
        raise CanastaError("an external bot needs a command after 'cmd:', e.g. cmd:python my_bot.py")
    return words


class ExternalBot(Bot):
    name = "external"

    def __init__(self, command: str, seed: int = 0, time_ms: int = 5000, start_ms: int = 10000) -> None:
        super().__init__(seed)
        self.command = command
        self.time_ms = time_ms
        self.start_ms = start_ms
        self.errors: list[str] = []
        self.dead = False
        self._buf = b""
        self._seat = -1
        words = command_words(command)
        try:
            self.proc = subprocess.Popen(words, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise CanastaError(f"cannot start external bot {command!r}: {exc.strerror}") from None
        assert self.proc.stdout is not None
        os.set_blocking(self.proc.stdout.fileno(), False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)

    # -- transport -------------------------------------------------------------

    def _send(self, msg: dict[str, Any]) -> None:
        if self.dead:
            return
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._die("the bot's input is closed (it has exited)")

    def _read(self, timeout_ms: int) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout_ms / 1000
        assert self.proc.stdout is not None
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self._die(f"no answer within {timeout_ms} ms")
                return None
            if not self._sel.select(left):
                continue
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                self._die("the bot exited")
                return None
            self._buf += chunk
            if len(self._buf) > MAX_LINE:
                self._die("the bot sent a line longer than 1 MiB")
                return None
        line, _, self._buf = self._buf.partition(b"\n")
        try:
            msg = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            self.errors.append(f"not JSON: {line[:80]!r}")
            return None
        if not isinstance(msg, dict):
            self.errors.append(f"not a JSON object: {line[:80]!r}")
            return None
        return msg

    def _die(self, why: str) -> None:
        if not self.dead:
            self.errors.append(why + "; the fallback plays for it from now on")
        self.dead = True

    # -- the bot ---------------------------------------------------------------

    def _hello(self, view: SeatView) -> None:
        self._seat = view.seat
        self._send({"type": "hello", "protocol": PROTOCOL, "rules": view.rules.to_dict(), "seat": view.seat})
        msg = self._read(self.start_ms)
        if msg is not None and msg.get("type") == "ready":
            self.name = str(msg.get("name", "external"))[:40]
        elif msg is not None:
            self.errors.append(f"expected a 'ready' message, got {msg.get('type')!r}")

    def choose(self, view: SeatView) -> Move:
        if self._seat < 0:
            self._hello(view)
        legal = list(world(view, self.rng).generate())
        fallback = legal[0]
        if self.dead:
            return fallback
        self._send({"type": "turn", "view": view.to_dict(), "legal": [str(m) for m in legal],
                    "time_ms": self.time_ms})
        msg = self._read(self.time_ms)
        if msg is None:
            return fallback
        if msg.get("type") != "move" or not isinstance(msg.get("move"), str):
            self.errors.append(f"expected {{'type': 'move', 'move': '...'}}, got {str(msg)[:80]}")
            return fallback
        try:
            move = Move.parse(msg["move"])
        except NotationError as exc:
            self.errors.append(f"bad move {msg['move']!r}: {exc}")
            return fallback
        probe = world(view, self.rng)
        err = probe.why_illegal(move)
        if err is not None:
            self.errors.append(f"illegal move {msg['move']!r}: {err}")
            return fallback
        return move

    def hand_over(self, scores: list[int]) -> None:
        self._send({"type": "hand_over", "scores": scores})

    def close(self) -> None:
        self._send({"type": "bye"})
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=2)
        except (subprocess.TimeoutExpired, OSError):
            self.proc.kill()
            self.proc.wait()
        self._sel.close()
