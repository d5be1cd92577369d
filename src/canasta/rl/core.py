"""One table driven by actions: the engine, the step layer and the observer together.

:class:`ActionTable` is what every environment wraps (PettingZoo, Gymnasium, OpenSpiel): it deals a
hand (or plays a match), says whose action it is, gives any seat's observation and the mover's
mask, applies an action, and scores the end.  Pure apart from numpy; all randomness comes from
the seed given to :meth:`ActionTable.reset` (a table never seeded draws fresh entropy: fresh tables
deal different hands).

Rewards (``docs/rl.md``): ``reward="hand"`` ends the episode with the hand and gives each seat
its hand score minus the mean hand score of the other sides (the plain score difference with
two sides; zero-sum); ``reward="match"`` plays hands until the match is decided and gives the
winning side +1 and every other side -1/(sides - 1) (0 to all for a drawn or unfinished match).
"""

from __future__ import annotations

import copy
import itertools
import random
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from canasta.engine.game import Game
from canasta.engine.moves import DISCARD, MELD, TAKE, Move
from canasta.engine.rules import RuleSet
from canasta.play.match import Match
from canasta.rl.encoding import CODES_OF_KIND as CODES_OF_KIND  # the suits' table, defined with the encoding
from canasta.rl.encoding import (
    NUM_ACTIONS,
    Decision,
    FloatArray,
    Observer,
    action_name,
    canonical,
    resuit,
)

REWARDS: Final = ("hand", "match")
#: the default penalty for an illegal action with hand rewards, before ``reward_scale``: below any
#: hand's score difference (a hand's difference stays within a few thousand points), so an illegal
#: action is never a way out of a losing hand
ILLEGAL_HAND: Final = -20_000.0
#: the same with match rewards (a lost match is -1 at worst)
ILLEGAL_MATCH: Final = -2.0
_STAMPS: Final = itertools.count(1)  # process-wide, never reused: see Observer.encode
#: mask dtypes built straight from the decision's bytes (one byte per action)
_BYTE_MASKS: Final = (np.int8, np.bool_, np.uint8)
_INT8: Final = np.dtype(np.int8)


def _suits_seed(game: Game) -> int:
    # a hand's suit choices follow its deal (the seed, the dealer and the cards as dealt)
    return hash((game.seed, game.dealer, game.hand_number, tuple(game.stock), tuple(game.pile))) & (2**63 - 1)


def hand_rewards(game: Game) -> list[float]:
    """Each seat's hand score minus the mean hand score of the other sides (sides of the
    scoring: per player in cut-throat); zero-sum."""
    result = game.result
    if result is None:
        raise ValueError("the hand is not over")
    totals = [s.total for s in result]
    k = len(totals)
    slot = list(range(game.players)) if game.rules.cutthroat else game.side_of
    whole = sum(totals)
    if k < 2:
        return [0.0] * game.players
    return [float(totals[slot[s]] - (whole - totals[slot[s]]) / (k - 1)) for s in range(game.players)]


def match_rewards(rules: RuleSet, match: Match) -> list[float]:
    """+1 to the seats of the winning side, -1/(sides - 1) to the others; 0 to all when drawn
    or undecided."""
    n = rules.players
    k = len(match.totals)
    if match.winner is None or match.winner < 0 or k < 2:
        return [0.0] * n
    game = match.game
    slot = list(range(n)) if rules.cutthroat or game is None else game.side_of
    return [1.0 if slot[s] == match.winner else -1.0 / (k - 1) for s in range(n)]


#: what an :class:`ActionTable` pickles (its stamps are drawn anew instead)
_STATE: Final = ("reward", "reward_scale", "max_hands", "observer", "n", "rng", "random_suits", "suits", "match",
                 "game", "_decision", "last_move", "moves", "over")


def _restore(rules: RuleSet, state: dict[str, Any]) -> ActionTable:
    """An unpickled :class:`ActionTable`."""
    table = ActionTable(rules)
    for name, value in state.items():
        setattr(table, name, value)
    table._fresh_stamps()
    return table


