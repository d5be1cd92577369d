"""The layering.

* The rules core imports no interface (no terminal, web, command line, learning
  or cluster code, and none of their libraries); every interface goes through
  :class:`canasta.play.table.Table` and the core's public API.
* No import cycle anywhere in ``src/``.  An import under ``TYPE_CHECKING`` counts, but for one
  kind: the family contract (``canasta.engine.family``) and the turn's mechanics
  (``canasta.engine.turns``) name, for their annotations only, the ``Game`` they are given
  (``canasta.engine.game`` imports them); :data:`ANNOTATION_ONLY` lists such back-references,
  each of them checked to stay under ``TYPE_CHECKING``.
* The engine core imports no rule family; a family (a package under
  ``canasta.families``) imports the core and the families it extends (named in its
  package's ``EXTENDS``), never another; nothing outside the families imports one,
  except ``canasta/__init__.py``, which registers the built-in ones.
* The tools that measure and check (``canasta.tools``: perft, the reference
  enumerator, selfcheck, bench, soak, arena, ladder) stand apart from the engine:
  nothing of the engine, the families, the views, the play service or the bots
  imports them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "canasta"

#: the engine core (the package ``canasta.engine``): the rules machinery every family builds on
ENGINE = tuple(sorted(f"engine.{q.stem}" for q in (SRC / "engine").glob("*.py") if q.stem != "__init__"))
#: the core: the engine, with the views, the records, the match and the table every interface uses
SERVICE = ENGINE + ("engine", "views", "views.position", "views.seat", "play", "play.record", "play.match", "play.table")
#: the tools that check the engine (``canasta.tools``) and, like the core, use no interface
CHECKS = ("tools.reference", "tools.selfcheck", "tools.perft")
CORE = SERVICE + CHECKS
#: what the core may not import: the interfaces and their libraries
FORBIDDEN = (
    "canasta.tui", "canasta.web", "canasta.cli", "canasta.argtypes", "canasta.rl", "canasta.tools.arena",
    "canasta.tools.ladder", "canasta.cluster", "canasta.i18n", "canasta.present", "canasta.club", "openskill",
    "textual", "rich", "fastapi", "starlette", "uvicorn", "websockets", "httpx", "httpx2", "sqlalchemy", "redis", "ray",
    "torch", "numpy", "gymnasium", "pettingzoo", "pyspiel", "babel",
)
FAMILIES = "canasta.families"
#: imports made under ``TYPE_CHECKING`` alone, for annotations, that the cycle check leaves out
ANNOTATION_ONLY = {("canasta.engine.family", "canasta.engine.game"), ("canasta.engine.turns", "canasta.engine.game")}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


#: every module of the package, by dotted name
MODULES: dict[str, Path] = {_module_name(p): p for p in SRC.rglob("*.py")}


def _imports(path: Path) -> set[str]:
    """The modules of the package (or outside it) a file imports, anywhere in it
    (under ``TYPE_CHECKING`` and inside functions too).  ``from a import b``
    imports the module ``a.b`` when there is one, else ``a``."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.level:
                raise AssertionError(f"{path}: relative import of {node.module}")
            subs = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in MODULES]
            out.update(subs)
            if len(subs) < len(node.names):
                out.add(node.module)
    return out


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _family_of(module: str) -> str | None:
    """The family package a module belongs to (``canasta.families.classic``), or None."""
    if not module.startswith(FAMILIES + "."):
        return None
    return ".".join(module.split(".")[:3])


def test_core_modules_exist() -> None:
    for name in CORE:
        assert f"canasta.{name}" in MODULES, name


def _path(name: str) -> Path:
    return MODULES[f"canasta.{name}"]


@pytest.mark.parametrize("name", CORE)
def test_core_imports_no_interface(name: str) -> None:
    bad = sorted(i for i in _imports(_path(name)) if _under(i, FORBIDDEN))
    assert not bad, f"canasta.{name} imports {bad}"


