"""The action space and the legal-action mask (``docs/rl.md``).

**Actions.**  One fixed discrete space of :data:`NUM_ACTIONS` indices for every preset.  A move of
the engine's generating set (``Game.generate``: suits picked canonically, melds grown a card at a
time except initial melds, canastas laid complete and going out) is one action or a short sequence
of actions, one per meld group:

* ``draw``, ``open``, ``end``, ``ask``, ``yes``, ``no``: the move of that name;
* ``discard R``: discard a card of rank R (14 indices);
* ``group K n d j``: a meld group on the meld of rank K (3 to A) made of ``n`` natural cards,
  ``d`` deuces and ``j`` jokers from the hand (``d + j <= 3``);
* ``wild d j``: Italian, a group of ``d`` deuces and ``j`` jokers on the side's meld of wild cards;
* ``take n d j``: take the pile, showing ``n`` natural cards, ``d`` deuces and ``j`` jokers with
  its top card; the initial meld laid with it follows as groups;
* ``commit``: play the groups chosen so far as one move (offered only where those groups are a
  whole move *and* the start of a longer one).

A move's groups come in a canonical order (take's group first, then by index), so every move
has exactly one sequence and every sequence of legal actions ends in exactly one move:
:class:`Decision` is that step layer over one position.  Suits are the engine's canonical ones.

The observation is :mod:`canasta.rl.encoding`'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypeAlias

import numpy as np
import numpy.typing as npt

from canasta.engine import compiled_pickle
from canasta.engine.cards import (
    CARD_RANK,
    JOKER,
    JOKER_RANK,
    NUM_RANKS,
    RANK_NAMES,
    THREE,
    TWO,
    Card,
)
from canasta.engine.errors import IllegalMoveError
from canasta.engine.game import Game, RuleFamily
from canasta.engine.melds import WILD_MELD
from canasta.engine.moves import (
    ASK,
    DISCARD,
    DRAW,
    END,
    MELD,
    NO,
    OPEN,
    TAKE,
    YES,
    Group,
    Move,
    group_cards,
)
from canasta.engine.options import (
    CODE_SHIFT,
    DEUCE_ON_OPT,
    DEUCE_ON_WILD_OPT,
    DISCARD_CODE,
    JOKER_ON_OPT,
    JOKER_ON_WILD_OPT,
    NATURAL_ON_OPT,
    NEW_PAIR_DEUCE_OPT,
    NEW_PAIR_JOKER_OPT,
    NEW_THREE_OPT,
    NEW_WILD_OPT,
    Option,
    option_of,
)
from canasta.engine.state import DRAW_PHASE

BoolArray: TypeAlias = npt.NDArray[np.bool_]

# ---------------------------------------------------------------------------- the action space

A_DRAW: Final = 0
A_OPEN: Final = 1
A_END: Final = 2
A_ASK: Final = 3
A_YES: Final = 4
A_NO: Final = 5
A_COMMIT: Final = 6
DISCARD_BASE: Final = 7  # + rank (14)

MAX_NATURALS: Final = 12  # most natural cards of one rank in a group: 3 packs x 4 suits
#: wild-card compositions (deuces, jokers) of a group on a natural meld: at most three wild cards
WILD_COMPS: Final[tuple[tuple[int, int], ...]] = (
    (0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2), (3, 0), (2, 1), (1, 2), (0, 3))
_WIDX: Final = {dj: i for i, dj in enumerate(WILD_COMPS)}
#: compositions of a group on the Italian meld of wild cards: 1 to 7 cards, at most 6 jokers
WILD_MELD_COMPS: Final[tuple[tuple[int, int], ...]] = tuple(sorted(
    ((d, j) for d in range(8) for j in range(7) if 1 <= d + j <= 7), key=lambda dj: (sum(dj), dj[1])))
_WMIDX: Final = {dj: i for i, dj in enumerate(WILD_MELD_COMPS)}

TAKE_BASE: Final = DISCARD_BASE + NUM_RANKS
_PER_KEY: Final = (MAX_NATURALS + 1) * len(WILD_COMPS)
GROUP_BASE: Final = TAKE_BASE + _PER_KEY
#: meld keys of group actions: THREE (black threes) to ACE
GROUP_KEYS: Final = tuple(range(THREE, JOKER_RANK))
WILD_BASE: Final = GROUP_BASE + len(GROUP_KEYS) * _PER_KEY
NUM_ACTIONS: Final = WILD_BASE + len(WILD_MELD_COMPS)

#: meld slots of the observation: THREE .. ACE, then the Italian meld of wild cards
MELD_SLOTS: Final = len(GROUP_KEYS) + 1


def _slot(key: int) -> int:
    return len(GROUP_KEYS) if key == WILD_MELD else key - THREE


class EncodingError(ValueError):
    """A move or an action the encoding cannot represent (a bug, or a move outside the generating set)."""


def take_action(n: int, d: int, j: int) -> int:
    """The ``take`` action showing ``n`` natural cards, ``d`` deuces and ``j`` jokers with the top card."""
    w = _WIDX.get((d, j))
    if w is None or not 0 <= n <= MAX_NATURALS:
        raise EncodingError(f"no take action for {n} naturals, {d} deuces, {j} jokers")
    return TAKE_BASE + n * len(WILD_COMPS) + w


def group_action(key: int, n: int, d: int, j: int) -> int:
    """The action of one meld group: ``key`` is the meld's rank (THREE..ACE) or ``WILD_MELD``."""
    if key == WILD_MELD:
        w = _WMIDX.get((d, j))
        if n or w is None:
            raise EncodingError(f"no group action for {n} naturals, {d} deuces, {j} jokers on the wild meld")
        return WILD_BASE + w
    w = _WIDX.get((d, j))
    if w is None or not THREE <= key <= JOKER_RANK - 1 or not 0 <= n <= MAX_NATURALS:
        raise EncodingError(f"no group action for rank {key}, {n} naturals, {d} deuces, {j} jokers")
    return GROUP_BASE + ((key - THREE) * (MAX_NATURALS + 1) + n) * len(WILD_COMPS) + w


