"""The observation tensor (``docs/rl.md``), and the one card order moves are written in.

The action space and the legal-action mask are :mod:`canasta.rl.actions`' (its names are
named here too, as code written before the split imports them from here).

**Observation.**  :class:`Observer` builds a fixed-size ``float32`` vector from what the acting
seat may know: :meth:`Observer.encode_view` from a :class:`~canasta.views.seat.SeatView` (the
definition) and :meth:`Observer.encode` straight from the game (the fast path, tested equal to
the first on every preset).  Seats and sides are relative: the observer first, then in order of
play.  The groups chosen so far in an unfinished sequence are part of the acting seat's
observation.
"""

from __future__ import annotations

import itertools
import random
import struct
from collections.abc import Sequence
from typing import Any, Final, TypeAlias

import numpy as np
import numpy.typing as npt

from canasta.engine import compiled_pickle
from canasta.engine.cards import (
    CARD_RANK,
    IS_WILD,
    JOKER_RANK,
    NUM_CARDS,
    RANK_NAMES,
    THREE,
    TWO,
    Card,
)
from canasta.engine.game import Game, family_of
from canasta.engine.melds import WILD_MELD, Meld, meld_from_cards
from canasta.engine.moves import (
    DISCARD,
    MELD,
    TAKE,
    Group,
    Move,
    group_cards,
)
from canasta.engine.rules import RuleSet
from canasta.engine.state import ASK_NAMES, PHASE_NAMES
from canasta.rl.actions import A_ASK as A_ASK
from canasta.rl.actions import A_COMMIT as A_COMMIT
from canasta.rl.actions import A_DRAW as A_DRAW
from canasta.rl.actions import A_END as A_END
from canasta.rl.actions import A_NO as A_NO
from canasta.rl.actions import A_OPEN as A_OPEN
from canasta.rl.actions import A_YES as A_YES
from canasta.rl.actions import ACTION_INFO as ACTION_INFO
from canasta.rl.actions import DISCARD_BASE as DISCARD_BASE
from canasta.rl.actions import GROUP_BASE as GROUP_BASE
from canasta.rl.actions import GROUP_KEYS as GROUP_KEYS
from canasta.rl.actions import MAX_NATURALS as MAX_NATURALS
from canasta.rl.actions import MELD_SLOTS as MELD_SLOTS
from canasta.rl.actions import NUM_ACTIONS as NUM_ACTIONS
from canasta.rl.actions import TAKE_BASE as TAKE_BASE
from canasta.rl.actions import WILD_BASE as WILD_BASE
from canasta.rl.actions import WILD_COMPS as WILD_COMPS
from canasta.rl.actions import WILD_MELD_COMPS as WILD_MELD_COMPS
from canasta.rl.actions import Decision as Decision
from canasta.rl.actions import EncodingError as EncodingError
from canasta.rl.actions import (
    _slot,
)
from canasta.rl.actions import action_name as action_name
from canasta.rl.actions import group_action as group_action
from canasta.rl.actions import move_actions as move_actions
from canasta.rl.actions import take_action as take_action
from canasta.views.seat import SeatView

FloatArray: TypeAlias = npt.NDArray[np.float32]

# ---------------------------------------------------------------------------- the observation

