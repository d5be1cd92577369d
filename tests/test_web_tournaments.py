"""Duplicate tournaments in the card room (issue 53): a tournament of 16 bot partnerships over 4
rounds played through the room at full pace, its deals and matchpoints checked from the room's
records by the test's own computation, and its standings unchanged by a server restart in the
middle of a round; the attacks (entering twice, playing another seat, a director's action by
someone else, a spectator looking for cards)."""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import need

need("fastapi")
need("argon2")

from fastapi.testclient import TestClient  # noqa: E402

from canasta.club.tournament import Partnership, Tournament  # noqa: E402
from canasta.engine.fairdeal import DealStream  # noqa: E402
from canasta.engine.game import Game  # noqa: E402
from canasta.engine.rules import RuleSet  # noqa: E402
from canasta.play.record import GameRecord, parse_records  # noqa: E402
from canasta.play.table import Table  # noqa: E402
from canasta.web import tournaments  # noqa: E402
from canasta.web.app import create_app  # noqa: E402
from canasta.web.room import Settings  # noqa: E402
from canasta.web.tournament_load import choice  # noqa: E402
from test_web_accounts import accounts_of, csrf, post, register  # noqa: E402

PAIRS, ROUNDS, HANDS, SEED = 16, 4, 1, 5301
RULES = RuleSet.preset("classic-4p")


def room(folder: Path) -> TestClient:
    app = create_app(str(folder / "t.db"), settings=Settings(bot_workers=0, review_workers=0, bot_delay=0,
                                                             fixed_seeds=True, grace=3600.0))
    return TestClient(app)


def as_player(client: TestClient, name: str) -> None:
    post(client, "logout", {})
    if register(client, name).status_code != 201:
        assert post(client, "login", {"name": name, "password": "correct horse battery"}).status_code == 200


