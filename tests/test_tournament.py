"""Duplicate tournaments (issue 53): 16 bot partnerships, 4 rounds, Swiss and duplicate pairs.
Everything is checked from the tables' game records: the same deals at every table of a round
(derived here from the revealed round secret), the matchpoints (computed here from the
records' scores), no repeat opponents; the movements, victory points and withdrawals."""

from __future__ import annotations

import hashlib
import hmac
from collections import defaultdict

import pytest

from canasta.club.boards import BoardError, RoundSeed, board_dealer, reveal
from canasta.club.movement import BoardGate, MovementError, mitchell, swiss
from canasta.club.scoring import victory_points
from canasta.club.tournament import Tournament, TournamentError, bot_partnerships
from canasta.engine.fairdeal import DealStream
from canasta.engine.game import Game
from canasta.engine.rules import RuleSet
from canasta.play.record import GameRecord, parse_records, verify

RULES = RuleSet.preset("classic-4p")
PAIRS, ROUNDS, HANDS = 16, 4, 2


@pytest.fixture(scope="module", params=["swiss", "duplicate"])
def played(request: pytest.FixtureRequest) -> Tournament:
    t = Tournament(RULES, bot_partnerships(PAIRS, ["basic", "random"]), rounds=ROUNDS, hands=HANDS,
                   form=request.param, seed=7, date="2026.12.06")
    commitments = list(t.commitments)  # published before the first round
    t.run()
    assert t.commitments == commitments
    return t


def _records(t: Tournament) -> list[GameRecord]:
    games, errors = parse_records(t.records_text())
    assert not errors
    return games


def test_every_table_plays_every_board_of_every_round(played: Tournament) -> None:
    games = _records(played)
    assert len(games) == ROUNDS * HANDS * PAIRS // 2
    seen = {(g.headers["Round"], g.headers["Board"], g.headers["Table"]) for g in games}
    assert len(seen) == len(games)
    for game in games:
        assert verify(game) == [], game.headers["Event"]  # every move, score and fair deal replays


def test_the_same_deals_at_every_table_of_a_round(played: Tournament) -> None:
    """From the records alone: each board's secret is the one derived (here, by hand) from the
    round's revealed secret, which matches the commitment published before; every table of a
    round received the same cards in every seat, with the same dealer."""
    proof = played.proof()
    dealt: dict[tuple[int, int], set[tuple[object, ...]]] = defaultdict(set)
    for game in _records(played):
        r, b = int(game.headers["Round"]), int(game.headers["Board"])
        row = proof["rounds"][r - 1]
        secret = bytes.fromhex(row["secret"])
        assert hashlib.sha256(secret).hexdigest() == row["commitment"]
        expected = hmac.new(secret, f"canasta-board/1|{r}|{b}".encode(), hashlib.sha256).hexdigest()
        hand = game.hands[0]
        assert hand.tags["Secret"] == expected
        assert hand.tags["ClientSeeds"] == "0= 1= 2= 3="
        assert int(hand.tags["Dealer"]) == (b - 1) % 4
        g = Game(RULES, 0, dealer=int(hand.tags["Dealer"]), hand_number=1,
                 stream=DealStream(bytes.fromhex(hand.tags["Secret"]), ("",) * 4, 1))
        dealt[(r, b)].add((tuple(tuple(sorted(h)) for h in g.hands), tuple(g.stock), g.dealer))
    assert len(dealt) == ROUNDS * HANDS
    assert all(len(deals) == 1 for deals in dealt.values())  # one deal per board, whatever the table
    assert len({next(iter(d)) for d in dealt.values()}) == ROUNDS * HANDS  # and boards differ


def _independent_matchpoints(games: list[GameRecord]) -> dict[tuple[int, int, int], int]:
    """Bridge's matchpoints, from the records: on each board, each partnership's result (its
    side's score minus the other's) against every other partnership that sat the same way."""
    by_board: dict[tuple[int, int], list[tuple[int, int, int]]] = defaultdict(list)
    for game in games:
        ns_score, ew_score = (int(x) for x in game.hands[0].tags["Score"].split())
        by_board[(int(game.headers["Round"]), int(game.headers["Board"]))].append(
            (int(game.headers["NS"]), int(game.headers["EW"]), ns_score - ew_score))
    out = {}
    for (r, b), rows in by_board.items():
        for i, (ns, ew, net) in enumerate(rows):
            others = [n for j, (_, _, n) in enumerate(rows) if j != i]
            out[(r, b, ns)] = sum(2 for n in others if net > n) + sum(1 for n in others if net == n)
            out[(r, b, ew)] = sum(2 for n in others if -net > -n) + sum(1 for n in others if net == n)
    return out


