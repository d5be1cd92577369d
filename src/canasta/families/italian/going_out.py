"""Italian going out (B.13): can the player to move meld every card (but a
final discard) this turn?

Decided by :func:`italian_can_go_out`, an exact search over the ways each
rank's cards and the wild cards can be laid (:func:`going_out_possible`), whose
answers are kept (in bounded caches keyed by the rule set itself: a
:class:`~canasta.engine.rules.RuleSet` hashes in constant time); for a team that has
not opened, the openings that could start the turn, each followed by that
search (:func:`_opening_way_out`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from canasta.engine.cards import JOKER, JOKER_RANK, NATURAL_RANKS, RANK_CARDS, THREE, TWO
from canasta.engine.errors import IllegalMoveError
from canasta.engine.melds import WILD_MELD, Meld
from canasta.engine.moves import MELD, Move
from canasta.engine.options import Spec
from canasta.engine.rules import RuleSet
from canasta.engine.state import (
    ANSWER_PHASE,
    ASK_NO,
    ASK_YES,
    MELD_PHASE,
    DrawMode,
)
from canasta.families.italian import rules as italian
from canasta.families.italian.melds import (
    CANASTA,
    it_canasta,
    it_group_error,
    wild_meld_is_clean,
    wild_meld_kind,
)
from canasta.families.italian.openings import groups_from
from canasta.families.italian.options import ItalianRules, italian_rules
from canasta.families.italian.state import part_of

if TYPE_CHECKING:
    from canasta.engine.game import Game

# ---------------------------------------------------------------------------- Italian

def italian_can_go_out(g: Game, assume_yes: bool = False) -> bool:
    """Whether the player to move can still go out this turn (melding every card
    but a legal final discard, B.13), decided exactly.  An opened team's turn is
    :func:`going_out_possible`'s question; a team that has not opened may open and
    go out in the same turn (:func:`_opening_way_out`).  ``assume_yes``: as if the
    partner had already said yes (for deciding whether asking makes sense).  The
    search is exact and always completes."""
    seat = g.turn
    side = g.side_of[seat]
    house = italian_rules(g.rules)
    if g.ask == ASK_NO or (house.asking_partner == "required" and g.has_partner(seat) and g.ask != ASK_YES
                           and not assume_yes):
        return False  # a "no", or asking is required and has not been answered yes (B.13.4)
    if g.opened[side]:
        return _opened_way_out(g, seat, part_of(g).clean_turn, house)
    return _opening_way_out(g, seat)


def _opened_way_out(g: Game, seat: int, clean_turn: bool, house: ItalianRules) -> bool:
    """The going-out search for the team's melds as they are on the table (for an
    unopened team, none), ``clean_turn`` saying whether the rest of the turn must
    be clean (B.9.2); ``house``: the rule set's Italian options. The partner's answer
    is the caller's business."""
    side = g.side_of[seat]
    r = g.rules
    melds = g.melds[side]
    rc = g.rank_counts[seat]
    # a quick necessary condition: a natural card with no meld of its rank to join and
    # no second card of its rank can only be the final discard, so at most one such
    loose = 0
    forced = -1  # the one card that can only be the final discard, if any
    for x in NATURAL_RANKS:
        if rc[x] == 1 and x not in melds:
            loose += 1
            forced = x
    b = rc[THREE]
    if b and not (house.black_three_melds != "never" and 3 <= b <= (6 if house.black_three_melds == "going_out_3_to_6"
                                                                else 4)):
        loose += b
        forced = THREE
    if loose > 1:
        return False
    # more quick necessary conditions: a pair with no meld of its rank needs a wild
    # card; and the canastas this turn could close at most (each rank's cards with
    # every wild card) must be able to meet the requirement (B.13.1)
    wilds = rc[TWO] + rc[JOKER_RANK]
    pairs = 0
    can_clean = can_dirty = 0
    for x in NATURAL_RANKS:
        k = rc[x]
        m = melds.get(x)
        if m is None:
            if k == 2:
                pairs += 1
            size = k
        else:
            size = m.size + k
        can_clean += size // CANASTA
        can_dirty += (size + wilds) // CANASTA if size else 0
    if pairs > wilds:
        return False
    clean, dirty, natural = italian.closed_counts(g, side)
    if not italian.requirement_met(r, clean, dirty, natural):
        wm = melds.get(WILD_MELD)
        w = (wilds + (wm.size if wm is not None else 0)) // CANASTA if house.wild_canastas_count else 0
        if not italian.requirement_met(r, clean + can_clean + w, dirty + can_dirty + w, natural + can_dirty):
            return False
    open_melds = tuple(sorted((k, m.naturals, m.deuces, m.jokers) for k, m in melds.items() if k != THREE))
    closed_ranks = frozenset(m.rank for m in part_of(g).closed[side])
    key = (r, tuple(rc), open_melds, min(clean, 2), min(dirty, 2), min(natural, 2), closed_ranks,
           clean_turn)
    found = _OUT_ANSWERS.get(key)
    if found is None:
        if len(_OUT_ANSWERS) >= _OUT_ANSWERS_KEPT:
            _OUT_ANSWERS.clear()
        found = _OUT_ANSWERS[key] = going_out_possible(r, tuple(rc), open_melds, clean, dirty, natural,
                                                       closed_ranks, clean_turn, forced)
    return found


