"""An outside yardstick: OpenSpiel's own ISMCTS playing the engine's OpenSpiel game.

``make_bot("ismcts:200")`` runs :class:`open_spiel.python.algorithms.ismcts.ISMCTSBot`
(information-set Monte Carlo tree search, Cowling, Powley and Whitehouse 2011) with 200
simulations a decision; ``make_bot("ismcts:0.5s")`` with as many as fit in 0.5 s of this
process's CPU time (at least one).  The search is OpenSpiel's, with its defaults: UCT
selection, one uniformly random rollout to the end of the hand per new node
(``mcts.RandomRolloutEvaluator``), the most visited action played; only the exploration
constant is set, to :data:`UCT_C` points, since the game's returns are hand scores (a seat's
score minus the mean of the other sides', a few hundred to a few thousand points).

It is honest: the bot gets a :class:`~canasta.views.seat.SeatView` like every other, deals the unseen
cards of that view at random into a state of ``python_canasta``
(:mod:`canasta.rl.openspiel`), and the search only ever samples its worlds again from that
state's information (``CanastaState.resample_from_infostate``, which deals from the seat's view
too).  A Canasta move may take several actions (:mod:`canasta.rl.encoding`): the bot searches
each action in turn and plays the move they make.  Seeded: the same seed and the same views
give the same moves (with a simulation count; a CPU-time budget depends on the machine).

OpenSpiel is the ``rl`` extra (``pip install -e '.[rl]'``); without it, making the bot fails
with one line saying so.  Only the presets are played (the OpenSpiel game is loaded by name).
"""

from __future__ import annotations

import random
import time
from typing import Any

from canasta.bots.base import Bot, Budget
from canasta.bots.heuristic import AdvancedBot
from canasta.engine.moves import Move
from canasta.engine.rules import PRESETS, RuleSet
from canasta.engine.state import ANSWER_PHASE, PHASE_NAMES
from canasta.views.seat import SeatView, sample_world

#: the UCT exploration constant, in points of hand score (OpenSpiel's examples use 2 for
#: returns of about ±1; a Canasta hand's returns spread over about a thousand points)
UCT_C = 1000.0
#: the simulations a decision of a plain ``ismcts`` (about the expert's default CPU time per
#: decision in classic-4p: docs/strength.md)
DEFAULT_SIMULATIONS = 16
#: the most simulations ``ismcts:N`` may ask for
MAX_SIMULATIONS = 1_000_000
#: the most CPU seconds ``ismcts:Ss`` may ask for a decision
MAX_SECONDS = 3600.0


class OpenSpielMissing(ImportError):
    """OpenSpiel (``pyspiel``) is not installed."""