ActionInfo = tuple[str, int, int, int, int]
"""(kind, key, naturals, deuces, jokers); kind is draw/open/end/ask/yes/no/commit/discard/take/group."""


def _build_info() -> tuple[ActionInfo, ...]:
    out: list[ActionInfo] = [(name, -1, 0, 0, 0) for name in ("draw", "open", "end", "ask", "yes", "no", "commit")]
    out += [("discard", r, 0, 0, 0) for r in range(NUM_RANKS)]
    out += [("take", -1, n, d, j) for n in range(MAX_NATURALS + 1) for d, j in WILD_COMPS]
    out += [("group", k, n, d, j) for k in GROUP_KEYS for n in range(MAX_NATURALS + 1) for d, j in WILD_COMPS]
    out += [("group", WILD_MELD, 0, d, j) for d, j in WILD_MELD_COMPS]
    assert len(out) == NUM_ACTIONS
    return tuple(out)


ACTION_INFO: Final = _build_info()


def _comp_str(n: int, d: int, j: int) -> str:
    parts = ([f"{n} natural" + ("s" if n != 1 else "")] if n else []) + (
        [f"{d} deuce" + ("s" if d != 1 else "")] if d else []) + ([f"{j} joker" + ("s" if j != 1 else "")] if j else [])
    return ", ".join(parts) if parts else "nothing more"


def action_name(action: int) -> str:
    """Words for an action index, e.g. ``'group K: 2 naturals, 1 deuce'``."""
    if not 0 <= action < NUM_ACTIONS:
        raise EncodingError(f"{action} is not an action (0 to {NUM_ACTIONS - 1})")
    kind, key, n, d, j = ACTION_INFO[action]
    if kind == "discard":
        return f"discard {RANK_NAMES[key]}"
    if kind == "take":
        return f"take, showing {_comp_str(n, d, j)}"
    if kind == "group":
        where = "wild meld" if key == WILD_MELD else RANK_NAMES[key]
        return f"group {where}: {_comp_str(n, d, j)}"
    return kind


