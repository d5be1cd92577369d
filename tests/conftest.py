"""Shared test helpers: the seeds hypothesis draws, seeded random playouts, and
the ``slow`` and ``soak`` markers.

``pytest -m "not slow"`` runs the quick part of the suite (about a minute);
CI runs everything but the soaks, which ``pytest --soak`` adds.  Helpers are imported by the test modules as
``from conftest import ...`` (the tests directory is on ``sys.path``).

The suite runs in parallel, one pytest-xdist worker per core (``addopts`` in pyproject.toml:
``-n auto --dist loadgroup``; ``-n 0`` runs it in one process).  Each worker is a process of its
own, so module-scoped fixtures (a browser, a server) are made once per worker that runs one of
the module's tests, and no test may count on another having run first.  What keeps concurrent
tests apart: files under ``tmp_path``; servers on free ports (``devserver.free_port``); the
cluster tests' own database and Redis key prefix per run (test_cluster.py); PostgreSQL and Redis
instances of a test's own (instances.py); browser tests that wait on the page's events, never a
fixed time.  Tests that must not overlap hold the same lock of the run (:func:`alone`: the
``ray_alone`` fixture, one local Ray cluster at a time), and a costly value the tests of several
workers need is computed once for the whole run (:func:`once_per_run`: the reference soak).
(``xdist_group`` would do neither here: pytest 9 derives a node's id from its structured id,
which pytest-xdist 3.8's ``loadgroup`` does not change, so the group is silently ignored.)
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import pickle
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import strategies as st

from canasta.engine.game import Game
from canasta.engine.moves import Move
from canasta.engine.rules import RuleSet
from chromium import browser, shots  # noqa: F401  (the browser tests' fixtures: one Chromium per module, screenshots)

#: a random hand that has not ended by then never will
MAX_MOVES = 3000
T = TypeVar("T")


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


def run_folder(factory: pytest.TempPathFactory) -> Path | None:
    """The folder every worker of this parallel run shares (pytest-xdist gives each worker a
    base folder of its own inside it), or None when the run is not parallel."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    return factory.getbasetemp().parent


@contextlib.contextmanager
def alone(factory: pytest.TempPathFactory, name: str) -> Iterator[None]:
    """Held while no other worker of this run holds ``name``: what must not overlap waits for
    the lock (a file lock, released when the holder's process ends, even killed)."""
    folder = run_folder(factory)
    if folder is None:
        yield
        return
    with (folder / f"{name}.lock").open("a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def once_per_run(factory: pytest.TempPathFactory, name: str, compute: Callable[[], T]) -> T:
    """``compute()`` once for the whole run: the first worker to ask computes it and keeps it
    (pickled in the run's folder), the others wait for it and read it back."""
    folder = run_folder(factory)
    if folder is None:
        return compute()
    kept = folder / f"{name}.pickle"
    with alone(factory, name):
        if kept.is_file():
            value: T = pickle.loads(kept.read_bytes())
            return value
        value = compute()
        kept.write_bytes(pickle.dumps(value))
        return value


@pytest.fixture
def ray_alone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One local Ray cluster at a time in a parallel run."""
    with alone(tmp_path_factory, "ray"):
        yield


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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--soak", action="store_true",
                     help="also run the soaks (tests marked soak: long waits kept out of the suite and CI)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: a long test (property runs, whole matches); "
                                       "deselect with -m 'not slow'")
    config.addinivalue_line("markers", "soak: a long run kept out of the suite and CI; run it with --soak")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--soak"):
        return
    skip = pytest.mark.skip(reason="a soak, run apart from the suite: add --soak (docs/deploy.md)")
    for item in items:
        if item.get_closest_marker("soak") is not None:
            item.add_marker(skip)