def test_matchpoints_checked_by_an_independent_computation(played: Tournament) -> None:
    mine = _independent_matchpoints(_records(played))
    assert played.board_matchpoints() == mine
    tables = PAIRS // 2
    for (r, b) in {(r, b) for r, b, _ in mine}:
        assert sum(v for (rr, bb, _), v in mine.items() if (rr, bb) == (r, b)) == 2 * tables * (tables - 1)
    for row in played.standings():
        total = sum(v for (_, _, p), v in mine.items() if p == row.pair)
        assert row.matchpoints == total and row.tops == ROUNDS * HANDS * 2 * (tables - 1)
        assert row.score == pytest.approx(round(100 * total / row.tops, 2))
    scores = [row.score for row in played.standings()]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) > 3
    assert [row.place for row in played.standings()] == list(range(1, PAIRS + 1))


def test_no_repeat_opponents_and_one_table_a_round(played: Tournament) -> None:
    met: set[frozenset[int]] = set()
    by_round: dict[int, list[int]] = defaultdict(list)
    for game in _records(played):
        if game.headers["Board"] != "1":
            continue
        ns, ew = int(game.headers["NS"]), int(game.headers["EW"])
        assert frozenset((ns, ew)) not in met
        met.add(frozenset((ns, ew)))
        by_round[int(game.headers["Round"])] += [ns, ew]
    assert all(sorted(v) == list(range(1, PAIRS + 1)) for v in by_round.values())


def test_the_final_table(played: Tournament) -> None:
    rows = played.final_table()
    assert len(rows) == PAIRS * ROUNDS * HANDS
    assert {(r["pair"], r["round"], r["board"]) for r in rows} == {
        (p, r, b) for p in range(1, PAIRS + 1) for r in range(1, ROUNDS + 1) for b in range(1, HANDS + 1)}
    assert not any(r["stand_in"] for r in rows)


def test_the_stronger_bots_win_and_a_run_repeats() -> None:
    t = Tournament(RULES, bot_partnerships(8, ["basic", "random"]), rounds=2, hands=1, seed=3, date="x")
    first = [(s.pair, s.score) for s in t.run()]
    again = Tournament(RULES, bot_partnerships(8, ["basic", "random"]), rounds=2, hands=1, seed=3, date="x")
    assert [(s.pair, s.score) for s in again.run()] == first
    assert again.records_text() == t.records_text()
    basic = sum(s.score for s in t.standings() if s.pair % 2)
    assert basic > sum(s.score for s in t.standings() if not s.pair % 2)


def test_a_house_bot_stands_in_marked_and_wins_no_prize() -> None:
    t = Tournament(RULES, bot_partnerships(4, ["random"]), rounds=2, hands=1, seed=5, date="x", house_bot="basic")
    t.play_round()
    t.withdraw(2, member=1)
    with pytest.raises(TournamentError, match="round still to play"):
        t.withdraw(3, member=0, from_round=1)
    t.play_round()
    late = [rec for rec in t.records if rec.round == 2 and 2 in (rec.ns, rec.ew)]
    assert len(late) == 1
    rec = late[0]
    seat = RULES.teams[0 if rec.ns == 2 else 1][1]
    assert rec.stand_in_seats == (seat,)
    assert f"{seat}=basic" in rec.record and rec.record.count("=basic") == 1  # the house bot, in that seat only
    assert all(not r.stand_in_seats for r in t.records if r.round == 1)
    rows = {s.pair: s for s in t.standings()}
    assert rows[2].place is None and rows[2].stand_in
    assert sorted(s.place for s in rows.values() if s.place is not None) == [1, 2, 3]
    assert "=basic" not in "".join(r.record for r in t.records if r.round == 1)
    marks = [r for r in t.final_table() if r["stand_in"]]
    assert [(r["pair"], r["round"]) for r in marks] == [(2, 2)]


def test_swiss_pairs_by_score_and_avoids_repeats() -> None:
    seating = swiss([5, 1, 2, 3], met={frozenset((5, 1))})
    assert {frozenset((s.ns, s.ew)) for s in seating} == {frozenset((5, 2)), frozenset((1, 3))}
    # all three opponents met: a repeat is unavoidable, and the fewest are made
    met = {frozenset(p) for p in ((1, 2), (3, 4), (1, 3), (2, 4), (1, 4), (2, 3))}
    assert len(swiss([1, 2, 3, 4], met)) == 2
    t = Tournament(RULES, bot_partnerships(4, ["random"]), rounds=4, hands=1, seed=1, date="x")
    t.run()
    assert t.played == 4
    # the north-south seat goes to whoever has sat there less
    assert [(s.ns, s.ew) for s in swiss([1, 2, 3, 4], set(), {1: 2, 2: 0, 3: 0, 4: 1})] == [(2, 1), (3, 4)]


def test_the_mitchell_movement() -> None:
    rounds = [mitchell(16, r) for r in range(1, 9)]
    meetings = [frozenset((s.ns, s.ew)) for seating in rounds for s in seating]
    assert len(meetings) == len(set(meetings)) == 64
    assert all(sorted([s.ns for s in seating] + [s.ew for s in seating]) == list(range(1, 17)) for seating in rounds)
    assert [s.ns for s in rounds[0]] == list(range(1, 9)) and [s.ew for s in rounds[1]] == list(range(1, 9))
    with pytest.raises(MovementError, match="at most 8 rounds"):
        mitchell(16, 9)
    with pytest.raises(MovementError, match="even number"):
        mitchell(7, 1)


