"""Issue 51, the card room in process: an american-4p table's state carries the family's notes on
the table by key (``table_note_keys``), the page's catalog has their texts in each language, the
welcome names the cards laid out as threes, and the table's rules page says how the game plays, with
the rule set's numbers, in English and Italian.  A classic table has no such notes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from canasta.engine.family import TableNote, table_note_texts
from canasta.i18n import translator
from test_web import hello, recv_until, room_client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with room_client(str(tmp_path / "am.db")) as c:
        yield c


def test_an_american_table_sends_its_notes_by_key(client: TestClient) -> None:
    made = client.post("/api/quick", json={"name": "Ann", "preset": "american-4p", "seed": 5}).json()
    with client.websocket_connect(f"/ws/{made['table']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": made["token"]}))
        welcome = recv_until(ws, lambda m: m["type"] == "welcome")
        assert welcome["words"]["laid_out"] == "threes"
        state = recv_until(ws, lambda m: m["type"] == "state")
    keys = [n["key"] for n in state["table_note_keys"]]
    assert {"draw_one", "talon_next", "turn_card_ahead", "go_out"} <= set(keys), keys
    talon = next(n for n in state["table_note_keys"] if n["key"] == "talon_next")
    assert talon["n"] in (3, 4)  # C.8.1
    ahead = next(n for n in state["table_note_keys"] if n["key"] == "turn_card_ahead")
    assert ahead["n"] == state["view"]["stock_size"] - 9  # C.1.5
    for lang in ("en", "it", "es", "pt_BR"):
        texts = client.get("/i18n/catalog.json", params={"lang": lang}).json()["table_notes"]
        assert set(texts) == set(table_note_texts())
        for key in keys:
            said = texts[key]
            assert said == translator(lang).pgettext("table note", table_note_texts()[key])
            if lang != "en":
                assert said != table_note_texts()[key], (lang, key)


def test_a_classic_table_has_no_family_notes(client: TestClient) -> None:
    made = client.post("/api/quick", json={"name": "Ann", "preset": "classic-4p", "seed": 5}).json()
    with client.websocket_connect(f"/ws/{made['table']}") as ws:
        state = hello(ws, made["token"])
    assert state["table_note_keys"] == []


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_rules_page_says_how_modern_american_plays(client: TestClient, lang: str) -> None:
    made = client.post("/api/quick", json={"name": "Ann", "preset": "american-4p", "seed": 5}).json()
    page = client.get(f"/t/{made['table']}/rules", params={"lang": lang}).text
    tr = translator(lang)
    assert tr.gettext("How this game plays") in page
    for key, n in (("rules.talons", 0), ("rules.hand.garbage", 3000), ("rules.hand.pairs", 2500), ("rules.five", 0)):
        said = tr.table_note(TableNote(key, n)).replace("'", "&#x27;")
        assert said in page, (key, said)
    assert ("3.000" if lang == "it" else "3,000") in page
    classic = client.post("/api/quick", json={"name": "Ann", "preset": "classic-4p", "seed": 5}).json()
    assert tr.gettext("How this game plays") not in client.get(f"/t/{classic['table']}/rules",
                                                                params={"lang": lang}).text
