"""A numpy policy as the expert's rollout player (``ExpertBot(rollout="policy")``, ``expert-policy``).

The expert plays each sampled world forward with a rollout player's ``pick(game, options)``
(:mod:`canasta.bots.expert`); :class:`PolicyRollout` picks by a saved policy network
(:class:`~canasta.rl.policy.NumpyPolicy`) instead of the advanced player's rules of thumb: the
position is read as the seat to move may know it (:meth:`~canasta.rl.encoding.Observer.encode`,
the fast path), and the move is built action by action from the legal action with the highest
logit, as :class:`~canasta.rl.policy.PolicyBot` plays.  A sampled world is a whole game, but the
encoder reads only what that seat could see, so the rollout player knows no more than a player.

Without a policy named, the shipped policy of the game's rules is used (``canasta/rl/weights``);
rules without one are refused with a clear error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from canasta.engine.game import Game
from canasta.engine.moves import Move
from canasta.rl.encoding import Decision, Observer
from canasta.rl.policy import ACTIVATIONS, NumpyPolicy, resolve


class PolicyRollout:
    """Picks engine moves by a numpy policy: ``policy`` a loaded one, a file, a shipped name
    (``classic-4p``), or None for the shipped policy of each game's rules."""

    def __init__(self, policy: NumpyPolicy | str | Path | None = None) -> None:
        self.fixed = policy if isinstance(policy, NumpyPolicy) else (
            NumpyPolicy.load(resolve(policy)) if policy is not None else None)
        self._per_rules: dict[str, tuple[NumpyPolicy, Observer]] = {}

    def _for(self, g: Game) -> tuple[NumpyPolicy, Observer]:
        name = g.rules.name
        got = self._per_rules.get(name)
        if got is None:
            policy = self.fixed
            if policy is None:
                path = resolve(name)
                if not path.exists():
                    raise ValueError(f"no shipped policy for {name}: name a policy file for the rollouts")
                policy = NumpyPolicy.load(path)
            observer = Observer(g.rules)
            if observer.size != policy.inputs:
                raise ValueError(f"this policy reads {policy.inputs} features; {name} observations have "
                                 f"{observer.size}")
            got = self._per_rules[name] = (policy, observer)
        return got

    def pick(self, g: Game, options: Sequence[object] = ()) -> Move:
        """The policy's move for the seat to move in ``g`` (``options``, the expert's argument,
        is not needed: the decision reads the game's own)."""
        policy, observer = self._for(g)
        *hidden, (w_out, b_out) = policy.layers
        act = ACTIVATIONS[policy.activation]
        seat = g.to_move
        d = Decision(g)
        while True:
            legal = d.legal_list()
            if len(legal) == 1:
                a = legal[0]
            else:  # the hidden layers, then the output rows of the legal actions only
                x = observer.encode(g, seat, d.prefix)
                for w, b in hidden:
                    x = act(w @ x + b)
                a = legal[int(np.argmax(w_out[legal] @ x + b_out[legal]))]
            move = d.apply(a)
            if move is not None:
                return move
