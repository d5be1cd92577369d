"""Pinned legal-move counts and whole-hand hashes per preset (tests/data/perft,
made by ``python -m canasta.tools.perft``): any change in generation or in the
rules' effects shows here.  The files were first made by the engine before its
reshaping (issue 14), so they also guard that the reshaped engine plays the
same games."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from canasta.engine.rules import PRESETS
from canasta.tools import perft

DATA = Path(__file__).resolve().parent / "data" / "perft"


def test_a_file_per_preset() -> None:
    assert sorted(p.stem for p in DATA.glob("*.json")) == sorted(PRESETS)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_perft_counts_and_hands_are_pinned(preset: str) -> None:
    pinned = json.loads((DATA / f"{preset}.json").read_text(encoding="utf-8"))
    now = perft.table(preset)
    assert now["positions"] == pinned["positions"], "legal-move counts changed: rerun python -m canasta.tools.perft if meant"
    assert now["hands"] == pinned["hands"], "seeded hands play differently"
    assert perft.dumps(now) == (DATA / f"{preset}.json").read_text(encoding="utf-8")
