"""The terminal app and the card room mean the same by the same gesture and say the same
about every move: seeded hands are played at a card-room table of four people (through
their websockets) while the terminal app, driven with its keys, mirrors the same table for
seat 0.  For each of seat 0's melds, takes and discards the cards are picked with the app's
keys; the app's move and the move the card room makes of the same picked cards (a check
with the selection) must be the same, and after it is played both logs (and each seat's last
move) must read the same, in English and in Italian."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("textual")
pytest.importorskip("fastapi")

from starlette.testclient import WebSocketTestSession
from textual.widgets import Static

from canasta.engine.cards import IS_WILD, RANK_NAMES, card_str
from canasta.engine.moves import DISCARD, DRAW, MELD, TAKE, Move, group_cards, group_target
from canasta.i18n import use
from canasta.play.table import Table
from canasta.present import Selection
from canasta.tui.app import CanastaApp, PlayConfig, TableScreen
from test_tui import SIZE, aio, plain, select_cards
from test_web import human_table, recv_until, room_client, room_of, send

ACTION_KEYS = {TAKE: ("take", "t"), MELD: ("meld", "m"), DISCARD: ("discard", "x")}


def wire(sel: Selection) -> dict[str, Any]:
    """A selection as the page sends it in a check."""
    def rank(r: int | None) -> str | None:
        return None if r is None else RANK_NAMES[r]
    return {"staged": [{"cards": [card_str(c) for c in g],
                        "target": rank(sel.staged_targets[i] if i < len(sel.staged_targets) else None)}
                       for i, g in enumerate(sel.staged)],
            "cards": [card_str(c) for c in sel.cards], "target": rank(sel.target)}


def answer_to(check_id: int) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["type"] == "check" and m["id"] == check_id


def say_hello(ws: WebSocketTestSession, token: str, lang: str) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "hello", "token": token, "lang": lang}))
    recv_until(ws, lambda m: m["type"] == "welcome")
    return recv_until(ws, lambda m: m["type"] == "state")


def gesture_groups(move: Move) -> list[tuple[int, ...]] | None:
    """The groups to pick, in order, for ``move`` (None: not made by picking cards, or a group of
    wild cards only, which needs the meld it joins chosen too).  A take's head is picked first
    and set aside like the others: which group goes with the top card is the interfaces' rule."""
    if move.kind not in ACTION_KEYS:
        return None
    groups = [tuple(group_cards(g)) for g in move.groups]
    if move.kind == TAKE and not groups:
        return None
    if any(group_target(g) is not None or all(IS_WILD[c] for c in group_cards(g)) for g in move.groups):
        return None
    return groups


@pytest.mark.parametrize(("preset", "lang"), [("classic-4p", "en"), ("italian-4p", "it"), ("classic-4p", "it"),
                                              ("italian-4p", "en"), ("american-4p", "en"), ("american-4p", "it")])
@aio
async def test_the_terminal_app_and_the_card_room_make_and_say_the_same_moves(
        tmp_path: Path, preset: str, lang: str) -> None:
    with room_client(str(tmp_path / "agree.db"), grace=60) as client:
        tid, tokens = human_table(client, [{}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}], preset,
                                  target=100000)
        room = room_of(client, tid)
        web = room.table
        conns = [client.websocket_connect(f"/ws/{tid}") for _ in range(4)]
        sockets = [c.__enter__() for c in conns]
        try:
            for s, ws in enumerate(sockets):
                say_hello(ws, tokens[s], lang)
            mirror = Table.from_dict(web.to_dict())  # the same deal, the same names
            app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0, lang=lang), mirror, "agree")
            compared = {TAKE: 0, MELD: 0, DISCARD: 0, DRAW: 0}
            async with app.run_test(size=SIZE) as pilot:
                screen = app.screen
                assert isinstance(screen, TableScreen)

                def latest(ws: WebSocketTestSession, seq: int) -> dict[str, Any]:
                    return recv_until(ws, lambda m: m["type"] == "state" and m["seq"] >= seq)

                check_id = 0
                for _step in range(400):
                    if web.hand_over:
                        break
                    seat = web.to_move
                    move = mirror.hint(seat)
                    expect = room.seq + 1
                    if seat != 0:  # another person: played in the room, mirrored in the app
                        send(sockets[seat], type="move", move=str(move))
                        latest(sockets[0], expect)
                        mirror.play(seat, move)
                        screen.refresh_table()
                        await pilot.pause()
                        continue
                    groups = gesture_groups(move)
                    if groups is not None:
                        action, key = ACTION_KEYS[move.kind]
                        await pilot.press("escape")
                        for i, g in enumerate(groups):
                            await select_cards(pilot, g)
                            if i < len(groups) - 1:
                                await pilot.press("plus")
                        picked = screen.selection()
                        check_id += 1
                        send(sockets[0], type="check", id=check_id, selection=wire(picked))
                        check = recv_until(sockets[0], answer_to(check_id))
                        made = dict(zip(check["actions"], check["moves"], strict=True))
                        ours = {"take": screen.pending_take(), "meld": screen.pending_meld()}
                        if len(picked.cards) == 1 and not picked.staged:
                            ours["discard"] = Move.discard(picked.cards[0])
                        for name, mine in ours.items():  # the same picked cards make the same moves
                            assert mine is not None and made[name] == str(mine), (name, picked)
                        refusal = check["results"][check["actions"].index(action)]
                        before = mirror.version
                        await pilot.press(key)
                        await pilot.pause()
                        if refusal is not None:  # refused by both; nothing changed in the app
                            assert mirror.version == before and web.to_move == 0
                            await pilot.press("escape")
                        else:
                            assert mirror.version > before, plain(screen.query_one("#status", Static).content)
                            send(sockets[0], type="move", move=made[action])
                            state = latest(sockets[0], expect)
                            compared[move.kind] += 1
                            assert_same_log(screen, state)
                            continue
                    # a move not made by picking cards (or refused): typed in notation in the app
                    await pilot.press("escape", "colon", *list(str(move)), "enter")
                    await pilot.pause()
                    send(sockets[0], type="move", move=str(move))
                    state = latest(sockets[0], expect)
                    if move.kind == DRAW:
                        compared[DRAW] += 1
                    assert_same_log(screen, state)
                assert mirror.moves == web.moves  # the two tables never parted
            assert compared[MELD] + compared[TAKE] > 0 and compared[DISCARD] > 3 and compared[DRAW] > 3, compared
        finally:
            for c in conns:
                c.__exit__(None, None, None)
            use("en")


def assert_same_log(screen: TableScreen, state: dict[str, Any]) -> None:
    """The app's log shows the room's last lines, word for word."""
    shown = [line[2:] for line in plain(screen.query_one("#log", Static).content).splitlines() if line[:2] in ("› ", "  ")]
    said = [e["text"] for e in state["log"]]
    assert shown and said[-len(shown):] == shown, (shown, said[-len(shown):])
    seats = plain(screen.query_one("#seats", Static).content)  # each seat's last move, as the room says it
    assert state["last_moves"] and all(f"· {does}" in seats for does in state["last_moves"].values()), seats

