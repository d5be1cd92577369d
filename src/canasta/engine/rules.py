"""Rule sets as data: the record of every option, and the registries of named options and presets.

Each rule family's package names its options and presets (``canasta.families.classic.options``,
``canasta.families.italian.options``) and registers them here (:func:`register_rules_family`,
:func:`add_presets`) when it is imported, as ``import canasta`` does.

A :class:`RuleSet` is frozen.  Build one from a preset name and overrides::

    rules = RuleSet.preset("classic-4p")
    rules = RuleSet.preset("classic-4p", {"C-O1": "max3_only", "target": 3000})
    rules = load_rules("house.toml")

Overrides may be given by option id (``"C-O1"``) or by field name
(``"wild_ratio"``).  Unknown names, wrong types and inconsistent combinations
raise :class:`~canasta.engine.errors.RulesError` with a message that says what to fix.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import tomllib
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, Protocol

from canasta.engine.errors import RulesError, read_text
from canasta.engine.files import write_text_atomic


@dataclass(frozen=True)
class OptionInfo:
    """One named option of the specification (``C-Oxx`` / ``I-Oxx``)."""

    id: str
    field: str
    topic: str
    choices: tuple[Any, ...]  # allowed values; the first is the sourced default
    rule: str  # spec section
    sources: str


#: every named option of the registered families (each family's package registers its own:
#: :func:`register_rules_family`), in the order they were registered
ALL_OPTIONS: Final[list[OptionInfo]] = []
OPTIONS_BY_ID: Final[dict[str, OptionInfo]] = {}
OPTIONS_BY_FIELD: Final[dict[str, OptionInfo]] = {}
#: the named options of each rule family, by family name
FAMILY_OPTIONS: Final[dict[str, tuple[OptionInfo, ...]]] = {}
#: per family: the player counts it is for, and the preset a rules file of it starts from
FAMILY_PLAYERS: Final[dict[str, tuple[int, ...]]] = {}
FAMILY_START: Final[dict[str, str]] = {}
#: per family that declares one: the record of its own options (:class:`RulesPart`)
FAMILY_PART: Final[dict[str, type[Any]]] = {}
#: the fields of every family's own options record, and the family that owns each
_PART_FIELDS: Final[dict[str, str]] = {}
#: the fields of each family's named options (what :meth:`RuleSet.has_option` asks)
_FAMILY_FIELDS: Final[dict[str, frozenset[str]]] = {}

CLASSIC_MINIMUMS: Final = ((-10**9, 15), (0, 50), (1500, 90), (3000, 120))
SIX_PLAYER_MINIMUMS: Final = CLASSIC_MINIMUMS + ((7500, 150),)
#: total red-three points by the number a side holds (A.10.2 / A.18.3)
CLASSIC_RED_THREES: Final = (0, 100, 200, 300, 800)
SIX_PLAYER_RED_THREES: Final = (0, 100, 200, 300, 400, 1000, 1200)


# -- the choices of the options that are words (checked against OPTIONS by tests/test_rules_literals)
WildRatio = Literal["no_more_wild_than_natural", "max3_only"]  # C-O1
NegativeRedThrees = Literal["no_meld", "no_canasta"]  # C-O7
DealtRedThrees = Literal["immediately_after_deal", "on_first_turn"]  # C-O8
TieAtTarget = Literal["play_another_hand", "draw"]  # C-O9
Direction = Literal["clockwise", "counter_clockwise"]  # the direction of play (Italian names it I-O19)

_WORD_TYPES: Final = frozenset(n for n, v in list(globals().items()) if typing.get_origin(v) is Literal)


class RulesPart(Protocol):
    """A family's own options: a frozen dataclass its package declares, one field per named
    option of the family that the shared :class:`RuleSet` fields do not hold (Italian:
    ``canasta.families.italian.options.ItalianRules``), registered with the family
    (:func:`register_rules_family`).  A rules file writes its fields beside the shared ones;
    :meth:`RuleSet.get` reads either.  Its methods say where the family's options change
    what the shared record means (each answers None where they do not)."""

    def check(self, rules: RuleSet) -> None:
        """Refuse an inconsistent combination (:class:`~canasta.engine.errors.RulesError`)."""

    def teams(self, rules: RuleSet) -> tuple[tuple[int, ...], ...] | None:
        """The sides, when the family's options seat them."""

    def minimums(self, rules: RuleSet) -> tuple[tuple[int, int], ...] | None:
        """The opening minimum by score, when the family's options give it."""

    def red_three_points(self, rules: RuleSet) -> tuple[int, ...] | None:
        """Red-three points by count, when the family's options give them."""

    # the three questions below came later: a part may leave them out (RuleSet._asked)

    def tie_at_target(self, rules: RuleSet) -> TieAtTarget | None:
        """What an exact tie for the lead ends as, when the family's options say (C-O9's choices)."""

    def match_hands(self, rules: RuleSet) -> int | None:
        """The number of hands a match lasts, when the family's options fix it (None: to the target)."""

    def hand_minimums(self, rules: RuleSet) -> tuple[int, ...] | None:
        """The initial-meld minimum of the match's first, second ... hand (the last for any
        later hand), when the family's options give it by the hand rather than by the score."""


