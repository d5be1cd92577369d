"""Modern American initial melds (Part C, C.7): the *least* choices of groups a hand makes, those
from which no card or group can be left out with the meld still enough (C.7.1, C.7.2), for the
generating set (:mod:`.movegen`) of the initial meld from the hand and of the pick of the pack that
makes it.  Groups are counts: (key, naturals, deuces, jokers) (:data:`canasta.engine.options.Spec`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from canasta.engine.cards import (
    DEUCE_VALUE,
    JOKER,
    JOKER_RANK,
    JOKER_VALUE,
    NATURAL_RANKS,
    RANK_CARDS,
    RANK_VALUE,
    SEVEN,
    TWO,
    Card,
)
from canasta.engine.melds import WILD_MELD
from canasta.engine.moves import Group
from canasta.engine.options import Spec
from canasta.families.american.melds import CANASTA, dead_mask
from canasta.families.american.options import american_rules

if TYPE_CHECKING:
    from canasta.engine.game import Game


#: no rank dead (read, never written)
_NONE_DEAD: Final[list[bool]] = [False] * (WILD_MELD + 1)


def dead_now(g: Game) -> list[bool]:
    """:func:`.melds.dead_mask` of the table (at once when no side has a canasta)."""
    return dead_mask(g.melds) if any(g.canasta_counts) else _NONE_DEAD


#: one group an initial meld may lay, as :func:`opening_choices` reads it: the spec (key,
#: naturals, deuces, jokers), its cards, its count, whether it is a clean triple (or a meld of wild
#: cards where that opens), whether it is a Splash, and its slack (:func:`_slack`)
Row = tuple[Spec, int, int, bool, bool, int]
#: the rows of a key, by what they depend on (made once: they are the same for every hand)
_ROWS: dict[tuple[int, int, int, int, bool, bool], tuple[Row, ...]] = {}


def _rows(key: int, k: int, deuces: int, jokers: int, wild_ok: bool, splash_rule: bool) -> tuple[Row, ...]:
    """The groups an initial meld may lay of ``key`` with ``k`` natural cards of it (none for the
    meld of wild cards), ``deuces`` and ``jokers``, in the walk's order."""
    if key != WILD_MELD:
        k = min(k, CANASTA)
        deuces = min(deuces, 2)
        jokers = min(jokers, 2)
    index = (key, k, deuces, jokers, wild_ok, splash_rule)
    rows = _ROWS.get(index)
    if rows is not None:
        return rows
    specs: list[Spec] = []
    if key == WILD_MELD:
        for size in range(3, CANASTA + 1):
            for j in range(min(size, jokers) + 1):
                if size - j <= deuces:
                    specs.append((WILD_MELD, 0, size - j, j))
    else:
        for n in range(2, k + 1):
            for d in range(3):
                for j in range(3 - d):
                    w = d + j
                    if d > deuces or j > jokers or n + w < 3 or n + w > CANASTA or (w and key == SEVEN):
                        continue
                    if w and n + w == CANASTA:
                        continue  # no mixed canasta in the opening turn (C.7.4)
                    specs.append((key, n, d, j))
    rows = tuple((spec, spec[1] + spec[2] + spec[3], _value(spec),
                  (key == WILD_MELD and wild_ok) or (key != WILD_MELD and spec[1] >= 3 and spec[2] + spec[3] == 0),
                  splash_rule and spec[1] + spec[2] + spec[3] >= CANASTA and (key == WILD_MELD or spec[2] + spec[3] == 0),
                  _slack(spec, wild_ok)) for spec in specs)
    _ROWS[index] = rows
    return rows


def _group_rows(g: Game, rc: Sequence[int], deuces: int, jokers: int, skip: int, wild_ok: bool,
                splash_rule: bool) -> list[tuple[Row, ...]]:
    """Per meld key (natural ranks in order, then the meld of wild cards), the groups an initial
    meld may lay of it."""
    out: list[tuple[Row, ...]] = []
    dead = dead_now(g)
    for r in NATURAL_RANKS:
        k = rc[r]
        if r == skip or k < 2 or dead[r]:
            continue
        rows = _rows(r, k, deuces, jokers, wild_ok, splash_rule)
        if rows:
            out.append(rows)
    wild = _rows(WILD_MELD, 0, deuces, jokers, wild_ok, splash_rule)
    if wild:
        out.append(wild)
    return out


