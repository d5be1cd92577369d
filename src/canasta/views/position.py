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
functions under the names every other object uses (:class:`~canasta.engine.rules.RuleSet`,
:class:`~canasta.views.seat.SeatView`, :class:`~canasta.play.table.Table`); the names here
remain as aliases.  Cards are strings in a position, card codes in the game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

from canasta.engine.cards import (
    CARD_RANK,
    IS_RED_THREE,
    JOKER,
    NUM_CARDS,
    Card,
    card_str,
    make_deck,
    read_cards,
)
from canasta.engine.errors import CanastaError, PositionError
from canasta.engine.game import FAMILIES, Game, RuleFamily, family_of, set_position_codec
from canasta.engine.rules import RuleSet
from canasta.engine.state import (
    SHARED_FIELDS,
    WRITTEN,
    StateField,
    StatePart,
    cards_in,
    pile_frozen_by_cards,
    read_meld,
)

FORMAT: Final = "canasta-position/1"
#: the fields every position must give (a sketch, without ``format``, may leave out the rest)
REQUIRED_FIELDS: Final = ("rules",)


def _strs(cards: Sequence[Card]) -> list[str]:
    return [card_str(c) for c in cards]


def position_of(game: Game) -> dict[str, Any]:
    """The whole table as a JSON-ready mapping: the hand's fixed facts, then
    every written field of the state record (:data:`canasta.engine.state.SHARED_FIELDS`), then the
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
    for f in SHARED_FIELDS:  # with the codecs each declares (canasta.engine.state.HandState)
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
    (:data:`REQUIRED_FIELDS`, and :data:`WRITTEN_REQUIRED` for a written position).

    The hand's fixed facts make the game; then every field of the state, the shared ones
    (:data:`canasta.engine.state.SHARED_FIELDS`) and the family's part's (its ``FIELDS``), is read
    with the codec it declares, and a field left out is derived as it declares, once the
    given ones are read; last come the checks between fields and of the cards of the pack."""
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
    _refuse_unknown(data)
    written = "format" in data
    missing = [k for k in WRITTEN_REQUIRED if k not in data] if written else []
    if missing:
        raise PositionError(f"a written position (one with \"format\") lacks {', '.join(missing)} (only \"stock\" "
                            f"and the derived {', '.join(DERIVED_FIELDS)} may be left out)")
    g = _game_of_facts(data)
    for name, start in _foreign_fields(g.family).items():
        if name in data and data[name] != start and not any(f.name == name for _, f in _fields(g)):
            raise PositionError(f"{name} has no meaning in {g.rules.family} hands")
    later = []
    for holder, f in _fields(g):
        if f.name in data:
            raw = data[f.name]
            setattr(holder, f.attr, f.read(g, raw) if f.read is not None else _plain(f.name, raw, getattr(holder, f.attr)))
        elif f.derive is not None:
            later.append((holder, f))
        elif written and f.name != "stock" and holder is not g:
            raise PositionError(f"a written position (one with \"format\") lacks {f.name}")
    for holder, f in later:
        setattr(holder, f.attr, f.derive(g))  # type: ignore[misc]  # not None: listed for it
    _check(g, data)
    # checked last, so that a sketch's field given wrong is named first
    missing = [k for k in REQUIRED_FIELDS if k not in data]
    if missing:
        raise PositionError(f"a position lacks {', '.join(missing)} (rules: a preset name such as \"classic-4p\" "
                            "or a rules table; the other fields have defaults)")
    return g


#: what a position may give beside the fields of the state: the hand's fixed facts, and how a sketch's stock is dealt
FACT_FIELDS: Final = ("format", "rules", "seed", "hand_number", "dealer", "scores", "stock_seed", "stock_top")


