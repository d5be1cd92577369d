"""The layering: the rules core imports no interface (no terminal, web, command
line, learning or cluster code, and none of their libraries).  Every interface
goes through :class:`canasta.table.Table` and the core's public API."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "canasta"

#: the core: the rules engine and what it is made of, with the table every interface uses
CORE = (
    "cards", "errors", "moves", "melds", "rules", "scoring", "state", "family", "game", "classic", "italian",
    "movegen", "movegen_italian", "going_out", "position", "view", "record", "fairdeal", "match", "table",
    "reference", "selfcheck", "perft",
)
#: what the core may not import: the interfaces and their libraries
FORBIDDEN = (
    "canasta.tui", "canasta.web", "canasta.cli", "canasta.argtypes", "canasta.rl", "canasta.arena",
    "canasta.ladder", "canasta.cluster", "canasta.i18n",
    "textual", "rich", "fastapi", "starlette", "uvicorn", "websockets", "httpx", "httpx2", "sqlalchemy", "redis", "ray",
    "torch", "numpy", "gymnasium", "pettingzoo", "pyspiel", "babel",
)
#: the engine proper may not import the table, positions or views either (they are built on it)
ENGINE = ("cards", "errors", "moves", "melds", "rules", "scoring", "state", "family", "game", "classic", "italian",
          "movegen", "movegen_italian", "going_out")


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            if node.module == "canasta":
                out.update(f"canasta.{a.name}" for a in node.names)
    return out


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_core_modules_exist() -> None:
    for name in CORE:
        assert (SRC / f"{name}.py").is_file(), name


@pytest.mark.parametrize("name", CORE)
def test_core_imports_no_interface(name: str) -> None:
    bad = sorted(i for i in _imports(SRC / f"{name}.py") if _under(i, FORBIDDEN))
    assert not bad, f"canasta.{name} imports {bad}"


@pytest.mark.parametrize("name", ENGINE)
def test_engine_imports_only_the_engine(name: str) -> None:
    inside = {f"canasta.{n}" for n in ENGINE} | {"canasta"}
    bad = sorted(i for i in _imports(SRC / f"{name}.py") if i.startswith("canasta") and i not in inside
                 and i != "canasta.fairdeal")
    assert not bad, f"canasta.{name} imports {bad}"
