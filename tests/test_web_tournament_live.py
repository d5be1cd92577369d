"""Each board of a tournament in play is a row of its own (issue 53, the load part): a person's move
writes its table's row and leaves the tournament's document as it was; a board's finish writes the
document once, however many writers (a finishing move, a step, a job run twice) finish it from the
same state; a restart goes on from the rows.  Played in this process on a SQLite file, with no
server: every step and move is called directly, so nothing runs between them (seeded)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import need

need("fastapi")

from canasta.bots import make_bot  # noqa: E402
from canasta.play.table import Table  # noqa: E402
from canasta.web import tournaments as tn  # noqa: E402
from canasta.web.store import Store  # noqa: E402
from canasta.web.tournament_load import choice  # noqa: E402
from canasta.web.tournament_store import TournamentStore, boards_t  # noqa: E402

TID = "livetest01"
TABLES = 3


def made(path: Path, tables: int = TABLES, seed: int = 5353) -> Store:
    """A one-round, one-board duplicate tournament of ``tables`` tables, every seat a person's,
    started and dealt (each table's row written, its first clock running)."""
    store = Store(str(path))
    ts = tn.store_for(store.engine, store.vault)
    settings = {"form": "duplicate", "rounds": 1, "hands": 1, "preset": "classic-4p", "scoring": "matchpoints",
                "entry": "pairs", "turn_seconds": 600}
    state = tn.new_state("live", {"id": "director", "name": "director"}, settings, seed)
    for i in range(2 * tables):
        tn.enter(state, [{"id": f"a{2 * i}", "name": f"p{2 * i}"}, {"id": f"a{2 * i + 1}", "name": f"p{2 * i + 1}"}])
    tn.start(state)
    ts.create(TID, state, 1000.0)
    seated = tn.step(ts, TID, 1000.0, budget=60.0)  # the round seated: the document written
    assert seated is not None and seated[2]
    dealt = tn.step(ts, TID, 1000.0, budget=60.0)  # every table dealt, each waiting on a person
    assert dealt is not None and dealt[2]
    assert len(ts.heads(TID)) == tables
    return store


@pytest.fixture
def room(tmp_path: Path) -> Iterator[tuple[Store, TournamentStore]]:
    store = made(tmp_path / "live.db")
    try:
        yield store, tn.store_for(store.engine, store.vault)
    finally:
        store.engine.dispose()


def to_move(ts: TournamentStore, table: int) -> tuple[str, str]:
    """The account to move at ``table`` and the move the page suggests to it."""
    got = tn.current(ts, TID)
    assert got is not None and got[1] is not None
    state, t = got[0].state, got[1]
    for i in range(4 * TABLES):
        found = tn.seat_of(state, t, f"a{i}")
        if found is not None and found[0].table == table:
            view = tn.my_view(ts, state, t, TID, f"a{i}")
            if view is not None and view["to_move"] == view["seat"]:
                return f"a{i}", choice(view, i)
    raise AssertionError(f"nobody to move at table {table}")


def move(ts: TournamentStore, table: int, now: float = 1001.0) -> tuple[str, float | None, int | None]:
    account, text = to_move(ts, table)
    got = tn.current(ts, TID)
    assert got is not None and got[1] is not None
    done = tn.play_move(ts, got[0], got[1], account, None, text, now)
    assert done is not None
    return done


def test_a_move_writes_only_its_tables_row(room: tuple[Store, TournamentStore]) -> None:
    _, ts = room
    seq = ts.seq_of(TID)
    before = {h.table: h for h in ts.heads(TID)}
    wrote, clock, table = move(ts, 2)
    after = {h.table: h for h in ts.heads(TID)}
    assert ts.seq_of(TID) == seq  # the document untouched
    assert wrote == f"{seq}:2.{before[2].seq + 1}" and table == 2
    assert after[2].seq == before[2].seq + 1 and after[2].moves == before[2].moves + 1
    assert clock is not None and after[2].deadline == clock  # a person to move next: their clock runs
    assert {k: v for k, v in after.items() if k != 2} == {k: v for k, v in before.items() if k != 2}
    # the page's look: the table's moves from the row's head, the version moved on by the move
    got = tn.current(ts, TID)
    assert got is not None
    shown = tn.public(got[0].state, got[1], None, {h.table: h.moves for h in after.values()})
    assert [x["moves"] for x in shown["tables"]] == [after[x["table"]].moves for x in shown["tables"]]


def test_a_step_reads_no_table_waiting_for_its_person(room: tuple[Store, TournamentStore],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _, ts = room
    read: list[int] = []
    real = ts.live

    def counted(tid: str, table: int) -> Any:
        read.append(table)
        return real(tid, table)

    monkeypatch.setattr(ts, "live", counted)
    done = tn.step(ts, TID, 1002.0)
    assert done is not None and done[2] is False and read == []
    assert done[1] == min(h.deadline or 0.0 for h in ts.heads(TID))  # the next step: the first clock's end


def finishing(ts: TournamentStore, table: int) -> tuple[str, str]:
    """Table ``table`` played by its people until the next move ends the board: that move."""
    for _ in range(2000):
        account, text = to_move(ts, table)
        row = ts.live(TID, table)
        assert row is not None and row.data is not None
        trial = Table.from_dict(row.data["table"])
        try:
            trial.play(trial.to_move, text)
            if trial.hand_over:
                return account, text
        finally:
            trial.close()
        move(ts, table)
    raise AssertionError("the board never ended")


def records(ts: TournamentStore, table: int) -> int:
    with ts.engine.connect() as db:
        return len(db.execute(boards_t.select().where(boards_t.c.tournament == TID, boards_t.c.tbl == table)).all())


def test_a_board_is_finished_once_by_a_move_and_a_step_from_the_same_state(room: tuple[Store, TournamentStore]
                                                                           ) -> None:
    _, ts = room
    account, text = finishing(ts, 1)
    got = tn.current(ts, TID)
    assert got is not None and got[1] is not None
    doc, t = got
    row = ts.live(TID, 1)
    assert row is not None and row.data is not None
    seq = doc.seq
    # the step's side, read before the move: the same row, the house bot finishing the board
    # (the player's clock run out); it writes after the move has
    late = Table.from_dict(row.data["table"])
    house = make_bot(tn.HOUSE_BOT, seed=7)
    try:
        late.play(late.to_move, late.bot_move(stand_in=house))
    finally:
        house.close()
    assert late.hand_over
    stale = ts.live(TID, 1)
    assert stale is not None and stale.data is not None and t is not None
    done = tn.play_move(ts, doc, t, account, None, text, 1003.0)
    assert done is not None and done[0] == str(seq + 1) and done[1] is None
    s = t.seatings[1][0]
    assert tn.finish(ts, TID, 1, s, 1, late, list(stale.data["stand_ins"]), stale, 1003.5) is None
    late.close()
    assert ts.seq_of(TID) == seq + 1  # changed once
    assert ts.live(TID, 1) is None and records(ts, 1) == 1
    after = tn.current(ts, TID)
    assert after is not None and after[1] is not None
    assert [(r.round, r.board, r.table) for r in after[1].results] == [(1, 1, 1)]
    # the same move sent again (a retry, another server): refused, nothing written
    with pytest.raises(tn.Refused):
        tn.play_move(ts, after[0], after[1], account, None, text, 1004.0)
    assert ts.seq_of(TID) == seq + 1 and records(ts, 1) == 1
    # a job run twice from the state before the finish: the step reads the newest and writes nothing of it
    again = tn.step(ts, TID, 1004.0)
    assert again is not None and again[0] == seq + 1 and again[2] is False


def test_a_restart_mid_board_goes_on_from_the_row(tmp_path: Path) -> None:
    path = tmp_path / "restart.db"
    store = made(path)
    ts = tn.store_for(store.engine, store.vault)
    for _ in range(5):
        move(ts, 3)
    row = ts.live(TID, 3)
    assert row is not None and row.data is not None
    played = list(row.data["table"]["hands"][0])
    account, text = to_move(ts, 3)
    store.engine.dispose()
    # a new process on the same database: nothing kept but the rows
    again = Store(str(path))
    try:
        ts2 = tn.store_for(again.engine, again.vault)
        assert ts2 is not ts and ts2.cache == {}
        assert to_move(ts2, 3) == (account, text)  # the same player to move, the same suggestion
        move(ts2, 3, now=2000.0)
        resumed = ts2.live(TID, 3)
        assert resumed is not None and resumed.data is not None
        assert resumed.data["table"]["hands"][0][: len(played)] == played  # the board's moves kept
        assert resumed.moves == len(played) + 1
    finally:
        again.engine.dispose()


def test_the_page_shows_each_tables_moves_and_no_cards(room: tuple[Store, TournamentStore]) -> None:
    _, ts = room
    move(ts, 1)
    got = tn.current(ts, TID)
    assert got is not None
    heads = {h.table: h.moves for h in ts.heads(TID)}
    shown: Any = tn.public(got[0].state, got[1], None, heads)
    assert {x["table"]: x["moves"] for x in shown["tables"]} == heads
    assert "secret" not in str(shown["tables"]) and "hands" not in str(shown["tables"])


# ------------------------------------------------------------------ a round's time limit


def board_played(ts: TournamentStore, now: float) -> tuple[int, int, str]:
    """Steps at ``now`` until the board in play changes (every table of bots played through)."""
    got = tn.current(ts, TID)
    assert got is not None and got[1] is not None
    was = (got[1].played + 1, int(got[0].state["board"]))
    for _ in range(50):
        tn.step(ts, TID, now, budget=60.0)
        got = tn.current(ts, TID)
        assert got is not None and got[1] is not None
        now_at = (got[1].played + 1, int(got[0].state["board"]))
        if now_at != was or got[0].status == "finished":
            return now_at[0], now_at[1], got[0].status
    raise AssertionError("the board never changed")


def test_a_round_time_limit_deals_no_board_after_it(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "limit.db"))
    try:
        ts = tn.store_for(store.engine, store.vault)
        settings = {"form": "swiss", "rounds": 2, "hands": 3, "preset": "classic-4p", "scoring": "vp",
                    "entry": "pairs", "turn_seconds": 60, "round_minutes": 1}
        state = tn.new_state("limit", {"id": "director", "name": "director"}, settings, 5354)
        for i in range(4):
            tn.enter(state, [{"bot": "random"}, {"bot": "random"}], f"random {i}")
        tn.start(state, now=1000.0)
        assert state["round_ends"] == 1060.0
        ts.create(TID, state, 1000.0)
        seated = tn.step(ts, TID, 1000.0)  # the round seated
        assert seated is not None and seated[2]
        assert board_played(ts, 1010.0) == (1, 2, "running")  # board 1 over at every table in time: board 2 dealt
        # board 2 finished after the limit: board 3 is not dealt, the round is over
        assert board_played(ts, 1070.0) == (2, 1, "running")
        got = tn.current(ts, TID)
        assert got is not None and got[1] is not None
        assert got[0].state["round_ends"] == 1130.0 and got[0].state["cut"] == {"1": 2}
        assert board_played(ts, 1080.0) == (2, 2, "running")
        assert board_played(ts, 1090.0) == (2, 3, "running")
        assert board_played(ts, 1100.0)[2] == "finished"  # round 2 played its three boards in time
        got = tn.current(ts, TID)
        assert got is not None and got[1] is not None
        t = got[1]
        assert sorted({(r.round, r.board) for r in t.results}) == [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3)]
        shown = tn.public(got[0].state, t, None)
        assert shown["cut"] == {1: 2}
        assert sum(row["vp"] for row in shown["standings"]) == pytest.approx(20 * 2 * 2)  # 20 a table a round
        assert {row["boards"] for row in shown["standings"]} == {5}  # two boards of round 1, three of round 2
    finally:
        store.engine.dispose()


