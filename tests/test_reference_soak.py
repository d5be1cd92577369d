"""The generating set keeps its promise over every preset (issue 49): about a hundred
positions of each, three kinds (small, near going out, many naturals meeting the pile's
top card), walked in full by the exhaustive reference and by the generated moves, with the
same ends of the turn.  The presets are shared out over the machine's cores.

The long run behind ``docs/generation.md`` is ``canasta soak --reference N``; this test
also shows that the check catches a gap of the kind issue 49 found (a take laying a
canasta whole with a wild card, left out of the generator)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from canasta.engine.cards import IS_WILD
from canasta.engine.moves import MELD, Move
from canasta.engine.rules import PRESETS, RuleSet
from canasta.families.classic import movegen
from canasta.tools.soak import KINDS, SoakReport, reference_check, reference_table
from conftest import once_per_run

SEEDS = 60  # per preset, of the small and near-going-out kinds (up to one position of each a seed)
TAKE_SEEDS = 16  # per preset, of the take kind (whose turns are the longest to walk)
FIRST = 7001  # seeds apart from the property tests' (tests/test_reference_properties.py)
LIMIT = 1000  # states of one turn; a bigger turn is counted as too big (the long run walks 3000)


def _check(preset: str) -> SoakReport:
    rules = RuleSet.preset(preset)
    rep = reference_check(rules, SEEDS, FIRST, limit=LIMIT, kinds=("small", "near_going_out"))
    return reference_check(rules, TAKE_SEEDS, FIRST, rep, limit=LIMIT, kinds=("take",))


def _soak() -> dict[str, SoakReport]:
    workers = max(1, min(2, os.cpu_count() or 1))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return dict(zip(sorted(PRESETS), pool.map(_check, sorted(PRESETS)), strict=True))


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, SoakReport]:
    """The soak of every preset, the suite's costliest fixture: once for a parallel run, not once
    per worker that runs one of these tests (conftest.py)."""
    return once_per_run(tmp_path_factory, "reference_soak", _soak)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_end_of_a_turn_is_generated(reports: dict[str, SoakReport], preset: str) -> None:
    rep = reports[preset]
    assert not rep.problems, "\n".join(rep.problems[:10])
    assert rep.gaps == 0 and rep.refused == 0
    # the walk is not vacuous: a few hundred positions, every kind met often
    assert rep.positions >= 80, rep
    assert all(rep.kinds.get(kind, 0) >= 10 for kind in KINDS), rep.kinds
    # several ends of a turn a position (Modern American's turns are the smallest: 8 to 12 a position,
    # its melds capped at seven and its pack taken with a natural pair only; Classic's run to hundreds)
    assert rep.states >= 6 * rep.positions, (rep.states, rep.positions)
    assert rep.too_big <= rep.positions // 5


def _without_wild_canasta_takes(real: Any) -> Any:
    """The generator as issue 49 found it: no take that lays a canasta whole with wild cards."""
    def gen_takes(g: Any) -> Iterator[Any]:
        for move in real(g):
            if isinstance(move, tuple):  # a take that opens, as an option: the side has not melded
                yield move
                continue
            head = move.groups[0] if move.groups else ()
            if not (g.opened[g.side_of[g.turn]] and len(head) >= 6 and any(IS_WILD[c] for c in head)):
                yield move
    return gen_takes


def test_the_check_catches_a_missing_take(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(movegen, "gen_takes", _without_wild_canasta_takes(movegen.gen_takes))
    rep = reference_check(RuleSet.preset("classic-4p"), TAKE_SEEDS, FIRST, limit=LIMIT, kinds=("take",))
    assert rep.gaps > 0, "the reference check did not notice the missing takes"
    assert any("take" in p and "not generated" in p for p in rep.problems)


def test_the_long_run_record_and_its_table() -> None:
    """docs/generation.md's table is the kept long run's, over every preset, and it found no gap
    (the last, the going-out move's wild cards below, is closed)."""
    root = Path(__file__).resolve().parents[1]
    records = [json.loads(line) for line in (root / "docs" / "generation" / "reference-run.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
    assert sorted(r["rules"] for r in records) == sorted(PRESETS)
    assert all(r["refused"] == 0 for r in records)
    assert {r["rules"]: r["problems"] for r in records if r["problems"]} == {}
    assert all(r["not_generated"] == 0 for r in records)
    assert all(r["positions"] >= 500 for r in records)
    assert reference_table(records) in (root / "docs" / "generation.md").read_text(encoding="utf-8"), (
        "docs/generation.md is stale: python -m canasta.tools.soak --table docs/generation/reference-run.jsonl")


def test_going_out_may_complete_either_meld_with_the_wild_cards() -> None:
    """classic-6p-3x2, the long run's take position 100196: after taking the pile with six fours
    (a concealed canasta), the two deuces left complete either the queens or the aces for the
    second canasta and go out.  Both are legal, and both are generated (the generating set once
    offered only the queens: the going-out move placed the free wild cards one way only)."""
    from canasta.tools.reference import compare, take_position

    game = take_position(RuleSet.preset("classic-6p-3x2"), 100196)
    assert game is not None
    game.push("take 4S 4H 4H 4D 4D 4D")
    moves = list(game.legal_moves)
    for text in ("meld A:2D 2C", "meld Q:2D 2C"):
        assert game.why_illegal(text) is None
        assert Move.parse(text) in moves
    only_ref, only_gen = compare(game, limit=3000)
    assert not only_gen
    assert not only_ref


def test_every_placing_of_the_wild_cards_that_goes_out_is_generated() -> None:
    """A position of our own: kings and queens five each on the table, no canasta, a deuce and
    a joker in hand.  Either meld can take both and go out; neither can be reached a card at a
    time (one wild card laid leaves a last card that may not be discarded without a canasta)."""
    from canasta.tools.reference import compare
    from canasta.views.position import game_from_position

    game = game_from_position({
        "rules": "classic-4p", "dealer": 3, "turn": 0, "phase": "meld", "stock_seed": 5,
        "hands": [["2C", "JK"], ["4C", "7C", "9D", "10C", "QS"], ["4S", "7D", "9S", "10H", "QD"],
                  ["4D", "7H", "9H", "JH", "QC"]],
        "melds": [[["KS", "KD", "KC", "KH", "KS"], ["QH", "QS", "QD", "QC", "2H"]], []],
        "has_melded": [True, False, True, False], "pile": ["5C", "6H"]})
    melds = [m for m in game.legal_moves if m.kind == MELD]
    assert sorted(str(m) for m in melds) == ["meld K:2C JK", "meld Q:2C JK"]
    for m in melds:
        game.push(m)
        assert game.went_out == 0
        game.pop()
    assert compare(game, limit=3000) == (set(), set())