@dataclass(frozen=True)
class RuleSet:
    """Every rule that can vary, as data.  Presets fill it; nothing else is hidden."""

    name: str = "classic-4p"
    family: str = "classic"  # a registered family: "classic", "italian", or one of register_rules_family
    players: int = 4
    packs: int = 2
    hand_size: int = 11
    draw_count: int = 1
    canastas_to_go_out: int = 1
    target: int = 5000
    minimum_table: tuple[tuple[int, int], ...] = CLASSIC_MINIMUMS
    red_three_values: tuple[int, ...] = CLASSIC_RED_THREES
    # the options C-O1 ... C-O14
    wild_ratio: WildRatio = "no_more_wild_than_natural"
    black_three_freezes: bool = False
    black_three_upcard_covered: bool = True
    red_three_last_card_may_meld: bool = False
    concealed_out_exempt_from_minimum: bool = True
    concealed_out_may_take_pile: bool = True
    negative_red_threes: NegativeRedThrees = "no_meld"
    dealt_red_threes: DealtRedThrees = "immediately_after_deal"
    tie_at_target: TieAtTarget = "play_another_hand"
    cutthroat: bool = False
    six_as_three_pairs: bool = False
    concealed_out_may_add_to_partner: bool = False
    red_three_upcard_freezes: bool = False
    concealed_canasta_bonus: bool = True
    direction: Direction = "clockwise"  # the way the turn passes (a family may name it an option: I-O19)
    #: the family's own options (Italian: I-O1 ...), a record its package declares
    #: (:class:`RulesPart`); None for a family whose options are all fields above
    part: RulesPart | None = None
    # derived, not part of the rules file
    teams: tuple[tuple[int, ...], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if self.part is None and self.family in FAMILY_PART:
            object.__setattr__(self, "part", FAMILY_PART[self.family]())
        _validate(self)
        if not self.teams:
            object.__setattr__(self, "teams", _teams_for(self))
        object.__setattr__(self, "_hash", self._field_hash())

    # -- its own key: a rule set is the key of the answers kept for it (the going-out
    # search's caches), so its hash is computed once, not from its ~70 fields at every lookup

    def _field_hash(self) -> int:
        return hash(tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare))

    def __hash__(self) -> int:
        kept: int = self.__dict__["_hash"]  # (no typing.cast: a call at every cache lookup)
        return kept

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_hash", None)  # string hashes differ between processes: computed again on loading
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        object.__setattr__(self, "_hash", self._field_hash())

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
        own: dict[str, Any] = {}  # changes of the family's own options (its part)
        for key, value in overrides.items():
            fname = _field_name(key)
            value = _coerce(fname, value)
            if fname not in _PART_FIELDS:
                changes[fname] = value
            elif _PART_FIELDS[fname] == self.family:
                own[fname] = value
            elif value != OPTIONS_BY_FIELD[fname].choices[0]:  # another family's option, at its default: moot
                raise _foreign(OPTIONS_BY_FIELD[fname], self.family)
        family = changes.get("family", self.family)
        if family != self.family:
            if family not in FAMILY_OPTIONS:
                raise RulesError(f"unknown rules family {_shown(family)}; choose {_families_named()}")
            raise RulesError(f"the {self.family} rules {_shown(self.name)} cannot become {family}: "
                             f"start from {_family_preset(family)}")
        if own:
            changes["part"] = dataclasses.replace(self.part, **own)  # type: ignore[type-var]  # a dataclass
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

    def has_option(self, field: str) -> bool:
        """Whether ``field`` (a :class:`RuleSet` field) is a named option of this rule set's family."""
        return field in _FAMILY_FIELDS[self.family]

    @property
    def options(self) -> tuple[OptionInfo, ...]:
        """The named options of this rule set's family."""
        return FAMILY_OPTIONS[self.family]

    def get(self, field: str) -> Any:
        """The value of an option's field (:attr:`OptionInfo.field`), a shared field or one
        of the family's own (:attr:`part`)."""
        if field in _PART_FIELDS:
            if _PART_FIELDS[field] != self.family:
                return OPTIONS_BY_FIELD[field].choices[0]
            return getattr(self.part, field)
        return getattr(self, field)

    @property
    def deck_size(self) -> int:
        return self.packs * 54

    def option_values(self) -> dict[str, Any]:
        """``{'C-O1': ..., ...}`` for the options of this family."""
        return {o.id: self.get(o.field) for o in self.options}

    def non_default_options(self) -> dict[str, Any]:
        return {
            o.id: self.get(o.field)
            for o in self.options
            if self.get(o.field) != o.choices[0]
        }

    def minimum_for(self, score: int, hand_number: int = 0) -> int:
        """Initial-meld (opening) minimum for a side with this cumulative score
        (A.7.1; B.9.1 with I-O5, I-O6 and I-O34), in the match's hand ``hand_number`` where the
        family's options give the minimum by the hand (0: by the score alone)."""
        table = self.minimum_table
        if self.part is not None:
            by_hand: tuple[int, ...] | None = self._asked("hand_minimums") if hand_number > 0 else None
            if by_hand:
                return by_hand[min(hand_number, len(by_hand)) - 1]
            table = self.part.minimums(self) or table
        m = table[0][1]
        for low, value in table:
            if score >= low:
                m = value
        return m

    def tie_rule(self) -> TieAtTarget:
        """What an exact tie for the lead at the match's end is (C-O9, or the family's option)."""
        own: TieAtTarget | None = self._asked("tie_at_target")
        return own or self.tie_at_target

    def hands_in_match(self) -> int:
        """The hands a match lasts when the rules fix their number; 0: the match is to the target."""
        own: int | None = self._asked("match_hands")
        return own or 0

    def _asked(self, question: str) -> Any:
        """The family part's answer to one of :class:`RulesPart`'s later questions, None where
        the part does not ask it (a plug-in's part written before them)."""
        ask = getattr(self.part, question, None)
        return ask(self) if ask is not None else None

    def red_three_points(self, count: int) -> int:
        """Face value of ``count`` red threes held by one side (A.10.2, A.18.3, B.11.2)."""
        table = self.red_three_values
        if self.part is not None:
            table = self.part.red_three_points(self) or table
        if count < len(table):
            return table[count]
        return table[-1] + (count - len(table) + 1) * 100

    # -- files -----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A complete, self-describing mapping (the rules-file content)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name in ("teams", "part"):
                continue
            value = getattr(self, f.name)
            if f.name == "minimum_table":
                value = [list(p) for p in value]
            elif f.name == "red_three_values":
                value = list(value)
            out[f.name] = value
        if self.part is not None:
            for f in dataclasses.fields(self.part):  # type: ignore[arg-type]  # a dataclass (RulesPart)
                out[f.name] = getattr(self.part, f.name)
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
        family = data.get("family")
        named = preset or (name if name and name.lower() in PRESETS else None)
        if named is not None and isinstance(family, str) and named.strip().lower() in PRESETS:
            preset_family = PRESETS[named.strip().lower()].family
            if family != preset_family and family in FAMILY_OPTIONS:
                raise RulesError(f"family = {_shown(family)} does not match the {preset_family} preset "
                                 f"{_shown(named)}: start from {_family_preset(family)} "
                                 "or remove the family line")
        if named is None and name and family is None:
            raise RulesError(f"name = {_shown(name)} does not say which game it is: add preset = \"classic-4p\" "
                             f"(or another preset: {', '.join(sorted(PRESETS))}) to start from")
        if named is None:
            named = FAMILY_START.get(str(family), "classic-4p")
        rules = RuleSet.preset(named, {**data, **options})
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
        for o in self.options:
            v = self.get(o.field)
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


