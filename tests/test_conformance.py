"""Conformance: every case of ``tests/data/cases.json`` (a copy of ``shared/rules/cases.json``) run against the engine.

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

The Italian cases (variant ``italian``) have adapters of their own with their own
conventions: see the comment that opens the Italian section below.

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

from canasta import PRESETS, Game, IllegalMoveError, Move, PositionError, RulesError, RuleSet
from canasta.engine.cards import (
    ACE,
    CARD_RANK,
    CARD_VALUE,
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    JOKER_RANK,
    NATURAL_RANKS,
    RANK_CARDS,
    RANK_NAMES,
    RANK_PLURALS,
    RANK_VALUE,
    RANK_WORDS,
    RED_THREES,
    THREE,
    TWO,
    Card,
    Rank,
    card_str,
    cards_str,
    make_deck,
    parse_card,
    parse_rank,
)
from canasta.engine.errors import refuse
from canasta.engine.melds import (
    CANASTA_SIZE,
    WILD_MELD,
    Meld,
    canasta_bonus,
    check_meld_shape,
    meld_from_cards,
)
from canasta.engine.moves import DISCARD, DRAW, MELD, OPEN, TAKE, group_cards, make_group
from canasta.engine.scoring import hand_penalty, match_winner, red_three_score, score_side
from canasta.engine.state import DRAW_PHASE
from canasta.families.italian import rules as italian
from canasta.families.italian.melds import it_canasta
from canasta.families.italian.options import italian_rules
from canasta.play.match import Match
from canasta.views.position import game_from_position


def classify(rules: RuleSet, cards: Sequence[Card], concealed: bool = False) -> dict[str, object]:
    """Describe a finished meld: canasta or not, natural or mixed, its points (the cases' meld
    summary, kept here since only the tests use it)."""
    m = meld_from_cards(cards, concealed)
    bonus = canasta_bonus(rules, m)
    kind = None
    if m.is_canasta and m.rank != THREE:
        kind = "natural" if m.is_natural else "mixed"
    return {
        "is_canasta": kind is not None,
        "canasta_type": kind,
        "concealed": bool(concealed and kind is not None),
        "bonus": bonus,
        "card_points": m.points,
        "total": bonus + m.points,
    }


def validate_new_meld(rules: RuleSet, cards: Sequence[Card], going_out: bool = False) -> None:
    """Raise :class:`IllegalMoveError` unless ``cards`` may be laid as a new meld
    on their own (no side melds considered): the cases' pure meld check, kept
    here since only the tests use it (the engine checks melds in its plans)."""
    if not cards:
        raise refuse("EMPTY_MELD.new")
    if any(IS_RED_THREE[c] for c in cards):
        raise refuse("RED_THREE_MELD")
    threes = [c for c in cards if IS_BLACK_THREE[c]]
    if threes:
        if len(threes) != len(cards):
            raise refuse("BLACK_THREE_MIXED.new")
        if not going_out:
            raise refuse("BLACK_THREES_NOT_GOING_OUT")
        if not 3 <= len(threes) <= 4:
            raise refuse("BLACK_THREE_COUNT")
        return
    naturals = [c for c in cards if IS_NATURAL[c]]
    ranks = {CARD_RANK[c] for c in naturals}
    if len(ranks) > 1:
        names = " ".join(str(r) for r in sorted(ranks, key=lambda r: RANK_PLURALS[r]))
        raise refuse("MIXED_RANKS.new", ranks=names)
    bad = check_meld_shape(rules, len(naturals), len(cards) - len(naturals))
    if bad is not None:
        raise refuse("ALL_WILD_MELD" if not naturals else bad)


CASES_PATH = Path(__file__).resolve().parent / "data" / "cases.json"  # the repository's copy
SHARED_CASES = Path(__file__).resolve().parents[2] / "shared" / "rules" / "cases.json"  # authoritative, when present

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
    return [c for c in data["cases"] if str(c.get("variant", "")).startswith(("classic", "italian"))]


CASES = _load_cases()
_MISSING = (f"conformance cases not found at {CASES_PATH}: the repository carries a copy of "
            "shared/rules/cases.json there (cp ../shared/rules/cases.json tests/data/cases.json)")


def test_cases_file_is_present() -> None:
    if CASES is None:
        pytest.fail(_MISSING, pytrace=False)
    variants = {str(c["variant"]).split("_")[0] for c in CASES}
    assert variants == {"classic", "italian"}, f"{CASES_PATH} holds cases of {sorted(variants)} only"


@pytest.mark.skipif(not SHARED_CASES.is_file(), reason=f"no shared rules beside the repository ({SHARED_CASES})")
def test_cases_copy_matches_the_shared_file() -> None:
    """The shared file is authoritative: the repository's copy must be identical to it."""
    assert CASES_PATH.read_bytes() == SHARED_CASES.read_bytes(), (
        f"{CASES_PATH} differs from the authoritative {SHARED_CASES}: refresh the copy with "
        "cp ../shared/rules/cases.json tests/data/cases.json")


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
    if str(case["variant"]) == "italian":
        return it_rules(case)
    name = str(case["variant"]).replace("_", "-")
    options = case.get("options") or {}
    return RuleSet.preset(name, options) if options else RuleSet.preset(name)


def it_rules(case: Mapping[str, Any], players: int | None = None) -> RuleSet:
    """Italian rules: four players unless the case (or ``players``) says otherwise.
    Raises :class:`RulesError` for a player count the rules refuse."""
    n = players if players is not None else int(case["setup"].get("players", 4))
    options = dict(case.get("options") or {})
    name = f"italian-{n}p"
    if name in PRESETS:
        return RuleSet.preset(name, options) if options else RuleSet.preset(name)
    return RuleSet.preset("italian-4p", {**options, "players": n})


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
PROSE_SETUP_KEYS = {"note", "notes", "attempt", "event", "action", "reason", "comment", "description",
                    "explanation", "how", "why", "context"}
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
    player to move (largest melds first), and whether the search was complete; before
    drawing, the sequence may begin by taking the pile (A.7.7: a concealed going out
    with the pile)."""
    seat = game.turn
    spent = [0]

    def rec(d: int) -> list[Move] | None:
        moves = [m for m in game.legal_moves
                 if m.kind in (MELD, TAKE) or (m.kind == DISCARD and game.hand_sizes[seat] == 1)]
        moves.sort(key=lambda m: (m.kind == DISCARD, -move_size(m)))
        for m in moves:
            spent[0] += 1
            if spent[0] > budget:
                return None
            game.push(m)
            try:
                if game.went_out == seat:
                    return [m]
                if m.kind in (MELD, TAKE) and d > 1 and not game.is_over():
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
        ck.eq("classify(...) bonus", info["bonus"], exp["bonus"])
        ck.eq("classify(...) card_points", info["card_points"], exp["card_points"])


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
    total = sum(game.hand_sizes) + red + len(game.pile) + len(game.stock)
    return list(game.hand_sizes), before_upcard, total


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
        ck.eq("hand size after", game.hand_sizes[PLAYER], exp["player_hand_size_after"])
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
            ck.eq(f"seed {seed}: cards per player", list(game.hand_sizes), [exp["cards_per_player"]] * rules.players)
        if "cards_drawn_from_stock_per_turn" in exp:
            before = game.hand_sizes[game.turn]
            seat = game.turn
            game.push(Move.draw())
            ck.eq(f"seed {seed}: number of cards a draw adds to the hand", game.hand_sizes[seat] - before,
                  exp["cards_drawn_from_stock_per_turn"])
    if "canastas_to_go_out" in exp:
        ck.eq("rules.canastas_to_go_out", rules.canastas_to_go_out, exp["canastas_to_go_out"])
    if "target" in exp:
        ck.eq("rules.target", rules.target, exp["target"])


# ============================================================================ Italian (Part B)
#
# The Italian cases (variant ``italian``) have adapters of their own (``IT_ADAPTERS``),
# since their setups speak of teams, the pozzo and closed canastas.  Conventions:
#
# * Four players unless the case says otherwise; North-South = team A = side 0,
#   East-West = team B = side 1, dealer North; the acting player is seat 0.
# * A team "has opened" without listed melds: a 3-card filler meld.  A team that must
#   hold canastas gets closed 7-card filler canastas (a dirty one has one wild card).
#   Filler ranks are ranks the case never mentions, and filler melds are left out of
#   every compared score.  Spare natural cards (for discards) are of unmentioned ranks.
# * In the draw phase, a pozzo given as a top card (or with cards above the face-down ones)
#   ends with the previous player's discard: West holds it and discards it (so a wild card
#   freezes the pozzo on the engine), then it is North's turn.  A pozzo
#   whose top card lies right on the face-down cards is the initial pozzo, placed as is
#   (``pozzo_hidden``).  '(N face-down cards)' and '...' are spare natural cards.
# * Deals are real: ``Game(rules, deck=..., cut=...)`` with a pack built so that the
#   case's cards are exposed at the cut, dealt to the named seat, or lie on top of /
#   at the bottom of the stock; every other dealt or cut card is a natural card.
# * The opening count is measured on the engine: the same table is built again under a
#   one-bracket minimum table (``minimum_table``), and the count is the largest minimum
#   the move does not fall short of (``INITIAL_MELD_TOO_LOW``).
# * Every non-prose field of ``expected`` must be compared by the adapter (checked
#   after it ran); prose fields (reason, how, note, counted, ...) are not.

IT_SIDES: dict[str, int] = {"A": 0, "B": 1, "C": 2}
SEAT_NAMES: dict[int, str] = {v: k for k, v in SEATS.items()}
_FACE_DOWN = re.compile(r"\((\d+) face-down cards?\)")
_TEAM_KEY = re.compile(r"^(?:team[ _])?([A-C])$")
ELLIPSIS = "..."
ELLIPSIS_CARDS = 3  # spare cards standing for '...' in a pozzo
SPECIAL_WILD_CANASTAS: dict[str, tuple[int, int]] = {  # kind: (deuces, jokers)
    "pinellata": (7, 0), "dirty_deuces": (5, 2), "toro_seduto": (1, 6), "dirty_jokers": (2, 5),
}
IT_SETUP_KEYS = {
    "players", "dealer", "cutter", "cards_exposed_at_the_cut_in_order", "after_deal",
    "stock_top_sequence", "stock_bottom_sequence_bottom_first", "stock_before_pozzo", "turned_card",
    "dealt_hands_contain_red_threes", "team_cumulative_score", "team_has_opened", "team_melds",
    "team_open_melds", "team_canastas", "team_has_clean_canasta", "team_has_dirty_canasta",
    "team_red_threes", "team_closed_canasta_ranks", "opponents_closed_canasta_ranks",
    "melds_laid_this_turn", "melds_from_hand_this_turn", "player_hand", "player_hand_after_draw",
    "player_hand_also_holds", "pozzo_top", "pozzo_bottom_to_top", "pozzo_frozen", "stock_top", "stock",
    "new_meld", "player_is_going_out_this_turn", "cards_to_add", "closed_meld",
    "player_will_open_this_turn_without_the_pozzo", "player_asked_partner", "partner_answer",
    "player_could_otherwise_go_out", "planned_final_discard", "went_out", "team_went_out",
    "other_team_went_out", "team", "cumulative_after_hand", "player_must_draw",
}


def it_unknown_setup_keys(setup: Mapping[str, Any]) -> list[str]:
    known = PROSE_SETUP_KEYS | IT_SETUP_KEYS
    return [k for k in setup if k not in known and not _TEAM_KEY.match(k)]


class Expected(Mapping[str, Any]):
    """``expected`` of a case, remembering which fields an adapter read."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.raw = dict(data)
        self.seen: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        self.seen.add(key)
        return self.raw[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)

    def __contains__(self, key: object) -> bool:
        return key in self.raw


