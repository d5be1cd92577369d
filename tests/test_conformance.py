"""Conformance: every Classic case of ``shared/rules/cases.json`` run against the engine.

Each case becomes one test whose id is the case id (``pytest -k C-MELD-01``).  An
adapter per ``action`` builds a real table from the case's ``setup`` (a position
via :func:`game_from_position`, or a real deal via ``Game(rules, seed)``), plays
the moves the case describes through ``push`` / ``legal_moves`` / ``why_illegal``,
and compares every numeric, boolean and card field of ``expected`` with what the
engine computes.  Prose fields (``reason``, ``how``, ``note``, ``when`` ...) are
not compared.  Adapters never look at the case id.

Conventions (the cases' own: North=0, East=1, South=2, West=3; sides NS=0, EW=1):

* **The acting player is seat 0 (North), side 0.**  It is seat 0's turn: phase
  ``draw`` when the case is about drawing or taking the pile, otherwise phase
  ``meld`` (the player has already drawn, so ``player_hand_after_draw`` and
  ``player_hand`` are the hand in the meld phase).  The partner is
  ``game.partner_of(0)``; side 1 are the opponents.  Dealer North unless stated.
* Seats not mentioned hold nothing; every card the case does not place forms the
  stock (``stock_top``/``stock_top_sequence`` go on top of it).  When a case gives
  the *whole* stock (``stock``), the cards left over go to the other seats' hands
  (their red threes to seat 1's red threes), since a position must hold the pack.
* Scaffolding ("filler") cards are taken only from ranks the case never mentions.
  A side that "has melded" but whose melds are not listed gets a 7-card natural
  canasta (a 3-card meld when the case says it has no canasta), so that A.12.2 (no
  going out without a canasta) never decides a case about another rule; a side
  that must hold N canastas gets 7-card natural canastas; a player who melded or
  added to the partner's melds before gets a 3-card meld of their own / the
  partner's; hands that must keep cards to discard get spare natural cards.
  Filler melds are left out of the compared scores.
* Pure helpers (``melds.validate_new_meld``, ``RuleSet.minimum_for``,
  ``scoring.red_three_score`` ...) are only used as a *second* opinion next to the
  table result, or where a case is a pure rule with no table.
* Deals cannot be placed in a position (the upcard procedure and the dealt
  red threes run inside ``Game``), so those adapters search seeds for a deal of the
  same *shape* as the case (each listed stock card of the same kind: wild, red
  three, black three, natural) and map the case's cards onto the dealt ones.
  The stock as it was before the upcard / before the red-three replacements is
  observed on the same deal with ``C-O8 = on_first_turn``, which changes only
  when stock cards are consumed (A.3.4).

If ``cases.json`` is missing the tests fail (they do not skip).  A setup key no
adapter understands fails the case.  ``CANASTA_CONFORMANCE_VERBOSE=1 pytest -s``
prints every comparison made.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from canasta import Game, IllegalMoveError, Move, RuleSet
from canasta.cards import (
    CARD_RANK,
    CARD_VALUE,
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    NATURAL_RANKS,
    RANK_CARDS,
    RANK_WORDS,
    RED_THREES,
    THREE,
    Card,
    Rank,
    card_str,
    cards_str,
    make_deck,
    parse_card,
)
from canasta.game import DRAW_PHASE
from canasta.match import Match
from canasta.melds import Meld, canasta_bonus, classify, validate_new_meld
from canasta.moves import DISCARD, MELD, TAKE, group_cards, make_group
from canasta.position import game_from_position
from canasta.scoring import hand_penalty, match_winner, red_three_score, score_side

CASES_PATH = Path(__file__).resolve().parents[2] / "shared" / "rules" / "cases.json"

SEATS: dict[str, int] = {"North": 0, "East": 1, "South": 2, "West": 3}
SIDES: dict[str, int] = {"NS": 0, "EW": 1, "Team1": 0, "Team2": 1, "Team3": 2}
PLAYER = 0
SEED_LIMIT = 1_000_000

_CARD_RE = re.compile(r"(?<![A-Za-z0-9])(?:JK|(?:10|[2-9AKQJ])[SHDC])(?![A-Za-z0-9])")


# ---------------------------------------------------------------------------- loading


def _load_cases() -> list[dict[str, Any]] | None:
    if not CASES_PATH.is_file():
        return None
    data = json.loads(CASES_PATH.read_text(encoding="utf-8"))
    return [c for c in data["cases"] if str(c.get("variant", "")).startswith("classic")]


CASES = _load_cases()
_MISSING = (f"conformance cases not found at {CASES_PATH}: the repository expects shared/rules/cases.json "
            "next to it (a sibling of the repo directory)")


def test_cases_file_is_present() -> None:
    if CASES is None:
        pytest.fail(_MISSING, pytrace=False)
    assert CASES, f"{CASES_PATH} holds no Classic cases"


def _params() -> list[Any]:
    if CASES is None:
        return [pytest.param(None, id="cases-json-missing")]
    return [pytest.param(c, id=str(c["id"])) for c in CASES]


# ---------------------------------------------------------------------------- small helpers


class Checks:
    """Collects every mismatch of a case, so one run shows them all."""

    def __init__(self, case: Mapping[str, Any]) -> None:
        self.case_id = str(case["id"])
        self.errors: list[str] = []
        self.log: list[str] = []

    def eq(self, label: str, actual: object, expected: object, as_cards: bool = False) -> None:
        got, want = _show(actual, as_cards), _show(expected, as_cards)
        self.log.append(f"{'ok ' if actual == expected else 'BAD'} {label}: {got} vs {want}")
        if actual != expected:
            self.errors.append(f"{label}: engine gives {got}, case expects {want}")

    def true(self, label: str, ok: bool, detail: str = "") -> None:
        self.log.append(f"{'ok ' if ok else 'BAD'} {label}{': ' + detail if detail else ''}")
        if not ok:
            self.errors.append(f"{label}{': ' + detail if detail else ''}")

    def done(self) -> None:
        if os.environ.get("CANASTA_CONFORMANCE_VERBOSE"):
            print(f"\n{self.case_id}:\n  " + "\n  ".join(self.log or ["(nothing compared)"]))
        if self.errors:
            pytest.fail(f"{self.case_id}:\n  " + "\n  ".join(self.errors), pytrace=False)


def _show(value: object, as_cards: bool = False) -> str:
    if as_cards and isinstance(value, int) and not isinstance(value, bool):
        return card_str(value)
    if as_cards and isinstance(value, list):
        return "[" + " ".join(_show(v, True) for v in value) + "]"
    return repr(value)


def cards(strs: Iterable[str]) -> list[Card]:
    return [parse_card(s) for s in strs]


def card_tokens(text: str) -> list[Card]:
    """Card notation found in free text, e.g. 'KD(top)' or 'start a meld KC-KD-KH'."""
    return [parse_card(t) for t in _CARD_RE.findall(text)]


def msort(cs: Iterable[Card]) -> list[Card]:
    return sorted(cs)


def minus(a: Iterable[Card], b: Iterable[Card]) -> list[Card]:
    """Multiset difference a - b."""
    left = Counter(a)
    left.subtract(Counter(b))
    return sorted(left.elements())


def rules_of(case: Mapping[str, Any]) -> RuleSet:
    name = str(case["variant"]).replace("_", "-")
    options = case.get("options") or {}
    return RuleSet.preset(name, options) if options else RuleSet.preset(name)


def seat_of(text: str, dealer: int = 0, n: int = 4) -> int | None:
    """A seat named in a case: 'North', or a phrase such as "the player on the dealer's left"."""
    for name, seat in SEATS.items():
        if re.search(rf"\b{name}\b", text):
            return seat
    if "dealer's left" in text:
        return (dealer + 1) % n
    return None


def side_index(name: str, names: Sequence[str]) -> int:
    return SIDES[name] if name in SIDES else list(names).index(name)


def rank_from_word(word: str) -> Rank:
    w = word.lower()
    for r, name in enumerate(RANK_WORDS):
        if w in (name, name + "s"):
            return r
    raise AssertionError(f"unknown rank word {word!r}")


def bonus_total(value: object) -> int:
    """Expected canasta bonuses: a number, or a mapping of canastas (with an optional 'total')."""
    if isinstance(value, Mapping):
        if "total" in value:
            return int(value["total"])
        return sum(int(v) for v in value.values())
    assert isinstance(value, int)
    return value


def bonus_items(value: object) -> list[int] | None:
    if isinstance(value, Mapping):
        return sorted(int(v) for k, v in value.items() if k != "total")
    return None


def same_shape(seq: Sequence[Card | None], want: Sequence[Card]) -> bool:
    """``seq`` starts with cards of the same kinds as ``want`` (``None`` matches any),
    and equal cards in ``want`` are equal cards in ``seq``."""
    if len(seq) < len(want):
        return False
    pairs = list(zip(seq, want, strict=False))
    if any(a is not None and kind_of(a) != kind_of(b) for a, b in pairs):
        return False
    return all((want[i] == want[j]) == (pairs[i][0] == pairs[j][0])
               for i in range(len(pairs)) for j in range(i) if pairs[i][0] is not None and pairs[j][0] is not None)


def kind_of(c: Card) -> str:
    """The kind that matters for the upcard procedure and for draws."""
    if IS_WILD[c]:
        return "wild"
    if IS_RED_THREE[c]:
        return "red3"
    if IS_BLACK_THREE[c]:
        return "black3"
    return "natural"


def canasta_kind(m: Meld) -> str:
    return "natural" if m.is_natural else "mixed"


# ---------------------------------------------------------------------------- table builder

# every setup key an adapter understands; anything else fails loudly
PROSE_SETUP_KEYS = {"note", "attempt", "event", "action"}
TABLE_KEYS = {
    "side_cumulative_score", "side_cumulative_score_at_start_of_hand", "side_has_melded",
    "side_has_made_any_meld", "side_melds", "player_side_melds", "partner_melds", "opponent_melds",
    "existing_side_meld", "side_canastas", "player_canastas", "side_has_canasta",
    "player_has_melded_before_this_turn", "player_added_to_partner_melds_before", "player_hand",
    "player_hand_after_draw", "discard_pile_bottom_to_top", "pile_frozen", "pile_contains_wild_card",
    "stock", "stock_top", "stock_top_sequence", "side_red_threes", "player_hand_size_before",
}
OTHER_KEYS = {
    "new_meld", "player_is_going_out_this_turn", "cards_to_add", "meld", "laid_complete_from_hand",
    "cards_added_this_turn", "melds_laid_this_turn", "cards_left_in_hand_after_melding", "planned_melds",
    "players", "deck_size", "teams", "dealer", "dealt_red_threes", "upcard_already_turned",
    "stock_top_sequence_after_deal", "pile_size", "went_out", "canastas_laid_complete_from_hand",
    "NS", "EW", "player_hand_at_end", "cumulative_after_hand", "player_can_otherwise_meld_all_cards",
}
_SIDE_HAS_RANK_MELD = re.compile(r"^side_has_([a-z]+)_meld$")  # e.g. side_has_king_meld


def unknown_setup_keys(setup: Mapping[str, Any]) -> list[str]:
    known = PROSE_SETUP_KEYS | TABLE_KEYS | OTHER_KEYS
    return [k for k in setup if k not in known and not _SIDE_HAS_RANK_MELD.match(k)]


def _walk_strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield str(k)
            yield from _walk_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk_strings(v)


class Table:
    """A position under construction, with the pack's remaining cards tracked."""

    def __init__(self, rules: RuleSet, setup: Mapping[str, Any] | None = None, phase: str = "meld") -> None:
        self.rules = rules
        probe = Game(rules, deal=False)
        self.n = rules.players
        self.nsides = probe.num_sides
        self.partner = probe.partner_of(PLAYER)
        self.slots = probe.score_slots
        self.left: Counter[Card] = Counter(make_deck(rules.packs))
        self.avoid: set[Rank] = set()
        for s in _walk_strings(setup or {}):
            self.avoid.update(CARD_RANK[c] for c in card_tokens(s))
        self.filler_ranks: set[Rank] = set()
        self.hands: list[list[Card]] = [[] for _ in range(self.n)]
        self.melds: list[list[dict[str, Any]]] = [[] for _ in range(self.nsides)]
        self.red3: list[list[Card]] = [[] for _ in range(self.n)]
        self.pile: list[Card] = []
        self.stock_top: list[Card] = []
        self.stock: list[Card] | None = None
        self.extra: dict[str, Any] = {"turn": PLAYER, "phase": phase, "dealer": 0,
                                      "scores": [0] * self.slots,
                                      "has_melded": [False] * self.n,
                                      "added_to_partner": [False] * self.n}

    # -- cards

    def use(self, cs: Iterable[Card], where: str) -> list[Card]:
        out = list(cs)
        for c in out:
            if self.left[c] <= 0:
                raise AssertionError(f"case setup: {card_str(c)} ({where}) is used more often than "
                                     f"a {self.rules.deck_size}-card pack holds")
            self.left[c] -= 1
        return out

    def spare_naturals(self, k: int) -> list[Card]:
        """k natural cards of ranks the case never mentions, spread over ranks."""
        ranks = [r for r in NATURAL_RANKS if r not in self.avoid] or list(NATURAL_RANKS)
        out: list[Card] = []
        while len(out) < k:
            progress = False
            for r in ranks:
                for c in RANK_CARDS[r]:
                    if self.left[c] > 0:
                        self.left[c] -= 1
                        out.append(c)
                        progress = True
                        break
                if len(out) == k:
                    break
            if not progress:
                raise AssertionError("no spare natural cards left for the scaffolding")
        return out

    def spare_meld(self, size: int) -> list[Card]:
        """``size`` natural cards of one rank the case never mentions (not yet taken from the pack)."""
        for r in reversed(NATURAL_RANKS):
            if r in self.avoid:
                continue
            have = [c for c in RANK_CARDS[r] for _ in range(self.left[c])]
            if len(have) >= size:
                chosen = have[:size]  # not taken yet: add_meld / use take them
                self.avoid.add(r)
                self.filler_ranks.add(r)
                return chosen
        raise AssertionError(f"no unused rank left for a {size}-card filler meld")

    def red_threes(self, k: int) -> list[Card]:
        out: list[Card] = []
        for _ in range(k):
            for c in RED_THREES if len(out) % 2 == 0 else RED_THREES[::-1]:
                if self.left[c] > 0:
                    self.left[c] -= 1
                    out.append(c)
                    break
            else:
                raise AssertionError(f"the pack holds fewer than {k} red threes")
        return out

    # -- table

    def add_meld(self, side: int, cs: Sequence[Card], owner: int = -1, concealed: bool = False,
                 where: str = "meld") -> None:
        self.use(cs, where)
        self.melds[side].append({"cards": [card_str(c) for c in cs], "owner": owner, "concealed": concealed})

    def game(self) -> Game:
        pos: dict[str, Any] = dict(self.extra)
        pos["rules"] = self.rules.to_dict()
        pos["hands"] = [[card_str(c) for c in h] for h in self.hands]
        pos["melds"] = self.melds
        pos["pile"] = [card_str(c) for c in self.pile]
        if self.stock is not None:
            rest = sorted(self.left.elements())
            others = [s for s in range(self.n) if s != PLAYER]
            hands = [h[:] for h in self.hands]
            red3 = [r[:] for r in self.red3]
            for i, c in enumerate(c for c in rest if not IS_RED_THREE[c]):
                hands[others[i % len(others)]].append(c)
            red3[others[0]].extend(c for c in rest if IS_RED_THREE[c])
            pos["hands"] = [[card_str(c) for c in h] for h in hands]
            pos["red_threes"] = [[card_str(c) for c in r] for r in red3]
            pos["stock"] = [card_str(c) for c in self.stock]
        else:
            pos["red_threes"] = [[card_str(c) for c in r] for r in self.red3]
            pos["stock_top"] = [card_str(c) for c in self.stock_top]
        return game_from_position(pos)