_FIELD_TYPES: Final = {  # a Literal of words is text
    f.name: "str" if isinstance(f.type, str) and f.type in _WORD_TYPES else f.type
    for f in dataclasses.fields(RuleSet) if f.name not in ("teams", "part")
}


def _field_name(key: str) -> str:
    if not isinstance(key, str):
        raise RulesError(f"option names must be text, not {key!r}")
    k = key.strip()
    if k.upper() in OPTIONS_BY_ID:
        return OPTIONS_BY_ID[k.upper()].field
    k2 = k.replace("-", "_")
    if k2 in _FIELD_TYPES or k2 in _PART_FIELDS:
        return k2
    raise RulesError(f"unknown rule option {key!r}; {_nearest_options(k)}")


def _nearest_options(key: str) -> str:
    """``did you mean C-O9 or I-O9?`` and where the full list is."""
    names = {o.id: o.id for o in ALL_OPTIONS}
    names.update({f: f for f in [*_FIELD_TYPES, *_PART_FIELDS]})
    by_folded = {n.upper().replace("-", "_"): n for n in names}
    folded = key.upper().replace("-", "_")
    close = [by_folded[m] for m in difflib.get_close_matches(folded, list(by_folded), n=3, cutoff=0.6)]
    hint = "'canasta rules' (or 'canasta rules italian-4p') lists every option"
    if not close:
        return hint
    said = close[0] if len(close) == 1 else ", ".join(close[:-1]) + " or " + close[-1]
    return f"did you mean {said}? {hint}"


