"""The lobby's list of open tables (issue #55, item 6): paged, at most a few tables made from one
client address listed (500 spam tables from one address are 3 lines), and tables a reader hid
left out of that reader's list."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import canasta.web.lobby as lobby_module
from canasta.web.lobby import PAGE
from test_web import database, room_client, room_of

OPEN = [{}, {"kind": "open"}]
ORDER = itertools.count(1000)  # when each table was last active, in the order they are made


def make(client: TestClient, monkeypatch: pytest.MonkeyPatch, address: str, n: int) -> list[str]:
    """``n`` two-seat tables with an open seat, made from ``address``, each one active after the last."""
    monkeypatch.setattr(lobby_module, "client_address", lambda request: address)
    made = []
    for i in range(n):
        r = client.post("/api/tables", json={"preset": "classic-2p", "name": f"P{i}", "seat": 0, "seats": OPEN})
        assert r.status_code == 200, r.text
        made.append(r.json()["table"])
        room_of(client, made[-1]).last_active = float(next(ORDER))  # an order, not a clock
    return made


def listing(client: TestClient, **query: Any) -> dict[str, Any]:
    r = client.get("/api/tables", params=query)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def test_one_address_lists_only_its_few_most_recent_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with room_client(database(tmp_path), tables_per_minute=0, listed_per_address=3) as client:
        spam = make(client, monkeypatch, "10.0.0.66", 40)
        fair = make(client, monkeypatch, "10.0.0.7", 2)
        data = listing(client)
        ids = [t["table"] for t in data["tables"]]
        assert sorted(ids) == sorted(spam[-3:] + fair) and data["total"] == 5 and data["pages"] == 1
        # the address is kept as a keyed tag only, never as it is
        assert all("10.0.0" not in str(room_of(client, t).config) for t in spam + fair)
        assert room_of(client, spam[0]).config["lister"] == room_of(client, spam[1]).config["lister"]
        assert room_of(client, spam[0]).config["lister"] != room_of(client, fair[0]).config["lister"]


def test_the_list_is_paged_and_a_reader_hides_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with room_client(database(tmp_path), tables_per_minute=0, listed_per_address=0) as client:  # no cap
        made = make(client, monkeypatch, "10.0.0.5", 2 * PAGE + 3)
        newest_first = list(reversed(made))
        pages = [listing(client, page=p) for p in (1, 2, 3)]
        assert [p["pages"] for p in pages] == [3, 3, 3] and pages[0]["total"] == 2 * PAGE + 3
        assert [t["table"] for p in pages for t in p["tables"]] == newest_first
        assert listing(client, page=4)["tables"] == []
        for wrong in ("0", "-1", "x", "1.5", "9" * 12):
            r = client.get("/api/tables", params={"page": wrong, "lang": "it"})
            assert r.status_code == 400 and r.json()["detail"].startswith("una pagina dell'elenco"), r.text
        hidden = newest_first[:2]
        first = listing(client, page=1, hide=",".join(hidden))
        assert [t["table"] for t in first["tables"]] == newest_first[2:2 + PAGE] and first["total"] == 2 * PAGE + 1
