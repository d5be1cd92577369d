"""Durability: kill the server (SIGKILL) in the middle of a hand, start it again,
and every table goes on where it was; clients reconnect with their tokens."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import need

need("fastapi")
websockets_sync = need("websockets.sync.client")
httpx = need("httpx2")  # the HTTP client the dev extra pins

from canasta.web.devserver import ServerProcess  # noqa: E402

Msg = dict[str, Any]


class Client:
    """A scripted player on a real websocket."""

    def __init__(self, server: ServerProcess, table: str, token: str, seq: int = -1) -> None:
        self.cm = websockets_sync.connect(f"{server.ws_url}/ws/{table}", open_timeout=10)
        self.ws = self.cm.__enter__()
        self.ws.send(json.dumps({"type": "hello", "token": token, "seq": seq}))
        welcome = self.recv()
        assert welcome["type"] == "welcome", welcome
        self.seat: int = welcome["seat"]
        self.state: Msg = self.until(lambda m: m["type"] == "state")

    def pump(self) -> None:
        """Read whatever has arrived."""
        while True:
            try:
                self.recv(timeout=0.02)
            except TimeoutError:
                return

    def recv(self, timeout: float = 10) -> Msg:
        msg: Msg = json.loads(self.ws.recv(timeout=timeout))
        if msg["type"] == "state":
            self.state = msg
        return msg

    def until(self, pred: Any) -> Msg:
        for _ in range(500):
            msg = self.recv()
            if pred(msg):
                return msg
        raise AssertionError("the expected message never came")

    def send(self, **msg: Any) -> None:
        self.ws.send(json.dumps(msg))

    def my_turn(self) -> bool:
        v = self.state["view"]
        return v["to_move"] == self.seat and v["phase"] == "draw" and not self.state["hand_over"]

    def turn(self) -> None:
        """Draw, then discard the first card the server allows."""
        self.send(type="move", move="draw")
        hand = self.until(lambda m: m["type"] == "state" and m["view"]["phase"] == "meld")["view"]["hand"]
        for card in hand:
            self.send(type="check", id=1, moves=[f"discard {card}"])
            if self.until(lambda m: m["type"] == "check")["results"][0] is None:
                self.send(type="move", move=f"discard {card}")
                self.until(lambda m: m["type"] == "state" and m["view"]["to_move"] != self.seat)
                return
        raise AssertionError("nothing to discard")

    def close(self) -> None:
        self.cm.__exit__(None, None, None)


def test_kill_and_restart_mid_hand_loses_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "room.db")
    server = ServerProcess(db, args=["--bot-delay", "0", "--grace", "60", "--allow-fixed-seeds"]).start()
    try:
        r = httpx.post(f"{server.url}/api/tables", json={
            "preset": "classic-4p", "name": "Ann", "seat": 0, "seed": 21,
            "seats": [{}, {"kind": "bot", "level": "basic"}, {"kind": "open"}, {"kind": "bot", "level": "basic"}]})
        assert r.status_code == 200, r.text
        table, ann_token = r.json()["table"], r.json()["token"]
        bea_token = httpx.post(f"{server.url}/api/tables/{table}/join", json={"name": "Bea", "seat": 2}).json()["token"]
        ann, bea = Client(server, table, ann_token), Client(server, table, bea_token)
        turns = 0
        while True:  # a few turns each, then stop when it is Ann's turn to draw
            for c in (ann, bea):
                c.pump()
            if turns >= 4 and ann.my_turn() and bea.state["seq"] == ann.state["seq"]:
                break
            for c in (ann, bea):
                if c.my_turn():
                    c.turn()
                    turns += 1
        before = {c.seat: (c.state["view"], c.state["log"], c.state["seq"]) for c in (ann, bea)}
        assert not ann.state["hand_over"] and len(ann.state["log"]) > 8
        server.kill()  # SIGKILL: no shutdown code runs
        ann.close()
        bea.close()

        server.start()
        ann = Client(server, table, ann_token, seq=before[0][2])
        bea = Client(server, table, bea_token, seq=before[2][2])
        for c in (ann, bea):
            view, log, seq = before[c.seat]
            assert c.state["view"] == view and c.state["log"] == log
            assert c.state["seq"] > seq  # the event numbers go on
        # both continue: Ann plays, Bea sees it
        ann.turn()
        bea.until(lambda m: m["type"] == "state" and m["log"][-1]["text"].startswith("Ann discards"))
        info = httpx.get(f"{server.url}/api/tables/{table}").json()
        assert [s["name"] for s in info["seats"]] == ["Ann", "West", "Bea", "East"]
        ann.close()
        bea.close()
    finally:
        server.stop()