def _open_spiel() -> tuple[Any, Any, Any, Any]:
    """pyspiel, OpenSpiel's ismcts and mcts modules and the engine's OpenSpiel game module
    (which registers ``python_canasta``), or :class:`OpenSpielMissing`."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts

        import canasta.rl.openspiel as cos
    except ImportError as exc:
        raise OpenSpielMissing(f"the ismcts bot needs OpenSpiel ({exc}): pip install -e '.[rl]'") from None
    return pyspiel, ismcts, mcts, cos


class IsmctsBot(Bot):
    """OpenSpiel's ISMCTS with ``budget.iterations`` simulations a decision, or as many as
    ``budget.seconds`` of CPU time allow (at least one)."""

    name = "ismcts"

    def __init__(self, seed: int = 0, budget: Budget | None = None) -> None:
        budget = budget or Budget(iterations=DEFAULT_SIMULATIONS)
        if budget.iterations is None and budget.seconds is None:
            raise ValueError("an ismcts budget needs simulations or seconds")
        super().__init__(seed, budget)
        self._pyspiel, self._ismcts, mcts, self._cos = _open_spiel()
        import numpy as np

        # three seeded streams: the search's choices, the rollouts, the sampled worlds
        self._search_rng = np.random.RandomState(seed & 0xFFFFFFFF)
        self._evaluator = mcts.RandomRolloutEvaluator(
            n_rollouts=1, random_state=np.random.RandomState((seed + 1) & 0xFFFFFFFF))
        self._worlds = np.random.RandomState((seed + 2) & 0xFFFFFFFF)
        self._searchers: dict[str, Any] = {}
        self._guide = AdvancedBot(seed)  # answers a partner's question that no sampled world explains
        self.simulations: list[int] = []  # per searched action, the simulations it ran

    def _searcher(self, rules: RuleSet) -> Any:
        """The ISMCTS bot of ``rules``' OpenSpiel game (one per preset, made once)."""
        name = rules.name
        if name not in PRESETS or RuleSet.preset(name) != rules:
            raise ValueError(f"the ismcts bot plays the rules presets only, not {name!r}")
        searcher = self._searchers.get(name)
        if searcher is None:
            game = self._pyspiel.load_game(self._cos.SHORT_NAME, {"rules": name})
            iterations = self.budget.iterations if self.budget and self.budget.iterations else 1
            searcher = self._ismcts.ISMCTSBot(game, self._evaluator, uct_c=UCT_C, max_simulations=iterations,
                                              random_state=self._search_rng)
            searcher.set_resampler(self._resample)
            self._searchers[name] = searcher
        return searcher

    def _resample(self, state: Any, player: int) -> Any:
        # the game's own resampling: the unseen cards dealt anew from ``player``'s view
        return state.resample_from_infostate(player, self._worlds.random_sample)

    def _root(self, searcher: Any, view: SeatView) -> tuple[Any, bool]:
        """A state of the OpenSpiel game that the view's seat cannot tell from the real one:
        the view's unseen cards dealt at random (the real hidden cards are never seen), and
        whether it is plausible (``canasta.rl.openspiel.plausible``; else the last world tried)."""
        cos = self._cos
        rng = random.Random(int(self._worlds.randint(0, 2**31 - 1)))
        found = False
        for _ in range(cos.RESAMPLE_TRIES):
            world = sample_world(view, rng)
            if cos.plausible(world, view.seat):
                found = True
                break
        state = searcher._game.new_initial_state()
        state.table = cos.ActionTable(view.rules)
        state.table.start(world)
        return state, found

    def _action(self, searcher: Any, state: Any) -> int:
        """The action ISMCTS picks at ``state`` within the budget."""
        seconds = self.budget.seconds if self.budget else None
        if seconds is None:
            searcher._max_simulations = self.budget.iterations if self.budget else 1
            self.simulations.append(searcher._max_simulations)
            return int(searcher.step(state))
        # a CPU-time budget: OpenSpiel's own search, one simulation at a time until the time is spent
        legal = state.legal_actions()
        if len(legal) == 1:
            self.simulations.append(0)
            return int(legal[0])
        deadline = time.process_time() + seconds
        searcher.reset()
        searcher._root_node = searcher.create_new_node(state)
        done = 0
        while done == 0 or time.process_time() < deadline:
            searcher.run_simulation(searcher.sample_root_state(state))
            done += 1
        self.simulations.append(done)
        actions, probs = zip(*searcher.get_final_policy(state, searcher._root_node), strict=True)
        return int(searcher._random_state.choice(actions, p=probs))

    def choose(self, view: SeatView) -> Move:
        searcher = self._searcher(view.rules)
        state, plausible = self._root(searcher, view)
        table = state.table
        if not plausible and view.phase == PHASE_NAMES[ANSWER_PHASE]:
            # the partner asked "may I go out?", so its hidden hand can go out; no world dealt
            # from the view gave it such a hand (rare: say, a side with no canasta yet), and a
            # "yes" there would leave the asker no legal move: answer by the advanced player's
            # rules of thumb, as the expert does
            game = table.game.copy()
            return self._guide.pick(game, list(game.generate()))
        played = table.moves
        while table.moves == played:  # a move of several actions: each searched in turn
            state.apply_action(self._action(searcher, state))
        move = table.last_move
        assert move is not None
        return move  # type: ignore[no-any-return]

    def close(self) -> None:
        self._searchers.clear()


__all__ = ["DEFAULT_SIMULATIONS", "MAX_SECONDS", "MAX_SIMULATIONS", "UCT_C", "IsmctsBot", "OpenSpielMissing"]
