"""Invariants over seeded random playouts of every preset.

Every check is made through the public API (``position_of``, ``legal_moves``,
``push``/``pop``, ``result``) and against values written out from the SPEC,
not against the engine's own tables.  Seeds come from hypothesis with
``derandomize=True``, so a failure names the preset and seed that reproduce it.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from canasta.engine.cards import JOKER, NUM_CARDS, card_str, make_deck, parse_card
from canasta.engine.errors import IllegalMoveError
from canasta.engine.game import Game
from canasta.engine.moves import ASK, DISCARD, DRAW, END, MELD, NO, TAKE, YES, Move, group_cards, make_group
from canasta.engine.rules import PRESETS, RuleSet
from canasta.views.position import position_of
from conftest import MAX_MOVES, SEEDS

PRESET_NAMES = [
    "classic-4p", "classic-2p", "classic-3p", "classic-6p", "classic-3p-cutthroat", "classic-6p-3x2",
]
SLOW_OK = settings(derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# SPEC A.2, from the card strings
NATURAL = {"4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"}
VALUE = {"JK": 50, "A": 20, "2": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
         "7": 5, "6": 5, "5": 5, "4": 5}


def test_preset_list_is_complete() -> None:
    assert set(PRESET_NAMES) == {n for n, r in PRESETS.items() if r.family == "classic"}


def _rank(card: str) -> str:
    return "JK" if card == "JK" else card[:-1]


def _is_wild(card: str) -> bool:
    return _rank(card) in ("2", "JK")


def _value(card: str) -> int:
    if card in ("3H", "3D"):
        return 0
    if card in ("3S", "3C"):
        return 5
    return VALUE[_rank(card)]


def _choose(game: Game, rng: random.Random) -> Move:
    moves = list(game.legal_moves)
    assert moves, f"no legal move in an unfinished position: {position_of(game)}"
    return moves[rng.randrange(len(moves))]


def _push_generated(game: Game, move: Move) -> None:
    try:
        game.push(move)
    except IllegalMoveError as exc:
        raise AssertionError(f"the generator yielded {move}, which push refuses: {exc}") from None


# -- position checks -----------------------------------------------------------------------------------


def _assert_accounted(p: dict[str, Any]) -> None:
    """hands + melds + red threes + pile + stock == the pack, card by card."""
    cards: Counter[str] = Counter()
    for h in p["hands"]:
        cards.update(h)
    for r in p["red_threes"]:
        cards.update(r)
    for side in p["melds"]:
        for m in side:
            cards.update(m["cards"])
    cards.update(p["pile"])
    cards.update(p["stock"])
    packs = p["rules"]["packs"]
    assert sum(cards.values()) == 54 * packs, f"{sum(cards.values())} cards on the table"
    pack = Counter(card_str(c) for c in make_deck(packs))
    assert cards == pack, f"wrong cards: extra {cards - pack}, missing {pack - cards}"


def _canastas(side_melds: list[dict[str, Any]]) -> int:
    return sum(1 for m in side_melds if len(m["cards"]) >= 7 and _rank(m["cards"][0]) != "3")


def _meld_problem(cards: list[str], rules: dict[str, Any]) -> str | None:
    """Why a meld on the table breaks SPEC A.5 / A.11.2, or None."""
    if any(c in ("3H", "3D") for c in cards):
        return "red three in a meld (A.10.1)"
    if any(c in ("3S", "3C") for c in cards):
        if not all(c in ("3S", "3C") for c in cards):
            return "black threes mixed with other cards (A.11.2)"
        return None if 3 <= len(cards) <= 4 else "black-three meld of the wrong size (A.11.2)"
    naturals = [c for c in cards if not _is_wild(c)]
    wilds = len(cards) - len(naturals)
    if len({_rank(c) for c in naturals}) != 1:
        return "not one natural rank (A.5.1)"
    if _rank(naturals[0]) not in NATURAL:
        return "not a natural rank (A.5.1)"
    if len(cards) < 3:
        return "fewer than three cards (A.5.1)"
    if len(naturals) < 2:
        return "fewer than two natural cards (A.5.2)"
    if wilds > 3:
        return f"{wilds} wild cards (A.5.3)"
    if rules["wild_ratio"] == "no_more_wild_than_natural" and wilds > len(naturals):
        return "more wild cards than natural cards (A.5.4, C-O1)"
    return None


def _check_position(p: dict[str, Any]) -> None:
    _assert_accounted(p)
    rules = p["rules"]
    over = p["phase"] == "over"
    for s, h in enumerate(p["hands"]):
        if not p["red_threes_pending"][s]:  # C-O8 on_first_turn: dealt red threes wait in hand
            assert not any(c in ("3H", "3D") for c in h), f"seat {s} holds a red three (A.10.1)"
        if not over:
            assert h, f"seat {s} has no cards but the hand goes on"
    for s, reds in enumerate(p["red_threes"]):
        assert all(c in ("3H", "3D") for c in reds), f"seat {s}: {reds} laid out as red threes"
    for side, side_melds in enumerate(p["melds"]):
        ranks = [_rank(next(c for c in m["cards"] if not _is_wild(c))) for m in side_melds if m["cards"]]
        assert len(ranks) == len(set(ranks)), f"side {side} has two melds of one rank (A.5.7): {side_melds}"
        for m in side_melds:
            problem = _meld_problem(m["cards"], rules)
            assert problem is None, f"side {side} has an illegal meld {m['cards']}: {problem}"
            if _rank(m["cards"][0]) == "3":
                # black threes are melded only in the turn the player goes out (A.11.2):
                # either the hand is over and this side went out, or the melder is still
                # in that turn with at most the one card left to discard
                if over:
                    assert p["went_out"] >= 0 and p["side_of"][p["went_out"]] == side, (
                        f"side {side} melded black threes but did not go out")
                else:
                    assert p["phase"] == "meld" and m["owner"] == p["turn"], "black threes melded earlier"
                    assert m["turn"] == p["turn_number"], "black threes melded in an earlier turn"
                    assert len(p["hands"][p["turn"]]) <= 1, "black threes melded without going out"
    if not rules["black_three_freezes"] and not rules["red_three_upcard_freezes"]:
        assert p["pile_frozen"] == any(_is_wild(c) for c in p["pile"]), "A.8.3: frozen iff a wild card is in it"


def _red_three_points(count: int, packs: int) -> int:
    if packs == 2:  # A.10.2
        return 800 if count == 4 else 100 * count
    return {5: 1000, 6: 1200}.get(count, 100 * count)  # A.18.3


def _expected_scores(p: dict[str, Any]) -> list[dict[str, int]]:
    """Each result slot's breakdown, computed from the final position (SPEC A.14)."""
    rules = p["rules"]
    side_of: list[int] = p["side_of"]
    n = len(side_of)
    went_out = p["went_out"]
    per_side = []
    for side, side_melds in enumerate(p["melds"]):
        seats = [s for s in range(n) if side_of[s] == side]
        meld_points = sum(_value(c) for m in side_melds for c in m["cards"])
        bonuses = 0
        for m in side_melds:
            if len(m["cards"]) >= 7 and _rank(m["cards"][0]) != "3":
                bonuses += 300 if any(_is_wild(c) for c in m["cards"]) else 500
                if m["concealed"] and rules["concealed_canasta_bonus"]:
                    bonuses += 100
        melded = bool(side_melds)
        reds = sum(len(p["red_threes"][s]) for s in seats)
        red = _red_three_points(reds, rules["packs"]) * (1 if melded else -1)
        out = 0
        if went_out >= 0 and side_of[went_out] == side:
            out = 200 if p["concealed_out"] else 100
        penalty = -sum(_value(c) for s in seats for c in p["hands"][s])
        per_side.append({"meld_points": meld_points, "canasta_bonuses": bonuses, "red_threes": red,
                         "going_out": out, "cards_in_hand": penalty, "melded": int(melded)})
    if not rules["cutthroat"]:
        return per_side
    out_rows = []  # A.17.2: one row per player; red threes score individually
    for s in range(n):
        row = dict(per_side[side_of[s]])
        own = len(p["red_threes"][s])
        row["red_threes"] = _red_three_points(own, rules["packs"]) * (1 if row["melded"] else -1)
        out_rows.append(row)
    return out_rows


