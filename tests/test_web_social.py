"""Friends and civility (issue 52): following, seeing where followed players sit, inviting them
to a seat; muting (the muted player's chat is not sent to your socket), blocking (no follow,
invitation or seat at your table), reporting a player or a chat line; moderators' reports,
warnings, bans (sessions and open sockets ended at once) and unbans, each in the audit log; and
every refusal said in one line, in the asker's language, with nothing changed."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import need

need("fastapi")
need("argon2")

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import inspect, select  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from canasta.cli import main  # noqa: E402
from canasta.web.account_store import FOREVER, AccountStore, sessions_t  # noqa: E402
from canasta.web.accounts import hasher  # noqa: E402
from canasta.web.social_store import SocialStore  # noqa: E402
from canasta.web.store import Store  # noqa: E402
from test_web_accounts import accounts_of, card_room  # noqa: E402
from test_web_accounts_store import postgres  # noqa: E402, F401 - the fixture

Msg = dict[str, Any]


class Player:
    """An account and a session of it, as one browser holds them (the cookie sent by hand, so one
    test client plays several browsers)."""

    def __init__(self, client: TestClient, name: str, role: str = "player") -> None:
        store = accounts_of(client).store
        self.client, self.name = client, name
        self.account = store.create(name, None, "en", time.time(), role)
        self.token, self.csrf = store.open_session(self.account.id, time.time(), 3600.0)

    def headers(self, csrf: bool = True, lang: str = "en") -> dict[str, str]:
        out = {"Cookie": f"canasta_session={self.token}", "Accept-Language": lang}
        if csrf:
            out["X-CSRF-Token"] = self.csrf
        return out

    def post(self, path: str, body: Msg, csrf: bool = True, lang: str = "en") -> Any:
        return self.client.post(path, json=body, headers=self.headers(csrf, lang))

    def get(self, path: str) -> Any:
        return self.client.get(path, headers=self.headers())

    def ok(self, path: str, body: Msg) -> Msg:
        out = self.post(path, body)
        assert out.status_code == 200, out.text
        found: Msg = out.json()
        return found

    def table(self, open_seat: bool = True) -> Msg:
        """A two-player table whose seat 0 is this player's (seat 1 open, or a bot)."""
        made = self.post("/api/tables", {"preset": "classic-2p", "seats": [
            {}, {"kind": "open"} if open_seat else {"kind": "bot", "level": "random"}]})
        assert made.status_code == 200, made.text
        found: Msg = made.json()
        return found

    def join(self, table: str, seat: int = 1) -> Any:
        return self.post(f"/api/tables/{table}/join", {"seat": seat, "name": self.name})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with card_room(tmp_path) as c:
        yield c


def refused(out: Any, status: int, words: str) -> None:
    assert out.status_code == status, out.text
    detail = out.json()["detail"]
    assert words in detail and "\n" not in detail, detail


def until_state(ws: Any, check: Any, limit: int = 60) -> Msg:
    """The socket's messages until a state for which ``check`` holds."""
    for _ in range(limit):
        m: Msg = ws.receive_json()
        if m.get("type") == "state" and check(m):
            return m
    raise AssertionError("no such state came")


def hello(ws: Any, token: str | None) -> Msg:
    ws.send_json({"type": "hello", "token": token} if token else {"type": "hello"})
    welcome: Msg = ws.receive_json()
    assert welcome["type"] == "welcome", welcome
    return welcome


# ------------------------------------------------------------------ follow


