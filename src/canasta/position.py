"""Positions: a whole table as JSON, written and read back exactly.

A position holds everything the engine needs: the rules, every hand, the
melds, red threes, the pile (bottom to top), the stock (top first), scores,
the dealer, whose turn and in which phase, and the per-turn flags.  It lets
any rule situation be set up directly in a test or a bug report::

    game = game_from_position({"rules": "classic-4p", "turn": 1, "phase": "meld",
                               "hands": [[], ["8H", "8S", "9C"], [], []],
                               "melds": [[], [{"cards": ["8D", "8C", "2C"]}]]})

When ``stock`` is left out, the cards not placed elsewhere form it, shuffled by
``stock_seed``; ``stock_top`` puts chosen cards on top of it.

A sketch like this one must name its ``rules`` (:data:`REQUIRED_FIELDS`); every
other field has a default.  A position that says its ``format`` is a written one
(:func:`position_of`) and must hold every field that writes, but ``stock``
(:data:`WRITTEN_REQUIRED`); a missing field is refused by name.

``game.to_dict()``, ``game.to_json()`` and ``Game.from_dict(data)`` are the same
functions under the names every other object uses (:class:`~canasta.rules.RuleSet`,
:class:`~canasta.view.SeatView`, :class:`~canasta.play.table.Table`); the names here
remain as aliases.  Cards are strings in a position, card codes in the game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from canasta.cards import (
    CARD_RANK,
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    NUM_CARDS,
    Card,
    card_str,
    make_deck,
    parse_card,
)
from canasta.errors import CanastaError, NotationError, PositionError
from canasta.game import FAMILIES, Game, RuleFamily, family_of, set_position_codec
from canasta.melds import Meld
from canasta.rules import RuleSet
from canasta.state import ASK_NAMES, PHASE_NAMES, SHARED_FIELDS, WRITTEN, StatePart

FORMAT: Final = "canasta-position/1"
#: the fields every position must give (a sketch, without ``format``, may leave out the rest)
REQUIRED_FIELDS: Final = ("rules",)


def read_cards(value: Any, what: str) -> list[Card]:
    if not isinstance(value, list):
        raise PositionError(f"{what} must be a list of cards such as [\"AS\", \"10H\"]")
    out = []
    for v in value:
        if not isinstance(v, str):
            raise PositionError(f"{what}: {v!r} is not a card string")
        try:
            out.append(parse_card(v))
        except NotationError as exc:
            raise PositionError(f"{what}: {exc}") from None
    return out


def _strs(cards: Sequence[Card]) -> list[str]:
    return [card_str(c) for c in cards]


def position_of(game: Game) -> dict[str, Any]:
    """The whole table as a JSON-ready mapping: the hand's fixed facts, then
    every written field of the state record (:data:`canasta.state.SHARED_FIELDS`), then the
    family's part's (its ``FIELDS``)."""
    g = game
    out: dict[str, Any] = {
        "format": FORMAT,
        "rules": g.rules.to_dict(),
        "seed": g.seed,
        "hand_number": g.hand_number,
        "dealer": g.dealer,
        "scores": list(g.start_scores),
    }
    for f in SHARED_FIELDS:  # with the codecs each declares (canasta.state.HandState)
        value = getattr(g, f.attr)
        out[f.name] = f.write(g, value) if f.write else (list(value) if isinstance(value, list) else value)
    if g.part is not None:
        out.update(part_position(g, g.part))
    return out


def part_position(game: Game, part: StatePart) -> dict[str, Any]:
    """A family's own fields in a position of ``game``, written with the codecs ``part`` (the
    game's part, or a changed copy of it) declares."""
    out: dict[str, Any] = {}
    for f in part.FIELDS:
        value = getattr(part, f.attr)
        out[f.name] = f.write(game, value) if f.write else (list(value) if isinstance(value, list) else value)
    return out


def position_json(game: Game) -> str:
    """:func:`position_of` as JSON text (``game.to_json()``)."""
    return json.dumps(position_of(game), indent=1)


