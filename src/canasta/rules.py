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
import difflib
import json
import tomllib
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from canasta.errors import RulesError, read_text


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

ITALIAN_OPTIONS: Final[tuple[OptionInfo, ...]] = (
    OptionInfo("I-O1", "it_wild_limit", "Wild cards in a meld",
               ("italian_1_or_2", "max3", "fewer_than_naturals"), "B.6.2", "SEED-000, RDG, GDT"),
    OptionInfo("I-O2", "joker_counts_double", "A joker counts as two wild cards", (False, True), "B.6.2",
               "ITW-P for true"),
    OptionInfo("I-O3", "new_meld_after_close", "A new meld of a rank once its canasta is closed",
               ("new_meld_after_close_one_open_per_rank", "never"), "B.6.4", "inferred"),
    OptionInfo("I-O4", "pozzo_special_card", "A non-natural card turned when forming the pozzo",
               ("stay_in_pozzo", "bottom_and_turn_next", "reshuffle_into_stock"), "B.4.2", "SEED-000"),
    OptionInfo("I-O5", "negative_score_minimum", "Opening minimum for a negative score", (50, 15), "B.9.1",
               "none; 15 per RGIT"),
    OptionInfo("I-O6", "opening_table", "Opening threshold table", ("project", "hoyle_italian"), "B.9.1",
               "SEED-000"),
    OptionInfo("I-O7", "clean_opening", "Clean opening required", ("only_at_50", "always"), "B.9.2",
               "SEED-000"),
    OptionInfo("I-O8", "pozzo_take", "Ways to take the pozzo", ("natural_pair_only", "classic"), "B.10.3",
               "SEED-000, SEED-002"),
    OptionInfo("I-O9", "frozen_pozzo_naturals", "Natural cards needed to take a frozen pozzo", (3, 2),
               "B.10.4", "SEED-000, CO, TRE-V"),
    OptionInfo("I-O10", "dealt_red_three_replacement", "Dealt red threes are replaced from",
               ("bottom_of_stock", "top_of_stock"), "B.3.4", "SEED-000, RDG, MON"),
    OptionInfo("I-O11", "red_three_in_pozzo", "A red three found in the pozzo",
               ("no_replacement", "replaced"), "B.4.4", "by analogy with A.9.6"),
    OptionInfo("I-O12", "wild_canastas_count", "Wild-card canastas count as clean/dirty canastas",
               (True, False), "B.8.4", "SEED-000"),
    OptionInfo("I-O13", "aces_bonus", "The aces bonus replaces 500/300", ("replace", "additive"), "B.7.3",
               "SEED-000, SEED-002"),
    OptionInfo("I-O14", "open_deuce_meld", "While a deuce meld is open",
               ("no_dirty_canasta_while_deuce_meld_open", "rgit", "off"), "B.8.5", "SEED-000"),
    OptionInfo("I-O15", "special_card_values_count", "Card values of wild-card canastas also count",
               (True, False), "B.8.6", "SEED-000"),
    OptionInfo("I-O16", "black_three_value", "Card value of a black three", (5, 0), "B.2", "SEED-002 via A.2"),
    OptionInfo("I-O17", "black_three_melds", "Black-three melds",
               ("never", "going_out_3_to_6", "going_out_3_to_4"), "B.6.6", "SEED-000"),
    OptionInfo("I-O18", "red_three_table", "Red-three values", ("project", "hoyle_italian"), "B.11.2",
               "SEED-000"),
    OptionInfo("I-O19", "direction", "Direction of play", ("clockwise", "counter_clockwise"), "B.1.4",
               "SEED-000, SEED-002, MON"),
    OptionInfo("I-O20", "six_player_teams", "Six players", ("2x3", "3x2"), "B.1.1", "CO"),
    OptionInfo("I-O21", "five_players", "Five players", ("solo", "unsupported"), "B.1.1", "SEED-002"),
    OptionInfo("I-O22", "going_out_requirement", "Canastas needed to go out",
               ("clean_and_dirty", "two_incl_one_clean", "two_any"), "B.13.1", "SEED-000, SAP"),
    OptionInfo("I-O23", "final_discard", "The going-out discard",
               ("discard_not_wild_or_black3", "discard_required", "discard_optional"), "B.13.2", "SEED-000"),
    OptionInfo("I-O24", "concealed_out_bonus", "Bonus for going out concealed", ("none",),
               "B.13.6", "no source gives one"),
    OptionInfo("I-O25", "empty_stock", "When the stock runs out", ("hand_ends", "classic_continue"), "B.14",
               "SEED-000, GDT"),
    OptionInfo("I-O26", "five_canasta_bonus", "Five-canasta bonus", ("project", "hoyle", "any_vs_all_clean"),
               "B.15", "SEED-002"),
    OptionInfo("I-O27", "ten_canasta_bonus", "Ten canastas of any kind: +2000", ("off", "on"), "B.15",
               "RGIT, HSW for on"),
    OptionInfo("I-O28", "target", "Target score", (15000, 12000), "B.16", "SEED-000, TRE-E, MON"),
    OptionInfo("I-O29", "cut_wilds", "Deuces and jokers exposed by the cut",
               ("cutter_keeps", "counts_toward_15", "off"), "B.3.2", "SEED-000"),
    OptionInfo("I-O30", "pozzo_cards", "Cards under the pozzo's upcard", ("face_down", "face_up"), "B.4.3",
               "SEED-000, SEED-002"),
    OptionInfo("I-O31", "opening_draws_one", "A player who opens draws only one card", (False, True),
               "B.5.1", "SEED-002, SEED-000"),
    OptionInfo("I-O32", "pozzo_taking", "Taking the pozzo", ("whole_pozzo", "top_card_only"), "B.5.2",
               "SEED-000, SEED-002"),
    OptionInfo("I-O33", "dirty_jokers_bonus", "Dirty joker canasta (5 jokers + 2 deuces)", (3000, 2000),
               "B.8.2", "SEED-000 scoring list"),
    OptionInfo("I-O34", "top_opening_bracket", "Opening minimum at 12000 or more", (180, 200), "B.9.1",
               "SEED-000 table"),
    OptionInfo("I-O35", "dirty_opening_blocks_pozzo", "A dirty opening forbids taking the pozzo that turn",
               (True, False), "B.9.3", "SEED-000"),
    OptionInfo("I-O36", "asking_partner", "Asking the partner before going out",
               ("customary_optional", "required"), "B.13.4", "SEED-000"),
    OptionInfo("I-O37", "unopened_pays_double", "A team that has not opened pays double when the other goes out",
               (True, False), "B.15", "SEED-000"),
    OptionInfo("I-O38", "wild_meld_obligation_all", "The open-wild-meld obligation covers every wild meld and going out",
               (True, False), "B.8.5", "SEED-000"),
    OptionInfo("I-O39", "pozzo_closed_rank_block", "A rank closed as canasta blocks the pozzo",
               ("opponents_closed", "own_closed", "off"), "B.10.6", "SEED-000"),
)