# option codes of Game.options (canasta.engine.options: code << CODE_SHIFT | rank) -> action
def _option_table() -> tuple[int, ...]:
    table = [-1] * (16 << CODE_SHIFT)
    for r in range(NUM_RANKS):
        table[option_of(DISCARD_CODE, r)] = DISCARD_BASE + r
        if THREE <= r < JOKER_RANK:
            table[NATURAL_ON_OPT + r] = group_action(r, 1, 0, 0)
            table[DEUCE_ON_OPT + r] = group_action(r, 0, 1, 0)
            table[JOKER_ON_OPT + r] = group_action(r, 0, 0, 1)
            table[NEW_THREE_OPT + r] = group_action(r, 3, 0, 0)
            table[NEW_PAIR_DEUCE_OPT + r] = group_action(r, 2, 1, 0)
            table[NEW_PAIR_JOKER_OPT + r] = group_action(r, 2, 0, 1)
    table[DEUCE_ON_WILD_OPT] = group_action(WILD_MELD, 0, 1, 0)
    table[JOKER_ON_WILD_OPT] = group_action(WILD_MELD, 0, 0, 1)
    for jj in range(4):  # a new meld of three wild cards, jj of them jokers
        table[NEW_WILD_OPT + jj] = group_action(WILD_MELD, 0, 3 - jj, jj)
    return tuple(table)


_OPTION_ACTION: Final = _option_table()
_SIMPLE: Final = {DRAW: (A_DRAW,), OPEN: (A_OPEN,), END: (A_END,), ASK: (A_ASK,), YES: (A_YES,), NO: (A_NO,)}


def _composition(cards: Iterable[Card]) -> tuple[int, int, int]:
    n = d = j = 0
    for c in cards:
        if c == JOKER:
            j += 1
        elif CARD_RANK[c] == TWO:
            d += 1
        else:
            n += 1
    return n, d, j


def _group_act(family: RuleFamily, g: Group) -> int:
    n, d, j = _composition(group_cards(g))
    try:
        key = family.group_key(g)
    except IllegalMoveError:
        raise EncodingError(f"a {family.name} meld group of wild cards only names no meld") from None
    return group_action(key, n, d, j)


def move_actions(move: Move, family: RuleFamily) -> tuple[int, ...]:
    """The canonical action sequence of a move (without a final ``commit``; see
    :meth:`Decision.actions_for`).  Raises :class:`EncodingError` if it has none."""
    kind = move.kind
    simple = _SIMPLE.get(kind)
    if simple is not None:
        return simple
    if kind == DISCARD:
        return (DISCARD_BASE + CARD_RANK[move.groups[0][0]],)
    if kind == MELD:
        return tuple(sorted(_group_act(family, g) for g in move.groups))
    if kind == TAKE:
        head = group_cards(move.groups[0]) if move.groups else ()
        return (take_action(*_composition(head)),) + tuple(sorted(_group_act(family, g) for g in move.groups[1:]))
    raise EncodingError(f"unknown move kind {kind}")


def _option_actions(game: Game, opt: Option) -> tuple[int, ...]:
    if isinstance(opt, int):
        a = _OPTION_ACTION[opt]
        if a < 0:
            raise EncodingError(f"unknown option code {opt}")
        return (a,)
    if isinstance(opt, tuple):
        if game.phase == DRAW_PHASE:  # a take that opens, as an option
            return move_actions(game.materialize(opt), game.family)
        return tuple(sorted(group_action(k, n, d, j) for k, n, d, j in opt))
    return move_actions(opt, game.family)