#: card kinds of the observation: deuce, black three, red three, 4 .. A, joker
NUM_KINDS: Final = 15
KIND_NAMES: Final = ("2", "3 black", "3 red", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK")
KIND_OF: Final[tuple[int, ...]] = tuple(
    0 if r == TWO else (2 if c in (5, 6) else 1) if r == THREE else 14 if r == JOKER_RANK else r + 1
    for c, r in enumerate(CARD_RANK))

SEAT_FEATURES: Final = 6 + NUM_KINDS + 1  # hand size, known kinds, red threes, 3 flags, score, minimum
SIDE_FEATURES: Final = 2 + 4 * MELD_SLOTS + MELD_SLOTS + 2
PILE_FEATURES: Final = 3 + NUM_KINDS + NUM_KINDS + 1
PENDING_FEATURES: Final = 4 + 3 * MELD_SLOTS
#: one-hot top card: a kind, face down, or (last) an empty pile
_TOP_HOT: Final = [tuple(1 if i == k else 0 for i in range(NUM_KINDS + 1)) for k in range(NUM_KINDS + 2)]
_SLOT: Final = {key: 4 * _slot(key) for key in (*GROUP_KEYS, WILD_MELD)}
#: where a meld slot's four features start in a side's block, and where its closed canastas start
_SIDE_SLOT: Final = {key: 2 + at for key, at in _SLOT.items()}
_SIDE_CLOSED: Final = 2 + 4 * MELD_SLOTS
SCORE_SCALE: Final = 1000.0
MINIMUM_SCALE: Final = 100.0
SIZE_SCALE: Final = 10.0
TURN_SCALE: Final = 100.0
# the scales as float32 values (what the layout's ``scale`` holds), as Python floats: an integer
# feature times one of them in double precision is exact, then rounded to float32 once
_SCORE_F: Final = float(np.float32(1 / SCORE_SCALE))
_MINIMUM_F: Final = float(np.float32(1 / MINIMUM_SCALE))
_SIZE_F: Final = float(np.float32(1 / SIZE_SCALE))
_TURN_F: Final = float(np.float32(1 / TURN_SCALE))
_FLOAT32: Final = np.dtype(np.float32)
_PHASES: Final = len(PHASE_NAMES)
_ASKS: Final = len(ASK_NAMES)
#: the counts 0 .. 1023 as float objects, shared: the fast path's blocks are lists of them, which a
#: float32 ``struct`` packs without converting each integer (the packs hold at most 162 cards)
_FLOATS: Final[tuple[object, ...]] = tuple(float(i) for i in range(1024))
_ZERO_F: Final = _FLOATS[0]
_ZERO_KINDS_F: Final[tuple[object, ...]] = (_ZERO_F,) * NUM_KINDS


def _fl(x: int) -> object:
    """A count (or a flag) as a float object, shared when small."""
    return _FLOATS[x] if 0 <= x < 1024 else float(x)


_ZERO_SIDE_F: Final[list[object]] = [_ZERO_F] * SIDE_FEATURES
_TOP_HOT_F: Final = [tuple(_FLOATS[x] for x in hot) for hot in _TOP_HOT]

#: stamps for calls that give none (negative: the table's stamps count up from 1)
_FRESH: Final = itertools.count(-1, -1)


def _kinds_of(counts: Sequence[int]) -> tuple[int, ...]:
    kinds = [0] * NUM_KINDS
    for c, x in enumerate(counts):
        if x:
            kinds[KIND_OF[c]] += x
    return tuple(kinds)


def _order(n: int, step: int, seat: int) -> list[int]:
    return [(seat + k * step) % n for k in range(n)]


def _side_order(seats: Sequence[int], side_of: Sequence[int], nsides: int) -> list[int]:
    out: list[int] = []
    for s in seats:
        if side_of[s] not in out:
            out.append(side_of[s])
    out += [x for x in range(nsides) if x not in out]
    return out


def pending_features(prefix: Sequence[int]) -> list[int]:
    """The groups chosen so far in an unfinished action sequence."""
    out = [0] * PENDING_FEATURES
    for a in prefix:
        kind, key, n, d, j = ACTION_INFO[a]
        if kind == "take":
            out[0] = 1
            out[1], out[2], out[3] = n, d, j
        elif kind == "group":
            base = 4 + 3 * _slot(key)
            out[base] += n
            out[base + 1] += d
            out[base + 2] += j
    return out


#: per card kind of the observation, the card codes of that kind (the suits an action leaves open)
CODES_OF_KIND: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(c for c, k in enumerate(KIND_OF) if k == kind) for kind in range(NUM_KINDS))


def _sample(rng: random.Random, population: list[int], k: int) -> list[int]:
    """``rng.sample(population, k)``: the same draws and the same result, as CPython's
    ``Random.sample`` makes them for a population of at most 21 (a pool, one ``getrandbits``
    draw below each remaining size, redrawn while too large); larger ones are left to it."""
    n = len(population)
    if n > 21:
        return rng.sample(population, k)
    pool = population[:]
    result: list[int] = []
    for i in range(k):
        size = n - i
        bits = size.bit_length()
        j = rng.getrandbits(bits)
        while j >= size:
            j = rng.getrandbits(bits)
        result.append(pool[j])
        pool[j] = pool[size - 1]
    return result


