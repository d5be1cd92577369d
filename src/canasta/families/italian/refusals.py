"""The Italian family's own refusal forms (variant ``italian``), registered with
the engine's registry when the family is imported: the shared refusals worded or
cited its own way (the ask of B.13.4 rather than A.12.3, the stock of B.14, the
melds of B.6 ...).  Shared code asks ``RuleFamily.refusal`` for the form of its
own refusals; the family's rules raise these keys directly."""

from __future__ import annotations

from canasta.errors import register_refusals

_NOT_GOING_OUT = "black threes may be melded only in the turn you go out"

register_refusals(
    # -- asking to go out (B.13.4: as A.12.3, the answer binding)
    ("ANSWER_PENDING.italian", "B.13.4", "your partner asked \"may I go out?\": answer yes or no"),
    ("NOTHING_TO_ANSWER.italian", "B.13.4", "nobody asked to go out"),
    ("NO_PARTNER.italian", "B.13.4", "you have no partner to ask"),
    ("ALREADY_ASKED.italian", "B.13.4", "you have already asked this turn"),
    ("ASK_TOO_LATE.italian", "B.13.4", "ask before you are down to your last card"),
    ("CANNOT_GO_OUT.italian", "B.13.4", "ask only when you can go out now"),
    ("MUST_GO_OUT.italian", "B.13.4", "your partner said yes: you must go out this turn"),
    ("STOCK_EMPTY.italian", "B.14", "the stock is empty"),
    ("PARTNER_SAID_NO.italian", "B.13.4", "your partner said no: you may not go out this turn"),
    ("EMPTY_MELD.italian", "B.6.1", "meld needs cards"),
    ("EMPTY_MELD.italian_group", "B.6.1", "a meld group needs cards"),
    ("RED_THREE_MELD.italian", "B.6.6", "red threes are never melded"),
    ("MIXED_RANKS.italian", "B.6.1", "a meld is made of one rank; this group mixes {ranks}"),
    ("WRONG_TARGET.italian", "B.6.4", "these cards are {rank}, not {target_rank}"),
    ("ONE_MELD_PER_RANK.italian", "B.6.4", "put all the {rank} in one group: a team has one open meld of each rank"),
    ("ONE_MELD_PER_RANK.italian_wild", "B.6.4",
     "put all wild cards in one group: a team has one open meld of each rank"),
    ("BLACK_THREE_MIXED.italian", "B.6.6", "black threes are melded without wild cards"),
    ("BLACK_THREES_NOT_GOING_OUT.italian", "B.6.6", _NOT_GOING_OUT),
    ("BLACK_THREE_COUNT.italian", "B.6.6", "a black-three meld has 3 to {top} cards"),
    ("NEEDS_TWO_NATURALS.italian", "B.6.2", "a meld needs at least two natural cards"),
    ("MELD_TOO_SMALL.italian", "B.6.1", "a meld needs at least three cards"),
    ("TOO_MANY_WILDS.italian", "B.6.2", "a meld may hold at most three wild cards"),
    ("INITIAL_MELD_TOO_LOW.italian", "B.9.1", "your opening counts {value}; your team needs {need}."),
)