def build_table(case: Mapping[str, Any], phase: str = "meld") -> Table:
    """The table every position-based adapter starts from (see the module docstring)."""
    rules = rules_of(case)
    setup: Mapping[str, Any] = case["setup"]
    t = Table(rules, setup, phase)
    score = setup.get("side_cumulative_score", setup.get("side_cumulative_score_at_start_of_hand"))
    if score is not None:
        t.extra["scores"][0] = int(score)
    # the side's melds
    for key in ("side_melds", "player_side_melds"):
        for md in setup.get(key) or []:
            t.add_meld(0, cards(md), where=key)
    if "existing_side_meld" in setup:
        t.add_meld(0, cards(setup["existing_side_meld"]), where="existing_side_meld")
    for md in setup.get("partner_melds") or []:
        t.add_meld(0, cards(md), owner=t.partner, where="partner_melds")
    for md in setup.get("opponent_melds") or []:
        t.add_meld(1, cards(md), where="opponent_melds")
    # canastas the side must hold
    want = setup.get("side_canastas", setup.get("player_canastas"))
    if want is None and setup.get("side_has_canasta") is True:
        want = 1
    if want is not None:
        held = sum(1 for md in t.melds[0]
                   if len(md["cards"]) >= 7 and not any(IS_BLACK_THREE[c] for c in cards(md["cards"])))
        for _ in range(int(want) - held):
            t.add_meld(0, t.spare_meld(7), where="filler canasta")
    # the side has melded before (the player, the partner, or unspecified)
    if setup.get("player_has_melded_before_this_turn"):
        t.extra["has_melded"][PLAYER] = True
        if not any(md["owner"] == PLAYER for md in t.melds[0]):
            t.add_meld(0, t.spare_meld(3), owner=PLAYER, where="filler meld")
    if setup.get("player_added_to_partner_melds_before"):
        t.extra["added_to_partner"][PLAYER] = True
        if not any(md["owner"] == t.partner for md in t.melds[0]):
            t.add_meld(0, t.spare_meld(3), owner=t.partner, where="filler meld")
    melded = setup.get("side_has_melded", setup.get("side_has_made_any_meld"))
    if melded is True and not t.melds[0]:
        # melds unspecified: a canasta, so that A.12.2 (no going out without one) never
        # decides a case about another rule; a plain meld when the case rules canastas out
        no_canasta = setup.get("side_has_canasta") is False or want == 0
        t.add_meld(0, t.spare_meld(3 if no_canasta else 7), where="filler meld")
    if melded is False:
        assert not t.melds[0], "case setup: the side has not melded but melds are listed"
    # the player's hand, the pile, the stock, red threes
    hand = setup.get("player_hand", setup.get("player_hand_after_draw", setup.get("player_hand_at_end")))
    if hand is not None:
        t.hands[PLAYER] = t.use(cards(hand), "player_hand")
    if "discard_pile_bottom_to_top" in setup:
        t.pile = t.use(cards(setup["discard_pile_bottom_to_top"]), "pile")
    if "pile_frozen" in setup:
        t.extra["pile_frozen"] = bool(setup["pile_frozen"])
    if "stock" in setup:
        t.stock = t.use(cards(setup["stock"]), "stock")
    top = setup.get("stock_top", setup.get("stock_top_sequence"))
    if top is not None:
        t.stock_top = t.use(cards(top), "stock_top")
    if "side_red_threes" in setup:
        t.red3[PLAYER] = t.red_threes(int(setup["side_red_threes"]))
    # e.g. side_has_king_meld: three natural kings, from what the named cards left
    for key, value in setup.items():
        m = _SIDE_HAS_RANK_MELD.match(key)
        if m and value is True:
            rank = rank_from_word(m.group(1))
            t.add_meld(0, [c for c in RANK_CARDS[rank] for _ in range(t.left[c])][:3], where=key)
    return t


