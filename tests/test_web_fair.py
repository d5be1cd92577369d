"""Fair deals in the card room: the commitment before the deal, the players'
client seeds, the secret revealed only when the hand ends, the record that
verifies; the first deal waiting for the seeds; the bots' pace; dealing on."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from canasta.bots import make_bot
from canasta.play.record import parse_records, verify
from canasta.web.app import create_app
from canasta.web.room import Settings
from test_web import database, hello, recv_until, room_of, send

Msg = dict[str, Any]


def fair_client(tmp_path: Path, **settings: Any) -> TestClient:
    values: dict[str, Any] = {"grace": 0.2, "bot_delay": 0, "auto_deal": 0} | settings
    return TestClient(create_app(database(tmp_path), settings=Settings(**values)))


class Recorder:
    """Every raw message a socket received, in order."""

    def __init__(self, ws: WebSocketTestSession) -> None:
        self.ws = ws
        self.raw: list[str] = []

    def until(self, pred: Any, limit: int = 5000) -> Msg:
        for _ in range(limit):
            text = self.ws.receive_text()
            self.raw.append(text)
            msg: Msg = json.loads(text)
            if pred(msg):
                return msg
        raise AssertionError("the expected message never came")


def test_a_fair_match_commits_before_each_deal_and_reveals_only_after_the_hand(tmp_path: Path) -> None:
    with fair_client(tmp_path) as client:
        data = client.post("/api/quick", json={"name": "Ann", "target": 100}).json()  # no seed: a fair table
        tid = data["table"]
        room = room_of(client, tid)
        assert room.table.fair and not room.table.dealt
        hinter = make_bot("basic", seed=1)
        with client.websocket_connect(f"/ws/{tid}") as watch_ws, client.websocket_connect(f"/ws/{tid}") as ann_ws:
            watch, ann = Recorder(watch_ws), Recorder(ann_ws)
            send(watch_ws, type="hello")
            first = watch.until(lambda m: m["type"] == "state")
            assert first["dealt"] is False and first["view"] is None and first["deal"] is None
            shown = first["next_deal"]["commitment"]
            assert first["next_deal"]["hand"] == 1 and len(shown) == 64

            assert data["next_deal"] == {"hand": 1, "commitment": shown}  # in the creation answer too
            send(ann_ws, type="hello", token=data["token"], client_seed="ann-seed-1", commitment=shown)
            dealt = watch.until(lambda m: m["type"] == "state" and m["dealt"])
            assert dealt["deal"] == {"hand": 1, "commitment": shown}
            assert dealt["next_deal"]["commitment"] != shown  # the next hand's secret, committed already

            seeds_sent = {1: "ann-seed-1"}
            while True:
                state = ann.until(lambda m: m["type"] == "state" and m["seq"] == room.seq)
                if state["match_over"]:
                    break
                nxt = state["next_deal"]
                if nxt is not None and state["my_seed"] is None:  # what the page does: a seed for the next deal
                    seed = f"ann-{nxt['hand']}"
                    send(ann_ws, type="seed", seed=seed)
                    ack = ann.until(lambda m: m["type"] in ("seed", "error"))
                    assert ack == {"type": "seed", "hand": nxt["hand"], "seed": seed, "seq": ack["seq"]}
                    assert state["seq"] < ack["seq"] <= room.seq  # the seed is an event (bots may follow)
                    seeds_sent[nxt["hand"]] = seed
                    continue
                if state["hand_over"]:
                    send(ann_ws, type="next_hand")
                elif state["view"]["to_move"] == 0:
                    send(ann_ws, type="move", move=str(hinter.choose(room.table.view(0))))
            watch.until(lambda m: m["type"] == "state" and m["match_over"])

        revealed = state["revealed"]
        assert len(revealed) == len(room.table.match.hands) >= 1
        assert revealed[0]["commitment"] == shown
        for r in revealed:
            assert hashlib.sha256(bytes.fromhex(r["secret"])).hexdigest() == r["commitment"]
            assert r["client_seeds"][0] == seeds_sent[r["hand"]] and r["client_seeds"][1:] == ["", "", ""]
            for who in (ann, watch):  # no message before the hand's end carries its secret
                ended = next(i for i, raw in enumerate(who.raw) if r["secret"] in raw)
                msg = json.loads(who.raw[ended])
                assert msg["type"] == "state" and msg["sheet"][r["hand"] - 1]["hand"] == r["hand"]
        record = client.get(f"/api/tables/{tid}/record").text
        games, problems = parse_records(record)
        assert problems == [] and verify(games[0]) == [] and "[Secret " in record and "[Seed " not in record


def test_seed_and_pace_refusals_change_nothing(tmp_path: Path) -> None:
    with fair_client(tmp_path) as client:
        data = client.post("/api/quick", json={"name": "Ann", "bot_delay": 0}).json()
        tid = data["table"]
        room = room_of(client, tid)
        with client.websocket_connect(f"/ws/{tid}") as ws, client.websocket_connect(f"/ws/{tid}") as spectator:
            state = hello(ws, data["token"])  # no client seed: the table waits (up to the grace)
            before = room.table.to_dict()
            for bad in ["has spaces", "x" * 65, 12, None, True]:
                send(ws, type="seed", seed=bad)
                err = recv_until(ws, lambda m: m["type"] == "error")
                assert err["code"] == "BAD_SEED" and err["ref"] == "seed" and "client seed" in err["message"]
            hello(spectator)
            send(spectator, type="seed", seed="abc")
            assert recv_until(spectator, lambda m: m["type"] == "error")["code"] == "SPECTATOR"
            for bad_pace in [-1, 5.5, "1", True, None]:
                send(ws, type="pace", seconds=bad_pace)
                err = recv_until(ws, lambda m: m["type"] == "error")
                assert err["code"] == "BAD_MESSAGE" and err["ref"] == "pace"
            if not room.table.dealt:
                assert room.table.to_dict() == before
            assert room.config.get("bot_delay") == 0
            seq = room.seq
            send(ws, type="pace", seconds=2.5)
            paced = recv_until(ws, lambda m: m["type"] == "state" and m["seq"] > seq and m["bot_delay"] != 0)
            assert paced["bot_delay"] == 2.5  # the pace settles (PACE_SETTLE), then is one event
            stored = room.hub.store.load(tid)
            assert stored is not None and stored.config["bot_delay"] == 2.5
            assert state["my_seed"] is None


def test_a_seed_without_the_commitment_it_answers_is_refused(tmp_path: Path) -> None:
    """The server must have committed to the deal before it reads a seed for it: a hello's
    seed is taken only beside the commitment the client was shown."""
    with fair_client(tmp_path) as client:
        data = client.post("/api/quick", json={"name": "Ann", "bot_delay": 0}).json()
        tid = data["table"]
        room = room_of(client, tid)
        assert data["next_deal"]["hand"] == 1 and data["next_deal"]["commitment"] == room.table.next_commitment()
        for extra in ({}, {"commitment": "0" * 64}):  # no commitment, or another one than the server's
            with client.websocket_connect(f"/ws/{tid}") as ws:
                ws.send_text(json.dumps({"type": "hello", "token": data["token"], "client_seed": "early", **extra}))
                err = recv_until(ws, lambda m: m["type"] == "error")
                assert err["code"] == "SEED_BEFORE_COMMITMENT" and err["ref"] == "seed"
                state = recv_until(ws, lambda m: m["type"] == "state")
                assert state["my_seed"] is None and not room.table.dealt and room.table.client_seeds()[0] == ""


def test_the_first_deal_waits_for_every_persons_seed_or_the_grace(tmp_path: Path) -> None:
    with fair_client(tmp_path, grace=1.5) as client:
        r = client.post("/api/tables", json={"name": "Ann", "seat": 0, "preset": "classic-2p",
                                             "seats": [{}, {"kind": "open"}]}).json()
        tid = r["table"]
        room = room_of(client, tid)
        bea = client.post(f"/api/tables/{tid}/join", json={"name": "Bea", "seat": 1}).json()
        with client.websocket_connect(f"/ws/{tid}") as ann_ws:
            ann_ws.send_text(json.dumps({"type": "hello", "token": r["token"], "client_seed": "ann",
                                         "commitment": r["next_deal"]["commitment"]}))
            state = recv_until(ann_ws, lambda m: m["type"] == "state")
            assert not state["dealt"] and state["my_seed"] == "ann"  # Bea's page has not sent hers
            assert state["next_deal"]["seeds"] == [True, False]
            send(ann_ws, type="move", move="draw")
            assert recv_until(ann_ws, lambda m: m["type"] == "error")["code"] == "WAITING"
            stored = room.hub.store.load(tid)  # the seed is kept: a restart would not lose it
            assert stored is not None and stored.state == room.table.to_dict()
            with client.websocket_connect(f"/ws/{tid}") as bea_ws:
                assert bea["next_deal"] == r["next_deal"]  # the join answer shows the same commitment
                bea_ws.send_text(json.dumps({"type": "hello", "token": bea["token"], "client_seed": "bea",
                                             "commitment": bea["next_deal"]["commitment"]}))
                dealt = recv_until(bea_ws, lambda m: m["type"] == "state" and m["dealt"])
                assert dealt["view"] is not None and len(dealt["view"]["hand"]) == 15
        assert room.table.deals[0].client_seeds == ("ann", "bea")

        # another table: Bea never connects, so the grace period deals without her seed
        r2 = client.post("/api/tables", json={"name": "Ann", "seat": 0, "preset": "classic-2p",
                                              "seats": [{}, {"kind": "open"}]}).json()
        client.post(f"/api/tables/{r2['table']}/join", json={"name": "Bea", "seat": 1})
        with client.websocket_connect(f"/ws/{r2['table']}") as ann_ws:
            ann_ws.send_text(json.dumps({"type": "hello", "token": r2["token"], "client_seed": "ann",
                                         "commitment": r2["next_deal"]["commitment"]}))
            started = time.monotonic()
            state = recv_until(ann_ws, lambda m: m["type"] == "state" and m["dealt"])
            assert time.monotonic() - started > 1.0 and state["view"]["hand"]
        assert room_of(client, r2["table"]).table.deals[0].client_seeds == ("ann", "")


def test_a_bot_game_deals_the_next_hand_by_itself(tmp_path: Path) -> None:
    with fair_client(tmp_path, auto_deal=0.3) as client:
        data = client.post("/api/quick", json={"name": "Ann", "preset": "classic-2p"}).json()
        tid = data["table"]
        room = room_of(client, tid)
        hinter = make_bot("basic", seed=4)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": data["token"], "client_seed": "s1",
                                     "commitment": data["next_deal"]["commitment"]}))
            while True:
                state = recv_until(ws, lambda m: m["type"] == "state" and m["seq"] == room.seq)
                if state["hand_over"]:
                    break
                if state["view"] is None:  # the seed is written, then the first hand dealt
                    continue
                if state["view"]["to_move"] == 0:
                    send(ws, type="move", move=str(hinter.choose(room.table.view(0))))
            if not state["match_over"]:
                assert state["auto_deal_at"] is not None and state["auto_deal_at"] > time.time() - 1
                on = recv_until(ws, lambda m: m["type"] == "state" and m["deal"] is not None
                                and m["deal"]["hand"] == 2)
                assert not on["hand_over"] and on["view"]["hand_number"] == 2