#: the place of each card code in the one order in which the table writes a group's cards:
#: natural cards (and threes) by code, then deuces, then jokers (the generating set's own order)
CARD_ORDER: Final[tuple[int, ...]] = tuple(c + (NUM_CARDS if IS_WILD[c] else 0) for c in range(NUM_CARDS))


def canonical_group(grp: Group) -> Group:
    """``grp`` with its cards in :data:`CARD_ORDER` (the target it names, if any, kept first)."""
    cards = group_cards(grp)
    return grp[:len(grp) - len(cards)] + tuple(sorted(cards, key=CARD_ORDER.__getitem__))


def canonical(move: Move) -> Move:
    """``move`` written in the table's one order: each group's cards in :data:`CARD_ORDER` (the
    groups stay in the generating set's order, which follows their ranks).  The order of a
    group's cards must not depend on anything but the cards: the table once sorted them only
    when the hand had a choice of suits, so ``2S JH JD`` against ``JH JD 2S`` told the other
    seats that the hand held another jack or deuce."""
    if move.kind != MELD and move.kind != TAKE:
        return move
    groups = tuple(canonical_group(grp) for grp in move.groups)
    return move if groups == move.groups else Move(move.kind, groups)


def resuit(game: Game, move: Move, rng: random.Random) -> Move:
    """``move`` (of the seat to move in ``game``) with the suits of its cards drawn uniformly
    among the cards of each kind the hand holds, from ``rng``, and its cards in the one order
    of :func:`canonical` (:meth:`canasta.rl.core.ActionTable.resuit`)."""
    kind = move.kind
    if kind != DISCARD and kind != MELD and kind != TAKE:
        return move
    hand = game.hands[game.turn]
    need: dict[int, int] = {}
    for grp in move.groups:
        for c in group_cards(grp):
            k = KIND_OF[c]
            need[k] = need.get(k, 0) + 1
    picks: dict[int, list[int]] = {}
    for k, m in need.items():
        held = [c for c in CODES_OF_KIND[k] for _ in range(hand[c])]
        if len(held) > m and any(c != held[0] for c in held):  # a choice of suits
            picks[k] = _sample(rng, held, m)
    if not picks:
        return canonical(move)
    groups: list[Group] = []
    for grp in move.groups:
        cards = group_cards(grp)
        head = grp[:len(grp) - len(cards)]
        new = sorted((picks[KIND_OF[c]].pop() if KIND_OF[c] in picks else c for c in cards),
                     key=CARD_ORDER.__getitem__)
        groups.append(head + tuple(new))
    return Move(move.kind, tuple(groups))