def _check_finished(game: Game) -> dict[str, Any]:
    p = position_of(game)
    _check_position(p)
    rules = game.rules
    assert game.is_over() and p["phase"] == "over"
    assert not list(game.legal_moves)
    result = game.result
    assert result is not None
    went_out = p["went_out"]
    if went_out >= 0:
        side = p["side_of"][went_out]
        assert p["hands"][went_out] == [], "the player who went out holds no cards"
        canastas = _canastas(p["melds"][side])
        assert canastas >= rules.canastas_to_go_out, (
            f"seat {went_out} went out with {canastas} canastas; {rules.canastas_to_go_out} needed")
    else:
        assert all(p["hands"]), "a hand was emptied without going out"
    expected = _expected_scores(p)
    assert len(result) == len(expected)
    for i, (score, exp) in enumerate(zip(result, expected, strict=True)):
        d = score.as_dict()
        parts = ("meld_points", "canasta_bonuses", "red_threes", "going_out", "cards_in_hand")
        assert d["total"] == sum(int(d[k]) for k in parts), f"slot {i}: total is not the sum of its breakdown"  # type: ignore[call-overload]
        assert score.total == d["total"]
        got = {k: d[k] for k in parts}
        want = {k: exp[k] for k in parts}
        assert got == want, f"slot {i}: breakdown {got}, expected {want} (position {p})"
    return p