def _get(data: Mapping[str, Any], key: str, kind: type, default: Any) -> Any:
    value = data.get(key, default)
    if kind is int and (type(value) is not int):
        raise PositionError(f"{key} must be a whole number, not {value!r}")
    if kind is bool and type(value) is not bool:
        raise PositionError(f"{key} must be true or false, not {value!r}")
    if kind is str and not isinstance(value, str):
        raise PositionError(f"{key} must be text, not {value!r}")
    return value


def _bools(data: Mapping[str, Any], key: str, n: int) -> list[bool]:
    value = data.get(key, [False] * n)
    if not isinstance(value, list) or len(value) != n or not all(type(v) is bool for v in value):
        raise PositionError(f"{key} must be a list of {n} true/false values")
    return list(value)


def read_meld(rules: RuleSet, entry: Any, where: str) -> Meld:
    """A meld of a position: a list of cards, or an object with ``cards`` (and ``concealed``,
    ``owner``, ``turn``); checked against the family's rules (a family's own fields read
    their melds with it too)."""
    if isinstance(entry, list):
        entry = {"cards": entry}
    if not isinstance(entry, Mapping):
        raise PositionError(f"{where} must be a list of cards or an object with 'cards'")
    m = _meld(rules, read_cards(entry.get("cards"), where), where)
    m.owner = _get(entry, "owner", int, -1)
    m.turn = _get(entry, "turn", int, 0)
    m.concealed = _get(entry, "concealed", bool, False)
    return m


def _read_part(g: Game, data: Mapping[str, Any], take: Callable[[list[Card]], list[Card]]) -> None:
    """The family's own fields, as its state part declares them (read after the melds and the
    pile, which they may refer to); a field of another family's part is refused unless it holds
    that part's start value."""
    part = g.part
    own = {f.name for f in part.FIELDS} if part is not None else set()
    for name, start in _foreign_fields(g.family).items():
        if name in data and name not in own and data[name] != start:
            raise PositionError(f"{name} has no meaning in {g.rules.family} hands")
    if part is None:
        return
    for f in part.FIELDS:
        if f.name not in data:
            if f.derive is not None:
                setattr(part, f.attr, f.derive(g))
            elif "format" in data:
                raise PositionError(f"a written position (one with \"format\") lacks {f.name}")
            continue
        raw = data[f.name]
        if f.read is not None:
            value = f.read(g, raw)
        else:
            start = getattr(part, f.attr)
            if isinstance(start, list):
                if not isinstance(raw, list) or not all(type(x) is int for x in raw):
                    raise PositionError(f"{f.name} must be a list of whole numbers")
                value = list(raw)
            else:
                value = _get(data, f.name, type(start), start)
        if f.copy == "meld_lists":  # melds on the table: their cards are of the pack
            for side in value:
                for m in side:
                    take(m.cards)
        setattr(part, f.attr, value)


def _foreign_fields(family: RuleFamily) -> dict[str, Any]:
    """The fields other families' parts declare, each with its start value as written."""
    out: dict[str, Any] = {}
    for other in FAMILIES.values():
        part = other.new_part(2) if other is not family else None
        if part is None:
            continue
        for f in part.FIELDS:
            value = getattr(part, f.attr)
            out[f.name] = f.write(None, value) if f.write else (list(value) if isinstance(value, list) else value)
    return out


