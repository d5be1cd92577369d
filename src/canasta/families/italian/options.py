"""Italian Canasta's named options (SPEC Part B: I-O1 ...) and its presets.

Registered with the rule sets (:func:`canasta.engine.rules.register_rules_family`,
:func:`canasta.engine.rules.add_presets`) when the family's package is imported."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from canasta.engine.errors import RulesError
from canasta.engine.rules import CLASSIC_MINIMUMS, CLASSIC_RED_THREES, OptionInfo, RuleSet

# -- the choices of the options that are words (checked against ITALIAN_OPTIONS by tests/test_rules)
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


#: the opening minimum by score under I-O6 = "hoyle_italian" (B.9.1)
HOYLE_MINIMUMS: Final = ((-10**9, 15), (0, 50), (1500, 90), (3000, 120), (5000, 160), (7500, 180), (10000, 200))
#: total red-three points by the number a side holds (B.11.2), and under I-O18 = "hoyle_italian"
RED_THREES: Final = (0, 100, 200, 300, 800, 1200, 1800)
HOYLE_RED_THREES: Final = (0, 100, 200, 300, 800, 1000, 1200)


@dataclass(frozen=True)
class ItalianRules:
    """Italian Canasta's own options (I-O1 ... I-O39 but I-O19, the direction of play, and
    I-O28, the target, which are shared fields of :class:`~canasta.engine.rules.RuleSet`): its
    ``part``, read with :func:`italian_rules`."""

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

    def opening_must_be_clean(self, minimum: int) -> bool:
        """Must an opening at this minimum be clean (B.9.2, I-O7)?"""
        return self.clean_opening == "always" or minimum <= 50

    # -- what the shared record asks of a family's own options (canasta.engine.rules.RulesPart)

    def check(self, rules: RuleSet) -> None:
        if rules.players == 5 and self.five_players == "unsupported":
            raise RulesError("five players are not allowed under I-O21 = 'unsupported'")
        if self.six_player_teams != "2x3" and rules.players != 6:
            raise RulesError("I-O20 (six-player teams) applies only to 6 players")

    def teams(self, rules: RuleSet) -> tuple[tuple[int, ...], ...] | None:
        if rules.players == 6 and self.six_player_teams == "3x2":
            return ((0, 3), (1, 4), (2, 5))
        return None

    def minimums(self, rules: RuleSet) -> tuple[tuple[int, int], ...] | None:
        """B.9.1 with I-O5, I-O6 and I-O34, unless the rule set gives its own table."""
        if rules.minimum_table != CLASSIC_MINIMUMS:
            return None
        if self.opening_table == "hoyle_italian":
            return HOYLE_MINIMUMS
        return ((-10**9, self.negative_score_minimum), (0, 50), (3000, 90), (6000, 120), (9000, 160),
                (12000, self.top_opening_bracket))

    def red_three_points(self, rules: RuleSet) -> tuple[int, ...] | None:
        """B.11.2 with I-O18, unless the rule set gives its own values."""
        if rules.red_three_values != CLASSIC_RED_THREES:
            return None
        return HOYLE_RED_THREES if self.red_three_table == "hoyle_italian" else RED_THREES

    def tie_at_target(self, rules: RuleSet) -> None:
        return None

    def match_hands(self, rules: RuleSet) -> None:
        return None

    def hand_minimums(self, rules: RuleSet) -> None:
        return None


def italian_rules(rules: RuleSet) -> ItalianRules:
    """The Italian options of an Italian rule set (its ``part``)."""
    return rules.part  # type: ignore[return-value]  # an Italian rule set's part (no cast: called on hot paths)


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

#: the player counts Italian Canasta is for (B.1.1)
PLAYERS: Final[tuple[int, ...]] = (2, 3, 4, 5, 6)
#: the preset an Italian rules file starts from
START: Final = "italian-4p"


def presets() -> dict[str, RuleSet]:
    """Italian Canasta's presets, by name (three packs, 15 cards, B.1 to B.3)."""
    out = {f"italian-{n}p": RuleSet(name=f"italian-{n}p", family="italian", players=n, packs=3, hand_size=15,
                                    draw_count=2, target=15000) for n in PLAYERS}
    out["italian-6p-3x2"] = RuleSet(name="italian-6p-3x2", family="italian", players=6, packs=3, hand_size=15,
                                    draw_count=2, target=15000, part=ItalianRules(six_player_teams="3x2"))
    return out