def _opening_way_out(g: Game, seat: int) -> bool:
    """Whether a team that has not opened can open and go out in this turn (B.9
    with B.13.1: the canastas may be completed in the going-out turn).

    The turn's first meld move is the opening (it must reach the minimum, and be
    clean where B.9.2 says so, which makes the whole turn clean); the rest of the
    turn is an opened team's.  So: no way out for an opened team with an empty
    table (and that clean flag) means none here; otherwise the openings are tried,
    each laid on a copy and followed by the opened team's exact search.

    Only the *minimal* openings need trying.  If a way out opens with O, a
    smaller opening O' (natural groups shrunk, even to nothing; the wild-card group
    and the black threes as in O) that still reaches the minimum also works: O'
    is legal whenever O is (it closes fewer melds and leaves the same meld of
    wild cards), and its next move can lay the rest of O as one move, legal
    because it ends on O's very table (it closes a part of what O closed, with the
    same wild meld open after it); the rest of the turn then follows as before.
    So the openings tried are every wild-card group (or none) with natural groups
    that reach the minimum and none of which can shrink without falling short;
    and, when black threes can be melded (I-O17: only in the going-out move), the
    openings that go out at once."""
    r = g.rules
    if g.phase not in (MELD_PHASE, ANSWER_PHASE) or part_of(g).opening_draw == DrawMode.UNANNOUNCED:
        return False
    need = g.minimum(seat)
    house = italian_rules(r)
    clean = house.opening_must_be_clean(need)
    if not _opened_way_out(g, seat, clean, house):
        return False
    key = (r, tuple(g.rank_counts[seat]), need)
    found = _OPENING_ANSWERS.get(key)
    if found is None:
        if len(_OPENING_ANSWERS) >= _OUT_ANSWERS_KEPT:
            _OPENING_ANSWERS.clear()
        found = _OPENING_ANSWERS[key] = _try_openings(g, seat, need, clean)
    return found


_OPENING_ANSWERS: dict[tuple[object, ...], bool] = {}

_Spec = Spec  # (meld key, naturals, deuces, jokers) of one group of an opening


