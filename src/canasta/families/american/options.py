"""Modern American Canasta's named options (SPEC Part C: M-O1 ...) and its presets.

Registered with the rule sets (:func:`canasta.engine.rules.register_rules_family`,
:func:`canasta.engine.rules.add_presets`) when the family's package is imported.  Every option but
the target (M-O29, the shared ``target`` field) is a field of :class:`AmericanRules`, the family's
part of a rule set.  The number of players (M-O30) is the rule set's ``players``: the presets
``american-4p`` and ``american-2p``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from canasta.engine.rules import OptionInfo, RuleSet

# -- the choices of the options that are words
DealProcedure = Literal["engine", "cutter_counts"]  # M-O2
DealtThrees = Literal["own_turn", "after_deal"]  # M-O3
OpeningNeeds = Literal["clean_triple", "clean_triple_or_wild_meld"]  # M-O8
TalonSource = Literal["stock_top", "set_aside"]  # M-O14
PackView = Literal["top_only", "three", "all"]  # M-O15
EmptyTrayBar = Literal["swad", "aces_sevens", "swad_no_dead"]  # M-O16
NoDiscard = Literal["prevent", "take_back"]  # M-O17
StockOut = Literal["pagat", "immediate"]  # M-O21
SpecialHands = Literal["cla11", "pagat4", "none"]  # M-O22
SpecialTiming = Literal["unmelded_side", "courtesy"]  # M-O25
ExactTie = Literal["play_another_hand", "draw"]  # M-O27
MatchFormat = Literal["target", "three_hands"]  # M-O28
UnusedTalon = Literal["counts_in_hand", "ignored"]  # M-O31
ThreeForStraight = Literal["lay_all", "keep_one"]  # M-O32
MatchingWilds = Literal["wild_group", "wild_fill"]  # M-O33

#: the initial-meld minimum by the side's cumulative score (C.7.1)
MINIMUMS: Final = ((-10**9, 125), (3000, 155), (5000, 180))
#: the target (C.15.1, M-O29)
TARGET: Final = 8500

#: the initial-meld minimum of each hand of a three-hand match (M-O28 = three_hands)
THREE_HAND_MINIMUMS: Final = (125, 155, 180)


@dataclass(frozen=True)
class AmericanRules:
    """Modern American Canasta's own options (M-O1 ... M-O33 but M-O29, the target, and M-O30,
    the players, which are shared fields of :class:`~canasta.engine.rules.RuleSet`): its ``part``,
    read with :func:`american_rules`."""

    stock_draw: int = 1
    deal_procedure: DealProcedure = "engine"
    dealt_threes: DealtThrees = "own_turn"
    rule_of_five: bool = True
    opening_needs: OpeningNeeds = "clean_triple"
    eighth_card_going_out: bool = False
    splash: bool = False
    talon_holds: bool = True
    talon_source: TalonSource = "stock_top"
    pack_view: PackView = "top_only"
    empty_tray_bar: EmptyTrayBar = "swad"
    no_discard: NoDiscard = "prevent"
    concealed_out_points: int = 0
    stock_out: StockOut = "pagat"
    special_hands: SpecialHands = "cla11"
    garbage_value: int = 3000
    dream_hands: bool = True
    special_timing: SpecialTiming = "unmelded_side"
    four_joker_penalty: int = 2000
    exact_tie: ExactTie = "play_another_hand"
    match_format: MatchFormat = "target"
    unused_talon: UnusedTalon = "counts_in_hand"
    three_for_straight: ThreeForStraight = "lay_all"
    matching_wilds: MatchingWilds = "wild_group"

    # -- what the shared record asks of a family's own options (canasta.engine.rules.RulesPart)

    def check(self, rules: RuleSet) -> None:
        return None  # every alternative of Part C is played, in any combination

    def teams(self, rules: RuleSet) -> tuple[tuple[int, ...], ...] | None:
        return None

    def minimums(self, rules: RuleSet) -> tuple[tuple[int, int], ...] | None:
        return None

    def red_three_points(self, rules: RuleSet) -> tuple[int, ...] | None:
        return (0, 100, 300, 500, 1000)  # threes of one colour, by count (C.14.1 c), as the rules' summaries say

    def tie_at_target(self, rules: RuleSet) -> ExactTie:
        return self.exact_tie  # M-O27

    def match_hands(self, rules: RuleSet) -> int | None:
        return len(THREE_HAND_MINIMUMS) if self.match_format == "three_hands" else None  # M-O28

    def hand_minimums(self, rules: RuleSet) -> tuple[int, ...] | None:
        return THREE_HAND_MINIMUMS if self.match_format == "three_hands" else None  # M-O28


def american_rules(rules: RuleSet) -> AmericanRules:
    """The Modern American options of an American rule set (its ``part``)."""
    return rules.part  # type: ignore[return-value]  # an American rule set's part (no cast: hot paths)


AMERICAN_OPTIONS: Final[tuple[OptionInfo, ...]] = (
    OptionInfo("M-O1", "stock_draw", "Cards drawn from the stock", (1, 2), "C.4.2", "CLA*, MEG"),
    OptionInfo("M-O2", "deal_procedure", "How the deal is made", ("engine", "cutter_counts"), "C.1.4", "WCA, HON"),
    OptionInfo("M-O3", "dealt_threes", "Dealt threes are laid out", ("own_turn", "after_deal"), "C.3.1",
               "CC, CLA*; MEG for after_deal"),
    OptionInfo("M-O6", "rule_of_five", "Rule of five: a wild card only on a meld of five natural cards",
               (True, False), "C.5.5", "CLA*, CC, HON; PAG* for false"),
    OptionInfo("M-O8", "opening_needs", "What the initial meld needs",
               ("clean_triple", "clean_triple_or_wild_meld"), "C.7.2", "CLA*, WCA; PAG*"),
    OptionInfo("M-O9", "eighth_card_going_out", "An eighth card on a canasta when going out", (False, True),
               "C.5.2", "PAG*, CJ-PP; WIKI for true"),
    OptionInfo("M-O12", "splash", "The Splash: a canasta from the hand opens whatever its count", (False, True),
               "C.7.5", "PAG* for true"),
    OptionInfo("M-O13", "talon_holds", "A talon stands for the card to hold", (True, False), "C.10.5",
               "HON; CGAL for false"),
    OptionInfo("M-O14", "talon_source", "Where the talon comes from", ("stock_top", "set_aside"), "C.8.3",
               "CJ-T, WCA, HON; MEG, POC, PAG*"),
    OptionInfo("M-O15", "pack_view", "Looking through the pack", ("top_only", "three", "all"), "C.9.6", "HON"),
    OptionInfo("M-O16", "empty_tray_bar", "What the empty tray bars",
               ("swad", "aces_sevens", "swad_no_dead"), "C.10.3", "CLA*, CJ-PP; PAG*; CGAL"),
    OptionInfo("M-O17", "no_discard", "No legal discard on an empty tray", ("prevent", "take_back"), "C.10.4",
               "the project; CLA*, CGAL for take_back"),
    OptionInfo("M-O20", "concealed_out_points", "Bonus for going out concealed", (0, 100), "C.11.4",
               "no source gives one"),
    OptionInfo("M-O21", "stock_out", "When the stock runs out", ("pagat", "immediate"), "C.12.1", "PAG*; CLA*"),
    OptionInfo("M-O22", "special_hands", "Which special hands", ("cla11", "pagat4", "none"), "C.13.4",
               "CLA*; PAG*"),
    OptionInfo("M-O23", "garbage_value", "Garbage's value", (3000, 2000), "C.13.4", "CLA*; PAG*"),
    OptionInfo("M-O24", "dream_hands", "The Dream Hands", (True, False), "C.13.4", "CLA*"),
    OptionInfo("M-O25", "special_timing", "When a special hand may be laid", ("unmelded_side", "courtesy"),
               "C.13.1", "CLA*; HON"),
    OptionInfo("M-O26", "four_joker_penalty", "Unfinished wild meld holding the four jokers", (2000, 2500),
               "C.14.1", "CLA*; PAG*"),
    OptionInfo("M-O27", "exact_tie", "Exact tie at the end", ("play_another_hand", "draw"), "C.15.2",
               "no source"),
    OptionInfo("M-O28", "match_format", "Match format", ("target", "three_hands"), "C.15.2", "NVSO"),
    OptionInfo("M-O29", "target", "Target score", (TARGET, 5000, 10000), "C.15.1", "CLA*, PAG*, NVSO, DUM, PCF"),
    OptionInfo("M-O31", "unused_talon", "A talon received in the hand's last turn",
               ("counts_in_hand", "ignored"), "C.8.3", "no source"),
    OptionInfo("M-O32", "three_for_straight", "A three kept for the Straight", ("lay_all", "keep_one"), "C.3.2",
               "the project; CLA*, PAG* for keep_one"),
    OptionInfo("M-O33", "matching_wilds", "Matching wilds in Zip Code and Blast Off", ("wild_group", "wild_fill"),
               "C.13.5", "CLA* examples"),
)

#: the player counts Modern American Canasta is for (C.1.1, C.16.1)
PLAYERS: Final[tuple[int, ...]] = (2, 4)
#: the preset an American rules file starts from
START: Final = "american-4p"


def presets() -> dict[str, RuleSet]:
    """Modern American Canasta's presets: the partnership game and the two-player game (C.1, C.16)."""
    return {f"american-{n}p": RuleSet(name=f"american-{n}p", family="american", players=n, packs=2, hand_size=13,
                                      draw_count=1, canastas_to_go_out=2, target=TARGET, minimum_table=MINIMUMS)
            for n in (4, 2)}
