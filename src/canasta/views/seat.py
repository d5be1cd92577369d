"""Seat views: exactly what one seat may know, and worlds sampled from it.

A :class:`SeatView` is built from a game *by copying out* the public parts and
the seat's own hand; it holds no reference to the game, so a bot or client that
receives one cannot reach hidden cards.  What a seat may know:

* its own hand;
* everything public: melds, red threes, the discard pile (every card in it was
  seen face up), the stock size, hand sizes, scores, whose turn, the flags;
* the cards known to be in other hands because they were picked up with the pile
  (and not played since).

:func:`sample_world` deals the unseen cards at random, consistently with a
view, into a full :class:`~canasta.engine.game.Game` (what search bots need).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from canasta.engine import compiled_pickle, turns
from canasta.engine.cards import (
    IS_RED_THREE,
    NUM_CARDS,
    Card,
    card_str,
    make_deck,
    read_cards,
)
from canasta.engine.errors import CanastaError, PositionError
from canasta.engine.family import PileNote, TableNote, TableSeen
from canasta.engine.game import Game, family_of
from canasta.engine.melds import WILD_MELD, meld_from_cards
from canasta.engine.rules import RuleSet
from canasta.engine.state import ASK_NAMES, PHASE_NAMES, SHARED_FIELDS, cards_in


@dataclass(frozen=True)
class SeatView:
    """What ``seat`` may know.  Card lists are card codes."""

    rules: RuleSet
    seat: int
    hand_number: int
    dealer: int
    scores: tuple[int, ...]
    turn: int
    to_move: int
    phase: str
    turn_number: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    known: tuple[tuple[Card, ...], ...]  # per seat: cards known to be in that hand
    red_threes: tuple[tuple[Card, ...], ...]  # per seat
    melds: tuple[tuple[tuple[tuple[Card, ...], bool, int, int], ...], ...]  # per side: (cards, concealed, owner, turn)
    pile: tuple[Card | None, ...]  # None: a face-down pozzo card (Italian)
    pile_frozen: bool
    stock_size: int
    side_of: tuple[int, ...]
    lone: int
    took_pile: bool
    melded_this_turn: bool
    touched_old_melds: bool
    ask: str
    must_go_out: bool
    has_melded: tuple[bool, ...]
    added_to_partner: tuple[bool, ...]
    red_threes_pending: tuple[bool, ...]
    went_out: int
    concealed_out: bool
    end_reason: str
    opened: tuple[bool, ...] = ()
    #: the family's own public fields, by name, as its state part's ``FIELDS`` declare them
    #: (Italian: its closed canastas, the pozzo's face-down cards, the cut cards ...)
    part_fields: tuple[tuple[str, Any], ...] = ()
    #: the sizes of the rows of the family's fields of cards set face down apart (``StateField.aside``:
    #: C.8.3's talons set aside at the deal, M-O14), by name: how many cards lie there is public, not which
    aside: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def part_value(self, name: str, default: Any = None) -> Any:
        """A public field of the family's state part by its name (``default`` where the
        family has no such field)."""
        return next((v for k, v in self.part_fields if k == name), default)

    def placed_cards(self) -> list[Card]:
        """The cards the family's own fields lay on the table (Italian: its closed canastas)."""
        part = family_of(self.rules).new_part(len(self.rules.teams))
        out: list[Card] = []
        for f in part.FIELDS if part is not None else ():
            if f.placed:
                cards_in(self.part_value(f.name, ()), out)
        return out

    @property
    def side(self) -> int:
        """This seat's side; -1 for a spectator."""
        return self.side_of[self.seat] if self.seat >= 0 else -1

    @property
    def spectator(self) -> bool:
        """Whether this is a spectator's view (no hand)."""
        return self.seat < 0

    def minimum(self, seat: int) -> int:
        """The initial-meld minimum of ``seat``'s side in this hand (A.7.1, B.9.1), as
        :meth:`canasta.engine.game.Game.minimum` gives it."""
        score = self.scores[seat] if self.rules.cutthroat else self.scores[self.side_of[seat]]
        return self.rules.minimum_for(score, self.hand_number)

    def unseen_cards(self) -> list[Card]:
        """Cards this seat cannot place: in other hands (beyond what is known) or in the stock."""
        counts = [0] * NUM_CARDS
        for c in make_deck(self.rules.packs):
            counts[c] += 1
        seen: list[Card] = list(self.hand) + [c for c in self.pile if c is not None] + self.placed_cards()
        for s, cards in enumerate(self.known):
            if s != self.seat:
                seen.extend(cards)
        for reds in self.red_threes:
            seen.extend(reds)
        for side in self.melds:
            for cards, _, _, _ in side:
                seen.extend(cards)
        for c in seen:
            counts[c] -= 1
        if any(k < 0 for k in counts):
            raise PositionError("the view holds more copies of a card than the pack has")
        return [c for c in range(NUM_CARDS) for _ in range(counts[c])]

    def to_dict(self, include_rules: bool = True) -> dict[str, Any]:
        """JSON-ready; ``include_rules=False`` leaves the rule set out (a client
        that already has it need not receive it with every view)."""

        def strs(cards: tuple[Card, ...]) -> list[str]:
            return [card_str(c) for c in cards]

        def pile_strs(cards: tuple[Card | None, ...]) -> list[str]:
            return ["??" if c is None else card_str(c) for c in cards]

        out: dict[str, Any] = {
            "format": "canasta-view/1",
            "seat": self.seat,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "scores": list(self.scores),
            "turn": self.turn,
            "to_move": self.to_move,
            "phase": self.phase,
            "turn_number": self.turn_number,
            "hand": strs(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "known": [strs(k) for k in self.known],
            "red_threes": [strs(r) for r in self.red_threes],
            "melds": [
                [{"cards": strs(c), "concealed": conc, "owner": o, "turn": t} for c, conc, o, t in side]
                for side in self.melds
            ],
            "pile": pile_strs(self.pile),
            "opened": list(self.opened),
            "pile_frozen": self.pile_frozen,
            "stock_size": self.stock_size,
            "side_of": list(self.side_of),
            "lone": self.lone,
            "took_pile": self.took_pile,
            "melded_this_turn": self.melded_this_turn,
            "touched_old_melds": self.touched_old_melds,
            "ask": self.ask,
            "must_go_out": self.must_go_out,
            "has_melded": list(self.has_melded),
            "added_to_partner": list(self.added_to_partner),
            "red_threes_pending": list(self.red_threes_pending),
            "went_out": self.went_out,
            "concealed_out": self.concealed_out,
            "end_reason": self.end_reason,
        }
        cards = _card_fields(self.rules)
        for name, value in self.part_fields:
            out[name] = _json_of(value, name in cards)
        if self.aside:
            out["aside"] = {name: list(sizes) for name, sizes in self.aside}
        if include_rules:
            out["rules"] = self.rules.to_dict()
        return out

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text (:meth:`from_dict` reads either)."""
        return json.dumps(self.to_dict())

    @staticmethod
    def from_dict(data: Mapping[str, Any] | str) -> SeatView:
        """Read a view written by :meth:`to_dict`; raises :class:`PositionError`."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise PositionError(f"view is not valid JSON: {exc}") from None
        if not isinstance(data, Mapping) or data.get("format") != "canasta-view/1":
            raise PositionError("not a seat view (expected an object with format 'canasta-view/1')")
        try:
            rules = RuleSet.from_dict(data["rules"])

            def tup(key: str) -> tuple[Card, ...]:
                return tuple(read_cards(data[key], key))

            def per(key: str) -> tuple[tuple[Card, ...], ...]:
                return tuple(tuple(read_cards(x, key)) for x in data[key])

            melds = tuple(
                tuple((tuple(read_cards(m["cards"], "melds")), bool(m["concealed"]), int(m["owner"]),
                       int(m["turn"])) for m in side)
                for side in data["melds"]
            )
            return SeatView(
                rules=rules, seat=int(data["seat"]), hand_number=int(data["hand_number"]),
                dealer=int(data["dealer"]), scores=tuple(int(x) for x in data["scores"]),
                turn=int(data["turn"]), to_move=int(data["to_move"]), phase=str(data["phase"]),
                turn_number=int(data["turn_number"]), hand=tup("hand"),
                hand_sizes=tuple(int(x) for x in data["hand_sizes"]), known=per("known"),
                red_threes=per("red_threes"), melds=melds,
                pile=tuple(None if x == "??" else read_cards([x], "pile")[0] for x in data["pile"]),
                opened=tuple(bool(x) for x in data.get("opened", [])),
                pile_frozen=bool(data["pile_frozen"]), stock_size=int(data["stock_size"]),
                side_of=tuple(int(x) for x in data["side_of"]), lone=int(data["lone"]),
                took_pile=bool(data["took_pile"]), melded_this_turn=bool(data["melded_this_turn"]),
                touched_old_melds=bool(data["touched_old_melds"]), ask=str(data["ask"]),
                must_go_out=bool(data.get("must_go_out", False)),
                has_melded=tuple(bool(x) for x in data["has_melded"]),
                added_to_partner=tuple(bool(x) for x in data["added_to_partner"]),
                red_threes_pending=tuple(bool(x) for x in data["red_threes_pending"]),
                went_out=int(data["went_out"]), concealed_out=bool(data["concealed_out"]),
                end_reason=str(data["end_reason"]),
                part_fields=_part_fields_of(rules, data),
                aside=tuple((str(k), tuple(int(n) for n in v)) for k, v in dict(data.get("aside") or {}).items()),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, PositionError):
                raise
            raise PositionError(f"malformed seat view: {exc!r}") from None


def _part_fields_of(rules: RuleSet, data: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The family's own public fields a written view holds."""
    part = family_of(rules).new_part(len(rules.teams))
    if part is None:
        return ()
    out = []
    for f in part.FIELDS:
        if f.seen == "public" and f.name in data:
            out.append((f.name, _value_of(data[f.name], f.cards, f.name)))
    return tuple(out)


def _card_fields(rules: RuleSet) -> frozenset[str]:
    """The names of the family's own fields that hold cards."""
    part = family_of(rules).new_part(len(rules.teams))
    return frozenset(f.name for f in part.FIELDS if f.cards) if part is not None else frozenset()


def _json_of(value: Any, cards: bool) -> Any:
    """A field's view value as JSON: tuples as lists, cards named."""
    if isinstance(value, (tuple, list)):
        return [_json_of(x, cards) for x in value]
    return card_str(value) if cards else value


def _value_of(data: Any, cards: bool, name: str) -> Any:
    """A field's view value read back from JSON (:func:`_json_of`)."""
    if isinstance(data, list):
        return tuple(_value_of(x, cards, name) for x in data)
    return read_cards([data], name)[0] if cards else data


def pile_note_list(view: SeatView) -> list[PileNote]:
    """The discard pile's (or pozzo's) state for this seat, as notes an interface can
    translate by key (:data:`canasta.engine.family.PILE_NOTES`): frozen, blocked, and why, and
    what it takes to pick it up (A.8, A.9, B.10)."""
    r = view.rules
    if not view.pile:
        return [PileNote("empty")]
    family = family_of(r)
    notes: list[PileNote] = []
    mine = view.side >= 0 and bool(view.opened) and not view.opened[view.side]
    if view.pile_frozen:
        notes.append(family.frozen_note(r))
    elif mine:
        notes.append(family.unmelded_note())
    notes.extend(family.top_card_notes(r, view.pile[-1], dict(view.part_fields), view.side))
    if not notes:
        notes.append(family.open_note(r))
    return notes


def table_note_list(view: SeatView) -> list[TableNote]:
    """What the family says to this seat about the table beyond the pile (its talons, dead ranks,
    the opening it needs ...: :meth:`RuleFamily.table_notes <canasta.engine.family.RuleFamily.table_notes>`),
    as notes an interface translates by key."""
    seen = TableSeen(side=view.side, opened=view.opened,
                     melds=tuple(tuple(cards for cards, _, _, _ in side) for side in view.melds),
                     stock_size=view.stock_size, pile_size=len(view.pile),
                     minimum=view.minimum(view.seat) if view.seat >= 0 else 0, fields=dict(view.part_fields))
    return family_of(view.rules).table_notes(view.rules, seen)


def pile_notes(view: SeatView) -> list[str]:
    """:func:`pile_note_list` in English."""
    return [note.text for note in pile_note_list(view)]


def spectator_view(game: Game) -> SeatView:
    """What anyone watching may know: the public table, no hand (``seat`` is -1)."""
    return _view(game, -1)


def seat_view(game: Game, seat: int) -> SeatView:
    """What ``seat`` may know of ``game`` (copied out; no reference to the game)."""
    if not isinstance(game, Game):
        raise CanastaError(f"seat_view needs a Game, not {type(game).__name__}")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < game.players:
        raise CanastaError(f"seat must be a whole number from 0 to {game.players - 1}, not {seat!r}")
    return _view(game, seat)


#: the public shared fields, as (attribute, view field, how a view copies it out: its declared
#: ``view`` codec, None for a plain value or list, copied as a tuple), in the record's order
_PUBLIC: Final = tuple((f.attr, f.name, f.view) for f in SHARED_FIELDS if f.seen == "public")


def _view(game: Game, seat: int) -> SeatView:
    g = game
    data: dict[str, Any] = {}
    for attr, name, out in _PUBLIC:
        value = getattr(g, attr)
        data[name] = out(g, value) if out else (tuple(value) if isinstance(value, list) else value)
    part = g.part
    extra: list[tuple[str, Any]] = []
    aside: list[tuple[str, tuple[int, ...]]] = []
    if part is not None:  # the family's own fields, as its state part declares them
        for f in part.FIELDS:
            if f.seen == "public":
                value = getattr(part, f.attr)
                extra.append((f.name, f.view(g, value) if f.view else (tuple(value) if isinstance(value, list) else value)))
            elif f.aside:  # face down apart: how many, not which
                aside.append((f.name, tuple(len(row) for row in getattr(part, f.attr))))
    return SeatView(
        rules=g.rules,
        seat=seat,
        hand_number=g.hand_number,
        dealer=g.dealer,
        scores=tuple(g.start_scores),
        to_move=g.to_move,
        hand=tuple(g.hand(seat)) if seat >= 0 else (),
        hand_sizes=tuple(g.hand_sizes),
        stock_size=len(g.stock),
        part_fields=tuple(extra),
        aside=tuple(aside),
        **data,
    )


def sample_world(view: SeatView, rng: random.Random) -> Game:
    """A full game consistent with ``view``: the unseen cards dealt at random
    to the other hands (around their known cards) and to the stock.  ``rng`` is a
    :class:`random.Random` (``random.Random(seed)``: the same seed, the same world)."""
    if not isinstance(view, SeatView):
        raise CanastaError(f"sample_world needs a SeatView (seat_view(game, seat)), not {type(view).__name__}")
    if not isinstance(rng, random.Random):
        raise CanastaError(f"sample_world needs a random.Random, e.g. random.Random(1), not {type(rng).__name__}")
    unseen = view.unseen_cards()
    rng.shuffle(unseen)
    # red threes are laid out at once, so unseen ones are in the stock, except in
    # the hand of a player who has not yet laid out dealt ones (C-O8)
    reds = [c for c in unseen if IS_RED_THREE[c]]
    others = [c for c in unseen if not IS_RED_THREE[c]]
    hands_cards: list[list[Card]] = []
    for s in range(len(view.hand_sizes)):
        if s == view.seat:
            cards = list(view.hand)
        else:
            cards = list(view.known[s])
            need = view.hand_sizes[s] - len(cards)
            pool = others
            if view.red_threes_pending[s] and reds:
                pool = others + reds
                rng.shuffle(pool)
            if need < 0 or need > len(pool):
                raise PositionError("the view's hand sizes do not fit the unseen cards")
            cards += pool[:need]
            taken = pool[:need]
            for c in taken:
                (reds if IS_RED_THREE[c] else others).remove(c)
        hands_cards.append(cards)
    rest = others + reds
    rng.shuffle(rest)
    pile_cards: list[Card] = []
    for shown in view.pile:  # a face-down pozzo card can be any unseen card
        pile_cards.append(rest.pop() if shown is None else shown)
    aside: list[tuple[str, list[list[Card]]]] = []
    for name, sizes in view.aside:  # the cards set apart face down: any unseen cards, row by row
        if sum(sizes) > len(rest):
            raise PositionError(f"the view's {name} do not fit the unseen cards")
        aside.append((name, [[rest.pop() for _ in range(n)] for n in sizes]))
    stock = rest
    if len(stock) != view.stock_size:
        raise PositionError(
            f"the view leaves {len(stock)} unseen cards for a stock of {view.stock_size}"
        )
    return _build(view, hands_cards, pile_cards, stock, aside)


def _build(view: SeatView, hands: list[list[Card]], pile: list[Card], stock_top_first: list[Card],
           aside: Sequence[tuple[str, list[list[Card]]]] = ()) -> Game:
    """A game from a view and the hidden cards it lacks (``aside``: the rows of the family's
    fields set apart, by name), built directly."""
    g = Game(view.rules, 0, dealer=view.dealer, scores=view.scores, hand_number=view.hand_number, deal=False)
    for attr, name, out in _PUBLIC:  # the plain fields, by field; the others below
        if out is None:
            value = getattr(view, name)
            setattr(g, attr, list(value) if isinstance(value, tuple) else value)
    g.turn = view.turn
    g.phase = PHASE_NAMES.index(view.phase)
    g.ask = ASK_NAMES.index(view.ask)
    part = g.part
    if part is not None:  # the family's own fields, as its state part declares them
        for f in part.FIELDS:
            if f.seen == "public":
                value = view.part_value(f.name, getattr(part, f.attr))
                setattr(part, f.attr, f.unview(g, value) if f.unview else
                        (list(value) if isinstance(value, tuple) else value))
        rows = dict(aside)
        for f in part.FIELDS:
            if f.aside and f.name in rows:
                setattr(part, f.attr, rows[f.name])
    for s, cards in enumerate(hands):
        for c in cards:
            turns.add_to_hand(g, s, c)
        for c in view.known[s]:
            g.known[s][c] += 1
    g.red3 = [list(x) for x in view.red_threes]
    for side, side_melds in enumerate(view.melds):
        for meld_cards, concealed, owner, turn in side_melds:
            m = meld_from_cards(meld_cards, concealed, g.canasta_size)
            if m.rank < 0:  # a meld of wild cards only (Italian)
                m.rank = WILD_MELD
            m.owner, m.turn = owner, turn
            g.melds[side][m.rank] = m
    g.opened = list(view.opened) if view.opened else [bool(g.melds[i]) or bool(g.set_aside(i))
                                                      for i in range(len(g.melds))]
    g.recount_canastas()
    g.pile = pile
    g.stock = stock_top_first[::-1]
    return g


compiled_pickle.register([__name__])  # compiled: this module's classes pickle and copy (canasta.engine.compiled_pickle)
