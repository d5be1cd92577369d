"""Conformance of the Modern American family: every case of ``tests/data/cases-american.json``
(SPEC Part C: the project's own part, so the file is the project's own too) run against the engine.

Each case becomes one test whose id is the case id (``pytest -k M-PACK-02``).  An adapter per
``action`` builds a table from the case's ``setup`` as a position (:func:`game_from_position`), or
a real deal from a seed, plays the case's moves through ``push`` / ``why_illegal``, and compares
every field of ``expected`` but its prose (``reason``) with what the engine computes.  The cases'
conventions (seats, sides, the setup's keys) are written in the file's ``notation``; adapters never
look at a case's id.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from canasta import Game, IllegalMoveError, Move, RulesError, RuleSet
from canasta.engine.cards import CARD_RANK, RANK_NAMES, THREE, Card, card_str, make_deck, parse_card
from canasta.engine.melds import WILD_MELD, meld_from_cards
from canasta.engine.scoring import match_winner
from canasta.engine.state import DRAW_PHASE
from canasta.families.american import rules as american
from canasta.families.american import special
from canasta.families.american.melds import CANASTA, canasta_bonus, canasta_kind, unfinished_penalty
from canasta.families.american.options import american_rules
from canasta.families.american.state import part_of
from canasta.play.match import Match
from canasta.views.position import game_from_position

CASES_PATH = Path(__file__).resolve().parent / "data" / "cases-american.json"
SEATS = {"North": 0, "East": 1, "South": 2, "West": 3}
SIDES = {"NS": 0, "EW": 1}
PROSE = frozenset({"reason"})


def _cases() -> list[dict[str, Any]]:
    return list(json.loads(CASES_PATH.read_text(encoding="utf-8"))["cases"])


CASES = _cases()


def rules_of(case: Mapping[str, Any]) -> RuleSet:
    name = str(case["variant"]).replace("_", "-")
    options = case.get("options") or {}
    return RuleSet.preset(name, options) if options else RuleSet.preset(name)


def cards(strs: list[str]) -> list[Card]:
    return [parse_card(s) for s in strs]


def seat_of(rules: RuleSet, name: str) -> int:
    """A seat named in a case ('North'), or the first seat of a side named ('EW')."""
    if name in SEATS:
        return SEATS[name] % rules.players
    side = SIDES[name]
    return next(s for s in range(rules.players) if s % len(rules.teams) == side)


class Checks:
    def __init__(self, case: Mapping[str, Any]) -> None:
        self.id = str(case["id"])
        self.errors: list[str] = []
        self.seen: set[str] = set()

    def eq(self, key: str, got: object, want: object) -> None:
        self.seen.add(key.split(".")[0])
        if got != want:
            self.errors.append(f"{key}: the engine gives {got!r}, the case expects {want!r}")

    def done(self, expected: Mapping[str, Any]) -> None:
        missed = [k for k in expected if k not in PROSE and k not in self.seen]
        if missed:
            self.errors.append(f"fields no adapter compared: {missed}")
        if self.errors:
            pytest.fail(f"{self.id}:\n  " + "\n  ".join(self.errors), pytrace=False)


# ---------------------------------------------------------------------------- positions


def build(case: Mapping[str, Any]) -> Game:
    """The table of a case's setup: North (seat 0) to act."""
    rules = rules_of(case)
    s = case["setup"]
    n = rules.players
    hands: list[list[Card]] = [[] for _ in range(n)]
    given = set()
    for name, hand in (s.get("hands") or {}).items():
        hands[seat_of(rules, name)] = cards(hand)
        given.add(seat_of(rules, name))
    given.add(0)
    threes: list[list[Card]] = [[] for _ in range(n)]
    for name, row in (s.get("threes") or {}).items():
        threes[seat_of(rules, name)] = cards(row)
    melds: list[list[list[str]]] = [[] for _ in rules.teams]
    for side, rows in (s.get("melds") or {}).items():
        melds[SIDES[side]] = [list(r) for r in rows]
    pile = cards(s.get("pile") or [])
    packets = [cards(row) for row in s.get("talon_packets") or []]
    placed = Counter(c for h in hands for c in h)
    placed.update(c for row in packets for c in row)
    placed.update(c for row in threes for c in row)
    placed.update(parse_card(c) for side in melds for m in side for c in m)
    placed.update(pile)
    rest = list((Counter(make_deck(rules.packs)) - placed).elements())
    random.Random(7).shuffle(rest)
    if "stock" in s or "stock_size" in s or "stock_top" in s:
        top = cards(s.get("stock") or s.get("stock_top") or [])
        pool = list((Counter(rest) - Counter(top)).elements())
        random.Random(7).shuffle(pool)
        size = len(top) if "stock" in s else s.get("stock_size", len(top) + len(pool))
        stock = top + pool[:max(0, size - len(top))]
        leftover = pool[max(0, size - len(top)):]
        others = [x for x in range(n) if x not in given] or [x for x in range(1, n)]
        for i, c in enumerate(leftover):  # the cards left over: other hands (their threes laid out)
            seat = others[i % len(others)]
            (threes[seat] if CARD_RANK[c] == THREE else hands[seat]).append(c)
        stock_field: dict[str, Any] = {"stock": [card_str(c) for c in stock]}
    else:
        stock_field = {}
    phase = s.get("phase", "meld")
    pos: dict[str, Any] = {
        "rules": rules.to_dict(), "dealer": n - 1, "turn": 0, "phase": phase,
        "turn_number": 5, **stock_field,
        "hands": [[card_str(c) for c in h] for h in hands],
        "red_threes": [[card_str(c) for c in row] for row in threes],
        "melds": melds, "pile": [card_str(c) for c in pile],
    }
    if "hand_number" in s:
        pos["hand_number"] = int(s["hand_number"])
    if "talon_packets" in s:
        pos["talon_packets"] = [list(row) for row in s["talon_packets"]]
    if "scores" in s:
        pos["scores"] = [s["scores"].get(name, 0) for name in ("NS", "EW")][:len(rules.teams)]
    if "went_out" in s:
        pos["went_out"] = seat_of(rules, s["went_out"])
    if "talon_cards" in s:
        talon: list[list[str]] = [[] for _ in rules.teams]
        seats = [-1 for _ in rules.teams]
        for name, row in s["talon_cards"].items():
            seat = seat_of(rules, name)
            talon[seat % len(rules.teams)] = list(row)
            seats[seat % len(rules.teams)] = seat
        pos["talon_cards"], pos["talon_seats"] = talon, seats
    game = game_from_position(pos)
    return game