# -- random playouts --------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(SLOW_OK, max_examples=20)
@given(seed=SEEDS)
def test_every_move_keeps_the_table_sound(preset: str, seed: int) -> None:
    """Cards accounted for after every move, a legal move in every unfinished
    position, generated moves accepted, clockwise turns, and the hand ends."""
    rules = RuleSet.preset(preset)
    rng = random.Random(seed)
    game = Game(rules, seed, dealer=seed % rules.players)
    p = position_of(game)
    assert p["turn"] == (p["dealer"] + 1) % rules.players  # A.1.3
    for _ in range(MAX_MOVES):
        _check_position(p)
        if game.is_over():
            break
        assert game.legal_moves, "an unfinished position must have a legal move"
        move = _choose(game, rng)
        _push_generated(game, move)
        q = position_of(game)
        if move.kind == DISCARD and q["phase"] != "over":
            assert q["turn"] == (p["turn"] + 1) % rules.players, "play passes clockwise (A.1.3)"
            assert q["phase"] == "draw"
        p = q
    assert game.is_over(), f"{preset} seed {seed}: the hand did not end within {MAX_MOVES} moves"
    _check_finished(game)


HOUSE_RULES = [
    ("classic-4p", {"C-O1": "max3_only", "C-O3": False, "C-O4": True, "C-O8": "on_first_turn"}),
    ("classic-2p", {"C-O2": True, "C-O13": True, "C-O5": False, "C-O6": False, "C-O14": False}),
    ("classic-6p", {"C-O4": True, "C-O7": "no_canasta", "C-O12": True, "C-O8": "on_first_turn"}),
    ("classic-3p-cutthroat", {"C-O1": "max3_only", "C-O4": True}),
]


