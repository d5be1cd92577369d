"""Rule sets as data: every option of the specification, and named presets.

A :class:`RuleSet` is frozen.  Build one from a preset name and overrides::

    rules = RuleSet.preset("classic-4p")
    rules = RuleSet.preset("classic-4p", {"C-O1": "max3_only", "target": 3000})
    rules = load_rules("house.toml")

Overrides may be given by option id (``"C-O1"``) or by field name
(``"wild_ratio"``).  Unknown names, wrong types and inconsistent combinations
raise :class:`~canasta.errors.RulesError` with a message that says what to fix.
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from canasta.errors import RulesError


@dataclass(frozen=True)
class OptionInfo:
    """One named option of the specification (``C-Oxx`` / ``I-Oxx``)."""

    id: str
    field: str
    topic: str
    choices: tuple[Any, ...]  # allowed values; the first is the sourced default
    rule: str  # spec section
    sources: str


CLASSIC_OPTIONS: Final[tuple[OptionInfo, ...]] = (
    OptionInfo("C-O1", "wild_ratio", "Wild cards in a meld",
               ("no_more_wild_than_natural", "max3_only"), "A.5.4", "SEED-001, SEED-004, WIKI"),
    OptionInfo("C-O2", "black_three_freezes", "A discarded black three freezes the pile",
               (False, True), "A.8.2", "SEED-003, PAG, DUM"),
    OptionInfo("C-O3", "black_three_upcard_covered", "A black-three upcard is covered by another card",
               (True, False), "A.3.3", "SEED-001, SEED-004, BIC"),
    OptionInfo("C-O4", "red_three_last_card_may_meld",
               "A player who draws a red three as the last stock card may still meld",
               (False, True), "A.13.1", "PAG, BIC"),
    OptionInfo("C-O5", "concealed_out_exempt_from_minimum",
               "Going out concealed is exempt from the minimum count", (True, False), "A.7.7", "PAG"),
    OptionInfo("C-O6", "concealed_out_may_take_pile",
               "Going out concealed may take the discard pile", (True, False), "A.12.6", "PAG"),
    OptionInfo("C-O7", "negative_red_threes", "Red threes count minus when the side has",
               ("no_meld", "no_canasta"), "A.10.3", "PAG, BIC, BRIT"),
    OptionInfo("C-O8", "dealt_red_threes", "Dealt red threes are laid out and replaced",
               ("immediately_after_deal", "on_first_turn"), "A.3.4", "SEED-001, SEED-003, SEED-004"),
    OptionInfo("C-O9", "tie_at_target", "Exact tie at or above the target",
               ("play_another_hand", "draw"), "A.15.2", "no source; 'draw' is a house choice"),
    OptionInfo("C-O10", "cutthroat", "Three-player cut-throat (lone hand against two partners)",
               (False, True), "A.17.2", "RG3"),
    OptionInfo("C-O11", "six_as_three_pairs", "Six players as three partnerships of two",
               (False, True), "A.18.5", "RG6"),
    OptionInfo("C-O12", "concealed_out_may_add_to_partner",
               "Going out concealed may add to the partner's melds in that turn",
               (False, True), "A.12.6", "no source either way"),
    OptionInfo("C-O13", "red_three_upcard_freezes", "A red three turned as upcard freezes the pile",
               (False, True), "A.3.3", "SEED-001, SEED-004"),
    OptionInfo("C-O14", "concealed_canasta_bonus",
               "Concealed canasta bonus (+100: 600 natural, 400 mixed)", (True, False), "A.6.7",
               "SEED-001, SEED-004"),
)

OPTIONS_BY_ID: Final = {o.id: o for o in CLASSIC_OPTIONS}
OPTIONS_BY_FIELD: Final = {o.field: o for o in CLASSIC_OPTIONS}

CLASSIC_MINIMUMS: Final = ((-10**9, 15), (0, 50), (1500, 90), (3000, 120))
SIX_PLAYER_MINIMUMS: Final = CLASSIC_MINIMUMS + ((7500, 150),)
#: total red-three points by the number a side holds (A.10.2 / A.18.3)
CLASSIC_RED_THREES: Final = (0, 100, 200, 300, 800)
SIX_PLAYER_RED_THREES: Final = (0, 100, 200, 300, 400, 1000, 1200)


@dataclass(frozen=True)
class RuleSet:
    """Every rule that can vary, as data.  Presets fill it; nothing else is hidden."""

    name: str = "classic-4p"
    family: str = "classic"
    players: int = 4
    packs: int = 2
    hand_size: int = 11
    draw_count: int = 1
    canastas_to_go_out: int = 1
    target: int = 5000
    minimum_table: tuple[tuple[int, int], ...] = CLASSIC_MINIMUMS
    red_three_values: tuple[int, ...] = CLASSIC_RED_THREES
    # the options C-O1 ... C-O14
    wild_ratio: str = "no_more_wild_than_natural"
    black_three_freezes: bool = False
    black_three_upcard_covered: bool = True
    red_three_last_card_may_meld: bool = False
    concealed_out_exempt_from_minimum: bool = True
    concealed_out_may_take_pile: bool = True
    negative_red_threes: str = "no_meld"
    dealt_red_threes: str = "immediately_after_deal"
    tie_at_target: str = "play_another_hand"
    cutthroat: bool = False
    six_as_three_pairs: bool = False
    concealed_out_may_add_to_partner: bool = False
    red_three_upcard_freezes: bool = False
    concealed_canasta_bonus: bool = True
    # derived, not part of the rules file
    teams: tuple[tuple[int, ...], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        _validate(self)
        if not self.teams:
            object.__setattr__(self, "teams", _teams_for(self))

    # -- construction ---------------------------------------------------------

    @staticmethod
    def preset(name: str = "classic-4p", overrides: Mapping[str, Any] | None = None) -> RuleSet:
        """A named preset, optionally with option overrides (by id or field name)."""
        key = name.strip().lower().replace("_", "-")
        if key not in PRESETS:
            raise RulesError(
                f"unknown rules preset {name!r}; choose one of: {', '.join(sorted(PRESETS))}"
            )
        base = PRESETS[key]
        return base.with_options(overrides) if overrides else base

    def with_options(self, overrides: Mapping[str, Any]) -> RuleSet:
        """A copy with options changed.  Options that imply other settings
        (cut-throat, three pairs of six) adjust them unless given explicitly."""
        if not isinstance(overrides, Mapping):
            raise RulesError("rule overrides must be a table of option = value")
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            fname = _field_name(key)
            changes[fname] = _coerce(fname, value)
        implied: dict[str, Any] = {}
        if changes.get("cutthroat") is True and not self.cutthroat:
            implied.update(draw_count=2, canastas_to_go_out=2, target=7500)
        if changes.get("six_as_three_pairs") is True and not self.six_as_three_pairs:
            implied.update(target=7500)
        for k, v in implied.items():
            changes.setdefault(k, v)
        if "name" not in changes and changes:
            changes["name"] = self.name
        try:
            return dataclasses.replace(self, teams=(), **changes)
        except TypeError as exc:  # pragma: no cover - guarded by _field_name
            raise RulesError(str(exc)) from None

    # -- queries ---------------------------------------------------------------

    @property
    def num_sides(self) -> int:
        return len(self.teams)

    @property
    def deck_size(self) -> int:
        return self.packs * 54

    def option_values(self) -> dict[str, Any]:
        """``{'C-O1': ..., ...}`` for the options of this family."""
        return {o.id: getattr(self, o.field) for o in CLASSIC_OPTIONS}

    def non_default_options(self) -> dict[str, Any]:
        return {
            o.id: getattr(self, o.field)
            for o in CLASSIC_OPTIONS
            if getattr(self, o.field) != o.choices[0]
        }

    def minimum_for(self, score: int) -> int:
        """Initial-meld minimum for a side with this cumulative score (A.7.1)."""
        m = self.minimum_table[0][1]
        for low, value in self.minimum_table:
            if score >= low:
                m = value
        return m

    def red_three_points(self, count: int) -> int:
        """Face value of ``count`` red threes held by one side (A.10.2 / A.18.3)."""
        table = self.red_three_values
        if count < len(table):
            return table[count]
        return table[-1] + (count - len(table) + 1) * 100

    # -- files -----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A complete, self-describing mapping (the rules-file content)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "teams":
                continue
            value = getattr(self, f.name)
            if f.name == "minimum_table":
                value = [list(p) for p in value]
            elif f.name == "red_three_values":
                value = list(value)
            out[f.name] = value
        return out

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> RuleSet:
        """Read a rules mapping: ``preset`` (or ``name``) plus overrides.  An
        ``options`` sub-table of option ids is accepted too."""
        if not isinstance(data, Mapping):
            raise RulesError("a rules file must hold a table of settings")
        data = dict(data)
        preset = data.pop("preset", None)
        name = data.pop("name", None)
        if preset is not None and not isinstance(preset, str):
            raise RulesError("'preset' must be a preset name such as 'classic-4p'")
        if name is not None and not isinstance(name, str):
            raise RulesError("'name' must be text")
        options = data.pop("options", {})
        if not isinstance(options, Mapping):
            raise RulesError("'options' must be a table such as {\"C-O1\": \"max3_only\"}")
        base = preset or (name if name and name.lower() in PRESETS else "classic-4p")
        rules = RuleSet.preset(base, {**data, **options})
        if name and name != rules.name:
            rules = dataclasses.replace(rules, name=name, teams=())
        return rules

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_toml(self) -> str:
        lines = ["# canasta rules file"]
        for key, value in self.to_dict().items():
            lines.append(f"{key} = {_toml_value(value)}")
        return "\n".join(lines) + "\n"

    def describe(self) -> list[tuple[str, str, str]]:
        """(option id, topic, value and whether it is the sourced default), for rule screens."""
        rows = []
        for o in CLASSIC_OPTIONS:
            v = getattr(self, o.field)
            mark = "default" if v == o.choices[0] else f"house rule (default {o.choices[0]!r})"
            rows.append((o.id, o.topic, f"{v!r} [{mark}; {o.rule}; {o.sources}]"))
        return rows


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise RulesError(f"cannot write {value!r} to TOML")  # pragma: no cover


_FIELD_TYPES: Final = {
    f.name: f.type for f in dataclasses.fields(RuleSet) if f.name != "teams"
}


def _field_name(key: str) -> str:
    if not isinstance(key, str):
        raise RulesError(f"option names must be text, not {key!r}")
    k = key.strip()
    if k.upper() in OPTIONS_BY_ID:
        return OPTIONS_BY_ID[k.upper()].field
    k2 = k.replace("-", "_")
    if k2 in _FIELD_TYPES:
        return k2
    known = ", ".join(sorted(OPTIONS_BY_ID)) + ", " + ", ".join(sorted(_FIELD_TYPES))
    raise RulesError(f"unknown rule option {key!r}; known options: {known}")


def _coerce(fname: str, value: Any) -> Any:
    opt = OPTIONS_BY_FIELD.get(fname)
    if opt is not None:
        if value not in opt.choices or type(value) is not type(opt.choices[0]):
            choices = " or ".join(repr(c) for c in opt.choices)
            raise RulesError(f"option {opt.id} ({fname}) must be {choices}, not {value!r}")
        return value
    ftype = _FIELD_TYPES[fname]
    if ftype == "int":
        if type(value) is not int:
            raise RulesError(f"{fname} must be a whole number, not {value!r}")
        return value
    if ftype == "str":
        if not isinstance(value, str):
            raise RulesError(f"{fname} must be text, not {value!r}")
        return value
    if fname == "minimum_table":
        try:
            pairs = tuple((int(a), int(b)) for a, b in value)
        except (TypeError, ValueError):
            raise RulesError(
                "minimum_table must be a list of [score, minimum] pairs, e.g. [[0, 50], [1500, 90]]"
            ) from None
        if any(isinstance(x, bool) for p in value for x in p):
            raise RulesError("minimum_table entries must be numbers")
        return pairs
    if fname == "red_three_values":
        if not isinstance(value, (list, tuple)) or not all(
            type(v) is int for v in value
        ):
            raise RulesError("red_three_values must be a list of whole numbers, e.g. [0, 100, 200, 300, 800]")
        return tuple(value)
    raise RulesError(f"cannot set {fname}")  # pragma: no cover


def _validate(r: RuleSet) -> None:
    if r.family != "classic":
        raise RulesError(f"unknown rules family {r.family!r}; this version knows 'classic'")
    if r.players not in (2, 3, 4, 6):
        raise RulesError(f"Classic Canasta is for 2, 3, 4 or 6 players, not {r.players}")
    if r.packs not in (2, 3):
        raise RulesError(f"packs must be 2 or 3, not {r.packs}")
    if r.cutthroat and r.players != 3:
        raise RulesError("the cut-throat option (C-O10) needs exactly 3 players")
    if r.six_as_three_pairs and r.players != 6:
        raise RulesError("three partnerships of two (C-O11) needs exactly 6 players")
    if r.draw_count not in (1, 2):
        raise RulesError(f"draw_count must be 1 or 2, not {r.draw_count}")
    if not 1 <= r.hand_size <= 20:
        raise RulesError(f"hand_size must be between 1 and 20, not {r.hand_size}")
    if r.players * r.hand_size + 10 > r.deck_size:
        raise RulesError(
            f"{r.players} hands of {r.hand_size} cards do not leave a stock in a {r.deck_size}-card pack"
        )
    if not 1 <= r.canastas_to_go_out <= 5:
        raise RulesError(f"canastas_to_go_out must be between 1 and 5, not {r.canastas_to_go_out}")
    if r.target <= 0:
        raise RulesError(f"target must be positive, not {r.target}")
    if not r.minimum_table or any(b < 0 for _, b in r.minimum_table):
        raise RulesError("minimum_table must list at least one [score, minimum] pair with minimum >= 0")
    lows = [a for a, _ in r.minimum_table]
    if lows != sorted(lows):
        raise RulesError("minimum_table must be sorted by score")
    if not r.red_three_values or r.red_three_values[0] != 0:
        raise RulesError("red_three_values must start with 0 (no red threes)")


def _teams_for(r: RuleSet) -> tuple[tuple[int, ...], ...]:
    n = r.players
    if n == 4:
        return ((0, 2), (1, 3))
    if n == 6:
        if r.six_as_three_pairs:
            return ((0, 3), (1, 4), (2, 5))
        return ((0, 2, 4), (1, 3, 5))
    return tuple((s,) for s in range(n))


def _preset(**kw: Any) -> RuleSet:
    return RuleSet(**kw)


PRESETS: Final[dict[str, RuleSet]] = {
    "classic-4p": _preset(name="classic-4p"),
    "classic-2p": _preset(name="classic-2p", players=2, hand_size=15, draw_count=2,
                          canastas_to_go_out=2),
    "classic-3p": _preset(name="classic-3p", players=3, hand_size=13),
    "classic-6p": _preset(name="classic-6p", players=6, packs=3, hand_size=13,
                          canastas_to_go_out=2, target=10000,
                          minimum_table=SIX_PLAYER_MINIMUMS,
                          red_three_values=SIX_PLAYER_RED_THREES),
}
PRESETS["classic-3p-cutthroat"] = dataclasses.replace(
    PRESETS["classic-3p"].with_options({"C-O10": True}), name="classic-3p-cutthroat", teams=()
)
PRESETS["classic-6p-3x2"] = dataclasses.replace(
    PRESETS["classic-6p"].with_options({"C-O11": True}), name="classic-6p-3x2", teams=()
)


def load_rules(path: str | Path) -> RuleSet:
    """Read a rules file (``.toml`` or ``.json``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesError(f"cannot read rules file {str(p)!r}: {exc.strerror}") from None
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RulesError(f"rules file {str(p)!r} is not valid {p.suffix.lstrip('.') or 'TOML'}: {exc}") from None
    return RuleSet.from_dict(data)


def save_rules(rules: RuleSet, path: str | Path) -> None:
    p = Path(path)
    text = rules.to_json() + "\n" if p.suffix.lower() == ".json" else rules.to_toml()
    p.write_text(text, encoding="utf-8")


def resolve_rules(spec: str) -> RuleSet:
    """A preset name or a path to a rules file."""
    if spec.strip().lower().replace("_", "-") in PRESETS:
        return RuleSet.preset(spec)
    if Path(spec).suffix.lower() in (".toml", ".json"):
        return load_rules(spec)
    raise RulesError(
        f"unknown rules {spec!r}: give a preset ({', '.join(sorted(PRESETS))}) or a .toml/.json rules file"
    )
