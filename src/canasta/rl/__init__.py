"""Canasta for reinforcement learning: a fixed action space, masks, observation tensors and the
environments researchers' tools expect (PettingZoo, Gymnasium, OpenSpiel).

Needs the ``rl`` extra (``pip install 'canasta[rl]'``: numpy, pettingzoo, gymnasium, open-spiel).
:mod:`canasta.rl.encoding` and :mod:`canasta.rl.core` need only numpy; each environment module
imports its own framework.  The rules engine itself stays standard library only.

``docs/rl.md`` documents the action space, the observation layout, the rewards and the figures.
"""

from __future__ import annotations

__all__: list[str] = []
