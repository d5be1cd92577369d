"""The strength figures (``docs/strength.md``, linked from the README) come from the records
kept in ``docs/strength/``.

The tables of every preset and of the decision times are printed from their records by
``docs/strength/tables.py``, and the page must hold exactly those lines.  Every other row that
names a kept record must say what ``canasta arena --tally RECORD`` says of it: the hands, the
expert's share of hands won with its interval, its share of games and the score per hand.  The
strength ladders must be what ``canasta ladder --tally`` makes of the kept records, playing no
game.  Tallying replays every game through the engine, so a record the engine no longer accepts
fails here too (the figures would then describe a different game)."""

from __future__ import annotations

import re
import runpy
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from canasta.play.record import read_file
from canasta.tools.arena import tally

ROOT = Path(__file__).resolve().parents[1]
STRENGTH = ROOT / "docs" / "strength"
PAGE = ROOT / "docs" / "strength.md"


@cache
def _tables() -> dict[str, Any]:
    """docs/strength/tables.py's functions (it is a script of the docs, not a module of the package)."""
    return runpy.run_path(str(STRENGTH / "tables.py"))


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_the_table_of_every_preset_is_what_its_records_tally_to() -> None:
    lines = _tables()["presets_table"]()
    assert len(lines) == 2 + len(_tables()["RUNS"])
    assert "\n".join(lines) + "\n" in _page()


def test_every_presets_record_is_a_run_of_the_table() -> None:
    runs = {_tables()["record_path"](preset, seed) for preset, _, seeds in _tables()["RUNS"] for seed, _ in seeds}
    kept = set((STRENGTH / "presets").glob("*.cgn.gz"))
    assert kept, "docs/strength/presets/ holds no record"
    assert kept <= runs, sorted(str(p) for p in kept - runs)


def test_the_decision_times_table_is_what_the_timing_records_hold() -> None:
    lines = _tables()["timing_table"]()
    assert len(lines) > 2 + 12, "a timing record of every preset, in each engine"
    assert "\n".join(lines) + "\n" in _page()
    presets = {line.split("|")[1].strip() for line in lines[2:]}
    assert presets == {preset for preset, _, _ in _tables()["RUNS"]}


