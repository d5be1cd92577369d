"""What the compiled build (mypyc, ``CANASTA_COMPILE=1``) needs from the source.

``COMPILED_MODULES`` lists the modules ``setup.py`` compiles to C extensions (it reads
the list from this file without importing the package); ``tests/test_compiled.py``
checks that each of them really is an extension module in a compiled install.

``mypyc_attr`` marks the classes an interpreted class may subclass once they are
compiled (a rule family from a plug-in subclasses :class:`canasta.engine.game.RuleFamily` or a
built-in family; the expert, external and policy bots subclass
:class:`canasta.bots.base.Bot`).  It comes from ``mypy_extensions`` when that is
installed and is a no-op otherwise: the pure-Python engine needs nothing outside the
standard library.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from importlib.machinery import EXTENSION_SUFFIXES
from typing import TypeVar

_T = TypeVar("_T")

#: the modules of the compiled engine, as paths under ``src/``
COMPILED_MODULES: tuple[str, ...] = (
    "canasta/engine/cards.py",
    "canasta/engine/moves.py",
    "canasta/engine/melds.py",
    "canasta/engine/scoring.py",
    "canasta/engine/state.py",
    "canasta/engine/family.py",
    "canasta/engine/options.py",
    "canasta/engine/plans.py",
    "canasta/engine/game.py",
    "canasta/engine/turns.py",
    "canasta/tools/bench.py",
    "canasta/families/classic/__init__.py",
    "canasta/families/classic/going_out.py",
    "canasta/families/classic/movegen.py",
    "canasta/families/classic/options.py",
    "canasta/families/classic/rules.py",
    "canasta/families/italian/__init__.py",
    "canasta/families/italian/going_out.py",
    "canasta/families/italian/melds.py",
    "canasta/families/italian/movegen.py",
    "canasta/families/italian/options.py",
    "canasta/families/italian/openings.py",
    "canasta/families/italian/refusals.py",
    "canasta/families/italian/rules.py",
    "canasta/families/italian/state.py",
    "canasta/families/american/__init__.py",
    "canasta/families/american/melds.py",
    "canasta/families/american/movegen.py",
    "canasta/families/american/openings.py",
    "canasta/families/american/options.py",
    "canasta/families/american/refusals.py",
    "canasta/families/american/rules.py",
    "canasta/families/american/scoring.py",
    "canasta/families/american/special.py",
    "canasta/families/american/state.py",
    "canasta/views/seat.py",
    "canasta/rl/actions.py",
    "canasta/rl/encoding.py",
    "canasta/rl/core.py",
    "canasta/bots/base.py",
    "canasta/bots/heuristic.py",
    "canasta/bots/inference.py",
    "canasta/bots/value.py",
)



def module_name(path: str) -> str:
    """``canasta/families/classic/__init__.py`` -> ``canasta.families.classic``."""
    parts = path.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def compiled_status() -> dict[str, bool]:
    """Each module of ``COMPILED_MODULES`` by name: whether it is (or, not imported yet, would
    be) loaded from an extension module.  Looked up, not imported: ``canasta.rl.encoding``
    needs numpy, and this module imports no engine module itself."""
    out = {}
    for path in COMPILED_MODULES:
        name = module_name(path)
        spec = importlib.util.find_spec(name)
        origin = (spec.origin if spec is not None else None) or ""
        out[name] = origin.endswith(tuple(EXTENSION_SUFFIXES))
    return out


def engine() -> str:
    """Which engine runs: "compiled" (every module of the list is an extension module),
    "pure" (none is), or "mixed" (a broken install: some compiled, some not)."""
    status = set(compiled_status().values())
    return "mixed" if len(status) > 1 else "compiled" if status == {True} else "pure"


try:
    from mypy_extensions import mypyc_attr as mypyc_attr
except ImportError:  # the pure-Python engine: the marks do nothing
    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[_T], _T]:
        def mark(cls: _T) -> _T:
            return cls

        return mark
