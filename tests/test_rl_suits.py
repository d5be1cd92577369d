"""The suits of the cards an action plays reveal nothing beyond their kinds: an action names a
kind, and the table draws the suits uniformly among the cards of that kind the hand holds (from
its seeded generator), rather than in the generating set's fixed order, which told the table
which suits the hand did not hold.  The moves stay legal and seeded episodes repeat."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy", reason="the environments need the rl extra: pip install 'canasta[rl]'")

from canasta.engine.moves import DISCARD, group_cards
from canasta.rl.core import CODES_OF_KIND, ActionTable
from canasta.rl.encoding import DISCARD_BASE, KIND_OF, _sample


def _to_discard(rules: str, seed: int) -> ActionTable | None:
    """A table at a discard whose hand holds two suits of some kind (None if the hand ends)."""
    t = ActionTable(rules)
    t.reset(seed)
    rng = random.Random(seed)
    for _ in range(400):
        if t.over:
            return None
        legal = t.legal_actions()
        hand = t.game.hands[t.game.turn]
        for a in legal:
            if DISCARD_BASE <= a < DISCARD_BASE + 14 and sum(
                    1 for c in CODES_OF_KIND[KIND_OF[_code(t, a)]] if hand[c]) >= 2:
                return t
        t.step(legal[rng.randrange(len(legal))])
    return None


def _code(t: ActionTable, action: int) -> int:
    """The card the generating set's fixed order discards for ``action``."""
    copy = t.copy()
    copy.random_suits = False
    move = copy.step(action)
    assert move is not None and move.kind == DISCARD
    return move.groups[0][0]


@pytest.mark.parametrize("rules", ["classic-4p", "italian-4p"])
def test_discarded_suits_are_drawn_among_the_held_ones(rules: str) -> None:
    positions = 0
    for seed in range(30):
        t = _to_discard(rules, seed)
        if t is None:
            continue
        hand = t.game.hands[t.game.turn]
        for a in t.legal_actions():
            if not DISCARD_BASE <= a < DISCARD_BASE + 14:
                continue
            kind = KIND_OF[_code(t, a)]
            held = {c for c in CODES_OF_KIND[kind] if hand[c]}
            if len(held) < 2:
                continue
            seen = set()
            for k in range(40):
                copy = t.copy()
                copy.suits = random.Random(k)
                move = copy.step(a)
                assert move is not None
                seen.add(move.groups[0][0])
            assert seen == held, "every held suit of the kind is discarded in some world"
            positions += 1
        if positions >= 6:
            break
    assert positions >= 3


@pytest.mark.parametrize("rules", ["classic-4p", "italian-4p", "classic-2p"])
def test_resuited_moves_are_legal_and_the_same_up_to_suits(rules: str) -> None:
    changed = 0
    for seed in range(4):
        t = ActionTable(rules)
        t.reset(seed)
        rng = random.Random(seed)
        while not t.over:
            legal = t.legal_actions()
            a = legal[rng.randrange(len(legal))]
            before = t.game.copy()
            canonical = t.copy()
            canonical.random_suits = False
            plain = canonical.step(a)
            move = t.step(a)
            assert (move is None) == (plain is None)
            if move is None or plain is None:
                continue
            assert move.kind == plain.kind
            kinds = [sorted(KIND_OF[c] for c in group_cards(g)) for g in move.groups]
            assert kinds == [sorted(KIND_OF[c] for c in group_cards(g)) for g in plain.groups]
            changed += move != plain
            if t.over:
                break
            checked = before.copy()
            checked.play(move)  # the engine's checks accept it
            assert checked.hands == t.game.hands
    assert changed > 0, "some moves were given other suits than the fixed order's"


def test_seeded_suits_repeat() -> None:
    def run(seed: int) -> list[str]:
        t = ActionTable("italian-4p")
        t.reset(seed)
        rng = random.Random(1)
        out = []
        while not t.over:
            legal = t.legal_actions()
            out.append(str(t.step(legal[rng.randrange(len(legal))])))
        return out

    assert run(6) == run(6)


def test_the_suits_sample_is_randoms() -> None:
    """The table draws suits as ``Random.sample`` would: the same picks, the generator left in
    the same state, for every population an action can meet (up to 21 cards) and every size."""
    for seed in range(300):
        population = list(range(2 + seed % 20))
        for k in range(1, len(population) + 1):
            ours, theirs = random.Random(seed), random.Random(seed)
            assert _sample(ours, population, k) == theirs.sample(population, k)
            assert ours.getrandbits(64) == theirs.getrandbits(64)


@pytest.mark.parametrize("rules", ["classic-4p", "italian-4p", "classic-2p"])
@pytest.mark.parametrize("random_suits", [True, False])
def test_moves_are_written_in_one_order(rules: str, random_suits: bool) -> None:
    """Every meld and take the table plays has its groups' cards in one order, natural cards by
    code, then deuces, then jokers, whether or not the hand had a choice of suits: the order
    once told the table about that choice (``JH JD 2S`` without one, ``2S JH JD`` with one)."""
    from canasta.engine.cards import CARD_RANK, IS_WILD, TWO
    from canasta.engine.moves import MELD, TAKE

    def order(g: tuple[int, ...]) -> tuple[int, ...]:
        cards = group_cards(g)
        return g[:len(g) - len(cards)] + tuple(sorted(cards, key=lambda c: (IS_WILD[c], c)))

    melds = mixed_choices = 0
    for seed in range(12):
        t = ActionTable(rules, random_suits=random_suits)
        t.reset(seed)
        rng = random.Random(seed)
        while not t.over:
            legal = t.legal_actions()
            hand = list(t.game.hands[t.game.turn])
            move = t.step(legal[rng.randrange(len(legal))])
            if move is None or move.kind not in (MELD, TAKE):
                continue
            melds += 1
            assert all(g == order(g) for g in move.groups), str(move)
            assert str(move) == str(t.last_move)
            for g in map(group_cards, move.groups):
                choice = any(sum(hand[c] for c in CODES_OF_KIND[KIND_OF[x]]) > g.count(x)
                             and sum(1 for c in CODES_OF_KIND[KIND_OF[x]] if hand[c]) > 1 for x in g)
                mixed_choices += choice and any(CARD_RANK[c] == TWO for c in g) and any(not IS_WILD[c] for c in g)
    assert melds > 50
    if random_suits:
        assert mixed_choices > 0, "some groups of naturals and deuces were laid with a choice of suits"