def _value(spec: Spec) -> int:
    key, n, d, j = spec
    return (RANK_VALUE[key] * n if key != WILD_MELD else 0) + d * DEUCE_VALUE + j * JOKER_VALUE


def meets(g: Game, chosen: Sequence[Spec], head: int, head_value: int, need: int) -> bool:
    """C.7.1, C.7.2 (and M-O8, M-O12) for a choice of groups (``head``: a take's natural cards
    from the hand, which make the clean triple from three on)."""
    rules = american_rules(g.rules)
    splash = rules.splash and any(
        s[1] + s[2] + s[3] >= CANASTA and (s[0] == WILD_MELD or s[2] + s[3] == 0) for s in chosen)
    if not splash and head_value + sum(_value(s) for s in chosen) < need:
        return False
    if head >= 3 or splash:
        return True
    wild_ok = rules.opening_needs == "clean_triple_or_wild_meld"
    return any((s[0] == WILD_MELD and wild_ok) or (s[0] != WILD_MELD and s[1] >= 3 and s[2] + s[3] == 0)
               for s in chosen)


def valid(chosen: Sequence[Spec]) -> bool:
    """C.5.7 within the move: an unfinished meld of wild cards and wild cards on other melds."""
    wild = -1
    mixed = False
    for key, _, d, j in chosen:
        if key == WILD_MELD:
            if wild < 0:
                wild = d + j
        elif d + j:
            mixed = True
    return wild < 0 or wild >= CANASTA or not mixed


#: more than any choice is worth: no slack
_NO_SLACK: Final = 1 << 30


def _slack(spec: Spec, wild_ok: bool) -> int:
    """The least a reduction of this group (see :func:`_least`) takes off a choice's worth while
    leaving its clean triples (or more), its C.5.7 and, the Splash aside, whether it is enough but
    for the worth: the group left out if it is no clean triple, one natural card fewer if it stays
    a clean triple or keeps its wild cards, one wild card fewer; ``_NO_SLACK`` if none.  A choice
    worth the minimum even without it is never least, nor any choice adding groups to it."""
    key, n, d, j = spec
    if key == WILD_MELD:
        return _NO_SLACK if wild_ok else d * DEUCE_VALUE + j * JOKER_VALUE
    out = _NO_SLACK
    if not (n >= 3 and d + j == 0):
        out = RANK_VALUE[key] * n + d * DEUCE_VALUE + j * JOKER_VALUE
    if n > 2 and n - 1 + d + j >= 3 and (d + j or n - 1 >= 3):
        out = min(out, RANK_VALUE[key])
    if n + d + j - 1 >= 3 and (d + j - 1 or n >= 3):
        if d:
            out = min(out, DEUCE_VALUE)
        if j:
            out = min(out, JOKER_VALUE)
    return out


def _enough(worth: int, triples: int, splashes: int, mixed: int, wild: int, need: int, clean_head: bool) -> bool:
    """:func:`_valid` and :func:`_meets` of a choice from its counts (``wild``: its wild cards'
    group's size, -1 for none; ``mixed``: its natural groups with wild cards)."""
    return ((wild < 0 or wild >= CANASTA or mixed == 0) and (splashes > 0 or worth >= need)
            and (clean_head or splashes > 0 or triples > 0))


