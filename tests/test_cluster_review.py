"""Reviews in a cluster (issue #55, item 2): two real servers, arq workers, the machine's
PostgreSQL and Redis.  A review asked on one server waits in the cluster's queue (no worker:
it stays there, with its place shown by either server), is computed by a worker once one
runs, and is read on the other server; the shares per client address hold across servers, and
one client's many reviews do not keep another's waiting behind all of them.  A worker killed
mid-review: the review goes back to its place when the worker's lease runs out, and another
worker takes it up.

Skipped, with the reason, when PostgreSQL or Redis is not there (tests/test_cluster.py)."""

from __future__ import annotations

import time
from typing import Any

from canasta.web.devserver import ServerProcess, WorkerProcess
from canasta.web.review_queue import LEASE
from test_cluster import Player, httpx, later_than, server_args, services

__all__ = ["services"]  # the fixture, used by name

POLLS = 1500  # questions asked of a server before a review must be done (each answers at once)


def args(prefix: str) -> list[str]:
    # tiny reviews (the queue is what is tested), a thread per worker, clients told apart by X-Forwarded-For
    return server_args(prefix, "--review-worlds", "2", "--review-workers", "0", "--forwarded-allow-ips", "127.0.0.1")


def ask(server: ServerProcess, table: str, client: str, lang: str = "en", **body: Any) -> tuple[int, dict[str, Any]]:
    r = httpx.post(f"{server.url}/api/tables/{table}/review?lang={lang}", json=body,
                   headers={"x-forwarded-for": client}, timeout=20)
    data: dict[str, Any] = r.json()
    return r.status_code, data


def position(server: ServerProcess, table: str, client: str, **body: Any) -> int:
    code, data = ask(server, table, client, **body)
    assert code == 200 and data["status"] == "waiting", data
    return int(data["position"])


def test_a_review_asked_on_one_server_is_computed_by_a_worker_and_read_on_the_other(
        services: tuple[str, str]) -> None:
    db, prefix = services
    worker: WorkerProcess | None = WorkerProcess(db, args(prefix)).start()
    s1 = ServerProcess(db, args=args(prefix)).start()
    s2 = ServerProcess(db, args=args(prefix)).start()
    ann: Player | None = None
    late: WorkerProcess | None = None
    extra: list[ServerProcess | WorkerProcess] = []
    try:
        r = httpx.post(f"{s1.url}/api/tables", json={
            "preset": "classic-4p", "name": "Ann", "seat": 0, "seed": 2, "target": 100, "options": {"C-O2": True},
            "review_others": True,
            "seats": [{}, {"kind": "bot", "level": "basic"}, {"kind": "bot", "level": "random"},
                      {"kind": "bot", "level": "basic"}]})
        assert r.status_code == 200, r.text
        table, token = r.json()["table"], r.json()["token"]
        ann = Player(s1, table, token)
        while not ann.state["match_over"]:  # the worker plays the bots
            if ann.my_move():
                ann.play()
                continue
            if ann.state["hand_over"]:
                ann.send(type="next_hand")
            ann.until(later_than(ann.state["seq"]), timeout=60)
        assert worker is not None
        worker.stop()  # no worker now: the reviews asked wait in the queue
        worker = None
        x, y = "10.0.0.1", "10.0.0.2"
        mine = [{"token": token, "hand": 1, "seat": s} for s in range(4)]
        # client x asks for its share, on both servers: the places are the cluster's
        assert position(s1, table, x, **mine[0]) == 1
        assert position(s2, table, x, **mine[1]) == 2
        assert position(s1, table, x, **mine[2]) == 3
        code, refused = ask(s2, table, x, **mine[3])  # a fourth, on the other server: beyond its share
        assert code == 429 and refused["detail"].startswith("you already have your share of reviews"), refused
        code, refused = ask(s1, table, x, lang="es", **mine[3])
        assert code == 429 and "ya tienes tu parte de análisis" in refused["detail"], refused
        # client y's one review: second, not behind all of x's (x's second and third move back)
        theirs: dict[str, Any] = {"hand": 1, "seat": 3}  # a spectator of a finished table open to reviews
        assert position(s2, table, y, **theirs) == 2
        assert [position(s2, table, x, **b) for b in mine[:3]] == [1, 3, 4]
        assert position(s1, table, y, **theirs) == 2  # the same place whichever server is asked
        assert position(s2, table, x, **mine[0]) == 1  # asked again: the same review, not another
        late = WorkerProcess(db, args(prefix)).start()  # a worker comes: the queue is computed
        seen: list[str] = []
        for _ in range(POLLS):
            code, got = ask(s2, table, y, **theirs)
            assert code == 200, got
            seen.append(got["status"] if got["status"] != "waiting" else f"waiting {got['position']}")
            if got["status"] == "done":
                break
            time.sleep(0.02)  # between two questions; the bound is the number of questions
        else:
            raise AssertionError(f"y's review was not computed: {seen[-5:]}")
        assert got["seat"] == 3 and any(e.get("reviewed") for e in got["timeline"])
        assert all(e["view"]["seat"] == 3 for e in got["timeline"] if "view" in e)
        assert not any(s == "waiting 3" or s == "waiting 4" for s in seen)  # y was never behind x's second
        # x's first, asked on server 1, read on server 2 once done (stored with the table)
        for _ in range(POLLS):
            code, first = ask(s2, table, x, **mine[0])
            if first["status"] == "done":
                break
            time.sleep(0.02)
        assert code == 200 and first["status"] == "done" and first["seat"] == 0, first
        import psycopg

        with psycopg.connect(db) as conn:
            stored = conn.execute("SELECT hand, seat FROM canasta_reviews WHERE table_id = %s", (table,)).fetchall()
        assert (1, 0) in {(int(h), int(s)) for h, s in stored} and (1, 3) in {(int(h), int(s)) for h, s in stored}
        # a worker killed mid-review: once its lease ends the review goes back to its place, and
        # another worker computes it from the start (a server asking for 3000 worlds a decision, so
        # that it is still being computed when the worker is killed)
        s3 = ServerProcess(db, args=[*args(prefix), "--review-worlds", "3000", "--review-work", "10000000"]).start()
        extra.append(s3)
        states: list[str] = []
        for _ in range(POLLS):
            code, got = ask(s3, table, y, **theirs)
            assert code == 200, got
            if got["status"] == "running" and got["done"] >= 1:
                break
            time.sleep(0.02)
        else:
            raise AssertionError("the slow review never started")
        assert late is not None
        late.kill()  # SIGKILL: no goodbye, its lease is left to run out
        again = WorkerProcess(db, args(prefix)).start()
        extra.append(again)
        began = time.monotonic()
        for _ in range(POLLS * 2):
            code, got = ask(s3, table, y, **theirs)
            assert code == 200, got
            states.append(got["status"])
            if got["status"] == "waiting":
                assert got["position"] == 1
            if "waiting" in states and got["status"] == "running" and got["done"] >= 1:
                break
            time.sleep(0.02)
        else:
            raise AssertionError(f"the review was not taken up again: {states[-5:]}")
        assert time.monotonic() - began >= LEASE - 2  # not before the dead worker's lease ran out
    finally:
        if ann is not None:
            ann.close()
        s1.stop()
        s2.stop()
        for w in (worker, late, *extra):
            if w is not None:
                w.stop()