def _try_openings(g: Game, seat: int, need: int, clean: bool) -> bool:
    """The search of :func:`_opening_way_out` (the partner's leave is taken as given:
    the caller has checked it)."""
    r = g.rules
    house = italian_rules(r)
    rc = g.rank_counts[seat]
    vals = g.card_value
    deuce_v = vals[RANK_CARDS[TWO][0]]
    joker_v = vals[JOKER]
    nd, nj = rc[TWO], rc[JOKER_RANK]
    probe = g.copy()
    probe.ask = ASK_YES  # as if the partner had said yes (asked or not, the caller has found it may)
    probe.phase = MELD_PHASE

    def works(spec: list[_Spec]) -> bool:
        move = Move(MELD, tuple(groups_from(probe.hands[seat], spec)))
        try:
            plan = italian.plan_meld(probe, move)
        except IllegalMoveError:
            return False
        after = probe.copy()
        after.family.lay(after, seat, plan)
        if after.hand_sizes[seat] == 0:
            return True  # went out in the opening itself (I-O23 discard_optional)
        return _opened_way_out(after, seat, part_of(after).clean_turn, house)

    # the wild-card group of the opening: none, or any legal one from the hand
    wild_groups: list[tuple[int, int]] = [(0, 0)]
    for d in range(min(nd, CANASTA) + 1):
        for j in range(min(nj, CANASTA - d) + 1):
            if d + j >= 3 and it_group_error(house, 0, d, j, True) is None and (not clean or wild_meld_is_clean(d, j)):
                wild_groups.append((d, j))
    ranks = [x for x in NATURAL_RANKS if rc[x] >= 2]
    for wd, wj in wild_groups:
        base = wd * deuce_v + wj * joker_v
        chosen: list[_Spec] = [(WILD_MELD, 0, wd, wj)] if wd + wj else []
        for spec in _minimal_openings(r, rc, vals, ranks, need - base, nd - wd, nj - wj, clean):
            if works(chosen + spec):
                return True
    b = rc[THREE]
    if b >= 3 and house.black_three_melds != "never":
        return any(works(spec) for spec in _whole_openings(r, rc, b))
    return False


def _shapes(r: RuleSet, k: int, deuces: int, jokers: int, clean: bool) -> list[tuple[int, int, int]]:
    """The legal groups (naturals, deuces, jokers) of a natural rank from ``k`` naturals."""
    house = italian_rules(r)
    out = []
    for n in range(2, min(k, CANASTA) + 1):
        for d in range((0 if clean else min(deuces, 3)) + 1):  # a clean group: no wild card at all
            for j in range((0 if clean else min(jokers, 3)) + 1):
                if 3 <= n + d + j <= CANASTA and it_group_error(house, n, d, j, False) is None:
                    out.append((n, d, j))
    return out


def _minimal_openings(r: RuleSet, rc: list[int], vals: tuple[int, ...], ranks: list[int], need: int,
                      deuces: int, jokers: int, clean: bool) -> Iterator[list[_Spec]]:
    """Natural groups worth ``need`` or more (with the wild cards left), none of
    which can shrink (to a smaller legal group or to nothing) and still reach it;
    the bigger groups first."""
    if need <= 0:
        yield []
        return
    deuce_v = vals[RANK_CARDS[TWO][0]]
    joker_v = vals[JOKER]
    chosen: list[tuple[int, int, int, int, int]] = []  # (rank, n, d, j, value)
    shapes: dict[int, list[tuple[int, int, int, int]]] = {}  # rank -> (value, n, d, j), the most first
    for x in ranks:
        v = vals[RANK_CARDS[x][0]]
        shapes[x] = sorted(((n * v + d * deuce_v + j * joker_v, n, d, j)
                            for n, d, j in _shapes(r, rc[x], deuces, jokers, clean)), reverse=True)
    # the most the ranks from i on can add (every natural, up to seven a rank)
    tail = [0] * (len(ranks) + 1)
    for i in range(len(ranks) - 1, -1, -1):
        tail[i] = tail[i + 1] + (shapes[ranks[i]][0][0] if shapes[ranks[i]] else 0)

    def best_below(x: int, n: int, d: int, j: int) -> int:
        """The most a legal group strictly inside this one is worth (0: none)."""
        return max((v for v, a, b, c in shapes[x] if a <= n and b <= d and c <= j and (a, b, c) != (n, d, j)),
                   default=0)

    def rec(i: int, total: int, d_left: int, j_left: int) -> Iterator[list[_Spec]]:
        if total >= need:
            if all(total - v + best_below(x, n, d, j) < need for x, n, d, j, v in chosen):
                yield [(x, n, d, j) for x, n, d, j, _ in chosen]
            return
        if i == len(ranks) or total + tail[i] < need:
            return
        x = ranks[i]
        for v, n, d, j in shapes[x]:
            if d <= d_left and j <= j_left:
                chosen.append((x, n, d, j, v))
                yield from rec(i + 1, total + v, d_left - d, j_left - j)
                chosen.pop()
        yield from rec(i + 1, total, d_left, j_left)

    yield from rec(0, 0, deuces, jokers)