def _is_card(text: str) -> bool:
    try:
        parse_card(text)
    except ValueError:
        return False
    return True


def is_prose(value: object) -> bool:
    """Text that is neither a card nor a pile token, or a list of such texts."""
    if isinstance(value, str):
        return not _is_card(value) and not _FACE_DOWN.fullmatch(value) and value != ELLIPSIS
    if isinstance(value, list):
        return bool(value) and all(is_prose(v) for v in value)
    return False


def it_side(name: str) -> int:
    m = _TEAM_KEY.match(name.strip())
    assert m, f"cannot tell which team {name!r} is"
    return IT_SIDES[m.group(1)]


def seats_of_side(rules: RuleSet, side: int) -> list[int]:
    probe = Game(rules, deal=False)
    return [s for s in range(rules.players) if probe.side_of[s] == side]


def team_in_text(rules: RuleSet, text: str) -> int | None:
    """The seat that went out, from text such as 'North (team A), final discard 7D' or 'team A'."""
    seat = seat_of(text, 0, rules.players)
    if seat is not None:
        return seat
    m = re.search(r"\bteam[ _]([A-C])\b", text)
    return seats_of_side(rules, IT_SIDES[m.group(1)])[0] if m else None


def parse_rank_text(text: str) -> Rank:
    """'8', '8s', 'K', 'Ks', 'eights' ... (AssertionError if it is no rank)."""
    m = re.fullmatch(r"(10|[2-9AKQJ])'?s?", text.strip())
    return parse_rank(m.group(1)) if m else rank_from_word(text.strip())


def canasta_kinds(setup: Mapping[str, Any]) -> list[tuple[str, Rank | None]]:
    """The canastas a team must hold: (kind, rank or None for any unused rank)."""
    out: list[tuple[str, Rank | None]] = []
    spec = setup.get("team_canastas")
    if isinstance(spec, Mapping):
        out += [("clean", None)] * int(spec.get("clean", 0)) + [("dirty", None)] * int(spec.get("dirty", 0))
        out += [(str(k), None) for k in spec.get("special") or []]
    elif isinstance(spec, list):
        for phrase in spec:
            words = str(phrase).replace("-", "_")
            special = next((k for k in SPECIAL_WILD_CANASTAS if k in words.lower().replace(" ", "_")), None)
            if special is not None:
                out.append((special, None))
                continue
            kind = "dirty" if re.search(r"\b(dirty|mixed|impure)\b", words.lower()) else "clean"
            rank: Rank | None = None
            for w in re.findall(r"[A-Za-z0-9']+", words):
                try:
                    rank = parse_rank_text(w)
                    break
                except (AssertionError, ValueError):
                    continue
            out.append((kind, rank))
    if setup.get("team_has_clean_canasta"):
        out.append(("clean", None))
    if setup.get("team_has_dirty_canasta"):
        out.append(("dirty", None))
    return out


class ItTable(Table):
    """A :class:`Table` for Italian rules: closed canastas, the pozzo's face-down cards,
    a discard played before the player's turn, and teams opened without melds."""

    def __init__(self, rules: RuleSet, setup: Mapping[str, Any] | None = None, phase: str = "meld") -> None:
        super().__init__(rules, setup, phase)
        self.closed: list[list[list[Card]]] = [[] for _ in range(self.nsides)]
        self.hidden = [0, 0]
        self.tokens: dict[str, list[Card]] = {}
        self.force_opened = [False] * self.nsides
        self.fillers: list[list[Card]] = []
        self.discard: tuple[int, Card] | None = None

    # -- cards

    def take_rank(self, rank: Rank, k: int, where: str) -> list[Card]:
        have = [c for c in RANK_CARDS[rank] for _ in range(self.left[c])]
        assert len(have) >= k, f"case setup: not enough cards of rank {RANK_NAMES[rank]} left for {where}"
        return self.use(have[:k], where)

    def take_wild(self, where: str) -> list[Card]:
        deuces = [c for c in RANK_CARDS[TWO] if self.left[c] > 0]
        return self.use([deuces[0] if deuces else JOKER], where)

    def spare_rank(self, need: int) -> Rank:
        """A natural rank the case never mentions with ``need`` cards left (aces last)."""
        for r in [*NATURAL_RANKS[:-1], ACE]:
            if r not in self.avoid and sum(self.left[c] for c in RANK_CARDS[r]) >= need:
                self.avoid.add(r)
                self.filler_ranks.add(r)
                return r
        raise AssertionError(f"no unused rank left with {need} cards")

    def canasta(self, kind: str, rank: Rank | None, where: str) -> list[Card]:
        k = kind.lower().replace(" ", "_")
        if k in SPECIAL_WILD_CANASTAS:
            d, j = SPECIAL_WILD_CANASTAS[k]
            return self.take_rank(TWO, d, where) + self.take_rank(JOKER_RANK, j, where)
        if "aces" in k:
            rank = ACE
        dirty = k.startswith(("dirty", "mixed"))
        r = rank if rank is not None else self.spare_rank(6 if dirty else 7)
        return self.take_rank(r, 6 if dirty else 7, where) + (self.take_wild(where) if dirty else [])

    # -- table

    def add_closed(self, side: int, cs: Sequence[Card], where: str, filler: bool = False,
                   taken: bool = True) -> None:
        out = list(cs) if taken else self.use(cs, where)
        self.closed[side].append(out)
        if filler:
            self.fillers.append(out)

    def filler_meld(self, side: int) -> None:
        cs = self.take_rank(self.spare_rank(3), 3, "filler meld")
        self.melds[side].append({"cards": [card_str(c) for c in cs], "owner": -1, "concealed": False})
        self.fillers.append(cs)

    def opened(self, side: int) -> bool:
        return bool(self.melds[side] or self.closed[side] or self.force_opened[side])

    def discard_top_first(self) -> None:
        """The pile's top card is played as the previous player's discard."""
        step = -1 if self.rules.direction == "counter_clockwise" else 1
        prev = (PLAYER - step) % self.n
        top = self.pile.pop()
        self.hands[prev] += [top, *self.spare_naturals(1)]
        self.extra["turn"], self.extra["phase"] = prev, "meld"
        self.discard = (prev, top)

    def game(self) -> Game:
        self.extra["closed"] = [[{"cards": [card_str(c) for c in m]} for m in side] for side in self.closed]
        self.extra["pozzo_hidden"] = list(self.hidden)
        g = super().game()
        for side, flag in enumerate(self.force_opened):
            if flag:
                g.opened[side] = True  # no position field for "opened" without melds (see the report)
        if self.discard is not None:
            g.push(Move.discard(self.discard[1]))
            assert g.turn == PLAYER and g.phase == DRAW_PHASE, "the discard did not pass the turn to North"
        return g

    def filler_points(self, game: Game) -> tuple[int, int]:
        """(card points, canasta bonuses) of the filler melds."""
        pts = sum(game.card_value[c] for m in self.fillers for c in m)
        bonus = 0
        for m in game.set_aside(0):
            if msort(m.cards) in [msort(f) for f in self.fillers]:
                bonus += it_canasta(game.rules, m)[2]
        return pts, bonus