class Observer:
    """Observation vectors of one rule set (``size`` floats; layout in ``docs/rl.md``)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._family = family_of(rules)
        self.n = rules.players
        self.nsides = len(rules.teams)
        self.step = -1 if rules.direction == "counter_clockwise" else 1
        n = self.n
        sections = [
            ("hand", NUM_KINDS),
            ("seats", n * SEAT_FEATURES),
            ("sides", self.nsides * SIDE_FEATURES),
            ("pile", PILE_FEATURES),
            ("stock_and_turn", 2),
            ("phase", len(PHASE_NAMES)),
            ("ask", len(ASK_NAMES)),
            ("turn_flags", 4),
            ("draw_mode", 3),
            ("to_move", n),
            ("turn", n),
            ("lone", n + 1),
            ("went_out", n + 1),
            ("pending", PENDING_FEATURES),
        ]
        self.slices: dict[str, slice] = {}
        at = 0
        for name, width in sections:
            self.slices[name] = slice(at, at + width)
            at += width
        self.size = at
        self._clean_cache: dict[tuple[int, ...], str | None] = {}
        self._known_kinds: dict[tuple[int, ...], tuple[object, ...]] = {}
        # the fast path's blocks as float32 bytes, reused while their stamps hold (see encode)
        self._meld_stamp = 0
        self._pile_stamp = 0
        self._const_stamp = 0
        self._consts_of: dict[tuple[int, ...], tuple[list[tuple[int, int]], list[list[int]]]] = {}
        self._seat_consts: list[tuple[int, int]] = []
        self._side_orders: list[list[int]] = []
        self._seat_size = [-1] * n  # each seat's block: its hand size and flags, its bytes
        self._seat_flags = [0] * n
        self._seat_bytes: list[bytes] = [b""] * n
        self._seat_known: list[list[int]] = [[] for _ in range(n)]  # each block's known cards
        self._seat_kinds: list[tuple[object, ...]] = [_ZERO_KINDS_F] * n  # and their kinds
        self._seat_meld_stamp = [0] * n  # the stamps at which each block was last found valid
        self._seat_pile_stamp = [0] * n
        self._side_bytes: list[bytes] = [b""] * self.nsides
        self._side_values: list[list[object]] = [[] for _ in range(self.nsides)]
        self._pile_bytes = b""
        self._tail_bytes: dict[int, bytes] = {}
        self._pack_hand = struct.Struct(f"{NUM_KINDS}f").pack
        self._pack_seat = struct.Struct(f"{SEAT_FEATURES}f").pack
        self._pack_side = struct.Struct(f"{SIDE_FEATURES}f").pack
        self._pack_pile = struct.Struct(f"{PILE_FEATURES}f").pack
        self._pack_two = struct.Struct("2f").pack
        tail_width = self.slices["pending"].start - self.slices["phase"].start
        self._pack_tail = struct.Struct(f"{tail_width}f").pack
        self._pack_pending = struct.Struct(f"{PENDING_FEATURES}f").pack
        self._no_pending_bytes = bytes(4 * PENDING_FEATURES)
        self._order = [_order(n, self.step, s) for s in range(n)]
        self._rel = [[order.index(s) for s in range(n)] for order in self._order]
        self._pack = struct.Struct(f"{self.size}i").pack
        # features are gathered as integers, packed, and scaled into float32 in one numpy call
        scale = np.ones(self.size, dtype=np.float32)
        seats_at = self.slices["seats"].start
        for k in range(n):
            scale[seats_at + k * SEAT_FEATURES + SEAT_FEATURES - 2] = 1 / SCORE_SCALE
            scale[seats_at + k * SEAT_FEATURES + SEAT_FEATURES - 1] = 1 / MINIMUM_SCALE
        scale[self.slices["pile"].start] = 1 / SIZE_SCALE
        scale[self.slices["stock_and_turn"].start] = 1 / SIZE_SCALE
        scale[self.slices["stock_and_turn"].start + 1] = 1 / TURN_SCALE
        self.scale = scale

        def hot(width: int) -> list[tuple[int, ...]]:
            return [tuple(1 if i == k else 0 for i in range(width)) for k in range(width)]

        self._phase_hot = hot(len(PHASE_NAMES))
        self._ask_hot = hot(len(ASK_NAMES))
        self._draw_hot = hot(3)
        self._seat_hot = hot(n)
        self._seat_hot1 = hot(n + 1)
        self._no_pending = (0,) * PENDING_FEATURES

    # -- pickling: an observer is rebuilt from its rules (its caches and reuse stamps, another
    # process's numbers, are started afresh; a struct.Struct's bound method does not pickle)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Observer, (self.rules,))

    # -- shared pieces

    def _closed_kind(self, cards: Sequence[Card]) -> str | None:
        key = tuple(sorted(cards))
        hit = self._clean_cache.get(key, "?")
        if hit == "?":
            m = meld_from_cards(cards)
            if m.rank < 0:
                m.rank = WILD_MELD
            hit = self._family.canasta_counts_as(self.rules, m)
            self._clean_cache[key] = hit
        return hit

    def _closed_block(self, closed: Sequence[Sequence[Card]]) -> list[int]:
        per = [0] * (MELD_SLOTS + 2)
        for cards in closed:
            key = WILD_MELD
            for c in cards:
                if not IS_WILD[c]:
                    key = CARD_RANK[c]
                    break
            per[_slot(key)] += 1
            kind = self._closed_kind(cards)
            if kind == "clean":
                per[MELD_SLOTS] += 1
            elif kind == "dirty":
                per[MELD_SLOTS + 1] += 1
        return per

    def _view_tail(self, out: list[int], seat: int, stock: int, turn_no: int, phase: int, ask: int,
                   flags: tuple[bool, bool, bool, bool], draw_mode: int, to_move: int, turn: int, lone: int,
                   went_out: int, pending: Sequence[int]) -> FloatArray:
        n = self.n
        rel = self._rel[seat]
        out.append(stock)
        out.append(turn_no)
        out += self._tail_of(phase, ask, *flags, draw_mode, rel[to_move], rel[turn],
                             rel[lone] if lone >= 0 else n, rel[went_out] if went_out >= 0 else n)
        out += pending_features(pending) if pending else self._no_pending
        return self._array(out)

    # -- from the game (fast)

    def encode(self, game: Game, seat: int, pending: Sequence[int] = (),
               stamps: tuple[int, int, int] | None = None) -> FloatArray:
        """What ``seat`` may know of ``game`` (equal to ``encode_view(seat_view(game, seat))``).

        ``stamps`` (from :class:`canasta.rl.core.ActionTable`): numbers that change whenever the
        melds (first), the pile (second) or the scores and sides (third) may have changed; with
        them the parts those decide are reused from earlier calls instead of computed again: the
        sides' and the pile's blocks, and each seat's block while its hand size, red threes and
        flags stay (and its known cards, compared again once the melds or the pile have changed:
        a card leaves or joins what the table knows of a hand only then).

        The vector is gathered as float32 bytes, block by block (each block packed once and
        kept while it holds), and joined into the returned array: the scaled features are
        multiplied by their float32 scale in double precision, which is exact, and rounded
        to float32 once, as ``int32 * float32`` rounds them (:meth:`encode_view` computes the
        same vector the plain way)."""
        g = game
        n = self.n
        if stamps is None:  # nothing may be reused: stamps of this call alone
            fresh = next(_FRESH)
            stamps = (fresh, fresh, fresh)
        m_stamp, p_stamp, c_stamp = stamps
        if c_stamp != self._const_stamp:
            self._new_consts(g, c_stamp)
        if m_stamp != self._meld_stamp or p_stamp != self._pile_stamp:
            if m_stamp != self._meld_stamp:
                side_values = self._side_values
                for side in range(self.nsides):  # most often one side's melds changed: the mover's
                    values = self._side_block(g, side)
                    if values != side_values[side]:
                        side_values[side] = values
                        self._side_bytes[side] = self._pack_side(*values)
                self._meld_stamp = m_stamp
            if p_stamp != self._pile_stamp:
                self._pile_bytes = self._pack_pile(*self._pile_block(g))
                self._pile_stamp = p_stamp
        rc = g.rank_counts[seat]
        hand = g.hands[seat]
        red = hand[5] + hand[6]
        fl = _FLOATS
        parts: list[bytes] = [self._pack_hand(fl[rc[0]], fl[rc[1] - red], fl[red], fl[rc[2]], fl[rc[3]], fl[rc[4]],
                                              fl[rc[5]], fl[rc[6]], fl[rc[7]], fl[rc[8]], fl[rc[9]], fl[rc[10]],
                                              fl[rc[11]], fl[rc[12]], fl[rc[13]])]
        hsize = g.hand_sizes
        red3 = g.red3
        has_melded = g.has_melded
        added = g.added_to_partner
        pending3 = g.red3_pending
        known = g.known
        seat_size = self._seat_size
        seat_flags = self._seat_flags
        seat_bytes = self._seat_bytes
        seat_known = self._seat_known
        seen_m = self._seat_meld_stamp
        seen_p = self._seat_pile_stamp
        for s in self._order[seat]:
            if (seen_m[s] != m_stamp or seen_p[s] != p_stamp) and known[s] != seat_known[s]:
                # its known cards change only when a card is melded, taken or discarded
                seat_known[s] = known[s][:]
                self._seat_kinds[s] = self._kinds(known[s])
                seat_size[s] = -1
            seen_m[s] = m_stamp
            seen_p[s] = p_stamp
            size = hsize[s]
            flags = (len(red3[s]) * 8 + (4 if has_melded[s] else 0) + (2 if added[s] else 0)
                     + (1 if pending3[s] else 0))
            if size != seat_size[s] or flags != seat_flags[s]:
                seat_size[s] = size
                seat_flags[s] = flags
                seat_bytes[s] = self._seat_block(s, size, flags)
            parts.append(seat_bytes[s])
        side_bytes = self._side_bytes
        for side in self._side_orders[seat]:
            parts.append(side_bytes[side])
        parts.append(self._pile_bytes)
        parts.append(self._pack_two(len(g.stock) * _SIZE_F, g.turn_no * _TURN_F))
        rel = self._rel[seat]
        lone = g.lone_seat
        went = g.went_out
        to_move = g.to_move
        clean, draw_mode = g.turn_marks()
        phase = g.phase
        ask = g.ask
        took = g.took_pile
        melded = g.melded_now
        touched = g.touched_old
        rel_to_move = rel[to_move]
        rel_turn = rel[g.turn]
        rel_lone = rel[lone] if lone >= 0 else n
        rel_went = rel[went] if went >= 0 else n
        # the tail's parts as one number (each part below its one-hot's width)
        tail_key = ((((((((((rel_went * (n + 1) + rel_lone) * n + rel_turn) * n + rel_to_move) * 3 + draw_mode) * 2
                        + clean) * 2 + touched) * 2 + melded) * 2 + took) * _ASKS + ask) * _PHASES + phase)
        tail = self._tail_bytes.get(tail_key)
        if tail is None:
            tail = self._pack_tail(*self._tail_of(phase, ask, took, melded, touched, clean, draw_mode,
                                                  rel_to_move, rel_turn, rel_lone, rel_went))
            self._tail_bytes[tail_key] = tail
        parts.append(tail)
        if pending and seat == to_move:
            parts.append(self._pack_pending(*pending_features(pending)))
        else:
            parts.append(self._no_pending_bytes)
        return np.frombuffer(bytearray().join(parts), _FLOAT32)  # a new writable array

    def _new_consts(self, g: Game, c_stamp: int) -> None:
        """Per hand (and cut-throat sides): each seat's (score, minimum), the order of the sides
        from each seat."""
        key = (*g.start_scores, *g.side_of, g.hand_number)
        consts = self._consts_of.get(key)
        if consts is None:
            cut = self.rules.cutthroat
            scores: list[tuple[int, int]] = []
            for s in range(self.n):
                score = g.start_scores[s] if cut else g.start_scores[g.side_of[s]]
                scores.append((score, g.minimum(s)))
            orders = [_side_order(self._order[s], g.side_of, self.nsides) for s in range(self.n)]
            consts = (scores, orders)
            if len(self._consts_of) > 4096:
                self._consts_of.clear()
            self._consts_of[key] = consts
        self._seat_consts, self._side_orders = consts
        self._const_stamp = c_stamp
        self._seat_size = [-1] * self.n

    def _kinds(self, known: list[int]) -> tuple[object, ...]:
        """The kinds of a seat's known cards (counts per card code), as float objects."""
        if not any(known):
            return _ZERO_KINDS_F
        kt = tuple(known)
        kinds = self._known_kinds.get(kt)
        if kinds is None:
            kinds = tuple(_fl(x) for x in _kinds_of(known))
            if len(self._known_kinds) > 65536:
                self._known_kinds.clear()
            self._known_kinds[kt] = kinds
        return kinds

    def _seat_block(self, s: int, size: int, flags: int) -> bytes:
        """Seat ``s``'s block: hand size, the kinds of its known cards, red threes, has melded,
        added to its partner, red threes to lay out (``flags``: red threes * 8 + those three
        bits), score and minimum."""
        k = self._seat_kinds[s]
        score, minimum = self._seat_consts[s]
        return self._pack_seat(_fl(size), k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10],
                               k[11], k[12], k[13], k[14], _fl(flags >> 3), _fl(flags >> 2 & 1), _fl(flags >> 1 & 1),
                               _fl(flags & 1), score * _SCORE_F, minimum * _MINIMUM_F)

    def _array(self, out: list[int]) -> FloatArray:
        raw = np.frombuffer(self._pack(*out), dtype=np.int32)
        return np.multiply(raw, self.scale, dtype=np.float32)  # a new writable array

    def _tail_of(self, phase: int, ask: int, took: bool, melded: bool, touched: bool, clean: bool,
                 draw_mode: int, to_move: int, turn: int, lone: int, went_out: int) -> tuple[int, ...]:
        """The one-hot part after the stock (relative seats given)."""
        out: list[int] = []
        out += self._phase_hot[phase]
        out += self._ask_hot[ask]
        out += (took, melded, touched, clean)
        out += self._draw_hot[draw_mode]
        out += self._seat_hot[to_move]
        out += self._seat_hot[turn]
        out += self._seat_hot1[lone]
        out += self._seat_hot1[went_out]
        return tuple(int(x) for x in out)

    def _side_block(self, g: Game, side: int) -> list[object]:
        """A side's block (opened, canastas, each meld slot's naturals, deuces, jokers and
        concealed flag, its closed canastas), as float objects."""
        out = _ZERO_SIDE_F[:]
        canastas = 0
        for key, m in g.melds[side].items():
            b = _SIDE_SLOT[key]
            n = m.naturals
            d = m.deuces
            j = m.jokers
            out[b] = _fl(n)
            out[b + 1] = _fl(d)
            out[b + 2] = _fl(j)
            out[b + 3] = _fl(int(m.concealed))
            if n + d + j >= g.canasta_size and key != THREE:
                canastas += 1
        out[0] = _fl(int(g.opened[side]))
        out[1] = _fl(canastas)
        closed = g.set_aside(side)
        if closed:
            at = _SIDE_CLOSED
            for x in self._closed_block([m.cards for m in closed]):
                out[at] = _fl(x)
                at += 1
        return out

    def _pile_block(self, g: Game) -> list[object]:
        """The pile's block (size, face-down cards, frozen, the face-up cards' kinds, the top's
        kind one-hot), as float objects."""
        pile = g.pile
        lo, hi = g.face_down()
        npile = len(pile)
        kind_of = KIND_OF
        kinds = [0] * NUM_KINDS
        if hi > lo:
            for i, c in enumerate(pile):
                if not lo <= i < hi:
                    kinds[kind_of[c]] += 1
        else:
            for c in pile:
                kinds[kind_of[c]] += 1
        out: list[object] = [npile * _SIZE_F, _fl(max(0, min(hi, npile) - lo)), _fl(int(g.pile_frozen))]
        out += [_fl(x) for x in kinds]
        out += _TOP_HOT_F[NUM_KINDS if pile and lo <= npile - 1 < hi else kind_of[pile[-1]] if pile else NUM_KINDS + 1]
        return out

    # -- from a seat view (the definition)

    def encode_view(self, view: SeatView, pending: Sequence[int] = ()) -> FloatArray:
        """The observation of ``view.seat``, built from its view only."""
        if view.seat < 0:
            raise ValueError("a spectator's view has no observation")
        n = self.n
        seat = view.seat
        seats = _order(n, self.step, seat)
        out: list[int] = [0] * NUM_KINDS
        for c in view.hand:
            out[KIND_OF[c]] += 1
        for s in seats:
            kinds = [0] * NUM_KINDS
            for c in view.known[s]:
                kinds[KIND_OF[c]] += 1
            score = view.scores[s] if self.rules.cutthroat else view.scores[view.side_of[s]]
            out.append(view.hand_sizes[s])
            out += kinds
            out += [len(view.red_threes[s]), view.has_melded[s], view.added_to_partner[s],
                    view.red_threes_pending[s], score, view.minimum(s)]
        for side in _side_order(seats, view.side_of, self.nsides):
            block = [0] * (4 * MELD_SLOTS)
            canastas = 0
            for cards, concealed, _, _ in view.melds[side]:
                m: Meld = meld_from_cards(cards, concealed)
                key = m.rank if m.rank >= 0 else WILD_MELD
                b = 4 * _slot(key)
                block[b:b + 4] = [m.naturals, m.deuces, m.jokers, m.concealed]
                if key != THREE and m.size >= self._family.canasta_size:
                    canastas += 1
            out.append(view.opened[side] if view.opened else bool(view.melds[side]))
            out.append(canastas)
            out += block
            closed = view.part_value("closed", ())
            out += self._closed_block(closed[side] if closed else ())
        kinds = [0] * NUM_KINDS
        hidden = 0
        for shown in view.pile:
            if shown is None:
                hidden += 1
            else:
                kinds[KIND_OF[shown]] += 1
        top = [0] * (NUM_KINDS + 1)
        if view.pile:
            last = view.pile[-1]
            top[NUM_KINDS if last is None else KIND_OF[last]] = 1
        out += [len(view.pile), hidden, view.pile_frozen]
        out += kinds
        out += top
        return self._view_tail(out, seat, view.stock_size, view.turn_number, PHASE_NAMES.index(view.phase),
                          ASK_NAMES.index(view.ask),
                          (view.took_pile, view.melded_this_turn, view.touched_old_melds,
                           bool(view.part_value("clean_turn", False))),
                          int(view.part_value("draw_mode", 0)), view.to_move, view.turn, view.lone, view.went_out,
                          pending if seat == view.to_move else ())

    def describe(self) -> list[tuple[str, int, int]]:
        """(section, first index, width) of each part of the vector."""
        return [(name, s.start, s.stop - s.start) for name, s in self.slices.items()]

    def feature_names(self) -> list[str]:
        """A name for each of the ``size`` features, in order (``seats[k]`` and ``sides[k]``
        relative: 0 is the observer and its side; values as stored, scaled where the layout
        says ÷)."""
        slots = [RANK_NAMES[k] for k in GROUP_KEYS] + ["wild"]
        seat = (["hand size", *(f"known {k}" for k in KIND_NAMES), "red threes", "has melded",
                 "added to partner", "red threes to lay out", "score /1000", "minimum /100"])
        side = (["opened", "canastas"]
                + [f"meld {m} {x}" for m in slots for x in ("naturals", "deuces", "jokers", "concealed")]
                + [f"closed {m}" for m in slots] + ["closed clean", "closed dirty"])
        pile = (["size /10", "face down", "frozen", *(f"face up {k}" for k in KIND_NAMES),
                 *(f"top {k}" for k in KIND_NAMES), "top face down"])
        seats = [*(f"seat {k}" for k in range(self.n)), "nobody"]
        per: dict[str, list[str]] = {
            "hand": list(KIND_NAMES),
            "seats": [f"[{k}] {x}" for k in range(self.n) for x in seat],
            "sides": [f"[{k}] {x}" for k in range(self.nsides) for x in side],
            "pile": pile,
            "stock_and_turn": ["stock /10", "turn number /100"],
            "phase": list(PHASE_NAMES),
            "ask": list(ASK_NAMES),
            "turn_flags": ["took the pile", "melded this turn", "touched old melds", "clean opening"],
            "draw_mode": ["none", "announced opening", "drew two unopened"],
            "to_move": seats[:-1],
            "turn": seats[:-1],
            "lone": seats,
            "went_out": seats,
            "pending": (["take", "take naturals", "take deuces", "take jokers"]
                        + [f"meld {m} {x}" for m in slots for x in ("naturals", "deuces", "jokers")]),
        }
        out: list[str] = []
        for name, sl in self.slices.items():
            names = per[name]
            assert len(names) == sl.stop - sl.start, name
            out += [f"{name}{x}" if x.startswith("[") else f"{name} {x}" for x in names]
        return out


compiled_pickle.register([__name__])  # compiled: this module's classes pickle and copy (canasta.engine.compiled_pickle)
