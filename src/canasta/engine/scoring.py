"""Scoring a hand (A.14) and deciding a match (A.15)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from canasta.engine.cards import CARD_VALUE
from canasta.engine.melds import Meld, canasta_bonus
from canasta.engine.rules import RuleSet


@dataclass(frozen=True)
class SideScore:
    """One side's hand score with its breakdown; ``total`` is their sum."""

    meld_points: int = 0
    canasta_bonuses: int = 0
    red_threes: int = 0
    going_out: int = 0
    hand_penalty: int = 0  # negative or zero
    canastas: tuple[str, ...] = field(default=())  # e.g. ("natural", "mixed concealed")
    #: the family's own lines of the score, by name (Italian, B.15: ``("five_canasta_bonus", 1000)``)
    bonuses: tuple[tuple[str, int], ...] = ()
    #: the cards left in hand counted double (a family's rule: Italian I-O37, an unopened team, B.15 item 7)
    penalty_doubled: bool = False
    #: this hand wins the match for the side at once, whatever the totals (a family's rule: a hand
    #: that its rules say wins the game, C.15.2)
    wins_match: bool = False

    @property
    def total(self) -> int:
        return (self.meld_points + self.canasta_bonuses + self.red_threes + self.going_out
                + self.hand_penalty + sum(points for _, points in self.bonuses))

    def bonus(self, name: str) -> int:
        """The points of the family's own line ``name`` (0 where it has none)."""
        return sum(points for key, points in self.bonuses if key == name)

    @property
    def undoubled_penalty(self) -> int:
        """The cards left in hand at their face value (``hand_penalty`` before it was doubled)."""
        return self.hand_penalty // 2 if self.penalty_doubled else self.hand_penalty

    def lines(self) -> tuple[tuple[str, int], ...]:
        """The lines of the breakdown, by name, in a score sheet's order (the family's own
        after going out); they sum to ``total``."""
        return (("meld_points", self.meld_points), ("canasta_bonuses", self.canasta_bonuses),
                ("red_threes", self.red_threes), ("going_out", self.going_out), *self.bonuses,
                ("cards_in_hand", self.hand_penalty))

    def as_dict(self) -> dict[str, object]:
        """The breakdown by line (``lines`` names them in order), the canastas and the total."""
        out: dict[str, object] = dict(self.lines())
        out["lines"] = [k for k, _ in self.lines()]
        out["canastas"] = list(self.canastas)
        out["total"] = self.total
        if self.penalty_doubled:  # only then, so that other breakdowns read as before
            out["cards_in_hand_doubled"] = True
            out["cards_in_hand_undoubled"] = self.undoubled_penalty
        return out


def red_three_score(rules: RuleSet, count: int, has_melded: bool, has_canasta: bool) -> int:
    """Points for a side's red threes (A.10.2, A.10.3, C-O7, A.18.3)."""
    if count == 0:
        return 0
    value = rules.red_three_points(count)
    positive = has_canasta if rules.negative_red_threes == "no_canasta" else has_melded
    return value if positive else -value


def hand_penalty(cards_or_counts: Sequence[int], counts: bool = False) -> int:
    """Minus the value of cards left in a hand (A.14 item 5)."""
    if counts:
        return -sum(CARD_VALUE[c] * n for c, n in enumerate(cards_or_counts) if n)
    return -sum(CARD_VALUE[c] for c in cards_or_counts)


def score_side(
    rules: RuleSet,
    melds: Sequence[Meld],
    red_threes: int,
    has_melded: bool,
    hand_cards: Sequence[int],
    went_out: bool,
    concealed: bool,
) -> SideScore:
    """Score one side; ``hand_cards`` are all cards left in its players' hands."""
    meld_points = sum(m.points for m in melds)
    bonuses = 0
    kinds = []
    for m in melds:
        b = canasta_bonus(rules, m)
        if b:
            bonuses += b
            kind = "natural" if m.is_natural else "mixed"
            kinds.append(kind + (" concealed" if m.concealed and rules.concealed_canasta_bonus else ""))
    has_canasta = bool(kinds)
    return SideScore(
        meld_points=meld_points,
        canasta_bonuses=bonuses,
        red_threes=red_three_score(rules, red_threes, has_melded, has_canasta),
        going_out=(200 if concealed else 100) if went_out else 0,
        hand_penalty=hand_penalty(hand_cards),
        canastas=tuple(kinds),
    )


def match_winner(rules: RuleSet, totals: Sequence[int], hands: int | None = None,
                 last: Sequence[SideScore] = ()) -> int | None:
    """Index of the winning side once a hand has ended, ``None`` to play on,
    ``-1`` for a drawn match (A.15, C-O9).  ``hands``: the hands played so far, for rules
    whose match lasts a fixed number of hands (None: the last of them has been played); the
    target does not end such a match, and a tie after its last hand plays another hand or
    draws as the tie rule says.  ``last``: the last hand's scores (per side, or per player in
    cut-throat); a side whose score :attr:`~SideScore.wins_match` wins, whatever the totals (C.15.2)."""
    at_once = [i for i, s in enumerate(last) if s.wins_match]
    if len(at_once) == 1:
        return at_once[0]
    best = max(totals)
    fixed = rules.hands_in_match()
    if fixed:
        if hands is not None and hands < fixed:
            return None
    elif best < rules.target:
        return None
    leaders = [i for i, t in enumerate(totals) if t == best]
    if len(leaders) == 1:
        return leaders[0]
    return -1 if rules.tie_rule() == "draw" else None
