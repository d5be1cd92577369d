"""Pickling and copying the compiled engine's objects the way the pure engine's pickle.

A class compiled by mypyc cannot be made without running its constructor (``cls.__new__``
runs ``__init__``), which is how pickle and ``copy`` rebuild an object by default: a
``Move``, a ``Meld`` or a ``Game`` would not unpickle, nor deep-copy (a ``Match``, an
OpenSpiel state).  With the compiled engine, :func:`register` (called by ``canasta/__init__.py``
for the engine, and by each other compiled module for itself) gives each compiled class a
reducer (``copyreg``, which both pickle and ``copy`` consult): the constructor called with
what it needs, then every attribute set from the object's state.  The pure engine is left
alone (nothing is registered), so its pickles are what they always were.
"""

from __future__ import annotations

import contextlib
import copyreg
import dataclasses
import sys
from collections.abc import Callable, Sequence
from typing import Any

from canasta.engine.native import COMPILED_MODULES, engine, module_name

#: how to construct a blank object of a class whose constructor needs arguments, from the
#: state about to be set on it (by class name; other classes take no argument)
_BLANK: dict[str, Callable[[type[Any], dict[str, Any]], Any]] = {
    "Move": lambda cls, s: cls(s["kind"]),
    "Meld": lambda cls, s: cls(s["rank"]),
    "Game": lambda cls, s: cls(s["rules"], deal=False),
    "LegalMoves": lambda cls, s: cls(s["_game"]),
    "ItalianState": lambda cls, s: cls(len(s["closed"])),
    "AmericanState": lambda cls, s: cls(len(s["opened_turn"])),
    "Decision": lambda cls, s: cls(s["game"]),
}


def rebuild(cls: type[Any], state: dict[str, Any]) -> Any:
    """A compiled object from its class and state (the inverse of :func:`_reduce`)."""
    if dataclasses.is_dataclass(cls) and cls.__name__ not in _BLANK:
        fields = dataclasses.fields(cls)
        obj = cls(**{f.name: state[f.name] for f in fields if f.init})
        rest = {k: v for k, v in state.items() if k not in {f.name for f in fields if f.init}}
    else:
        make = _BLANK.get(cls.__name__)
        obj = make(cls, state) if make is not None else cls()
        rest = state
    for name, value in rest.items():
        object.__setattr__(obj, name, value)
    return obj


def _state(obj: Any) -> dict[str, Any]:
    names: tuple[str, ...] = getattr(type(obj), "__mypyc_attrs__", ())
    out = {}
    for name in names:
        if name == "__dict__":
            continue
        with contextlib.suppress(AttributeError):  # an attribute never set is left out
            out[name] = getattr(obj, name)
    return out


def _reduce(obj: Any) -> tuple[Any, ...]:
    return (rebuild, (type(obj), _state(obj)))


def compiled_classes(modules: Sequence[str] | None = None) -> list[type[Any]]:
    """The native (compiled) classes defined in ``modules`` (by name; by default the modules of
    ``COMPILED_MODULES`` imported so far), except those that say how they pickle themselves."""
    names = [module_name(p) for p in COMPILED_MODULES] if modules is None else list(modules)
    out = []
    for name in names:
        module = sys.modules.get(name)
        if module is None:
            continue
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == name and hasattr(value, "__mypyc_attrs__") \
                    and "__reduce__" not in vars(value):
                out.append(value)
    return out


def register(modules: Sequence[str] | None = None) -> int:
    """With the compiled engine, a reducer for every compiled class of ``modules`` (see
    :func:`compiled_classes`); returns how many were registered."""
    if engine() != "compiled":
        return 0
    classes = compiled_classes(modules)
    for cls in classes:
        copyreg.pickle(cls, _reduce)
    return len(classes)