@pytest.mark.parametrize(("preset", "options"), HOUSE_RULES, ids=[p for p, _ in HOUSE_RULES])
@settings(SLOW_OK, max_examples=6)
@given(seed=SEEDS)
def test_house_rules_keep_the_table_sound(preset: str, options: dict[str, Any], seed: int) -> None:
    rules = RuleSet.preset(preset, options)
    rng = random.Random(seed)
    game = Game(rules, seed, dealer=seed % rules.players)
    for _ in range(MAX_MOVES):
        p = position_of(game)
        _check_position(p)
        if game.is_over():
            break
        move = _choose(game, rng)
        _push_generated(game, move)
        assert game.pop() == move and position_of(game) == p
        game.push(move)
    assert game.is_over(), f"{preset} {options} seed {seed}: the hand did not end within {MAX_MOVES} moves"
    p = position_of(game)
    went_out = p["went_out"]
    if went_out >= 0:
        side = p["side_of"][went_out]
        assert _canastas(p["melds"][side]) >= rules.canastas_to_go_out
    assert game.result is not None


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(SLOW_OK, max_examples=50)
@given(seed=SEEDS)
def test_finished_hands_go_out_legally_and_score_their_breakdown(preset: str, seed: int) -> None:
    rules = RuleSet.preset(preset)
    rng = random.Random(seed)
    game = Game(rules, seed, dealer=seed % rules.players, scores=None)
    for _ in range(MAX_MOVES):
        if game.is_over():
            break
        _push_generated(game, _choose(game, rng))
    assert game.is_over(), f"{preset} seed {seed}: the hand did not end within {MAX_MOVES} moves"
    _check_finished(game)


@pytest.mark.parametrize("preset", ["classic-4p", "classic-3p", "classic-6p", "classic-6p-3x2"])
def test_random_hands_do_go_out(preset: str) -> None:
    """Guard against the going-out checks above being vacuous."""
    rules = RuleSet.preset(preset)
    went_out = 0
    for seed in range(12):
        rng = random.Random(seed)
        game = Game(rules, seed)
        for _ in range(MAX_MOVES):
            if game.is_over():
                break
            _push_generated(game, _choose(game, rng))
        p = _check_finished(game)
        went_out += p["went_out"] >= 0
    assert went_out >= 3


def test_scores_from_a_non_zero_start() -> None:
    """Minimum counts depend on the cumulative score (A.7.1); hands still end and score."""
    for scores, preset in (([-300, 3100], "classic-4p"), ([1600, 0, 3500], "classic-3p"),
                           ([8000, 7600], "classic-6p"), ([100, 4000, -50], "classic-3p-cutthroat")):
        rules = RuleSet.preset(preset)
        for seed in range(4):
            rng = random.Random(seed)
            game = Game(rules, seed, scores=scores)
            assert position_of(game)["scores"] == scores
            for _ in range(MAX_MOVES):
                if game.is_over():
                    break
                _push_generated(game, _choose(game, rng))
            _check_finished(game)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(SLOW_OK, max_examples=2)
@given(seed=SEEDS)
def test_pop_restores_exactly(preset: str, seed: int) -> None:
    """push then pop of every legal move gives back the same position."""
    rules = RuleSet.preset(preset)
    rng = random.Random(seed)
    game = Game(rules, seed, dealer=seed % rules.players)
    start = position_of(game)
    played: list[Move] = []
    for _ in range(MAX_MOVES):
        if game.is_over():
            break
        before = position_of(game)
        moves = list(game.legal_moves)
        listed = [str(m) for m in moves]
        for m in moves:
            _push_generated(game, m)
            assert game.pop() == m
            assert position_of(game) == before, f"pop after {m} did not restore the position"
        assert [str(m) for m in game.legal_moves] == listed
        move = moves[rng.randrange(len(moves))]
        game.push(move)
        played.append(move)
    assert game.is_over()
    end = position_of(game)
    # unwind the whole hand, then replay it
    for move in reversed(played):
        assert game.pop() == move
    assert position_of(game) == start
    with pytest.raises(IndexError):
        game.pop()
    for move in played:
        game.push(move)
    assert position_of(game) == end


