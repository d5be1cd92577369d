"""``canasta tournament`` (issue 53): the standings as a person reads them, in English and in
Italian, the JSON, the saved records that ``canasta verify`` replays, bad options refused in one
line with nothing run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from canasta.cli import main

# the command line in English with no saved settings (an autouse fixture), and a run of it
from test_cli_i18n import _no_saved_settings as _no_saved_settings
from test_cli_i18n import _run


def test_the_default_tournament_prints_its_standings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["tournament", "--seed", "3"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == ("Swiss pairs, classic-4p: 16 partnerships, 4 rounds, 2 hands a round, "
                        "scored in matchpoints")
    assert lines[2].split() == ["place", "pair", "partnership", "score", "matchpoints", "VP", "result"]
    table = lines[3:19]
    assert [int(line.split()[0]) for line in table] == list(range(1, 17))
    assert sorted(int(line.split()[1]) for line in table) == list(range(1, 17))
    scores = [float(line.split()[4].rstrip("%")) for line in table]
    assert scores == sorted(scores, reverse=True)
    assert all(line.split()[5].endswith("/112") for line in table)  # 8 boards, a top of 14 each
    rounds = [line for line in lines if line.startswith("round ")]
    assert len(rounds) == 4 and all("commitment" in r and "secret" in r for r in rounds)
    code, again, _ = _run(["tournament", "--seed", "3"], capsys)
    assert again == out  # a tournament's number makes it again


def test_in_italian(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["tournament", "--lang", "it", "--pairs", "4", "--rounds", "1", "--hands", "1",
                         "--format", "duplicate", "--scoring", "vp", "--final"], capsys)
    assert code == 0
    assert out.startswith("Coppie, duplicato, classic-4p: 4 coppie, 1 turno,")
    assert "posto  coppia" in out and "punti vittoria" in out
    assert "coppia  turno  smazzata  tavolo  linea  avversari" in out
    assert "turno 1: impegno " in out


def test_json_saved_records_and_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.cgn"
    code, out, _ = _run(["tournament", "--pairs", "4", "--rounds", "3", "--hands", "1", "--json", "--bots",
                         "random", "--save", str(path)], capsys)
    assert code == 0
    data = json.loads(out)
    assert [row["place"] for row in data["standings"]] == [1, 2, 3, 4]
    assert len(data["final"]) == 4 * 3 and len(data["proof"]["rounds"]) == 3
    assert path.read_text().count("[Event ") == 2 * 3
    code, out, err = _run(["verify", str(path)], capsys)
    assert code == 0, out + err
    code, out, err = _run(["tournament", "--pairs", "4", "--rounds", "1", "--hands", "1", "--save", str(path)],
                          capsys)
    assert code == 2 and out == "" and "--force" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(("argv", "words"), [
    (["--pairs", "7"], "an even number of partnerships"),
    (["--pairs", "2"], "from 4 to 1000"),
    (["--hands", "0"], "from 1 to 20"),
    (["--rounds", "x"], "not a whole number"),
    (["--format", "teams"], "invalid choice"),
    (["--scoring", "imps"], "invalid choice"),
    (["--bots", "wizard"], "unknown bot 'wizard'"),
    (["--bots", ","], "name at least one bot"),
    (["--rules", "classic-3p"], "classic-3p has no two sides"),
    (["--format", "duplicate", "--pairs", "8", "--rounds", "5"], "at most 4 rounds"),
])
def test_bad_options_are_refused_in_one_line(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        code = main(["tournament", *argv])
        raise SystemExit(code)
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == ""
    assert len(err.splitlines()) == 1 and words in err
