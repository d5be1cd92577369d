"""A review's cost is bounded (issue #55, item 2), and one server's queue is round-robin
between clients even at one table.

``Settings.review_work`` is the worlds one review of a hand may sample in all: a hand with
more decisions than ``review_work // review_worlds`` shares them out (each decision judged on
fewer worlds, at least ``MIN_WORLDS``), and a hand longer still has only its first decisions
reviewed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

from canasta.review import Task
from canasta.web.reviews import MIN_WORLDS, Reviewer, budgeted
from canasta.web.room import Settings
from canasta.web.store import Store
from test_web import database, hello, human_table, room_client
from test_web_review import BOTS, play, until_done
from test_web_review_seats import FakeTask, NoStore


def fake_tasks(n: int, worlds: int) -> list[Task]:
    return [Task(1, 1, i, i, cast(Any, None), cast(Any, None), worlds, i, {}) for i in range(n)]


def test_a_hand_within_the_work_is_reviewed_whole() -> None:
    tasks = fake_tasks(64, 96)
    assert budgeted(tasks, 96, 64 * 96) == tasks


def test_a_long_hand_shares_the_work_out_then_is_cut() -> None:
    shared = budgeted(fake_tasks(100, 96), 96, 6144)
    assert len(shared) == 100 and {t.worlds for t in shared} == {61}  # 6144 // 100
    assert sum(t.worlds for t in shared) <= 6144
    cut = budgeted(fake_tasks(1000, 96), 96, 6144)
    assert len(cut) == 6144 // MIN_WORLDS and {t.worlds for t in cut} == {MIN_WORLDS}
    assert [t.index for t in cut] == list(range(len(cut)))  # the first decisions, in order
    assert {t.worlds for t in budgeted(fake_tasks(1000, 4), 4, 100)} == {4}  # never more than asked
    assert len(budgeted(fake_tasks(5, 96), 96, 1)) == 1  # at least one decision


def test_the_card_room_review_keeps_to_its_work(tmp_path: Path) -> None:
    work = 12 * MIN_WORLDS
    with room_client(database(tmp_path), review_worlds=32, review_work=work, review_workers=0) as client:
        tid, tokens = human_table(client, BOTS)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            hello(ws, tokens[0])
            play(client, ws, tid, "hand_over")
        seen, review = until_done(client, tid, token=tokens[0], hand=1)
        own = [e for e in review["timeline"] if e["seat"] == 0]
        assert len(own) > 12  # the hand had more decisions than the work allows at MIN_WORLDS each
        assert seen and seen[-1][1] == 12  # the decisions reviewed: work // MIN_WORLDS
        reviewed = [e for e in review["timeline"] if e.get("reviewed")]
        assert reviewed and all(e["worlds"] <= MIN_WORLDS for e in reviewed)
        assert max(e["index"] for e in reviewed) <= own[11]["index"]  # the first twelve of the seat's


def test_one_clients_many_reviews_at_one_table_do_not_hold_anothers_back() -> None:
    async def scenario() -> None:
        reviewer = Reviewer(cast(Store, NoStore()), Settings(review_workers=1))
        gate = asyncio.Event()

        async def blocked(task: Task) -> None:
            await gate.wait()

        reviewer.processes.evaluate = blocked  # type: ignore[method-assign]
        xs = [("t", 1, seat) for seat in range(3)]
        for key in xs:  # client x asks for three reviews of one table; the first starts at once
            reviewer.start(key, [FakeTask(key)], "x")  # type: ignore[list-item]
        assert [reviewer.position(k) for k in xs] == [0, 1, 2]
        y = ("t", 1, 3)
        reviewer.start(y, [FakeTask(y)], "y")  # type: ignore[list-item]
        assert reviewer.position(y) == 1  # y's one review is next, not behind x's two waiting
        assert [reviewer.position(k) for k in xs] == [0, 2, 3]
        gate.set()
        await reviewer.close()

    asyncio.run(scenario())
