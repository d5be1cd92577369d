"""Records written by the terminal app, ``canasta replay`` (headless), the
record parser on malformed input, the commands' arguments and the renderers."""

from __future__ import annotations

import asyncio
import io
import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("textual")

from rich.console import Console
from textual.widgets import Static

from canasta.cli import _install_advice, main
from canasta.engine.cards import JOKER, parse_cards
from canasta.engine.errors import CanastaError
from canasta.engine.rules import RuleSet
from canasta.play.record import parse_records, verify
from canasta.play.table import Table
from canasta.tui import commands
from canasta.tui.render import card_text, group_face, group_hand, meld_status, rules_text
from canasta.tui.replay import ReplayApp, build_replay, load_replay
from canasta.tui.widgets import HandView
from canasta.views.seat import pile_notes


def plain(content: object) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


def played_table(hands: int = 2, seed: int = 9) -> Table:
    table = Table(RuleSet.preset("classic-4p"), [None, "basic", "basic", "basic"], seed=seed,
                  names=["Ann", "West", "North", "East"])
    rng = random.Random(seed)
    for h in range(hands):
        if h:
            table.next_hand()
        while not table.hand_over:
            if table.bot_to_move():
                table.play_bot()
            else:
                table.play(0, table.game.random_move(rng))
        if table.match_over:
            break
    return table


@pytest.fixture(scope="module")
def record_text() -> str:
    return played_table().record().to_text()


def test_records_round_trip_and_verify(record_text: str) -> None:
    records, errors = parse_records(record_text)
    assert errors == [] and len(records) == 1
    assert records[0].to_text() == record_text
    assert verify(records[0]) == []
    assert "0=human:Ann" in records[0].headers["Players"]


@pytest.mark.parametrize(("text", "message"), [
    ("garbage here\n", "line 1: expected a tag or 'SEAT: move'"),
    ('[Rules "classic-4p"]\n0: draw\n', "line 2: a move before any [Hand"),
    ('[Rules "classic-4p"]\n[Hand "1"]\n0: fly away\n', "line 3: unknown move 'fly'"),
    ('[Rules "classic-4p"]\n[Broken\n', "line 2: a tag is written"),
    ('[Rules "classic-4p"]\n', "no hand to replay"),
    ('[Rules "no-such-preset"]\n[Hand "1"]\n', "headers are unusable"),
])
def test_malformed_records_are_refused_with_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.cgn"
    path.write_text(text)
    with pytest.raises(CanastaError, match=message.replace("[", r"\[").replace("(", r"\(")):
        load_replay(path)


def test_an_illegal_move_in_a_record_names_its_line(tmp_path: Path, record_text: str) -> None:
    lines = record_text.splitlines()
    first_move = next(i for i, line in enumerate(lines) if line[:1].isdigit())
    seat = lines[first_move].split(":")[0]
    lines[first_move] = f"{seat}: discard 5H"
    path = tmp_path / "bad.cgn"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CanastaError, match=f"line {first_move + 1}: "):
        load_replay(path)
    with pytest.raises(CanastaError, match="cannot read"):
        load_replay(tmp_path / "missing.cgn")
    with pytest.raises(CanastaError, match="--game must be"):
        load_replay(tmp_path / "bad.cgn", game=3)


def test_replay_keeps_every_position(record_text: str) -> None:
    records, _ = parse_records(record_text)
    replay = build_replay(records[0])
    assert len(replay.hands) == len(records[0].hands)
    for hand, rec in zip(replay.hands, records[0].hands, strict=True):
        assert len(hand.positions) == len(rec.moves) + 1
        assert hand.positions[-1].is_over() and not hand.positions[0].is_over()
        assert " ".join(str(s.total) for s in hand.scores) == rec.tags["Score"]
    assert replay.names[0] == "Ann"


def test_replay_app_steps_and_hides_what_a_seat_could_not_see(tmp_path: Path, record_text: str) -> None:
    path = tmp_path / "game.cgn"
    path.write_text(record_text)
    replay = load_replay(path)

    async def drive() -> None:
        app = ReplayApp(replay)
        async with app.run_test(size=(120, 50)) as pilot:
            def text(selector: str) -> str:
                return plain(app.query_one(selector, Static).content)

            assert "move 0 of" in text("#topbar") and "face up" in text("#topbar")
            await pilot.press("right", "right", "right")
            assert app.index == 3 and "move 3 of" in text("#topbar")
            await pilot.press("left")
            assert app.index == 2
            # face up: every hand is on the table; as seat 0 saw it: only seat 0's
            game = replay.hands[0].positions[2]
            face_up = text("#seats")
            assert plain(card_text(game.hand(1)[0])).strip() in face_up
            await pilot.press("v")
            assert app.seat == 0 and "as Ann saw it" in text("#topbar")
            seats = text("#seats")
            assert "Ann (viewing)" in seats
            assert len(seats.splitlines()) <= len(face_up.splitlines()) - 3  # three hands fewer
            shown = app.query_one("#hand", HandView).hand
            assert sorted(shown) == sorted(game.hand(0))
            await pilot.press("end")
            assert "Score sheet" in text("#status") and "Deal revealed: seed" in text("#status")
            await pilot.press("pagedown")
            assert app.hand == 1 and app.index == 0 and "hand 2 of 2" in text("#topbar")
            await pilot.press("r")
            assert "C-O1" in "".join(plain(w.content) for w in app.screen.query(Static))

    asyncio.run(drive())