def game_from_position(data: Mapping[str, Any] | str) -> Game:
    """Read a position (mapping or JSON text; ``Game.from_dict``); raises
    :class:`PositionError` with what is wrong, or which fields are missing
    (:data:`REQUIRED_FIELDS`, and :data:`WRITTEN_REQUIRED` for a written position)."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise PositionError(f"position is not valid JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise PositionError("a position must be a JSON object")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise PositionError(f"unknown position format {fmt!r}; expected {FORMAT!r}")
    missing = [k for k in WRITTEN_REQUIRED if k not in data] if "format" in data else []
    if missing:
        raise PositionError(f"a written position (one with \"format\") lacks {', '.join(missing)} (only \"stock\" "
                            f"and the derived {', '.join(DERIVED_FIELDS)} may be left out)")
    rules_data = data.get("rules", "classic-4p")
    try:
        rules = RuleSet.preset(rules_data) if isinstance(rules_data, str) else RuleSet.from_dict(rules_data)
    except CanastaError as exc:
        raise PositionError(f"rules: {exc}") from None
    family = family_of(rules)
    n = rules.players
    dealer = _get(data, "dealer", int, 0)
    if not 0 <= dealer < n:
        raise PositionError(f"dealer must be a seat from 0 to {n - 1}")
    scores = data.get("scores")
    g = Game(rules, _get(data, "seed", int, 0), dealer=dealer, deal=False,
             hand_number=_get(data, "hand_number", int, 1))
    if scores is not None:
        if (not isinstance(scores, list) or len(scores) != g.score_slots
                or not all(type(x) is int for x in scores)):
            raise PositionError(f"scores must be a list of {g.score_slots} whole numbers")
        g.start_scores = list(scores)
    side_of = data.get("side_of")
    if side_of is not None:
        if not isinstance(side_of, list) or len(side_of) != n or not all(
            type(x) is int and 0 <= x < len(rules.teams) for x in side_of
        ):
            raise PositionError(f"side_of must list a side number for each of the {n} seats")
        g.side_of = list(side_of)
    g.lone_seat = _get(data, "lone", int, -1)
    if not -1 <= g.lone_seat < n:
        raise PositionError(f"lone must be -1 or a seat from 0 to {n - 1}")
    turn = _get(data, "turn", int, (dealer + 1) % n)
    if not 0 <= turn < n:
        raise PositionError(f"turn must be a seat from 0 to {n - 1}")
    g.turn = turn
    phase = _get(data, "phase", str, "draw")
    if phase not in PHASE_NAMES:
        raise PositionError(f"phase must be one of {', '.join(PHASE_NAMES)}, not {phase!r}")
    g.phase = PHASE_NAMES.index(phase)
    g.turn_no = _get(data, "turn_number", int, 1)
    used = [0] * NUM_CARDS

    def take(cards: list[Card]) -> list[Card]:
        for c in cards:
            used[c] += 1
        return cards

    pending = _bools(data, "red_threes_pending", n)
    hands = data.get("hands", [[] for _ in range(n)])
    if not isinstance(hands, list) or len(hands) != n:
        raise PositionError(f"hands must list the cards of each of the {n} seats")
    for s, h in enumerate(hands):
        for c in take(read_cards(h, f"hands[{s}]")):
            if IS_RED_THREE[c] and not pending[s]:
                raise PositionError(f"hands[{s}] holds a red three; red threes are laid out, never held")
            g.hands[s][c] += 1
            g.rank_counts[s][CARD_RANK[c]] += 1
            g.hand_sizes[s] += 1
    known = data.get("known", [[] for _ in range(n)])
    if not isinstance(known, list) or len(known) != n:
        raise PositionError(f"known must list cards for each of the {n} seats")
    for s, k in enumerate(known):
        for c in read_cards(k, f"known[{s}]"):
            g.known[s][c] += 1
            if g.known[s][c] > g.hands[s][c]:
                raise PositionError(f"known[{s}] lists {card_str(c)}, which is not in that hand")
    red = data.get("red_threes", [[] for _ in range(n)])
    if not isinstance(red, list) or len(red) != n:
        raise PositionError(f"red_threes must list the red threes of each of the {n} seats")
    for s, rs in enumerate(red):
        cards = take(read_cards(rs, f"red_threes[{s}]"))
        if not all(IS_RED_THREE[c] for c in cards):
            raise PositionError(f"red_threes[{s}] may hold only 3H and 3D")
        g.red3[s] = cards
    listed = data.get("melds", [[] for _ in g.melds])
    if not isinstance(listed, list) or len(listed) != len(g.melds):
        raise PositionError(f"melds must list the melds of each of the {len(g.melds)} sides")
    for side, side_list in enumerate(listed):
        if not isinstance(side_list, list):
            raise PositionError(f"melds[{side}] must be a list of melds")
        for i, md in enumerate(side_list):
            m = read_meld(rules, md, f"melds[{side}][{i}]")
            take(m.cards)
            if m.rank in g.melds[side]:
                raise PositionError(f"melds[{side}] has two melds of the same rank (A.5.7)")
            if family.closes_canastas and m.size >= 7:
                raise PositionError(f"melds[{side}][{i}] has seven cards: list it under 'closed' (B.7.2)")
            g.melds[side][m.rank] = m
    g.pile = take(read_cards(data.get("pile", []), "pile"))
    _read_part(g, data, take)
    opened = data.get("opened")
    for side in range(len(g.melds)):
        g.opened[side] = bool(g.melds[side]) or bool(g.set_aside(side))
    if opened is not None:
        if (not isinstance(opened, list) or len(opened) != len(g.melds)
                or not all(type(x) is bool for x in opened)):
            raise PositionError(f"opened must list true/false for each of the {len(g.melds)} sides")
        for side, flag in enumerate(opened):
            if g.opened[side] and not flag:
                raise PositionError(f"side {side} has melds on the table, so it has opened")
            g.opened[side] = flag
    g.recount_canastas()
    g.pile_frozen = _get(data, "pile_frozen", bool, pile_frozen_by_cards(rules, g.pile, list(g.face_down())))
    deck = make_deck(rules.packs)
    avail = [0] * NUM_CARDS
    for c in deck:
        avail[c] += 1
    if "stock" in data:
        stock_top_first = take(read_cards(data["stock"], "stock"))
    else:
        top = read_cards(data.get("stock_top", []), "stock_top")
        take(top)
        rest = []
        left = avail[:]
        for c in range(NUM_CARDS):
            left[c] -= used[c]
            if left[c] > 0:
                rest.extend([c] * left[c])
        random.Random(_get(data, "stock_seed", int, 0)).shuffle(rest)
        for c in rest:
            used[c] += 1
        stock_top_first = top + rest
    for c in range(NUM_CARDS):
        if used[c] > avail[c]:
            raise PositionError(
                f"{card_str(c)} appears {used[c]} times, but a {rules.deck_size}-card pack has {avail[c]}"
            )
    if sum(used) != len(deck):
        raise PositionError(
            f"the position holds {sum(used)} cards; the pack has {len(deck)} (leave out 'stock' to fill it)"
        )
    g.stock = stock_top_first[::-1]
    g.took_pile = _get(data, "took_pile", bool, False)
    g.melded_now = _get(data, "melded_this_turn", bool, False)
    g.touched_old = _get(data, "touched_old_melds", bool, False)
    ask = _get(data, "ask", str, "none")
    if ask not in ASK_NAMES:
        raise PositionError(f"ask must be one of {', '.join(ASK_NAMES)}")
    g.ask = ASK_NAMES.index(ask)
    g.has_melded = _bools(data, "has_melded", n)
    g.added_to_partner = _bools(data, "added_to_partner", n)
    g.red3_pending = pending
    g.went_out = _get(data, "went_out", int, -1)
    if not -1 <= g.went_out < n:
        raise PositionError(f"went_out must be -1 or a seat from 0 to {n - 1}")
    g.out_concealed = _get(data, "concealed_out", bool, False)
    g.end_reason = _get(data, "end_reason", str, "")
    # checked last, so that a sketch's field given wrong is named first
    missing = [k for k in REQUIRED_FIELDS if k not in data]
    if missing:
        raise PositionError(f"a position lacks {', '.join(missing)} (rules: a preset name such as \"classic-4p\" "
                            "or a rules table; the other fields have defaults)")
    return g


#: the shared fields :func:`game_from_position` derives when a position leaves them out (a
#: family's part may derive its own too: :func:`derived_fields`)
DERIVED_FIELDS: Final = ("pile_frozen", "opened")
#: what a written position (one with ``format``) may not leave out: every field
#: :func:`position_of` writes but ``stock`` (left out, the cards not placed elsewhere form it)
#: and the :data:`DERIVED_FIELDS`
WRITTEN_REQUIRED: Final = tuple(k for k in ("format", "rules", "seed", "hand_number", "dealer", "scores",
                                            *(name for _, name in WRITTEN))
                                if k != "stock" and k not in DERIVED_FIELDS)


def derived_fields(rules: RuleSet) -> tuple[str, ...]:
    """Every field a position of these rules may leave out and have derived: the shared
    :data:`DERIVED_FIELDS` and those the family's state part derives (Italian: ``clean_turn``)."""
    part = family_of(rules).new_part(len(rules.teams))
    own = tuple(f.name for f in part.FIELDS if f.derive is not None) if part is not None else ()
    return DERIVED_FIELDS + own


