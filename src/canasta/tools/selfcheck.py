"""Self-check: random hands played through the checked API, with the engine's
invariants verified after every move.  ``canasta selfcheck`` runs it at scale
(a soak); the tests run it small on every preset."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from canasta.engine.cards import IS_RED_THREE, NUM_CARDS, card_str, make_deck
from canasta.engine.errors import refuse
from canasta.engine.game import Game
from canasta.engine.moves import Move
from canasta.engine.rules import RuleSet
from canasta.engine.state import cards_in
from canasta.views.seat import seat_view


def problems_in(game: Game) -> list[str]:
    """Every broken invariant of a position (an empty list when all hold)."""
    g = game
    r = g.rules
    out: list[str] = []
    where: Counter[int] = Counter()
    for s in range(g.players):
        for c in range(NUM_CARDS):
            where[c] += g.hands[s][c]
            if g.known[s][c] > g.hands[s][c]:
                out.append(f"seat {s}: {card_str(c)} shown as known but not held")
            if g.hands[s][c] and IS_RED_THREE[c] and not g.red3_pending[s] and not (
                    g.part is not None and g.family.keeps_laid_out(g, s)
                    and sum(g.hands[s][x] for x in g.family.laid_out_cards) == 1):
                out.append(f"seat {s} holds a red three")
        if sum(g.hands[s]) != g.hand_sizes[s]:
            out.append(f"seat {s}: hand size {g.hand_sizes[s]} does not match its cards")
        if g.hand_sizes[s] == 0 and not g.is_over():
            out.append(f"seat {s} has no cards but the hand goes on")
        where.update(g.red3[s])
    for side in range(g.num_sides):
        for key, m in g.melds[side].items():
            where.update(m.cards)
            if m.rank != key:
                out.append(f"side {side}: meld {m} filed under the wrong rank")
            if key != 1 and not r.cutthroat:  # cut-throat partners' merged melds may be over the limits
                bad = g.family.meld_shape_error(r, m)
                if bad is not None:
                    out.append(f"side {side}: illegal meld {m}: {refuse(bad).message}")
        for m in g.set_aside(side):
            if m.size != g.canasta_size:
                out.append(f"side {side}: closed canasta {m} does not have {g.canasta_size} cards")
    if g.part is not None:  # what the family's own fields lay on the table (Italian: closed canastas)
        for f in g.part.FIELDS:
            if f.placed or f.aside:
                value = getattr(g.part, f.attr)
                placed: list[int] = []
                cards_in(f.view(g, value) if f.view is not None else value, placed)
                where.update(placed)
    where.update(g.pile)
    where.update(g.stock)
    deck = Counter(make_deck(r.packs))
    if where != deck:
        diff = (where - deck) + (deck - where)
        out.append("cards not accounted for: " + " ".join(card_str(c) for c in diff.elements()))
    for s in range(g.players):
        v = seat_view(g, s)
        if sorted(v.hand) != g.hand(s):
            out.append(f"seat {s}: the view shows a different hand")
        lo, hi = g.face_down()
        for i, shown in enumerate(v.pile):
            if (shown is None) != (lo <= i < hi):
                out.append(f"seat {s}: the view shows the pile's face-down cards wrongly")
                break
        for other, cards in enumerate(v.known):
            held = Counter(g.hand(other))
            if Counter(cards) - held:
                out.append(f"seat {s}: the view claims cards seat {other} does not hold")
    return out


@dataclass
class SelfCheck:
    rules: str
    hands: int = 0
    decisions: int = 0
    went_out: int = 0
    problems: list[str] = field(default_factory=list)


def run_selfcheck(rules: RuleSet, hands: int, seed: int, check_every_move: bool = True,
                  progress: object | None = None) -> SelfCheck:
    """Play ``hands`` random hands with every move validated and round-tripped
    through the notation, checking the invariants (after every move, or at the
    end of each hand)."""
    report = SelfCheck(rules.name)
    rng = random.Random(seed)
    for i in range(hands):
        game = Game(rules, seed + i, dealer=i % rules.players)
        count = 0
        while not game.is_over():
            moves = list(game.legal_moves)
            if not moves:
                report.problems.append(f"hand {seed + i}: no legal move in {game!r}")
                break
            move = moves[rng.randrange(len(moves))]
            if Move.parse(str(move)) != move:
                report.problems.append(f"hand {seed + i}: {move} does not round-trip")
            game.push(move)
            count += 1
            if check_every_move:
                report.problems.extend(f"hand {seed + i}, move {count} ({move}): {p}" for p in problems_in(game))
            if count > 5000:
                report.problems.append(f"hand {seed + i}: no end after 5000 moves")
                break
        report.problems.extend(f"hand {seed + i} at the end: {p}" for p in problems_in(game))
        result = game.result or []
        for sc in result:
            if sc.total != sum(points for _, points in sc.lines()):
                report.problems.append(f"hand {seed + i}: a score differs from the sum of its breakdown")
        if game.went_out >= 0:
            report.went_out += 1
            side = game.side_of[game.went_out]
            if not game.family.going_out_met(game, side):
                report.problems.append(f"hand {seed + i}: went out without the canastas its rules ask for "
                                       "(A.12.2, B.13.1)")
        report.hands += 1
        report.decisions += count
        if callable(progress):
            progress()
    return report