def api(client: TestClient, path: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(f"/api/tournaments{path}", json=body or {}, headers={"X-CSRF-Token": csrf(client)})


class Steps:
    """Waits on the tournament's steps (each step written calls the listeners); ``stop_when`` keeps
    the server from asking for any step after the first state it holds for (as if it died there)."""

    def __init__(self, client: TestClient, stop_when: Any = None) -> None:
        self.client = client
        self.stepped = threading.Event()
        self.stop_when = stop_when
        self.stopped: int | None = None
        tournaments.step_listeners.append(self.heard)

    def heard(self, tid: str, seq: int) -> None:
        if self.stop_when is not None and self.stopped is None:
            got = tournaments.store_for(self.hub.store.engine, self.hub.store.vault).load(tid)
            if got is not None and self.stop_when(got.state):
                self.stopped = seq
                self.hub.pending_jobs[f"tournament:{tid}:{seq}"] = 0.0  # the next step is never asked for
        self.stepped.set()

    @property
    def hub(self) -> Any:
        return self.client.app.state.hub  # type: ignore[attr-defined]

    def close(self) -> None:
        tournaments.step_listeners.remove(self.heard)

    def until(self, tid: str, done: Any, seconds: float = 90.0) -> dict[str, Any]:
        for _ in range(2000):
            self.stepped.clear()  # before the look: a step between the look and the wait is not missed
            shown = self.client.get(f"/api/tournaments/{tid}").json()
            if done(shown):
                return dict(shown)
            assert self.stepped.wait(seconds), f"no step in {seconds} s: {shown.get('status')}"
        raise AssertionError("never done")


def mid_round_two(state: dict[str, Any]) -> bool:
    """Round 1 over and round 2 begun, not over: some of its tables have finished their board."""
    t = state["tournament"]
    return len(t["revealed"]) == 1 and any(rec["round"] == 2 for rec in t["records"])


def bot_tournament(client: TestClient) -> str:
    as_player(client, "Dora")
    made = api(client, "", {"name": "Sunday pairs", "form": "swiss", "rounds": ROUNDS, "hands": HANDS,
                            "preset": "classic-4p", "scoring": "matchpoints", "entry": "pairs", "seed": SEED})
    assert made.status_code == 201, made.text
    tid = str(made.json()["id"])
    assert api(client, f"/{tid}/director/bots", {"count": PAIRS, "level": "basic"}).status_code == 200
    return tid


def records_of(client: TestClient, tid: str, shown: dict[str, Any]) -> list[GameRecord]:
    out = []
    for row in shown["final"]:
        if row["direction"] == "NS":
            r = client.get(f"/api/tournaments/{tid}/boards/{row['round']}/{row['table']}/{row['board']}/record")
            assert r.status_code == 200, r.text
            games, errors = parse_records(r.text)
            assert not errors and len(games) == 1
            out.extend(games)
    return out


@pytest.fixture(scope="module")
def restarted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The tournament played to its end with a server restart in round 2: what the server showed
    before it stopped, what the next server showed at once, and the end."""
    folder = tmp_path_factory.mktemp("tournament")
    with room(folder) as client:
        accounts_of(client).limits.signups_per_address = 0
        steps = Steps(client, stop_when=mid_round_two)
        try:
            tid = bot_tournament(client)
            commitments = client.get(f"/api/tournaments/{tid}").json()["commitments"]
            assert api(client, f"/{tid}/director/start").status_code == 200
            steps.until(tid, lambda s: steps.stopped is not None)
            before = client.get(f"/api/tournaments/{tid}").json()
        finally:
            steps.close()
    with room(folder) as client:
        steps = Steps(client)
        try:
            after = client.get(f"/api/tournaments/{tid}").json()
            end = steps.until(tid, lambda s: s["status"] == "finished")
            records = records_of(client, tid, end)
            stored = tournaments.store_for(steps.hub.store.engine, None).load(tid)
            assert stored is not None  # the document keeps scores; the records are rows of their own
            assert all(rec["record"] == "" for rec in stored.state["tournament"]["records"])
        finally:
            steps.close()
    yield {"folder": folder, "tid": tid, "commitments": commitments, "before": before, "after": after, "end": end,
           "records": records}


def test_a_restart_mid_round_keeps_the_standings(restarted: dict[str, Any]) -> None:
    before, after = restarted["before"], restarted["after"]
    assert before["played"] == 1 and before["round"] == 2 and before["status"] == "running"
    assert 0 < sum(t["boards_done"] for t in before["tables"]) < PAIRS // 2  # in the middle of round 2
    assert after["standings"] == before["standings"]
    assert after["final"] == before["final"]


def test_the_room_plays_what_the_library_plays(restarted: dict[str, Any]) -> None:
    """The same tournament run in one go by canasta.club (same seeds, same bots) gives the same
    results board by board: the restart changed nothing."""
    reference = Tournament(RULES, [Partnership(i, f"basic {i}", ("basic", "basic")) for i in range(1, PAIRS + 1)],
                           ROUNDS, HANDS, "swiss", "matchpoints", SEED)
    reference.run()
    mine = sorted((row["round"], row["board"], row["table"], row["pair"], row["score"]) for row in restarted["end"]["final"])
    theirs = sorted((row["round"], row["board"], row["table"], row["pair"], row["score"])
                    for row in reference.final_table())
    assert mine == theirs
    assert [(s["pair"], s["score"]) for s in restarted["end"]["standings"]] == [
        (s.pair, s.score) for s in reference.standings()]


def test_every_table_of_a_round_was_dealt_the_same_cards(restarted: dict[str, Any]) -> None:
    """From the room's records: each board's secret derives (by the test's own HMAC) from the round
    secret revealed after the round, whose SHA-256 is the commitment published when the tournament
    was made; every table of a round got the same cards with the same dealer."""
    games = restarted["records"]
    assert len(games) == ROUNDS * HANDS * PAIRS // 2
    proof = restarted["end"]["proof"]
    dealt: dict[tuple[int, int], set[Any]] = defaultdict(set)
    for game in games:
        r, b = int(game.headers["Round"]), int(game.headers["Board"])
        secret = bytes.fromhex(proof["rounds"][r - 1]["secret"])
        assert hashlib.sha256(secret).hexdigest() == restarted["commitments"][r - 1]
        hand = game.hands[0]
        assert hand.tags["Secret"] == hmac.new(secret, f"canasta-board/1|{r}|{b}".encode(), hashlib.sha256).hexdigest()
        g = Game(RULES, 0, dealer=int(hand.tags["Dealer"]), hand_number=1,
                 stream=DealStream(bytes.fromhex(hand.tags["Secret"]), ("",) * 4, 1))
        dealt[(r, b)].add((tuple(tuple(sorted(h)) for h in g.hands), tuple(g.stock), g.dealer))
    assert len(dealt) == ROUNDS * HANDS and all(len(d) == 1 for d in dealt.values())


def test_a_closed_board_replays_in_the_rooms_replay(restarted: dict[str, Any]) -> None:
    """The room's replay frames of a board: dealt as the record says, every move of the record."""
    game = restarted["records"][0]
    r, t, b = (int(game.headers[k]) for k in ("Round", "Table", "Board"))
    with room(restarted["folder"]) as client:
        frames = client.get(f"/api/tournaments/{restarted['tid']}/boards/{r}/{t}/{b}/replay").json()["frames"]
        assert client.get(f"/tournaments/{restarted['tid']}/replay/{r}/{t}/{b}").status_code == 200
    assert [f["move"] for f in frames[1:]] == [str(m[1]) for m in game.hands[0].moves]
    assert frames[-1]["totals"] == [int(x) for x in game.hands[0].tags["Score"].split()]


def test_matchpoints_by_an_independent_count(restarted: dict[str, Any]) -> None:
    by_board: dict[tuple[int, int], list[tuple[int, int, int]]] = defaultdict(list)
    for game in restarted["records"]:
        ns, ew = (int(x) for x in game.hands[0].tags["Score"].split())
        by_board[(int(game.headers["Round"]), int(game.headers["Board"]))].append(
            (int(game.headers["NS"]), int(game.headers["EW"]), ns - ew))
    mine: dict[int, int] = defaultdict(int)
    for rows in by_board.values():
        for i, (ns, ew, net) in enumerate(rows):
            for j, (_, _, other) in enumerate(rows):
                if i != j:
                    mine[ns] += 2 if net > other else 1 if net == other else 0
                    mine[ew] += 2 if -net > -other else 1 if net == other else 0
    shown = {s["pair"]: s for s in restarted["end"]["standings"]}
    tops = ROUNDS * HANDS * 2 * (PAIRS // 2 - 1)
    for pair in range(1, PAIRS + 1):
        assert shown[pair]["matchpoints"] == mine[pair]
        assert shown[pair]["score"] == round(100 * mine[pair] / tops, 2)
    assert [s["place"] for s in restarted["end"]["standings"]] == list(range(1, PAIRS + 1))


# ------------------------------------------------------------------ people, and attacks

@pytest.fixture
def people(tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    """A tournament of individuals drawn into partnerships: Mario and Giulia entered, the director
    Dora not playing; house bots fill the field; started, waiting on a person's move."""
    with room(tmp_path) as client:
        accounts_of(client).limits.signups_per_address = 0
        for name in ("Mario", "Giulia", "Eve"):
            as_player(client, name)
        as_player(client, "Dora")
        made = api(client, "", {"name": "Club night", "rounds": 1, "hands": 1, "entry": "individuals",
                                "turn_seconds": 600, "seed": 11})
        tid = str(made.json()["id"])
        steps = Steps(client)
        try:
            yield client, tid
        finally:
            steps.close()


def test_entering_twice_is_refused(people: tuple[TestClient, str]) -> None:
    client, tid = people
    as_player(client, "Mario")
    assert api(client, f"/{tid}/enter").status_code == 200
    again = api(client, f"/{tid}/enter")
    assert again.status_code == 409 and "Mario is entered already" in again.json()["detail"]
    as_player(client, "Giulia")
    twice = api(client, f"/{tid}/enter", {"partner": "Mario"})  # and not by a partner's entry either
    assert twice.status_code == 400  # individuals enter alone
    assert [e["name"] for e in client.get(f"/api/tournaments/{tid}").json()["entries"]] == ["Mario"]


def test_only_the_director_directs(people: tuple[TestClient, str]) -> None:
    client, tid = people
    as_player(client, "Eve")
    for action, body in (("start", {}), ("pause", {}), ("bots", {"count": 2}),
                         ("adjust", {"pair": 1, "points": 5, "reason": "x"})):
        r = api(client, f"/{tid}/director/{action}", body)
        assert r.status_code == 403, (action, r.text)
        assert r.json()["detail"] == "only the tournament's director may do this"
    post(client, "logout", {})
    assert api(client, f"/{tid}/director/start").status_code == 401  # signed out: sign in first
    assert client.get(f"/api/tournaments/{tid}/audit").json()["audit"][-1]["action"] == "create"


def started(client: TestClient, tid: str) -> dict[str, Any]:
    for name in ("Mario", "Giulia"):
        as_player(client, name)
        assert api(client, f"/{tid}/enter").status_code == 200
    as_player(client, "Dora")
    assert api(client, f"/{tid}/director/start").status_code == 200
    shown = client.get(f"/api/tournaments/{tid}").json()
    assert len(shown["partnerships"]) == 4  # Mario & Giulia drawn together, three of house bots
    return dict(shown)


def person_to_move(client: TestClient, tid: str, steps: Steps) -> tuple[str, dict[str, Any]]:
    """Waits until Mario or Giulia (partners, North–South) is to move: who, and Mario's own look."""
    as_player(client, "Mario")
    shown = steps.until(tid, lambda s: s["me"] and s["me"].get("to_move") in (0, 2) and s["tables"])
    me = shown["me"]
    return ("Mario" if me["to_move"] == me["seat"] else "Giulia"), me


def test_a_seat_is_played_by_its_own_player_only(people: tuple[TestClient, str]) -> None:
    client, tid = people
    started(client, tid)
    steps = Steps(client)
    try:
        mover, me = person_to_move(client, tid, steps)
        partner_seat = 2 if me["seat"] == 0 else 0
        as_player(client, mover)
        mine = client.get(f"/api/tournaments/{tid}").json()["me"]
        assert mine["to_move"] == mine["seat"]
        move = choice(mine, 1)  # what a basic bot would choose from the player's own view
        other = partner_seat if mover == "Mario" else me["seat"]
        refused = api(client, f"/{tid}/move", {"move": move, "seat": other})
        assert refused.status_code == 403 and refused.json()["detail"] == "you play only your own seat"
        as_player(client, "Eve")  # not in the tournament
        assert api(client, f"/{tid}/move", {"move": move}).json()["detail"] == \
            "you have no seat in this round"
        as_player(client, mover)
        assert api(client, f"/{tid}/move", {"move": move}).status_code == 200
    finally:
        steps.close()


def test_nobody_sees_a_hand_of_the_round_but_its_own(people: tuple[TestClient, str]) -> None:
    """A spectator (signed out, or signed in and not playing) reads no card of a board being
    played: no hand, no record, no secret; a player reads their own hand and nobody else's."""
    client, tid = people
    started(client, tid)
    as_player(client, "Mario")
    mario = client.get(f"/api/tournaments/{tid}").json()["me"]
    hand = mario["view"]["hand"]
    assert len(hand) == 11 and "hands" not in mario["view"]
    as_player(client, "Eve")
    for who in ("Eve", None):
        if who is None:
            post(client, "logout", {})
        text = client.get(f"/api/tournaments/{tid}").text
        shown = client.get(f"/api/tournaments/{tid}").json()
        assert shown.get("me") is None and "secret" not in shown["proof"]["rounds"][0]
        assert '"hand"' not in text and '"view"' not in text
        for what in ("record", "replay"):
            assert client.get(f"/api/tournaments/{tid}/boards/1/1/1/{what}").status_code == 404
    as_player(client, "Giulia")
    giulia = client.get(f"/api/tournaments/{tid}").json()["me"]
    assert giulia["seat"] != mario["seat"] and giulia["view"]["hand"] != hand


def test_withdrawing_hands_the_seat_to_a_house_bot_with_no_place(people: tuple[TestClient, str]) -> None:
    client, tid = people
    started(client, tid)
    steps = Steps(client)
    try:
        for name in ("Mario", "Giulia"):
            as_player(client, name)
            assert api(client, f"/{tid}/withdraw").json()["withdrawn"]
        as_player(client, "Dora")
        assert api(client, f"/{tid}/director/adjust", {"pair": 2, "points": -1.5, "reason": "slow play"}).status_code == 200
        end = steps.until(tid, lambda s: s["status"] == "finished")
    finally:
        steps.close()
    assert all(s["place"] is None for s in end["standings"])  # every partnership had a house bot
    assert all(row["stand_in"] for row in end["final"] if row["pair"] == 1)
    log = client.get(f"/api/tournaments/{tid}/audit").json()["audit"]
    assert [e["action"] for e in log] == ["create", "start", "withdraw", "withdraw", "adjust"]
    assert log[-1]["detail"]["reason"] == "slow play" and log[-1]["actor"] == "Dora"


def test_the_directors_pause_stops_the_play_and_is_logged(people: tuple[TestClient, str]) -> None:
    client, tid = people
    started(client, tid)
    assert api(client, f"/{tid}/director/pause").json()["paused"] is True
    as_player(client, "Mario")
    shown = client.get(f"/api/tournaments/{tid}").json()
    assert shown["paused"] and api(client, f"/{tid}/move", {"move": "draw"}).status_code == 409
    as_player(client, "Dora")
    assert api(client, f"/{tid}/director/resume").json()["paused"] is False
    assert [e["action"] for e in client.get(f"/api/tournaments/{tid}/audit").json()["audit"]][-2:] == \
        ["pause", "resume"]


def test_a_late_entrant_takes_a_house_bots_seat_from_the_next_round(people: tuple[TestClient, str]) -> None:
    client, one_round = people
    as_player(client, "Dora")
    tid = api(client, "", {"rounds": 2, "hands": 1, "entry": "individuals", "turn_seconds": 600}).json()["id"]
    as_player(client, "Mario")
    for made in (tid, one_round):
        assert api(client, f"/{made}/enter").status_code == 200
    as_player(client, "Dora")
    for made in (tid, one_round):
        assert api(client, f"/{made}/director/start").status_code == 200
    as_player(client, "Eve")
    refused = api(client, f"/{one_round}/enter")
    assert refused.status_code == 409  # one round, under way: nothing left to enter
    assert refused.json()["detail"] == "the last round is under way: there is no round left to enter"
    late = api(client, f"/{tid}/enter")
    assert late.status_code == 200 and late.json() == {"late": 1}  # beside Mario, whom a house bot partnered
    assert api(client, f"/{tid}/enter").json()["detail"] == "Eve is entered already"
    shown = client.get(f"/api/tournaments/{tid}").json()
    assert shown["partnerships"][0]["members"] == ["Mario", "Eve"] and shown["partnerships"][0]["stand_in"]
    assert shown["me"] is None  # not in round 1: the house bot plays it
    got = tournaments.store_for(client.app.state.hub.store.engine, None).load(tid)  # type: ignore[attr-defined]
    assert got is not None
    assert tournaments.occupant(got.state, 1, 1, 1) is None
    assert tournaments.occupant(got.state, 1, 1, 2) == {"id": got.state["seats"]["1"][1]["id"], "name": "Eve"}


@pytest.mark.parametrize("form", ["duplicate", "swiss"])
def test_victory_points_and_the_mitchell_movement_as_the_library_scores_them(tmp_path: Path, form: str) -> None:
    with room(tmp_path) as client:
        accounts_of(client).limits.signups_per_address = 0
        steps = Steps(client)
        try:
            as_player(client, "Dora")
            tid = api(client, "", {"form": form, "rounds": 2, "hands": 2, "scoring": "vp", "seed": 77}).json()["id"]
            assert api(client, f"/{tid}/director/bots", {"count": 4, "level": "random"}).status_code == 200
            assert api(client, f"/{tid}/director/start").status_code == 200
            end = steps.until(tid, lambda s: s["status"] == "finished")
        finally:
            steps.close()
    reference = Tournament(RULES, [Partnership(i, f"random {i}", ("random", "random")) for i in range(1, 5)],
                           2, 2, form, "vp", 77)
    reference.run()
    assert [(s["pair"], s["score"], s["vp"]) for s in end["standings"]] == [
        (s.pair, s.score, s.vp) for s in reference.standings()]
    assert sum(s["vp"] for s in end["standings"]) == pytest.approx(20 * 2 * 2)  # 20 a table, 2 tables, 2 rounds


def test_fixed_partnerships_enter_together_once(tmp_path: Path) -> None:
    with room(tmp_path) as client:
        accounts_of(client).limits.signups_per_address = 0
        for name in ("Mario", "Giulia", "Eve"):
            as_player(client, name)
        as_player(client, "Dora")
        tid = api(client, "", {"form": "duplicate", "rounds": 3, "hands": 1, "entry": "pairs"}).json()["id"]
        as_player(client, "Mario")
        assert api(client, f"/{tid}/enter").json()["detail"] == "this tournament takes fixed partnerships: name your partner"
        assert api(client, f"/{tid}/enter", {"partner": "Nobody"}).status_code == 404
        assert api(client, f"/{tid}/enter", {"partner": "mario"}).status_code == 400  # not oneself
        assert api(client, f"/{tid}/enter", {"partner": "Giulia"}).status_code == 200
        as_player(client, "Giulia")  # entered by her partner: not a second time
        assert api(client, f"/{tid}/enter", {"partner": "Eve"}).json()["detail"] == "Giulia is entered already"
        assert [e["name"] for e in client.get(f"/api/tournaments/{tid}").json()["entries"]] == ["Mario & Giulia"]
        as_player(client, "Dora")  # 1 partnership + 3 of house bots: 2 tables, so at most 2 duplicate rounds
        refused = api(client, f"/{tid}/director/start")
        assert refused.status_code == 409 and "(2 tables)" in refused.json()["detail"]
        it = client.post(f"/api/tournaments/{tid}/director/start?lang=it", json={}, headers={"X-CSRF-Token": csrf(client)})
        assert "(2 tavoli)" in it.json()["detail"]  # the refusal in the asker's language
        as_player(client, "Giulia")
        assert api(client, f"/{tid}/withdraw").json() == {"withdrawn": True}  # the entry goes, with her partner
        assert client.get(f"/api/tournaments/{tid}").json()["entries"] == []


def test_a_step_passes_by_a_table_waiting_for_a_person(people: tuple[TestClient, str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """While a person's clock runs, a step neither rebuilds their table nor writes anything."""
    client, tid = people
    started(client, tid)
    steps = Steps(client)
    try:
        as_player(client, "Mario")
        steps.until(tid, lambda s: s["me"] and s["me"]["to_move"] in (0, 2) and s["me"]["deadline"]
                    and all(t["boards_done"] == 1 for t in s["tables"] if t["ns"] != 1 and t["ew"] != 1))
    finally:
        steps.close()
    store = tournaments.store_for(client.app.state.hub.store.engine, None)  # type: ignore[attr-defined]
    rebuilt: list[int] = []
    real = Table.from_dict

    def counted(*args: Any, **kwargs: Any) -> Table:
        rebuilt.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(Table, "from_dict", counted)
    before = store.load(tid)
    done = tournaments.step(store, tid, time.time())
    assert done is not None and done[2] is False and rebuilt == []
    after = store.load(tid)
    assert before is not None and after is not None and after.seq == before.seq


def test_a_page_that_read_the_tournament_whole_is_sent_only_what_moved(people: tuple[TestClient, str]) -> None:
    """``?known=N``: while the document is still at N, a look carries the tables' progress and the
    player's own seat, not the entries, standings, final table and proof again; once it moves on,
    the whole; and no look carries a bot's suggestion."""
    client, tid = people
    started(client, tid)
    steps = Steps(client)
    try:
        mover, _mario = person_to_move(client, tid, steps)
        as_player(client, mover)
        whole = client.get(f"/api/tournaments/{tid}").json()
        assert "standings" in whole and "proof" in whole and "same" not in whole
        light = client.get(f"/api/tournaments/{tid}?known={whole['doc']}").json()
        assert light["same"] is True and light["doc"] == whole["doc"]
        assert not {"standings", "final", "proof", "entries", "partnerships"} & set(light)
        assert light["tables"] == whole["tables"] and light["me"] == whole["me"]
        assert "suggested" not in light["me"] and "suggested" not in whole["me"]
        stale = client.get(f"/api/tournaments/{tid}?known={whole['doc'] - 1}").json()  # an older read: the whole
        assert "standings" in stale and "same" not in stale
        as_player(client, "Dora")
        assert api(client, f"/{tid}/director/pause").status_code == 200  # the document moves on
        after = client.get(f"/api/tournaments/{tid}?known={whole['doc']}").json()
        assert "same" not in after and after["paused"] and after["doc"] > whole["doc"]
    finally:
        steps.close()
