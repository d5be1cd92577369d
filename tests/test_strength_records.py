"""The strength figures (``docs/strength.md``, linked from the README) come from the records
kept in ``docs/strength/``.

Every row of the "Strength" table of ``docs/strength.md`` that names a kept record must say what
``canasta arena --tally RECORD`` says of it: the hands, the expert's share of hands
won with its interval, its share of games and the score per hand.  Tallying replays
every game through the engine, so a record the engine no longer accepts fails here
too (the figures would then describe a different game)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from canasta.play.record import read_file
from canasta.tools.arena import tally

ROOT = Path(__file__).resolve().parents[1]
STRENGTH = ROOT / "docs" / "strength"


def _rows() -> list[dict[str, str]]:
    page = (ROOT / "docs" / "strength.md").read_text(encoding="utf-8")
    section = page[page.index("## Strength\n"):]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != len(header):
            break  # the table has ended
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def _kept(rows: list[dict[str, str]]) -> list[tuple[dict[str, str], Path]]:
    out: list[tuple[dict[str, str], Path]] = []
    for row in rows:
        names = re.findall(r"`(docs/strength/[^`]+\.cgn\.gz)`", row["record"])
        out.extend((row, ROOT / name) for name in names)
    return out


def test_every_kept_record_is_in_the_readme_and_every_named_record_is_kept() -> None:
    rows = _rows()
    named = {path for _, path in _kept(rows)}
    assert named, "the Strength table of docs/strength.md names no record in docs/strength/"
    assert all(p.is_file() for p in named), sorted(str(p) for p in named if not p.is_file())
    assert set(STRENGTH.glob("*.cgn.gz")) == named, "a record in docs/strength/ that no row of docs/strength.md names"


@pytest.mark.parametrize("row_path", _kept(_rows()), ids=lambda rp: rp[1].name)
def test_the_readme_row_is_what_the_record_tallies_to(row_path: tuple[dict[str, str], Path]) -> None:
    row, path = row_path
    d = _whole_tally(path)
    assert d["rules"] == row["preset"]
    assert d["bots"] == ["expert", "advanced"]
    assert row["hands"].replace(",", "") == str(d["hands"])
    lo, hi = d["A"]["hands_won_ci95"]
    assert f"{d['A']['hands_won_pct']}% [{lo}, {hi}]" in row["expert's hands won [95%]"]
    assert f"{d['A']['games_won_pct']}% of {d['games']} games" in row["expert's hands won [95%]"]
    assert row["per hand"] == f"{d['mean_score_diff_per_hand_A_minus_B']:+.0f}"


# -- the outside yardstick: the expert against OpenSpiel's ISMCTS (docs/strength/ismcts/)

ISMCTS = STRENGTH / "ismcts"
ISMCTS_SECTION = "## The outside yardstick: OpenSpiel's ISMCTS\n"


def _section_rows(title: str) -> list[dict[str, str]]:
    """The rows of the table with a record column in the section ``title`` of strength.md."""
    page = (ROOT / "docs" / "strength.md").read_text(encoding="utf-8")
    section = page[page.index(title) + len(title):].split("\n## ")[0]
    tables: list[list[str]] = [[]]  # the section's tables, each its lines; the results' has a record column
    for line in section.splitlines():
        if line.startswith("|"):
            tables[-1].append(line)
        elif tables[-1]:
            tables.append([])
    lines = next(t for t in tables if t and "| record |" in t[0])
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == len(header), line
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def _section_kept(title: str, folder: str) -> list[tuple[dict[str, str], Path]]:
    """Each row of the section's table with each record of ``docs/strength/FOLDER/`` it names."""
    out: list[tuple[dict[str, str], Path]] = []
    for row in _section_rows(title):
        names = re.findall(rf"`(docs/strength/{folder}/[^`]+\.cgn\.gz)`", row["record"])
        out.extend((row, ROOT / name) for name in names)
    return out


