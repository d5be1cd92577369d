"""What the server says about a seat names it in the reader's language (issue #55, item 4): the
page's tooltip "tocca a Nord, non a te", not "tocca a North"; a person's own name stays as typed."""

from __future__ import annotations

from pathlib import Path

from canasta.engine.cards import card_str
from canasta.web.language import localize, say_error
from test_web import database, recv_until, room_client, room_of, send


def test_a_refusal_names_a_bots_seat_in_the_readers_language(tmp_path: Path) -> None:
    # the bot never moves while the test asks (its pause is far longer than the test), so whose
    # turn it is is decided by the deal alone
    with room_client(database(tmp_path), bot_delay=600) as client:
        made = client.post("/api/tables", json={"preset": "classic-2p", "name": "Ann", "seat": 0, "seed": 11,
                                                "seats": [{}, {"kind": "bot", "level": "basic"}]}).json()
        tid, token = made["table"], made["token"]
        room = room_of(client, tid)
        for lang, said in (("it", "tocca a Nord, non a te"), ("en", "it is North's move, not yours")):
            with client.websocket_connect(f"/ws/{tid}") as ws:
                send(ws, type="hello", token=token, lang=lang)
                recv_until(ws, lambda m: m["type"] == "state" and m["view"] is not None)
                if room.table.to_move == 0:  # Ann first: she draws and discards, then it is North's turn
                    send(ws, type="move", move="draw")
                    recv_until(ws, lambda m: m["type"] == "state" and m["view"]["to_move"] == 0
                               and m["view"]["phase"] != "draw")
                    card = room.table.view(0).hand[0]
                    send(ws, type="move", move=f"discard {card_str(card)}")
                    recv_until(ws, lambda m: m["type"] == "state" and m["view"]["to_move"] == 1)
                assert room.table.to_move == 1 and room.table.names[1] == "North"
                send(ws, type="check", id=1, moves=["draw"])
                answer = recv_until(ws, lambda m: m["type"] == "check")
                assert answer["results"][0]["code"] == "NOT_YOUR_TURN"
                assert answer["results"][0]["message"] == said, answer
                send(ws, type="move", move="draw")
                refused = recv_until(ws, lambda m: m["type"] == "error")
                assert refused["message"] == said, refused


def test_a_persons_name_is_never_translated() -> None:
    msg = say_error("NOT_YOUR_TURN", "it is {name}'s move, not yours", {"name": "Bea"})
    assert localize(msg, "it")["message"] == "tocca a Bea, non a te"
    assert localize(say_error("NOT_YOUR_TURN", "it is {name}'s move, not yours", {"name": "East"}),
                    "it")["message"] == "tocca a Est, non a te"