def _meld_spec(md: object) -> tuple[list[Card], bool | None]:
    if isinstance(md, Mapping):
        closed = md.get("closed")
        return cards(md["cards"]), (None if closed is None else bool(closed))
    assert isinstance(md, list)
    return cards(md), None


def build_it_table(case: Mapping[str, Any], phase: str = "meld", rules: RuleSet | None = None) -> ItTable:
    """The Italian table every position-based adapter starts from (see the conventions)."""
    rules = rules if rules is not None else it_rules(case)
    setup: Mapping[str, Any] = case["setup"]
    t = ItTable(rules, setup, phase)
    for key in ("opponents_closed_canasta_ranks", "team_closed_canasta_ranks"):
        t.avoid.update(parse_rank_text(str(x)) for x in setup.get(key) or [])
    kinds = canasta_kinds(setup)
    t.avoid.update(r for _, r in kinds if r is not None)
    if "team_cumulative_score" in setup:
        t.extra["scores"][0] = int(setup["team_cumulative_score"])
    # 1. the cards the case names
    for md in setup.get("team_melds") or []:
        cs, closed = _meld_spec(md)
        if closed or (closed is None and len(cs) >= CANASTA_SIZE):
            t.add_closed(0, cs, "team_melds", taken=False)
        else:
            t.add_meld(0, cs, where="team_melds")
    for md in setup.get("team_open_melds") or []:
        t.add_meld(0, cards(md), where="team_open_melds")
    hand = setup.get("player_hand", setup.get("player_hand_after_draw"))
    if hand is not None:
        t.hands[PLAYER] = t.use(cards(hand), "player_hand")
    if "player_hand_also_holds" in setup:
        t.hands[PLAYER] += t.use(cards(setup["player_hand_also_holds"]), "player_hand_also_holds")
    tokens: list[str] | None = None
    if "pozzo_bottom_to_top" in setup:
        tokens = [str(x) for x in setup["pozzo_bottom_to_top"]]
    elif "pozzo_top" in setup:
        tokens = [str(setup["pozzo_top"])]
    named_pile = {i: t.use([parse_card(tok)], "pozzo")[0] for i, tok in enumerate(tokens or []) if _is_card(tok)}
    top = setup.get("stock_top", setup.get("stock_top_sequence"))
    if top is not None:
        t.stock_top = t.use(cards([x for x in top if x != ELLIPSIS]), "stock_top")
    if "stock" in setup:
        t.stock = t.use(cards(setup["stock"]), "stock")
    # 2. canastas of named ranks and kinds
    for key, side in (("team_closed_canasta_ranks", 0), ("opponents_closed_canasta_ranks", 1)):
        for x in setup.get(key) or []:
            t.add_closed(side, t.take_rank(parse_rank_text(str(x)), CANASTA_SIZE, key), key)
    for kind, rank in kinds:
        t.add_closed(0, t.canasta(kind, rank, f"{kind} canasta"), f"{kind} canasta", filler=rank is None)
    # 3. opened or not
    if setup.get("team_has_opened") is True and not t.opened(0):
        t.filler_meld(0)
    if setup.get("team_has_opened") is False:
        assert not t.opened(0), "case setup: the team has not opened but melds are listed"
    # 4. the pozzo, with spare cards for '(N face-down cards)' and '...'
    if tokens is not None:
        for i, tok in enumerate(tokens):
            m = _FACE_DOWN.fullmatch(tok)
            if i in named_pile:
                t.pile.append(named_pile[i])
            elif m:
                fill = t.spare_naturals(int(m.group(1)))
                t.hidden = [len(t.pile), len(t.pile) + len(fill)]
                t.tokens.setdefault(tok, fill)
                t.pile += fill
            elif tok == ELLIPSIS:
                t.pile += t.spare_naturals(ELLIPSIS_CARDS)
            else:
                raise AssertionError(f"pozzo token {tok!r} not understood")
        initial = t.hidden[1] > t.hidden[0] and t.hidden[1] == len(t.pile) - 1
        if phase == "draw" and not initial:
            t.discard_top_first()
    if "pozzo_frozen" in setup:
        t.extra["pile_frozen"] = bool(setup["pozzo_frozen"])
    if "team_red_threes" in setup:
        t.red3[PLAYER] = t.red_threes(int(setup["team_red_threes"]))
    return t


def token_cards(t: ItTable, tokens: Sequence[str]) -> list[Card]:
    """Cards of a list such as ['(6 face-down cards)', 'KD'] on this table."""
    out: list[Card] = []
    for tok in tokens:
        if tok in t.tokens:
            out += t.tokens[tok]
        else:
            out.append(parse_card(tok))
    return out


def it_clean(game: Game, groups: Sequence[Sequence[Card]], skip_key: int = -1) -> bool | None:
    """Engine view (``italian.groups_are_clean``) of whether these new melds are clean."""
    try:
        plans = italian.plan_groups(game, PLAYER, [tuple(g) for g in groups], skip_key=skip_key)[0]
    except IllegalMoveError:
        return None
    return italian.groups_are_clean(game.rules, game, game.side_of[PLAYER], plans)