def legal(game: Game, move: Move) -> IllegalMoveError | None:
    return game.why_illegal(move)


# ---------------------------------------------------------------------------- adapters


def act_move(case: Mapping[str, Any], ck: Checks) -> None:
    s, exp = case["setup"], case["expected"]
    game = build(case)
    moves = [Move.parse(m) for m in (s.get("moves") or [s["move"]])]
    for m in moves[:-1]:
        game.push(m)
    last = moves[-1]
    err = legal(game, last)
    ck.eq("legal", err is None, exp["legal"])
    if "code" in exp:
        ck.eq("code", None if err is None else err.code, exp["code"])
    if err is not None:
        return
    side = game.side_of[game.turn]
    if "talon_due" in exp:
        game.push(last)
        ck.eq("talon_due", american.talon_due(game, side), exp["talon_due"])
    else:
        game.push(last)
    for key, want in exp.items():
        if key in ("legal", "code", "talon_due") or key in PROSE:
            continue
        if key.startswith("hand_size_"):
            ck.eq(key, game.hand_sizes[seat_of(game.rules, key.removeprefix("hand_size_"))], want)
        elif key.startswith("talon_"):
            ck.eq(key, part_of(game).talons[SIDES[key.removeprefix("talon_")]], want)
        elif key.startswith("canastas_"):
            ck.eq(key, game.canasta_counts[SIDES[key.removeprefix("canastas_")]], want)
        elif key.startswith("threes_"):
            ck.eq(key, len(game.red3[seat_of(game.rules, key.removeprefix("threes_"))]), want)
        elif key.startswith("going_out_"):
            result = game.result
            ck.eq(key, None if result is None else result[SIDES[key.removeprefix("going_out_")]].going_out, want)
        elif key.startswith("score_") and key.endswith("_total"):
            result = game.result
            ck.eq(key, None if result is None else result[SIDES[key.split("_")[1]]].total, want)
        elif key == "meld_sizes":
            sizes = {RANK_NAMES[r] if r != WILD_MELD else "wild": m.size for r, m in game.melds[0].items()}
            ck.eq(key, {k: sizes.get(k) for k in want}, want)
        elif key == "wild_meld_size":
            ck.eq(key, game.melds[0][WILD_MELD].size if WILD_MELD in game.melds[0] else 0, want)
        elif key == "pile_size":
            ck.eq(key, len(game.pile), want)
        elif key == "stock_size":
            ck.eq(key, len(game.stock), want)
        elif key == "over":
            ck.eq(key, game.is_over(), want)
        elif key == "went_out":
            ck.eq(key, game.went_out, seat_of(game.rules, want))
        elif key == "turn_passed":
            ck.eq(key, game.turn != 0 or game.phase == DRAW_PHASE, want)
        elif key == "special_hand":
            ck.eq(key, part_of(game).special_name, want)
        elif key == "match_winner":  # the match's totals before this hand (setup "totals"), this hand recorded
            match = Match(game.rules, seed=game.seed)
            match.totals = [int(case["setup"]["totals"][side]) for side in ("NS", "EW")]
            match.game = game
            match.record_hand()
            ck.eq(key, {0: "NS", 1: "EW", -1: "draw", None: None}[match.winner], want)


