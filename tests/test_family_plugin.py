"""A third rule family, defined here alone: registered, it plays through the engine,
perft, the views and positions, and the bots, with no edit anywhere else.

"No pile" is Classic Canasta in which nobody ever takes the discard pile: the pile
only grows, and a hand ends when the stock runs out.  It borrows Classic's rule
functions (a plug-in may build on a family's public code; a family package in
``src/`` may not) and changes one rule: taking the pile is refused and never
generated.  It has its own preset, its own player count (four only), its own part of
the state (a public count of the turns begun, carried through positions and views), its own
tuning for the bots and its own name.  The terminal app and the card room show it.
"""

from __future__ import annotations

import dataclasses
import json
import random
import typing
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from canasta.bots import make_bot
from canasta.cards import NUM_CARDS, card_str
from canasta.errors import IllegalMoveError, RulesError, refuse
from canasta.families.classic import Classic
from canasta.families.classic.options import CLASSIC_OPTIONS
from canasta.family import FamilyWords, PlayTuning, SearchTuning
from canasta.game import FAMILIES, Game, family_of, register_family
from canasta.moves import TAKE, Move
from canasta.options import Option
from canasta.plans import TakePlan
from canasta.position import game_from_position, position_of
from canasta.rules import (
    FAMILY_OPTIONS,
    OPTIONS_BY_ID,
    PRESETS,
    OptionInfo,
    RuleSet,
    forget_rules_family,
    load_rules,
    save_rules,
)
from canasta.scoring import SideScore
from canasta.state import StateField, StatePart
from canasta.tools import perft
from canasta.view import SeatView, pile_note_list, sample_world, seat_view

NAME = "nopile"
PRESET = "nopile-4p"


class QuietTurns(StatePart):
    """The family's own part of the state: one public field, the turns begun in the hand
    (counted by the part itself), to carry a family's own state through positions and views."""

    __slots__ = ("quiet",)
    FIELDS: ClassVar[tuple[StateField, ...]] = (StateField("quiet", "quiet_turns", "public", "value"),)

    def __init__(self, quiet: int = 0) -> None:
        self.quiet = quiet

    def copy(self) -> QuietTurns:
        return QuietTurns(self.quiet)

    def begin_turn(self) -> None:
        self.quiet += 1


@dataclass(frozen=True)
class NoPileRules:
    """The family's own option, declared here alone: what a card left in the pile pays the side
    that goes out (a rules file writes it beside the shared fields)."""

    pile_points: int = 0

    def check(self, rules: RuleSet) -> None:
        return None

    def teams(self, rules: RuleSet) -> tuple[tuple[int, ...], ...] | None:
        return None

    def minimums(self, rules: RuleSet) -> tuple[tuple[int, int], ...] | None:
        return None

    def red_three_points(self, rules: RuleSet) -> tuple[int, ...] | None:
        return None


PILE_POINTS = OptionInfo("NP-O1", "pile_points", "Points for each card left in the pile, to the side that goes out",
                         (0, 10), "none", "a house rule of this test")


class NoPile(Classic):
    """Classic Canasta without taking the pile."""

    name = NAME
    rule_options = (*CLASSIC_OPTIONS, PILE_POINTS)  # Classic's options, borrowed, and its own
    rules_part = NoPileRules
    player_counts = (4,)
    start_preset = PRESET
    play = PlayTuning(keep_pair_for_pile=False, track_shedding=True, black_three_discard=0, meld_takes_pile=False,
                      one_and_wild_takes=False, frozen_need=99, classic_scale=True)
    search = SearchTuning(worlds=8, drop_z=1.5, scored=True)
    words = FamilyWords(canastas=("natural", "mixed"), opened="melded", minimum_shown="bands", pile_fanned=3, wilds="wild",
                        title="No-pile Canasta")

    def presets(self) -> dict[str, RuleSet]:
        return {PRESET: RuleSet(name=PRESET, family=NAME)}

    def new_part(self, sides: int) -> QuietTurns:
        return QuietTurns()

    def plan_take(self, g: Game, move: Move) -> TakePlan:
        raise refuse("PILE_BLOCKED")

    def gen_takes(self, g: Game) -> Iterator[Move]:
        return iter(())

    def options(self, g: Game) -> list[Option]:
        return [o for o in super().options(g) if not (isinstance(o, Move) and o.kind == TAKE)]

    def generator(self) -> Callable[[Game], list[Option]]:
        return self.options

    def score(self, g: Game) -> list[SideScore]:
        scores = super().score(g)
        per_card = typing.cast(NoPileRules, g.rules.part).pile_points
        if g.went_out < 0 or not per_card:
            return scores
        side = g.side_of[g.went_out]
        won = dataclasses.replace(scores[side], bonuses=(("pile_points", per_card * len(g.pile)),))
        return [won if i == side else s for i, s in enumerate(scores)]


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    """The family and its preset exist while this module runs (other tests list the presets)."""
    register_family(NoPile())  # its class is its one description: rules, options, presets, state, words
    try:
        yield
    finally:
        FAMILIES.pop(NAME)
        forget_rules_family(NAME)
        assert PRESET not in PRESETS and NAME not in FAMILY_OPTIONS and "NP-O1" not in OPTIONS_BY_ID