LADDERS = {
    "classic-4p": ("random,basic,policy:classic-4p,advanced,expert:i90,ismcts:16",
                   ["docs/strength/rl/ladder/ladder-classic-4p-basic-vs-policy_classic-4p-1.cgn.gz",
                    "docs/strength/rl/ladder/ladder-classic-4p-policy_classic-4p-vs-advanced-1.cgn.gz",
                    "docs/strength/rl/ladder/ladder-classic-4p-random-vs-basic-1.cgn.gz",
                    "docs/strength/presets/arena-classic-4p-expert-vs-advanced-1201.cgn.gz",
                    "docs/strength/ismcts/arena-classic-4p-expert-i90-vs-ismcts16-1.cgn.gz",
                    "docs/strength/ismcts/arena-classic-4p-expert-i90-vs-ismcts16-2.cgn.gz"]),
    "italian-4p": ("random,basic,policy:italian-4p,advanced,expert:i60,ismcts:22",
                   ["docs/strength/rl/ladder/ladder-italian-4p-basic-vs-policy_italian-4p-1.cgn.gz",
                    "docs/strength/rl/ladder/ladder-italian-4p-policy_italian-4p-vs-advanced-1.cgn.gz",
                    "docs/strength/rl/ladder/ladder-italian-4p-random-vs-basic-1.cgn.gz",
                    "docs/strength/presets/arena-italian-4p-expert-vs-advanced-1201.cgn.gz",
                    "docs/strength/presets/arena-italian-4p-expert-vs-advanced-1202.cgn.gz",
                    "docs/strength/ismcts/arena-italian-4p-expert-i60-vs-ismcts22-1.cgn.gz"]),
    # the expert's generations, by whole matches won; the hand's expert is `expert:i90` in the records of
    # its day and `python:expert:i90+hand` in the later duels against it
    "classic-4p by matches": ("basic,policy:classic-4p,advanced,python:expert:i90+value,expert:i90,"
                              "python:expert:i90+match",
                              ["docs/strength/rl/ladder/ladder-classic-4p-basic-vs-policy_classic-4p-1.cgn.gz",
                               "docs/strength/rl/ladder/ladder-classic-4p-policy_classic-4p-vs-advanced-1.cgn.gz",
                               "docs/strength/learned/arena-classic-4p-expert-i90-vs-advanced-60606.cgn.gz",
                               "docs/strength/learned/duel-classic-4p-expert-match-vs-expert-5400.cgn.gz",
                               "docs/strength/learned/duel-classic-4p-expert-match-vs-advanced-60606.cgn.gz",
                               "docs/strength/learned/duel-classic-4p-expert-value-vs-advanced-60606.cgn.gz",
                               "docs/strength/learned/duel-classic-4p-expert-value-vs-hand-5400.cgn.gz"]),
    # italian-4p's: the expert before the leaf value is `expert:i60` in its records
    "italian-4p by matches": ("basic,policy:italian-4p,advanced,expert:i60,python:expert:i60+value-wide",
                              ["docs/strength/rl/ladder/ladder-italian-4p-basic-vs-policy_italian-4p-1.cgn.gz",
                               "docs/strength/rl/ladder/ladder-italian-4p-policy_italian-4p-vs-advanced-1.cgn.gz",
                               "docs/strength/learned/arena-italian-4p-expert-i60-vs-advanced-60606.cgn.gz",
                               "docs/strength/learned/duel-italian-4p-expert-value-wide-vs-expert-5400.cgn.gz",
                               "docs/strength/learned/duel-italian-4p-expert-value-wide-vs-advanced-60606.cgn.gz"]),
}
#: the ladders' --same (a record's name for a bot the ladder knows under another)
SAME = {"classic-4p by matches": ["--same", "python:expert:i90+hand=expert:i90"]}