def _whole_tally(path: Path) -> dict[str, Any]:
    """What ``canasta arena --tally PATH`` says, asserting the record reads and holds only whole games."""
    games, errors = read_file(path)
    assert errors == []
    d: dict[str, Any] = tally(games, [f"{path.name}, game {i}" for i in range(1, len(games) + 1)]).as_dict()
    assert d["errors"] == [] and d["cut_off_games_not_counted"] == [], (d["errors"], d["cut_off_games_not_counted"])
    return d


def _ismcts_kept() -> list[tuple[dict[str, str], Path]]:
    return _section_kept(ISMCTS_SECTION, "ismcts")


def test_every_ismcts_record_is_named_by_a_row() -> None:
    named = {path for _, path in _ismcts_kept()}
    assert named, "the ISMCTS table of docs/strength.md names no record in docs/strength/ismcts/"
    assert all(p.is_file() for p in named), sorted(str(p) for p in named if not p.is_file())
    assert set(ISMCTS.glob("*.cgn.gz")) == named, "a record in docs/strength/ismcts/ that no row names"


@pytest.mark.parametrize("row_path", _ismcts_kept(), ids=lambda rp: rp[1].name)
def test_the_ismcts_row_is_what_the_record_tallies_to(row_path: tuple[dict[str, str], Path]) -> None:
    row, path = row_path
    d = _whole_tally(path)
    assert d["rules"] == row["preset"]
    assert d["bots"] == [row["expert"].strip("`"), row["ISMCTS"].strip("`")]
    assert d["bots"][0].partition(":")[0] == "expert" and d["bots"][1].partition(":")[0] == "ismcts"
    assert f"--bots {d['bots'][0]},{d['bots'][1]} " in row["command (`canasta arena …`)"]
    assert row["hands"].replace(",", "") == str(d["hands"])
    lo, hi = d["A"]["hands_won_ci95"]
    assert f"{d['A']['hands_won_pct']}% [{lo}, {hi}]" in row["expert's hands won [95%]"]
    assert row["per hand"] == f"{d['mean_score_diff_per_hand_A_minus_B']:+.0f}"
    wall = f"{d['A']['mean_decision_ms']:.0f} / {d['B']['mean_decision_ms']:.0f} ms"
    assert row["wall ms per decision in the run, expert / ISMCTS"] == wall


# -- the expert's budget: more worlds against the family's default, iteration budgets (docs/strength/budget/)

BUDGET = STRENGTH / "budget"
BUDGET_SECTION = "## The expert's budget: more worlds\n"


def _budget_kept() -> list[tuple[dict[str, str], Path]]:
    return _section_kept(BUDGET_SECTION, "budget")


def test_every_budget_record_is_named_by_a_row() -> None:
    named = {path for _, path in _budget_kept()}
    assert named, "the budget table of docs/strength.md names no record in docs/strength/budget/"
    assert set(BUDGET.glob("*.cgn.gz")) == named, "a record in docs/strength/budget/ that no row names"


@pytest.mark.parametrize("row_path", _budget_kept(), ids=lambda rp: rp[1].name)
def test_the_budget_row_is_what_the_record_tallies_to(row_path: tuple[dict[str, str], Path]) -> None:
    row, path = row_path
    d = _whole_tally(path)
    assert d["rules"] == row["preset"]
    assert d["bots"] == [row["more worlds"].strip("`"), row["default worlds"].strip("`")]
    assert all(b.startswith("expert:i") for b in d["bots"])
    assert f"--bots {d['bots'][0]},{d['bots'][1]} " in row["command (`canasta arena …`)"]
    assert row["hands"].replace(",", "") == str(d["hands"])
    lo, hi = d["A"]["hands_won_ci95"]
    assert row["more worlds' hands won [95%]"] == f"{d['A']['hands_won_pct']}% [{lo}, {hi}]"
    assert row["per hand"] == f"{d['mean_score_diff_per_hand_A_minus_B']:+.0f}"
