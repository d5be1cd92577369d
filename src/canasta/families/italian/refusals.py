"""The Italian family's own refusal forms, registered with the engine's registry
when the family is imported: the refusals only its rules give (the opening of B.9,
the closed canastas of B.6.4 and B.10.6, going out under B.13 ...), and the shared
refusals worded or cited its own way (variant ``italian``: the ask of B.13.4 rather
than A.12.3, the stock of B.14, the melds of B.6 ...).  Shared code asks
``RuleFamily.refusal`` for the form of its own refusals; the family's rules raise
these keys directly."""

from __future__ import annotations

from canasta.engine.errors import register_refusals

_NOT_GOING_OUT = "black threes may be melded only in the turn you go out"
_WILD_OPEN = "your team has an open meld of wild cards: close it as a canasta before completing a dirty canasta"
_KEEP = "you cannot go out: your team needs {} first, so keep a card to discard"

register_refusals(
    # -- the refusals only Italian Canasta gives
    ("MUST_ASK", "B.13.4", "ask your partner \"may I go out?\" first (I-O36)"),
    ("NEEDS_CANASTAS", "B.13.1", _KEEP.format("a clean and a dirty canasta")),
    ("NEEDS_CANASTAS.two_incl_one_clean", "B.13.1", _KEEP.format("two canastas, one of them clean")),
    ("NEEDS_CANASTAS.two_any", "B.13.1", _KEEP.format("two canastas of natural cards")),
    ("WILD_MELD_OPEN", "B.8.5", _WILD_OPEN),
    ("WILD_MELD_OPEN.going_out", "B.13.3", "you cannot go out while your team has an open meld of wild cards"),
    ("DEUCE_MELD_OPEN", "B.8.5",
     "while your team has an unfinished meld of deuces, deuces may not be used as wild cards elsewhere"),
    ("KEEP_FINAL_DISCARD", "B.13.2", "you must keep a card for the final discard"),
    ("KEEP_FINAL_DISCARD.pozzo", "B.13.2",
     "keep at least one card in your hand when you take the pozzo: you must still discard at the end of "
     "the turn"),
    ("BAD_FINAL_DISCARD", "B.13.2", "the card you go out with may not be a joker, a deuce or a black three"),
    ("BAD_FINAL_DISCARD.left_wild", "B.13.2",
     "you would be left with a wild card, which you may not go out with"),
    ("BAD_FINAL_DISCARD.left_black_three", "B.13.2",
     "you would be left with a black three, which you may not go out with"),
    ("THREES_NEVER_MELDED", "B.6.6", "threes are never melded in Italian Canasta"),
    ("NO_SUCH_MELD", "B.6.4", "your team has no open meld of {rank} to add to"),
    ("RANK_CLOSED", "B.6.4", "your team has closed its {rank}; no new meld of that rank"),
    ("TOO_MANY_WILDS.fewer_than_naturals", "B.6.2", "a meld must hold fewer wild cards than natural cards"),
    ("TOO_MANY_WILDS.one_with_two", "B.6.2", "with only two natural cards a meld may hold one wild card"),
    ("TOO_MANY_WILDS.two", "B.6.2", "a meld may hold at most two wild cards"),
    ("MELD_OVER_SEVEN", "B.6.3", "a meld holds at most seven cards: it closes as a canasta at seven"),
    ("BAD_WILD_MELD", "B.8.0",
     "a meld of wild cards must read as deuces with at most the allowed jokers, or as jokers with at most "
     "the allowed deuces (e.g. 2C 2D 2H, or JK JK 2C)"),
    ("OPENING_NOT_CLEAN", "B.9.2",
     "an opening at {need} must be clean: no jokers or deuces, except a meld of deuces or of two jokers "
     "and a deuce"),
    ("OPENING_NOT_CLEAN.meld", "B.9.2",
     "your team opened clean this turn: no jokers or deuces may be laid in it (except in a clean meld of "
     "wild cards)"),
    ("OPENING_NOT_CLEAN.take", "B.9.2", "no jokers or deuces in the turn of a clean opening"),
    ("DIRTY_OPENING_NO_POZZO", "B.9.3", "after a dirty opening you may not take the pozzo in the same turn"),
    ("ALREADY_OPENED", "B.5.1", "your team has already opened"),
    ("CANNOT_OPEN", "B.9.1", "you cannot open with the cards in your hand"),
    ("MUST_OPEN", "B.5.1", "you announced an opening: open before you discard"),
    ("OPENING_NOT_ANNOUNCED", "B.5.1",
     "under I-O31 you open by announcing it before you draw ('open', one card); you drew two cards this turn"),
    ("PILE_BLOCKED_CLOSED_RANK", "B.10.6",
     "your team has closed a canasta of {rank}: the pozzo cannot be taken with that card on top"),
    ("PILE_BLOCKED_CLOSED_RANK.other", "B.10.6",
     "the other side has closed a canasta of {rank}: the pozzo cannot be taken with that card on top"),
    ("PILE_BLOCKED.pozzo_wild", "B.10.2", "a wild card is on top of the pozzo: it cannot be taken now"),
    ("PILE_BLOCKED.pozzo_three", "B.10.1", "a black three is on top of the pozzo: it cannot be taken now"),
    ("PILE_EMPTY", "B.10", "the pozzo is empty"),
    ("NEEDS_NATURAL_PAIR", "B.10.3",
     "to take the pozzo you need {need} natural {rank} from your hand, melded with its top card"),
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
