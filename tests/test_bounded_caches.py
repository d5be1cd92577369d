"""No cache of the engine grows without bound: a long-lived process (a bot-pool
worker) that meets ever new rule sets keeps its going-out answers bounded, and the
cost of a call does not grow with the rule sets seen (a rule set is its own key,
hashed once: no scan over the ones kept, which the old ``_rules_key`` did)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from canasta.engine.cards import NUM_RANKS, TWO
from canasta.engine.rules import RuleSet
from canasta.families.italian import going_out

#: enough to show a growth (the old scan compared each new rule set with every one kept);
#: the caches' bounds are lowered for the test so that they are reached
RULE_SETS = 3_000


def _caches() -> dict[str, dict[Any, Any]]:
    return {name: value for name, value in vars(going_out).items()
            if name.startswith("_") and name.isupper() and isinstance(value, dict)}


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts the comparisons of rule sets (what a scan over the kept ones costs)."""
    count = [0]
    eq = RuleSet.__eq__

    def counting(self: RuleSet, other: object) -> bool:
        count[0] += 1
        return eq(self, other)

    monkeypatch.setattr(RuleSet, "__eq__", counting)
    yield count


def test_many_rule_sets_keep_the_cost_of_a_call_flat(compared: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(going_out, "_OUT_ANSWERS_KEPT", 256)
    monkeypatch.setattr(going_out, "_OPTIONS_KEPT", 1024)
    for name in _caches():  # start empty: earlier tests in the same process may have filled them
        monkeypatch.setattr(going_out, name, {})
    base = RuleSet.preset("italian-4p")
    hand = [0] * NUM_RANKS
    hand[8] = 2
    hand[TWO] = 1
    open_melds = ((8, 3, 0, 0),)
    per_call: list[int] = []
    for i in range(RULE_SETS):
        rules = dataclasses.replace(base, target=5000 + i)  # equal in all but one field: distinct
        before = compared[0]
        going_out.going_out_possible(rules, tuple(hand), open_melds, 1, 0, 1)
        per_call.append(compared[0] - before)
    first, last = per_call[:500], per_call[-500:]
    assert sum(last) <= sum(first) + 500, f"rule-set comparisons per call grew: {sum(first)} -> {sum(last)}"
    kept = {name: len(cache) for name, cache in _caches().items()}
    assert kept and all(n <= 1024 for n in kept.values()), kept
    assert len(going_out._WILD_OPTIONS) <= 256
