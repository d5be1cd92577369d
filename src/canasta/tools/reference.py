"""A slow, obviously-correct reference for the move generator (small positions only).

The engine's ``legal_moves`` iterates a *generating set*: one representative per
choice that matters, sound and complete for the turn (the promise is written in
:mod:`canasta.engine.game`).  This module checks that promise by brute force.  From a
position, :func:`reference_outcomes` plays out the rest of the mover's turn in
every way ``push`` accepts: at each step it builds **every** candidate move from
the cards in hand (every way of putting the hand's cards, card class by card
class, into groups, with every head group for taking the pile), keeps those
``push`` accepts, and follows each.  :func:`generated_outcomes` does the same
walk with the moves ``legal_moves`` yields.  Both return the set of
end-of-turn states, written modulo suits (:func:`state_key`), so two move orders
or two suit choices that give the same table count once.

The generator is complete when every reference outcome is a generated outcome;
it is sound when every generated move is accepted (``push`` raises otherwise).
The only knowledge of the rules used here, to keep the enumeration finite, is
that a meld is of one rank: a natural card joins the group of its rank, a black
three the group of threes, and a wild card any group whose rank is in the hand or
already melded by the side (or the Italian meld of wild cards).  Everything else
is left to ``push``.

:func:`small_position` makes the random small positions the tests and the soak
use: a seeded random playout to some turn, with the mover's hand replaced by a
few cards of a few ranks (some wild cards, sometimes a black three, often the
pile's top rank), so that the exhaustive walk stays small.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final

from canasta.engine.cards import (
    CARD_RANK,
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    JOKER,
    JOKER_RANK,
    NATURAL_RANKS,
    NUM_CARDS,
    RANK_CARDS,
    THREE,
    TWO,
    Card,
    card_str,
    parse_card,
)
from canasta.engine.errors import IllegalMoveError
from canasta.engine.game import Game, family_of
from canasta.engine.melds import WILD_MELD
from canasta.engine.moves import ASK, DISCARD, DRAW, END, MELD, NO, OPEN, TAKE, YES, Group, Move
from canasta.engine.state import ANSWER_PHASE, DRAW_PHASE, FINAL_PHASE, OVER
from canasta.views.position import game_from_position, part_position, position_of

_RED = "R3"
_BLACK = "B3"


def card_class(card: Card) -> str:
    """A card with its suit forgotten, except the colour of a three (the only suit the rules read)."""
    if IS_RED_THREE[card]:
        return _RED
    if IS_BLACK_THREE[card]:
        return _BLACK
    return card_str(card) if card_str(card) == "JK" else card_str(card)[:-1]


#: a card's class as a number: its rank, with red threes apart (14)
_CLASS: tuple[int, ...] = tuple(14 if IS_RED_THREE[c] else CARD_RANK[c] for c in range(NUM_CARDS))


def _cls(cards: Iterable[Card]) -> tuple[int, ...]:
    return tuple(_CLASS[c] for c in cards)


def _counts(hand: list[int]) -> tuple[int, ...]:
    out = [0] * 15
    for c, k in enumerate(hand):
        out[_CLASS[c]] += k
    return tuple(out)


def _meld_key(m: Any) -> tuple[object, ...]:
    return (m.rank, tuple(sorted(_cls(m.cards))), m.concealed, m.owner, m.turn)


#: what each place of a :func:`state_key` holds
STATE_KEY_NAMES: Final = (
    "hands", "rc", "hsize", "stock", "pile", "pile_frozen", "melds", "red3", "opened", "turn", "phase", "turn_no",
    "took_pile", "melded_now", "touched_old", "ask", "must_go_out", "has_melded", "added_to_partner", "red3_pending",
    "went_out", "out_concealed", "end_reason", "side_of", "lone", "ncan", "the family's part")
#: the place of the seat that went out (-1: none) in a :func:`state_key`
WENT_OUT_AT: Final = STATE_KEY_NAMES.index("went_out")


def state_key(game: Game) -> tuple[object, ...]:
    """The whole state of the table modulo suits: every field the engine keeps
    (``Game``'s snapshot), with each card written by its class and hands and melds
    as multisets.  (Which copies of a card the table saw picked up, ``known``,
    depends on the suits chosen and is left out.)"""
    g = game
    return (
        tuple(_counts(h) for h in g.hands), tuple(tuple(x) for x in g.rank_counts), tuple(g.hand_sizes),
        _cls(g.stock), _cls(g.pile), g.pile_frozen,
        tuple(tuple(sorted(_meld_key(m) for m in d.values())) for d in g.melds),
        tuple(tuple(sorted(_cls(x))) for x in g.red3), tuple(g.opened), g.turn, g.phase, g.turn_no,
        g.took_pile, g.melded_now, g.touched_old, g.ask, g.must_go_out, tuple(g.has_melded), tuple(g.added_to_partner),
        tuple(g.red3_pending), g.went_out, g.out_concealed, g.end_reason, tuple(g.side_of), g.lone_seat,
        tuple(g.canasta_counts), g.part.key(_CLASS.__getitem__) if g.part is not None else (),
    )


# ---------------------------------------------------------------------------- candidate moves


def _classes_in_hand(hand: list[int]) -> dict[str, list[Card]]:
    """Class -> the cards of that class held (one entry per copy)."""
    out: dict[str, list[Card]] = {}
    for c in range(NUM_CARDS):
        for _ in range(hand[c]):
            out.setdefault(card_class(c), []).append(c)
    return out


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way of writing ``total`` as an ordered sum of ``parts`` non-negative whole numbers."""
    if parts == 0:
        if total == 0:
            yield ()
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def group_sets(game: Game, hand: list[int]) -> Iterator[list[Group]]:
    """Every set of meld groups that can be formed from ``hand`` (a card-count list):
    each natural rank held contributes 0..all its cards to its group, black threes
    0..all to theirs, and the wild cards are spread in every way over the groups
    whose rank is held or melded by the side (and the Italian meld of wild cards)."""
    side = game.side_of[game.turn]
    by_class = _classes_in_hand(hand)
    nat_ranks = [r for r in NATURAL_RANKS if any(hand[c] for c in RANK_CARDS[r])]
    melded = [r for r in game.melds[side] if r in NATURAL_RANKS]
    targets: list[int] = sorted(set(nat_ranks) | set(melded))
    if game.family.has_wild_melds:
        targets.append(WILD_MELD)
    deuces = by_class.get("2", [])
    jokers = by_class.get("JK", [])
    blacks = by_class.get(_BLACK, [])
    nat_choices = [range(len(by_class[_rank_class(r)]) + 1) for r in nat_ranks]
    for counts in itertools.product(*nat_choices):
        # one more part than there are groups: the wild cards kept in hand
        for dsplit in _compositions(len(deuces), len(targets) + 1):
            for jsplit in _compositions(len(jokers), len(targets) + 1):
                for b in range(len(blacks) + 1):
                    groups: list[Group] = []
                    used_d = used_j = 0
                    for t, d, j in zip(targets, dsplit, jsplit, strict=False):
                        nat: list[Card] = []
                        if t in nat_ranks:
                            nat = by_class[_rank_class(t)][:counts[nat_ranks.index(t)]]
                        wild = deuces[used_d:used_d + d] + jokers[used_j:used_j + j]
                        used_d += d
                        used_j += j
                        if not nat and not wild:
                            continue
                        if nat or t == WILD_MELD:
                            groups.append(tuple(nat + wild))
                        else:
                            groups.append((-(t + 1), *wild))
                    if b:
                        groups.append(tuple(blacks[:b]))
                    if groups:
                        yield groups


def _rank_class(rank: int) -> str:
    return card_class(RANK_CARDS[rank][0])


def candidate_moves(game: Game) -> Iterator[Move]:
    """Every candidate move of the player to move, modulo suits (most are illegal)."""
    phase = game.phase
    if phase == OVER:
        return
    if phase == ANSWER_PHASE:
        yield Move(YES)
        yield Move(NO)
        return
    seat = game.turn
    hand = game.hands[seat]
    if phase == DRAW_PHASE:
        yield Move(DRAW)
        yield Move(END)
        yield Move(OPEN)
        if not game.pile or not IS_NATURAL[game.pile[-1]]:
            yield Move(TAKE, ((),))  # (refused: a blocked pile; kept so push is asked)
            return
        rt = CARD_RANK[game.pile[-1]]
        by_class = _classes_in_hand(hand)
        nat = by_class.get(_rank_class(rt), [])
        deuces = by_class.get("2", [])
        jokers = by_class.get("JK", [])
        for n0 in range(len(nat) + 1):
            for d0 in range(len(deuces) + 1):
                for j0 in range(len(jokers) + 1):
                    head = tuple(nat[:n0] + deuces[:d0] + jokers[:j0])
                    rest = hand[:]
                    for c in head:
                        rest[c] -= 1
                    yield Move(TAKE, (head,))
                    for groups in group_sets(game, rest):
                        yield Move(TAKE, (head, *groups))
        return
    # MELD or FINAL phase
    for groups in group_sets(game, hand):
        yield Move(MELD, tuple(groups))
    if phase == FINAL_PHASE:
        yield Move(END)
        return
    for cls_cards in _classes_in_hand(hand).values():
        yield Move(DISCARD, ((cls_cards[0],),))
    melded = [0] * len(hand)  # a melded card taken back to be discarded (C.10.4; refused elsewhere)
    for m in game.melds[game.side_of[seat]].values():
        for c in m.cards:
            melded[c] += 1
    for cls_cards in _classes_in_hand(melded).values():
        free = [c for c in cls_cards if not hand[c]]
        if free:
            yield Move(DISCARD, ((free[0],),))
    yield Move(ASK)
    yield Move(END)


def reference_moves(game: Game) -> list[Move]:
    """The candidate moves ``push`` accepts."""
    out = []
    for m in candidate_moves(game):
        try:
            game.plan(m)
        except IllegalMoveError:
            continue
        out.append(m)
    return out


def generated_moves(game: Game) -> list[Move]:
    return list(game.legal_moves)


# ---------------------------------------------------------------------------- outcomes of a turn


class TooBig(Exception):
    """The walk met more states than its limit (the position is not small)."""


def outcomes(game: Game, moves_of: Callable[[Game], Iterable[Move]], limit: int = 20000,
             paths: dict[tuple[object, ...], list[Move]] | None = None) -> set[tuple[object, ...]]:
    """The end-of-turn states (:func:`state_key`) reachable from ``game`` by playing
    the moves ``moves_of`` gives until the turn passes or the hand ends.  Every move
    is played with ``push``, so a refused one raises :class:`IllegalMoveError`.
    ``paths``, if given, receives one move sequence reaching each outcome."""
    g = game.copy()
    base = len(g.move_stack)
    turn_no = g.turn_no
    seen: set[tuple[object, ...]] = set()
    ends: set[tuple[object, ...]] = set()

    def walk() -> None:
        key = state_key(g)
        if g.phase == OVER or g.turn_no != turn_no:
            ends.add(key)
            if paths is not None and key not in paths:
                paths[key] = g.move_stack[base:]
            return
        if key in seen:
            return
        seen.add(key)
        if len(seen) > limit:
            raise TooBig(f"more than {limit} states in one turn")
        for m in list(moves_of(g)):
            g.push(m)
            try:
                walk()
            finally:
                g.pop()

    walk()
    return ends


def reference_outcomes(game: Game, limit: int = 20000) -> set[tuple[object, ...]]:
    return outcomes(game, reference_moves, limit)


def generated_outcomes(game: Game, limit: int = 20000) -> set[tuple[object, ...]]:
    return outcomes(game, generated_moves, limit)


def compare(game: Game, limit: int = 20000) -> tuple[set[tuple[object, ...]], set[tuple[object, ...]]]:
    """(outcomes only the reference reaches, outcomes only the generator reaches)."""
    ref = reference_outcomes(game, limit)
    gen = generated_outcomes(game, limit)
    return ref - gen, gen - ref


def describe_difference(game: Game, key: tuple[object, ...]) -> str:
    """What an outcome holds that the start position does not (for failure messages)."""
    start = state_key(game)
    names = STATE_KEY_NAMES
    skip = {"rc", "hsize", "stock", "turn", "turn_no"}
    return "; ".join(f"{n}: {b}" for n, a, b in zip(names, start, key, strict=True) if a != b and n not in skip)


# ---------------------------------------------------------------------------- small positions


def small_position(rules: Any, seed: int, max_hand: int = 7, top_heavy: bool = False) -> Game | None:
    """A random small position of ``rules`` at the start of a turn (see the module
    docstring), or None when the playout gave nothing usable.  ``top_heavy``: the
    pile's top is a natural card and the mover holds four to seven of its rank with
    up to three wild cards (every way of taking the pile, laying a canasta whole
    with it and going out with it: see :func:`take_position`)."""
    rng = random.Random(seed)
    game = Game(rules, seed, dealer=seed % rules.players, scores=_scores(rules, rng))
    stop = rng.choice((0, 4, 8, 16, 30, 60, 100, 160))
    moves = 0
    while not game.is_over() and moves < stop:
        opts = list(game.legal_moves)
        game.push(opts[rng.randrange(len(opts))])
        moves += 1
    # go on to the start of a turn
    while not game.is_over() and game.phase != DRAW_PHASE:
        opts = list(game.legal_moves)
        game.push(opts[rng.randrange(len(opts))])
    if game.is_over():
        return None
    p = position_of(game)
    seat = game.turn
    pool: list[Card] = [parse_card(c) for c in p["hands"][seat] + p["stock"]]
    pool = [c for c in pool if not IS_RED_THREE[c]]
    rng.shuffle(pool)
    by_rank: dict[int, list[Card]] = {}
    for c in pool:
        by_rank.setdefault(CARD_RANK[c], []).append(c)
    hand: list[Card] = []

    def grab(rank: int, k: int) -> None:
        cards = by_rank.get(rank, [])
        while k > 0 and cards and len(hand) < max_hand:
            hand.append(cards.pop())
            k -= 1

    top = parse_card(p["pile"][-1]) if p["pile"] else -1
    if top_heavy:
        if top < 0 or not IS_NATURAL[top]:
            naturals = [c for c in pool if IS_NATURAL[c]]
            if not naturals:
                return None
            top = naturals[rng.randrange(len(naturals))]
            pool.remove(top)
            by_rank[CARD_RANK[top]].remove(top)
            p["pile"] = [*p["pile"], card_str(top)]
        grab(CARD_RANK[top], rng.choice((4, 5, 5, 6, 6, 7)))
        grab(TWO, rng.choice((0, 1, 1, 2, 3)))
        grab(JOKER_RANK, rng.choice((0, 0, 1, 2)))
    elif top >= 0 and IS_NATURAL[top] and rng.random() < 0.6:
        grab(CARD_RANK[top], rng.choice((1, 2, 2, 3, 3, 4, 4)))
    side = game.side_of[seat]
    melded = [m for m in p["melds"][side]]
    if melded and rng.random() < 0.6:
        m = rng.choice(melded)
        ranks = {CARD_RANK[parse_card(c)] for c in m["cards"] if IS_NATURAL[parse_card(c)]}
        if ranks:
            grab(ranks.pop(), rng.choice((1, 2, 3)))
    naturals = [r for r in NATURAL_RANKS if by_rank.get(r)]
    for r in rng.sample(naturals, min(len(naturals), rng.choice((1, 2, 2, 3)))):
        grab(r, rng.choice((1, 2, 2, 3, 3, 4, 5)))
    grab(TWO, rng.choice((0, 0, 1, 1, 2)))
    grab(JOKER_RANK, rng.choice((0, 0, 0, 1, 2)))
    if rng.random() < 0.15:
        grab(THREE, rng.choice((1, 2, 3)))  # black threes (red ones were left out of the pool)
    if not hand:
        return None
    # a short pile, so that taking it keeps the hand small (the cards below go to the stock)
    keep = rng.choice((1, 1, 2, 3, 4))
    cut = max(0, len(p["pile"]) - keep)
    if cut:
        p["pile"] = p["pile"][cut:]
        if game.part is not None:  # what the family's part says of pile places (Italian: face-down cards)
            part = game.part.copy()
            part.drop_pile_bottom(cut, len(p["pile"]))
            p.update(part_position(game, part))
    p["hands"][seat] = [card_str(c) for c in hand]
    p["known"][seat] = []
    # the next stock cards: often of the ranks in hand, so that draws matter
    del p["stock"]
    rest = [c for c in pool if c not in hand or hand.count(c) < pool.count(c)]
    tops: list[Card] = []
    left = list(pool)
    for c in hand:
        left.remove(c)
    for _ in range(2 if rules.draw_count == 2 else 1):
        useful = [c for c in left if CARD_RANK[c] in {CARD_RANK[h] for h in hand}]
        pick = rng.choice(useful) if useful and rng.random() < 0.5 else (rng.choice(left) if left else -1)
        if pick >= 0:
            tops.append(pick)
            left.remove(pick)
    del rest
    p["stock_top"] = [card_str(c) for c in tops]
    p["stock_seed"] = seed
    return game_from_position(p)


def take_position(rules: Any, seed: int) -> Game | None:
    """A random position at the start of a turn where the pile's top card meets four
    to seven naturals of its rank and some wild cards in the mover's hand (up to eight
    cards): the takes that lay a canasta whole (A.6.7), open with one, or go out
    concealed with the pile (A.7.7, C-O6) are walked in full."""
    return small_position(rules, seed, max_hand=8, top_heavy=True)


def _scores(rules: Any, rng: random.Random) -> list[int]:
    slots = rules.players if rules.cutthroat else len(rules.teams)
    choices = [0, 0, 0, -50, 1600, 3100, 6200, 9100, 12500]
    return [rng.choice(choices) for _ in range(slots)]


__all__ = [
    "STATE_KEY_NAMES",
    "WENT_OUT_AT",
    "TooBig",
    "candidate_moves",
    "card_class",
    "compare",
    "generated_outcomes",
    "group_sets",
    "outcomes",
    "reference_moves",
    "reference_outcomes",
    "small_position",
    "state_key",
    "take_position",
]


def going_out_position(rules: Any, seed: int) -> Game | None:
    """A random small position in the middle of a turn, near going out: the mover's
    side has opened, holds some canastas (closed ones in Italian) and open melds,
    maybe a meld of wild cards, and the mover a few cards that fit them.  None when
    the draw gave an impossible table."""
    from canasta.engine.errors import PositionError

    rng = random.Random(seed)
    n = rules.players
    full = family_of(rules).canasta_size
    left = [0] * NUM_CARDS
    for c in range(NUM_CARDS):
        left[c] = 0
    from canasta.engine.cards import make_deck

    for c in make_deck(rules.packs):
        left[c] += 1

    def take(rank: int, k: int) -> list[str]:
        out = []
        for c in RANK_CARDS[rank] if rank != JOKER_RANK else (JOKER,):
            while k and left[c] and not IS_RED_THREE[c]:
                left[c] -= 1
                out.append(card_str(c))
                k -= 1
        return out if k == 0 else []

    ranks = list(NATURAL_RANKS)
    rng.shuffle(ranks)
    canastas: list[list[str]] = []
    for _ in range(rng.choice((0, 1, 1, 2, 2, 3))):
        x = ranks.pop()
        shape = rng.choice(((7, 0, 0), (7, 0, 0), (6, 1, 0), (5, 2, 0), (6, 0, 1), (5, 1, 1), (4, 2, 1)))
        # shapes of seven; a family whose canasta is larger adds natural cards
        cards = take(x, shape[0] + full - 7) + take(TWO, shape[1]) + take(JOKER_RANK, shape[2])
        if len(cards) == full:
            canastas.append(cards)
    melds: list[list[str]] = []
    for _ in range(rng.choice((0, 1, 2, 2, 3))):
        x = ranks.pop()
        shape = rng.choice(((3, 0, 0), (4, 0, 0), (5, 0, 0), (6, 0, 0), (2, 1, 0), (3, 1, 0), (4, 1, 0), (4, 2, 0),
                            (3, 0, 1), (5, 1, 0)))
        cards = take(x, shape[0]) + take(TWO, shape[1]) + take(JOKER_RANK, shape[2])
        if len(cards) == sum(shape):
            melds.append(cards)
    family = family_of(rules)
    if family.has_wild_melds and rng.random() < 0.35:
        wild = rng.choice(((3, 0), (4, 0), (2, 1), (1, 2), (0, 3), (5, 0), (3, 1)))
        melds.append(take(TWO, wild[0]) + take(JOKER_RANK, wild[1]))
    hand: list[str] = []
    for m in melds:
        nat = [c for c in m if c[:-1] not in ("2",) and c != "JK"]
        if nat and rng.random() < 0.6:
            hand += take(CARD_RANK[parse_card(nat[0])], rng.choice((1, 1, 2, 3)))
    for x in ranks[:rng.choice((0, 1, 1, 2))]:
        hand += take(x, rng.choice((1, 2, 2, 3, 4, 7)))
    hand += take(TWO, rng.choice((0, 0, 1, 1, 2))) + take(JOKER_RANK, rng.choice((0, 0, 1, 2)))
    if rng.random() < 0.1:
        hand += take(THREE, rng.choice((1, 3)))
    if not hand or len(hand) > 8:
        return None
    side_of = list(range(n))
    for i, team in enumerate(rules.teams):
        for s in team:
            side_of[s] = i
    side = side_of[0]
    empty: list[list[Any]] = [[] for _ in rules.teams]
    melds_out = [list(x) for x in empty]
    closed_out = [list(x) for x in empty]
    owner = {"owner": 0, "turn": 1}
    if family.closes_canastas:
        closed_out[side] = [dict(owner, cards=c) for c in canastas]
        melds_out[side] = [dict(owner, cards=m) for m in melds]
    else:
        melds_out[side] = [dict(owner, cards=m) for m in canastas + [m for m in melds if m]]
    p: dict[str, Any] = {
        "rules": rules.to_dict(), "dealer": n - 1, "turn": 0, "phase": "meld", "turn_number": 9,
        "hands": [hand] + [[] for _ in range(n - 1)], "melds": melds_out, "closed": closed_out,
        "pile": [], "stock_seed": seed, "scores": [0] * (n if rules.cutthroat else len(rules.teams)),
    }
    if family.goes_out_in_one_move and rng.random() < 0.2:  # Classic: an unopened side may go out concealed
        p["melds"] = empty
    if not family.closes_canastas:
        del p["closed"]
    try:
        return game_from_position(p)
    except (PositionError, IllegalMoveError):
        return None


def way_out(game: Game, moves_of: Callable[[Game], Iterable[Move]] = reference_moves, limit: int = 3000,
            ask: bool = True) -> list[Move] | None:
    """A sequence of moves of ``moves_of`` (by default every candidate ``push``
    accepts) that takes the player to move out in this turn, or None when there is
    none; the walk is the one of :func:`outcomes`, stopped at the first way out.
    ``ask=False`` leaves "may I go out?" unasked (where asking is optional it never
    opens a way out, and the walk is smaller).  Raises :class:`TooBig` after
    ``limit`` states."""
    g = game.copy()
    base = len(g.move_stack)
    seat = g.turn
    turn_no = g.turn_no
    seen: set[tuple[object, ...]] = set()

    def walk() -> list[Move] | None:
        if g.phase == OVER or g.turn_no != turn_no:
            return g.move_stack[base:] if g.went_out == seat else None
        key = state_key(g)
        if key in seen:
            return None
        seen.add(key)
        if len(seen) > limit:
            raise TooBig(f"more than {limit} states in one turn")
        for m in list(moves_of(g)):
            if not ask and m.kind == ASK:
                continue
            g.push(m)
            try:
                found = walk()
            finally:
                g.pop()
            if found is not None:
                return found
        return None

    return walk()


def opening_out_position(rules: Any, seed: int, max_hand: int = 16) -> Game | None:
    """A random position of a team that has not opened, in the meld phase of a
    turn, whose player holds cards that might open and go out at once: a clean or
    dirty canasta's worth of one rank and of another, sometimes a short meld of a
    third, usually a loose card to discard, sometimes black threes; then, as often
    as not, one card taken away or added, so that many positions just miss.  The
    team's score (drawn from the brackets' edges) sets the opening minimum.  None
    when the draw gave nothing usable."""
    from canasta.engine.errors import PositionError

    rng = random.Random(seed)
    n = rules.players
    hand: list[str] = []
    ranks = list(NATURAL_RANKS)
    rng.shuffle(ranks)

    def take(rank: int, k: int) -> None:
        cards = [c for c in RANK_CARDS[rank] if not IS_RED_THREE[c]] if rank != JOKER_RANK else [JOKER]
        hand.extend(card_str(cards[i % len(cards)]) for i in range(k))

    def canasta(rank: int, clean: bool) -> None:
        nat = 7 if clean else rng.choice((5, 6, 6))
        take(rank, nat)
        for _ in range(7 - nat):
            take(rng.choice((TWO, TWO, JOKER_RANK)), 1)

    canasta(ranks[0], rng.random() < 0.85)
    canasta(ranks[1], rng.random() < 0.15)
    if rng.random() < 0.2:
        take(ranks[2], rng.choice((2, 3)))
        if hand.count(card_str(RANK_CARDS[ranks[2]][0])) + hand.count(card_str(RANK_CARDS[ranks[2]][1])) < 3:
            take(TWO, 1)
    roll = rng.random()
    if roll < 0.7:
        take(ranks[3], 1)  # a loose card: the final discard
    elif roll < 0.85:
        take(ranks[0], 1)
    if rng.random() < 0.08:
        take(THREE, rng.choice((1, 3)))
    roll = rng.random()
    if roll < 0.2 and hand:
        hand.pop(rng.randrange(len(hand)))
    elif roll < 0.4:
        take(rng.choice((TWO, JOKER_RANK, ranks[0], ranks[1], ranks[4])), 1)
    if len(hand) > max_hand or len(hand) < 3:
        return None
    slots = n if rules.cutthroat else len(rules.teams)
    scores = [rng.choice((0, 3000, 3000, 6000, 6000, 9000, 12000)) for _ in range(slots)]
    p: dict[str, Any] = {
        "rules": rules.to_dict(), "dealer": n - 1, "turn": 0, "phase": "meld", "turn_number": 9,
        "hands": [hand] + [[] for _ in range(n - 1)], "pile": [], "stock_seed": seed, "scores": scores,
    }
    try:
        return game_from_position(p)
    except (PositionError, IllegalMoveError):
        return None