# -- illegal moves ---------------------------------------------------------------------------------------------


def _random_cards(rng: random.Random, k: int) -> list[int]:
    return [rng.randrange(NUM_CARDS) for _ in range(k)]


def _garbage_move(rng: random.Random) -> Move:
    kind = rng.choice([DRAW, TAKE, MELD, MELD, MELD, DISCARD, DISCARD, ASK, YES, NO, END])
    if kind == DISCARD:
        return Move.discard(rng.randrange(NUM_CARDS))
    if kind in (TAKE, MELD):
        groups = []
        for _ in range(rng.randint(1, 3)):
            cards = _random_cards(rng, rng.randint(1 if kind == MELD else 0, 7))
            target = rng.choice([None, None, rng.randrange(14)])
            groups.append(make_group(cards, target) if cards else tuple(cards))
        if kind == TAKE:
            return Move.take(group_cards(groups[0]), *groups[1:])
        return Move.meld(*groups)
    return {DRAW: Move.draw(), ASK: Move.ask(), YES: Move.answer(True), NO: Move.answer(False),
            END: Move.end()}[kind]


def _surely_illegal(move: Move, p: dict[str, Any], mover: int) -> str | None:
    """A reason, independent of the engine, why ``move`` cannot be legal here."""
    phase = p["phase"]
    if phase == "over":
        return "the hand is over"
    if move.kind in (YES, NO) and phase != "answer":
        return "nobody asked"
    if phase == "answer" and move.kind not in (YES, NO):
        return "an answer is due"
    if move.kind in (DRAW, TAKE) and phase == "meld":
        return "already drew"
    if move.kind in (MELD, DISCARD, ASK) and phase == "draw":
        return "must draw first"
    if move.kind in (TAKE, MELD, DISCARD):
        cards = [card_str(c) for g in move.groups for c in group_cards(g)]
        if any(c in ("3H", "3D") for c in cards):
            return "red threes are never held or melded"
        short = Counter(cards) - Counter(p["hands"][mover])
        if short:
            return f"does not hold {sorted(short.elements())}"
        if move.kind in (TAKE, MELD):
            for g in move.groups:
                ranks = {_rank(card_str(c)) for c in group_cards(g) if not _is_wild(card_str(c))}
                if len(ranks) > 1:
                    return "a group mixes ranks"
    return None