def test_play_and_replay_need_textual(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "textual", None)
    advice = _install_advice("pip install 'canasta[play]'")  # as it works here: '-e .[play]' in a checkout
    assert main(["play", "--seed", "1"]) == 2
    assert advice in capsys.readouterr().err
    assert main(["replay", "x.cgn"]) == 2
    assert advice in capsys.readouterr().err


def test_play_arguments_make_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from canasta.cli import _parser

    args = _parser().parse_args(["play", "--rules", "classic-2p", "--seed", "4", "--bots", "random",
                                 "--target", "2500", "--save-dir", str(tmp_path), "--delay", "0",
                                 "--hint-level", "basic"])
    config, table, game_id = commands.play_setup(args)
    assert table is not None and game_id is None
    assert table.rules.name == "classic-2p" and table.rules.target == 2500
    assert table.seats == [None, "random"] and table.seed == 4 and config.save_dir == tmp_path
    assert table.hint_level == "basic" and config.delay == 0
    # no arguments: the new-game screen decides
    config, table, _ = commands.play_setup(_parser().parse_args(["play"]))
    assert table is None and not config.ready
    assert main(["play", "--bots", "basic,basic", "--seed", "1"]) == 2
    assert "3 bot levels" in capsys.readouterr().err
    assert main(["play", "--resume", str(tmp_path / "none.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "none.cgn")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_cards_show_rank_suit_symbol_and_letter() -> None:
    ten, joker, two = parse_cards("10H JK 2C")
    assert plain(card_text(ten, letter=True)).strip() == "10♥H"
    assert plain(card_text(joker)).strip() == "JK★"
    assert plain(card_text(two)).strip() == "2♣★"  # wild cards carry a star, not only a colour
    hand = parse_cards("8H 8S 8C 2C JK KD 3D 3S")
    groups = group_hand(hand)
    assert [len(cards) for _, cards in groups] == [1, 1, 1, 3, 1, 1]  # JK, 2, K, 8s, 3S, red 3
    face = plain(group_face(groups[3][1], selected=2))
    assert "8" in face and "♥H" in face and "×3" in face and "✔ 2" in face
    assert groups[0][1] == [JOKER]


def test_meld_status_and_pile_state_in_words() -> None:
    rules = RuleSet.preset("classic-4p")
    assert meld_status(rules, parse_cards("8H 8S 8C 8D 8H 8S 8C"), False) == "★ NATURAL CANASTA"
    assert meld_status(rules, parse_cards("8H 8S 8C 8D 8H 2S JK"), True) == "★ MIXED CANASTA (laid concealed)"
    assert meld_status(rules, parse_cards("8H 8S 2C"), False) == "3 of 7, 1 wild"  # the family's canasta of seven
    italian = RuleSet.preset("italian-4p")
    assert meld_status(italian, parse_cards("8H 8S 8C 8D 8H 8S 8C"), False) == "★ CLEAN CANASTA"
    table = Table(rules, [None, "basic", "basic", "basic"], seed=3)
    notes = pile_notes(table.view(0))
    assert any("frozen for your side" in n for n in notes)
    assert any(n.startswith("open:") for n in pile_notes(table.spectator_view()))
    it = Table(italian, [None, "basic", "basic", "basic"], seed=3)
    assert any("pozzo" in n or "natural cards" in n or "open first" in n for n in pile_notes(it.view(0)))


def test_rules_screen_is_generated_from_the_rule_set() -> None:
    text = plain(rules_text(RuleSet.preset("italian-4p", {"I-O27": "on"})))
    assert "I-O27" in text and "Ten canastas of any kind: +2000: on  HOUSE RULE (sourced default: off)" in text
    assert "I-O1 " in text and "(sourced default)" in text
    assert "3 packs" in text and "15,000" in text


def test_an_italian_hand_replays_at_every_move_from_every_seat() -> None:
    rules = RuleSet.preset("italian-4p")
    table = Table(rules, [None, "basic", "basic", "basic"], seed=6)
    rng = random.Random(6)
    while not table.hand_over:
        table.play_bot() if table.bot_to_move() else table.play(0, table.game.random_move(rng))
    replay = build_replay(parse_records(table.record().to_text())[0][0])

    async def drive() -> None:
        app = ReplayApp(replay)
        async with app.run_test(size=(120, 50)) as pilot:
            hand = replay.hands[0]
            closed_seen = False
            for index in range(0, len(hand.moves) + 1, 7):
                app.index = index
                for seat in (None, 0, 1, 2, 3):
                    app.seat = seat
                    app.show()
                melds = plain(app.query_one("#melds", Static).content)
                game = hand.positions[index]
                if any(game.set_aside(side) for side in range(len(game.melds))):
                    closed_seen = True
                    assert "CLOSED" in melds
            await pilot.press("end")
            assert "Score sheet" in plain(app.query_one("#status", Static).content)
            assert closed_seen  # this hand closes canastas: they are drawn as CLOSED

    asyncio.run(drive())


def test_replay_home_and_end_move_to_the_edges_of_the_hand(tmp_path: Path, record_text: str) -> None:
    path = tmp_path / "game.cgn"
    path.write_text(record_text)
    replay = load_replay(path)

    async def drive() -> None:
        app = ReplayApp(replay)
        async with app.run_test(size=(80, 24)) as pilot:  # small: the scrolling area would take the keys
            await pilot.press("right", "right", "right")
            await pilot.press("end")
            await pilot.pause()
            assert app.index == len(app.current.moves)
            await pilot.press("home")
            await pilot.pause()
            assert app.index == 0

    asyncio.run(drive())


def _reviewed_file(tmp_path: Path, record_text: str) -> tuple[Path, list[tuple[int, int, str]]]:
    """The record beside a stored review marking two of seat 0's moves (a blunder in hand 1,
    a mistake in hand 2) and leaving one unmarked: what ``canasta review`` keeps."""
    from canasta.review import DecisionReview, Review
    from canasta.review.commands import record_digest, store_review

    path = tmp_path / "g.cgn"
    path.write_text(record_text, encoding="utf-8")
    record = parse_records(record_text)[0][0]
    picks: list[tuple[int, int, str]] = []
    for hand_no, mark in ((1, "blunder"), (1, ""), (2, "mistake")):
        moves = record.hands[hand_no - 1].moves
        mine = [i for i, (seat, _m, _n, _l) in enumerate(moves) if seat == 0 and (hand_no, i) not in
                {(h, j) for h, j, _x in picks}]
        picks.append((hand_no, mine[len(mine) // 2 if mark else 0], mark))
    decisions = []
    for hand_no, index, mark in picks:
        seat, move, _note, line = record.hands[hand_no - 1].moves[index]
        decisions.append(DecisionReview(1, hand_no, index, line, seat, "meld", str(move), "draw", -40.0, 260.0,
                                        300.0 if mark == "blunder" else 120.0 if mark else 5.0, 20.0, 8, 3, mark))
    store_review(path, Review(1, (0,), None, 8, 1, {}, decisions, record_digest(record)), force=False)
    return path, picks


def test_the_replay_marks_reviewed_moves_and_jumps_from_mark_to_mark(tmp_path: Path, record_text: str) -> None:
    path, picks = _reviewed_file(tmp_path, record_text)
    replay = load_replay(path)
    assert {k: d.mark for k, d in replay.reviewed.items()} == {(h, i): m for h, i, m in picks}
    (h1, i1, _), _unmarked, (h2, i2, _) = picks

    async def run() -> None:
        app = ReplayApp(replay)
        async with app.run_test(size=(140, 50)) as pilot:
            await pilot.press("m")
            assert (app.current.number, app.index) == (h1, i1)  # the position before the move, to decide
            status = plain(app.query_one("#status", Static).content)
            assert "Review:" in status and "blunder" in status and "??" in status and "300 points lost" in status
            assert "better: draw" in status
            shown = [line for line in plain(app.query_one("#log", Static).content).splitlines() if line.strip()]
            assert shown[-1].rstrip().endswith("??")  # "next: Ann ... ??"
            await pilot.press("m")
            assert (app.current.number, app.index) == (h2, i2)
            assert "mistake" in plain(app.query_one("#status", Static).content)
            await pilot.press("m")  # no further mark: stays, says so
            assert (app.current.number, app.index) == (h2, i2)
            await pilot.press("M")
            assert (app.current.number, app.index) == (h1, i1)
            await pilot.press("right")  # the marked move played: its mark beside it in the list
            log = plain(app.query_one("#log", Static).content)
            assert any(line.startswith(f"{i1 + 1:>3}. ") and line.rstrip().endswith("??") for line in log.splitlines())
    asyncio.run(run())


def test_a_damaged_or_stale_review_leaves_the_replay_without_marks(tmp_path: Path, record_text: str) -> None:
    path, _picks = _reviewed_file(tmp_path, record_text)
    sidecar = tmp_path / "g.review.json"
    sidecar.write_text("{not json", encoding="utf-8")
    damaged = load_replay(path)
    assert damaged.reviewed == {} and "g.review.json" in damaged.review_problem
    (tmp_path / "again").mkdir()
    path2, _ = _reviewed_file(tmp_path / "again", record_text)
    changed = record_text.replace("[Event ", "[Annotator \"x\"]\n[Event ", 1)
    assert changed != record_text
    path2.write_text(changed, encoding="utf-8")  # the record changed since the review: its marks are not shown
    assert load_replay(path2).reviewed == {}