def _family_preset(family: str) -> str:
    """Where to start for a family, as a rules file says it."""
    return f'a{"n" if family[:1] in "aeiou" else ""} {family} preset (e.g. preset = "{FAMILY_START[family]}")'


def _families_named() -> str:
    return " or ".join(f'"{f}"' for f in FAMILY_OPTIONS)


def register_rules_family(name: str, options: tuple[OptionInfo, ...], players: tuple[int, ...], start: str,
                          part: type[Any] | None = None) -> None:
    """Make rule sets of a new family valid: its named options, the player counts it is for,
    the preset its rules files start from (then :func:`add_presets` adds its presets) and,
    when some of its options are not fields of :class:`RuleSet` (shared with the families it
    borrows them from), the record of its own (``part``: a frozen dataclass, see
    :class:`RulesPart`, each field the field of one of ``options``, its default the option's
    first choice).  The family that plays them registers with :func:`canasta.engine.game.register_family`."""
    named = {o.field: o for o in options}
    shared = {f.name for f in dataclasses.fields(RuleSet)}
    own: tuple[str, ...] = ()
    if part is not None:
        own = tuple(f.name for f in dataclasses.fields(part))
        default = part()
        for f in own:
            if f not in named or f in shared:
                raise RulesError(f"the {name} family's own option field {f!r} must be the field of one of its "
                                 "named options and not a shared field")
            if getattr(default, f) != named[f].choices[0]:
                raise RulesError(f"the {name} family's {f} must default to its option's first choice")
        taken = [f for f in own if _PART_FIELDS.get(f, name) != name]
        if taken:
            raise RulesError(f"the {name} family's options {', '.join(taken)} are another family's already")
    missing = [o.id for o in options if o.field not in shared and o.field not in own]
    if missing:
        raise RulesError(f"the {name} family's options {', '.join(missing)} have no field: declare them in its part")
    FAMILY_OPTIONS[name] = options
    _FAMILY_FIELDS[name] = frozenset(o.field for o in options)
    for o in options:
        if o.id not in OPTIONS_BY_ID:
            ALL_OPTIONS.append(o)
            OPTIONS_BY_ID[o.id] = o
            if o.field != "target":
                OPTIONS_BY_FIELD[o.field] = o
    FAMILY_PLAYERS[name] = players
    FAMILY_START[name] = start
    if part is not None:
        FAMILY_PART[name] = part
        _PART_FIELDS.update(dict.fromkeys(own, name))


def forget_rules_family(name: str) -> None:
    """Undo :func:`register_rules_family` and :func:`add_presets` for a family (a plug-in's
    tests, which register one for a while): its options no other family names, its presets."""
    FAMILY_OPTIONS.pop(name, None)
    _FAMILY_FIELDS.pop(name, None)
    FAMILY_PLAYERS.pop(name, None)
    FAMILY_START.pop(name, None)
    FAMILY_PART.pop(name, None)
    for f in [f for f, owner in _PART_FIELDS.items() if owner == name]:
        del _PART_FIELDS[f]
    named = {o.id for options in FAMILY_OPTIONS.values() for o in options}
    for o in [o for o in ALL_OPTIONS if o.id not in named]:
        ALL_OPTIONS.remove(o)
        del OPTIONS_BY_ID[o.id]
        if OPTIONS_BY_FIELD.get(o.field) is o:
            del OPTIONS_BY_FIELD[o.field]
    for key in [k for k, r in PRESETS.items() if r.family == name]:
        del PRESETS[key]


def _foreign(option: OptionInfo, family: str) -> RulesError:
    return RulesError(f"option {option.id} ({option.field}) belongs to the other family; these are {family} rules")