def opening_count(make: Callable[[RuleSet], Game], rules: RuleSet, move: Move) -> int | None:
    """The opening count the engine gives ``move``: with a single-bracket minimum table
    the move falls short (INITIAL_MELD_TOO_LOW) exactly when the minimum exceeds it.
    None when the move fails before the count is checked."""
    def short(x: int) -> bool:
        err = make(rules.with_options({"minimum_table": [[-10**9, x]]})).why_illegal(move)
        return err is not None and err.code == "INITIAL_MELD_TOO_LOW"

    lo, hi = 0, 20_000
    if short(lo) or not short(hi):
        return None
    while hi - lo > 5:
        mid = max(lo + 5, (lo + hi) // 2 // 5 * 5)
        if short(mid):
            hi = mid
        else:
            lo = mid
    return lo


def opening_groups(t: ItTable, minimum: int, dirty: bool) -> list[list[Card]]:
    """New melds of unmentioned ranks worth at least ``minimum`` (the first one with a
    joker when ``dirty``); none reaches seven cards."""
    vals = Game(t.rules, deal=False).card_value
    groups: list[list[Card]] = []
    value = 0
    for r in sorted((r for r in NATURAL_RANKS if r not in t.avoid), key=lambda r: -RANK_VALUE[r]):
        if value >= minimum and groups:
            break
        if sum(t.left[c] for c in RANK_CARDS[r]) < 5:
            continue
        t.avoid.add(r)
        group = t.take_rank(r, 5, "opening")
        if dirty and not groups:
            group += t.use([JOKER], "opening")
        groups.append(group)
        value += sum(vals[c] for c in group)
    assert value >= minimum, "not enough unused ranks for an opening"
    return groups


def meld_of(game: Game, side: int, rank: int, card: Card | None = None) -> tuple[Meld | None, bool]:
    """The team's open meld of this key, else its last closed canasta of that key
    (holding ``card``); and whether it is closed."""
    if rank in game.melds[side]:
        return game.melds[side][rank], False
    for m in reversed(game.set_aside(side)):
        if m.rank == rank and (card is None or card in m.cards):
            return m, True
    return None, False


def it_compare_meld(ck: Checks, t: ItTable, game: Game, m: Meld, closed: bool, exp: Mapping[str, Any]) -> None:
    """Compare a real Italian meld with resulting_meld / is_canasta / canasta_type /
    counts_as / bonus / card_points / total; scores from the engine's hand scoring
    (``italian.score``) minus the fillers."""
    rules = game.rules
    kind, counts, bonus = it_canasta(rules, m) if closed else (None, None, 0)
    side = italian.score(game)[0]
    fpts, fbonus = t.filler_points(game)
    if "resulting_meld" in exp:
        ck.eq("resulting meld", msort(m.cards), msort(cards(exp["resulting_meld"])), as_cards=True)
    if "resulting_size" in exp:
        ck.eq("resulting size", m.size, exp["resulting_size"])
    if "is_canasta" in exp:
        ck.eq("closed as a canasta", closed, exp["is_canasta"])
    if "canasta_type" in exp:
        ck.eq("canasta kind (melds.it_canasta)", kind, exp["canasta_type"])
        if closed:
            ck.true("the kind is among the hand score's canastas", kind in side.canastas, str(side.canastas))
    if "counts_as" in exp:
        ck.eq("counts as (melds.it_canasta)", counts, exp["counts_as"])
    if "bonus" in exp:
        ck.eq("canasta bonus (melds.it_canasta)", bonus, exp["bonus"])
        ck.eq("hand score canasta_bonuses (fillers left out)", side.canasta_bonuses - fbonus, exp["bonus"])
    if "card_points" in exp:
        ck.eq("hand score meld_points (fillers left out)", side.meld_points - fpts, exp["card_points"])
    if "total" in exp:
        ck.eq("card points + bonus", side.meld_points - fpts + side.canasta_bonuses - fbonus, exp["total"])


def go_out_path(hand: Sequence[Card], discard: Card | None, groups: Sequence[Sequence[Card]] | None) -> list[Move]:
    """Meld ``groups`` (default: the hand but the discard, by rank, wild cards with the
    biggest group), then discard."""
    if groups is None:
        rest = minus(hand, [] if discard is None else [discard])
        by_rank: dict[int, list[Card]] = {}
        for c in rest:
            if not IS_WILD[c]:
                by_rank.setdefault(CARD_RANK[c], []).append(c)
        wilds = [c for c in rest if IS_WILD[c]]
        out = sorted(by_rank.values(), key=len, reverse=True)
        if out:
            out[0] += wilds
        elif wilds:
            out = [wilds]
        groups = out
    path = [Move.meld(*(tuple(g) for g in groups))] if groups else []
    return path + ([Move.discard(discard)] if discard is not None else [])


def play_path(ck: Checks, game: Game, path: Sequence[Move]) -> bool:
    for move in path:
        if not legal(game, move):
            ck.log.append(f"    '{move}' is illegal: {reason(game, move)}")
            return False
        game.push(move)
    return True


# ---------------------------------------------------------------------------- Italian adapters

IT_ADAPTERS: dict[str, Adapter] = {"check_game_end": _check_game_end}
SCORE_FIELDS = {"meld_card_points", "canasta_bonuses", "going_out", "five_canasta_bonus", "red_threes",
                "cards_in_hand", "hand_total"}


def it_adapter(name: str) -> Callable[[Adapter], Adapter]:
    def register(fn: Adapter) -> Adapter:
        IT_ADAPTERS[name] = fn
        return fn
    return register


# -- the pack and the deal


def it_deck(rules: RuleSet, dealer: int = 0, hands: Mapping[int, Sequence[Card]] | None = None,
            top: Sequence[Card] = (), bottom_first: Sequence[Card] = (),
            exposed: Sequence[Card] = ()) -> tuple[list[Card], int, list[list[Card]]]:
    """A pack (top first) and a cut for ``Game(deck=, cut=)``: the lifted packet ends
    with ``exposed`` (its bottom card exposed first); the rest is dealt one card at a
    time from the dealer's left, the named cards to the named seats and natural cards
    otherwise; ``top`` follows the dealt cards; ``bottom_first`` is at the bottom of
    the lifted packet, so at the bottom of the stock.  Also returns the dealt cards."""
    n, size = rules.players, rules.hand_size
    step = -1 if rules.direction == "counter_clockwise" else 1
    pool: Counter[Card] = Counter(make_deck(rules.packs))
    want = {s: list(cs) for s, cs in (hands or {}).items()}
    named = [c for cs in want.values() for c in cs] + [*top, *bottom_first, *exposed]
    for c in named:
        assert pool[c] > 0, f"case setup: {card_str(c)} used more often than the pack holds"
        pool[c] -= 1
    assert not (bottom_first and exposed), "a stock bottom and cut cards in one case are not supported"
    naturals = sorted(c for c in pool.elements() if IS_NATURAL[c])
    others = sorted(c for c in pool.elements() if not IS_NATURAL[c])
    dealt: list[list[Card]] = [[] for _ in range(n)]
    order: list[Card] = []
    for _ in range(size):
        for k in range(1, n + 1):
            s = (dealer + k * step) % n
            c = want[s].pop(0) if want.get(s) else naturals.pop()
            dealt[s].append(c)
            order.append(c)
    assert not any(want.values()), "case setup: more named cards than a hand holds"
    after = list(top) + [naturals.pop() for _ in range(20)]
    packet = [naturals.pop() for _ in range(5)] + list(bottom_first)[::-1] + list(exposed)[::-1]
    deck = packet + order + after + others + naturals
    return deck, len(packet), dealt


def deal_stock_before_pozzo(game: Game) -> int:
    """Stock size after the deal (and the cut) but before the red-three replacements
    and the pozzo: each red three laid out cost one stock card."""
    return len(game.stock) + len(game.pile) + sum(len(r) for r in game.red3)


def first_turned(game: Game) -> Card:
    """The first card turned for the pozzo: its first special card, else its top."""
    lo, hi = game.face_down()
    if hi > lo:
        return game.pile[0] if lo > 0 else game.pile[-1]
    specials = next((i for i, c in enumerate(game.pile) if IS_NATURAL[c]), 0)
    return game.pile[0] if specials else game.pile[-1]


@it_adapter("build_deck")
def _it_build_deck(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    rules = it_rules(case)
    for seed in range(3):
        game = Game(rules, seed)
        every = [c for s in range(game.players) for c in game.hand(s)] + game.stock + game.pile + [
            c for r in game.red3 for c in r]
        label = f"seed {seed}: "
        if "total" in exp:
            ck.eq(label + "cards on the table", len(every), exp["total"])
            ck.eq("rules.deck_size", rules.deck_size, exp["total"])
        count = Counter(CARD_RANK[c] for c in every)
        if "jokers" in exp:
            ck.eq(label + "jokers", count[JOKER_RANK], exp["jokers"])
        if "deuces" in exp:
            ck.eq(label + "deuces", count[TWO], exp["deuces"])
        if "cards_per_natural_rank" in exp:
            ck.eq(label + "cards of each natural rank", sorted({count[r] for r in NATURAL_RANKS}),
                  [exp["cards_per_natural_rank"]])
        if "red_threes" in exp:
            ck.eq(label + "red threes", sum(1 for c in every if IS_RED_THREE[c]), exp["red_threes"])
        if "black_threes" in exp:
            ck.eq(label + "black threes", sum(1 for c in every if IS_BLACK_THREE[c]), exp["black_threes"])


def _check_deal(ck: Checks, rules: RuleSet, exp: Mapping[str, Any]) -> None:
    deck, cut, _ = it_deck(rules)
    game = Game(rules, 0, deck=deck, cut=cut)
    if "cards_per_player" in exp:
        ck.eq("cards per player", list(game.hand_sizes), [exp["cards_per_player"]] * rules.players)
    if "cards_dealt" in exp:
        ck.eq("cards dealt", sum(game.hand_sizes) - len(game.shown_at_deal()), exp["cards_dealt"])
    if "stock_before_pozzo" in exp:
        ck.eq("stock before the pozzo", deal_stock_before_pozzo(game), exp["stock_before_pozzo"])


@it_adapter("deal")
def _it_deal(case: Mapping[str, Any], ck: Checks) -> None:
    _check_deal(ck, it_rules(case), case["expected"])


@it_adapter("validate_player_count")
def _it_validate_player_count(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    n = int(case["setup"]["players"])
    try:
        rules: RuleSet | None = it_rules(case, n)
    except RulesError as exc:
        ck.log.append(f"    RulesError: {exc}")
        rules = None
    ck.eq(f"a rule set for {n} players is accepted", rules is not None, exp["valid"])
    if rules is not None:
        ck.eq("rules.players", rules.players, n)
        _check_deal(ck, rules, exp)


@it_adapter("cut_and_deal")
def _it_cut_and_deal(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = it_rules(case)
    dealer = SEATS[str(setup.get("dealer", "North"))]
    deck, cut, _ = it_deck(rules, dealer, exposed=cards(setup["cards_exposed_at_the_cut_in_order"]))
    game = Game(rules, 0, dealer=dealer, deck=deck, cut=cut)
    cutter = seat_of(str(setup["cutter"]), dealer, rules.players)
    assert cutter is not None, "cannot tell who cuts"
    wild_in_hand = [c for c in game.hand(cutter) if IS_WILD[c]]  # every dealt card is natural
    if "cutter_takes_into_hand" in exp:
        want = msort(cards(exp["cutter_takes_into_hand"]))
        ck.eq("game.shown_at_deal()", msort(game.shown_at_deal()), want, as_cards=True)
        ck.eq("wild cards in the cutter's hand", msort(wild_in_hand), want, as_cards=True)
    if "cards_dealt_to_cutter" in exp:
        ck.eq("cards dealt to the cutter", game.hand_sizes[cutter] - len(wild_in_hand), exp["cards_dealt_to_cutter"])
    if "hand_sizes_after_deal" in exp:
        for name, size in exp["hand_sizes_after_deal"].items():
            ck.eq(f"{name}: hand size", game.hand_sizes[SEATS[name]], size)
    if "stock_size_after_deal" in exp:
        ck.eq("stock after the deal", deal_stock_before_pozzo(game), exp["stock_size_after_deal"])


@it_adapter("replace_dealt_red_threes")
def _it_replace_dealt_red_threes(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = it_rules(case)
    dealer = SEATS[str(setup.get("dealer", "North"))]
    held = {SEATS[name]: cards(v.get("red_threes_in_hand", [])) for name, v in setup["after_deal"].items()}
    deck, cut, dealt = it_deck(rules, dealer, held, cards(setup.get("stock_top_sequence", [])),
                               cards(setup.get("stock_bottom_sequence_bottom_first", [])))
    game = Game(rules, 0, dealer=dealer, deck=deck, cut=cut)
    for key in exp:
        m = re.fullmatch(r"([A-Z][a-z]+)_red_threes_laid_out", key)
        if m:
            ck.eq(f"{m.group(1)}: red threes laid out", msort(game.red3[SEATS[m.group(1)]]),
                  msort(cards(exp[key])), as_cards=True)
        m = re.fullmatch(r"cards_added_to_([A-Z][a-z]+)_hand", key)
        if m:
            seat = SEATS[m.group(1)]
            kept = [c for c in dealt[seat] if not IS_RED_THREE[c]]
            ck.eq(f"{m.group(1)}: cards added to the hand", minus(game.hand(seat), kept),
                  msort(cards(exp[key])), as_cards=True)
    if "stock_bottom_card_after" in exp:
        ck.eq("stock bottom card", game.stock[0], parse_card(exp["stock_bottom_card_after"]), as_cards=True)
    if "stock_top_after" in exp:
        ck.eq("stock top after the replacements (first card turned for the pozzo)", first_turned(game),
              parse_card(exp["stock_top_after"]), as_cards=True)
    if "done_before_the_pozzo_is_formed" in exp:
        done = (not game.move_stack and game.phase == DRAW_PHASE
                and not any(game.hands[s][c] for s in range(game.players) for c in RED_THREES)
                and all(Counter(cs) <= Counter(game.red3[s]) for s, cs in held.items()))
        ck.eq("red threes laid out and replaced as the hand is set up, before any move", done,
              exp["done_before_the_pozzo_is_formed"])


def pozzo_tokens(game: Game) -> list[str]:
    """The pile, bottom to top, with the face-down block as '(N face-down cards)'."""
    lo, hi = game.face_down()
    out = [card_str(c) for c in game.pile[:lo]]
    if hi > lo:
        out.append(f"({hi - lo} face-down cards)")
    return out + [card_str(c) for c in game.pile[max(hi, lo):]]


def norm_tokens(tokens: Sequence[str]) -> list[str]:
    out = []
    for tok in tokens:
        m = _FACE_DOWN.fullmatch(tok)
        out.append(f"({m.group(1)} face-down cards)" if m else card_str(parse_card(tok)))
    return out


@it_adapter("form_initial_pozzo")
def _it_form_initial_pozzo(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = it_rules(case)
    seq = [x for x in setup.get("stock_top_sequence", [setup.get("turned_card")]) if x not in (None, ELLIPSIS)]
    deck, cut, _ = it_deck(rules, top=cards(seq))
    game = Game(rules, 0, deck=deck, cut=cut)
    before = deal_stock_before_pozzo(game)
    if "stock_before_pozzo" in setup:
        ck.eq("(setup) stock before the pozzo", before, setup["stock_before_pozzo"])
    pile, (lo, hi) = game.pile, game.face_down()
    specials = next((i for i, c in enumerate(pile) if IS_NATURAL[c]), 0)  # the cards under it are natural
    under = hi - lo if hi > lo else len(pile) - 1 - specials
    if "face_down_cards_under_upcard" in exp:
        ck.eq("cards put under the upcard", under, exp["face_down_cards_under_upcard"])
    if "pozzo_size" in exp:
        ck.eq("pozzo size", len(pile), exp["pozzo_size"])
    if "top_card" in exp:
        ck.eq("pozzo top card", pile[-1], parse_card(exp["top_card"]), as_cards=True)
    if "stock_after" in exp:
        ck.eq("stock after the pozzo", len(game.stock), exp["stock_after"])
    if "stock_cards_used" in exp:
        ck.eq("stock cards used by the pozzo", before - len(game.stock), exp["stock_cards_used"])
    if "pozzo_frozen" in exp:
        ck.eq("pozzo frozen", game.pile_frozen, exp["pozzo_frozen"])
    if "pozzo_blocked" in exp:
        err = game.why_illegal(Move.take())
        blocked = game.pile_block_reason() is not None or (err is not None and err.code.startswith("PILE_BLOCKED"))
        ck.eq(f"pozzo blocked for the first player ({reason(game, Move.take())})", blocked, exp["pozzo_blocked"])
    if "pozzo_bottom_to_top" in exp:
        ck.eq("pozzo, bottom to top", pozzo_tokens(game), norm_tokens(exp["pozzo_bottom_to_top"]))
    if "cards_under_upcard_visible" in exp:
        ck.eq("cards under the upcard face up (game.face_down() empty)", hi <= lo, exp["cards_under_upcard_visible"])
    if "top_card_visible" in exp:
        ck.eq("top card face up", not lo <= len(pile) - 1 < hi, exp["top_card_visible"])


@it_adapter("order_of_setup")
def _it_order_of_setup(case: Mapping[str, Any], ck: Checks) -> None:
    """A deal where every step leaves a trace: a joker exposed at the cut, a red three
    dealt to the first player, a known card at the bottom (the cut's stop card) and a
    known card on top of the stock after the deal; each listed step is checked."""
    setup, exp = case["setup"], case["expected"]
    rules = it_rules(case)
    n, dealer = rules.players, 0
    first, cutter = (dealer + 1) % n, (dealer - 1) % n
    stop, top = parse_card("7H"), parse_card("KC")
    held = {first: [RED_THREES[0]]} if setup.get("dealt_hands_contain_red_threes") else {}
    deck, cut, dealt = it_deck(rules, dealer, held, [top], exposed=[JOKER, stop])
    game = Game(rules, 0, dealer=dealer, deck=deck, cut=cut)
    steps = [str(s) for s in exp["order"]]
    for text in steps:
        if re.search(r"\bcuts?\b", text):
            ck.true(f"cut: the cutter ({SEAT_NAMES[cutter]}) holds the joker exposed at the cut",
                    game.hands[cutter][JOKER] == 1, cards_str(game.hand(cutter)))
        m = re.search(r"\bdeal (\d+) each\b", text)
        if m:
            sizes = [game.hand_sizes[s] - game.hands[s][JOKER] for s in range(n)]
            ck.eq("deal: cards dealt to each player", sizes, [int(m.group(1))] * n)
        if "red threes" in text and held:
            ck.eq("red threes laid out", game.red3[first], held[first], as_cards=True)
            if "bottom" in text:
                ck.eq("replacement from the bottom of the stock (under the cut)",
                      minus(game.hand(first), dealt[first]), [stop], as_cards=True)
        if "pozzo" in text:
            ck.eq("the pozzo's upcard is the stock's top card after the deal", game.pile[-1], top, as_cards=True)
            ck.true("the pozzo is formed before the first turn", not game.move_stack and game.phase == DRAW_PHASE)


# -- the opening


@it_adapter("query_opening_minimum")
def _it_query_opening_minimum(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = it_rules(case)
    score = int(setup["team_cumulative_score"])
    need = rules.minimum_for(score)
    results: dict[bool, IllegalMoveError | None] = {}
    for dirty in (False, True):
        t = build_it_table(case)
        groups = opening_groups(t, need, dirty)
        t.hands[PLAYER] = [c for g in groups for c in g] + t.spare_naturals(2)
        game = t.game()
        if not dirty and "minimum" in exp:
            ck.eq("game.minimum(North)", game.minimum(PLAYER), exp["minimum"])
            ck.eq("rules.minimum_for(score)", need, exp["minimum"])
        results[dirty] = game.why_illegal(Move.meld(*(tuple(g) for g in groups)))
    ck.true("a clean opening worth the minimum is legal", results[False] is None, str(results[False]))
    if "must_be_clean" in exp:
        err = results[True]
        ck.eq(f"a dirty opening worth the minimum is refused ({err})",
              err is not None and err.code == "OPENING_NOT_CLEAN", exp["must_be_clean"])
        ck.eq("opening_must_be_clean(minimum)", italian_rules(rules).opening_must_be_clean(need), exp["must_be_clean"])


def _pozzo_take_table(case: Mapping[str, Any], groups: Sequence[Sequence[Card]],
                      rules: RuleSet | None = None) -> tuple[ItTable, tuple[Card, ...]]:
    """Draw phase: a pozzo topped by a card of an unused rank, the player holding a
    natural pair of it and the cards of ``groups``."""
    t = build_it_table(case, phase="draw", rules=rules)
    three = t.take_rank(t.spare_rank(3), 3, "pozzo")
    t.pile = [three[0]]
    t.extra["pile_frozen"] = False
    t.hands[PLAYER] = three[1:] + t.use([c for g in groups for c in g], "melds") + t.spare_naturals(2)
    return t, tuple(three[1:])


@it_adapter("validate_opening")
def _it_validate_opening(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    groups = [cards(md) for md in setup["melds_laid_this_turn"]]
    move = Move.meld(*(tuple(g) for g in groups))

    def make(rules: RuleSet | None = None) -> Game:
        t = build_it_table(case, rules=rules)
        t.hands[PLAYER] = t.use([c for g in groups for c in g], "melds_laid_this_turn") + t.spare_naturals(2)
        return t.game()

    game = make()
    if "valid" in exp:
        ck.eq(f"'{move}' in legal_moves ({reason(game, move)})", legal(game, move), exp["valid"])
    if "minimum" in exp:
        ck.eq("game.minimum(North)", game.minimum(PLAYER), exp["minimum"])
    if "count" in exp:
        ck.eq("opening count (measured on the engine)", opening_count(make, game.rules, move), exp["count"])
    if "clean" in exp:
        ck.eq("opening clean (italian.groups_are_clean)", it_clean(game, groups), exp["clean"])
    if "may_take_pozzo_this_turn" in exp:
        t, pair = _pozzo_take_table(case, groups)
        g2 = t.game()
        take = Move.take(pair, *(tuple(g) for g in groups))
        ck.eq(f"'{take}' in legal_moves ({reason(g2, take)})", legal(g2, take), exp["may_take_pozzo_this_turn"])


@it_adapter("open_and_take_pozzo")
def _it_open_and_take_pozzo(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    groups = [cards(md) for md in setup["melds_from_hand_this_turn"]]
    laid = [c for g in groups for c in g]

    def make(phase: str, rules: RuleSet | None = None) -> Game:
        t = build_it_table(case, phase=phase, rules=rules)
        t.hands[PLAYER] += t.use(laid, "melds_from_hand_this_turn") + t.spare_naturals(2)
        return t.game()

    meld = Move.meld(*(tuple(g) for g in groups))
    game = make("meld")
    if "opening_valid" in exp:
        ck.eq(f"opening '{meld}' in legal_moves ({reason(game, meld)})", legal(game, meld), exp["opening_valid"])
    if "opening_clean" in exp:
        ck.eq("opening clean (italian.groups_are_clean)", it_clean(game, groups), exp["opening_clean"])
    g2 = make("draw")
    top = g2.pile[-1]
    pair = tuple(c for c in g2.hand(PLAYER) if IS_NATURAL[c] and CARD_RANK[c] == CARD_RANK[top] and c not in laid)
    take = Move.take(pair, *(tuple(g) for g in groups))
    options = takes(g2, ck)
    if "may_take_pozzo_this_turn" in exp:
        ck.eq(f"'{take}' in legal_moves ({reason(g2, take)})", legal(g2, take), exp["may_take_pozzo_this_turn"])
        if not exp["may_take_pozzo_this_turn"]:
            with_groups = [m for m in options if sorted(map(msort, m.groups[1:])) == sorted(map(msort, groups))]
            ck.eq("generated takes with this opening", with_groups, [])
    if "opening_count" in exp:
        ck.eq("opening count, meld alone (measured on the engine)",
              opening_count(lambda r: make("meld", r), game.rules, meld), exp["opening_count"])
        ck.eq("opening count, with the take (measured on the engine)",
              opening_count(lambda r: make("draw", r), game.rules, take), exp["opening_count"])


def intended_take(hand: Sequence[Card], top: Card) -> Move:
    """Take the pozzo with every natural card of the top's rank, laying every other
    rank held two or more times (a pair gets one wild card, if any is held)."""
    rt = CARD_RANK[top]
    head = tuple(c for c in hand if IS_NATURAL[c] and CARD_RANK[c] == rt)
    by_rank: dict[int, list[Card]] = {}
    for c in hand:
        if IS_NATURAL[c] and CARD_RANK[c] != rt:
            by_rank.setdefault(CARD_RANK[c], []).append(c)
    wilds = [c for c in hand if IS_WILD[c]]
    groups: list[tuple[Card, ...]] = []
    for cs in by_rank.values():
        if len(cs) == 2 and wilds:
            cs = [*cs, wilds.pop(0)]
        if len(cs) >= 3:
            groups.append(tuple(cs))
    return Move.take(head, *groups)


@it_adapter("take_pozzo_and_open")
def _it_take_pozzo_and_open(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]

    def make(rules: RuleSet | None = None) -> Game:
        return build_it_table(case, phase="draw", rules=rules).game()

    game = make()
    move = intended_take(game.hand(PLAYER), game.pile[-1])
    ok = legal(game, move)
    options = takes(game, ck)
    ck.log.append(f"    intended '{move}': {reason(game, move)}; generated: {', '.join(map(str, options)) or 'none'}")
    if ok:
        ck.true("a legal take is among the generated moves", bool(options))
    if "allowed" in exp:
        ck.eq("the pozzo can be taken with an opening", ok or bool(options), exp["allowed"])
    if "opening_count" in exp:
        ck.eq(f"opening count of '{move}' (measured on the engine)", opening_count(make, game.rules, move),
              exp["opening_count"])
    if "minimum" in exp:
        ck.eq("game.minimum(North)", game.minimum(PLAYER), exp["minimum"])
    if "clean" in exp:
        head_clean = not any(IS_WILD[c] for c in move.groups[0])
        extra = it_clean(game, move.groups[1:], skip_key=CARD_RANK[game.pile[-1]])
        ck.eq("opening clean (italian.groups_are_clean)", head_clean and extra, exp["clean"])


# -- melds and canastas


@it_adapter("validate_new_meld")
def _it_validate_new_meld(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    meld = cards(setup["new_meld"])
    going_out = bool(setup.get("player_is_going_out_this_turn", False))
    t = build_it_table(case)
    if any(IS_RED_THREE[c] for c in meld):
        t.hands[PLAYER] = t.use(meld, "new_meld")
        try:
            t.game()
            refused = False
        except PositionError:
            refused = True
        ck.true("a position refuses red threes in a hand (they are laid out, never held)", refused)
        ck.eq("the meld can be laid", not refused, exp["legal"])
        return
    if going_out:
        for kind in ("clean", "dirty"):  # whatever I-O22 asks, the team may go out
            t.add_closed(0, t.canasta(kind, None, "filler canasta"), "filler canasta", filler=True)
    elif not t.opened(0):
        t.filler_meld(0)
    t.hands[PLAYER] = t.use(meld, "new_meld") + t.spare_naturals(1 if going_out else 2)
    game = t.game()
    move = Move.meld(tuple(meld))
    ok = legal(game, move)
    ck.log.append(f"    '{move}': {reason(game, move)}")
    if not ok:
        ck.eq("the cards can be laid as a new meld", False, exp["legal"])
    else:
        before = len(game.melds[0]) + len(game.set_aside(0))
        game.push(move)
        new = len(game.melds[0]) + len(game.set_aside(0)) == before + 1  # not merged into an open meld
        ck.eq(f"'{move}' is legal and lays a new meld", new, exp["legal"])
        if going_out:
            last = Move.discard(game.hand(PLAYER)[0])
            ck.true(f"going out with '{last}' ({reason(game, last)})", legal(game, last))
            if legal(game, last):
                game.push(last)
                ck.true("went out", game.went_out == PLAYER)


@it_adapter("validate_add_to_meld")
def _it_validate_add_to_meld(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    spec = setup["cards_to_add"]
    add = cards(spec["cards"] if isinstance(spec, Mapping) else spec)
    to = cards(spec["to"]) if isinstance(spec, Mapping) else add
    t = build_it_table(case)
    t.hands[PLAYER] = t.use(add, "cards_to_add") + t.spare_naturals(2)
    game = t.game()
    naturals = [c for c in to if IS_NATURAL[c]]
    target = CARD_RANK[naturals[0]] if naturals else None
    key = target if target is not None else WILD_MELD
    move = Move.meld(make_group(add, target))
    ok = legal(game, move)
    ck.eq(f"'{move}' in legal_moves ({reason(game, move)})", ok, exp["legal"])
    if ok:
        game.push(move)
        m, closed = meld_of(game, 0, key, add[0])
        assert m is not None
        it_compare_meld(ck, t, game, m, closed, exp)


@it_adapter("classify_and_score_meld")
def _it_classify_and_score_meld(case: Mapping[str, Any], ck: Checks) -> None:
    """The meld is laid complete from the hand (it closes at once), at a table where
    the team has opened with a filler meld."""
    setup, exp = case["setup"], case["expected"]
    whole = cards(setup["closed_meld"])
    t = build_it_table(case)
    if not t.opened(0):
        t.filler_meld(0)
    t.hands[PLAYER] = t.use(whole, "closed_meld") + t.spare_naturals(2)
    game = t.game()
    move = Move.meld(tuple(whole))
    ck.true(f"'{move}' is legal", legal(game, move), reason(game, move))
    if not legal(game, move):
        return
    game.push(move)
    naturals = [c for c in whole if IS_NATURAL[c]]
    m, closed = meld_of(game, 0, CARD_RANK[naturals[0]] if naturals else WILD_MELD, whole[0])
    assert m is not None
    ck.true("the meld closed as a canasta", closed)
    it_compare_meld(ck, t, game, m, closed, exp)


# -- the pozzo


def _take_attempts(game: Game) -> list[Move]:
    top = game.pile[-1] if game.pile else -1
    same = tuple(c for c in game.hand(PLAYER) if top >= 0 and IS_NATURAL[c] and CARD_RANK[c] == CARD_RANK[top])
    return list(dict.fromkeys([Move.take(same), Move.take(same[:2]), Move.take()]))


def _best_take(ck: Checks, game: Game, exp: Mapping[str, Any]) -> tuple[Move | None, list[Move]]:
    """A legal take and the generated takes (each checked against why_illegal).  The
    take is the one that forms the case's ``meld_formed`` when it is legal, else a
    natural attempt, else the biggest generated take."""
    options = takes(game, ck)
    attempts = [m for m in _take_attempts(game) if legal(game, m)]
    if attempts:
        ck.true("a legal take is among the generated moves", bool(options),
                f"{attempts[0]} is legal; generated: {', '.join(map(str, options)) or 'none'}")
    ranked = attempts + sorted(options, key=lambda m: -move_size(m))
    if "meld_formed" in exp and game.pile:
        shown = minus(cards(exp["meld_formed"]), [game.pile[-1]])
        if not minus(shown, game.hand(PLAYER)) and legal(game, Move.take(tuple(shown))):
            ranked.insert(0, Move.take(tuple(shown)))
    return (ranked[0] if ranked else None), options


@it_adapter("can_take_pozzo")
def _it_can_take_pozzo(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    game = build_it_table(case, phase="draw").game()
    if "pozzo_becomes_frozen" in exp:
        ck.eq("pozzo frozen", game.pile_frozen, exp["pozzo_becomes_frozen"])
    move, _ = _best_take(ck, game, exp)
    attempts = "; ".join(f"{m}: {reason(game, m)}" for m in _take_attempts(game))
    ck.eq(f"the pozzo can be taken ({attempts})", move is not None, exp["can_take"])
    if move is None:
        return
    game.push(move)
    if "meld_formed" in exp:
        top = cards(exp["meld_formed"])
        rank = CARD_RANK[next(c for c in top if IS_NATURAL[c])]
        m, _ = meld_of(game, 0, rank)
        ck.eq("meld formed", msort(m.cards) if m else [], msort(top), as_cards=True)


@it_adapter("take_pozzo")
def _it_take_pozzo(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    t = build_it_table(case, phase="draw")
    game = t.game()
    move, _ = _best_take(ck, game, exp)
    ck.eq(f"the pozzo can be taken ({move})", move is not None, exp.get("allowed", True))
    if move is None:
        return
    hand0, pile0, stock0 = game.hand(PLAYER), list(game.pile), list(game.stock)
    head = list(group_cards(move.groups[0])) + [c for g in move.groups[1:] for c in group_cards(g)]
    game.push(move)
    used = len(stock0) - len(game.stock)
    drawn = [c for c in stock0[len(stock0) - used:][::-1] if not IS_RED_THREE[c]]
    added = minus(game.hand(PLAYER), minus(hand0, head))
    if "meld_formed" in exp:
        formed = cards(exp["meld_formed"])
        m, _ = meld_of(game, 0, CARD_RANK[next(c for c in formed if IS_NATURAL[c])])
        ck.eq("meld formed", msort(m.cards) if m else [], msort(formed), as_cards=True)
    if "then_draws_from_stock" in exp:
        ck.eq("cards drawn from the stock", drawn, cards(exp["then_draws_from_stock"]), as_cards=True)
    if "total_cards_drawn_from_stock" in exp:
        ck.eq("stock cards used", used, exp["total_cards_drawn_from_stock"])
    if "rest_of_pozzo_to_hand" in exp:
        ck.eq("pozzo cards taken into the hand", minus(added, drawn),
              msort(token_cards(t, exp["rest_of_pozzo_to_hand"])), as_cards=True)
    if "cards_taken_from_pozzo" in exp:
        ck.eq("cards taken from the pozzo", minus(pile0, game.pile),
              msort(token_cards(t, exp["cards_taken_from_pozzo"])), as_cards=True)
    if "pozzo_after_bottom_to_top" in exp:
        ck.eq("pozzo after", game.pile, token_cards(t, exp["pozzo_after_bottom_to_top"]), as_cards=True)


# -- drawing


@it_adapter("draw_from_stock")
def _it_draw_from_stock(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_it_table(case, phase="draw")
    opening: list[list[Card]] = []
    if setup.get("player_will_open_this_turn_without_the_pozzo"):
        opening = opening_groups(t, t.rules.minimum_for(t.extra["scores"][0]), dirty=False)
        t.hands[PLAYER] += [c for g in opening for c in g]
    t.hands[PLAYER] += t.spare_naturals(max(2, t.rules.hand_size - len(t.hands[PLAYER])))
    game = t.game()
    hand0, red0 = game.hand(PLAYER), list(game.side_red_threes(0))
    opening_move = Move.meld(*(tuple(g) for g in opening)) if opening else None
    listed = [m for m in generated(game, ck) if m.kind in (DRAW, OPEN)]  # 'open': I-O31
    draws = [m for m in (Move.draw(), Move(OPEN)) if legal(game, m)]
    ck.true("a draw from the stock is legal", bool(draws), ", ".join(map(str, game.legal_moves)))
    ck.eq("the legal draws are all generated by legal_moves", listed, draws)
    if opening_move is not None:
        # the player who will open picks the draw after which the opening is legal
        fits = []
        for m in draws:
            game.push(m)
            if legal(game, opening_move):
                fits.append(m)
            game.pop()
        ck.true(f"some draw lets the player open ({', '.join(map(str, draws))})", bool(fits))
        draws = fits or draws
    if not draws:
        return
    game.push(Move.draw() if Move.draw() in draws else draws[0])
    if "red_threes_laid_out" in exp:
        ck.eq("red threes laid out", minus(game.side_red_threes(0), red0), msort(cards(exp["red_threes_laid_out"])),
              as_cards=True)
    if "cards_added_to_hand" in exp:
        ck.eq("cards added to the hand", minus(game.hand(PLAYER), hand0), msort(cards(exp["cards_added_to_hand"])),
              as_cards=True)
    if "stock_top_after" in exp:
        ck.eq("stock top after", game.stock[-1], parse_card(exp["stock_top_after"]), as_cards=True)
    if opening_move is not None:
        ck.true(f"then the opening '{opening_move}' is legal", legal(game, opening_move), reason(game, opening_move))


@it_adapter("resolve_draw")
def _it_resolve_draw(case: Mapping[str, Any], ck: Checks) -> None:
    """West discards; North must then draw from the stock the case gives."""
    setup, exp = case["setup"], case["expected"]
    t = build_it_table(case)
    t.hands[PLAYER] = t.spare_naturals(t.rules.hand_size)
    prev = (PLAYER - 1) % t.n
    t.extra["turn"], t.extra["phase"] = prev, "meld"
    game = t.game()
    card = next(c for c in game.hand(prev) if IS_NATURAL[c])
    game.push(Move.discard(card))
    if setup.get("player_must_draw"):
        ck.true("it is North's turn to draw, or the hand is over",
                game.is_over() or (game.turn == PLAYER and game.phase == DRAW_PHASE))
    if "hand_ends" in exp:
        ck.eq(f"the hand ends ({game.end_reason or 'not over'})", _turn_ends(game), exp["hand_ends"])
    if "going_out_bonus_awarded" in exp:
        if not game.is_over() and Move.end() in game.legal_moves:
            game.push(Move.end())
        result = game.result
        ck.true("the hand is over", result is not None)
        if result is not None:
            ck.eq("a going-out bonus was awarded", any(s.going_out for s in result), exp["going_out_bonus_awarded"])


# -- going out


@it_adapter("can_go_out")
def _it_can_go_out(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_it_table(case)
    if not t.hands[PLAYER]:
        if setup.get("player_could_otherwise_go_out", True):
            t.hands[PLAYER] = t.take_rank(t.spare_rank(3), 3, "hand") + t.spare_naturals(1)  # a meld, a discard
        else:
            t.hands[PLAYER] = t.spare_naturals(2)
    game = t.game()
    if setup.get("player_asked_partner"):
        ask = Move.ask()
        ck.true(f"'ask' is legal ({reason(game, ask)})", legal(game, ask))
        if legal(game, ask):
            game.push(ask)
            answer = Move.answer(str(setup.get("partner_answer", "yes")).lower() == "yes")
            ck.true(f"the partner may answer '{answer}'", legal(game, answer), reason(game, answer))
            if legal(game, answer):
                game.push(answer)
    ck.eq("game.can_go_out()", game.can_go_out(), exp["can_go_out"])
    path, complete = find_going_out(game)
    if complete or path is not None:
        ck.eq("a going-out sequence exists among the legal moves "
              f"({' ; '.join(map(str, path)) if path else 'none'})", path is not None, exp["can_go_out"])


@it_adapter("go_out")
def _it_go_out(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    t = build_it_table(case)
    game = t.game()
    planned = setup.get("planned_final_discard", exp.get("final_discard") if "melds" in exp else None)
    if "planned_final_discard" not in setup or exp["legal"]:
        # a planned discard that may not end the hand does not mean no other way out exists
        ck.eq("game.can_go_out()", game.can_go_out(), exp["legal"])
    if "melds" in exp or planned is not None:
        groups = [cards(md) for md in exp["melds"]] if "melds" in exp else None
        path = go_out_path(game.hand(PLAYER), None if planned is None else parse_card(planned), groups)
        done = play_path(ck, game, path) and game.went_out == PLAYER
        ck.eq(f"going out with '{' ; '.join(map(str, path))}'", done, exp["legal"])
    else:
        found, complete = find_going_out(game)
        if complete or found is not None:
            ck.eq(f"a going-out sequence exists among the legal moves ({' ; '.join(map(str, found or []))})",
                  found is not None, exp["legal"])
        for move in found or []:
            game.push(move)
    if game.went_out != PLAYER:
        return
    result = game.result
    assert result is not None
    if "final_discard" in exp:
        ck.eq("the last card went to the pozzo", game.pile[-1], parse_card(exp["final_discard"]), as_cards=True)
    if "going_out_bonus" in exp:
        ck.eq("going-out bonus", result[0].going_out, exp["going_out_bonus"])


# -- scoring


@it_adapter("score_red_threes")
def _it_score_red_threes(case: Mapping[str, Any], ck: Checks) -> None:
    exp = case["expected"]
    t = build_it_table(case, phase="over")
    game = t.game()
    result = game.result
    assert result is not None
    ck.eq("hand score red_threes", result[0].red_threes, exp["points"])
    clean, dirty, _ = italian.closed_counts(game, 0)
    ck.eq("italian.red_three_score(...)",
          italian.red_three_score(game.rules, len(game.side_red_threes(0)), clean, dirty), exp["points"])


@it_adapter("score_five_canasta_bonus")
def _it_score_five_canasta_bonus(case: Mapping[str, Any], ck: Checks) -> None:
    """The hand is over; the team (or, when it did not, the other team) went out."""
    setup, exp = case["setup"], case["expected"]
    t = build_it_table(case, phase="over")
    t.extra["went_out"] = PLAYER if setup.get("team_went_out") else seats_of_side(t.rules, 1)[0]
    result = t.game().result
    assert result is not None
    ck.eq("hand score five_canasta_bonus", result[0].bonus("five_canasta_bonus"), exp["points"])


def _penalty_fields(ck: Checks, label: str, game: Game, side: int, got: int, want: object) -> None:
    plain = -sum(game.card_value[c] for s in seats_of_side(game.rules, side) for c in game.hand(s))
    if isinstance(want, Mapping):
        for key in want:
            if key == "points":
                ck.eq(f"{label} cards in hand", got, want[key])
            elif key == "normal":
                ck.eq(f"{label} value of the cards in hand", plain, want[key])
            elif key.startswith("doubled"):
                ck.eq(f"{label} value of the cards in hand, doubled", 2 * plain, want[key])
            else:
                raise AssertionError(f"cards_in_hand field {key!r} not understood")
    else:
        ck.eq(f"{label} cards in hand", got, want)


@it_adapter("score_cards_in_hand")
def _it_score_cards_in_hand(case: Mapping[str, Any], ck: Checks) -> None:
    setup, exp = case["setup"], case["expected"]
    rules = it_rules(case)
    t = ItTable(rules, setup, phase="over")
    out = team_in_text(rules, str(setup.get("went_out", "")))
    t.extra["went_out"] = -1 if out is None else out
    sides = []
    for key, data in setup.items():
        if not _TEAM_KEY.match(key) or not isinstance(data, Mapping):
            continue
        side = it_side(key)
        sides.append(side)
        seats = [s for s in seats_of_side(rules, side) if s != out]
        t.hands[seats[0]] = t.use(cards(data.get("cards_left_in_hands", [])), f"{key} hand")
        t.force_opened[side] = bool(data.get("has_opened", False))
    game = t.game()
    result = game.result
    assert result is not None and len(sides) == 1
    side = sides[0]
    ck.eq("hand score hand_penalty", result[side].hand_penalty, exp["points"])
    if "doubled" in exp:
        plain = -sum(game.card_value[c] for s in seats_of_side(rules, side) for c in game.hand(s))
        ck.eq("the count was doubled", result[side].hand_penalty == 2 * plain != 0, exp["doubled"])


@it_adapter("score_hand")
def _it_score_hand(case: Mapping[str, Any], ck: Checks) -> None:
    """Teams' closed canastas, open melds, red threes and hands at the end; a player who
    went out with a final discard holds that card and plays it."""
    setup, exp = case["setup"], case["expected"]
    rules = it_rules(case)
    t = ItTable(rules, setup, phase="over")
    teams: dict[int, Mapping[str, Any]] = {}
    for key, data in setup.items():
        if isinstance(data, Mapping) and (key == "team" or _TEAM_KEY.match(key)):
            teams[0 if key == "team" else it_side(key)] = data
    went = setup.get("went_out")
    out: int | None = None
    final: Card | None = None
    if isinstance(went, str):
        out = team_in_text(rules, went)
        m = re.search(r"final discard (\S+)", went)
        final = parse_card(m.group(1)) if m else None
    elif setup.get("other_team_went_out"):
        out = seats_of_side(rules, 1)[0]
    for side, data in teams.items():
        if data.get("went_out") is True:
            out = seats_of_side(rules, side)[0]
    for side, data in teams.items():
        seats = seats_of_side(rules, side)
        for md in data.get("closed_canastas") or []:
            t.add_closed(side, cards(md), f"team {side} closed canastas", taken=False)
        for md in data.get("open_melds") or []:
            t.add_meld(side, cards(md), where=f"team {side} open melds")
        t.red3[seats[0]] = t.use(cards(data.get("red_threes") or []), f"team {side} red threes")
        for name, hand in (data.get("hands") or {}).items():
            t.hands[SEATS[name]] = t.use(cards(hand), f"{name} hand")
        if "cards_left_in_hands" in data:
            holder = next(s for s in seats if s != out)
            t.hands[holder] = t.use(cards(data["cards_left_in_hands"]), f"team {side} hands")
        if data.get("has_opened") is True:
            t.force_opened[side] = True
        elif data.get("has_opened") is False:
            assert not t.opened(side), "case setup: a team that has not opened has melds"
    if out is not None and final is not None:
        t.hands[out] = t.hands[out] + t.use([final], "final discard")
        t.extra["turn"], t.extra["phase"] = out, "meld"
    else:
        t.extra["went_out"] = -1 if out is None else out
    game = t.game()
    if out is not None and final is not None:
        move = Move.discard(final)
        ck.true(f"going out with '{move}' ({reason(game, move)})", legal(game, move))
        if not legal(game, move):
            return
        game.push(move)
        ck.true("went out", game.went_out == out)
    result = game.result
    assert result is not None
    flat = "team" in setup or not any(_TEAM_KEY.match(k) for k in exp)
    for side in sorted(teams):
        name = "ABC"[side]
        if not flat and name not in exp:
            continue
        e: Mapping[str, Any] = exp if flat else exp[name]
        if not flat:
            unknown = [k for k in e if k not in SCORE_FIELDS and not is_prose(e[k])]
            ck.true(f"team {name}: every expected field is understood", not unknown, str(unknown))
        s = result[side]
        label = f"team {name}:"
        if "meld_card_points" in e:
            ck.eq(f"{label} meld card points", s.meld_points, e["meld_card_points"])
        if "canasta_bonuses" in e:
            ck.eq(f"{label} canasta bonuses", s.canasta_bonuses, bonus_total(e["canasta_bonuses"]))
            items = bonus_items(e["canasta_bonuses"])
            if items is not None:
                ck.eq(f"{label} canasta bonuses, one by one",
                      sorted(it_canasta(rules, m)[2] for m in game.set_aside(side)), items)
        if "going_out" in e:
            ck.eq(f"{label} going out", s.going_out, e["going_out"])
        if "five_canasta_bonus" in e:
            ck.eq(f"{label} five-canasta bonus", s.bonus("five_canasta_bonus"), e["five_canasta_bonus"])
        if "red_threes" in e:
            want = e["red_threes"]
            if isinstance(want, Mapping):
                count = len(game.side_red_threes(side))
                clean, dirty, _ = italian.closed_counts(game, side)
                for key in want:
                    if key == "count":
                        ck.eq(f"{label} red threes held", count, want[key])
                    elif key == "base":
                        ck.eq(f"{label} red threes base value (rules.red_three_points)",
                              rules.red_three_points(count), want[key])
                    elif key == "multiplier":
                        ck.eq(f"{label} red threes multiplier (italian.multiplier)",
                              italian.multiplier(clean, dirty), want[key])
                    elif key == "points":
                        ck.eq(f"{label} red threes", s.red_threes, want[key])
                    else:
                        raise AssertionError(f"red_threes field {key!r} not understood")
            else:
                ck.eq(f"{label} red threes", s.red_threes, want)
        if "cards_in_hand" in e:
            _penalty_fields(ck, label, game, side, s.hand_penalty, e["cards_in_hand"])
        if "hand_total" in e:
            ck.eq(f"{label} hand total", s.total, e["hand_total"])
        if flat:
            break


# ---------------------------------------------------------------------------- the test


@pytest.mark.parametrize("case", _params())
def test_case(case: dict[str, Any] | None) -> None:
    if case is None:
        pytest.fail(_MISSING, pytrace=False)
    action = str(case["action"])
    is_italian = str(case["variant"]) == "italian"
    fn = (IT_ADAPTERS if is_italian else ADAPTERS).get(action)
    if fn is None:
        pytest.fail(f"{case['id']}: no adapter for action {action!r}", pytrace=False)
    unknown = (it_unknown_setup_keys if is_italian else unknown_setup_keys)(case["setup"])
    if unknown:
        pytest.fail(f"{case['id']}: setup keys {unknown} are not understood by the adapters", pytrace=False)
    ck = Checks(case)
    if is_italian:
        exp = Expected(case["expected"])
        fn({**case, "expected": exp}, ck)
        for key in exp:
            if key not in exp.seen and not is_prose(exp.raw[key]):
                ck.true(f"expected field {key!r} compared", False, "no adapter compared it")
    else:
        fn(case, ck)
    ck.done()