def _rules() -> RuleSet:
    return RuleSet.preset(PRESET)


def test_the_family_plays_its_rules() -> None:
    rules = _rules()
    assert family_of(rules).name == NAME
    assert rules.option_values() == {**RuleSet.preset("classic-4p").option_values(), "NP-O1": 0}
    game = Game(rules, seed=3)
    assert isinstance(game.family, NoPile)


def test_its_own_option_lives_in_its_part(tmp_path: Path) -> None:
    rules = _rules()
    assert isinstance(rules.part, NoPileRules) and rules.get("pile_points") == 0
    paid = rules.with_options({"NP-O1": 10})
    assert paid.get("pile_points") == 10 and paid.non_default_options() == {"NP-O1": 10}
    assert paid != rules and hash(paid) != hash(rules)
    for suffix in (".toml", ".json"):
        save_rules(paid, tmp_path / f"paid{suffix}")
        assert load_rules(tmp_path / f"paid{suffix}") == paid
    with pytest.raises(RulesError, match="NP-O1"):
        rules.with_options({"pile_points": 5})  # not one of its choices
    with pytest.raises(RulesError, match="belongs to the other family"):
        RuleSet.preset("classic-4p", {"NP-O1": 10})
    assert RuleSet.preset("classic-4p", {"pile_points": 0}) == RuleSet.preset("classic-4p")  # another's default: moot


def test_its_own_option_scores(tmp_path: Path) -> None:
    rules = _rules().with_options({"NP-O1": 10})
    for seed in range(40):
        game = Game(rules, seed)
        bots = [make_bot("advanced", seed=s) for s in range(4)]
        while not game.is_over():
            game.push(bots[game.to_move].choose(seat_view(game, game.to_move)))
        if game.went_out >= 0 and game.pile:
            result = game.result or []
            side = game.side_of[game.went_out]
            assert result[side].bonus("pile_points") == 10 * len(game.pile)
            assert ("pile_points", 10 * len(game.pile)) in result[side].lines()
            assert all(not s.bonuses for i, s in enumerate(result) if i != side)
            return
    raise AssertionError("no hand of 40 went out with cards in the pile")


def test_its_rules_files_and_player_counts() -> None:
    assert RuleSet.from_dict({"preset": PRESET, "target": 3000}).family == NAME
    with pytest.raises(ValueError, match="for 4 players"):
        RuleSet(name="nopile-3p", family=NAME, players=3)


def _accounted(game: Game) -> None:
    """Every card of the packs is in exactly one place."""
    seen: Counter[int] = Counter()
    for s in range(game.players):
        seen.update(game.hand(s))
        seen.update(game.red3[s])
    for side in game.melds:
        for m in side.values():
            seen.update(m.cards)
    seen.update(game.pile)
    seen.update(game.stock)
    assert sum(seen.values()) == game.rules.deck_size
    assert all(0 <= c < NUM_CARDS for c in seen)


@pytest.mark.parametrize("seed", range(6))
def test_random_hands_keep_the_invariants_and_never_take(seed: int) -> None:
    rules = _rules()
    game = Game(rules, seed, dealer=seed % 4)
    rng = random.Random(seed)
    while not game.is_over():
        moves = list(game.legal_moves)
        assert moves, "a position with no move"
        assert all(m.kind != TAKE for m in moves)
        if game.pile:
            with pytest.raises(IllegalMoveError):
                game.plan(Move(TAKE))
        for side in game.melds:
            for m in side.values():
                assert game.family.meld_shape_error(rules, m) is None or m.rank == 1
        game.push(moves[rng.randrange(len(moves))])
        _accounted(game)
    assert game.result is not None
    assert game.end_reason in ("went out", "the stock ran out and the pile could not be taken",
                               "the stock ran out and the player did not take the pile",
                               "a red three was drawn as the last card of the stock")