ALL_OPTIONS: Final = CLASSIC_OPTIONS + ITALIAN_OPTIONS
OPTIONS_BY_ID: Final = {o.id: o for o in ALL_OPTIONS}
OPTIONS_BY_FIELD: Final = {o.field: o for o in ALL_OPTIONS if o.field != "target"}
#: the named options of each rule family, by family name (:func:`register_rules_family` adds one)
FAMILY_OPTIONS: Final[dict[str, tuple[OptionInfo, ...]]] = {"classic": CLASSIC_OPTIONS, "italian": ITALIAN_OPTIONS}
#: per family: the player counts it is for, and the preset a rules file of it starts from
FAMILY_PLAYERS: Final[dict[str, tuple[int, ...]]] = {"classic": (2, 3, 4, 6), "italian": (2, 3, 4, 5, 6)}
FAMILY_START: Final[dict[str, str]] = {"classic": "classic-4p", "italian": "italian-4p"}
#: the fields of each family's named options (what :meth:`RuleSet.has_option` asks)
_FAMILY_FIELDS: Final[dict[str, frozenset[str]]] = {k: frozenset(o.field for o in v) for k, v in FAMILY_OPTIONS.items()}

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
for _n in (2, 3, 4, 5, 6):
    PRESETS[f"italian-{_n}p"] = _preset(name=f"italian-{_n}p", family="italian", players=_n, packs=3,
                                        hand_size=15, draw_count=2, target=15000)
PRESETS["italian-6p-3x2"] = _preset(name="italian-6p-3x2", family="italian", players=6, packs=3,
                                    hand_size=15, draw_count=2, target=15000, six_player_teams="3x2")
PRESETS["classic-3p-cutthroat"] = dataclasses.replace(
    PRESETS["classic-3p"].with_options({"C-O10": True}), name="classic-3p-cutthroat", teams=()
)
PRESETS["classic-6p-3x2"] = dataclasses.replace(
    PRESETS["classic-6p"].with_options({"C-O11": True}), name="classic-6p-3x2", teams=()
)


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