def act_deal(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    rules = rules_of(case)
    game = Game(rules, seed=int(case["setup"]["seed"]), dealer=0)
    if "hand_size" in exp:  # threes laid out are replaced, so every hand keeps its size
        ck.eq("hand_size", sorted(set(game.hand_sizes)), [exp["hand_size"]])
    if "pile_size" in exp:
        ck.eq("pile_size", len(game.pile), exp["pile_size"])
    if "players" in exp:
        ck.eq("players", game.players, exp["players"])
    if "pack_cards" in exp:
        ck.eq("pack_cards", sum(game.hand_sizes) + len(game.stock) + sum(len(r) for r in game.red3), exp["pack_cards"])
    if "first_player" in exp:
        ck.eq("first_player", "dealer's left" if game.turn == (game.dealer + 1) % game.players else game.turn,
              exp["first_player"])
    if "threes_in_hands_at_start" in exp:
        ck.eq("threes_in_hands_at_start", sum(game.rank_counts[s][THREE] for s in range(game.players)),
              exp["threes_in_hands_at_start"])
    if "threes_in_hands_after_first_draws" in exp:
        held = 0
        for _ in range(game.players):
            game.push(Move.parse("draw"))
            held += game.rank_counts[game.turn][THREE]
            discard = next(m for m in game.legal_moves if str(m).startswith("discard"))
            game.push(discard)
        ck.eq("threes_in_hands_after_first_draws", held, exp["threes_in_hands_after_first_draws"])


def act_minimum(case: Mapping[str, Any], ck: Checks) -> None:
    game = build({**case, "setup": {**case["setup"], "hands": {"North": ["5C", "6C"]}}})
    ck.eq("minimum", game.minimum(0), case["expected"]["minimum"])


def act_canasta(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    cs = cards(case["setup"]["cards"])
    m = meld_from_cards(cs, full=CANASTA)
    if all(CARD_RANK[c] in (0, 13) for c in cs):
        m.rank = WILD_MELD
    if "kind" in exp:
        ck.eq("kind", canasta_kind(m), exp["kind"])
    if "bonus" in exp:
        ck.eq("bonus", canasta_bonus(m), exp["bonus"])
    if "penalty" in exp:
        ck.eq("penalty", unfinished_penalty(m, american_rules(rules_of(case)).four_joker_penalty), exp["penalty"])


def act_special(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    found = special.recognise(american_rules(rules_of(case)), special.rank_counts(cards(case["setup"]["cards"])))
    ck.eq("name", found[0] if found else None, exp["name"])
    ck.eq("value", found[1] if found else 0, exp["value"])


SCORE_LINES = {"meld_points": "meld_points", "canasta_bonuses": "canasta_bonuses", "threes": "red_threes",
               "going_out": "going_out", "cards_in_hand": "hand_penalty", "total": "total"}


def act_score(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    game = build(case)
    result = game.result
    assert result is not None, "the setup's hand is not over"
    for side_name in ("NS", "EW"):
        if side_name not in exp:
            continue
        ck.seen.add(side_name)
        score = result[SIDES[side_name]]
        for key, want in exp[side_name].items():
            got = getattr(score, SCORE_LINES[key]) if key in SCORE_LINES else score.bonus(key)
            ck.eq(f"{side_name}.{key}", got, want)


def act_match(case: Mapping[str, Any], ck: Checks) -> None:
    rules = rules_of(case)
    totals = case["setup"]["totals"]
    hands = case["setup"].get("hands")  # hands played so far, where the match lasts a number of them
    winner = match_winner(rules, [totals["NS"], totals["EW"]], None if hands is None else int(hands))
    names = {0: "NS", 1: "EW", -1: "draw", None: None}
    ck.eq("winner", names[winner], case["expected"]["winner"])


def act_rules(case: Mapping[str, Any], ck: Checks) -> None:
    try:
        rules_of(case)
        accepted = True
    except RulesError:
        accepted = False
    ck.eq("accepted", accepted, case["expected"]["accepted"])


ADAPTERS = {"move": act_move, "deal": act_deal, "minimum": act_minimum, "canasta": act_canasta,
            "special": act_special, "score": act_score, "match": act_match, "rules": act_rules}


def test_every_case_has_an_adapter_and_a_reason() -> None:
    assert len(CASES) >= 100
    for c in CASES:
        assert c["action"] in ADAPTERS, c["id"]
        assert str(c["expected"].get("reason", "")).strip(), f"{c['id']} gives no derivation"
        assert all(str(r).startswith("C.") for r in c["rule_ref"]), c["id"]


@pytest.mark.parametrize("case", [pytest.param(c, id=str(c["id"])) for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    ck = Checks(case)
    ADAPTERS[str(case["action"])](case, ck)
    ck.done(case["expected"])
