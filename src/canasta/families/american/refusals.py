"""The Modern American family's own refusal forms, registered with the engine's registry when the
family is imported: the refusals only its rules give (the rule of five, dead ranks, the empty tray,
the clean triple, special hands ...), and the shared refusals worded or cited its own way (variant
``american``: asking to go out under C.11.3 rather than A.12.3, the melds of C.5 ...).  Shared code
asks ``RuleFamily.refusal`` for the form of its own refusals; the family's rules raise these keys
directly."""

from __future__ import annotations

from canasta.engine.errors import register_refusals

_BAR = "the tray is empty: you may not discard {}"

register_refusals(
    # -- melds (C.5)
    ("RANK_DEAD", "C.5.8", "{rank} are dead: a canasta of them is finished on the table, so nobody melds them"),
    ("SEVENS_NO_WILD", "C.5.6", "sevens never take a wild card"),
    ("ACES_NO_WILD", "C.5.6", "aces take wild cards only in your side's initial meld"),
    ("RULE_OF_FIVE", "C.5.5", "a wild card goes only on a meld that holds at least five natural cards (the rule of five)"),
    ("OPENING_MIXED_CANASTA", "C.7.4", "the turn of the initial meld may finish a natural canasta, never a mixed one"),
    ("MIXED_RANKS.american_wild", "C.5.7", "a meld of wild cards holds only twos and jokers"),
    ("MELD_OVER_SEVEN.american", "C.5.2", "a meld holds at most seven cards"),
    ("EIGHTH_CARD_NOT_OUT", "C.5.2",
     "a card goes on a finished canasta only in the move that leaves you one card to go out with (M-O9)"),
    ("EIGHTH_WILD_ON_NATURAL", "C.5.2",
     "a wild card goes on a finished canasta only if it is mixed, of a rank that takes wild cards (M-O9)"),
    ("MELD_TOO_SMALL.american", "C.5.1", "a new meld needs at least three cards"),
    ("THREES_NEVER_MELDED.american", "C.3.1", "threes are never melded: they are laid out and replaced"),
    ("NEEDS_TWO_NATURALS.american", "C.5.4", "a meld needs at least two natural cards"),
    ("TOO_MANY_WILDS.american", "C.5.4", "a meld holds at most two wild cards"),
    ("WILD_MELD_OPEN.american", "C.5.7",
     "your side has an unfinished meld of wild cards: no wild card goes on another meld until it is a canasta"),
    ("EMPTY_MELD.american", "C.5.1", "meld needs cards"),
    ("EMPTY_MELD.american_group", "C.5.1", "a meld group needs cards"),
    ("MIXED_RANKS.american", "C.5.1", "a meld is made of one rank; this group mixes {ranks}"),
    ("WRONG_TARGET.american", "C.5.3", "these cards are {rank}, not {target_rank}"),
    ("ONE_MELD_PER_RANK.american", "C.5.3", "put all the {rank} in one group: a side has one meld of each rank"),
    ("ONE_MELD_PER_RANK.american_wild", "C.5.3", "put all the wild cards in one group: a side has one meld of wild cards"),
    # -- the initial meld (C.7)
    ("INITIAL_MELD_TOO_LOW.american", "C.7.1", "your initial meld counts {value}; your side needs {need}"),
    ("NO_CLEAN_TRIPLE", "C.7.2",
     "the initial meld needs a clean triple: three or more natural cards of one rank, with no wild card"),
    # -- picking the pack (C.9)
    ("PILE_EMPTY.american", "C.9.1", "the tray is empty: there is no pack to pick"),
    ("PILE_BLOCKED.american_wild", "C.9.1", "a wild card is on top of the pack: nobody can pick it now"),
    ("PILE_DEAD_RANK", "C.9.1", "{rank} are dead: the pack cannot be picked with one on top"),
    ("NEEDS_NATURAL_PAIR.american", "C.9.1", "to pick the pack you need a natural pair of {rank} from your hand"),
    # -- discards (C.10)
    ("THREE_DISCARD", "C.10.2", "a three is never discarded"),
    ("WILD_DISCARD", "C.10.2", "a wild card is discarded only as your last card, or when you hold nothing else"),
    ("EMPTY_TRAY_BARRED", "C.10.3", _BAR.format("a seven, a wild card, an ace or a dead card")),
    ("EMPTY_TRAY_BARRED.aces_sevens", "C.10.3", _BAR.format("an ace or a seven while you hold another natural card")),
    ("EMPTY_TRAY_BARRED.swad_no_dead", "C.10.3", _BAR.format("a seven, a wild card or an ace")),
    ("TAKE_BACK_FIRST", "C.10.4",
     "the tray is empty and you hold no card you may discard: take a card back from your melds and discard it "
     "(M-O17)"),
    ("TAKE_BACK_NOT_NEEDED", "C.10.4",
     "you take melded cards back only on an empty tray, holding no card you may discard (M-O17)"),
    ("TAKE_BACK_WHICH", "C.10.4",
     "take back a natural card you may then discard, from a meld that stays a meld of three; from a canasta "
     "only if no other meld can give one (M-O17)"),
    ("NO_LEGAL_DISCARD_LEFT", "C.10.4",
     "the tray is empty: you would be left with no card you may discard (M-O17)"),
    ("KEEP_CARD_TO_HOLD", "C.10.5",
     "keep a card to hold as well as your discard: you cannot go out before your side has {need} canastas"),
    # -- going out (C.11)
    ("NEEDS_CANASTAS.american", "C.11.1", "you cannot go out: your side needs {need} canastas, so keep a card to discard"),
    ("UNFINISHED_MELD_BLOCKS", "C.11.1",
     "you cannot go out while your side has an unfinished meld of natural aces, of sevens or of wild cards"),
    ("KEEP_DISCARD.american", "C.11.2", "keep a card to discard: only a special hand is laid without one"),
    # -- special hands (C.13)
    ("SPECIAL_HAND_AFTER_DRAW", "C.13.1", "a special hand is laid just after drawing from the stock"),
    ("NOT_A_SPECIAL_HAND", "C.13.4",
     "these cards are not a special hand, and without one you must keep a card to discard"),
    # -- asking to go out (C.11.3: as A.12.3, the answer binding)
    ("ANSWER_PENDING.american", "C.11.3", "your partner asked \"may I go out?\": answer yes or no"),
    ("NOTHING_TO_ANSWER.american", "C.11.3", "nobody asked to go out"),
    ("NO_PARTNER.american", "C.11.3", "you have no partner to ask"),
    ("ALREADY_ASKED.american", "C.11.3", "you have already asked this turn"),
    ("ASK_TOO_LATE.american", "C.11.3", "ask before you are down to your last card"),
    ("CANNOT_GO_OUT.american", "C.11.3", "ask only when you can go out now"),
    ("MUST_GO_OUT.american", "C.11.3", "your partner said yes: you must go out this turn"),
    ("PARTNER_SAID_NO.american", "C.11.3", "your partner said no: you may not go out this turn"),
)