def _whole_openings(r: RuleSet, rc: list[int], b: int) -> Iterator[list[_Spec]]:
    """Openings that meld black threes (I-O17: only in the going-out move) and so go
    out at once: each natural rank in one group, the wild cards spread over them and
    a wild-card group, the black threes in theirs; at most one card kept back as the
    final discard (which the engine then judges)."""
    house = italian_rules(r)
    ranks = [x for x in NATURAL_RANKS if rc[x]]
    if any(rc[x] > CANASTA + 1 for x in ranks):
        return
    chosen: list[_Spec] = []

    def rec(i: int, d: int, j: int, kept: bool) -> Iterator[list[_Spec]]:
        if i == len(ranks):
            for keep_d, keep_j in ((0, 0), (1, 0), (0, 1)):
                if ((keep_d or keep_j) and kept) or keep_d > d or keep_j > j:
                    continue
                wd, wj = d - keep_d, j - keep_j
                yield [*chosen, *([(WILD_MELD, 0, wd, wj)] if wd + wj else [])]
            return
        x = ranks[i]
        for keep in (0, 1):
            n = rc[x] - keep
            if (keep and kept) or n > CANASTA:
                continue
            if n == 0:
                yield from rec(i + 1, d, j, True)
                continue
            for dd in range(min(d, 3) + 1):
                for jj in range(min(j, 3) + 1):
                    if 3 <= n + dd + jj <= CANASTA and it_group_error(house, n, dd, jj, False) is None:
                        chosen.append((x, n, dd, jj))
                        yield from rec(i + 1, d - dd, j - jj, kept or keep == 1)
                        chosen.pop()

    for nb, kept in ((b, False), (b - 1, True)):  # all the black threes, or all but a final discard
        if nb >= 3:
            for spec in rec(0, rc[TWO], rc[JOKER_RANK], kept):
                yield [*spec, (THREE, nb, 0, 0)]


#: the answers kept, per kind of question, before a cache starts again (every cache here is
#: bounded: a long-lived process that meets ever new rule sets keeps no more than this)
_OUT_ANSWERS_KEPT: Final = 4096
_OPTIONS_KEPT: Final = 65536
_OUT_ANSWERS: dict[tuple[object, ...], bool] = {}

_Shape = tuple[int, int, int]  # naturals, deuces, jokers of one meld