def test_follow_and_see_where_a_followed_player_sits(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    assert ann.ok("/api/social/follow", {"name": "bob"})["following"] is True  # names compare folded
    mine = ann.get("/api/social").json()
    assert [f["name"] for f in mine["following"]] == ["Bob"] and mine["following"][0]["online"] is False
    bob.get("/api/social")  # his lobby open (it asks every 15 s): online, at no table
    assert [(f["online"], f["tables"]) for f in ann.get("/api/social").json()["following"]] == [(True, [])]
    client.app.state.social.clock = lambda: time.time() + 91  # type: ignore[attr-defined]
    assert ann.get("/api/social").json()["following"][0]["online"] is False  # not seen for 90 s: offline
    client.app.state.social.clock = time.time  # type: ignore[attr-defined]
    made = bob.table(open_seat=False)
    with client.websocket_connect(f"/ws/{made['table']}", headers=bob.headers()) as ws:
        hello(ws, made["token"])
        deadline = time.monotonic() + 10
        while True:  # the seat's presence is the table's next event: asked until it is written
            friend = ann.get("/api/social").json()["following"][0]
            if friend["tables"] or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert friend["online"] is True
        assert friend["tables"] == [{"table": made["table"], "seat": 0, "title": "", "host": "Bob",
                                     "link": f"/t/{made['table']}"}]
        # the same on Bob's profile, for who follows him
        about = ann.get("/api/social/player/Bob").json()
        assert about["following"] and about["tables"][0]["table"] == made["table"]
    assert ann.ok("/api/social/unfollow", {"name": "Bob"})["following"] is False
    assert ann.get("/api/social").json()["following"] == []
    assert "tables" not in ann.get("/api/social/player/Bob").json()  # not followed: not told where


def test_following_refusals_change_nothing(client: TestClient) -> None:
    ann = Player(client, "Ann")
    Player(client, "Bob")
    refused(ann.post("/api/social/follow", {"name": "Ann"}), 400, "you cannot follow yourself")
    refused(ann.post("/api/social/follow", {"name": "Nobody"}), 404, "no player is named Nobody")
    refused(ann.post("/api/social/follow", {"name": 3}), 400, "give a player's name")
    refused(ann.post("/api/social/follow", {"name": "Bob"}, csrf=False), 403, "security token")
    refused(client.post("/api/social/follow", json={"name": "Bob"}, headers={"X-CSRF-Token": "x"}), 403,
            "security token")
    refused(ann.post("/api/social/befriend", {"name": "Bob"}), 404, "no such action")
    it = ann.post("/api/social/follow", {"name": "Ann"}, lang="it")
    assert it.status_code == 400 and it.json()["detail"] != "you cannot follow yourself"  # said in Italian
    assert ann.get("/api/social").json()["following"] == []
    assert client.get("/api/social").status_code == 401  # signed out


# ------------------------------------------------------------------ block


def test_a_block_stops_follow_invite_and_join(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    bob.ok("/api/social/follow", {"name": "Ann"})
    ann.ok("/api/social/follow", {"name": "Bob"})
    ann.ok("/api/social/block", {"name": "Bob"})
    assert ann.get("/api/social").json()["following"] == []  # and hers of him
    assert ann.get("/api/social").json()["blocked"] == ["Bob"]
    assert bob.get("/api/social").json()["following"] == []  # a block ends Bob's follow
    refused(bob.post("/api/social/follow", {"name": "Ann"}), 403, "Ann does not let you follow them")
    made = bob.table()
    refused(bob.post("/api/social/invite", {"name": "Ann", "table": made["table"], "seat": 1}), 403,
            "Ann does not accept your invitations")
    table = ann.table()
    refused(bob.join(table["table"]), 403, "has blocked you")
    refused(bob.post(f"/api/tables/{table['table']}/join", {"seat": 1, "name": "Bob"}, csrf=False), 403,
            "has blocked you")  # the session's cookie is enough to know him
    assert client.get(f"/api/tables/{table['table']}").json()["seats"][1]["kind"] == "open"
    ann.ok("/api/social/unblock", {"name": "Bob"})
    assert bob.join(table["table"]).status_code == 200
    assert bob.ok("/api/social/follow", {"name": "Ann"})["following"]


# ------------------------------------------------------------------ invite


def test_invite_a_followed_player_to_a_seat(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    made = ann.table()
    refused(ann.post("/api/social/invite", {"name": "Bob", "table": made["table"], "seat": 1}), 403,
            "follow Bob first")
    ann.ok("/api/social/follow", {"name": "Bob"})
    elsewhere = bob.table(open_seat=False)
    with client.websocket_connect(f"/ws/{elsewhere['table']}", headers=bob.headers()) as ws:
        hello(ws, elsewhere["token"])
        sent = ann.ok("/api/social/invite", {"name": "Bob", "table": made["table"], "seat": 1})
        assert sent["link"] == f"/t/{made['table']}?seat=1"
        for _ in range(60):  # through his open socket
            m = ws.receive_json()
            if m["type"] == "invitation":
                break
        assert m["from"] == "Ann" and m["link"] == sent["link"] and m["table"] == made["table"]
    inbox = bob.get("/api/social").json()["inbox"]  # and in his inbox, for the lobby
    assert [(i["kind"], i["from"], i["link"]) for i in inbox] == [("invitation", "Ann", sent["link"])]
    bob.ok("/api/social/dismiss", {"id": inbox[0]["id"]})
    assert bob.get("/api/social").json()["inbox"] == []
    refused(bob.post("/api/social/dismiss", {"id": inbox[0]["id"]}), 404, "no such item")
    # the refusals
    refused(ann.post("/api/social/invite", {"name": "Bob", "table": made["table"], "seat": 0}), 409,
            "this seat is taken")
    refused(ann.post("/api/social/invite", {"name": "Bob", "table": made["table"], "seat": 7}), 400,
            "a whole number from 0 to 1")
    refused(ann.post("/api/social/invite", {"name": "Bob", "table": "nope", "seat": 1}), 404, "no such table")
    refused(ann.post("/api/social/invite", {"name": "Ann", "table": made["table"], "seat": 1}), 400,
            "you cannot invite yourself")
    refused(ann.post("/api/social/invite", {"name": "Bob", "table": elsewhere["table"], "seat": 1}), 403,
            "take a seat at this table")
    reserved = ann.post("/api/tables", {"preset": "classic-2p", "seats": [{}, {"kind": "reserved"}]}).json()
    key = reserved["invites"]["1"].rsplit("=", 1)[1]
    refused(ann.post("/api/social/invite", {"name": "Bob", "table": reserved["table"], "seat": 1}), 403,
            "give its invite key")
    with_key = ann.ok("/api/social/invite", {"name": "Bob", "table": reserved["table"], "seat": 1, "invite": key})
    assert with_key["link"].endswith(f"&invite={key}")
    assert len(bob.get("/api/social").json()["inbox"]) == 1


# ------------------------------------------------------------------ mute


def test_a_muted_players_chat_is_not_sent_to_your_socket(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    made = ann.table()
    joined = bob.join(made["table"]).json()
    ann.ok("/api/social/mute", {"name": "Bob"})
    with client.websocket_connect(f"/ws/{made['table']}", headers=ann.headers()) as a, \
            client.websocket_connect(f"/ws/{made['table']}", headers=bob.headers()) as b:
        hello(a, made["token"])
        hello(b, joined["token"])
        b.send_json({"type": "chat", "text": "something rude"})
        mine = until_state(b, lambda m: any(c["text"] == "something rude" for c in m["chat"] or []))
        said = mine["chat"][-1]["id"]
        a.send_json({"type": "chat", "text": "hello all"})
        theirs = until_state(a, lambda m: any(c["text"] == "hello all" for c in m["chat"] or []))
        assert theirs["seq"] > said  # after Bob's line, which Ann's socket was never sent
        assert [c["text"] for c in theirs["chat"]] == ["hello all"]
        assert all("by" not in c for c in theirs["chat"] + mine["chat"])  # no account id goes out
        ann.ok("/api/social/unmute", {"name": "Bob"})  # at once: the state again, with his line
        again = until_state(a, lambda m: len(m["chat"] or []) == 2)
        assert [c["text"] for c in again["chat"]] == ["something rude", "hello all"]
    refused(ann.post("/api/social/mute", {"name": "Ann"}), 400, "you cannot mute yourself")


# ------------------------------------------------------------------ report


def test_report_a_player_and_a_chat_line(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    mod = Player(client, "Mod", "moderator")
    made = ann.table()
    joined = bob.join(made["table"]).json()
    with client.websocket_connect(f"/ws/{made['table']}", headers=bob.headers()) as b:
        hello(b, joined["token"])
        b.send_json({"type": "chat", "text": "you play like a fish"})
        line = until_state(b, lambda m: bool(m["chat"]))["chat"][-1]
    out = ann.ok("/api/social/report", {"table": made["table"], "chat": line["id"], "reason": "insults"})
    assert out["reported"] == "Bob" and out["chat_text"] == "you play like a fish"  # the stored text
    ann.ok("/api/social/report", {"name": "Bob", "reason": "  slow  on purpose "})
    mine = ann.get("/api/social/reports").json()["reports"]
    assert [(r["reported"], r["reason"], r["chat_text"]) for r in mine] == [
        ("Bob", "slow on purpose", None), ("Bob", "insults", "you play like a fish")]
    # the refusals, nothing stored
    refused(ann.post("/api/social/report", {"name": "Bob", "reason": ""}), 400, "give a reason")
    refused(ann.post("/api/social/report", {"name": "Bob", "reason": "x" * 401}), 400, "give a reason")
    refused(ann.post("/api/social/report", {"name": "Ann", "reason": "me"}), 400, "you cannot report yourself")
    refused(ann.post("/api/social/report", {"table": made["table"], "chat": 999, "reason": "x"}), 404,
            "no such chat line")
    refused(ann.post("/api/social/report", {"table": made["table"], "chat": "1", "reason": "x"}), 400,
            "say which chat line")
    refused(ann.post("/api/social/report", {"name": "Bob", "reason": "x"}, csrf=False), 403, "security token")
    ann.ok("/api/social/report", {"name": "Bob", "reason": "third"})
    refused(ann.post("/api/social/report", {"name": "Bob", "reason": "fourth"}), 429, "reported Bob already")
    # another player's reports: moderators only
    refused(bob.get("/api/social/reports?of=Ann"), 403, "only a moderator")
    assert len(mod.get("/api/social/reports?of=Ann").json()["reports"]) == 3
    refused(ann.get("/api/moderation/reports"), 403, "only a moderator may do this")
    refused(client.get("/api/moderation/reports"), 401, "sign in first")
    seen = mod.get("/api/moderation/reports").json()["reports"]
    assert len(seen) == 3 and seen[-1]["chat_text"] == "you play like a fish" and seen[-1]["reporter"] == "Ann"


# -------------------------------------------------------------- moderation


def test_a_moderators_ban_ends_sessions_and_open_sockets_at_once(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    mod = Player(client, "Mod", "moderator")
    made = ann.table()
    joined = bob.join(made["table"]).json()
    report = ann.ok("/api/social/report", {"name": "Bob", "reason": "cheating"})["report"]
    refused(ann.post("/api/moderation/ban", {"name": "Bob", "reason": "x"}), 403, "only a moderator")
    refused(mod.post("/api/moderation/ban", {"name": "Bob", "reason": "x", "days": 0}), 400, "a number of days")
    refused(mod.post("/api/moderation/ban", {"name": "Bob", "reason": ""}), 400, "give a reason")
    refused(mod.post("/api/moderation/ban", {"name": "Mod", "reason": "x"}), 400, "their own account")
    refused(mod.post("/api/moderation/ban", {"name": "Bob", "reason": "x", "report": 999}), 404, "no such report")
    refused(mod.post("/api/moderation/unban", {"name": "Bob"}), 409, "Bob is not banned")
    mod.ok("/api/moderation/warn", {"name": "Bob", "text": "be kind", "report": report})
    assert [(i["kind"], i["text"]) for i in bob.get("/api/social").json()["inbox"]] == [("warning", "be kind")]
    with client.websocket_connect(f"/ws/{made['table']}", headers=bob.headers()) as ws:
        hello(ws, joined["token"])
        done = mod.ok("/api/moderation/ban", {"name": "Bob", "reason": "cheating", "days": 2})
        assert done["until"] > time.time() + 86400
        told = None
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(60):
                m = ws.receive_json()
                if m["type"] == "error":
                    told = m
        assert closed.value.code == 4403 and told is not None and told["code"] == "BANNED"
    store = accounts_of(client).store
    with store.engine.connect() as db:
        assert db.execute(select(sessions_t).where(sessions_t.c.account_id == bob.account.id)).first() is None
    assert client.get("/api/account/me", headers=bob.headers()).json()["account"] is None
    with client.websocket_connect(f"/ws/{made['table']}") as again:  # the seat's token is refused too
        again.send_json({"type": "hello", "token": joined["token"]})
        assert again.receive_json()["type"] == "welcome"
        assert again.receive_json()["code"] == "BANNED"
        with pytest.raises(WebSocketDisconnect) as closed:
            again.receive_json()
        assert closed.value.code == 4403
    mod.ok("/api/moderation/unban", {"name": "Bob", "reason": "appeal granted"})
    with client.websocket_connect(f"/ws/{made['table']}") as back:
        assert hello(back, joined["token"])["seat"] == 1
    audit = mod.get("/api/moderation/audit").json()["audit"]
    assert [(a["moderator"], a["action"], a["target"], a["reason"]) for a in audit] == [
        ("Mod", "unban", "Bob", "appeal granted"), ("Mod", "ban", "Bob", "cheating"), ("Mod", "warn", "Bob", "be kind")]
    assert audit[2]["report"] == report
    assert mod.get("/api/moderation/reports").json()["reports"] == []  # the warning closed the report
    refused(ann.get("/api/moderation/audit"), 403, "only a moderator")


def test_a_moderator_acts_on_players_only(client: TestClient) -> None:
    mod, other = Player(client, "Mod", "moderator"), Player(client, "Other", "moderator")
    admin = Player(client, "Boss", "admin")
    refused(mod.post("/api/moderation/ban", {"name": "Other", "reason": "x"}), 403, "only an admin")
    refused(mod.post("/api/moderation/warn", {"name": "Boss", "text": "x"}), 403, "only an admin")
    assert admin.ok("/api/moderation/ban", {"name": "Other", "reason": "abuse"})["until"] == FOREVER
    refused(other.get("/api/moderation/reports"), 401, "sign in first")  # banned: the session is gone
    refused(mod.post("/api/moderation/close", {"report": 5}), 404, "no such report")
    Player(client, "Pat").ok("/api/social/report", {"name": "Boss", "reason": "rude"})
    mod.ok("/api/moderation/close", {"report": 1, "reason": "nothing found"})
    refused(mod.post("/api/moderation/close", {"report": 1}), 409, "closed already")
    assert mod.get("/api/moderation/audit").json()["audit"][0]["action"] == "close"


def test_the_operators_ban_is_audited_and_closes_the_socket(client: TestClient, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    made = ann.table()
    joined = bob.join(made["table"]).json()
    client.app.state.social.sweep_every = 0.1  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/{made['table']}", headers=bob.headers()) as ws:
        hello(ws, joined["token"])
        assert main(["accounts", "--db", str(tmp_path / "t.db"), "ban", "Bob", "--days", "1", "--reason",
                     "spam"]) == 0
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(200):
                ws.receive_json()
        assert closed.value.code == 4403
    assert "1 session ended" in capsys.readouterr().out
    mod = Player(client, "Mod", "moderator")
    entry = mod.get("/api/moderation/audit").json()["audit"][0]
    assert (entry["moderator"], entry["action"], entry["target"], entry["reason"]) == ("operator", "ban", "Bob", "spam")
    assert main(["accounts", "--db", str(tmp_path / "t.db"), "unban", "Bob"]) == 0
    assert mod.get("/api/moderation/audit").json()["audit"][0]["action"] == "unban"


def test_an_existing_database_gets_the_new_tables(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    store = Store(path)
    try:
        AccountStore(store.engine).create("Ann", None, "en", 1.0)  # a database of the accounts' first version
        assert "canasta_relations" not in inspect(store.engine).get_table_names()
        social = SocialStore(store.engine)
        assert {"canasta_relations", "canasta_inbox", "canasta_reports", "canasta_audit",
                "canasta_last_seen"} <= set(inspect(store.engine).get_table_names())
        SocialStore(store.engine)  # opened again: nothing to do
        assert social.audit_log() == []
    finally:
        store.close()


def test_the_export_holds_what_is_kept_and_a_deletion_forgets_it(client: TestClient) -> None:
    ann, bob = Player(client, "Ann"), Player(client, "Bob")
    ann.ok("/api/social/follow", {"name": "Bob"})
    ann.ok("/api/social/mute", {"name": "Bob"})
    bob.ok("/api/social/block", {"name": "Ann"})
    ann.ok("/api/social/report", {"name": "Bob", "reason": "rude"})
    kept = client.get("/api/account/export", headers=ann.headers()).json()["social"]
    assert (kept["follow"], kept["mute"], kept["block"]) == ([], ["Bob"], [])  # Bob's block ended her follow
    assert [r["reason"] for r in kept["reports_made"]] == ["rude"]
    store = SocialStore(accounts_of(client).store.engine)
    assert store.holds(bob.account.id, ann.account.id, "block")
    accounts_of(client).store.set_password(ann.account.id, hasher().hash("a long password"))
    ann.token, ann.csrf = accounts_of(client).store.open_session(ann.account.id, time.time(), 3600.0)
    assert ann.post("/api/account/delete", {"password": "a long password"}).status_code == 200
    assert not store.holds(bob.account.id, ann.account.id, "block")  # nothing held about her any more
    assert store.related(ann.account.id, "follow") == []
    assert [r.reporter for r in store.reports()] == ["(deleted)"]  # a report stays, for the moderators


def test_on_postgresql(postgres: str) -> None:  # noqa: F811 - test_web_accounts_store's fixture
    stores = [Store(postgres), Store(postgres)]  # two servers on one database: the tables made once
    try:
        accounts = AccountStore(stores[0].engine)
        social = [SocialStore(s.engine) for s in stores]
        ann, bob = (accounts.create(n, None, "en", 1.0).id for n in ("Ann", "Bob"))
        assert social[0].relate(ann, bob, "follow", 2.0) and not social[1].relate(ann, bob, "follow", 3.0)
        assert social[1].related(ann, "follow") == [(bob, "Bob")]
        social[0].seen(ann, 5.0)
        social[1].seen(ann, 6.0)  # the second time an update
        assert social[0].last_seen([ann, bob]) == {ann: 6.0}
        made = social[1].report(ann, bob, "rude", 7.0, "t1", 4, "a line")
        assert [(r.reporter, r.reported, r.chat_text) for r in social[0].reports(status="open")] == [
            ("Ann", "Bob", "a line")]
        assert social[0].close_report(made, "Mod", 8.0) and not social[1].close_report(made, "Mod", 9.0)
        social[1].audit("Mod", "close", 8.0, report_id=made)
        assert [a["action"] for a in social[0].audit_log()] == ["close"]
        assert social[0].tell(bob, "warning", 9.0, from_name="Mod", said="be kind") > 0
        assert [i["text"] for i in social[1].inbox(bob)] == ["be kind"]
    finally:
        for s in stores:
            s.close()
