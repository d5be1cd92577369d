"""Classic Canasta's named options (SPEC Part A: C-O1 ...) and its presets.

Registered with the rule sets (:func:`canasta.engine.rules.register_rules_family`,
:func:`canasta.engine.rules.add_presets`) when the family's package is imported."""

from __future__ import annotations

import dataclasses
from typing import Final

from canasta.engine.rules import SIX_PLAYER_MINIMUMS, SIX_PLAYER_RED_THREES, OptionInfo, RuleSet

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

#: the player counts Classic Canasta is for (A.1, A.17, A.18)
PLAYERS: Final[tuple[int, ...]] = (2, 3, 4, 6)
#: the preset a Classic rules file starts from
START: Final = "classic-4p"


def presets() -> dict[str, RuleSet]:
    """Classic Canasta's presets, by name (A.1, A.16 to A.18)."""
    out = {
        "classic-4p": RuleSet(name="classic-4p"),
        "classic-2p": RuleSet(name="classic-2p", players=2, hand_size=15, draw_count=2, canastas_to_go_out=2),
        "classic-3p": RuleSet(name="classic-3p", players=3, hand_size=13),
        "classic-6p": RuleSet(name="classic-6p", players=6, packs=3, hand_size=13, canastas_to_go_out=2,
                              target=10000, minimum_table=SIX_PLAYER_MINIMUMS,
                              red_three_values=SIX_PLAYER_RED_THREES),
    }
    out["classic-3p-cutthroat"] = dataclasses.replace(out["classic-3p"].with_options({"C-O10": True}),
                                                      name="classic-3p-cutthroat", teams=())
    out["classic-6p-3x2"] = dataclasses.replace(out["classic-6p"].with_options({"C-O11": True}),
                                                name="classic-6p-3x2", teams=())
    return out
