"""What the Modern American family says to a seat about the table (``RuleFamily.table_notes``):
the talons still to give and the turn card (C.1.5, C.8), the opening the side needs (C.7), the rule
of five (C.5.5), dead ranks (C.5.8), unfinished melds of aces, sevens or wild cards (C.5.6, C.5.7,
C.14.1 b), the empty tray's bar (C.10.3), going out (C.11.1) and special hands (C.13).

The notes are keys of :data:`NOTES` with a number ``{n}`` and a rank ``{rank}``; the interfaces
translate them by key, as they do the pile's notes, and never decide them again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from canasta.engine.cards import ACE, CARD_RANK, IS_NATURAL, SEVEN, Card
from canasta.engine.family import TableNote, TableSeen
from canasta.engine.moves import Move, group_cards
from canasta.engine.rules import RuleSet
from canasta.families.american.melds import CANASTA
from canasta.families.american.options import american_rules
from canasta.families.american.rules import TALONS, TURN_CARD
from canasta.families.american.special import CLA_VALUES, SIZE, TITLES, rank_counts, recognise, values

#: the notes by key, in English: ``{n}`` a number, ``{rank}`` a rank in the plural
NOTES: Final[dict[str, str]] = {
    "draw_one": "a turn draws one card from the stock, or takes the pile with a natural pair of its top card",
    "talon_next": "talon: the next side to make its initial meld from the hand receives {n} cards from the stock "
                  "after its discard",
    "talon_next.set_aside": "talon: the next side to make its initial meld from the hand receives the packet of {n} "
                            "cards set aside at the deal, after its discard",
    "talon_own": "your side received a talon of {n} cards",
    "talon_other": "the other side received a talon of {n} cards",
    "turn_card_ahead": "the turn card (the 9th card from the bottom of the stock) comes after {n} more stock cards; "
                       "once it is drawn no talon is given",
    "turn_card_drawn": "the turn card has been drawn: no more talons are given",
    "opening": "your side's initial meld needs {n} points and a clean triple: three or more natural cards of one "
               "rank, with no wild card",
    "rule_of_five": "the rule of five: a wild card goes only on a meld that already holds five natural cards",
    "dead": "dead: {rank} have a finished canasta, so nobody melds them, takes the pile with them or discards "
            "them on an empty pile",
    "unfinished_rank": "your meld of {rank} takes no wild card; unfinished at the end it costs {n}, and your side "
                       "cannot go out until it is a canasta",
    "unfinished_wild": "your meld of wild cards: no wild card goes on another meld until it is a canasta; "
                       "unfinished at the end it costs {n}",
    "empty_tray.swad": "the pile is empty: no seven, wild card, ace or dead card may be discarded on it",
    "empty_tray.aces_sevens": "the pile is empty: no ace or seven may be discarded on it while you hold another "
                              "natural card",
    "empty_tray.swad_no_dead": "the pile is empty: no seven, wild card or ace may be discarded on it",
    "go_out": "going out needs {n} canastas and no unfinished meld of aces, sevens or wild cards",
    "special_hands": "while your side has not melded, a special hand of fourteen cards (your 13 and the card "
                     "you draw) may be laid at once, with no discard: select all your cards and meld",
    **{f"special.{name}": f"a special hand was laid: {title}, worth {{n}}" for name, title in TITLES.items()},
    # a special hand's line in the log, after the player's name (C.13.3)
    **{f"laid.{name}": f"lays a special hand: {title}, worth {{n}}" for name, title in TITLES.items()},
}
#: the family's rules in a few sentences, for a rules screen or page (``RuleFamily.rule_notes``)
RULES: Final[dict[str, str]] = {
    "rules.deal": "each player is dealt 13 cards and no card is turned up: the first player draws from the stock",
    "rules.draw": "a turn draws {n} card from the stock, or takes the whole pile with a natural pair of its top card "
                  "(the pile is always frozen)",
    "rules.threes": "every three, red or black, is laid out and replaced; each colour scores apart: 1 = 100, "
                    "2 = 300, 3 = 500, 4 = 1,000, added with two canastas, subtracted with none",
    "rules.talons": "the player who makes the side's initial meld from the hand receives a talon after the discard: "
                    "4 cards from the stock to the first side to meld, 3 to the second",
    "rules.talons.set_aside": "the player who makes the side's initial meld from the hand receives a talon after the "
                              "discard: the packet of 4 set aside at the deal to the first side to meld, of 3 to the "
                              "second",
    "rules.turn_card": "the turn card is the 9th card from the bottom of the stock: once it is drawn no talon is given",
    "rules.opening": "the initial meld counts at least 125, 155 or 180 by the side's score (below 3,000, from 3,000, "
                     "from 5,000) and holds a clean triple: three or more natural cards of one rank, no wild card",
    "rules.melds": "a meld is 3 to 7 cards of one rank, with at least two natural cards and at most two wild cards; "
                   "a meld of seven is a canasta and takes no more cards",
    "rules.five": "the rule of five: after the initial meld a wild card goes only on a meld that already holds five "
                  "natural cards",
    "rules.aces_sevens": "sevens never take a wild card, and aces only in the initial meld; a canasta of natural aces or "
                         "of sevens is worth 2,500, an unfinished meld of them costs 2,500",
    "rules.wild_meld": "a meld of wild cards only (twos and jokers) is worth 2,000 to 3,000 as a canasta and costs "
                       "2,000 unfinished; while it is unfinished no wild card goes on another meld",
    "rules.dead": "a rank with a finished canasta is dead for both sides: nobody melds it, takes the pile with it or "
                  "discards it on an empty pile",
    "rules.empty_pile": "on an empty pile (the first discard, and after the pile is taken) no seven, wild card, ace or "
                        "dead card is discarded",
    "rules.out": "going out needs {n} canastas and no unfinished meld of aces, sevens or wild cards; it earns 100",
    "rules.held": "a player holding three or more aces, or three or more sevens, at the end of the hand costs the side "
                  "1,500 each time",
    "rules.special": "while the side has not melded, a player who has just drawn may lay 14 cards as a special hand at "
                     "once, with no discard: the hand ends and the side scores its value only",
    "rules.hand.pairs": "Pairs: seven natural pairs of different ranks, worth {n}",
    "rules.hand.wild_pairs": "Wild Pairs: seven pairs of different ranks, one of them two twos or two jokers, worth {n}",
    "rules.hand.miami_pairs": "Miami Pairs: five natural pairs, a pair of twos and a pair of jokers, worth {n}",
    "rules.hand.zip_code": "Zip Code: 2, 2, 3, 3 and 4 of a kind, one of the groups wild, worth {n}",
    "rules.hand.straight": "Straight: one card of each rank from ace down to four, a three, a two and a joker, worth {n}",
    "rules.hand.garbage": "Garbage: 4, 4, 3 and 3 of a kind, no wild card, worth {n}",
    "rules.hand.blast_off": "Blast Off: 5, 4, 3 and 2 of a kind, one of the groups wild, worth {n}",
    "rules.hand.triples": "Triples: four natural triples and a wild pair, worth {n}",
    "rules.hand.quads": "Quads: three natural fours of a kind and a wild pair, worth {n}",
    "rules.hand.dream_plus_4": "Dream Hand Plus 4: two natural fives of a kind and four wild cards, worth {n} and the game",
    "rules.hand.dream_plus_5": "Dream Hand Plus 5: a natural five and a natural four of a kind and five wild cards, "
                               "worth {n} and the game",
    "rules.target": "the game is to {n}, checked at the end of a hand",
}
NOTES.update(RULES)
#: an unfinished meld of natural aces or of sevens costs this at the end of the hand (C.14.1 b)
UNFINISHED_RANK: Final = 2500
#: an unfinished meld of wild cards (C.14.1 b; M-O26 for one holding the four jokers)
UNFINISHED_WILD: Final = 2000


def _key_of(cards: Sequence[Card]) -> int:
    """A meld's rank (-1: a meld of wild cards)."""
    return next((CARD_RANK[c] for c in cards if IS_NATURAL[c]), -1)


