"""Game records: writing, lenient parsing with line numbers, verification, commitments."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest

from canasta.engine.errors import CanastaError
from canasta.engine.moves import Move
from canasta.engine.rules import RuleSet
from canasta.play.match import Match
from canasta.play.record import commitment, parse_records, read_file, record_from_match, verify


def _played(preset: str, seed: int, options: dict[str, object] | None = None, hands: int = 2) -> str:
    rules = RuleSet.preset(preset, options)
    match = Match(rules, seed=seed)
    rng = random.Random(seed)
    all_moves: list[list[tuple[int, Move]]] = []
    while not match.over and len(match.hands) < hands:
        g = match.next_hand()
        moves = []
        while not g.is_over():
            seat = g.to_move
            m = g.random_move(rng)
            g.push(m)
            moves.append((seat, m))
        match.record_hand()
        all_moves.append(moves)
    return record_from_match(match, all_moves, "test", ["random"] * rules.players, "2026.11.30").to_text()


def test_records_round_trip_and_verify() -> None:
    cases: list[tuple[str, dict[str, object] | None]] = [
        ("classic-4p", None), ("italian-4p", {"I-O9": 2}), ("classic-2p", {"target": 900})]
    for preset, options in cases:
        text = _played(preset, 7, options)
        games, errors = parse_records(text)
        assert errors == []
        assert len(games) == 1
        assert games[0].to_text() == text
        assert verify(games[0]) == []


def test_two_games_in_one_file() -> None:
    text = _played("classic-4p", 1) + "\n" + _played("classic-3p", 2)
    games, errors = parse_records(text)
    assert errors == [] and len(games) == 2
    assert [g.headers["Rules"] for g in games] == ["classic-4p", "classic-3p"]


def test_a_changed_score_is_caught() -> None:
    text = _played("classic-4p", 3, hands=1)
    lines = text.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith("[Score"))
    lines[i] = '[Score "1 2"]'
    games, _ = parse_records("\n".join(lines))
    problems = verify(games[0])
    assert any("recorded score" in p for p in problems)


def test_a_changed_seed_breaks_the_commitment() -> None:
    text = _played("classic-4p", 4, hands=1)
    games, _ = parse_records(text)
    hand = games[0].hands[0]
    hand.tags["Commitment"] = commitment(int(hand.tags["Seed"]) + 1)
    assert any("commitment" in p for p in verify(games[0]))


def test_an_illegal_move_is_reported_with_its_line() -> None:
    text = _played("classic-4p", 5, hands=1)
    lines = text.splitlines()
    i = next(i for i, line in enumerate(lines) if ": discard" in line)
    seat = lines[i].split(":")[0]
    lines[i] = f"{seat}: discard 3H"
    games, errors = parse_records("\n".join(lines))
    assert errors == []
    problems = verify(games[0])
    assert any(p.startswith(f"line {i + 1}:") for p in problems)


def test_the_parser_is_lenient_and_numbers_its_complaints() -> None:
    text = '[Rules "classic-4p"]\n[Broken tag\n1: dance\n[Hand "1"]\n2: meld QQ\n1: draw {fine}\nrubbish here\n'
    games, errors = parse_records(text)
    assert len(games) == 1 and len(games[0].hands) == 1
    assert [e.split(":")[0] for e in errors] == ["line 2", "line 3", "line 5", "line 7"]
    assert len(games[0].hands[0].moves) == 1


def test_a_gzip_compressed_record_reads_as_the_plain_one(tmp_path: Path) -> None:
    """``read_file`` takes ``FILE.cgn.gz`` as it takes ``FILE.cgn`` (the strength
    figures' runs are kept compressed); damaged or cut-short compressed files
    are refused with a message naming the file, never a traceback."""
    text = _played("classic-4p", 5) + "\n" + _played("italian-3p", 6, hands=1)
    plain = tmp_path / "run.cgn"
    plain.write_text(text, encoding="utf-8")
    packed = tmp_path / "run.cgn.gz"
    packed.write_bytes(gzip.compress(text.encode("utf-8")))
    games, errors = read_file(packed)
    expected, expected_errors = read_file(plain)
    assert errors == expected_errors == []
    assert [g.to_text() for g in games] == [g.to_text() for g in expected]
    assert len(games) == 2 and all(verify(g) == [] for g in games)

    not_gzip = tmp_path / "plain-named.cgn.gz"
    not_gzip.write_text(text, encoding="utf-8")
    cut = tmp_path / "cut.cgn.gz"
    cut.write_bytes(packed.read_bytes()[:200])
    latin = tmp_path / "latin.cgn.gz"
    latin.write_bytes(gzip.compress("[Event \"caf\xe9\"]\n".encode("latin-1")))
    for bad, words in ((not_gzip, "not a gzip-compressed game record"), (cut, "not a gzip-compressed game record"),
                       (latin, "not UTF-8 text"), (tmp_path / "missing.cgn.gz", "cannot read")):
        with pytest.raises(CanastaError) as caught:
            read_file(bad)
        assert words in str(caught.value) and bad.name in str(caught.value)


def test_a_record_saved_under_a_gz_name_is_compressed_and_reads_back(tmp_path: Path) -> None:


    from canasta.cli import main as cli_main
    from canasta.play.record import read_file as read_records

    path = tmp_path / "run.cgn.gz"
    assert cli_main(["arena", "--rules", "classic-2p", "--bots", "random,basic", "--games", "2", "--jobs", "1",
                     "--max-hands", "2", "--seed", "3", "--save", str(path), "--json"]) == 0
    with gzip.open(path, "rt", encoding="utf-8") as f:  # really gzip, not text under a .gz name
        assert f.read().startswith("[")
    games, errors = read_records(path)
    assert errors == [] and len(games) == 2
    assert cli_main(["arena", "--tally", str(path), "--json"]) == 0


def test_players_tag_read_by_seat() -> None:
    """One reader of the Players tag: seats as the tag numbers them, words that are not SEAT=NAME
    passed over; players() in seat order, whatever order the tag wrote them in."""
    from canasta.play.record import GameRecord, players_tag

    rec = GameRecord({"Players": "2=advanced 0=expert:i90 stray 1=human:Ann_Lee x=basic 3="})
    assert rec.seated() == {2: "advanced", 0: "expert:i90", 1: "human:Ann_Lee", 3: ""}
    assert rec.players() == ["expert:i90", "human:Ann_Lee", "advanced", ""]
    back = GameRecord({"Players": players_tag(["expert", "Ann Lee"])})
    assert back.players() == ["expert", "Ann_Lee"]
    assert GameRecord({}).seated() == {}
