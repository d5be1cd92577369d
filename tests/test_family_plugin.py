"""Two more rule families, defined here alone: registered, they play through the engine,
perft, the reference check, the views and positions, the bots, the terminal app and the card
room, with no edit anywhere else.

"Eights" (:class:`Eights`) extends Classic in a few lines by changing the game's shape and one
rule: a canasta is eight cards (``canasta_size``), and the pile is taken with a natural pair from
the hand only (never with one natural card and a wild card, nor by a meld on the table).

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
import random
import typing
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from canasta.bots import make_bot
from canasta.engine.cards import CARD_RANK, IS_WILD, KING, card_str
from canasta.engine.errors import (
    REFUSAL_FORMS,
    REFUSALS,
    IllegalMoveError,
    RulesError,
    refuse,
    register_refusals,
)
from canasta.engine.family import FamilyWords, PileNote, PlayTuning, SearchTuning
from canasta.engine.game import FAMILIES, Game, family_of, register_family
from canasta.engine.moves import MELD, TAKE, Move, group_cards
from canasta.engine.options import Option, is_take
from canasta.engine.plans import TakePlan
from canasta.engine.rules import (
    FAMILY_OPTIONS,
    OPTIONS_BY_ID,
    PRESETS,
    OptionInfo,
    RuleSet,
    forget_rules_family,
    load_rules,
    save_rules,
)
from canasta.engine.scoring import SideScore
from canasta.engine.state import StateField, StatePart
from canasta.families.classic import Classic
from canasta.families.classic.options import CLASSIC_OPTIONS
from canasta.tools import perft
from canasta.views.position import game_from_position, position_of
from canasta.views.seat import SeatView, pile_note_list, sample_world, seat_view
from family_checks import accounted, bots_play_a_hand, open_in_the_room, play_in_terminal

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
        return [o for o in super().options(g) if not is_take(g, o)]

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


EIGHTS = "eights"
EIGHTS_PRESET = "eights-4p"
#: its one refusal of its own (a family registers its forms; an interface translates them by code)
PAIR_ONLY = ("PAIR_ONLY", "E.1", "in this game the pile is taken only with a natural pair of {rank} from your hand")


class Eights(Classic):
    """Classic Canasta with canastas of eight cards, the pile taken with a natural pair only."""

    name = EIGHTS
    canasta_size = 8  # the game's shape is the family's: every meld, count and bot reads it
    rule_options = CLASSIC_OPTIONS
    player_counts = (4,)
    start_preset = EIGHTS_PRESET
    play = dataclasses.replace(Classic.play, one_and_wild_takes=False, meld_takes_pile=False)
    words = dataclasses.replace(Classic.words, title="Canasta of Eights")

    def presets(self) -> dict[str, RuleSet]:
        return {EIGHTS_PRESET: RuleSet(name=EIGHTS_PRESET, family=EIGHTS)}

    def pile_frozen_for(self, g: Game, side: int) -> bool:
        return True  # Classic's frozen pile is taken with a natural pair only: its code does the rest

    def plan_take(self, g: Game, move: Move) -> TakePlan:
        try:
            return super().plan_take(g, move)
        except IllegalMoveError as exc:  # a pile not frozen in Classic's sense: the rule in its own words
            if exc.code != "FROZEN_NEEDS_NATURAL_PAIR" or g.pile_frozen or not g.opened[g.side_of[g.turn]]:
                raise
            raise refuse("PAIR_ONLY", rank=CARD_RANK[g.pile[-1]]) from None

    def open_note(self, rules: RuleSet) -> PileNote:
        return PileNote("open_pair")


def _pair(take: Move) -> bool:
    """Whether a take shows a natural pair from the hand."""
    return bool(take.groups) and sum(1 for c in group_cards(take.groups[0]) if not IS_WILD[c]) >= 2


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    """The families and their presets exist while this module runs (other tests list the presets)."""
    register_family(NoPile())  # its class is its one description: rules, options, presets, state, words
    register_family(Eights())
    register_refusals(PAIR_ONLY)
    try:
        yield
    finally:
        for name in (NAME, EIGHTS):
            FAMILIES.pop(name)
            forget_rules_family(name)
        REFUSAL_FORMS.pop("PAIR_ONLY")
        REFUSALS.pop("PAIR_ONLY")
        assert PRESET not in PRESETS and NAME not in FAMILY_OPTIONS and "NP-O1" not in OPTIONS_BY_ID
        assert EIGHTS_PRESET not in PRESETS and EIGHTS not in FAMILY_OPTIONS


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
        accounted(game)
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
    bots_play_a_hand(_rules(), 11, level, lambda move: move.kind != TAKE)


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
    run = play_in_terminal(_rules(), "nopile", tmp_path, 6)
    assert run.played == 6 and PRESET in run.topbar
    assert run.pile_title == "Pile and stock"  # the family's word for it
    assert all(m.kind != TAKE for m in run.moves)


def test_the_card_rooms_state_payload_says_it(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    run = open_in_the_room(tmp_path, PRESET, ["basic", "basic", "advanced"])
    assert run.preset["family"] == NAME and "No-pile Canasta" in run.preset["label"]
    assert run.welcome["type"] == "welcome" and run.welcome["rules"]["family"] == NAME
    assert run.welcome["words"]["pile"] == "pile" and run.welcome["words"]["closes_canastas"] is False
    assert len(run.state["view"]["hand"]) == 11 and run.state["pile_notes"]


# ---------------------------------------------------------------------------- Eights: Classic, one shape, one rule


def _eights() -> RuleSet:
    return RuleSet.preset(EIGHTS_PRESET)


_OTHERS = [["4C", "7C", "9D", "10C", "QS"], ["4S", "7D", "9S", "10H", "QD"], ["4D", "7H", "9H", "JH", "QC"]]


def _eights_position(hand: list[str], melds: list[list[str]], pile: list[str], phase: str = "meld") -> Game:
    return game_from_position({"rules": EIGHTS_PRESET, "dealer": 3, "turn": 0, "phase": phase, "stock_seed": 5,
                               "hands": [hand, *_OTHERS], "melds": [melds, []], "pile": pile,
                               "has_melded": [bool(melds), False, bool(melds), False]})


def test_eights_a_canasta_is_eight_cards() -> None:
    """Seven kings are a meld, not a canasta: no bonus, no going out; the eighth makes it one."""
    seven = ["KS", "KD", "KC", "KH", "KS", "KD", "2H"]
    g = _eights_position(["KC", "5H", "6D"], [seven], ["8C", "9H"])
    assert g.canasta_size == 8 and g.melds[0][KING].size == 7
    assert not g.melds[0][KING].is_canasta and g.side_canastas(0) == 0
    assert not g.can_go_out()
    g.push("meld KC")
    assert g.melds[0][KING].is_canasta and g.side_canastas(0) == 1
    score = g.family.score(g)[0]
    assert score.canasta_bonuses == 300  # a mixed canasta, of eight
    classic = game_from_position({**position_of(g), "rules": RuleSet.preset("classic-4p").to_dict()})
    assert classic.canasta_size == 7 and classic.family.score(classic)[0].canasta_bonuses == 300


def test_eights_going_out_needs_a_canasta_of_eight() -> None:
    g = _eights_position(["KC", "2C", "5H"], [["KS", "KD", "KC", "KH", "KS", "KD"]], ["8C", "9H"])
    assert g.can_go_out()
    outs = [m for m in g.legal_moves if m.kind == MELD and len(m.groups) == 1 and len(group_cards(m.groups[0])) == 2]
    assert [str(m) for m in outs] == ["meld KC 2C"]
    g.push("meld KC 2C")
    g.push("discard 5H")
    assert g.went_out == 0 and g.result is not None


def test_eights_the_pile_is_taken_with_a_natural_pair_only() -> None:
    """In Classic one natural card and a wild card, or a meld of the rank, take an open pile
    (A.9.3); here only a natural pair does: refused by its own rule, and never generated."""
    g = _eights_position(["10S", "2C", "5H", "5D", "6C"], [["10C", "10D", "10S"]], ["4C", "10D"], phase="draw")
    for text in ("take 10S 2C", "take"):
        err = g.why_illegal(text)
        assert err is not None and err.code == "PAIR_ONLY" and err.rule == "E.1", text
        classic = game_from_position({**position_of(g), "rules": "classic-4p"})
        assert classic.why_illegal(text) is None, text
    assert not [m for m in g.legal_moves if m.kind == TAKE]
    g2 = _eights_position(["10S", "10H", "5H", "5D", "6C"], [["KS", "KD", "KC"]], ["4C", "10D"], phase="draw")
    takes = [m for m in g2.legal_moves if m.kind == TAKE]
    assert takes and all(_pair(m) for m in takes)
    assert g2.why_illegal("take 10S 10H") is None
    assert pile_note_list(seat_view(g, 0))[-1].key == "open_pair"


@pytest.mark.parametrize("seed", range(4))
def test_eights_random_hands_keep_the_invariants(seed: int) -> None:
    from canasta.tools.selfcheck import problems_in

    rules = _eights()
    game = Game(rules, seed, dealer=seed % 4)
    rng = random.Random(seed)
    while not game.is_over():
        moves = list(game.legal_moves)
        assert moves, "a position with no move"
        for move in moves:
            assert move.kind != TAKE or _pair(move)
        game.push(moves[rng.randrange(len(moves))])
        assert not problems_in(game)
        for side in game.melds:
            for meld in side.values():
                assert meld.full == 8 and meld.is_canasta == (meld.size >= 8)
    assert game.result is not None


def test_eights_perft_and_the_reference_check() -> None:
    from canasta.tools.soak import reference_check

    first = perft.positions(EIGHTS_PRESET)
    assert first and perft.positions(EIGHTS_PRESET) == first
    assert perft.hands(EIGHTS_PRESET) != perft.table("classic-4p")["hands"]
    rep = reference_check(_eights(), 12, 4001, limit=1000)
    assert rep.positions >= 20 and rep.states > 0
    assert not rep.problems, "\n".join(rep.problems[:10])


@pytest.mark.parametrize("seed", range(2))
def test_eights_views_and_positions_round_trip(seed: int) -> None:
    game = Game(_eights(), seed)
    rng = random.Random(seed)
    while not game.is_over():
        if rng.random() < 0.2:
            p = position_of(game)
            again = game_from_position(p)
            assert position_of(again) == p and again.canasta_size == 8
            assert [str(m) for m in again.legal_moves] == [str(m) for m in game.legal_moves]
            for s in range(game.players):
                v = seat_view(game, s)
                assert SeatView.from_dict(v.to_dict()) == v
                world = sample_world(v, random.Random(seed))
                assert world.canasta_size == 8 and world.side_canastas(0) == game.side_canastas(0)
        moves = list(game.legal_moves)
        game.push(moves[rng.randrange(len(moves))])


@pytest.mark.parametrize("level", ["basic", "advanced", "expert:i4"])
def test_eights_bots_play_a_hand(level: str) -> None:
    game = bots_play_a_hand(_eights(), 21, level, lambda move: move.kind != TAKE or _pair(move))
    assert all(m.size >= 8 for side in game.melds for m in side.values() if m.is_canasta)


def test_eights_the_terminal_app_and_the_card_room_show_it(tmp_path: Path) -> None:
    pytest.importorskip("textual")
    pytest.importorskip("fastapi")
    from canasta.engine.cards import parse_cards
    from canasta.tui.render import meld_chip, meld_status

    seven = parse_cards("KS KD KC KH KS KD 2H")
    assert meld_status(_eights(), seven, False) == "7 of 8, 1 wild"  # the family's canasta, not the core's seven
    assert "★" not in meld_chip(_eights(), seven).plain and "★" in meld_chip(_eights(), [*seven, seven[0]]).plain
    assert EIGHTS_PRESET in play_in_terminal(_eights(), "eights", tmp_path, 4).topbar
    run = open_in_the_room(tmp_path, EIGHTS_PRESET, ["basic", "basic", "basic"])
    assert run.preset["family"] == EIGHTS and "Canasta of Eights" in run.preset["label"]
    assert run.welcome["type"] == "welcome" and run.welcome["rules"]["family"] == EIGHTS
    assert run.welcome["words"]["canasta_size"] == 8  # the page counts "7/8" and marks a canasta at eight
    assert len(run.state["view"]["hand"]) == 11 and run.state["pile_notes"]


def test_the_family_check_passes_eights_and_says_what_is_missing(capsys: pytest.CaptureFixture[str]) -> None:
    """``canasta check-family`` runs every check on a family of one's own: Eights passes all but
    the translations, which name its title in each language (it is in no catalog)."""
    from canasta.cli import main
    from canasta.i18n import LANGUAGES
    from canasta.tools.familycheck import CHECKS

    assert main(["check-family", EIGHTS, "--seeds", "6", "--hands", "2"]) == 1
    out = capsys.readouterr().out
    for name in CHECKS:
        assert f"{name}: " in out
    assert [line for line in out.splitlines() if line.endswith("problem(s)")] == [
        f"translations: {len(LANGUAGES) - 1} problem(s)"]
    assert "'Canasta of Eights' has no translation" in out


def test_the_family_check_finds_a_generator_that_disagrees_with_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stricter rule written in plan_take alone (no wild card with the pair), as a newcomer might
    forget the generator: the generated takes with a wild card are refused, and the check says so."""
    from canasta.tools.familycheck import check_family

    rule = Eights.plan_take

    def no_wild_with_the_pair(self: Eights, g: Game, move: Move) -> TakePlan:
        plan = rule(self, g, move)
        if any(IS_WILD[c] for c in plan.shown):
            raise refuse("PAIR_ONLY", rank=plan.rank)
        return plan

    monkeypatch.setattr(Eights, "plan_take", no_wild_with_the_pair)
    rep = check_family(EIGHTS, seeds=8, hands=1, checks=("generation",))
    assert rep.problems["generation"] and not rep.ok
    assert any("refuse" in p for p in rep.problems["generation"]), rep.problems["generation"]