@pytest.mark.parametrize("preset", PRESET_NAMES)
@settings(SLOW_OK, max_examples=3)
@given(seed=SEEDS)
def test_illegal_moves_raise_and_change_nothing(preset: str, seed: int) -> None:
    rules = RuleSet.preset(preset)
    rng = random.Random(seed)
    junk = random.Random(~seed)
    game = Game(rules, seed, dealer=seed % rules.players)
    refused = 0
    for _ in range(MAX_MOVES):
        before = position_of(game)
        mover = game.to_move
        for _ in range(6):
            move = _garbage_move(junk)
            reason = _surely_illegal(move, before, mover)
            try:
                game.push(move)
            except IllegalMoveError as exc:
                refused += 1
                assert isinstance(exc.code, str) and exc.code
                assert str(exc)
                assert position_of(game) == before, f"refusing {move} changed the position"
                assert move not in game.legal_moves
                assert game.why_illegal(move) is not None
                continue
            assert reason is None, f"{move} was accepted although {reason}"
            game.pop()
            assert position_of(game) == before
        if game.is_over():
            break
        game.push(_choose(game, rng))
    assert game.is_over()
    assert refused > 0


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_targeted_illegal_moves(preset: str) -> None:
    """Moves that are wrong for a known reason, built from the mover's real cards."""
    rules = RuleSet.preset(preset)
    rng = random.Random(99)
    game = Game(rules, 99)
    for _ in range(MAX_MOVES):
        if game.is_over():
            break
        p = position_of(game)
        hand = [parse_card(c) for c in p["hands"][game.to_move]]
        wrong: list[Move] = []
        held = set(hand)
        missing = next(c for c in range(NUM_CARDS) if c not in held and c not in (5, 6))
        wrong.append(Move.discard(missing))
        wrong.append(Move.meld((missing, missing, missing)))
        wrong.append(Move.discard(parse_card("3H")))
        wrong.append(Move.meld((parse_card("3D"), parse_card("3D"), parse_card("3H"))))
        naturals = sorted({c for c in hand if card_str(c)[:-1] in NATURAL}, key=lambda c: card_str(c))
        by_rank: dict[str, list[int]] = {}
        for c in naturals:
            by_rank.setdefault(_rank(card_str(c)), []).append(c)
        if len(by_rank) >= 3:
            a, b, c3 = (v[0] for v in list(by_rank.values())[:3])
            wrong.append(Move.meld((a, b, c3)))  # a sequence / mixed ranks (A.5.1)
        if hand.count(JOKER) >= 2 and 0 in hand:
            wrong.append(Move.meld((JOKER, JOKER, 0)))  # all wild, no target (A.5.5)
        if p["phase"] == "draw":
            wrong += [Move.discard(hand[0]), Move.meld((hand[0],)), Move.ask(), Move.answer(True)]
        elif p["phase"] == "meld":
            wrong += [Move.draw(), Move.take(), Move.answer(False)]
            if p["stock"]:
                wrong.append(Move.end())
        elif p["phase"] == "answer":
            wrong += [Move.draw(), Move.discard(hand[0]), Move.ask()]
        for move in wrong:
            with pytest.raises(IllegalMoveError):
                game.push(move)
            assert position_of(game) == p
        game.push(_choose(game, rng))
    p = position_of(game)
    for move in (Move.draw(), Move.end(), Move.ask(), Move.discard(0)):
        with pytest.raises(IllegalMoveError, match="over"):
            game.push(move)
        assert position_of(game) == p


def _cutthroat_merge() -> Game:
    """Cut-throat (C-O10) just before seat 0 takes the pile and becomes the lone hand;
    seats 1 and 2 each have a legal meld of aces with two wild cards."""
    from canasta.views.position import game_from_position

    game = game_from_position({
        "rules": "classic-3p-cutthroat", "dealer": 2, "turn": 0, "phase": "draw",
        "hands": [["KS", "KD", "QH", "QS", "4C", "5C"], ["9H", "9S", "6C", "AD"], ["8H", "8S", "6D"]],
        "melds": [[["JH", "JS", "JD"]], [["AS", "AH", "AD", "2C", "2D"]], [["AS", "AC", "AC", "2H", "JK"]]],
        "pile": ["7H", "KH"],
    })
    _check_position(position_of(game))
    game.push(Move.parse("take KS KD"))
    p = position_of(game)
    assert p["lone"] == 0 and p["side_of"][1] == p["side_of"][2], "the other two become partners"
    return game


def test_cutthroat_generated_moves_accepted_after_partners_combine_melds() -> None:
    game = _cutthroat_merge()
    game.push(Move.parse("discard 4C"))
    game.push(Move.draw())  # seat 1, who holds an ace
    assert position_of(game)["turn"] == 1
    for move in list(game.legal_moves):
        _push_generated(game, move)
        game.pop()


def test_cutthroat_combined_melds_keep_every_card_and_refuse_more_wilds() -> None:
    """A.17.2 does not say how the partners' melds combine.  Decision (see docs/decisions.md):
    both legal melds of a rank are kept whole as one meld, even past A.5.3; after
    that, natural cards may still be added and wild cards only within the limits."""
    game = _cutthroat_merge()
    p = position_of(game)
    side = p["side_of"][1]
    aces = next(m["cards"] for m in p["melds"][side] if "AS" in m["cards"])
    assert sorted(aces) == sorted(["AS", "AH", "AD", "2C", "2D", "AS", "AC", "AC", "2H", "JK"])
    game.push(Move.parse("discard 4C"))
    game.push(Move.parse("draw"))  # seat 1, who holds an ace
    hand = position_of(game)["hands"][1]
    assert "AD" in hand
    assert Move.parse("meld AD") in game.legal_moves
    wild = next((c for c in hand if _is_wild(c)), None)
    if wild is not None:
        err = game.why_illegal(Move.parse(f"meld A:{wild}"))
        assert err is not None and err.code == "TOO_MANY_WILDS"
    before = position_of(game)
    with pytest.raises(IllegalMoveError):
        game.push(Move.parse("meld A:JK"))  # seat 1 holds no joker, and the meld has no room
    assert position_of(game) == before