class Decision:
    """The choice the seat to move faces in one position, as a tree of actions.

    ``legal_actions()`` lists the actions allowed after the ones already chosen (``prefix``);
    ``apply(action)`` returns the engine move once a sequence is complete, else None.  The game
    must not change while a decision is in use."""

    __slots__ = ("game", "_entries", "_opts", "prefix", "_acts", "_buf", "_legal")

    def __init__(self, game: Game) -> None:
        self.game = game
        self.prefix: tuple[int, ...] = ()
        self._legal: list[int] | None = None
        self._entries: list[tuple[tuple[int, ...], Option]] | None = None
        opts = self._opts = game.options()
        table = _OPTION_ACTION
        # the common case, every move one action: each option's action, and the mask built as
        # they are read (an action two options share plays the first of them); ``_buf`` is None
        # when some move takes several actions (the tree of ``entries`` then decides)
        acts: list[int] = []
        buf = bytearray(NUM_ACTIONS)
        self._acts = acts
        for opt in opts:
            if opt.__class__ is not int:
                seq = _option_actions(game, opt)
                if len(seq) > 1:
                    self._entries = [(_option_actions(game, o), o) for o in opts]
                    self._buf: bytearray | None = None
                    return
                a = seq[0]
            else:
                a = table[opt]
                if a < 0:
                    raise EncodingError("an option code without an action")
            acts.append(a)
            buf[a] = 1
        self._buf = buf

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal now (False for any number that is not an action)."""
        if not 0 <= action < NUM_ACTIONS:
            return False
        if self._buf is not None:
            return self._buf[action] == 1
        return action in self.legal_list()

    def reset(self) -> None:
        """Forget the actions chosen so far."""
        self.prefix = ()
        self._legal = None

    @property
    def entries(self) -> list[tuple[tuple[int, ...], Option]]:
        """(action sequence, engine option) of every move of the position."""
        if self._entries is None:
            self._entries = [(_option_actions(self.game, o), o) for o in self._opts]
        return self._entries

    def legal_actions(self) -> list[int]:
        """The legal actions now, ascending (a new list)."""
        return self.legal_list()[:]

    def legal_list(self) -> list[int]:
        """:meth:`legal_actions` without the copy: do not change it."""
        if self._legal is None:
            if self._buf is not None:
                self._legal = sorted(set(self._acts))
            else:
                children, terminal = self._node(self.prefix)
                out = sorted(children)
                if terminal and children:
                    out.append(A_COMMIT)
                    out.sort()
                self._legal = out
        return self._legal

    def mask_bytes(self) -> bytearray:
        """The legal actions now as ``NUM_ACTIONS`` bytes, 1 for a legal action (a new buffer:
        ``np.frombuffer`` makes it an int8, uint8 or bool mask without a copy)."""
        if self._buf is not None:  # every move one action: no prefix
            return self._buf[:]
        buf = bytearray(NUM_ACTIONS)
        for a in self.legal_list():
            buf[a] = 1
        return buf

    def mask(self, out: BoolArray | None = None) -> BoolArray:
        m = np.zeros(NUM_ACTIONS, dtype=np.bool_) if out is None else out
        if out is not None:
            m[:] = False
        m[self.legal_actions()] = True
        return m

    def _node(self, prefix: tuple[int, ...]) -> tuple[set[int], bool]:
        k = len(prefix)
        children: set[int] = set()
        terminal = False
        for seq, _ in self.entries:
            if seq[:k] == prefix:
                if len(seq) == k:
                    terminal = True
                else:
                    children.add(seq[k])
        return children, terminal

    def _option(self, seq: tuple[int, ...]) -> Option:
        for s, opt in self.entries:
            if s == seq:
                return opt
        raise EncodingError("no move for this sequence")  # pragma: no cover - checked by callers

    def apply(self, action: int) -> Move | None:
        """Choose ``action``: the finished move, or None while the move is being built.
        An illegal action raises :class:`EncodingError` and changes nothing."""
        if self._buf is not None:
            if not self.is_legal(action):
                raise EncodingError(f"illegal action {action} ({action_name(action)})")
            return self.game.materialize(self._opts[self._acts.index(action)])
        if action == A_COMMIT:
            children, terminal = self._node(self.prefix)
            if not (terminal and children):
                raise EncodingError("commit is legal only after groups that make a whole move")
            return self.game.materialize(self._option(self.prefix))
        new = self.prefix + (action,)
        children, terminal = self._node(new)
        if not children and not terminal:
            raise EncodingError(f"illegal action {action} ({action_name(action)})")
        if terminal and not children:
            return self.game.materialize(self._option(new))
        self.prefix = new
        self._legal = None
        return None

    def moves(self) -> list[Move]:
        """The moves of this decision (the generating set)."""
        return [self.game.materialize(opt) for _, opt in self.entries]

    def actions_for(self, move: Move) -> list[int]:
        """The action sequence that plays ``move`` from an empty prefix; :class:`EncodingError`
        if the move is not in the generating set (up to suits)."""
        seq = move_actions(move, self.game.family)
        if not any(s == seq for s, _ in self.entries):
            raise EncodingError(f"{move} is not in the generating set of this position")
        children, _ = self._node(seq)
        return list(seq) + ([A_COMMIT] if children else [])


compiled_pickle.register([__name__])  # compiled: this module's classes pickle and copy (canasta.engine.compiled_pickle)