def table_notes(rules: RuleSet, seen: TableSeen) -> list[TableNote]:
    """The notes of Part C for a seat that sees ``seen`` (a spectator: the table's public ones)."""
    opts = american_rules(rules)
    notes: list[TableNote] = []
    fields = seen.fields
    special = str(fields.get("special_hand", "") or "")
    if special:
        worth = values(opts).get(special, CLA_VALUES.get(special, 0))
        return [TableNote(f"special.{special}", worth)] if f"special.{special}" in NOTES else []
    notes.append(TableNote("draw_one"))
    talons = list(fields.get("talons", ()) or ())
    given = [t for t in talons if t]
    if seen.stock_size >= TURN_CARD:
        if len(given) < len(TALONS) and not all(seen.opened):
            aside = opts.talon_source == "set_aside"  # M-O14
            notes.append(TableNote("talon_next.set_aside" if aside else "talon_next", TALONS[len(given)]))
        notes.append(TableNote("turn_card_ahead", seen.stock_size - TURN_CARD))
    else:
        notes.append(TableNote("turn_card_drawn"))
    for side, size in enumerate(talons):
        if size and seen.side >= 0:
            notes.append(TableNote("talon_own" if side == seen.side else "talon_other", size))
    mine = seen.side >= 0 and bool(seen.opened) and not seen.opened[seen.side]
    if mine:
        notes.append(TableNote("opening", seen.minimum))
        if opts.special_hands != "none":
            notes.append(TableNote("special_hands"))
    elif seen.side >= 0 and opts.rule_of_five:
        notes.append(TableNote("rule_of_five"))
    dead = sorted({_key_of(m) for side in seen.melds for m in side if len(m) >= CANASTA} - {-1})
    notes.extend(TableNote("dead", rank=r) for r in dead)
    if seen.side >= 0:
        for m in seen.melds[seen.side]:
            if len(m) < CANASTA:
                key = _key_of(m)
                if key in (ACE, SEVEN) and all(IS_NATURAL[c] for c in m):
                    notes.append(TableNote("unfinished_rank", UNFINISHED_RANK, key))
                elif key < 0:
                    notes.append(TableNote("unfinished_wild", UNFINISHED_WILD))
    if seen.pile_size == 0:
        notes.append(TableNote(f"empty_tray.{opts.empty_tray_bar}"))
    notes.append(TableNote("go_out", rules.canastas_to_go_out))
    return notes