def _least(chosen: Sequence[Spec], value: int, need: int, clean_head: bool, wild_ok: bool, splash_rule: bool) -> bool:
    """That no reduction of ``chosen`` (worth ``value`` with the head) keeps C.5.7 (:func:`_valid`)
    and is still enough (:func:`_meets`).  A reduction is the choice one group or one card smaller
    and still a choice of legal groups: a group left out, one natural card fewer in a group keeping
    two and three cards (three natural ones if it has no wild card), one wild card fewer likewise,
    or in a meld of wild cards of more than three.  Reckoned from the choice's counts (clean
    triples, Splashes, natural groups with wild cards, the wild cards' group's size) less the group
    left out or made smaller, without listing the reductions."""
    triples = splashes = mixed = 0
    wild = -1  # the wild cards' group's size, if chosen
    for key, n, d, j in chosen:
        if key == WILD_MELD:
            wild = d + j
            triples += wild_ok
        else:
            triples += n >= 3 and d + j == 0
            mixed += d + j > 0
        splashes += splash_rule and n + d + j >= CANASTA and (key == WILD_MELD or d + j == 0)

    for key, n, d, j in chosen:
        size = n + d + j
        v = (RANK_VALUE[key] * n if key != WILD_MELD else 0) + d * DEUCE_VALUE + j * JOKER_VALUE
        if key == WILD_MELD:
            t = int(wild_ok)
            sp = int(splash_rule and size >= CANASTA)
            if _enough(value - v, triples - t, splashes - sp, mixed, -1, need, clean_head):
                return False
            if size > 3:  # one wild card fewer: a deuce, or a joker
                for dd, jj in ((d - 1, j), (d, j - 1)):
                    if dd < 0 or jj < 0:
                        continue
                    if _enough(value - v + dd * DEUCE_VALUE + jj * JOKER_VALUE, triples, splashes - sp + int(
                            splash_rule and size - 1 >= CANASTA), mixed, size - 1, need, clean_head):
                        return False
            continue
        t = int(n >= 3 and d + j == 0)
        sp = int(splash_rule and size >= CANASTA and d + j == 0)
        mx = int(d + j > 0)
        if _enough(value - v, triples - t, splashes - sp, mixed - mx, wild, need, clean_head):
            return False
        for nn, dd, jj in ((n - 1, d, j), (n, d - 1, j), (n, d, j - 1)):
            if nn < 2 or dd < 0 or jj < 0 or nn + dd + jj < 3 or not (dd + jj or nn >= 3):
                continue
            clean = dd + jj == 0
            if _enough(value - v + RANK_VALUE[key] * nn + dd * DEUCE_VALUE + jj * JOKER_VALUE,
                       triples - t + int(nn >= 3 and clean),
                       splashes - sp + int(splash_rule and nn + dd + jj >= CANASTA and clean),
                       mixed - mx + int(not clean), wild, need, clean_head):
                return False
    return True


def opening_choices(g: Game, rc: Sequence[int], deuces: int, jokers: int, need: int, keep: int,
                    skip: int = -1, head: int = 0, head_value: int = 0) -> list[list[Spec]]:
    """The least initial melds (see the module docstring) a hand of rank counts ``rc`` makes,
    laying at most ``keep`` cards less than it holds.

    A depth-first walk over the groups of each key, in order, found choices in the order the walk
    meets them.  Three cuts leave out only choices that are not found: once the groups chosen so
    far are enough (:func:`_meets` only gains from more groups), any choice adding a group has that
    group as a reduction that is still enough and still keeps C.5.7, so only the choice of those
    groups alone is looked at; the Splash aside, a branch whose every card laid could not reach the
    minimum, or that could no longer hold a clean triple, is left; and so is one whose groups are
    worth the minimum even without their slack (:func:`_slack`)."""
    rules = american_rules(g.rules)
    splash_rule = rules.splash
    wild_ok = rules.opening_needs == "clean_triple_or_wild_meld"
    table = _group_rows(g, rc, deuces, jokers, skip, wild_ok, splash_rule)
    limit = sum(rc) - keep
    count = len(table)
    # from each key on: the most the natural cards of its keys laid without a wild card count,
    # the most its pairs count by the number of wild cards that make them melds (each takes one,
    # C.5.3), and whether a clean triple is left
    most = [0] * (count + 1)
    pairs: list[list[int]] = [[0] for _ in range(count + 1)]  # the best k pairs' worth, by k
    triples = [False] * (count + 1)
    worths: list[int] = []  # the pairs' worth from the key on, best first
    for i in range(count - 1, -1, -1):
        key = table[i][0][0][0]
        naturals = min(rc[key], CANASTA) if key != WILD_MELD else 0  # its groups' most natural cards
        worth = RANK_VALUE[key] * naturals if key != WILD_MELD else 0
        most[i] = most[i + 1]
        pairs[i] = pairs[i + 1]
        if naturals == 2:
            worths = sorted([*worths, worth], reverse=True)
            pairs[i] = [0]
            for w in worths:
                pairs[i].append(pairs[i][-1] + w)
        else:
            most[i] += worth
        triples[i] = triples[i + 1] or (naturals >= 3 if key != WILD_MELD else wild_ok)  # a clean triple among them
    walk = _Walk(table, limit, need, most, pairs, triples, head >= 3, wild_ok, splash_rule)
    root: list[Spec] = []
    if walk.clean_head and head_value >= need:  # the take's own group is enough
        if _least(root, head_value, need, walk.clean_head, wild_ok, splash_rule):
            walk.found.append([])
    elif not walk.cut(0, deuces, jokers, head_value, False):
        walk.walk(0, root, deuces, jokers, 0, head_value, False, False, _NO_SLACK)
    return walk.found


