"""A duplicate tournament on a cluster (issue 53): two servers and a worker on one PostgreSQL
database with Redis, as tests/test_cluster.py runs them.  The director makes it on one server, the
standings are read on the other, the steps run in the worker; the worker is killed (SIGKILL)
once round 1 is over, while the tournament runs, and another started: the tournament ends with the results, board by board, of the same
tournament run in one go by ``canasta.club``.

Skipped without PostgreSQL and Redis, unless ``CANASTA_SERVICES_REQUIRED=1``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import need

need("fastapi")
need("argon2")
httpx = need("httpx2")

from canasta.club.tournament import Partnership, Tournament  # noqa: E402
from canasta.engine.rules import RuleSet  # noqa: E402
from canasta.web.devserver import ServerProcess, WorkerProcess  # noqa: E402
from test_cluster import server_args, services  # noqa: E402, F401 - the fixture
from test_cluster_rated import signed_up  # noqa: E402

PAIRS, ROUNDS, HANDS, SEED = 8, 3, 1, 5303


@pytest.fixture(scope="module")
def cluster(services: tuple[str, str]) -> Iterator[tuple[str, str, ServerProcess, ServerProcess]]:  # noqa: F811
    db, prefix = services
    one = ServerProcess(db, args=server_args(prefix, "--bot-workers", "0")).start()
    other = ServerProcess(db, args=server_args(prefix, "--bot-workers", "0")).start()
    try:
        yield db, prefix, one, other
    finally:
        one.stop()
        other.stop()


def shown(server: ServerProcess, tid: str) -> dict[str, Any]:
    with httpx.Client(base_url=server.url, timeout=20) as c:
        found: dict[str, Any] = c.get(f"/api/tournaments/{tid}").json()
        return found


def until(server: ServerProcess, tid: str, done: Any, seconds: float = 120.0) -> dict[str, Any]:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        now = shown(server, tid)
        if done(now):
            return now
        time.sleep(0.1)  # another process plays it: polled, with a deadline
    raise AssertionError(f"not done in {seconds} s: {now.get('status')} round {now.get('round')}")


def test_a_tournament_across_the_cluster_survives_its_worker(cluster: tuple[str, str, ServerProcess, ServerProcess]
                                                             ) -> None:
    db, prefix, one, other = cluster
    dora = signed_up(one, "Dora")
    try:
        made = dora.post("/api/tournaments", json={"name": "Cluster pairs", "rounds": ROUNDS, "hands": HANDS,
                                                   "seed": SEED})
        assert made.status_code == 201, made.text
        tid = made.json()["id"]
        assert dora.post(f"/api/tournaments/{tid}/director/bots", json={"count": PAIRS}).status_code == 200
        worker = WorkerProcess(db, server_args(prefix)).start()
        try:
            assert dora.post(f"/api/tournaments/{tid}/director/start", json={}).status_code == 200
            mid = until(other, tid, lambda s: s["played"] >= 1)
        finally:
            worker.kill()  # dead at once, whatever it was doing
        assert mid["status"] == "running"
        again = WorkerProcess(db, server_args(prefix)).start()
        try:
            end = until(other, tid, lambda s: s["status"] == "finished")
        finally:
            again.stop()
    finally:
        dora.close()
    reference = Tournament(RuleSet.preset("classic-4p"),
                           [Partnership(i, f"basic {i}", ("basic", "basic")) for i in range(1, PAIRS + 1)],
                           ROUNDS, HANDS, "swiss", "matchpoints", SEED)
    reference.run()
    assert sorted((r["round"], r["board"], r["table"], r["pair"], r["score"]) for r in end["final"]) == sorted(
        (r["round"], r["board"], r["table"], r["pair"], r["score"]) for r in reference.final_table())
    assert [(s["pair"], s["score"]) for s in end["standings"]] == [(s.pair, s.score) for s in reference.standings()]
    assert shown(one, tid)["standings"] == end["standings"]  # both servers read the same