def going_out_possible(r: RuleSet, hand: tuple[int, ...], open_melds: tuple[tuple[int, int, int, int], ...],
                       clean: int, dirty: int, natural: int, closed_ranks: frozenset[int] = frozenset(),
                       clean_turn: bool = False, forced: int = -1) -> bool:
    """The exact going-out decision for an opened team (B.13 with B.6, B.7, B.8.5).

    ``hand`` holds the mover's cards by rank; ``open_melds`` the team's open melds
    as (key, naturals, deuces, jokers); ``clean``/``dirty``/``natural`` the
    canastas it has closed.  The player goes out when every card but the final
    discard can be melded this turn.  Suits do not matter and a turn may hold any
    number of meld moves, so the question is one of counts, decided rank by rank:
    each natural rank takes its naturals and some wild cards, first onto its open
    meld (closing it at seven), then into new melds (each closing at seven, the
    last possibly left open); the rest of the wild cards go to the meld of wild
    cards the same way.  A search over the ranks in order, remembering the wild
    cards left and the canastas closed, tries every split.  The open-wild-meld
    rule (I-O14, I-O38) is decided on the whole turn: a dirty canasta may close
    when the wild meld is not blocking before the turn, after it, or at some
    state it passes through, since the moves can be ordered so.  ``forced``: the
    rank of a card that can only be the final discard (a caller's shortcut), or -1."""
    house = italian_rules(r)
    top3 = 6 if house.black_three_melds == "going_out_3_to_6" else 4
    final = house.final_discard
    wild_discard = final != "discard_not_wild_or_black3"
    counts = list(hand)
    start_disc = False
    if 0 <= forced != THREE:
        counts[forced] -= 1  # a natural card that can only be the final discard
        start_disc = True
    for three_out in (False, True):
        if three_out and (not hand[THREE] or not wild_discard or start_disc):
            continue
        if forced == THREE and not three_out:
            continue
        nb = hand[THREE] - three_out
        if nb and not (house.black_three_melds != "never" and 3 <= nb <= top3):
            continue
        c2 = list(counts)
        c2[THREE] = nb
        if _melds_all(r, tuple(c2), open_melds, clean, dirty, natural, closed_ranks, clean_turn,
                      start_disc or three_out):
            return True
    return False


def _melds_all(r: RuleSet, counts: tuple[int, ...], open_melds: tuple[tuple[int, int, int, int], ...],
               clean: int, dirty: int, natural: int, closed_ranks: frozenset[int], clean_turn: bool,
               discarded: bool) -> bool:
    """Can every card of ``counts`` be melded but one final discard (none yet
    chosen unless ``discarded``): the search over the ranks."""
    house = italian_rules(r)
    by_key = {k: (n, d, j) for k, n, d, j in open_melds}
    ranks = [x for x in NATURAL_RANKS if counts[x] or x in by_key]
    options = []
    less = []  # the same with one card of the rank kept back as the final discard
    for x in ranks:
        may_new = house.new_meld_after_close != "never" or x not in closed_ranks
        opts = _rank_options(r, counts[x], by_key.get(x), may_new, clean_turn)
        options.append(opts)
        less.append(_rank_options(r, counts[x] - 1, by_key.get(x), may_new, clean_turn) if counts[x] else {})
        if not opts and not less[-1]:
            return False
    wild_opts = _wild_options(r, by_key.get(WILD_MELD), clean_turn)
    final = house.final_discard
    cap = 2  # the requirement never asks for more than two of a kind

    def finish(d: int, j: int, c: int, dt: int, nat: int, dirty_closed: bool, deuces_on_nat: bool) -> bool:
        for (dw, jw), outs in wild_opts.items():
            if dw != d or jw != j:
                continue
            for wc, wd, w0_blocks, wf_blocks, between_free, w0_deuce, wf_deuce, between_deuce_free in outs:
                if not italian.requirement_met(r, min(cap, c + wc), min(cap, dt + wd), nat):
                    continue
                if house.wild_meld_obligation_all and wf_blocks:
                    continue  # B.13.3: the open wild meld must be closed first
                rule = house.open_deuce_meld
                if rule == "no_dirty_canasta_while_deuce_meld_open" and dirty_closed and \
                        w0_blocks and wf_blocks and not between_free:
                    continue
                if rule == "rgit" and deuces_on_nat and w0_deuce and wf_deuce and not between_deuce_free:
                    continue
                return True
        return False

    @functools.cache
    def rec(i: int, d: int, j: int, c: int, dt: int, nat: int, dirty_closed: bool, deuces_on_nat: bool,
            disc: bool) -> bool:
        if i == len(options):
            if (disc or final == "discard_optional") and finish(d, j, c, dt, nat, dirty_closed, deuces_on_nat):
                return True
            if not disc and final != "discard_not_wild_or_black3":  # a wild card as the final discard
                if d and finish(d - 1, j, c, dt, nat, dirty_closed, deuces_on_nat):
                    return True
                if j and finish(d, j - 1, c, dt, nat, dirty_closed, deuces_on_nat):
                    return True
            return False
        for table, used in ((options[i], disc), (less[i], True)):
            if table is less[i] and disc:
                continue
            for (dx, jx), rank_outs in table.items():
                if dx > d or jx > j:
                    continue
                for oc, od, odirty in rank_outs:
                    if rec(i + 1, d - dx, j - jx, min(cap, c + oc), min(cap, dt + od), min(cap, nat + oc + od),
                           dirty_closed or odirty, deuces_on_nat or dx > 0, used):
                        return True
        return False

    return rec(0, counts[TWO], counts[JOKER_RANK], min(cap, clean), min(cap, dirty), min(cap, natural), False, False,
               discarded)


