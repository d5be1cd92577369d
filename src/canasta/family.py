"""Rule families: the words and answers every family shares.

A rule family (Classic, SPEC Part A; Italian, Part B; any other) is a
:class:`~canasta.game.RuleFamily` registered with
:func:`~canasta.game.register_family`; its code lives in a package of its own
under :mod:`canasta.families`.  This module holds what the core and the
interfaces say about any family: the notes on the pile (:data:`PILE_NOTES`, by
key, so an interface translates them) and the count of a proposed opening
(:class:`MeldCount`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, NamedTuple

from canasta.cards import RANK_PLURALS

#: the pile's (or pozzo's) state in words (A.8, A.9, B.10): English sentences with
#: ``{n}`` (a count) or ``{rank}`` (a rank, in the plural); an interface translates them
#: by key (they are extracted for the catalogs from here, as data)
PILE_NOTES: Final[dict[str, str]] = {
    "empty": "empty",
    "frozen": "FROZEN for everyone: a wild card is in it; only a natural pair matching the top card takes it",
    "frozen_pozzo": "FROZEN: a wild card is in it; only {n} natural cards matching the top card take it",
    "unmelded": "frozen for your side until it has melded: a natural pair matching the top card, with enough "
                "for your initial meld, takes it",
    "unopened": "your team must open first (or open in the same turn) to take it",
    "face_down": "the top card is face down",
    "wild_on_top.pile": "BLOCKED: a wild card is on top, so nobody can take the pile now",
    "wild_on_top.pozzo": "BLOCKED: a wild card is on top, so nobody can take the pozzo now",
    "black_three_on_top.pile": "BLOCKED: a black three is on top, so the next player cannot take the pile",
    "black_three_on_top.pozzo": "BLOCKED: a black three is on top, so the next player cannot take the pozzo",
    "red_three_on_top.pile": "BLOCKED: a red three is on top of the pile",
    "red_three_on_top.pozzo": "BLOCKED: a red three is on top of the pozzo",
    "closed_rank_own": "BLOCKED for you: your team closed a canasta of {rank}",
    "closed_rank_other": "BLOCKED for you: the other side closed a canasta of {rank}",
    "open_pair": "open: a natural pair matching the top card takes it",
    "open": "open: a natural pair, one natural card and a wild card, or a meld of the top card's rank takes it",
}


class PileNote(NamedTuple):
    """One note on the pile: a key of :data:`PILE_NOTES` and its fields."""

    key: str
    n: int = 0  # {n}: a count
    rank: int = -1  # {rank}: a rank (0 the twos ... 13 the jokers), written in the plural

    @property
    def text(self) -> str:
        """The note in English."""
        return PILE_NOTES[self.key].format(n=self.n, rank=RANK_PLURALS[self.rank] if self.rank >= 0 else "")


@dataclass(frozen=True)
class MeldCount:
    """A proposed initial meld (opening) as the minimum sees it (:meth:`Game.meld_count`)."""

    count: int  # what the move counts towards the minimum
    minimum: int  # the minimum of the mover's side in this hand
    applies: bool  # False once the side has melded, or when going out concealed exempts it (C-O5)
    why_not: str  # why the minimum does not apply ("" when it does)

    @property
    def enough(self) -> bool:
        """The count reaches the minimum, or no minimum applies."""
        return not self.applies or self.count >= self.minimum


@dataclass(frozen=True)
class FamilyWords:
    """What a family calls its things, for the interfaces (:attr:`RuleFamily.words
    <canasta.game.RuleFamily.words>`; the discards' name is :attr:`RuleFamily.pile_word
    <canasta.game.RuleFamily.pile_word>`).  English identifiers: an interface translates them
    where it shows them (:mod:`canasta.present`)."""

    canastas: tuple[str, str]  # a canasta without / with wild cards: ("natural", "mixed"), ("clean", "dirty")
    opened: str  # a side that has laid its first meld "has melded" (Classic) or "has opened" (Italian)
    minimum_shown: str  # the first meld's minimum by score: "bands" (a table, A.7.1) or "samples" (a formula, B.9.1)
    pile_fanned: int  # cards of the discards a table shows fanned out (the pozzo's are counted out: more)
    wilds: str  # how wild cards are counted on a meld: "wild" ("2 wild cards") or "pinelle" ("1 pinella, 1 jolly")
    title: str = ""  # the game's name, "Classic Canasta" (empty: the family's name)


@dataclass(frozen=True)
class PlayTuning:
    """How the heuristic players (basic, advanced) play a family: data the family
    gives (:attr:`RuleFamily.play <canasta.game.RuleFamily.play>`), not tests of it."""

    keep_pair_for_pile: bool  # keep a natural pair back to take a big pile
    track_shedding: bool  # read what the next player sheds
    black_three_discard: int  # how much a black three is worth discarding (it blocks the next player)
    meld_takes_pile: bool  # a card of a rank the next side has melded lets it take an unfrozen pile
    one_and_wild_takes: bool  # one natural card and a wild card take an unfrozen pile (A.9.3)
    frozen_need: int  # natural cards of the top's rank the bot assumes take a frozen pile
    classic_scale: bool  # feeding danger scaled by classic_danger_scale, not danger_scale


@dataclass(frozen=True)
class ReviewMarks:
    """The points lost (at least) from which a game review marks a decision an inaccuracy,
    a mistake or a blunder (:mod:`canasta.review`): data each family gives, measured on its
    own scale of points (:attr:`RuleFamily.review_marks <canasta.game.RuleFamily.review_marks>`;
    docs/review.md says how)."""

    inaccuracy: float
    mistake: float
    blunder: float

    def thresholds(self) -> tuple[tuple[str, float], ...]:
        """(mark, points) from the heaviest down."""
        return (("blunder", self.blunder), ("mistake", self.mistake), ("inaccuracy", self.inaccuracy))


@dataclass(frozen=True)
class SearchTuning:
    """How the expert searches in a family (:attr:`RuleFamily.search
    <canasta.game.RuleFamily.search>`), each measured against the advanced player
    (README, "Strength")."""

    worlds: int  # most sampled worlds per decision, when the budget names none
    drop_z: float | None  # a choice this many standard errors behind the best is dropped (None: never)
    scored: bool  # value positions by the family's scoring (else the rough value of the first version)
    #: where three or more sides play, a rollout's position (the hand not over) is valued against
    #: the best other side ("best") or the others' mean ("mean"); a finished hand always counts
    #: its lead over the best other side
    rivals: str = "best"

    def __post_init__(self) -> None:
        if self.rivals not in ("best", "mean"):
            raise ValueError(f"SearchTuning.rivals is 'best' or 'mean', not {self.rivals!r}")


__all__ = ["PILE_NOTES", "FamilyWords", "MeldCount", "PileNote", "PlayTuning", "SearchTuning"]
