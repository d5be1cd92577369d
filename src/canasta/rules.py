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
raise :class:`~canasta.errors.RulesError` with a message that says what to fix.
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
from typing import Any, Final, Literal

from canasta.errors import RulesError, read_text
from canasta.files import write_text_atomic


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
#: the fields of each family's named options (what :meth:`RuleSet.has_option` asks)
_FAMILY_FIELDS: Final[dict[str, frozenset[str]]] = {}

CLASSIC_MINIMUMS: Final = ((-10**9, 15), (0, 50), (1500, 90), (3000, 120))
SIX_PLAYER_MINIMUMS: Final = CLASSIC_MINIMUMS + ((7500, 150),)
#: total red-three points by the number a side holds (A.10.2 / A.18.3)
CLASSIC_RED_THREES: Final = (0, 100, 200, 300, 800)
SIX_PLAYER_RED_THREES: Final = (0, 100, 200, 300, 400, 1000, 1200)
HOYLE_ITALIAN_MINIMUMS: Final = ((-10**9, 15), (0, 50), (1500, 90), (3000, 120), (5000, 160),
                                 (7500, 180), (10000, 200))
ITALIAN_RED_THREES: Final = (0, 100, 200, 300, 800, 1200, 1800)
HOYLE_ITALIAN_RED_THREES: Final = (0, 100, 200, 300, 800, 1000, 1200)


# -- the choices of the options that are words (checked against OPTIONS by tests/test_rules_literals)
WildRatio = Literal["no_more_wild_than_natural", "max3_only"]  # C-O1
NegativeRedThrees = Literal["no_meld", "no_canasta"]  # C-O7
DealtRedThrees = Literal["immediately_after_deal", "on_first_turn"]  # C-O8
TieAtTarget = Literal["play_another_hand", "draw"]  # C-O9
ItWildLimit = Literal["italian_1_or_2", "max3", "fewer_than_naturals"]  # I-O1
NewMeldAfterClose = Literal["new_meld_after_close_one_open_per_rank", "never"]  # I-O3
PozzoSpecialCard = Literal["stay_in_pozzo", "bottom_and_turn_next", "reshuffle_into_stock"]  # I-O4
OpeningTable = Literal["project", "hoyle_italian"]  # I-O6
CleanOpening = Literal["only_at_50", "always"]  # I-O7
PozzoTake = Literal["natural_pair_only", "classic"]  # I-O8
DealtRedThreeReplacement = Literal["bottom_of_stock", "top_of_stock"]  # I-O10
RedThreeInPozzo = Literal["no_replacement", "replaced"]  # I-O11
AcesBonus = Literal["replace", "additive"]  # I-O13
OpenDeuceMeld = Literal["no_dirty_canasta_while_deuce_meld_open", "rgit", "off"]  # I-O14
BlackThreeMelds = Literal["never", "going_out_3_to_6", "going_out_3_to_4"]  # I-O17
RedThreeTable = Literal["project", "hoyle_italian"]  # I-O18
Direction = Literal["clockwise", "counter_clockwise"]  # I-O19
SixPlayerTeams = Literal["2x3", "3x2"]  # I-O20
FivePlayers = Literal["solo", "unsupported"]  # I-O21
GoingOutRequirement = Literal["clean_and_dirty", "two_incl_one_clean", "two_any"]  # I-O22
FinalDiscard = Literal["discard_not_wild_or_black3", "discard_required", "discard_optional"]  # I-O23
ConcealedOutBonus = Literal["none"]  # I-O24
EmptyStock = Literal["hand_ends", "classic_continue"]  # I-O25
FiveCanastaBonus = Literal["project", "hoyle", "any_vs_all_clean"]  # I-O26
TenCanastaBonus = Literal["off", "on"]  # I-O27
CutWilds = Literal["cutter_keeps", "counts_toward_15", "off"]  # I-O29
PozzoCards = Literal["face_down", "face_up"]  # I-O30
PozzoTaking = Literal["whole_pozzo", "top_card_only"]  # I-O32
AskingPartner = Literal["customary_optional", "required"]  # I-O36
PozzoClosedRankBlock = Literal["opponents_closed", "own_closed", "off"]  # I-O39