def _natural_shape_ok(r: RuleSet, n: int, d: int, j: int) -> bool:
    return it_group_error(italian_rules(r), n, d, j, False) is None


_RANK_OPTIONS: dict[tuple[object, ...], dict[tuple[int, int], set[tuple[int, int, bool]]]] = {}


def _rank_options(r: RuleSet, k: int, meld: _Shape | None, may_new: bool, clean_turn: bool
                  ) -> dict[tuple[int, int], set[tuple[int, int, bool]]]:
    """For one natural rank: {(deuces, jokers) used: {(clean closed, dirty closed,
    a dirty canasta closed)}} over every way of melding all ``k`` naturals."""
    ckey = (r, k, meld, may_new, clean_turn)
    cached = _RANK_OPTIONS.get(ckey)
    if cached is not None:
        return cached
    house = italian_rules(r)
    if len(_RANK_OPTIONS) >= _OPTIONS_KEPT:
        _RANK_OPTIONS.clear()
    out: dict[tuple[int, int], set[tuple[int, int, bool]]] = {}
    _RANK_OPTIONS[ckey] = out
    wild_choices = [(0, 0)] if clean_turn else [(d, j) for d in range(4) for j in range(4) if d + j <= 3]

    def add(dj: tuple[int, int], res: tuple[int, int, bool]) -> None:
        out.setdefault(dj, set()).add(res)

    def chain(left: int, new_ok: bool, d: int, j: int, c: int, dt: int) -> None:
        """New melds from ``left`` naturals, the wild cards used so far being d, j."""
        if left == 0:
            add((d, j), (c, dt, dt > 0))
            return
        if not new_ok or left < 2:
            return
        for n in range(2, min(left, CANASTA) + 1):
            for dd, jj in wild_choices:
                size = n + dd + jj
                if size < 3 or size > CANASTA or not _natural_shape_ok(r, n, dd, jj):
                    continue
                if size == CANASTA:
                    pure = dd + jj == 0
                    chain(left - n, new_ok and house.new_meld_after_close != "never", d + dd, j + jj,
                          c + pure, dt + (not pure))
                elif n == left:
                    add((d + dd, j + jj), (c, dt, dt > 0))

    if meld is None:
        if k:
            chain(k, may_new, 0, 0, 0, 0)
        else:
            add((0, 0), (0, 0, False))
        return out
    n0, d0, j0 = meld
    for a in range(0, min(k, CANASTA - n0 - d0 - j0) + 1):
        for dd, jj in wild_choices:
            n, d, j = n0 + a, d0 + dd, j0 + jj
            size = n + d + j
            if size > CANASTA or (a + dd + jj and not _natural_shape_ok(r, n, d, j)):
                continue
            if size == CANASTA:
                pure = d + j == 0
                chain(k - a, house.new_meld_after_close != "never", dd, jj, int(pure), int(not pure))
            elif a == k:
                add((dd, jj), (0, 0, False))
    return out


_WildOutcome = tuple[int, int, bool, bool, bool, bool, bool, bool]


_WILD_OPTIONS: dict[tuple[object, ...], dict[tuple[int, int], set[_WildOutcome]]] = {}