def legal(game: Game, move: Move) -> bool:
    return move in game.legal_moves


def reason(game: Game, move: Move) -> str:
    err = game.why_illegal(move)
    return "legal" if err is None else f"{err} [{err.code}]"


def generated(game: Game, ck: Checks | None = None, kind: int | None = None) -> list[Move]:
    """The generated legal moves (of one kind); each one must also pass ``why_illegal``."""
    out = []
    for m in game.legal_moves:
        err = game.why_illegal(m)
        if err is not None:
            if ck is not None:
                ck.true(f"legal_moves yields '{m}', but push would reject it", False, f"{err} [{err.code}]")
            continue
        if kind is None or m.kind == kind:
            out.append(m)
    return out


def takes(game: Game, ck: Checks | None = None) -> list[Move]:
    return generated(game, ck, TAKE)


def move_size(m: Move) -> int:
    return sum(len(group_cards(g)) for g in m.groups)


def find_going_out(game: Game, depth: int = 4, budget: int = 4000) -> tuple[list[Move] | None, bool]:
    """A sequence of legal meld moves and a final discard that empties the hand of the
    player to move (largest melds first), and whether the search was complete."""
    seat = game.turn
    spent = [0]

    def rec(d: int) -> list[Move] | None:
        moves = [m for m in game.legal_moves
                 if m.kind == MELD or (m.kind == DISCARD and game.hsize[seat] == 1)]
        moves.sort(key=lambda m: (m.kind == DISCARD, -move_size(m)))
        for m in moves:
            spent[0] += 1
            if spent[0] > budget:
                return None
            game.push(m)
            try:
                if game.went_out == seat:
                    return [m]
                if m.kind == MELD and d > 1 and not game.is_over():
                    rest = rec(d - 1)
                    if rest is not None:
                        return [m, *rest]
            finally:
                game.pop()
        return None

    path = rec(depth)
    return path, spent[0] <= budget


def side_bonus_without_fillers(game: Game, t: Table, side: int) -> tuple[int, list[int]]:
    items = [canasta_bonus(game.rules, m) for m in game.side_melds(side)
             if m.rank not in t.filler_ranks and canasta_bonus(game.rules, m)]
    return sum(items), sorted(items)


# ---------------------------------------------------------------------------- adapters

Adapter = Callable[[Mapping[str, Any], Checks], None]
ADAPTERS: dict[str, Adapter] = {}


def adapter(name: str) -> Callable[[Adapter], Adapter]:
    def register(fn: Adapter) -> Adapter:
        ADAPTERS[name] = fn
        return fn
    return register


