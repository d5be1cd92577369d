"""Reviews for every seated player, and the review queue's fair shares (issue #55, items 1 and 2).

A seat taken after the table was made (an open seat, an invite) and every seat of a rematch hold
their token in a ``join`` event, not in the seat rows written at creation: the review finds them.
The queue: at most one review per review process is computed at once; the others wait in a
fair order (per client address and per table), each with its position, within shares."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

import pytest

from canasta.review import DecisionReview, Task
from canasta.web import reviews
from canasta.web.reviews import CLIENT_SHARE, TABLE_SHARE, Reviewer
from canasta.web.room import Settings
from canasta.web.store import Store
from test_web import database, hello, human_table, room_client
from test_web_review import ask, play, until_done

TWO = [{}, {"kind": "open"}]  # Ann made the table; Carl takes the open seat later (his page never connects)


def test_a_joined_seat_and_every_rematch_seat_review_their_own_hands(tmp_path: Path) -> None:
    with room_client(database(tmp_path), review_worlds=2, review_workers=0) as client:
        tid, tokens = human_table(client, TWO, preset="classic-2p", target=100)
        ann, carl = tokens
        with client.websocket_connect(f"/ws/{tid}") as ws:
            hello(ws, ann)
            play(client, ws, tid, "hand_over")  # Carl is away: a bot plays his seat after the grace period
            # the joined seat, by its token alone (the page sends no seat) and with its seat
            mine = until_done(client, tid, token=carl, hand=1)[1]
            assert mine["seat"] == 1 and mine["seats"] == [1]
            assert all(e["view"]["seat"] == 1 for e in mine["timeline"] if "view" in e)
            assert until_done(client, tid, token=carl, hand=1, seat=1)[1]["seat"] == 1
            code, refused = ask(client, tid, token=carl, hand=1, seat=0)  # not Ann's, while the match goes on
            assert code == 403, refused
            # a token that is no seat's: said so, not "say which seat"
            code, refused = ask(client, tid, lang="it", token="not-a-seat-token", hand=1)
            assert code == 403 and "non è uno dei posti" in refused["detail"], refused
            play(client, ws, tid, "match_over")
        made = client.post(f"/api/tables/{tid}/rematch", json={"token": ann})
        assert made.status_code == 200, made.text
        again = made.json()["table"]
        joined = client.post(f"/api/tables/{tid}/rematch", json={"token": carl})
        assert joined.status_code == 200 and joined.json()["table"] == again, joined.text
        with client.websocket_connect(f"/ws/{again}") as ws:
            hello(ws, ann)
            play(client, ws, again, "hand_over")
        for seat, token in enumerate(tokens):  # every seat of the rematch, the one who made it included
            review = until_done(client, again, token=token, hand=1)[1]
            assert review["seat"] == seat and review["seats"] == [seat], review.get("seats")
            assert any(e.get("reviewed") for e in review["timeline"])


# ------------------------------------------------------------------ the queue


class NoStore:
    """Where a computed review would be kept: nowhere."""

    def save_review(self, *args: Any) -> None:
        pass


def blocked_reviewer(workers: int = 1) -> tuple[Reviewer, dict[tuple[str, int, int], asyncio.Event]]:
    """A reviewer whose decisions each wait for their review's event (set by the test), so what
    runs and what waits is decided by the queue alone, never by timing."""
    reviewer = Reviewer(cast(Store, NoStore()), Settings(review_workers=workers))
    gates: dict[tuple[str, int, int], asyncio.Event] = {}

    async def evaluate(task: Task) -> DecisionReview | None:
        await gates[task.key].wait()  # type: ignore[attr-defined]
        return None

    reviewer.processes.evaluate = evaluate  # type: ignore[method-assign]
    return reviewer, gates


class FakeTask:
    def __init__(self, key: tuple[str, int, int]) -> None:
        self.key = key


def test_the_queue_serves_clients_and_tables_in_turn_with_a_position() -> None:
    async def scenario() -> None:
        reviewer, gates = blocked_reviewer()

        def start(table: str, hand: int, client: str) -> tuple[str, int, int]:
            key = (table, hand, 0)
            gates[key] = asyncio.Event()
            reviewer.start(key, [FakeTask(key)], client)  # type: ignore[list-item]
            return key

        # client "hog" asks first for its whole share, at two tables
        hog = [start("t1", 1, "hog"), start("t1", 2, "hog"), start("t2", 1, "hog")]
        assert reviewer.position(hog[0]) == 0  # being computed: one review process, one at a time
        assert [reviewer.position(k) for k in hog[1:]] == [1, 2]
        with pytest.raises(Exception) as refused:  # beyond its share: refused, with the reason
            start("t3", 1, "hog")
        assert getattr(refused.value, "status_code", None) == 429
        # another client comes later: its first review goes before the hog's second and third
        other = start("t4", 1, "other")
        assert reviewer.position(other) == 1 and [reviewer.position(k) for k in hog[1:]] == [2, 3]
        gates[hog[0]].set()  # the hog's first is done: the other client's starts
        for _ in range(100):
            await asyncio.sleep(0)
            if reviewer.position(other) == 0:
                break
        assert reviewer.position(other) == 0 and reviewer.jobs[hog[0]].finished
        assert [reviewer.position(k) for k in hog[1:]] == [1, 2]
        # a table's share: at most TABLE_SHARE reviews of one table waiting or running
        for n in range(TABLE_SHARE - 1):  # the hog's second is one
            start("t1", 10 + n, f"c{n}")
        with pytest.raises(Exception) as full:
            start("t1", 99, "late")
        assert getattr(full.value, "status_code", None) == 429
        for gate in gates.values():
            gate.set()
        for _ in range(1000):
            await asyncio.sleep(0)
            if all(j.finished for j in reviewer.jobs.values()):
                break
        assert all(j.finished for j in reviewer.jobs.values()) and not reviewer.waiting
        await reviewer.close()

    asyncio.run(scenario())
    assert CLIENT_SHARE == 3


def test_a_client_beyond_its_share_is_told_why_in_its_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reviews, "CLIENT_SHARE", 1)
    with room_client(database(tmp_path), review_worlds=2, review_workers=0) as client:
        tid, tokens = human_table(client, [{}, {"kind": "bot", "level": "basic"}], preset="classic-2p", target=100,
                                  review_others=True)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            hello(ws, tokens[0])
            play(client, ws, tid, "match_over")
        reviewer: Reviewer = client.app.state.reviewer  # type: ignore[attr-defined]
        gate = asyncio.Event()  # the first review waits here: the second is asked while it runs
        real = reviewer.processes.evaluate

        async def slow(task: Task) -> DecisionReview | None:
            await gate.wait()
            return await real(task)

        reviewer.processes.evaluate = slow  # type: ignore[method-assign]
        code, first = ask(client, tid, token=tokens[0], hand=1)
        assert code == 200 and first["status"] == "running" and first["position"] == 0
        code, refused = ask(client, tid, lang="it", token=tokens[0], hand=1, seat=1)
        assert code == 429 and refused["detail"].startswith("hai già la tua quota di analisi"), refused
        body: dict[str, Any] = {"token": tokens[0], "hand": 1, "seat": 1}
        code, refused = ask(client, tid, **body)
        assert code == 429 and "you already have your share of reviews" in refused["detail"], refused
        client.portal.call(gate.set)  # type: ignore[union-attr]
        assert until_done(client, tid, token=tokens[0], hand=1)[1]["seat"] == 0
        assert until_done(client, tid, **body)[1]["seat"] == 1  # its turn now