def test_perft_runs_and_repeats() -> None:
    first = perft.positions(PRESET)
    assert first and all(p["moves"] >= 1 for p in first)
    assert perft.positions(PRESET) == first
    hands = perft.hands(PRESET)
    assert hands == perft.hands(PRESET)
    classic = perft.table("classic-4p")
    assert [h["sha256"] for h in hands] != [h["sha256"] for h in classic["hands"]]


@pytest.mark.parametrize("seed", range(3))
def test_views_and_positions_round_trip(seed: int) -> None:
    game = Game(_rules(), seed)
    rng = random.Random(seed)
    while not game.is_over():
        if rng.random() < 0.2:
            p = position_of(game)
            again = game_from_position(p)
            assert position_of(again) == p
            assert p["quiet_turns"] == game.part.quiet > 0  # type: ignore[union-attr]
            assert [str(m) for m in again.legal_moves] == [str(m) for m in game.legal_moves]
            for s in range(game.players):
                v = seat_view(game, s)
                assert Counter(card_str(c) for c in v.hand) == Counter(p["hands"][s])
                assert v.part_value("quiet_turns") == p["quiet_turns"]  # the part's field, by its name
                assert SeatView.from_dict(v.to_dict()) == v
                world = sample_world(v, random.Random(seed))
                assert world.part.quiet == p["quiet_turns"]  # type: ignore[union-attr]
                pile_note_list(v)
        moves = list(game.legal_moves)
        game.push(moves[rng.randrange(len(moves))])


@pytest.mark.parametrize("level", ["basic", "advanced"])
def test_bots_play_a_hand(level: str) -> None:
    game = Game(_rules(), seed=11)
    bots = [make_bot(level, seed=s) for s in range(4)]
    while not game.is_over():
        seat = game.to_move
        move = bots[seat].choose(seat_view(game, seat))
        assert move.kind != TAKE
        game.push(move)
    assert game.result is not None


def test_the_expert_uses_the_familys_search() -> None:
    from dataclasses import replace

    from canasta.bots.expert import ExpertBot

    game = Game(_rules(), seed=5)
    bot = ExpertBot(1)
    assert bot._search(game) is NoPile.search
    bot.tuning = replace(NoPile.search, rivals="mean")  # a variant's own search wins over the family's
    assert bot._search(game) is bot.tuning


def test_the_terminal_app_shows_and_plays_it(tmp_path: Path) -> None:
    pytest.importorskip("textual")
    from canasta.tui.app import CanastaApp, PlayConfig, TableScreen
    from canasta.tui.config import build_table
    from test_tui import SIZE, _text, aio, person_plays, settle

    table = build_table(_rules(), ["basic"], seed=7, hint_level="basic")

    @aio
    async def run() -> None:
        app = CanastaApp(PlayConfig(save_dir=tmp_path, delay=0), table, "nopile")
        async with app.run_test(size=SIZE) as pilot:
            played = 0
            while played < 6 and not table.hand_over:
                await settle(pilot, table)
                if table.hand_over:
                    break
                await person_plays(pilot, table)
                played += 1
            assert isinstance(app.screen, TableScreen)
            assert PRESET in _text(app, "#topbar")
            assert app.screen.query_one("#pile").border_title == "Pile and stock"  # the family's word for it
            assert played == 6
            assert all(m.kind != TAKE for hand in table.moves for _, m in hand)

    run()


def test_the_card_rooms_state_payload_says_it(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from test_web import human_table, recv_until, room_client, room_of

    with room_client(str(tmp_path / "nopile.db")) as client:
        presets = client.get("/api/presets").json()["presets"]
        mine = next(p for p in presets if p["name"] == PRESET)
        assert mine["family"] == NAME and "No-pile Canasta" in mine["label"]
        tid, tokens = human_table(client, [{}, {"kind": "bot", "bot": "basic"}, {"kind": "bot", "bot": "basic"},
                                           {"kind": "bot", "bot": "advanced"}], PRESET)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": tokens[0]}))
            welcome = recv_until(ws, lambda m: m["type"] in ("welcome", "error"))
            state = recv_until(ws, lambda m: m["type"] == "state")
        assert welcome["type"] == "welcome" and welcome["rules"]["family"] == NAME
        assert welcome["words"]["pile"] == "pile" and welcome["words"]["closes_canastas"] is False
        assert len(state["view"]["hand"]) == 11 and state["pile_notes"]
        assert room_of(client, tid).table.rules.name == PRESET