def test_the_board_gate_holds_a_board_until_every_table_has_played_it() -> None:
    gate = BoardGate(tables=3, boards=2)
    gate.finish(1, 1)
    gate.finish(2, 1)
    assert not gate.may_show(1)
    gate.finish(3, 1)
    assert gate.may_show(1) and not gate.may_show(2)
    with pytest.raises(MovementError):
        gate.finish(4, 1)


def test_round_secrets_commit_and_reveal() -> None:
    seed = RoundSeed.new(2)
    assert reveal(2, seed.commitment, seed.secret.hex()) == seed
    with pytest.raises(BoardError, match="does not match the commitment"):
        reveal(2, seed.commitment, RoundSeed.new(2).secret.hex())
    assert seed.deal(1, 4).secret != seed.deal(2, 4).secret and seed.deal(1, 4) == seed.deal(1, 4)
    assert RoundSeed.from_seed(1, 1) == RoundSeed.from_seed(1, 1) != RoundSeed.from_seed(2, 1)
    assert [board_dealer(b, 4) for b in range(1, 6)] == [0, 1, 2, 3, 0]


def test_victory_points() -> None:
    assert victory_points(0, 2) == (10.0, 10.0)
    assert victory_points(3000, 2) == (20.0, 0.0) == tuple(reversed(victory_points(-9000, 2)))
    assert victory_points(750, 1) == (15.0, 5.0)
    t = Tournament(RULES, bot_partnerships(4, ["basic", "random"]), rounds=1, hands=1, scoring="vp", seed=2,
                   date="x")
    rows = t.run()
    assert sum(r.vp for r in rows) == pytest.approx(40.0)
    assert [r.score for r in rows] == [r.vp for r in rows] == sorted((r.vp for r in rows), reverse=True)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"rounds": 3, "form": "duplicate"}, "at most 2 rounds"),
    ({"hands": 0}, "1 to 20 hands"),
    ({"form": "teams"}, "unknown format"),
    ({"scoring": "imps"}, "unknown scoring"),
])
def test_bad_tournaments_are_refused(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"rounds": 1, "hands": 1} | kwargs
    with pytest.raises(TournamentError, match=message):
        Tournament(RULES, bot_partnerships(4, ["basic"]), **args)  # type: ignore[arg-type]
    with pytest.raises(TournamentError, match="no two sides"):
        Tournament(RuleSet.preset("classic-3p"), bot_partnerships(4, ["basic"], 1), rounds=1, hands=1)


def test_a_two_player_tournament() -> None:
    rules = RuleSet.preset("classic-2p")
    t = Tournament(rules, bot_partnerships(4, ["basic", "random"], players=1), rounds=2, hands=1, seed=4, date="x")
    rows = t.run()
    assert len(rows) == 4 and all(verify(g) == [] for g in _records(t))


class _Crash(Exception):
    """The server stops here."""


@pytest.mark.parametrize("form", ["swiss", "duplicate"])
def test_a_restart_mid_round_changes_nothing(form: str) -> None:
    """A tournament saved mid-round (after the fifth hand of round 2), read back as JSON by
    another process and played on, ends with the same standings and records as one never
    stopped; nothing of the round is published before its boards close."""
    import json

    def make() -> Tournament:
        return Tournament(RULES, bot_partnerships(8, ["basic", "random"]), rounds=3, hands=2, form=form, seed=11,
                          date="2026.12.06")

    whole = make()
    whole.run()
    stopped = make()
    heard: list[tuple[int, int, int]] = []

    def crash_after_five(r: int, board: int, table: int) -> None:
        heard.append((r, board, table))
        if len(heard) == 8 + 5:  # round 1's two boards at four tables, then five hands of round 2
            raise _Crash

    with pytest.raises(_Crash):
        stopped.run(crash_after_five)
    assert stopped.played == 1 and 2 not in stopped.revealed
    # board 1 of round 2 is closed (four tables), board 2 is open (one table): not published
    assert {(r, b) for (r, b, _) in stopped.board_matchpoints()} == {(1, 1), (1, 2), (2, 1)}
    assert len([res for res in stopped.results if (res.round, res.board) == (2, 2)]) == 1
    saved = json.dumps(stopped.to_dict())
    resumed = Tournament.from_dict(json.loads(saved))
    resumed.run()
    assert resumed.records_text() == whole.records_text()
    assert resumed.standings() == whole.standings()
    assert resumed.proof() == whole.proof()
    with pytest.raises(TournamentError, match="not a saved tournament"):
        Tournament.from_dict({"format": "canasta-tournament/1", "rules": {}})