def _wild_options(r: RuleSet, meld: _Shape | None, clean_turn: bool) -> dict[tuple[int, int], set[_WildOutcome]]:
    """For the meld of wild cards: {(deuces, jokers) laid: {(clean closed, dirty
    closed, blocking before, blocking after, not blocking at some point of the
    turn, deuce meld open before, after, no deuce meld open at some point)}}.
    The open meld grows (maybe closing at seven), then new ones may follow, each
    closing at seven but the last; "blocking" is the I-O14/I-O38 state."""
    ckey = (r, meld, clean_turn)
    cached = _WILD_OPTIONS.get(ckey)
    if cached is not None:
        return cached
    house = italian_rules(r)
    if len(_WILD_OPTIONS) >= _OUT_ANSWERS_KEPT:
        _WILD_OPTIONS.clear()
    out: dict[tuple[int, int], set[_WildOutcome]] = {}
    _WILD_OPTIONS[ckey] = out

    def legal(d: int, j: int) -> bool:
        return 3 <= d + j <= CANASTA and it_group_error(house, 0, d, j, True) is None and (
            not clean_turn or wild_meld_is_clean(d, j))

    def deuce_open(shape: tuple[int, int] | None) -> bool:
        return shape is not None and wild_meld_kind(house, shape[0], shape[1]) == "deuce"

    def blocking(shape: tuple[int, int] | None) -> bool:
        return shape is not None and (house.wild_meld_obligation_all or deuce_open(shape))

    def counted(d: int, j: int) -> tuple[int, int]:
        tmp = Meld(WILD_MELD)
        tmp.deuces, tmp.jokers = d, j
        _, kind_counts, _ = it_canasta(r, tmp)
        return (1, 0) if kind_counts == "clean" else ((0, 1) if kind_counts == "dirty" else (0, 0))

    closing = [(d, CANASTA - d) for d in range(CANASTA + 1) if legal(d, CANASTA - d)]
    opening = [(d, j) for d in range(CANASTA) for j in range(CANASTA - d) if 3 <= d + j < CANASTA
               and legal(d, j)]
    start = (meld[1], meld[2]) if meld is not None else None
    w0b, w0d = blocking(start), deuce_open(start)

    def record(ud: int, uj: int, c: int, dt: int, final: tuple[int, int] | None, free: bool, dfree: bool) -> None:
        wfb, wfd = blocking(final), deuce_open(final)
        out.setdefault((ud, uj), set()).add(
            (min(c, 2), min(dt, 2), w0b, wfb, free or not w0b or not wfb, w0d, wfd, dfree or not w0d or not wfd))

    def new_melds(ud: int, uj: int, c: int, dt: int, depth: int) -> None:
        """After the open meld closed (or with none): new wild melds."""
        record(ud, uj, c, dt, None, True, True)
        for d, j in opening:
            record(ud + d, uj + j, c, dt, (d, j), True, True)
        if depth < 2:  # 12 deuces and 6 jokers make at most two wild canastas in a turn
            for d, j in closing:
                cc, cd = counted(d, j)
                new_melds(ud + d, uj + j, c + cc, dt + cd, depth + 1)

    if start is None:
        new_melds(0, 0, 0, 0, 0)
        return out
    d0, j0 = start
    for dd in range(CANASTA + 1 - d0 - j0):
        for jj in range(CANASTA + 1 - d0 - j0 - dd):
            d, j = d0 + dd, j0 + jj
            if dd + jj and not legal(d, j):
                continue
            if d + j == CANASTA:
                cc, cd = counted(d, j)
                new_melds(dd, jj, cc, cd, 1)
            else:
                # stays open: a state on the way that is not blocking lets the dirty
                # canastas (I-O14) or the deuces on natural melds (rgit) come then
                between = [(d0 + a, j0 + b) for a in range(dd + 1) for b in range(jj + 1)
                           if (a, b) not in ((0, 0), (dd, jj)) and legal(d0 + a, j0 + b)]
                free = any(not blocking(s) for s in between)
                dfree = any(not deuce_open(s) for s in between)
                record(dd, jj, 0, 0, (d, j), free, dfree)
    return out