class _Walk:
    """The walk of :func:`opening_choices` over a hand's groups (``table``), with its bounds."""

    def __init__(self, table: list[tuple[Row, ...]], limit: int, need: int, most: list[int], pairs: list[list[int]],
                 triples: list[bool], clean_head: bool, wild_ok: bool, splash_rule: bool) -> None:
        self.table = table
        self.count = len(table)
        self.limit = limit
        self.need = need
        self.most = most
        self.pairs = pairs
        self.triples = triples
        self.clean_head = clean_head
        self.wild_ok = wild_ok
        self.splash_rule = splash_rule
        self.found: list[list[Spec]] = []

    def cut(self, i: int, d_left: int, j_left: int, value: int, triple: bool) -> bool:
        """No choice from the ``i``-th key on is enough (the Splash aside)."""
        if i == self.count:
            return True
        if self.splash_rule:
            return False
        made = self.pairs[i]
        return (value + self.most[i] + made[min(d_left + j_left, len(made) - 1)] + d_left * DEUCE_VALUE
                + j_left * JOKER_VALUE < self.need or not (self.clean_head or triple or self.triples[i]))

    def walk(self, i: int, chosen: list[Spec], d_left: int, j_left: int, laid: int, value: int, triple: bool,
             splash: bool, slack: int) -> None:
        """The choices from the ``i``-th key on, ``chosen`` not enough yet; each further choice is
        looked at here, before a call: enough, it is found if least; cut (:meth:`cut`), it is left;
        and, the Splash aside, worth the minimum even without its slack, it is never least."""
        nxt = i + 1
        if not self.cut(nxt, d_left, j_left, value, triple):
            self.walk(nxt, chosen, d_left, j_left, laid, value, triple, splash, slack)
        need = self.need
        clean_head = self.clean_head
        splash_rule = self.splash_rule
        last = nxt == self.count
        most1 = self.most[nxt]
        made = self.pairs[nxt]
        top = len(made) - 1
        left1 = self.triples[nxt] or clean_head
        for spec, size, v, t, sp, sl in self.table[i]:
            d = spec[2]
            j = spec[3]
            if d <= d_left and j <= j_left and laid + size <= self.limit:
                worth = value + v
                slk = sl if sl < slack else slack
                if not splash_rule and worth - slk >= need:
                    continue
                tr = triple or t
                spl = splash or sp
                chosen.append(spec)
                if (spl or worth >= need) and (clean_head or spl or tr):  # enough: these groups alone
                    if valid(chosen) and _least(chosen, worth, need, clean_head, self.wild_ok, splash_rule):
                        self.found.append(chosen[:])
                elif not last and (splash_rule or ((tr or left1) and worth + most1 + made[
                        d_left - d + j_left - j if d_left - d + j_left - j < top else top]
                        + (d_left - d) * DEUCE_VALUE + (j_left - j) * JOKER_VALUE >= need)):
                    self.walk(nxt, chosen, d_left - d, j_left - j, laid + size, worth, tr, spl, slk)
                chosen.pop()


def build(hand: Sequence[int], chosen: Sequence[Spec], taken: Sequence[Card] = ()) -> list[Group]:
    """The groups of a choice, with canonical suits (``taken``: cards already used by the move)."""
    left = list(hand)
    for c in taken:
        left[c] -= 1
    out: list[Group] = []
    for key, n, d, j in chosen:
        cards: list[Card] = []
        if key != WILD_MELD:
            cards += pop_cards(left, key, n)
        cards += pop_cards(left, TWO, d) + pop_cards(left, JOKER_RANK, j)
        out.append(tuple(cards))
    return out


def pop_cards(left: list[int], rank: int, k: int) -> list[Card]:
    out: list[Card] = []
    for c in RANK_CARDS[rank] if rank != JOKER_RANK else (JOKER,):
        while k and left[c]:
            left[c] -= 1
            out.append(c)
            k -= 1
    return out
