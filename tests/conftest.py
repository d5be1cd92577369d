"""Shared test helpers: the seeds hypothesis draws, seeded random playouts, and
the ``slow`` marker.

``pytest -m "not slow"`` runs the quick part of the suite (about a minute);
CI runs everything.  Helpers are imported by the test modules as
``from conftest import ...`` (the tests directory is on ``sys.path``).
"""

from __future__ import annotations

import importlib
import os
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import strategies as st

from canasta.game import Game
from canasta.moves import Move
from canasta.rules import RuleSet
from chromium import browser, shots  # noqa: F401  (the browser tests' fixtures: one Chromium per module, screenshots)

#: a random hand that has not ended by then never will
MAX_MOVES = 3000


def need(module: str) -> Any:
    """A module of the dev extra: a skip where it is missing, but a failure where the
    services are required (CI), so that a lost dependency cannot hide a test module."""
    if os.environ.get("CANASTA_SERVICES_REQUIRED") == "1":
        return importlib.import_module(module)
    return pytest.importorskip(module)


def seed_of(bits: tuple[bool, ...]) -> int:
    return sum(1 << i for i, bit in enumerate(bits) if bit)


# Seeds are built from 31 coin flips rather than st.integers: hypothesis sometimes
# substitutes integer constants found in the loaded modules, which would make the
# derandomized seeds depend on which test files are collected.  Coin flips do not.
SEEDS = st.tuples(*[st.booleans()] * 31).map(seed_of)


def choose(game: Game, rng: random.Random) -> Move:
    """A legal move chosen uniformly (the generating set)."""
    moves = list(game.legal_moves)
    assert moves, "an unfinished position must have a legal move"
    return moves[rng.randrange(len(moves))]


def playout(rules: RuleSet, seed: int) -> Iterator[Game]:
    """Yield a seeded random hand before every move (and once when it is over)."""
    rng = random.Random(seed ^ 0x5EED)
    game = Game(rules, seed, dealer=seed % rules.players)
    for _ in range(MAX_MOVES):
        yield game
        if game.is_over():
            return
        game.push(choose(game, rng))
    raise AssertionError(f"{rules.name} seed {seed}: the hand did not end in {MAX_MOVES} moves")


@pytest.fixture(autouse=True)
def _english_and_no_saved_settings(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test in English whatever the machine's locale, and without a player's saved
    language (issue 18): tests that want another language say so themselves."""
    from canasta.i18n import use

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    use("en")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a long test (property runs, whole matches); "
                                       "deselect with -m 'not slow'")