def _refuse_unknown(data: Mapping[str, Any]) -> None:
    """A field no family reads is refused by name (a misspelt ``scroes`` would otherwise be
    ignored), with the nearest known name."""
    import difflib

    known = {*FACT_FIELDS, *(f.name for f in SHARED_FIELDS)}
    for family in FAMILIES.values():
        part = family.new_part(2)
        known.update(f.name for f in (part.FIELDS if part is not None else ()))
    unknown = [str(k) for k in data if k not in known]
    if unknown:
        near = difflib.get_close_matches(unknown[0], sorted(known), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else f"; the fields are {', '.join(sorted(known))}"
        raise PositionError(f"unknown field {unknown[0]!r} in a position{hint}")


def _game_of_facts(data: Mapping[str, Any]) -> Game:
    """A game with no card placed, of the position's rules, seed, hand number, dealer and scores."""
    rules_data = data.get("rules", "classic-4p")
    try:
        rules = RuleSet.preset(rules_data) if isinstance(rules_data, str) else RuleSet.from_dict(rules_data)
    except CanastaError as exc:
        raise PositionError(f"rules: {exc}") from None
    n = rules.players
    dealer = _get(data, "dealer", int, 0)
    if not 0 <= dealer < n:
        raise PositionError(f"dealer must be a seat from 0 to {n - 1}")
    g = Game(rules, _get(data, "seed", int, 0), dealer=dealer, deal=False,
             hand_number=_get(data, "hand_number", int, 1))
    scores = data.get("scores")
    if scores is not None:
        if (not isinstance(scores, list) or len(scores) != g.score_slots
                or not all(type(x) is int for x in scores)):
            raise PositionError(f"scores must be a list of {g.score_slots} whole numbers")
        g.start_scores = list(scores)
    return g


def _fields(g: Game) -> list[tuple[Any, StateField]]:
    """Every written field of ``g``'s state with what holds it: the game, or the family's part."""
    out: list[tuple[Any, StateField]] = [(g, f) for f in SHARED_FIELDS]
    if g.part is not None:
        out.extend((g.part, f) for f in g.part.FIELDS)
    return out


def _plain(name: str, raw: Any, start: Any) -> Any:
    """A field without a codec of its own, read as a value of its start value's type (a list:
    as long as it, of its items' type)."""
    if isinstance(start, list):
        kind = type(start[0]) if start else int
        words = "true/false values" if kind is bool else "whole numbers"
        if not isinstance(raw, list) or (start and len(raw) != len(start)) or not all(type(x) is kind for x in raw):
            raise PositionError(f"{name} must be a list of {f'{len(start)} ' if start else ''}{words}")
        return list(raw)
    return _get({name: raw}, name, type(start), start)


def _keeps_one(g: Game, seat: int) -> bool:
    """``seat`` holds one card its family lays out, and the family lets it keep one now (M-O32)."""
    held = sum(g.hands[seat][c] for c in g.family.laid_out_cards)
    return held == 1 and g.part is not None and g.family.keeps_laid_out(g, seat)


def _check(g: Game, data: Mapping[str, Any]) -> None:
    """What no single field says: red threes only in the hands of those who have yet to lay
    them out, known cards in their hands, an opened flag for every side with melds, and every
    card of the pack in exactly one place (the stock, when left out, being the rest)."""
    for s in range(g.players):
        held = [c for c in range(NUM_CARDS) if g.hands[s][c]]
        if any(IS_RED_THREE[c] for c in held) and not g.red3_pending[s] and not _keeps_one(g, s):
            raise PositionError(f"hands[{s}] holds a red three; red threes are laid out, never held")
        for c in range(NUM_CARDS):
            if g.known[s][c] > g.hands[s][c]:
                raise PositionError(f"known[{s}] lists {card_str(c)}, which is not in that hand")
        g.rank_counts[s] = [0] * len(g.rank_counts[s])
        for c in held:
            g.rank_counts[s][CARD_RANK[c]] += g.hands[s][c]
        g.hand_sizes[s] = sum(g.hands[s])
    for side, flag in enumerate(g.opened):
        if not flag and (g.melds[side] or g.set_aside(side)):
            raise PositionError(f"side {side} has melds on the table, so it has opened")
    g.recount_canastas()
    used = [0] * NUM_CARDS
    for c in _cards_placed(g):
        used[c] += 1
    deck = make_deck(g.rules.packs)
    avail = [0] * NUM_CARDS
    for c in deck:
        avail[c] += 1
    if "stock" not in data:
        top = read_cards(data.get("stock_top", []), "stock_top")
        rest = []
        for c in top:
            used[c] += 1
        for c in range(NUM_CARDS):
            rest.extend([c] * max(0, avail[c] - used[c]))
        random.Random(_get(data, "stock_seed", int, 0)).shuffle(rest)
        for c in rest:
            used[c] += 1
        g.stock = (top + rest)[::-1]
    else:
        for c in g.stock:
            used[c] += 1
    for c in range(NUM_CARDS):
        if used[c] > avail[c]:
            raise PositionError(
                f"{card_str(c)} appears {used[c]} times, but a {g.rules.deck_size}-card pack has {avail[c]}"
            )
    if sum(used) != len(deck):
        raise PositionError(
            f"the position holds {sum(used)} cards; the pack has {len(deck)} (leave out 'stock' to fill it)"
        )


def _cards_placed(g: Game) -> list[Card]:
    """The cards in the hands and on the table (not the stock): the hands, and every field
    the state or the family's part declares placed, as a seat view copies it out."""
    out = [c for s in range(g.players) for c in range(NUM_CARDS) for _ in range(g.hands[s][c])]
    out.extend(c for side in g.melds for m in side.values() for c in m.cards)
    out.extend(g.pile)
    for holder, f in _fields(g):
        if f.placed or f.aside:
            value = getattr(holder, f.attr)
            cards_in(f.view(g, value) if f.view is not None else value, out)
    return out


#: the shared fields :func:`game_from_position` derives when a position leaves them out (a
#: family's part may derive its own too: :func:`derived_fields`)
DERIVED_FIELDS: Final = ("pile_frozen", "opened", "must_go_out")
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


__all__ = ["DERIVED_FIELDS", "FORMAT", "JOKER", "REQUIRED_FIELDS", "WRITTEN_REQUIRED", "derived_fields", "game_from_position",
           "part_position", "pile_frozen_by_cards", "position_json", "position_of", "read_cards", "read_meld"]


set_position_codec(position_of, game_from_position)