@pytest.mark.parametrize("preset", sorted(LADDERS))
def test_the_ladder_is_what_the_kept_records_make_of_it_playing_nothing(
        preset: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("open_spiel", reason="the ladder names ismcts, which needs the rl extra")
    from canasta import cli
    from canasta.tools import ladder

    def no_play(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the ladder played a pair: {args[1]}")

    monkeypatch.setattr(ladder, "run_arena", no_play)
    monkeypatch.chdir(ROOT)
    bots, records = LADDERS[preset]
    rules, _, by = preset.partition(" by ")
    assert cli.main(["ladder", "--rules", rules, "--bots", bots, "--pairs", "adjacent", "--seed", "1",
                     "--by", by or "hands", "--save-dir", str(tmp_path), *SAME.get(preset, []), "--tally", *records,
                     "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.count("tallied from") >= len(bots.split(",")) - 1, out
    assert out.strip() in _page(), out


# -- the outside yardstick: the expert against OpenSpiel's ISMCTS (docs/strength/ismcts/)

ISMCTS = STRENGTH / "ismcts"
ISMCTS_SECTION = "## The outside yardstick: OpenSpiel's ISMCTS\n"


def _section_rows(title: str, column: str = "record") -> list[dict[str, str]]:
    """The rows of the table with a ``column`` column in the section ``title`` of strength.md."""
    page = (ROOT / "docs" / "strength.md").read_text(encoding="utf-8")
    section = page[page.index(title) + len(title):].split("\n## ")[0]
    tables: list[list[str]] = [[]]  # the section's tables, each its lines; the results' has a record column
    for line in section.splitlines():
        if line.startswith("|"):
            tables[-1].append(line)
        elif tables[-1]:
            tables.append([])
    lines = next(t for t in tables if t and f"| {column} |" in t[0])
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
    """What ``canasta arena --tally PATH`` says, asserting the record reads and holds only whole games
    (worked out once a session: the tables compare one preset's run with each of its variants)."""
    stat = path.stat()
    return _whole_tally_once(path, stat.st_mtime_ns, stat.st_size)


@cache
def _whole_tally_once(path: Path, mtime_ns: int, size: int) -> dict[str, Any]:
    games, errors = read_file(path)
    assert errors == []
    d: dict[str, Any] = tally(games, [f"{path.name}, game {i}" for i in range(1, len(games) + 1)]).as_dict()
    assert d["errors"] == [] and d["cut_off_games_not_counted"] == [], (d["errors"], d["cut_off_games_not_counted"])
    return d


def _every_record_named(named: set[Path], folder: Path, table: str) -> None:
    """The rows of ``table`` name at least one record, each kept, and every record of ``folder``."""
    where = folder.relative_to(ROOT)
    assert named, f"the {table} table of docs/strength.md names no record in {where}/"
    assert all(p.is_file() for p in named), sorted(str(p) for p in named if not p.is_file())
    assert set(folder.glob("*.cgn.gz")) == named, f"a record in {where}/ that no row names"


def _hands_cells(row: dict[str, str], d: dict[str, Any], won: str) -> None:
    """The row's hands, first player's hands won (column ``won``) and points a hand are the tally's."""
    assert row["hands"].replace(",", "") == str(d["hands"])
    lo, hi = d["A"]["hands_won_ci95"]
    assert row[won] == f"{d['A']['hands_won_pct']}% [{lo}, {hi}]"
    assert row["per hand"] == f"{d['mean_score_diff_per_hand_A_minus_B']:+.0f}"


def _ismcts_kept() -> list[tuple[dict[str, str], Path]]:
    return _section_kept(ISMCTS_SECTION, "ismcts")


def test_every_ismcts_record_is_named_by_a_row() -> None:
    _every_record_named({path for _, path in _ismcts_kept()}, ISMCTS, "ISMCTS")


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
    _every_record_named({path for _, path in _budget_kept()}, BUDGET, "budget")


@pytest.mark.parametrize("row_path", _budget_kept(), ids=lambda rp: rp[1].name)
def test_the_budget_row_is_what_the_record_tallies_to(row_path: tuple[dict[str, str], Path]) -> None:
    row, path = row_path
    d = _whole_tally(path)
    assert d["rules"] == row["preset"]
    assert d["bots"] == [row["more worlds"].strip("`"), row["default worlds"].strip("`")]
    assert all(b.startswith("expert:i") for b in d["bots"])
    assert f"--bots {d['bots'][0]},{d['bots'][1]} " in row["command (`canasta arena …`)"]
    _hands_cells(row, d, "more worlds' hands won [95%]")


# -- earlier runs: former experts (docs/strength/earlier/)

EARLIER_SECTION = "## Earlier runs\n"


def _earlier_kept() -> list[tuple[dict[str, str], Path]]:
    return _section_kept(EARLIER_SECTION, "earlier")


def test_every_earlier_record_is_named_by_a_row_and_every_named_record_is_kept() -> None:
    _every_record_named({path for _, path in _earlier_kept()}, STRENGTH / "earlier", "earlier runs'")
    assert not list(STRENGTH.glob("*.cgn.gz")), "a record loose in docs/strength/: each table has its folder"


@pytest.mark.parametrize("row_path", _earlier_kept(), ids=lambda rp: rp[1].name)
def test_the_earlier_row_is_what_the_record_tallies_to(row_path: tuple[dict[str, str], Path]) -> None:
    row, path = row_path
    d = _whole_tally(path)
    assert d["rules"] == row["preset"]
    assert d["bots"] == [row["expert"].strip("`"), "advanced"]
    assert row["hands"].replace(",", "") == str(d["hands"])
    lo, hi = d["A"]["hands_won_ci95"]
    assert f"{d['A']['hands_won_pct']}% [{lo}, {hi}]" in row["expert's hands won [95%]"]
    assert f"{d['A']['games_won_pct']}% of {d['games']} games" in row["expert's hands won [95%]"]
    assert row["per hand"] == f"{d['mean_score_diff_per_hand_A_minus_B']:+.0f}"


# -- the expert's search variants, each on a preset's kept deals (docs/strength/variants/)


@cache
def _variants() -> dict[str, Any]:
    """docs/strength/variants.py's functions (a script of the docs, like tables.py)."""
    return runpy.run_path(str(STRENGTH / "variants.py"))


def test_the_variants_table_is_what_their_records_compare_to() -> None:
    """Each variant's record against its preset's kept record, hand by hand on the same deals;
    a variant's games are the expert's with the variant's one change (its label says which)."""
    kept = sorted((STRENGTH / "variants").glob("*.cgn.gz"))
    assert kept, "docs/strength/variants/ holds no record"
    lines = _variants()["compare_table"]()
    assert len(lines) == 2 + len(kept)
    assert "\n".join(lines) + "\n" in _page()
    for path, line in zip(kept, lines[2:], strict=True):
        cells = [c.strip(" `") for c in line.split("|")]
        preset, variant, against = cells[1], cells[2], ROOT / cells[9]
        d = _whole_tally(path)
        assert d["rules"] == preset
        base = _whole_tally(against)
        assert base["rules"] == preset and base["bots"][1] == "advanced"
        assert d["bots"] == [f"python:{base['bots'][0]}+{variant}", "advanced"]
        assert against.name == f"arena-{preset}-expert-vs-advanced-1201.cgn.gz", "the same deals: seed 1201"


def test_the_ismcts_pooled_rows_are_what_their_records_tally_to_together() -> None:
    """The target's table: each preset's runs of one pairing counted together (as
    ``canasta arena --tally A B ...`` does), every run of the results table in one row."""
    rows = _section_rows(ISMCTS_SECTION, "records")
    assert rows, "the ISMCTS section has no table of the runs counted together"
    pooled: set[Path] = set()
    for row in rows:
        paths = [ROOT / name for name in re.findall(r"`(docs/strength/ismcts/[^`]+\.cgn\.gz)`", row["records"])]
        games = []
        for path in paths:
            got, errors = read_file(path)
            assert errors == []
            games += got
        d = tally(games).as_dict()
        assert [d["rules"], *d["bots"]] == [row["preset"], row["expert"].strip("`"), row["ISMCTS"].strip("`")], row
        assert row["hands"].replace(",", "") == str(d["hands"]), row
        lo, hi = d["A"]["hands_won_ci95"]
        assert row["expert's hands won [95%]"] == f"**{d['A']['hands_won_pct']}% [{lo}, {hi}]**", row
        pooled |= set(paths)
    assert pooled == {path for _, path in _ismcts_kept() if "-expert-i" in path.name}


def test_the_variants_pooled_table_is_what_their_records_compare_to() -> None:
    lines = _variants()["pooled_table"]()
    assert len(lines) > 2, "no variant tried in more than one preset"
    assert "\n".join(lines) + "\n" in _page()


def test_the_former_experts_table_is_what_the_records_compare_to() -> None:
    """Today's run of a preset against the former expert's run on the same deals (seed 1201),
    hand by hand: the table on the page is what the kept records give, and each row compares two
    different experts' records of one preset."""
    lines = _variants()["former_table"]()
    assert len(lines) > 3, "no preset with both today's and a former expert's seed-1201 run"
    assert "\n".join(lines) + "\n" in _page()
    rows = [line for line in lines[2:] if not line.startswith("| all ")]
    assert len(lines) - len(rows) - 2 == len({line.split("|")[1].split("-")[0] for line in rows})  # a pool a family
    variants = _variants()
    for line in rows:
        cells = [c.strip(" `") for c in line.split("|")]
        today, former = (ROOT / p.strip(" `") for p in cells[8].split(","))
        d, e = _whole_tally(today), _whole_tally(former)
        assert d["rules"] == e["rules"] == cells[1]
        assert [d["bots"][0], e["bots"][0]] == [cells[2], cells[3]]
        # two experts: named apart (expert:i60, expert:i40), or one name over two days (Classic's expert:i90
        # before and after it played for the match)
        day, former_day = (variants["_date"](variants["_read"](p)) for p in (today, former))
        assert cells[2] != cells[3] or day > former_day, (line, day, former_day)
        assert today.name == former.name == f"arena-{cells[1]}-expert-vs-advanced-1201.cgn.gz"


# -- Modern American: basic against random, the expert against advanced (docs/strength/american/)

AMERICAN_SECTION = "## Modern American\n"


def _american_kept() -> list[tuple[dict[str, str], Path]]:
    return _section_kept(AMERICAN_SECTION, "american")


def test_every_american_record_is_named_by_a_row() -> None:
    _every_record_named({path for _, path in _american_kept()}, STRENGTH / "american", "Modern American")


@pytest.mark.parametrize("row_path", _american_kept(), ids=lambda rp: rp[1].name)
def test_the_american_row_is_what_the_record_tallies_to(row_path: tuple[dict[str, str], Path]) -> None:
    row, path = row_path
    d = _whole_tally(path)
    assert d["rules"] == row["preset"] and d["rules"].startswith("american")
    assert d["bots"] == [b.strip("` ") for b in row["bots"].split(" vs ")]
    assert f"--rules {d['rules']} --bots {d['bots'][0]},{d['bots'][1]} " in row["command (`canasta arena …`)"]
    _hands_cells(row, d, "first bot's hands won [95%]")


# -- the expert that learns: policy rollouts against today's expert (docs/strength/learned/, issue 54)

LEARNED = STRENGTH / "learned"
LEARNED_SECTION = "## The expert that learns: first generation\n"


def _learned_kept() -> list[tuple[dict[str, str], Path]]:
    return _section_kept(LEARNED_SECTION, "learned")


MATCHES_SECTION = "## The expert that learns: whole matches\n"


def _matches_kept() -> list[tuple[dict[str, str], Path]]:
    return _section_kept(MATCHES_SECTION, "learned")


def test_every_learned_record_is_named_by_a_row() -> None:
    named = {path for _, path in _learned_kept()}
    matches = {path for _, path in _matches_kept()}
    assert named, "the learned expert's table of docs/strength.md names no record in docs/strength/learned/"
    assert matches, "the whole matches' table of docs/strength.md names no record in docs/strength/learned/"
    _every_record_named(named | matches, LEARNED, "learned expert's and whole matches'")


@pytest.mark.parametrize("row_path", _matches_kept(), ids=lambda rp: rp[1].name)
def test_the_whole_matches_row_is_what_the_record_tallies_to(row_path: tuple[dict[str, str], Path]) -> None:
    row, path = row_path
    d = _whole_tally(path)
    assert d["rules"] == row["preset"]
    assert d["bots"] == [row["first"].strip("`"), row["second"].strip("`")]
    assert row["matches"].replace(",", "") == str(d["games"])
    lo, hi = d["A"]["games_won_ci95"]
    assert row["first's matches won [95%]"].strip("*") == f"{d['A']['games_won_pct']}% [{lo}, {hi}]"
    _hands_cells(row, d, "first's hands won [95%]")


@pytest.mark.parametrize("row_path", _learned_kept(), ids=lambda rp: rp[1].name)
def test_the_learned_row_is_what_the_record_tallies_to(row_path: tuple[dict[str, str], Path]) -> None:
    row, path = row_path
    d = _whole_tally(path)
    assert d["rules"] == row["preset"]
    assert d["bots"] == [row["first"].strip("`"), row["second"].strip("`")]
    assert f"--bots {d['bots'][0]},{d['bots'][1]} " in row["command (`canasta arena …`)"]
    _hands_cells(row, d, "first's hands won [95%]")