def pile_frozen_by_cards(rules: RuleSet, pile: Sequence[Card], hidden: Sequence[int] = (0, 0)) -> bool:
    """Whether a pile holding these cards (bottom to top) is frozen, as play leaves it.

    A pile is emptied when it is taken, so every card in it was turned up or
    discarded since, and the pile is frozen exactly when one of them freezes it:
    a wild card (A.8.3, B.10.2, B.4.2); under C-O2 a black three, turned up
    (covered or not, C-O3) or discarded (A.8.2); under C-O13 a red three, which
    can be in the pile only as a turned upcard (A.3.3).  In Italian Canasta the
    pozzo's dealt cards below its upcard never freeze it: with I-O30 ``face_down``
    they are ``hidden`` (``pozzo_hidden``); with ``face_up`` nothing marks them,
    and with I-O32 ``top_card_only`` a taken pozzo keeps its lower cards (wild
    ones included) unfrozen, so positions under those two options must give
    ``pile_frozen`` themselves (``position_of`` always writes it)."""
    lo, hi = (hidden[0], hidden[1]) if len(hidden) == 2 else (0, 0)
    for i, c in enumerate(pile):
        if lo <= i < hi:
            continue
        if IS_WILD[c]:
            return True
        if IS_BLACK_THREE[c] and rules.black_three_freezes:
            return True
        if IS_RED_THREE[c] and rules.red_three_upcard_freezes:
            return True
    return False