_WORD_TYPES: Final = frozenset(n for n, v in list(globals().items()) if typing.get_origin(v) is Literal)


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
    # the options I-O1 ... I-O39 (Italian Canasta; I-O28 is ``target``)
    it_wild_limit: ItWildLimit = "italian_1_or_2"
    joker_counts_double: bool = False
    new_meld_after_close: NewMeldAfterClose = "new_meld_after_close_one_open_per_rank"
    pozzo_special_card: PozzoSpecialCard = "stay_in_pozzo"
    negative_score_minimum: int = 50
    opening_table: OpeningTable = "project"
    clean_opening: CleanOpening = "only_at_50"
    pozzo_take: PozzoTake = "natural_pair_only"
    frozen_pozzo_naturals: int = 3
    dealt_red_three_replacement: DealtRedThreeReplacement = "bottom_of_stock"
    red_three_in_pozzo: RedThreeInPozzo = "no_replacement"
    wild_canastas_count: bool = True
    aces_bonus: AcesBonus = "replace"
    open_deuce_meld: OpenDeuceMeld = "no_dirty_canasta_while_deuce_meld_open"
    special_card_values_count: bool = True
    black_three_value: int = 5
    black_three_melds: BlackThreeMelds = "never"
    red_three_table: RedThreeTable = "project"
    direction: Direction = "clockwise"
    six_player_teams: SixPlayerTeams = "2x3"
    five_players: FivePlayers = "solo"
    going_out_requirement: GoingOutRequirement = "clean_and_dirty"
    final_discard: FinalDiscard = "discard_not_wild_or_black3"
    concealed_out_bonus: ConcealedOutBonus = "none"
    empty_stock: EmptyStock = "hand_ends"
    five_canasta_bonus: FiveCanastaBonus = "project"
    ten_canasta_bonus: TenCanastaBonus = "off"
    cut_wilds: CutWilds = "cutter_keeps"
    pozzo_cards: PozzoCards = "face_down"
    opening_draws_one: bool = False
    pozzo_taking: PozzoTaking = "whole_pozzo"
    dirty_jokers_bonus: int = 3000
    top_opening_bracket: int = 180
    dirty_opening_blocks_pozzo: bool = True
    asking_partner: AskingPartner = "customary_optional"
    unopened_pays_double: bool = True
    wild_meld_obligation_all: bool = True
    pozzo_closed_rank_block: PozzoClosedRankBlock = "opponents_closed"
    # derived, not part of the rules file
    teams: tuple[tuple[int, ...], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        _validate(self)
        if not self.teams:
            object.__setattr__(self, "teams", _teams_for(self))
        object.__setattr__(self, "_hash", self._field_hash())

    # -- its own key: a rule set is the key of the answers kept for it (the going-out
    # search's caches), so its hash is computed once, not from its ~70 fields at every lookup

    def _field_hash(self) -> int:
        return hash(tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare))

    def __hash__(self) -> int:
        return typing.cast(int, self.__dict__["_hash"])

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
        for key, value in overrides.items():
            fname = _field_name(key)
            changes[fname] = _coerce(fname, value)
        family = changes.get("family", self.family)
        if family != self.family:
            if family not in FAMILY_OPTIONS:
                raise RulesError(f"unknown rules family {_shown(family)}; choose {_families_named()}")
            raise RulesError(f"the {self.family} rules {_shown(self.name)} cannot become {family}: "
                             f"start from {_family_preset(family)}")
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

    def opening_must_be_clean(self, minimum: int) -> bool:
        """Italian: must an opening at this minimum be clean (B.9.2, I-O7)?"""
        return "clean_opening" in _FAMILY_FIELDS[self.family] and (self.clean_opening == "always" or minimum <= 50)

    @property
    def deck_size(self) -> int:
        return self.packs * 54

    def option_values(self) -> dict[str, Any]:
        """``{'C-O1': ..., ...}`` for the options of this family."""
        return {o.id: getattr(self, o.field) for o in self.options}

    def non_default_options(self) -> dict[str, Any]:
        return {
            o.id: getattr(self, o.field)
            for o in self.options
            if getattr(self, o.field) != o.choices[0]
        }

    def minimum_for(self, score: int) -> int:
        """Initial-meld (opening) minimum for a side with this cumulative score
        (A.7.1; B.9.1 with I-O5, I-O6 and I-O34)."""
        if self.minimum_table == CLASSIC_MINIMUMS and "opening_table" in _FAMILY_FIELDS[self.family]:
            if self.opening_table == "hoyle_italian":
                table: tuple[tuple[int, int], ...] = HOYLE_ITALIAN_MINIMUMS
            else:
                table = ((-10**9, self.negative_score_minimum), (0, 50), (3000, 90), (6000, 120),
                         (9000, 160), (12000, self.top_opening_bracket))
            m = table[0][1]
            for low, value in table:
                if score >= low:
                    m = value
            return m
        m = self.minimum_table[0][1]
        for low, value in self.minimum_table:
            if score >= low:
                m = value
        return m

    def red_three_points(self, count: int) -> int:
        """Face value of ``count`` red threes held by one side (A.10.2, A.18.3, B.11.2)."""
        table = self.red_three_values
        if table == CLASSIC_RED_THREES and "red_three_table" in _FAMILY_FIELDS[self.family]:
            table = HOYLE_ITALIAN_RED_THREES if self.red_three_table == "hoyle_italian" else ITALIAN_RED_THREES
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
        family = data.get("family")
        named = preset or (name if name and name.lower() in PRESETS else None)
        if named is not None and isinstance(family, str) and named.strip().lower() in PRESETS:
            preset_family = PRESETS[named.strip().lower()].family
            if family != preset_family and family in FAMILY_OPTIONS:
                raise RulesError(f"family = {_shown(family)} does not match the {preset_family} preset "
                                 f"{_shown(named)}: start from {_family_preset(family)} "
                                 "or remove the family line")
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