def rule_notes(rules: RuleSet) -> list[TableNote]:
    """Part C in a few sentences with the rule set's own numbers (its options decide which are said:
    the rule of five, the special hands and their values)."""
    opts = american_rules(rules)
    out = [TableNote("rules.deal"), TableNote("rules.draw", opts.stock_draw), TableNote("rules.threes"),
           TableNote("rules.talons.set_aside" if opts.talon_source == "set_aside" else "rules.talons"),
           TableNote("rules.turn_card"), TableNote("rules.opening"),
           TableNote("rules.melds")]
    if opts.rule_of_five:
        out.append(TableNote("rules.five"))
    out += [TableNote("rules.aces_sevens"), TableNote("rules.wild_meld"), TableNote("rules.dead")]
    if opts.empty_tray_bar == "swad":
        out.append(TableNote("rules.empty_pile"))
    out += [TableNote("rules.out", rules.canastas_to_go_out), TableNote("rules.held")]
    hands = values(opts)
    if hands:
        out.append(TableNote("rules.special"))
        out += [TableNote(f"rules.hand.{name}", worth) for name, worth in hands.items() if f"rules.hand.{name}" in NOTES]
    out.append(TableNote("rules.target", rules.target))
    return out


def laid_note(rules: RuleSet, move: Move) -> TableNote | None:
    """A meld move of all fourteen cards that make a special hand, as the log says it (C.13.3):
    nothing else melds fourteen cards at once with no discard."""
    cards = [c for g in move.groups for c in group_cards(g)]
    if len(cards) != SIZE:
        return None
    found = recognise(american_rules(rules), rank_counts(cards))
    return TableNote(f"laid.{found[0]}", found[1]) if found is not None else None