def _meld(rules: RuleSet, cards: list[Card], what: str) -> Meld:
    from canasta.errors import refuse
    from canasta.melds import WILD_MELD

    family = family_of(rules)
    if not cards:
        raise PositionError(f"{what} is empty")
    ranks = {CARD_RANK[c] for c in cards if IS_NATURAL[c] or IS_BLACK_THREE[c]}
    if family.has_wild_melds and not ranks and all(IS_WILD[c] for c in cards):
        ranks = {WILD_MELD}
    if len(ranks) != 1 or any(IS_RED_THREE[c] for c in cards):
        raise PositionError(f"{what} is not a meld of one rank")
    m = Meld(ranks.pop())
    for c in cards:
        m.add(c)
    if m.rank != 1:
        bad = family.meld_shape_error(rules, m)
        if bad is not None:
            raise PositionError(f"{what}: {refuse(bad)}")
    elif m.wilds:
        raise PositionError(f"{what}: black threes are melded without wild cards")
    return m


__all__ = ["DERIVED_FIELDS", "FORMAT", "JOKER", "REQUIRED_FIELDS", "WRITTEN_REQUIRED", "derived_fields", "game_from_position",
           "part_position", "pile_frozen_by_cards", "position_json", "position_of", "read_cards", "read_meld"]


set_position_codec(position_of, game_from_position)