def add_presets(presets: Mapping[str, RuleSet]) -> None:
    """Make rule sets available by name (``RuleSet.preset``)."""
    for key, preset in presets.items():
        if key != key.strip().lower().replace("_", "-"):
            raise RulesError(f"a preset name is lower case with hyphens, not {key!r}")
        PRESETS[key] = preset


def _shown(value: Any) -> str:
    """A value as a rules file (TOML or JSON) writes it: ``true``, ``"max3_only"``, ``5000``."""
    if value is None:
        return "nothing"
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _coerce(fname: str, value: Any) -> Any:
    opt = OPTIONS_BY_FIELD.get(fname)
    if opt is not None:
        if value not in opt.choices or type(value) is not type(opt.choices[0]):
            choices = " or ".join(_shown(c) for c in opt.choices)
            raise RulesError(f"option {opt.id} ({fname}) must be {choices}, not {_shown(value)}")
        return value
    ftype = _FIELD_TYPES[fname]
    if ftype == "int":
        if type(value) is not int:
            raise RulesError(f"{fname} must be a whole number, not {_shown(value)}")
        return value
    if ftype == "str":
        if not isinstance(value, str):
            raise RulesError(f"{fname} must be text, not {_shown(value)}")
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
    if r.family not in FAMILY_OPTIONS:
        raise RulesError(f"unknown rules family {r.family!r}; choose {_families_named()}")
    expected = FAMILY_PART.get(r.family)
    if (r.part is None) != (expected is None) or (expected is not None and type(r.part) is not expected):
        raise RulesError(f"the {r.family} rules' own options must be a {expected.__name__ if expected else 'None'}, "
                         f"not {type(r.part).__name__}")
    own = {o.id for o in FAMILY_OPTIONS[r.family]}
    for o in ALL_OPTIONS:
        if (o.id not in own and o.field != "target" and o.field not in _PART_FIELDS
                and getattr(r, o.field) != o.choices[0]):
            raise _foreign(o, r.family)
    if r.players not in FAMILY_PLAYERS[r.family]:
        players = FAMILY_PLAYERS[r.family]
        allowed = [str(n) for n in players]
        counts = " or ".join(filter(None, (", ".join(allowed[:-1]), allowed[-1])))
        if len(players) > 2 and list(players) == list(range(players[0], players[-1] + 1)):
            counts = f"{players[0]} to {players[-1]}"
        raise RulesError(f"{r.family.capitalize()} Canasta is for {counts} players, not {r.players}")
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
    if r.part is not None:
        r.part.check(r)


def _teams_for(r: RuleSet) -> tuple[tuple[int, ...], ...]:
    n = r.players
    seated = r.part.teams(r) if r.part is not None else None
    if seated is not None:
        return seated
    if n == 4:
        return ((0, 2), (1, 3))
    if n == 6:
        if r.six_as_three_pairs:
            return ((0, 3), (1, 4), (2, 5))
        return ((0, 2, 4), (1, 3, 5))
    return tuple((s,) for s in range(n))


#: every rule set by name (each family's package adds its presets: :func:`add_presets`)
PRESETS: Final[dict[str, RuleSet]] = {}


def load_rules(path: str | Path) -> RuleSet:
    """Read a rules file (``.toml`` or ``.json``)."""
    p = Path(path)
    text = read_text(p, "rules file", RulesError).removeprefix("\ufeff")  # a byte-order mark some editors write
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RulesError(f"rules file {str(p)!r} is not valid {p.suffix.lstrip('.') or 'TOML'}: {exc}") from None
    try:
        return RuleSet.from_dict(data)
    except RulesError as exc:
        raise RulesError(f"rules file {str(p)!r}: {exc}") from None


def save_rules(rules: RuleSet, path: str | Path) -> None:
    """Write a rule set to a rules file: TOML, or JSON when the path ends in ``.json``
    (:func:`load_rules` reads either); written whole or not at all."""
    p = Path(path)
    text = rules.to_json() + "\n" if p.suffix.lower() == ".json" else rules.to_toml()
    write_text_atomic(p, text)


def resolve_rules(spec: str) -> RuleSet:
    """A preset name or a path to a rules file."""
    if spec.strip().lower().replace("_", "-") in PRESETS:
        return RuleSet.preset(spec)
    if Path(spec).suffix.lower() in (".toml", ".json"):
        return load_rules(spec)
    raise RulesError(
        f"unknown rules {spec!r}: give a preset ({', '.join(sorted(PRESETS))}) or a .toml/.json rules file"
    )