_FIELD_TYPES: Final = {  # a Literal of words is text
    f.name: "str" if isinstance(f.type, str) and f.type in _WORD_TYPES else f.type
    for f in dataclasses.fields(RuleSet) if f.name != "teams"
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
    raise RulesError(f"unknown rule option {key!r}; {_nearest_options(k)}")


def _nearest_options(key: str) -> str:
    """``did you mean C-O9 or I-O9?`` and where the full list is."""
    names = {o.id: o.id for o in ALL_OPTIONS}
    names.update({f: f for f in _FIELD_TYPES})
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


def register_rules_family(name: str, options: tuple[OptionInfo, ...], players: tuple[int, ...], start: str) -> None:
    """Make rule sets of a new family valid: its named options (fields of :class:`RuleSet`
    it shares with the families it borrows them from), the player counts it is for and the
    preset its rules files start from (then :func:`add_presets` adds its presets).  The
    family that plays them registers with :func:`canasta.game.register_family`."""
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
    own = {o.id for o in FAMILY_OPTIONS[r.family]}
    for o in ALL_OPTIONS:
        if o.id not in own and o.field != "target" and getattr(r, o.field) != o.choices[0]:
            raise RulesError(f"option {o.id} ({o.field}) belongs to the other family; "
                             f"these are {r.family} rules")
    if r.players not in FAMILY_PLAYERS[r.family]:
        players = FAMILY_PLAYERS[r.family]
        allowed = [str(n) for n in players]
        counts = " or ".join(filter(None, (", ".join(allowed[:-1]), allowed[-1])))
        if len(players) > 2 and list(players) == list(range(players[0], players[-1] + 1)):
            counts = f"{players[0]} to {players[-1]}"
        raise RulesError(f"{r.family.capitalize()} Canasta is for {counts} players, not {r.players}")
    if r.players == 5 and r.has_option("five_players") and r.five_players == "unsupported":
        raise RulesError("five players are not allowed under I-O21 = 'unsupported'")
    if r.packs not in (2, 3):
        raise RulesError(f"packs must be 2 or 3, not {r.packs}")
    if r.cutthroat and r.players != 3:
        raise RulesError("the cut-throat option (C-O10) needs exactly 3 players")
    if r.six_as_three_pairs and r.players != 6:
        raise RulesError("three partnerships of two (C-O11) needs exactly 6 players")
    if r.six_player_teams != "2x3" and r.players != 6:
        raise RulesError("I-O20 (six-player teams) applies only to 6 players")
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
        if r.six_as_three_pairs or r.six_player_teams == "3x2":
            return ((0, 3), (1, 4), (2, 5))
        return ((0, 2, 4), (1, 3, 5))
    return tuple((s,) for s in range(n))


#: every rule set by name (each family's package adds its presets: :func:`add_presets`)
PRESETS: Final[dict[str, RuleSet]] = {}


def load_rules(path: str | Path) -> RuleSet:
    """Read a rules file (``.toml`` or ``.json``)."""
    p = Path(path)
    text = read_text(p, "rules file", RulesError)
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