@adapter("validate_new_meld")
def _validate_new_meld(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = rules_of(case)
    t = build_table(case)
    if "new_meld" in setup:
        meld = cards(setup["new_meld"])
        going_out = bool(setup.get("player_is_going_out_this_turn", False))
        # a pure rule: the helper, and the same meld laid at a real table
        try:
            validate_new_meld(rules, meld, going_out=going_out)
            pure = True
        except IllegalMoveError:
            pure = False
        if "legal" in exp:
            ck.eq("melds.validate_new_meld(...) legal", pure, exp["legal"])
        if any(IS_RED_THREE[c] for c in meld):
            ck.true("red threes are never held, so no table can hold this meld", not exp.get("legal", False))
            return
        if not t.melds[0]:
            t.add_meld(0, t.spare_meld(7), where="filler canasta")  # opened, and may go out
        t.hands[PLAYER] = t.use(meld, "new_meld") + ([] if going_out else t.spare_naturals(2))
        game = t.game()
        move = Move.meld(tuple(meld))
        on_table = legal(game, move)
        if "legal" in exp:
            ck.eq(f"'{move}' in legal_moves ({reason(game, move)})", on_table, exp["legal"])
        if on_table:
            before = len(game.side_melds(0))
            game.push(move)
            if going_out:
                ck.true("going out by melding the whole hand", game.went_out == PLAYER,
                        f"went_out={game.went_out}")
            ck.true("the meld is laid as a new meld", len(game.side_melds(0)) == before + 1)
        return
    # a meld attempted at a table where the side already has melds (A.5.7)
    if not t.hands[PLAYER]:
        raise AssertionError("validate_new_meld needs 'new_meld' or a player hand")
    attempt = card_tokens(str(setup.get("attempt", "")))
    assert attempt, "cannot tell which cards the case attempts to meld"
    game = t.game()
    move = Move.meld(tuple(attempt))
    melds_before = len(game.side_melds(0))
    ok = legal(game, move)
    if "legal" in exp:
        ck.eq(f"'{move}' in legal_moves ({reason(game, move)})", ok, exp["legal"])
    if not ok:
        if exp.get("legal_as_separate_meld") is True:
            ck.true("the attempted meld is legal", False, reason(game, move))
        return
    game.push(move)
    after = game.side_melds(0)
    rank = CARD_RANK[next(c for c in attempt if not IS_WILD[c])]
    separate = len(after) == melds_before + 1 and msort(attempt) in [msort(m.cards) for m in after]
    if "legal_as_separate_meld" in exp:
        ck.eq("the attempted cards formed a separate new meld", separate, exp["legal_as_separate_meld"])
    ck.true("at most one meld per rank (A.5.7)", len({m.rank for m in after}) == len(after))
    if "resulting_side_melds" in exp:
        ck.eq("side melds after the move", sorted(msort(m.cards) for m in after),
              sorted(msort(cards(md)) for md in exp["resulting_side_melds"]), as_cards=True)
    target = next(m for m in after if m.rank == rank)
    _compare_meld(ck, rules, target, exp)


def _compare_meld(ck: Checks, rules: RuleSet, m: Meld, exp: Mapping[str, Any]) -> None:
    """Compare a real meld with resulting_meld / is_canasta / canasta_type / concealed / bonus / points."""
    side = score_side(rules, [m], 0, True, [], False, False)
    bonus = canasta_bonus(rules, m)
    if "resulting_meld" in exp:
        ck.eq("resulting meld", msort(m.cards), msort(cards(exp["resulting_meld"])), as_cards=True)
    if "is_canasta" in exp:
        ck.eq("is_canasta", m.is_canasta and m.rank != THREE, exp["is_canasta"])
    if "canasta_type" in exp:
        kind = canasta_kind(m) if (m.is_canasta and m.rank != THREE) else None
        ck.eq("canasta_type", kind, exp["canasta_type"])
    if "concealed" in exp:
        ck.eq("concealed canasta", m.concealed and m.is_canasta and m.rank != THREE, exp["concealed"])
    if "bonus" in exp:
        ck.eq("canasta bonus", bonus, exp["bonus"])
        ck.eq("scoring.score_side canasta_bonuses", side.canasta_bonuses, exp["bonus"])
    if "card_points" in exp:
        ck.eq("card points", side.meld_points, exp["card_points"])
    if "total" in exp:
        ck.eq("total", side.meld_points + side.canasta_bonuses, exp["total"])
    # the pure helper agrees with the table's meld
    if {"bonus", "card_points"} <= set(exp):
        info = classify(rules, m.cards, concealed=m.concealed)
        ck.eq("melds.classify(...) bonus", info["bonus"], exp["bonus"])
        ck.eq("melds.classify(...) card_points", info["card_points"], exp["card_points"])


@adapter("validate_add_to_meld")
def _validate_add_to_meld(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_table(case)
    add = cards(setup["cards_to_add"])
    t.hands[PLAYER] = t.use(add, "cards_to_add") + t.spare_naturals(2)
    game = t.game()
    rank = CARD_RANK[next(c for c in cards(setup["existing_side_meld"]) if not IS_WILD[c])]
    target = game.melds[0][rank]
    move = Move.meld(make_group(add, target.rank))
    ok = legal(game, move)
    ck.eq(f"'{move}' in legal_moves ({reason(game, move)})", ok, exp["legal"])
    if ok:
        game.push(move)
        grown = game.melds[0][target.rank]
        if "resulting_size" in exp:
            ck.eq("resulting size", grown.size, exp["resulting_size"])
        _compare_meld(ck, game.rules, grown, exp)


@adapter("validate_add_to_opponent_meld")
def _validate_add_to_opponent_meld(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    t = build_table(case)
    game = t.game()
    hand = game.hand(PLAYER)
    reached = False
    tried: list[str] = []
    for opp in game.side_melds(1):
        fit = [c for c in hand if CARD_RANK[c] == opp.rank] or [c for c in hand if IS_WILD[c]]
        if not fit:
            continue
        move = Move.meld(make_group(fit, opp.rank))
        tried.append(f"{move}: {reason(game, move)}")
        if legal(game, move):
            snapshot = msort(opp.cards)
            game.push(move)
            reached = reached or msort(game.melds[1][opp.rank].cards) != snapshot
            game.pop()
    ck.eq(f"cards reached an opponents' meld ({'; '.join(tried) or 'no fitting card'})", reached, exp["legal"])


@adapter("classify_and_score_meld")
def _classify_and_score_meld(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_table(case)
    if "meld" in setup:
        whole = cards(setup["meld"])
        if not t.melds[0]:
            t.add_meld(0, t.spare_meld(3), where="filler meld")  # opened: no minimum count in the way
        if setup.get("laid_complete_from_hand"):
            # laid in one action from the hand
            t.hands[PLAYER] = t.use(whole, "meld") + t.spare_naturals(2)
            groups = [tuple(whole)]
        else:
            # built up on the table: the first three cards (naturals first) were laid earlier
            order = sorted(whole, key=lambda c: IS_WILD[c])
            t.add_meld(0, order[:3], where="meld (already on the table)")
            t.hands[PLAYER] = t.use(order[3:], "meld (added now)") + t.spare_naturals(2)
            groups = [make_group(order[3:], CARD_RANK[order[0]])] if order[3:] else []
        rank = CARD_RANK[next(c for c in whole if not IS_WILD[c])]
    else:
        add = cards(setup["cards_added_this_turn"])
        t.hands[PLAYER] = t.use(add, "cards_added_this_turn") + t.spare_naturals(2)
        rank = CARD_RANK[next(c for c in add if not IS_WILD[c])]
        groups = [make_group(add, rank)]
    game = t.game()
    if groups:
        move = Move.meld(*groups)
        ck.true(f"'{move}' is legal", legal(game, move), reason(game, move))
        if not legal(game, move):
            return
        game.push(move)
    _compare_meld(ck, game.rules, game.melds[0][rank], exp)


@adapter("take_discard_pile_and_meld")
def _take_discard_pile_and_meld(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    t = build_table(case, phase="draw")
    game = t.game()
    top = game.pile[-1]
    if "new_meld" in exp:
        move = Move.take(tuple(minus(cards(exp["new_meld"]), [top])))
        ok = legal(game, move)
        ck.eq(f"'{move}' in legal_moves ({reason(game, move)})", ok, exp.get("allowed", True))
    else:
        options = sorted(takes(game, ck), key=lambda m: -move_size(m))
        ok = bool(options)
        ck.eq("some take of the pile is legal", ok, exp.get("allowed", True))
        move = options[0] if options else Move.take()
    if not ok:
        return
    game.push(move)
    _compare_meld(ck, game.rules, game.melds[0][CARD_RANK[top]],
                  {k: v for k, v in exp.items() if k != "new_meld"} | (
                      {"resulting_meld": exp["new_meld"]} if "new_meld" in exp else {}))


@adapter("query_initial_meld_minimum")
def _query_initial_meld_minimum(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = rules_of(case)
    score = int(setup["side_cumulative_score_at_start_of_hand"])
    game = Game(rules, seed=1, scores=[score] + [0] * (Game(rules, deal=False).score_slots - 1))
    ck.eq("game.minimum(seat 0)", game.minimum(PLAYER), exp["minimum_count"])
    ck.eq("rules.minimum_for(score)", rules.minimum_for(score), exp["minimum_count"])


@adapter("validate_initial_meld")
def _validate_initial_meld(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_table(case)
    groups = [cards(md) for md in setup["melds_laid_this_turn"]]
    laid = [c for g in groups for c in g]
    keep = int(setup.get("cards_left_in_hand_after_melding", 2))
    t.hands[PLAYER] = t.use(laid, "melds_laid_this_turn") + t.spare_naturals(keep)
    game = t.game()
    move = Move.meld(*(tuple(g) for g in groups))
    ok = legal(game, move)
    count = sum(CARD_VALUE[c] for c in laid)  # no engine query for the count: see the report
    if "count" in exp:
        ck.eq("initial-meld count (A.2 values of the cards laid)", count, exp["count"])
    if "minimum" in exp:
        ck.eq("game.minimum(seat 0)", game.minimum(PLAYER), exp["minimum"])
    ck.eq(f"'{move}' in legal_moves ({reason(game, move)})", ok, exp["valid"])
    err = game.why_illegal(move)
    if not ok and err is not None and "count" in exp and "minimum" in exp and exp["count"] < exp["minimum"]:
        ck.eq("why_illegal code", err.code, "INITIAL_MELD_TOO_LOW")


@adapter("validate_take_pile_for_initial_meld")
def _validate_take_pile_for_initial_meld(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_table(case, phase="draw")
    game = t.game()
    head: tuple[Card, ...] = ()
    extra: list[tuple[Card, ...]] = []
    counted: list[Card] = []
    for md in setup["planned_melds"]:
        toks = [str(s) for s in md]
        group = [parse_card(s.replace("(top)", "").strip()) for s in toks if "(top)" not in s]
        counted += [parse_card(s.replace("(top)", "").strip()) for s in toks]
        if any("(top)" in s for s in toks):
            head = tuple(group)
        else:
            extra.append(tuple(group))
    move = Move.take(head, *extra)
    ok = legal(game, move)
    ck.eq(f"'{move}' in legal_moves ({reason(game, move)})", ok, exp["can_take"])
    if "count" in exp:
        ck.eq("initial-meld count (top card + hand cards)", sum(CARD_VALUE[c] for c in counted), exp["count"])
    if "minimum" in exp:
        ck.eq("game.minimum(seat 0)", game.minimum(PLAYER), exp["minimum"])
    err = game.why_illegal(move)
    if not ok and err is not None and "count" in exp and "minimum" in exp and exp["count"] < exp["minimum"]:
        ck.eq("why_illegal code", err.code, "INITIAL_MELD_TOO_LOW")


# -- deals


def _deal_stats(game: Game) -> tuple[list[int], int, int]:
    """(cards per seat, stock size before the upcard, cards in the whole table)."""
    red = sum(len(r) for r in game.red3)
    before_upcard = len(game.stock) + len(game.pile) + red  # replacements came from the stock
    total = sum(game.hsize) + red + len(game.pile) + len(game.stock)
    return list(game.hsize), before_upcard, total


@adapter("deal")
def _deal(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = rules_of(case)
    if "players" in setup:
        ck.eq("rules.players", rules.players, setup["players"])
    if "deck_size" in setup:
        ck.eq("rules.deck_size", rules.deck_size, setup["deck_size"])
    if "teams" in setup:
        ck.eq("number of sides", len(rules.teams), setup["teams"])
    dealer = SEATS.get(str(setup.get("dealer", "North")), 0)
    for seed in range(8):
        game = Game(rules, seed, dealer=dealer)
        sizes, before_upcard, total = _deal_stats(game)
        label = f"seed {seed}: "
        if "cards_per_player" in exp:
            ck.eq(label + "cards per player", sizes, [exp["cards_per_player"]] * rules.players)
        if "stock_size_before_upcard" in exp:
            ck.eq(label + "stock size before the upcard", before_upcard, exp["stock_size_before_upcard"])
        if "deck_size" in exp:
            ck.eq(label + "cards on the table", total, exp["deck_size"])
        if "jokers" in exp:
            jokers = sum(h[JOKER] for h in game.hands) + game.pile.count(JOKER) + game.stock.count(JOKER)
            ck.eq(label + "jokers", jokers, exp["jokers"])
        if isinstance(exp.get("first_player"), str):
            first = seat_of(exp["first_player"], dealer, rules.players)
            if first is not None:
                ck.eq(label + "first player", game.turn, first)
    if isinstance(exp.get("next_dealer"), str):
        nxt = seat_of(exp["next_dealer"], dealer, rules.players)
        if nxt is not None:
            match = Match(rules, seed=0, first_dealer=dealer)
            ck.eq("Match.dealer_of(hand 2)", match.dealer_of(2), nxt)


def _red_threes_in(hand: Sequence[int]) -> list[Card]:
    return [c for c in RED_THREES for _ in range(hand[c])]


def _stock_seen(obs: Game, k0: int, after_upcard: bool) -> list[Card | None]:
    """The stock before red-three replacements, top first; ``None`` for the first
    player's replacement draws, which are not observable."""
    head: list[Card | None] = [] if after_upcard else list(obs.pile)
    return head + [None] * k0 + list(obs.stock[::-1])


@adapter("resolve_dealt_red_threes")
def _resolve_dealt_red_threes(case: Mapping[str, Any], ck: Checks) -> None:
    """A real deal of the case's shape.  The same deal under C-O8 = on_first_turn keeps
    every dealt red three in hand except the first player's, whose red threes are laid
    out (and replaced, first of all) as that turn begins, exactly as under the default.
    So the stock before the replacements is known from the first player's draws on:
    ``T = [first player's replacements] + obs.stock``.  The first player's replacement
    cards themselves cannot be observed (see the report), only their number."""
    setup, exp = case["setup"], case["expected"]
    rules = rules_of(case)
    pending_rules = rules.with_options({"C-O8": "on_first_turn"})
    dealer = SEATS[str(setup.get("dealer", "North"))]
    first = (dealer + 1) % rules.players
    dealt = {SEATS[k]: msort(cards(v)) for k, v in (setup.get("dealt_red_threes") or {}).items()}
    want = cards(setup.get("stock_top_sequence", []))
    after_upcard = bool(setup.get("upcard_already_turned", True))
    found: tuple[int, Game, int] | None = None
    for seed in range(SEED_LIMIT):
        obs = Game(pending_rules, seed, dealer=dealer)
        if any(msort(_red_threes_in(obs.hands[s])) != dealt.get(s, []) for s in range(rules.players) if s != first):
            continue
        k0 = len(obs.red3[first])  # cards the first player drew as replacements
        if msort(obs.red3[first]) != dealt.get(first, []):
            continue  # (also rules out a red three drawn as the first player's replacement)
        # the stock as the case lists it: [upcard cards] + first player's draws + the rest
        if same_shape(_stock_seen(obs, k0, after_upcard), want):
            found = (seed, obs, k0)
            break
    assert found is not None, "no deal of this shape found; raise SEED_LIMIT"
    seed, obs, k0 = found
    seq = _stock_seen(obs, k0, after_upcard)
    mapping = {s: a for s, a in zip(want, seq, strict=False) if a is not None}
    unknown = {s for s, a in zip(want, seq, strict=False) if a is None}

    def mapped(strs: Iterable[str]) -> list[Card]:
        return msort(mapping.get(c, c) for c in cards(strs))

    game = Game(rules, seed, dealer=dealer)
    for name, seat in SEATS.items():
        if seat >= rules.players or not isinstance(exp.get(name), Mapping):
            continue
        e = exp[name]
        if "red_threes_laid_out" in e:
            own = dealt.get(seat, [])
            drawn = minus(cards(e["red_threes_laid_out"]), own)  # red threes drawn as replacements
            ck.eq(f"{name}: red threes laid out before the first turn", msort(game.red3[seat]),
                  msort(own + mapped(card_str(c) for c in drawn)), as_cards=True)
        if "replacement" in e:
            want_rep = cards(e["replacement"])
            if seat == first:
                ck.eq(f"{name} (first player): number of replacement cards drawn", k0, len(want_rep))
                ck.true(f"{name} (first player): the case's replacements are the first stock cards",
                        set(want_rep) <= unknown or not want_rep)
                ck.eq(f"{name} (first player): hand as on the first turn", game.hand(seat), obs.hand(seat), as_cards=True)
            else:
                got = minus(game.hand(seat), [c for c in obs.hand(seat) if not IS_RED_THREE[c]])
                ck.eq(f"{name}: replacement cards", got, mapped(e["replacement"]), as_cards=True)
    if "stock_top_before_first_turn" in exp:
        ck.eq("stock top before the first turn", game.stock[-1], mapped([exp["stock_top_before_first_turn"]])[0], as_cards=True)
    if isinstance(exp.get("first_player"), str):
        named = seat_of(exp["first_player"], dealer, rules.players)
        if named is not None:
            ck.eq("first player", game.turn, named)


@adapter("turn_initial_upcard")
def _turn_initial_upcard(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = rules_of(case)
    want = cards(setup["stock_top_sequence_after_deal"])
    # Under C-O8 = on_first_turn only the first player's red threes are replaced before
    # the first turn; a deal where that player was dealt none shows the stock exactly
    # as the upcard procedure left it.  The upcard procedure is the same under both.
    pending_rules = rules.with_options({"C-O8": "on_first_turn"})
    found: tuple[int, Game] | None = None
    for seed in range(SEED_LIMIT):
        obs = Game(pending_rules, seed)
        if obs.red3[obs.turn]:
            continue
        if same_shape(obs.pile + obs.stock[::-1], want):  # the stock as it was before the upcard
            found = (seed, obs)
            break
    assert found is not None, "no deal of this shape found; raise SEED_LIMIT"
    seed, obs = found
    game = Game(rules, seed)
    mapping = {s: a for s, a in zip(want, obs.pile + obs.stock[::-1], strict=False)}

    def m1(s: str) -> Card:
        c = parse_card(s)
        return mapping.get(c, c)

    if "discard_pile_bottom_to_top" in exp:
        ck.eq("discard pile", game.pile, [m1(s) for s in exp["discard_pile_bottom_to_top"]], as_cards=True)
    if "top_card" in exp:
        ck.eq("top card", game.pile[-1], m1(exp["top_card"]), as_cards=True)
    if "pile_frozen_for_both_sides" in exp:
        ck.eq("pile frozen (by its cards, for both sides)", game.pile_frozen, exp["pile_frozen_for_both_sides"])
    if "frozen_by" in exp:
        ck.true("pile frozen by a card in it", game.pile_frozen and m1(exp["frozen_by"]) in game.pile,
                f"pile {cards_str(game.pile)}, frozen={game.pile_frozen}")
    if "stock_next_card" in exp:
        ck.eq("next stock card after the upcard", obs.stock[-1], m1(exp["stock_next_card"]), as_cards=True)
    if "first_player_may_take_pile" in exp:
        may = game.pile_block_reason() is None
        ck.eq(f"pile not blocked for the first player ({game.pile_block_reason()})", may,
              exp["first_player_may_take_pile"])
        if not exp["first_player_may_take_pile"]:
            ck.eq("takes among the first player's legal moves", takes(game, ck), [])


# -- the discard pile


@adapter("can_take_discard_pile")
def _can_take_discard_pile(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    game = build_table(case, phase="draw").game()
    options = takes(game, ck)
    ck.eq(f"a take is among the legal moves ({', '.join(map(str, options)) or 'none'})",
          bool(options), exp["can_take"])
    if "pile_frozen" in exp:
        ck.eq("pile frozen against the player's side", game.pile_frozen_for(game.side_of[PLAYER]),
              exp["pile_frozen"])


def _make_pile(t: Table, size: int) -> None:
    """A pile of ``size`` natural cards that the player can take with a natural pair."""
    t.pile = t.spare_naturals(size)
    rank = CARD_RANK[t.pile[-1]]
    pair = [c for c in RANK_CARDS[rank] for _ in range(t.left[c])][:2]
    t.hands[PLAYER] = t.use(pair, "natural pair") + t.hands[PLAYER]


@adapter("take_discard_pile")
def _take_discard_pile(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_table(case, phase="draw")
    if not t.melds[0] and "side_has_melded" not in setup:
        t.add_meld(0, t.spare_meld(7), where="filler canasta")
    if not t.pile:
        _make_pile(t, int(setup.get("pile_size", 3)))
    if not t.hands[PLAYER]:
        t.hands[PLAYER] = t.spare_naturals(2)
    game = t.game()
    pile_before, stock_before, red_before = list(game.pile), len(game.stock), list(game.red3[PLAYER])
    options = sorted(takes(game, ck), key=lambda m: -move_size(m))
    ck.eq("a take is among the legal moves", bool(options), exp.get("allowed", True))
    if not options:
        return
    game.push(options[0])
    if "cards_taken_from_pile" in exp:
        ck.eq("cards taken from the pile", len(pile_before) - len(game.pile), exp["cards_taken_from_pile"])
    if "cards_taken_from_stock" in exp:
        ck.eq("cards taken from the stock", stock_before - len(game.stock), exp["cards_taken_from_stock"])
    if "stock_top_after" in exp:
        ck.eq("stock top after", game.stock[-1], parse_card(exp["stock_top_after"]), as_cards=True)
    new_red = minus(game.red3[PLAYER], red_before)
    for key, value in exp.items():
        m = re.fullmatch(r"red_three_(\w+)_goes_to_side_red_threes", key)
        if m:
            ck.eq(f"{m.group(1)} among the side's red threes", parse_card(m.group(1)) in new_red, value)
        m = re.fullmatch(r"replacement_card_drawn_for_(\w+)", key)
        if m:
            ck.eq(f"a replacement was drawn for {m.group(1)}", len(game.stock) < stock_before, value)


@adapter("query_pile_frozen_after")
def _query_pile_frozen_after(case: Mapping[str, Any], ck: Checks) -> None:
    """Events in prose, read as: 'takes the pile' (with a natural pair of the top card's
    rank) and 'discards <card>'.  The taker must end the turn with a discard, so the
    first discard after a take is made by the taker; each later discard by the next
    seat, after drawing."""
    setup, exp = case["setup"], case["expected"]
    t = build_table(case, phase="draw")
    for side in range(t.nsides):  # "melded sides"
        if not t.melds[side]:
            t.add_meld(side, t.spare_meld(3), where="filler meld")
    event = str(setup.get("event", ""))
    steps: list[tuple[str, Card | None]] = []
    for clause in re.split(r";|\bthen\b", event):
        if re.search(r"\btakes? the pile\b", clause):
            steps.append(("take", None))
        for tok in re.findall(r"\bdiscards?\s+(\S+)", clause):
            steps.append(("discard", parse_card(tok)))
    assert steps, f"no event understood in {event!r}"
    seat = PLAYER
    if steps[0][0] == "take":
        rank = CARD_RANK[t.pile[-1]]
        pair = [c for c in RANK_CARDS[rank] for _ in range(t.left[c]) if IS_NATURAL[c]][:2]
        t.hands[PLAYER] = t.use(pair, "natural pair") + t.spare_naturals(2)
    else:
        t.extra["phase"] = "meld"
    first_discard = True
    for kind, card in steps:
        if kind == "discard":
            assert card is not None
            if not first_discard:
                seat = (seat + 1) % t.n
            t.hands[seat] += t.use([card], "event discard")
            first_discard = False
    game = t.game()
    for kind, card in steps:
        if kind == "take":
            options = takes(game, ck)
            ck.true("the pile can be taken", bool(options))
            if not options:
                break
            game.push(options[0])
        else:
            assert card is not None
            if game.phase == DRAW_PHASE:
                game.push(Move.draw())
            move = Move.discard(card)
            ck.true(f"'{move}' is legal", legal(game, move), reason(game, move))
            game.push(move)
    if "pile_bottom_to_top" in exp:
        ck.eq("pile", game.pile, cards(exp["pile_bottom_to_top"]), as_cards=True)
    if "pile_frozen_for_melded_sides" in exp:
        for side in range(game.num_sides):
            ck.eq(f"pile frozen against side {side}", game.pile_frozen_for(side), exp["pile_frozen_for_melded_sides"])


# -- red threes and drawing


@adapter("score_red_threes")
def _score_red_threes(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    t = build_table(case)
    t.extra["phase"] = "over"
    game = t.game()
    result = game.result
    assert result is not None
    ck.eq("result red_threes", result[0].red_threes, exp["points"])
    side = game.side_of[PLAYER]
    has_canasta = game.side_canastas(side) > 0
    ck.eq("scoring.red_three_score(...)",
          red_three_score(game.rules, len(game.side_red_threes(side)), game.opened[side], has_canasta),
          exp["points"])
    if "side_counts_as_melded" in exp:
        ck.eq("the side counts as melded", game.opened[side], exp["side_counts_as_melded"])


@adapter("draw_from_stock")
def _draw_from_stock(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_table(case, phase="draw")
    size = int(setup.get("player_hand_size_before", t.rules.hand_size))
    t.hands[PLAYER] = t.hands[PLAYER] + t.spare_naturals(size - len(t.hands[PLAYER]))
    game = t.game()
    hand0, red0 = game.hand(PLAYER), list(game.side_red_threes(0))
    move = Move.draw()
    ck.true("draw is legal", legal(game, move), reason(game, move))
    game.push(move)
    red_added = minus(game.side_red_threes(0), red0)
    for key in ("side_red_threes_added", "red_threes_laid_out"):
        if key in exp:
            ck.eq(key, red_added, msort(cards(exp[key])), as_cards=True)
    if "cards_added_to_hand" in exp:
        ck.eq("cards added to the hand", minus(game.hand(PLAYER), hand0), msort(cards(exp["cards_added_to_hand"])), as_cards=True)
    if "player_hand_size_after" in exp:
        ck.eq("hand size after", game.hsize[PLAYER], exp["player_hand_size_after"])
    if "stock_top_after" in exp:
        ck.eq("stock top after", game.stock[-1], parse_card(exp["stock_top_after"]), as_cards=True)


# -- going out and the end of the play


@adapter("can_go_out")
def _can_go_out(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_table(case)
    if not t.hands[PLAYER]:
        if setup.get("player_can_otherwise_meld_all_cards", True):
            t.hands[PLAYER] = t.use(t.spare_meld(3), "hand") + t.spare_naturals(1)  # a new meld, then a discard
            t.filler_ranks.clear()
        else:
            t.hands[PLAYER] = t.spare_naturals(2)
    game = t.game()
    ck.eq("game.can_go_out()", game.can_go_out(), exp["can_go_out"])
    path, complete = find_going_out(game)
    if complete or path is not None:
        ck.eq("a going-out sequence exists among the legal moves "
              f"({' ; '.join(map(str, path)) if path else 'none'})", path is not None, exp["can_go_out"])


@adapter("go_out")
def _go_out(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    t = build_table(case)
    game = t.game()
    ck.eq("game.can_go_out()", game.can_go_out(), exp["legal"])
    if "melds" in exp:
        path = [Move.meld(*(tuple(cards(md)) for md in exp["melds"]))]
        if exp.get("discard"):
            path.append(Move.discard(parse_card(exp["discard"])))
        done = True
        for move in path:
            if not legal(game, move):
                done = False
                ck.eq(f"'{move}' is legal ({reason(game, move)})", False, exp["legal"])
                break
            game.push(move)
        if done:
            ck.eq("went out", game.went_out == PLAYER, exp["legal"])
    else:
        found, complete = find_going_out(game)
        if complete or found is not None:
            ck.eq("a going-out sequence exists among the legal moves", found is not None, exp["legal"])
        for move in found or []:
            game.push(move)
    if game.went_out != PLAYER:
        return
    result = game.result
    assert result is not None
    if "concealed" in exp:
        ck.eq("went out concealed", game.out_concealed, exp["concealed"])
    if "going_out_bonus" in exp:
        ck.eq("going-out bonus", result[0].going_out, exp["going_out_bonus"])
    if "canasta_bonuses" in exp:
        total, items = side_bonus_without_fillers(game, t, 0)
        ck.eq("canasta bonuses", total, bonus_total(exp["canasta_bonuses"]))
        if bonus_items(exp["canasta_bonuses"]) is not None:
            ck.eq("canasta bonuses, one by one", items, bonus_items(exp["canasta_bonuses"]))


def _turn_ends(game: Game) -> bool:
    """Whether the play ends now: the hand is over, or only 'end' remains (after optional melds)."""
    if game.is_over():
        return True
    kinds = {m.kind for m in game.legal_moves}
    if DISCARD in kinds or TAKE in kinds or Move.draw() in game.legal_moves:
        return False
    probe = game.copy()
    end = Move.end()
    if end not in probe.legal_moves:
        return False
    probe.push(end)
    return probe.is_over()


@adapter("draw_last_stock_card")
def _draw_last_stock_card(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    t = build_table(case, phase="draw")
    game = t.game()
    red0 = list(game.red3[PLAYER])
    move = Move.draw()
    ck.true("draw is legal", legal(game, move), reason(game, move))
    game.push(move)
    moves = generated(game, ck)
    if "red_three_laid_out" in exp:
        ck.eq("a red three was laid out", bool(minus(game.red3[PLAYER], red0)), exp["red_three_laid_out"])
    if "may_meld" in exp:
        ck.eq(f"a meld among the legal moves ({', '.join(map(str, moves)) or 'none'})",
              any(m.kind == MELD for m in moves), exp["may_meld"])
    if "may_discard" in exp:
        ck.eq("a discard among the legal moves", any(m.kind == DISCARD for m in moves), exp["may_discard"])
    if "play_ends" in exp:
        ck.eq("the play ends", _turn_ends(game), exp["play_ends"])
    if "going_out_bonus_awarded" in exp:
        if not game.is_over() and Move.end() in game.legal_moves:
            game.push(Move.end())
        result = game.result
        ck.true("the hand is over", result is not None)
        if result is not None:
            ck.eq("a going-out bonus was awarded", any(s.going_out for s in result), exp["going_out_bonus_awarded"])


@adapter("resolve_turn_with_empty_stock")
def _resolve_turn_with_empty_stock(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    t = build_table(case, phase="draw")
    game = t.game()
    options = takes(game, ck)
    may_end = Move.end() in game.legal_moves
    if "must_take_discard" in exp:
        ck.eq(f"a take is forced ({', '.join(map(str, game.legal_moves))})",
              bool(options) and not may_end, exp["must_take_discard"])
    if "can_take_discard" in exp:
        ck.eq("a take is among the legal moves", bool(options), exp["can_take_discard"])
    if options:
        game.push(options[0])
        if "play_continues" in exp:
            ck.eq("the play continues after taking", not game.is_over(), exp["play_continues"])
        if "play_ends" in exp:
            ck.eq("the play ends", game.is_over(), exp["play_ends"])
        return
    if "play_continues" in exp:
        ck.eq("the play continues", not _turn_ends(game), exp["play_continues"])
    if "play_ends" in exp:
        ck.eq("the play ends", _turn_ends(game), exp["play_ends"])
    if "going_out_bonus_awarded" in exp:
        if may_end:
            game.push(Move.end())
        result = game.result
        ck.true("the hand is over", result is not None)
        if result is not None:
            ck.eq("a going-out bonus was awarded", any(s.going_out for s in result), exp["going_out_bonus_awarded"])


# -- scoring and the match


@adapter("score_hand")
def _score_hand(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = rules_of(case)
    t = Table(rules, None, phase="over")
    side_names = [k for k in setup if k in SIDES]
    laid_complete = [msort(cards(md)) for md in setup.get("canastas_laid_complete_from_hand") or []]
    for name in side_names:
        side = side_index(name, side_names)
        data = setup[name]
        seats = [s for s in range(rules.players) if Game(rules, deal=False).side_of[s] == side]
        for md in data.get("melds", []):
            cs = cards(md)
            t.add_meld(side, cs, concealed=msort(cs) in laid_complete, where=f"{name} melds")
        t.red3[seats[0]] = t.use(cards(data.get("red_threes", [])), f"{name} red threes")
        for seat_name, hand in (data.get("hands") or {}).items():
            t.hands[SEATS[seat_name]] = t.use(cards(hand), f"{seat_name} hand")
    went = str(setup.get("went_out", ""))
    out_seat = seat_of(went)
    t.extra["went_out"] = -1 if out_seat is None else out_seat
    t.extra["concealed_out"] = bool(re.search(r"\bconcealed\b", went)) and "not concealed" not in went
    game = t.game()
    result = game.result
    assert result is not None
    for name in side_names:
        if name not in exp:
            continue
        side = side_index(name, side_names)
        e, s = exp[name], result[side]
        if "meld_card_points" in e:
            ck.eq(f"{name} meld card points", s.meld_points, e["meld_card_points"])
        if "canasta_bonuses" in e:
            ck.eq(f"{name} canasta bonuses", s.canasta_bonuses, bonus_total(e["canasta_bonuses"]))
            items = bonus_items(e["canasta_bonuses"])
            if items is not None:
                got = sorted(canasta_bonus(rules, m) for m in game.side_melds(side) if canasta_bonus(rules, m))
                ck.eq(f"{name} canasta bonuses, one by one", got, items)
        if "red_threes" in e:
            ck.eq(f"{name} red threes", s.red_threes, e["red_threes"])
        if "going_out" in e:
            ck.eq(f"{name} going out", s.going_out, e["going_out"])
        if "cards_in_hand" in e:
            ck.eq(f"{name} cards in hand", s.hand_penalty, e["cards_in_hand"])
        if "hand_total" in e:
            ck.eq(f"{name} hand total", s.total, e["hand_total"])


@adapter("score_cards_in_hand")
def _score_cards_in_hand(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_table(case)
    t.extra["phase"] = "over"
    game = t.game()
    result = game.result
    assert result is not None
    ck.eq("result cards in hand", result[0].hand_penalty, exp["points"])
    ck.eq("scoring.hand_penalty(...)", hand_penalty(cards(setup["player_hand_at_end"])), exp["points"])


@adapter("check_game_end")
def _check_game_end(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = rules_of(case)
    scores: Mapping[str, int] = setup["cumulative_after_hand"]
    names = list(scores)
    totals = [0] * Game(rules, deal=False).score_slots
    for name, value in scores.items():
        totals[side_index(name, names)] = int(value)
    # a finished hand that scores nothing, recorded by a match holding these totals
    game = Table(rules, None, phase="over").game()
    match = Match(rules, seed=0, first_dealer=0, totals=list(totals))
    match.game = game
    match.record_hand()
    ck.eq("match totals unchanged by an empty hand", match.totals, totals)
    ck.eq("match over", match.over, exp["game_over"])
    ck.eq("scoring.match_winner(...) decided", match_winner(rules, totals) is not None, exp["game_over"])
    if "winner" in exp:
        ck.eq("winner", match.winner, side_index(exp["winner"], names))
    if exp.get("action") == "play_another_hand":
        try:
            nxt = match.next_hand()
            ck.eq("next hand number", nxt.hand_number, 2)
        except ValueError as exc:
            ck.true("another hand can be dealt", False, str(exc))


@adapter("query_variant_parameters")
def _query_variant_parameters(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = rules_of(case)
    if "players" in setup:
        ck.eq("rules.players", rules.players, setup["players"])
    for seed in range(4):
        game = Game(rules, seed)
        if "cards_per_player" in exp:
            ck.eq(f"seed {seed}: cards per player", list(game.hsize), [exp["cards_per_player"]] * rules.players)
        if "cards_drawn_from_stock_per_turn" in exp:
            before = game.hsize[game.turn]
            seat = game.turn
            game.push(Move.draw())
            ck.eq(f"seed {seed}: number of cards a draw adds to the hand", game.hsize[seat] - before,
                  exp["cards_drawn_from_stock_per_turn"])
    if "canastas_to_go_out" in exp:
        ck.eq("rules.canastas_to_go_out", rules.canastas_to_go_out, exp["canastas_to_go_out"])
    if "target" in exp:
        ck.eq("rules.target", rules.target, exp["target"])


# ---------------------------------------------------------------------------- the test


@pytest.mark.parametrize("case", _params())
def test_case(case: dict[str, Any] | None) -> None:
    if case is None:
        pytest.fail(_MISSING, pytrace=False)
    action = str(case["action"])
    fn = ADAPTERS.get(action)
    if fn is None:
        pytest.fail(f"{case['id']}: no adapter for action {action!r}", pytrace=False)
    unknown = unknown_setup_keys(case["setup"])
    if unknown:
        pytest.fail(f"{case['id']}: setup keys {unknown} are not understood by the adapters", pytrace=False)
    ck = Checks(case)
    fn(case, ck)
    ck.done()
