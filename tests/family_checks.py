"""What the tests of a family of one's own (``test_family_plugin.py``, ``test_family_from_core.py``)
ask of every such family alike: its cards all accounted for, a few turns of a person in the
terminal app, and the card room's welcome and first state of a table of it."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from canasta.engine.cards import NUM_CARDS
from canasta.engine.game import Game
from canasta.engine.rules import RuleSet


def accounted(game: Game) -> None:
    """Every card of the packs is in exactly one place."""
    seen: Counter[int] = Counter()
    for s in range(game.players):
        seen.update(game.hand(s))
        seen.update(game.red3[s])
    for side in game.melds:
        for m in side.values():
            seen.update(m.cards)
    seen.update(game.pile)
    seen.update(game.stock)
    assert sum(seen.values()) == game.rules.deck_size
    assert all(0 <= c < NUM_CARDS for c in seen)


@dataclass
class TerminalRun:
    """What a person saw and did in a few turns at the terminal app."""

    played: int
    topbar: str
    pile_title: str
    moves: list[Any]


def play_in_terminal(rules: RuleSet, name: str, tmp_path: Path, turns: int) -> TerminalRun:
    """A person (the first seat) and basic bots: the person plays ``turns`` turns by the keys,
    as far as the hand goes, in Textual's pilot."""
    from canasta.tui.app import CanastaApp, PlayConfig, TableScreen
    from canasta.tui.config import build_table
    from test_tui import SIZE, _text, aio, person_plays, settle

    table = build_table(rules, ["basic"], seed=7, hint_level="basic")
    seen: dict[str, Any] = {}

    @aio
    async def run() -> None:
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, name)
        async with app.run_test(size=SIZE) as pilot:
            played = 0
            while played < turns and not table.hand_over:
                await settle(pilot, table)
                if table.hand_over:
                    break
                await person_plays(pilot, table)
                played += 1
            assert isinstance(app.screen, TableScreen)
            seen.update(played=played, topbar=_text(app, "#topbar"),
                        pile_title=str(app.screen.query_one("#pile").border_title))

    run()
    return TerminalRun(seen["played"], seen["topbar"], seen["pile_title"],
                       [m for hand in table.moves for _, m in hand])


@dataclass
class RoomRun:
    """The card room's words for a table of the family: its preset's entry in the lobby, the
    welcome and the first state a person at the table received."""

    preset: dict[str, Any]
    welcome: dict[str, Any]
    state: dict[str, Any]


def open_in_the_room(tmp_path: Path, preset: str, bots: list[str],
                     then: Callable[[Any, Callable[..., Any]], None] | None = None) -> RoomRun:
    """A table of ``preset``: a person at the first seat and these bots; ``then(ws, recv_until)``
    goes on on the person's socket."""
    from test_web import human_table, recv_until, room_client

    with room_client(str(tmp_path / "family.db")) as client:
        presets = client.get("/api/presets").json()["presets"]
        mine = next(p for p in presets if p["name"] == preset)
        tid, tokens = human_table(client, [{}, *({"kind": "bot", "bot": b} for b in bots)], preset)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": tokens[0]}))
            welcome = recv_until(ws, lambda m: m["type"] in ("welcome", "error"))
            state = recv_until(ws, lambda m: m["type"] == "state")
            if then is not None:
                then(ws, recv_until)
    return RoomRun(mine, welcome, state)


def bots_play_a_hand(rules: RuleSet, seed: int, level: str, allowed: Callable[[Any], bool]) -> Game:
    """A hand of ``level`` bots at every seat, each move checked by ``allowed`` before it is
    played; the finished game."""
    from canasta.bots import make_bot
    from canasta.views.seat import seat_view

    game = Game(rules, seed)
    bots = [make_bot(level, seed=s) for s in range(game.players)]
    while not game.is_over():
        seat = game.to_move
        move = bots[seat].choose(seat_view(game, seat))
        assert allowed(move), move
        game.push(move)
    assert game.result is not None
    return game