def test_the_directors_pause_stops_the_rounds_time_limit() -> None:
    state: dict[str, Any] = {"paused": False, "round_ends": 1130.0, "settings": {"round_minutes": 1}}
    tn.pause_clock(state, True, 1100.0)
    assert state["paused"] and state["round_ends"] is None and state["round_left"] == 30.0
    tn.pause_clock(state, False, 5000.0)
    assert not state["paused"] and state["round_ends"] == 5030.0 and "round_left" not in state
    none: dict[str, Any] = {"paused": False, "round_ends": None, "settings": {"round_minutes": None}}
    tn.pause_clock(none, True, 10.0)
    tn.pause_clock(none, False, 20.0)
    assert none["round_ends"] is None


def test_the_round_time_limit_is_the_directors_setting(tmp_path: Path) -> None:
    need("argon2")
    from test_web_tournaments import api, as_player
    from test_web_tournaments import room as web_room

    with web_room(tmp_path) as client:
        as_player(client, "Dora")
        made = api(client, "", {"rounds": 1, "hands": 2})
        assert made.status_code == 201
        assert client.get(f"/api/tournaments/{made.json()['id']}").json()["settings"]["round_minutes"] is None
        timed = api(client, "", {"rounds": 1, "hands": 2, "round_minutes": 45})
        assert client.get(f"/api/tournaments/{timed.json()['id']}").json()["settings"]["round_minutes"] == 45
        assert api(client, "", {"round_minutes": 0}).status_code == 201  # none
        for wrong in (601, -1, 2.5, "ten"):
            refused = api(client, "", {"round_minutes": wrong})
            assert refused.status_code == 400
            assert refused.json()["detail"] == "round_minutes is a whole number from 1 to 600"


def test_a_glance_read_while_this_process_writes_is_not_kept(room: tuple[Store, TournamentStore],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages' glance (the document's number and the rows' heads) is kept for a moment; one read
    while this process writes the document may hold the state before the write, so it is not kept:
    the next look reads the new number, not a stale one for the moment's length."""
    _store, ts = room
    seq, _heads = ts.glance(TID, 2000.0, 60.0) or (None, None)
    assert seq is not None
    got = ts.load(TID)
    assert got is not None
    reading = ts._heads_on

    def write_meanwhile(db: Any, tid: str) -> Any:  # the glance has read the old number; a write lands now
        heads = reading(db, tid)
        assert ts.save(got, 2000.0)
        return heads

    ts.glances.clear()
    monkeypatch.setattr(ts, "_heads_on", write_meanwhile)
    stale = ts.glance(TID, 2000.0, 60.0)
    monkeypatch.setattr(ts, "_heads_on", reading)
    assert stale is not None and stale[0] == seq  # that read saw the number before the write ...
    again = ts.glance(TID, 2000.5, 60.0)  # ... and was not kept: well within the moment, the new number
    assert again is not None and again[0] == seq + 1
    assert ts.glance(TID, 2001.0, 60.0) == again  # a glance read with no write under way is kept