@pytest.mark.parametrize(("preset", "options"), [
    ("italian-4p", {}), ("italian-2p", {}), ("italian-6p-3x2", {}), ("italian-4p", {"I-O36": "required"})])
def test_italian_going_out_answers_are_the_same_reused_or_fresh(preset: str, options: dict[str, Any]) -> None:
    """``going_out.italian_can_go_out`` reuses the answers of searches it has made; every
    reused answer must be the one a fresh search gives.  Both settings of the
    "assume yes" flag are asked in turn at each position, the more permissive
    first, so an answer reused across them would show."""
    from canasta.bots import make_bot
    from canasta.engine.state import ANSWER_PHASE, MELD_PHASE
    from canasta.families.italian import going_out
    from canasta.families.italian.going_out import italian_can_go_out
    from canasta.views.seat import seat_view

    rules = RuleSet.preset(preset, options)
    reused = 0
    for seed in range(3):
        game = Game(rules, seed)
        bots = [make_bot("basic", seed=10 * seed + s) for s in range(rules.players)]
        while not game.is_over():
            if game.phase in (MELD_PHASE, ANSWER_PHASE):
                for assume_yes in (True, False, True):
                    kept = going_out._OUT_ANSWERS
                    before = len(kept)
                    answer = italian_can_go_out(game, assume_yes=assume_yes)
                    grew = len(kept) > before
                    going_out._OUT_ANSWERS = {}
                    try:
                        fresh = italian_can_go_out(game, assume_yes=assume_yes)
                        searched = bool(going_out._OUT_ANSWERS)
                    finally:
                        going_out._OUT_ANSWERS = kept
                    assert answer == fresh, f"{preset} seed {seed}: a reused answer differs"
                    reused += searched and not grew
            game.push(bots[game.to_move].choose(seat_view(game, game.to_move)))
    if not options:  # (with I-O36 "required" the basic players' hands rarely repeat a search)
        assert reused >= 3  # the check is not vacuous: answers were reused


def test_snapshot_restore_and_copy_name_every_state_field_in_order() -> None:
    """state.py writes snapshot/restore/copy_state out by hand: each names every
    field of HandState once, in the record's order, copied as its metadata says."""
    import inspect
    import re

    from canasta.engine import state

    names = [f.name for f in state.STATE_FIELDS]
    reads = [state.COPY_KINDS[f.metadata["copy"]].format(f=f.name) for f in state.STATE_FIELDS]
    snap = inspect.getsource(state.snapshot)
    assert re.findall(r"^        (.+),$", snap, re.M) == reads
    assert re.findall(r"^        s\.(\w+),$", inspect.getsource(state.restore), re.M) == names
    copy = re.findall(r"^    d\.(\w+) = (.+)$", inspect.getsource(state.copy_state), re.M)
    assert copy == list(zip(names, reads, strict=True))
    game = Game(RuleSet.preset("italian-4p"), 3)
    rng = random.Random(3)
    for _ in range(40):
        game.play_unchecked(game.random_move(rng))
    t = state.snapshot(game)
    other = game.copy()
    for _ in range(20):
        if game.is_over():
            break
        game.play_unchecked(game.random_move(rng))
    state.restore(game, t)
    assert position_of(game) == position_of(other)