@pytest.mark.parametrize("name", ENGINE)
def test_engine_imports_only_the_engine(name: str) -> None:
    inside = {f"canasta.{n}" for n in ENGINE} | {"canasta", "canasta.engine"}
    bad = sorted(i for i in _imports(_path(name)) if i.startswith("canasta") and i not in inside)
    assert not bad, f"canasta.{name} imports {bad}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_the_tools_stand_apart(module: str) -> None:
    """The tools that measure and check (``canasta.tools``) stand apart: the engine, the
    families, the views, the play service and the bots never import them; only the command
    line, the arena on Ray (``canasta.cluster``), the learning benchmarks and the tools
    themselves do."""
    users = ("canasta.tools", "canasta.cli", "canasta.cluster", "canasta.rl.bench")
    if _under(module, users):
        return
    bad = sorted(i for i in _imports(MODULES[module]) if _under(i, ("canasta.tools",)))
    assert not bad, f"{module} imports the tools {bad}"


def _type_checking_imports(path: Path) -> set[str]:
    """The modules a file imports inside ``if TYPE_CHECKING:`` blocks only."""
    inside: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for sub in node.body:
                if isinstance(sub, ast.ImportFrom) and sub.module:
                    inside.add(sub.module)
                elif isinstance(sub, ast.Import):
                    inside.update(a.name for a in sub.names)
    return inside


def _graph() -> dict[str, list[str]]:
    return {m: sorted(i for i in _imports(p) if i in MODULES and i != m and (m, i) not in ANNOTATION_ONLY)
            for m, p in MODULES.items()}


@pytest.mark.parametrize(("module", "target"), sorted(ANNOTATION_ONLY))
def test_annotation_only_imports_stay_under_type_checking(module: str, target: str) -> None:
    """The back-references the cycle check leaves out are imported for annotations alone: under
    ``TYPE_CHECKING``, never at run time (where they would make a real cycle)."""
    path = MODULES[module]
    assert target in _type_checking_imports(path), f"{module} no longer names {target}: drop it from ANNOTATION_ONLY"
    assert not _imported_outside(path, target), f"{module} imports {target} at run time: an import cycle"


def _imported_outside(path: Path, target: str) -> bool:
    """Whether ``path`` imports ``target`` outside its ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            guarded.update(id(sub) for sub in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.ImportFrom) and node.module == target:
            return True
        if isinstance(node, ast.Import) and any(a.name == target for a in node.names):
            return True
    return False


def test_no_import_cycle() -> None:
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def walk(m: str) -> None:
        state[m] = 1
        path.append(m)
        for n in graph[m]:
            if state.get(n) == 1:
                cycle = path[path.index(n):] + [n]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if n not in state:
                walk(n)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            walk(m)


def test_the_families_are_packages() -> None:
    for name in ("classic", "italian"):
        assert f"{FAMILIES}.{name}" in MODULES, name
        assert (SRC / "families" / name / "__init__.py").is_file()


def _extends(family: str) -> tuple[str, ...]:
    """The families a family package says it builds on: its ``__init__``'s ``EXTENDS``, a tuple
    of package names written as a literal (read without importing it)."""
    tree = ast.parse(MODULES[family].read_text(encoding="utf-8"))
    for node in tree.body:
        target: ast.expr
        expr: ast.expr | None
        if isinstance(node, ast.AnnAssign):
            target, expr = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, expr = node.targets[0], node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "EXTENDS" and expr is not None:
            value = ast.literal_eval(expr)
            assert isinstance(value, tuple) and all(isinstance(v, str) for v in value), (
                f"{family}.EXTENDS is a tuple of family packages")
            return value
    return ()


@pytest.mark.parametrize("module", sorted(MODULES))
def test_families_stand_alone(module: str) -> None:
    """A family imports the core, itself and the families it extends (its ``EXTENDS``) only;
    nothing else imports a family (but the package's ``__init__``, which registers the
    built-in ones, and the ``canasta.families`` package that lists them)."""
    own = _family_of(module)
    for imported in _imports(MODULES[module]):
        other = _family_of(imported)
        if other is None:
            continue
        if own is not None:
            assert other == own or other in _extends(own), (
                f"the family {own} imports {imported}, but does not name {other} in its EXTENDS")
        else:
            assert module in ("canasta", FAMILIES), f"{module} imports the family module {imported}"


def test_extends_names_families_without_a_circle() -> None:
    """What a family extends is a family, and no family extends itself, directly or not."""
    families = sorted({f for m in MODULES if (f := _family_of(m)) is not None})
    for family in families:
        seen: list[str] = [family]
        todo = list(_extends(family))
        while todo:
            base = todo.pop()
            assert base in families, f"{family} extends {base}, which is not a family package"
            assert base not in seen, f"{family}: a circle of EXTENDS through {base}"
            seen.append(base)
            todo.extend(_extends(base))
