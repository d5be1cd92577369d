"""The card room in Italian, Spanish, Brazilian Portuguese and English: the catalog a page
loads, the language chosen by the page or by the browser's Accept-Language, every refusal said in the language of
the connection that asked (its code and rule unchanged), the rules page, the presets
and their house rules in the language."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from canasta.engine.cards import card_str
from canasta.engine.family import PILE_NOTES
from canasta.i18n import translator
from canasta.views.seat import pile_note_list
from canasta.web.language import choose, localize, plural_forms, say_error
from canasta.web.room import Room
from test_web import room_client

Msg = dict[str, Any]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with room_client(str(tmp_path / "t.db")) as c:
        yield c


def recv_until(ws: WebSocketTestSession, kind: str, limit: int = 2000) -> Msg:
    for _ in range(limit):
        msg: Msg = json.loads(ws.receive_text())
        if msg["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} message came")


def seated(client: TestClient, ws: WebSocketTestSession, token: str, lang: str | None) -> Msg:
    hello: Msg = {"type": "hello", "token": token}
    if lang is not None:
        hello["lang"] = lang
    ws.send_text(json.dumps(hello))
    recv_until(ws, "welcome")
    return recv_until(ws, "state")


def two_people(client: TestClient) -> tuple[str, list[str], Room]:
    r = client.post("/api/tables", json={"preset": "classic-2p", "name": "Ann", "seat": 0, "seed": 11,
                                         "seats": [{}, {"kind": "open"}]})
    assert r.status_code == 200, r.text
    tid = r.json()["table"]
    other = client.post(f"/api/tables/{tid}/join", json={"name": "Bea", "seat": 1}).json()["token"]
    room: Room = client.app.state.hub.rooms[tid]  # type: ignore[attr-defined]
    return tid, [r.json()["token"], other], room


def test_the_language_is_the_pages_choice_then_the_browsers() -> None:
    assert choose("it") == "it"
    assert choose(None, "it-IT,it;q=0.9,en;q=0.8") == "it"
    assert choose(None, "fr-FR,fr;q=0.9") == "en"  # no French catalog: English
    assert choose("en", "it-IT") == "en"  # the page's own setting wins
    assert choose({"lang": "it"}, None) == "en"  # not text: ignored
    assert choose("x" * 500, "it") == "it"  # absurd: ignored


def test_a_page_loads_its_texts_in_the_language(client: TestClient) -> None:
    it = client.get("/i18n/catalog.json", params={"lang": "it"}).json()
    assert it["lang"] == "it"
    assert it["messages"]["Draw"] == "Pesca"
    assert it["messages"]["{n} card"] == ["{n} carta", "{n} carte"]
    assert ["it", "Italiano"] in it["languages"] and ["en", "English"] in it["languages"]
    assert it["plural"][:3] == [1, 0, 1] and it["plural"][1000 % 200] == 1
    by_browser = client.get("/i18n/catalog.json", headers={"accept-language": "it-CH, en;q=0.5"}).json()
    assert by_browser["lang"] == "it"
    en = client.get("/i18n/catalog.json", headers={"accept-language": "de"}).json()
    assert en["lang"] == "en" and en["messages"] == {}
    assert client.get("/i18n/catalog.json", params={"lang": "qps"}).json()["lang"] == "qps"
    # the engine's notes on the pile and why a hand ended, by key, in the language
    t = translator("it")
    assert it["pile_notes"]["open"] == t.pgettext("pile note", PILE_NOTES["open"]) != PILE_NOTES["open"]
    assert set(it["pile_notes"]) == set(PILE_NOTES)
    assert it["end_reasons"]["the stock ran out"] == t.gettext("the stock ran out") != "the stock ran out"


def test_a_state_names_the_pile_notes_by_key(client: TestClient) -> None:
    tid, tokens, room = two_people(client)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        state = seated(client, ws, tokens[0], "it")
    notes = pile_note_list(room.table.view(0))
    assert state["pile_note_keys"] == [{"key": n.key, "n": n.n, "rank": n.rank} for n in notes]
    assert state["pile_notes"] == [n.text for n in notes]  # English, for programs


def test_plural_forms_follow_the_catalogs_rule() -> None:
    assert plural_forms("en")[:3] == [1, 0, 1]
    assert plural_forms("it")[1] == 0 and plural_forms("it")[101] == 1


def test_refusals_are_said_in_the_language_of_the_connection_that_asked(client: TestClient) -> None:
    tid, tokens, room = two_people(client)
    mover = room.table.game.to_move
    before = (json.dumps(room.table.to_dict()), room.table.version)
    card = card_str(room.table.game.hand(mover)[0])
    with client.websocket_connect(f"/ws/{tid}") as it_ws, client.websocket_connect(f"/ws/{tid}") as en_ws:
        seated(client, it_ws, tokens[mover], "it")
        seated(client, en_ws, tokens[mover], None)
        replies = {}
        for lang, ws in (("it", it_ws), ("en", en_ws)):
            ws.send_text(json.dumps({"type": "move", "move": f"discard {card}"}))  # before drawing
            replies[lang] = recv_until(ws, "error")
        it, en = replies["it"], replies["en"]
        assert it["code"] == en["code"] == "ILLEGAL" and it["reason"] == en["reason"] and it["rule"] == en["rule"]
        assert it["message"] != en["message"]
        assert "(regola " in it["message"] and "(rule " in en["message"]
        assert not any(k.startswith("_") for k in it)  # the templates stay on the server
        # a check's results too, and a room error (not the mover's turn) with its name in it
        it_ws.send_text(json.dumps({"type": "check", "id": 1, "moves": ["draw", f"discard {card}"]}))
        check = recv_until(it_ws, "check")
        assert check["results"][0] is None
        assert check["results"][1]["message"] == it["message"]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        seated(client, ws, tokens[1 - mover], "it")
        ws.send_text(json.dumps({"type": "move", "move": "draw"}))
        err = recv_until(ws, "error")
        name = room.table.names[mover]
        assert err["code"] == "NOT_YOUR_TURN" and name in err["message"]
        assert err["message"] == translator("it").gettext("it is {name}'s move, not yours").format(name=name)
        assert err["message"] != f"it is {name}'s move, not yours"
    assert (json.dumps(room.table.to_dict()), room.table.version) == before  # nothing changed


def test_a_translation_that_loses_its_field_falls_back_to_english() -> None:
    msg = say_error("X", "it is {name}'s move, not yours", {"name": "Bea"})
    assert localize(msg, "en")["message"] == "it is Bea's move, not yours"
    assert "Bea" in localize(msg, "it")["message"]
    assert "_template" in msg  # localize copies: the same error may go to several people


def test_the_rules_page_and_the_house_rules_in_italian(client: TestClient) -> None:
    tid = client.post("/api/quick", json={"name": "Ann", "preset": "italian-4p"}).json()["table"]
    it = client.get(f"/t/{tid}/rules", params={"lang": "it"}).text
    en = client.get(f"/t/{tid}/rules", headers={"accept-language": "en"}).text
    assert '<html lang="it">' in it and "Regole" in it and "Rules of this table" not in it
    assert "Rules of this table" in en
    t = translator("it")
    assert t.option("I-O8") in it  # an option's topic, in Italian
    presets = client.get("/api/presets", params={"lang": "it"}).json()["presets"]
    italian = next(p for p in presets if p["name"] == "italian-4p")
    opt = italian["options"][0]
    assert opt["topic"] == t.option(opt["id"]) and len(opt["choice_names"]) == len(opt["choices"])
    assert italian["label"] == t.preset("italian-4p")
    assert re.search(r"Canasta", italian["label"])


def test_the_lobbys_refusals_in_the_language_asked(client: TestClient) -> None:
    tid, _, _ = two_people(client)
    en = client.post(f"/api/tables/{tid}/join", json={"name": "Cy", "seat": 1})
    it = client.post(f"/api/tables/{tid}/join", params={"lang": "it"}, json={"name": "Cy", "seat": 1})
    assert en.status_code == it.status_code == 409
    assert en.json()["detail"] == "this seat is taken"
    assert it.json()["detail"] == translator("it").gettext("this seat is taken") != "this seat is taken"
    by_browser = client.post("/api/tables", headers={"accept-language": "it"},
                             json={"preset": "classic-2p", "name": "Ann", "seat": 0, "target": 5,
                                   "seats": [{}, {"kind": "open"}]})
    assert by_browser.status_code == 400
    said = by_browser.json()["detail"]
    assert "100" in said and said != "the target score must be a whole number from 100 to 100000"


# -- Spanish and Brazilian Portuguese (issue 55)

@pytest.mark.parametrize(("lang", "header", "draw", "cards", "plural"), [
    ("es", "es-AR,es;q=0.9,en;q=0.5", "Robar", ["{n} carta", "{n} cartas"], [1, 0, 1]),
    # Brazilian Portuguese takes the singular for 0 and 1 (plural=(n > 1))
    ("pt_BR", "pt-BR,pt;q=0.9,en;q=0.5", "Comprar", ["{n} carta", "{n} cartas"], [0, 0, 1]),
])
def test_a_page_loads_its_texts_in_spanish_and_portuguese(client: TestClient, lang: str, header: str, draw: str,
                                                          cards: list[str], plural: list[int]) -> None:
    asked = client.get("/i18n/catalog.json", params={"lang": lang}).json()
    assert asked["lang"] == lang and asked["messages"]["Draw"] == draw and asked["messages"]["{n} card"] == cards
    assert asked["plural"][:3] == plural and asked["plural"][100 + 1000 % 100] == 1  # 1000, as the page reads it
    assert [lang, {"es": "Español", "pt_BR": "Português"}[lang]] in asked["languages"]
    assert client.get("/i18n/catalog.json", headers={"accept-language": header}).json()["lang"] == lang
    assert choose(lang.replace("_", "-").lower()) == lang  # the address's ?lang=pt-br
    t = translator(lang)
    assert asked["pile_notes"]["open"] == t.pgettext("pile note", PILE_NOTES["open"]) != PILE_NOTES["open"]
    assert asked["end_reasons"]["the stock ran out"] == t.gettext("the stock ran out") != "the stock ran out"


@pytest.mark.parametrize(("lang", "tag", "heading"), [("es", "es", "Reglas de esta mesa"),
                                                      ("pt_BR", "pt-BR", "Regras desta mesa")])
def test_the_rules_page_and_a_refusal_in_spanish_and_portuguese(client: TestClient, lang: str, tag: str,
                                                                heading: str) -> None:
    tid = client.post("/api/quick", json={"name": "Ann", "preset": "italian-4p"}).json()["table"]
    page = client.get(f"/t/{tid}/rules", params={"lang": lang}).text
    assert f'<html lang="{tag}">' in page and heading in page and "Rules of this table" not in page
    assert translator(lang).option("I-O8") in page
    tid, tokens, room = two_people(client)
    mover = room.table.game.to_move
    card = card_str(room.table.game.hand(mover)[0])
    with client.websocket_connect(f"/ws/{tid}") as ws:
        seated(client, ws, tokens[mover], lang)
        ws.send_text(json.dumps({"type": "move", "move": f"discard {card}"}))  # before drawing
        said = recv_until(ws, "error")
    rule = {"es": "(regla A.4.1)", "pt_BR": "(regra A.4.1)"}[lang]
    assert said["message"].endswith(rule) and said["reason"] == "MUST_DRAW_FIRST", said
    refused = client.post(f"/api/tables/{tid}/join", params={"lang": lang}, json={"name": "Cy", "seat": 1})
    assert refused.status_code == 409
    assert refused.json()["detail"] == translator(lang).gettext("this seat is taken") != "this seat is taken"
