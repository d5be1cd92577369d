"""The review of a tournament's board (issue 53: "links to replay and review every hand"): any seat
of a board every table has finished, computed by the room's reviewer from the board dealt again
from the round's secret, kept and read back; refused while the board is in play somewhere, for a
seat or hand the board has not; and the key a cluster's worker reads the board from."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from conftest import need

need("fastapi")
need("argon2")

from fastapi.testclient import TestClient  # noqa: E402

from canasta.play.record import parse_records  # noqa: E402
from canasta.play.table import Table  # noqa: E402
from canasta.review import tasks_of  # noqa: E402
from canasta.web.app import create_app  # noqa: E402
from canasta.web.review_queue import state_of  # noqa: E402
from canasta.web.room import Settings  # noqa: E402
from canasta.web.tournament_reviews import board_key, board_of_key  # noqa: E402
from canasta.web.tournament_routes import board_state  # noqa: E402
from canasta.web.tournaments import store_for, tournament_of  # noqa: E402
from test_web_tournaments import Steps, api, as_player  # noqa: E402

WORLDS = 2  # a tiny budget: the marks are noisy, the mechanics are what is tested
POLLS = 3000


def room(folder: Path) -> TestClient:
    return TestClient(create_app(str(folder / "t.db"), settings=Settings(
        bot_workers=0, review_workers=0, review_worlds=WORLDS, bot_delay=0, fixed_seeds=True, grace=3600.0)))


def ask(client: TestClient, tid: str, where: str, lang: str = "en", **body: Any) -> tuple[int, dict[str, Any]]:
    r = client.post(f"/api/tournaments/{tid}/boards/{where}/review?lang={lang}", json=body)
    data: dict[str, Any] = r.json()
    return r.status_code, data


def until_done(client: TestClient, tid: str, where: str, **body: Any) -> dict[str, Any]:
    for _ in range(POLLS):
        code, data = ask(client, tid, where, **body)
        assert code == 200, data
        if data["status"] == "done":
            return data
        time.sleep(0.02)  # between two questions; the bound is the number of questions
    raise AssertionError(f"the review was not computed after {POLLS} questions")


def hand_one(state: dict[str, Any] | None) -> tuple[str, list[Any]]:
    """A board's saved form as the review reads it: its first deal's secret and its moves (the
    secret drawn for a next hand, which a board never plays, differs from one building to the next)."""
    assert state is not None
    table = Table.from_dict(state)
    try:
        return state["fair"]["deals"][0]["secret"], list(table.record().hands[0].moves)
    finally:
        table.close()


def test_any_seat_of_a_closed_board_is_reviewed_and_kept(tmp_path: Path) -> None:
    with room(tmp_path) as client:
        as_player(client, "Dora")
        made = api(client, "", {"name": "Review night", "form": "swiss", "rounds": 1, "hands": 1,
                                "preset": "classic-4p", "scoring": "matchpoints", "entry": "pairs", "seed": 5302})
        assert made.status_code == 201, made.text
        tid = str(made.json()["id"])
        assert api(client, f"/{tid}/director/bots", {"count": 4, "level": "basic"}).status_code == 200
        code, refused = ask(client, tid, "1/1/1", seat=0)
        assert code == 404, refused  # not begun: no board to review
        steps = Steps(client)
        try:
            assert api(client, f"/{tid}/director/start").status_code == 200
            shown = steps.until(tid, lambda s: s["status"] == "finished")
        finally:
            steps.close()
        row = next(x for x in shown["final"] if x["direction"] == "EW" and x["table"] == 1)
        where = f"{row['round']}/{row['table']}/{row['board']}"
        review = until_done(client, tid, where, seat=1)  # East: anyone may ask, the board is over everywhere
        assert review["seat"] == 1 and review["hand"] == 1 and review["hands"] == 1
        assert review["seats"] == [0, 1, 2, 3]
        record = client.get(f"/api/tournaments/{tid}/boards/{where}/record").text
        games, errors = parse_records(record)
        assert not errors and len(games) == 1
        moves = games[0].hands[0].moves
        assert [e["index"] for e in review["timeline"]] == list(range(len(moves)))
        reviewed = [e for e in review["timeline"] if e.get("reviewed")]
        assert reviewed and all(e["seat"] == 1 for e in reviewed)
        assert review["summary"]["decisions"] == len(reviewed)
        # the positions are East's own views at each decision, from the board dealt again
        store = client.app.state.card_room.store  # type: ignore[attr-defined]
        tstore = store_for(store.engine, store.vault)
        t = tournament_of(tstore.load(tid).state)  # type: ignore[union-attr]
        state = board_state(tstore, tid, t, row["round"], row["table"], row["board"])
        assert state is not None
        table = Table.from_dict(state)
        try:
            views = {k.index: k.view.to_dict(include_rules=False)
                     for k in tasks_of(table.record(), 1, [1], 1, WORLDS, 1)}
        finally:
            table.close()
        for e in reviewed:
            assert e["view"] == views[e["index"]] and e["view"]["seat"] == 1
        # kept: asked again (in Italian), read back, not computed again
        code, again = ask(client, tid, where, lang="it", seat=1)
        assert code == 200 and again["status"] == "done"
        assert [e.get("mark") for e in again["timeline"]] == [e.get("mark") for e in review["timeline"]]
        # what a cluster's worker reads from the review's key is the same board
        key = board_key(tid, row["round"], row["table"], row["board"])
        played = [hand_one(x) for x in (state_of(store, key), board_of_key(store, key))]
        assert played == [hand_one(state)] * 2
        assert state_of(store, f"T:{tid}:9:1:1") is None and state_of(store, "T:nonsense") is None
        # refusals: a seat or a hand the board has not, a board never played, a tournament that is not
        assert ask(client, tid, where, seat=4)[0] == 400
        assert ask(client, tid, where, seat=0, hand=2)[0] == 400
        assert ask(client, tid, "1/9/1", seat=0)[0] == 404
        assert ask(client, "nosuchtournament", where, seat=0)[0] == 404
        # the page
        page = client.get(f"/tournaments/{tid}/review/{where}?seat=1")
        assert page.status_code == 200 and "review.js" in page.text
