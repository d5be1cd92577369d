"""The compiled engine (mypyc, ``CANASTA_COMPILE=1 pip install .``).

With ``CANASTA_EXPECT_COMPILED=1`` (CI's compiled step) every module of
``canasta.engine.native.COMPILED_MODULES`` must have been loaded from an extension module: a
module that silently fell back to its ``.py`` source fails here.  Without it (the
editable, pure-Python install) the engine must be pure, and the tests check what the
build and ``canasta bench --compare-pure`` rely on: the module list ``setup.py`` reads,
the pure child process, the engine named by ``--version`` and ``bench``.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from canasta.cli import main
from canasta.engine.native import COMPILED_MODULES, compiled_status, engine, module_name
from canasta.engine.rules import RuleSet
from canasta.tools import bench

ROOT = Path(__file__).resolve().parents[1]
EXPECT_COMPILED = os.environ.get("CANASTA_EXPECT_COMPILED") == "1"
compiled_only = pytest.mark.skipif(not EXPECT_COMPILED, reason="the compiled engine is checked where "
                                   "CANASTA_EXPECT_COMPILED=1 (CI's compiled step, a CANASTA_COMPILE=1 install)")


def test_the_listed_modules_exist_and_setup_reads_the_same_list() -> None:
    src = ROOT / "src"
    for path in COMPILED_MODULES:
        assert (src / path).is_file(), path
        assert importlib.util.find_spec(module_name(path)) is not None, path
    assert len(set(COMPILED_MODULES)) == len(COMPILED_MODULES)
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    # setup.py's own reader, run alone (setup.py itself would run setup())
    reader: list[ast.stmt] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "compiled_modules"]
    assert len(reader) == 1
    space: dict[str, Any] = {"ast": ast, "ROOT": ROOT}
    exec(compile(ast.Module(body=reader, type_ignores=[]), "setup.py", "exec"), space)
    read = space["compiled_modules"]
    assert callable(read) and read() == [f"src/{p}" for p in COMPILED_MODULES]


def test_module_names() -> None:
    assert module_name("canasta/engine/game.py") == "canasta.engine.game"
    assert module_name("canasta/families/classic/__init__.py") == "canasta.families.classic"


@compiled_only
def test_every_listed_module_is_an_extension_module() -> None:
    status = compiled_status()
    interpreted = sorted(name for name, compiled in status.items() if not compiled)
    assert not interpreted, f"loaded from Python source in the compiled install: {interpreted}"
    assert engine() == "compiled"
    assert "canasta__mypyc" in sys.modules, "the compiled modules' shared library is not loaded"


@pytest.mark.skipif(EXPECT_COMPILED, reason="the pure-Python install")
def test_the_editable_install_is_pure_python() -> None:
    assert not any(compiled_status().values())
    assert engine() == "pure"


def test_version_and_bench_name_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    want = "compiled" if EXPECT_COMPILED else "pure"
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("canasta ") and f"engine: {want}" in out.splitlines()
    assert main(["bench", "--hands", "3"]) == 0
    out = capsys.readouterr().out
    assert f"engine: {want}" in out and "(CPU)" in out and "(wall)" in out
    assert main(["bench", "--hands", "3", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["engine"] == want and row["cpu_seconds"] > 0 and row["cpu_ms_per_hand"] > 0


def test_the_pure_child_loads_no_extension_module() -> None:
    res = bench._child(True, "classic-4p", 3, 5)
    assert res.engine == "pure"
    assert res.decisions == bench.run_bench(RuleSet.preset("classic-4p"), 3, 5).decisions


@pytest.mark.skipif(EXPECT_COMPILED, reason="the pure-Python install refuses --compare-pure")
def test_compare_pure_needs_the_compiled_engine(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--hands", "2", "--compare-pure"]) == 2
    assert "CANASTA_COMPILE=1" in capsys.readouterr().err


@compiled_only
@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p", "classic-2p", "italian-6p"])
def test_compiled_and_pure_play_the_same_hands(preset: str, capsys: pytest.CaptureFixture[str]) -> None:
    c = bench.compare_pure(RuleSet.preset(preset), 20, 11, rounds=1)
    assert c.identical and c.pure[0].engine == "pure" and c.compiled[0].engine == "compiled"
    assert main(["bench", "--rules", preset, "--hands", "5", "--compare-pure", "--runs", "2", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["identical_play"] is True and len(row["pure_hands_per_cpu_s"]) == 2


@pytest.mark.parametrize("value", [None, 5, b"draw", ["draw"]])
def test_a_wrong_type_is_refused_as_the_pure_engine_refuses_it(value: object) -> None:
    """mypyc checks argument types at a compiled function's boundary (a TypeError); the
    checked entry points take ``object`` and refuse with the engine's own errors."""
    from canasta.engine.errors import IllegalMoveError, NotationError
    from canasta.engine.game import Game
    from canasta.engine.moves import Move

    with pytest.raises(NotationError):
        Move.parse(value)
    with pytest.raises(IllegalMoveError):
        Game(RuleSet.preset("classic-4p"), 1).plan(value)


@pytest.mark.parametrize("preset", ["classic-4p", "italian-4p"])
def test_a_game_and_a_match_pickle_and_deep_copy_mid_hand(preset: str) -> None:
    """Compiled classes cannot be made without their constructor; canasta.engine.compiled_pickle
    registers reducers for them, so pickle and deepcopy work as with the pure engine."""
    import copy
    import pickle
    import random

    from canasta.engine.game import Game
    from canasta.play.match import Match
    from canasta.views.position import position_of

    game = Game(RuleSet.preset(preset), 3)
    rng = random.Random(1)
    for _ in range(60):
        game.play_unchecked(game.random_move(rng))
    for other in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert position_of(other) == position_of(game)
        a, b = random.Random(5), random.Random(5)
        mine = game.copy()
        while not mine.is_over():
            mine.play_unchecked(mine.random_move(a))
            other.play_unchecked(other.random_move(b))
        assert other.result == mine.result
        assert pickle.loads(pickle.dumps(mine.result)) == mine.result
    match = Match(RuleSet.preset(preset), seed=4)
    hand = match.next_hand()
    for _ in range(30):
        hand.play_unchecked(hand.random_move(rng))
    twin = copy.deepcopy(match)
    assert twin.game is not None and position_of(twin.game) == position_of(hand)