class ActionTable:
    """A hand (or a match) of Canasta played by action indices."""

    def __init__(self, rules: RuleSet | str = "classic-4p", reward: str = "hand", reward_scale: float = 1.0,
                 max_hands: int = 60, random_suits: bool = True, copy_of: ActionTable | None = None) -> None:
        """A table of ``rules``; with ``copy_of``, an independent copy of that table (:meth:`copy`)."""
        if copy_of is not None:
            self._copy(copy_of)
            return
        self.rules = RuleSet.preset(rules) if isinstance(rules, str) else rules
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.reward = reward
        self.reward_scale = reward_scale
        self.max_hands = max_hands
        self.observer = Observer(self.rules)
        self.n = self.rules.players
        self.rng = random.Random()  # fresh entropy until reset(seed) makes the sequence repeatable
        self.random_suits = random_suits
        self.suits = random.Random()  # the suits of the cards actions play: see resuit()
        self.match: Match | None = None
        self.game = Game(self.rules, 0)
        self._decision: Decision | None = None
        self.stamps = (next(_STAMPS), next(_STAMPS), next(_STAMPS))
        self.last_move: Move | None = None
        self.moves = 0
        self.over = False

    # -- episode

    def reset(self, seed: int | None = None) -> None:
        """Deal a new hand (or start a new match) from ``seed`` (None: from the table's own
        random sequence, which starts from fresh entropy and after ``reset(seed)`` repeats)."""
        if seed is not None:
            self.rng = random.Random(seed)
        hand_seed = self.rng.getrandbits(63)
        dealer = self.rng.randrange(self.n)
        if self.reward == "match":
            self.match = Match(self.rules, seed=hand_seed, first_dealer=dealer)
            self.game = self.match.next_hand()
        else:
            self.match = None
            self.game = Game(self.rules, hand_seed, dealer=dealer)
        self.suits = random.Random(hand_seed ^ 0x5_1175)
        self._decision = None
        self.last_move = None
        self.moves = 0
        self.over = False
        self._fresh_stamps()

    # -- pickling (and deep copies): the attributes, then stamps drawn anew from this process's
    # count (it may be another process); by a reduce of its own, as a compiled class has no
    # ``__dict__``

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self.rules, {name: getattr(self, name) for name in _STATE}))

    def _fresh_stamps(self) -> None:
        self.stamps = (next(_STAMPS), next(_STAMPS), next(_STAMPS))

    def start(self, game: Game) -> None:
        """Play ``game`` (a hand already dealt) as one episode with hand rewards."""
        self.match = None
        self.game = game
        self.suits = random.Random(_suits_seed(game))
        self._decision = None
        self.last_move = None
        self.moves = 0
        self.over = game.is_over()
        self._fresh_stamps()

    def copy(self) -> ActionTable:
        """An independent copy (the game copied, the pending actions kept)."""
        return ActionTable(copy_of=self)

    def _copy(self, t: ActionTable) -> None:
        """Become an independent copy of ``t`` (the constructor's ``copy_of``): the observer and
        its cache stamps shared, the game, the match and the random sequences copied."""
        self.rules, self.reward, self.reward_scale, self.max_hands = t.rules, t.reward, t.reward_scale, t.max_hands
        self.observer, self.n, self.random_suits, self.stamps = t.observer, t.n, t.random_suits, t.stamps
        self.last_move, self.moves, self.over = t.last_move, t.moves, t.over
        self.rng = random.Random()
        self.rng.setstate(t.rng.getstate())
        self.suits = random.Random()
        self.suits.setstate(t.suits.getstate())
        self.match = None
        if t.match is None:
            self.game = t.game.copy()
        else:
            self.match = copy.deepcopy(t.match)
            assert self.match.game is not None
            self.game = self.match.game
        self._decision = None
        if t._decision is not None and t._decision.prefix:
            self._decision = Decision(self.game)
            for a in t._decision.prefix:
                self._decision.apply(a)

    @property
    def to_move(self) -> int:
        """The seat whose action it is (-1 once the episode is over)."""
        return -1 if self.over else self.game.to_move

    @property
    def decision(self) -> Decision:
        if self._decision is None:
            self._decision = Decision(self.game)
        return self._decision

    @property
    def pending(self) -> tuple[int, ...]:
        """Actions chosen so far in an unfinished sequence."""
        return self._decision.prefix if self._decision is not None else ()

    def legal_actions(self) -> list[int]:
        return [] if self.over else self.decision.legal_actions()

    def mask(self, dtype: type = np.int8) -> npt.NDArray[Any]:
        """The legal actions of the seat to move as a new array of ``dtype``, 1 where legal
        (all zeros once the episode is over)."""
        if self.over:
            return np.zeros(NUM_ACTIONS, dtype=dtype)
        d = self._decision
        if d is None:
            d = self._decision = Decision(self.game)
        if dtype in _BYTE_MASKS:
            return np.frombuffer(d.mask_bytes(), dtype)
        m: npt.NDArray[Any] = np.zeros(NUM_ACTIONS, dtype=dtype)
        m[d.legal_list()] = 1
        return m

    def observe(self, seat: int) -> FloatArray:
        d = self._decision
        return self.observer.encode(self.game, seat, d.prefix if d is not None else (), self.stamps)

    def observation(self, seat: int) -> dict[str, npt.NDArray[Any]]:
        """PettingZoo's observation of ``seat``: ``observation`` (:meth:`observe`) and
        ``action_mask`` (int8: :meth:`mask` for the seat to act, all zeros for another)."""
        g = self.game
        d = self._decision
        if not self.over and seat == g.to_move:
            if d is None:
                d = self._decision = Decision(g)
            mask = np.frombuffer(d.mask_bytes(), _INT8)
        else:
            mask = np.zeros(NUM_ACTIONS, _INT8)
        return {"observation": self.observer.encode(g, seat, d.prefix if d is not None else (), self.stamps),
                "action_mask": mask}

    def try_step(self, action: int) -> bool:
        """:meth:`step` if ``action`` is legal now (True), else nothing (False)."""
        if self.over:
            return False
        d = self._decision
        if d is None:
            d = self._decision = Decision(self.game)
        if not d.is_legal(action):
            return False
        self.step(action)
        return True

    def step(self, action: int) -> Move | None:
        """Apply an action of the seat to move; returns the engine move once one is complete.
        An illegal action raises :class:`~canasta.rl.encoding.EncodingError` and changes nothing."""
        if self.over:
            raise ValueError("the episode is over: reset the table")
        d = self._decision
        if d is None:
            d = self._decision = Decision(self.game)
        move = d.apply(int(action))
        if move is None:
            return None
        self._decision = None
        if self.random_suits:
            move = resuit(self.game, move, self.suits)
        elif move.kind == MELD or move.kind == TAKE:
            move = canonical(move)  # the one order of cards, as resuit writes them
        self.play(move, checked=False)
        return move

    def resuit(self, move: Move) -> Move:
        """``move`` (of the seat to move) with the suits of its cards drawn uniformly among the
        cards of each kind the hand holds, from the table's seeded generator.  Actions name only
        kinds (the generating set picks suits in a fixed order, which would tell the table which
        suits the hand does *not* hold: discarding 9C would say "no other nine"); the move
        played is the same up to suits.  Its cards are written in one order
        (:func:`~canasta.rl.encoding.canonical`), whatever the hand held."""
        return resuit(self.game, move, self.suits)

    def play(self, move: Move, checked: bool = True) -> None:
        """Play an engine move of the seat to move (a bot's); ``checked=False`` only for a move
        of this position's generating set."""
        if self._decision is not None and self._decision.prefix:
            raise ValueError("a sequence of actions is under way")
        if self.over:
            raise ValueError("the episode is over: reset the table")
        g = self.game
        lone = g.lone_seat
        if checked:
            g.play(move)
        else:
            g.play_unchecked(move)
        kind = move.kind
        m, p, c = self.stamps
        if g.lone_seat != lone:  # cut-throat sides formed: everything may have moved
            self._fresh_stamps()
        elif kind == MELD:
            self.stamps = (next(_STAMPS), p, c)
        elif kind == TAKE:
            self.stamps = (next(_STAMPS), next(_STAMPS), c)
        elif kind == DISCARD:
            self.stamps = (m, next(_STAMPS), c)
        self._decision = None
        self.last_move = move
        self.moves += 1
        if self.game.is_over():
            if self.match is None:
                self.over = True
            else:
                self.match.record_hand()
                if self.match.over or len(self.match.hands) >= self.max_hands:
                    self.over = True
                else:
                    self.game = self.match.next_hand()
                    self._fresh_stamps()

    def rewards(self) -> list[float]:
        """Per seat, once the episode is over (zeros before)."""
        if not self.over:
            return [0.0] * self.n
        raw = hand_rewards(self.game) if self.match is None else match_rewards(self.rules, self.match)
        return [r * self.reward_scale for r in raw]

    def illegal_penalty(self) -> float:
        """The environments' default reward for an illegal action: worse than any hand or match
        outcome (:data:`ILLEGAL_HAND`, :data:`ILLEGAL_MATCH`), times ``reward_scale``."""
        return (ILLEGAL_HAND if self.reward == "hand" else ILLEGAL_MATCH) * self.reward_scale

    def describe_action(self, action: int) -> str:
        return action_name(action)
