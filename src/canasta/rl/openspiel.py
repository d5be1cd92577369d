"""The engine as an OpenSpiel Python game: ``python_canasta``.

Importing this module registers it::

    import pyspiel
    import canasta.rl.openspiel  # registers python_canasta
    game = pyspiel.load_game("python_canasta", {"rules": "italian-4p"})

One hand per episode.  Imperfect information with explicit chance: the shuffle is dealt at
chance nodes, one card code per position of the pack from the top (each outcome's probability
its count among the cards left), then, in Italian, the cut (B.3.2: 30 to all but 30 cards
lifted, uniform); the rest is the engine's deterministic deal from that order.  The players'
actions are :mod:`canasta.rl.encoding`'s (a move is one action or a few).  Returns: each seat's
hand score minus the mean of the other sides' (zero-sum).

Observation and information-state tensors are the seat's :class:`~canasta.rl.encoding.Observer`
vector (the information-state tensor is the same vector: it is not perfect recall).  The
observation string is the seat's view; the information-state string is perfect recall: the
seat's dealt hand, then every move with what it showed the table, and after the seat's own
moves its hand.  ``resample_from_infostate`` deals the unseen cards anew with
:func:`canasta.views.seat.sample_world` (what OpenSpiel's ISMCTS needs), sampling again a world in
which a seat that asked "may I go out?" could not (see :func:`plausible`).
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel

from canasta.engine.cards import cards_str, make_deck
from canasta.engine.game import Game, family_of
from canasta.engine.rules import PRESETS, RuleSet
from canasta.engine.state import ASK_PENDING, ASK_YES
from canasta.rl.core import ActionTable
from canasta.rl.encoding import NUM_ACTIONS, Observer, action_name
from canasta.views.seat import sample_world, seat_view

SHORT_NAME = "python_canasta"
DEFAULT_RULES = "classic-4p"

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Canasta (classic and Italian, the canasta engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": DEFAULT_RULES, "dealer": 0},
)


def max_length(rules: RuleSet) -> int:
    """A bound on the number of actions in a hand: the pack's chance nodes and the cut, then
    at most 2 * D + 1 turns (a draw takes a card from the stock, a take lays a pile card on a
    meld for good), each with a draw, an ask and its answer and a discard, and at most 2 * D
    meld actions (each group lays a card; a commit follows two groups or more)."""
    d = rules.deck_size
    return d + 1 + 4 * (2 * d + 1) + 2 * d


def score_bound(rules: RuleSet) -> int:
    """A bound on any side's hand score, either sign."""
    family = family_of(rules)
    values = family.card_values(rules)
    cards = sum(values[c] for c in make_deck(rules.packs))
    reds = 2 * rules.packs
    return 2 * cards + (rules.deck_size // family.canasta_size) * 5000 + 2 * rules.red_three_points(reds) + 10_000


def _rules_of(params: dict[str, Any]) -> RuleSet:
    name = str(params.get("rules", DEFAULT_RULES))
    if name not in PRESETS:
        raise ValueError(f"unknown rules preset {name!r}: choose one of {', '.join(sorted(PRESETS))}")
    return RuleSet.preset(name)


class CanastaGame(pyspiel.Game):  # type: ignore[misc]
    """``python_canasta``: parameters ``rules`` (a preset name) and ``dealer`` (a seat)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.rules = _rules_of(params)
        self.dealer = int(params.get("dealer", 0)) % self.rules.players
        self.observer = Observer(self.rules)
        bound = 2 * score_bound(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=max(53, self.rules.deck_size),
            num_players=self.rules.players,
            min_utility=float(-bound),
            max_utility=float(bound),
            utility_sum=0.0,
            max_game_length=max_length(self.rules),
        )
        super().__init__(_GAME_TYPE, info, {"rules": self.rules.name, "dealer": self.dealer})

    def new_initial_state(self) -> CanastaState:
        return CanastaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> CanastaObserver:
        if iig_obs_type is None:
            return CanastaObserver(self, False)
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("no observer of every seat's private information: the game is of imperfect information")
        return CanastaObserver(self, bool(iig_obs_type.perfect_recall), bool(iig_obs_type.public_info),
                               private == pyspiel.PrivateInfoType.SINGLE_PLAYER)


class CanastaState(pyspiel.State):  # type: ignore[misc]
    """A hand: the pack being dealt at chance nodes, then the seats' actions."""

    def __init__(self, game: CanastaGame) -> None:
        super().__init__(game)
        self.cgame = game
        self.rules = game.rules
        self.order: list[int] = []  # the pack, top first, as chance dealt it
        self.left = [0] * 53
        for c in make_deck(self.rules.packs):
            self.left[c] += 1
        self.cut: int | None = None
        self.table: ActionTable | None = None
        # perfect recall: the public record, and per seat its private notes (at a record position)
        self.public: list[str] = []
        self.private: list[list[tuple[int, str]]] = [[] for _ in range(self.rules.players)]

    # -- chance

    def current_player(self) -> int:
        if self.table is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.table.over:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.table.to_move

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.table is None
        if len(self.order) < self.rules.deck_size:
            total = self.rules.deck_size - len(self.order)
            return [(c, k / total) for c, k in enumerate(self.left) if k]
        lifts = range(30, self.rules.deck_size - 30)
        return [(x, 1.0 / len(lifts)) for x in lifts]

    def _legal_actions(self, player: int) -> list[int]:
        assert self.table is not None and player == self.table.to_move
        return self.table.legal_actions()

    def _apply_action(self, action: int) -> None:
        if self.table is None:
            if len(self.order) < self.rules.deck_size:
                if not self.left[action]:
                    raise ValueError(f"no {action_name(action)} left to deal")
                self.left[action] -= 1
                self.order.append(action)
                if len(self.order) == self.rules.deck_size and not family_of(self.rules).has_cut:
                    self._deal()
            else:
                self.cut = action
                self._deal()
            return
        t = self.table
        seat = t.to_move
        move = t.step(action)
        if move is not None:
            self._log(seat, str(move))

    def _deal(self) -> None:
        # the only other randomness of a deal (Italian I-O11 random reinsertion) follows the pack
        stream = random.Random(hash(tuple(self.order)) & 0xFFFFFFFF)
        game = Game(self.rules, 0, dealer=self.cgame.dealer, deck=self.order, cut=self.cut, stream=stream)
        self.table = ActionTable(self.rules)
        self.table.start(game)
        # what the deal shows everyone: the dealer, the upcard (the pile or pozzo as laid, face-down
        # cards as "?"), the cards the cutter took, the red threes, the hands' sizes, the stock
        self.public.append(f"deal: dealer {game.dealer} pile {_pile_str(game)} cut {cards_str(game.shown_at_deal()) or '-'} | "
                           + _public_line(game))
        for s in range(self.rules.players):
            self.private[s].append((0, f"dealt {cards_str(sorted(game.hand(s)))}"))

    def _log(self, seat: int, move: str) -> None:
        assert self.table is not None
        g = self.table.game
        self.public.append(f"{seat}: {move} | " + _public_line(g))
        self.private[seat].append((len(self.public), f"hand {cards_str(sorted(g.hand(seat)))}"))

    def history_of(self, player: int, public: bool = True, private: bool = True) -> list[str]:
        """What ``player`` has seen of the hand, in order (perfect recall): the public record
        and the player's private notes (either alone with ``public`` or ``private`` False)."""
        out: list[str] = []
        notes = self.private[player] if private else []
        k = 0
        for i in range(len(self.public) + 1):
            while k < len(notes) and notes[k][0] == i:
                out.append(notes[k][1])
                k += 1
            if public and i < len(self.public):
                out.append(self.public[i])
        return out

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            if len(self.order) < self.rules.deck_size:
                return f"deal {cards_str([action])}"
            return f"cut {action}"
        return action_name(action)

    def is_terminal(self) -> bool:
        return self.table is not None and self.table.over

    def returns(self) -> list[float]:
        if self.table is None:
            return [0.0] * self.rules.players
        return self.table.rewards()

    def __str__(self) -> str:
        if self.table is None:
            return f"dealing: {len(self.order)} of {self.rules.deck_size} cards" + (
                f", cut {self.cut}" if self.cut is not None else "")
        g = self.table.game
        hands = " / ".join(cards_str(sorted(g.hand(s))) for s in range(g.players))
        return f"{g!r} hands {hands} pile {cards_str(g.pile)} pending {list(self.table.pending)}"

    # -- ISMCTS

    def resample_from_infostate(self, player: int, sampler: Any) -> CanastaState:
        """A state ``player`` cannot tell from this one: the unseen cards dealt anew."""
        if self.table is None:
            return self.clone()  # type: ignore[no-any-return]
        rng = random.Random(int(sampler() * 2**53))
        new: CanastaState = self.clone()
        assert new.table is not None
        view = seat_view(self.table.game, player)
        for _ in range(RESAMPLE_TRIES):
            world = sample_world(view, rng)
            if plausible(world, player):
                break
        else:
            # no world dealt from the view fits what the table knows (say, a partner who asked to
            # go out, which few hands can): this state is one the player cannot tell apart either
            return self.clone()  # type: ignore[no-any-return]
        new.table.start(world)
        if player == self.table.to_move:  # the actions chosen so far are the player's own
            for a in self.table.pending:
                new.table.step(a)
        # the other seats' private past is unknown in the new world: from here on, their notes
        # start from the hands the world gave them (so their information states differ from the
        # real ones wherever their hands do)
        for s in range(self.rules.players):
            if s != player:
                new.private[s] = [(len(new.public), f"resampled hand {cards_str(sorted(world.hand(s)))}")]
        return new


RESAMPLE_TRIES = 200


def _pile_str(g: Game) -> str:
    """The pile (the pozzo) from the bottom, face-down cards as ``?``."""
    lo, hi = g.face_down()
    return " ".join("?" if lo <= i < hi else cards_str([c]) for i, c in enumerate(g.pile)) or "-"


def _public_line(g: Game) -> str:
    """The table's public state after a move: the pile's top and size (and face-down cards),
    frozen or not, red threes, hands' sizes, the stock."""
    lo, hi = g.face_down()
    top = _pile_str(g).split(" ")[-1]
    return (f"pile top {top} size {len(g.pile)} hidden {hi - lo} frozen {int(bool(g.pile_frozen))} "
            f"red threes {[len(x) for x in g.red3]} hands {g.hand_sizes} stock {len(g.stock)}")


def plausible(world: Game, player: int) -> bool:
    """Whether a sampled world fits what the table knows beyond the cards: ``sample_world``
    deals the unseen cards without it, so a seat that asked "may I go out?" may get a hand that
    cannot go out (and, after a yes, no legal move at all).  Worlds that fail are sampled again."""
    if world.is_over():
        return True
    asker = world.turn
    if asker != player and world.ask in (ASK_PENDING, ASK_YES):
        probe = world.copy()
        if world.ask == ASK_PENDING:
            probe.push("yes")
        if not probe.can_go_out():
            return False
    return bool(world.legal_moves)


#: the seat from which the public observation (public information alone) is seen, whichever
#: player asks: seat 0, so that the seats come in their own order
PUBLIC_SEAT = 0

PRIVATE_SECTIONS = ("hand", "pending")
"""The observation vector's sections only the seat itself knows: its hand, and the actions it
has chosen so far of an unfinished move.  Every other section is public."""


class CanastaObserver:
    """Observation (``perfect_recall=False``) or information state (``True``) of a seat, with
    the public information, the seat's private information or both (``IIGObservationType``'s
    ``public_info`` and ``private_info``: ``PublicObservationString`` has no private card).

    Tensors keep the full layout with the parts left out at zero (the private sections are the
    hand and the pending actions, :data:`PRIVATE_SECTIONS`).  Strings: the view as JSON (the
    public part without the seat and its hand, the private part only the seat, its hand and its
    pending actions); for perfect recall, the public record and the seat's private notes (either
    alone), then the current view.

    The public part alone is one observation for every player, as OpenSpiel's public observation
    is (``generate_playthrough`` asks it of player 0 only): its string names no seat and its
    tensor is seen from seat 0 (seats in their own order, :data:`PUBLIC_SEAT`), whichever player
    it is asked for."""

    def __init__(self, game: CanastaGame, perfect_recall: bool, public: bool = True, private: bool = True) -> None:
        self.observer = game.observer
        self.perfect_recall = perfect_recall
        self.public = public
        self.private = private
        self.tensor = np.zeros(self.observer.size, np.float32)
        self.dict = {name: self.tensor[sl] for name, sl in self.observer.slices.items()}
        self._zero = [sl for name, sl in self.observer.slices.items()
                      if not (private if name in PRIVATE_SECTIONS else public)]

    def set_from(self, state: CanastaState, player: int) -> None:
        if state.table is None:
            self.tensor.fill(0.0)
            return
        t = state.table
        seat = player if self.private else PUBLIC_SEAT  # the public part: the same for every player
        self.tensor[:] = self.observer.encode(t.game, seat, t.pending if self.private else ())
        for sl in self._zero:
            self.tensor[sl] = 0.0

    def _now(self, state: CanastaState, player: int) -> str:
        assert state.table is not None
        t = state.table
        pending = " ".join(str(a) for a in t.pending) if player == t.to_move else ""
        if self.public and self.private:
            return seat_view(t.game, player).to_json() + f" pending {pending}"
        if self.public:
            data = seat_view(t.game, PUBLIC_SEAT).to_dict()
            del data["hand"], data["seat"]
            return json.dumps(data)
        if self.private:
            return f"seat {player} hand {cards_str(sorted(t.game.hand(player)))} pending {pending}"
        return ""

    def string_from(self, state: CanastaState, player: int) -> str:
        seat = f"seat {player}" if self.private else "public"  # the public part names no seat
        if state.table is None:
            return f"{seat}: dealing"  # no seat sees a card before the deal is complete
        if self.perfect_recall:
            history = state.history_of(player, self.public, self.private)
            return f"{seat}\n" + "\n".join(history) + "\nnow " + self._now(state, player)
        return self._now(state, player)


pyspiel.register_game(_GAME_TYPE, CanastaGame)
