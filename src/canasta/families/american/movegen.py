"""Modern American move generation (Part C): the generating set of a position, and the search
that says whether the player to move can still go out this turn.

The generating set keeps the engine's promise (``canasta.engine.game``): every move it lists is
legal (each is checked by the family's plans, or, where a plan would ask no more, by the checks
it would make), and every end of the turn legal moves reach, listed
moves reach too.  Once a side has melded, a meld grows one card at a time (a card on a meld, a new
meld of three, two natural cards and a wild card in the opening turn, the meld of wild cards);
the initial meld, the initial meld made by picking the pack, and special hands come whole.  An
initial meld is listed only in its *least* forms: those from which no card or group can be left
out with the meld still enough (C.7.1, C.7.2); what it leaves out is laid after it, card by card,
in the same turn (the opening turn allows what the initial meld allows, C.5.5); the least initial
melds are found by :mod:`.openings`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Final

from canasta.engine.cards import (
    ACE,
    CARD_RANK,
    DEUCE_VALUE,
    IS_WILD,
    JOKER,
    JOKER_RANK,
    JOKER_VALUE,
    NATURAL_RANKS,
    NUM_CARDS,
    RANK_CARDS,
    RANK_VALUE,
    SEVEN,
    THREE,
    TWO,
    Card,
)
from canasta.engine.errors import IllegalMoveError
from canasta.engine.melds import WILD_MELD
from canasta.engine.moves import ASK, DISCARD, DRAW, END, MELD, NO, TAKE, YES, Move
from canasta.engine.options import (
    CODE_SHIFT,
    DEUCE_ON_OPT,
    DEUCE_ON_WILD,
    DEUCE_ON_WILD_OPT,
    JOKER_ON,
    JOKER_ON_OPT,
    JOKER_ON_WILD,
    JOKER_ON_WILD_OPT,
    NATURAL_ON_OPT,
    NEW_PAIR_DEUCE_OPT,
    NEW_PAIR_JOKER,
    NEW_PAIR_JOKER_OPT,
    NEW_THREE_OPT,
    NEW_WILD,
    NEW_WILD_OPT,
    Option,
    Spec,
    code_move,
)
from canasta.engine.state import ANSWER_PHASE, ASK_NO, ASK_NONE, ASK_YES, DRAW_PHASE, MELD_PHASE
from canasta.families.american import special
from canasta.families.american.melds import CANASTA, group_error, is_dead
from canasta.families.american.openings import build, dead_now, meets, opening_choices, pop_cards, valid
from canasta.families.american.options import american_rules
from canasta.families.american.rules import any_discard, back_cards, discard_ok, opening_turn

if TYPE_CHECKING:
    from canasta.engine.game import Game

_DRAW: Final = Move(DRAW)
_END: Final = Move(END)
_ASK: Final = Move(ASK)
_YES: Final = Move(YES)
_NO: Final = Move(NO)
#: the most nodes the going-out search visits before it answers no
SEARCH_BUDGET: Final = 4000
#: the nodes the going-out search has visited in this process: its work, counted (for tests and
#: benchmarks; a count, not a time, so the same on any machine)
searched: list[int] = [0]


def _legal(g: Game, move: Move) -> bool:
    try:
        g.plan(move)
    except IllegalMoveError:
        return False
    return True


def options(g: Game) -> list[Option]:
    """The generating set (see the module docstring)."""
    phase = g.phase
    if phase == ANSWER_PHASE:
        return [_YES, _NO]
    if phase == DRAW_PHASE:
        out: list[Option] = []
        if g.stock:
            out.append(_DRAW)
        out.extend(gen_takes(g))
        if not g.stock and _legal(g, _END):
            out.append(_END)
        return out
    if phase != MELD_PHASE:
        return []
    seat = g.turn
    hand = g.hands[seat]
    moves = meld_options(g)
    quick = g.hand_sizes[seat] > 1 and g.ask == ASK_NONE and not g.must_go_out  # no going out, nothing bound
    rc = g.rank_counts[seat]
    if quick and g.pile:  # on a pack: any card but a three; a wild card only from a hand with no natural card
        wild_ok = True
        for r in NATURAL_RANKS:
            if rc[r]:
                wild_ok = False
                break
        for r in range(JOKER_RANK + 1):
            if rc[r] and r != THREE and (wild_ok or (r != TWO and r != JOKER_RANK)):
                moves.append(r)  # the discard option of the rank (code 0)
    elif quick:  # on an empty tray (may_discard, the fallback of M-O17 reckoned once)
        size = g.hand_sizes[seat]
        fallback = -1
        for r in range(JOKER_RANK + 1):
            if rc[r] and r != THREE:
                if not discard_ok(g, hand, _held(hand, r), size):
                    if fallback < 0:
                        fallback = int(not any_discard(g, hand, size) and not back_cards(g, seat))
                    if not fallback:
                        continue
                moves.append(r)
    else:
        for r in range(JOKER_RANK + 1):
            if rc[r] and _legal(g, Move(DISCARD, ((_held(hand, r),),))):
                moves.append(r)
    if not g.pile and american_rules(g.rules).no_discard == "take_back":
        moves.extend(m for m in (Move(DISCARD, ((c,),)) for c in back_cards(g, seat)) if _legal(g, m))
    # asking (the checks of Game.plan's, in its order, without building its refusals)
    if (g.ask == ASK_NONE and not g.must_go_out and g.has_partner(seat) and g.hand_sizes[seat] >= 2
            and g.family.may_ask(g)):
        moves.append(_ASK)
    return moves


def meld_options(g: Game) -> list[Option]:
    """The meld moves of the generating set (in the meld phase)."""
    seat = g.turn
    side = g.side_of[seat]
    moves: list[Option] = []
    if g.opened[side]:
        _legal_steps(g, side, seat, moves)
        if american_rules(g.rules).eighth_card_going_out:
            moves.extend(m for m in _beyond(g, side, seat) if _legal(g, m))
        if g.hand_sizes[seat] == special.SIZE and american_rules(g.rules).special_timing == "courtesy":
            found = _special(g, seat)  # M-O25: in the first turn after the partner's initial meld
            if found is not None:
                moves.append(found)
    else:
        moves.extend(_legal_openings(g, side, seat))
        found = _special(g, seat)
        if found is not None:
            moves.append(found)
    return moves


# ---------------------------------------------------------------------------- one card at a time


def _steps(g: Game, side: int, seat: int) -> list[int]:
    """The one-step melds of a side that has melded (checked by the caller), but those its melds
    surely refuse (a dead rank, C.5.8; a wild card on a meld of sevens, on aces after the
    opening turn, on a meld of two wild cards or, under the rule of five, of fewer than five
    natural cards, C.5.4 to C.5.6)."""
    out: list[int] = []
    rc = g.rank_counts[seat]
    melds = g.melds[side]
    deuces, jokers = rc[TWO], rc[JOKER_RANK]
    rules = american_rules(g.rules)
    opening = opening_turn(g, side)
    five = rules.rule_of_five and not opening
    beyond = rules.eighth_card_going_out
    dead = dead_now(g)
    for r in NATURAL_RANKS:
        k = rc[r]
        m = melds.get(r)
        if m is not None:
            if dead[r] and not (beyond and m.size >= CANASTA):
                continue
            if k:
                out.append(NATURAL_ON_OPT + r)
            if (r == SEVEN or (r == ACE and not opening) or m.wilds >= 2 or (five and m.naturals < 5)
                    or not (deuces or jokers)):
                continue
            if deuces:
                out.append(DEUCE_ON_OPT + r)
            if jokers:
                out.append(JOKER_ON_OPT + r)
        elif k >= 2:
            if dead[r]:
                continue
            if k >= 3:
                out.append(NEW_THREE_OPT + r)
            if r == SEVEN or (r == ACE and not opening) or five:
                continue
            if deuces:
                out.append(NEW_PAIR_DEUCE_OPT + r)
            if jokers:
                out.append(NEW_PAIR_JOKER_OPT + r)
    if WILD_MELD in melds:
        if deuces:
            out.append(DEUCE_ON_WILD_OPT)
        if jokers:
            out.append(JOKER_ON_WILD_OPT)
    else:
        for j in range(4):
            if j <= jokers and 3 - j <= deuces:
                out.append(NEW_WILD_OPT + j)
    return out


#: per option code: the natural and the wild cards a one-step meld lays
_LAYS: Final = ((0, 0), (1, 0), (0, 1), (0, 1), (3, 0), (2, 1), (2, 1), (0, 1), (0, 1), (0, 3))


def _legal_steps(g: Game, side: int, seat: int, out: list[Option]) -> None:
    """Append the legal one-step melds of :func:`_steps` to ``out``.  Where the move leaves at
    least two cards, nothing is bound and no card goes on a finished canasta, the plan
    (:func:`.rules.plan_meld`) asks only what the meld takes (C.5), C.5.7's open meld of wild
    cards, C.3.2's kept three and on an empty tray C.10.4's discard kept, so those are asked
    here; elsewhere the plan is made."""
    hand = g.hands[seat]
    if g.ask == ASK_YES or g.must_go_out:
        for opt in _steps(g, side, seat):
            if _legal(g, code_move(hand, opt)):
                out.append(opt)
        return
    melds = g.melds[side]
    rules = american_rules(g.rules)
    size = g.hand_sizes[seat]
    # on an empty tray under M-O17 = prevent, a hand that may discard must keep a card it may (C.10.4)
    keep_discard = not g.pile and rules.no_discard == "prevent" and any_discard(g, hand, size)
    opening = opening_turn(g, side)
    five = rules.rule_of_five
    beyond = rules.eighth_card_going_out
    wm = melds.get(WILD_MELD)
    wild_open = wm is not None and wm.size < CANASTA
    kept = g.rank_counts[seat][THREE] if rules.three_for_straight == "keep_one" else -1
    for opt in _steps(g, side, seat):
        code = opt >> CODE_SHIFT
        n, w = _LAYS[code]
        key = WILD_MELD if code >= DEUCE_ON_WILD else opt & 15
        left = size - n - w
        if left < 2 or (beyond and key in melds and melds[key].size >= CANASTA):
            if _legal(g, code_move(hand, opt)):
                out.append(opt)
        elif (group_error(melds, g.melds, key, n, w, opening, five, beyond) is None
              and not (w and key != WILD_MELD and wild_open) and kept < left):
            if keep_discard and not any_discard(g, _after_step(hand, opt), left):
                continue
            out.append(opt)


def _beyond(g: Game, side: int, seat: int) -> Iterator[Move]:
    """M-O9 = true: the moves that put the cards held but one on the side's finished canastas
    (natural cards on their rank's, wild cards shared among its mixed ones every way), leaving
    that one to go out with (checked by the caller).  Cards for unfinished melds are laid
    before, one step at a time."""
    melds = g.melds[side]
    finished = [k for k, m in melds.items() if k != WILD_MELD and m.size >= CANASTA]
    hand = g.hands[seat]
    if not finished or g.hand_sizes[seat] < 2:
        return
    mixed = [k for k in finished if melds[k].wilds and k not in (ACE, SEVEN)]
    for last in range(NUM_CARDS):
        if not hand[last] or CARD_RANK[last] == THREE:
            continue
        rest = list(hand)
        rest[last] -= 1
        natural: dict[int, list[Card]] = {}
        deuces: list[Card] = []
        jokers = 0
        ok = True
        for c in range(NUM_CARDS):
            if not rest[c]:
                continue
            r = CARD_RANK[c]
            if r == TWO:
                deuces += [c] * rest[c]
            elif r == JOKER_RANK:
                jokers += rest[c]
            elif r in finished:
                natural.setdefault(r, []).extend([c] * rest[c])
            else:
                ok = False
                break
        if not ok or (not natural and not deuces and not jokers):
            continue
        if not deuces and not jokers:
            yield Move(MELD, tuple(tuple(cards) for cards in natural.values()))
            continue
        for share in _wild_shares(mixed, [2 - melds[k].wilds for k in mixed], len(deuces), jokers):
            groups: dict[int, list[Card]] = {k: list(v) for k, v in natural.items()}
            d_left = list(deuces)
            for k, (d, j) in zip(mixed, share, strict=True):
                if d or j:
                    groups.setdefault(k, []).extend(d_left[:d] + [JOKER] * j)
                    d_left = d_left[d:]
            yield Move(MELD, tuple(tuple(cards) for cards in groups.values()))


def _wild_shares(keys: Sequence[int], rooms: Sequence[int], deuces: int, jokers: int) -> Iterator[list[tuple[int, int]]]:
    """Every way to share ``deuces`` and ``jokers`` among melds with room for ``rooms`` wild cards."""
    if not keys:
        if not deuces and not jokers:
            yield []
        return
    for d in range(min(deuces, rooms[0]) + 1):
        for j in range(min(jokers, rooms[0] - d) + 1):
            for rest in _wild_shares(keys[1:], rooms[1:], deuces - d, jokers - j):
                yield [(d, j), *rest]


# ---------------------------------------------------------------------------- initial melds


def _legal_openings(g: Game, side: int, seat: int) -> list[Move]:
    """The legal initial melds of :func:`opening_choices` as moves.  Where the move leaves at least
    two cards and nothing is bound, a least choice is what the plan (:func:`.rules.plan_meld`) asks
    of its groups (C.5), of its count and clean triple (C.7) and of C.5.7 in the move, so only those
    are asked again here, with C.3.2's kept three and on an empty tray C.10.4's discard kept;
    elsewhere the plan is made."""
    out: list[Move] = []
    hand = g.hands[seat]
    size = g.hand_sizes[seat]
    rules = american_rules(g.rules)
    need = g.minimum(seat)
    melds = g.melds[side]
    if g.ask == ASK_YES or g.must_go_out or melds:
        for chosen in _openings(g, seat, need):
            move = Move(MELD, tuple(build(hand, chosen)))
            if _legal(g, move):
                out.append(move)
        return out
    keep_discard = not g.pile and rules.no_discard == "prevent" and any_discard(g, hand, size)
    kept = g.rank_counts[seat][THREE] if rules.three_for_straight == "keep_one" else -1
    for chosen in _openings(g, seat, need):
        move = Move(MELD, tuple(build(hand, chosen)))
        left = size - sum(n + d + j for _, n, d, j in chosen)
        if left < 2:
            if _legal(g, move):
                out.append(move)
            continue
        if (kept >= left or not valid(chosen) or not meets(g, chosen, 0, 0, need) or any(
                group_error(melds, g.melds, key, n, d + j, True, rules.rule_of_five, rules.eighth_card_going_out)
                is not None for key, n, d, j in chosen)):
            continue
        if keep_discard and not _keeps_discard(g, hand, [c for grp in move.groups for c in grp], left):
            continue
        out.append(move)
    return out


def _keeps_discard(g: Game, hand: Sequence[int], cards: Sequence[Card], left: int) -> bool:
    """Whether the ``left`` cards ``hand`` keeps after laying ``cards`` hold one that may be discarded."""
    remaining = list(hand)
    for c in cards:
        remaining[c] -= 1
    return any_discard(g, remaining, left)


def _after_step(hand: Sequence[int], opt: int) -> list[int]:
    """What ``hand`` keeps after the one-step meld ``opt`` (cards of the ranks it lays: what it
    keeps is asked by rank only)."""
    left = list(hand)
    code = opt >> CODE_SHIFT
    n, w = _LAYS[code]
    jokers = opt & 15 if code == NEW_WILD else int(code in (JOKER_ON, NEW_PAIR_JOKER, JOKER_ON_WILD))
    pop_cards(left, opt & 15, n)
    pop_cards(left, TWO, w - jokers)
    pop_cards(left, JOKER_RANK, jokers)
    return left


def _openings(g: Game, seat: int, need: int) -> list[list[Spec]]:
    rc = g.rank_counts[seat]
    rules = american_rules(g.rules)
    if not rules.splash:  # a quick bound first: the count of every card that could be laid, a clean triple
        wilds = rc[TWO] + rc[JOKER_RANK]
        most = rc[TWO] * DEUCE_VALUE + rc[JOKER_RANK] * JOKER_VALUE
        triple = rules.opening_needs == "clean_triple_or_wild_meld" and wilds >= 3
        dead = dead_now(g)
        worths: list[int] = []  # a pair is laid with a wild card (C.5.3): the pairs, as many as wild cards
        for r in NATURAL_RANKS:
            if rc[r] >= 3 and not dead[r]:
                most += RANK_VALUE[r] * min(rc[r], CANASTA)
                triple = True
            elif rc[r] == 2 and r != SEVEN and not dead[r]:
                worths.append(RANK_VALUE[r] * 2)
        if wilds:
            most += sum(sorted(worths, reverse=True)[:wilds])
        if most < need or not triple:
            return []
    return opening_choices(g, rc, rc[TWO], rc[JOKER_RANK], need, 1)


def _special(g: Game, seat: int) -> Move | None:
    if g.took_pile or g.hand_sizes[seat] != special.SIZE:
        return None
    if special.recognise(american_rules(g.rules), g.rank_counts[seat]) is None:  # the hand's rank counts
        return None
    move = Move(MELD, special.grouping(g.hand(seat)))
    return move if _legal(g, move) else None


# ---------------------------------------------------------------------------- picking the pack


def gen_takes(g: Game) -> Iterator[Move]:
    """The picks of the pack (C.9): the natural pair alone once the side has melded; before, every
    least initial meld made with it."""
    if not g.pile:
        return
    seat = g.turn
    side = g.side_of[seat]
    top = g.pile[-1]
    rt = CARD_RANK[top]
    if IS_WILD[top] or rt not in NATURAL_RANKS or is_dead(g.melds, rt):
        return
    rc = g.rank_counts[seat]
    hand = g.hands[seat]
    if rc[rt] < 2:
        return
    if g.opened[side]:
        move = Move(TAKE, (tuple(pop_cards(list(hand), rt, 2)),))
        if _legal(g, move):
            yield move
        return
    need = g.minimum(seat)
    for n0 in range(2, min(rc[rt], CANASTA - 1) + 1):
        head = pop_cards(list(hand), rt, n0)
        value = RANK_VALUE[rt] * n0
        rest = list(rc)
        rest[rt] = 0
        for chosen in opening_choices(g, rest, rc[TWO], rc[JOKER_RANK], need, 0, skip=rt, head=n0,
                                      head_value=value):
            if n0 > 2 and meets(g, chosen, n0 - 1, value - RANK_VALUE[rt], need):
                continue  # one natural card fewer with the top card does it: added after the pick
            move = Move(TAKE, (tuple(head), *build(hand, chosen, head)))
            if _legal(g, move):
                yield move


# ---------------------------------------------------------------------------- going out


def can_go_out(g: Game) -> bool:
    """Whether the player to move can still go out in this turn, melding and then discarding
    the last card (C.11), by a search over the generating set (at most ``SEARCH_BUDGET`` nodes).
    Every node is first asked :func:`_may_reach`'s quick necessary condition, which cuts the
    branches that cannot end in going out: without it, the search in a hand of thirty cards
    (a pack picked in an expert's sampled world) spent its whole budget on orders of one-card
    melds and answered no where the player could go out."""
    if g.phase != MELD_PHASE:
        return False
    if g.ask == ASK_NO or not g.opened[g.side_of[g.turn]] or not _may_reach(g):
        return False
    if g.ask == ASK_NO:
        return False
    h = g.copy()
    h.ask = ASK_NONE  # the search asks what the cards allow; a "yes" binds, it does not help
    seen: set[tuple[object, ...]] = set()
    budget = [SEARCH_BUDGET]
    return _search(h, seen, budget)


def _may_reach(g: Game) -> bool:
    """A quick necessary condition for going out this turn (C.11.1): every card but one can find
    a meld, the side can have two canastas (the wild cards shared among the melds that need them)
    and no unfinished meld of natural aces, sevens or wild cards, and on an empty tray under
    M-O17 = prevent the card left to discard is one that may go on it.  (The search decides;
    this only spares it.)"""
    seat = g.turn
    side = g.side_of[seat]
    rc = g.rank_counts[seat]
    melds = g.melds[side]
    rules = american_rules(g.rules)
    rules5 = rules.rule_of_five
    if rc[THREE]:
        return False  # a three kept for the Straight is never melded nor discarded (C.3.2)
    few = 3 if rules5 else 2
    loose = 0  # first the cards of ranks the side has not melded and too few to meld: at most one
    for r in NATURAL_RANKS:
        k = rc[r]
        if k and k < few and r not in melds:
            loose += k
            if loose > 1:
                return False
    hand = g.hands[seat]
    size_held = g.hand_sizes[seat]
    # on an empty tray, a hand holding a card that may go on it keeps one to the end (C.10.4,
    # prevent: no move may leave the hand without one), so the card left to discard cannot be one
    # that can go on no meld and is barred for good (a dead card, a seven or an ace)
    strict = (not g.pile and rules.no_discard == "prevent" and rules.empty_tray_bar != "aces_sevens"
              and any_discard(g, hand, size_held))
    loose = 0
    loose_bad = 0
    dead = dead_now(g)
    canastas = 0
    wild_room = 0
    costs: list[int] = []
    beyond = rules.eighth_card_going_out
    for r in NATURAL_RANKS:
        m = melds.get(r)
        k = rc[r]
        size = m.size if m is not None else 0
        if beyond and m is not None and size >= CANASTA:  # M-O9: its rank's cards go on it
            canastas += 1
            wild_room += max(0, 2 - m.wilds) if m.wilds else 0
            continue
        if k and (dead[r] or (m is None and k < few)):
            loose += k
            if strict and not discard_ok(g, hand, _held(hand, r), size_held):
                loose_bad += k
            if m is None:
                continue
            k = 0  # a dead rank's canasta still counts: only its cards held are left over (C.5.8)
        if size + k > CANASTA:  # what a meld of seven cannot take must be the discard
            loose += size + k - CANASTA
            if strict and r in (ACE, SEVEN):  # an ace or a seven never goes on an empty tray
                loose_bad += size + k - CANASTA
            k = CANASTA - size
        if m is None and not k:
            continue
        naturals = (m.naturals if m is not None else 0) + k
        wilds = m.wilds if m is not None else 0
        room = 0 if r in (ACE, SEVEN) or (rules5 and naturals < 5) else min(2 - wilds, CANASTA - size - k)
        wild_room += max(room, 0)
        if size + k >= CANASTA:
            canastas += 1
        elif size + k + max(room, 0) >= CANASTA:
            costs.append(CANASTA - size - k)
        elif r in (ACE, SEVEN) and wilds == 0:
            return False  # an unfinished natural meld of aces or sevens stays
    wild = rc[TWO] + rc[JOKER_RANK]
    wm = melds.get(WILD_MELD)
    spare = wild  # wild cards left for the natural melds
    if wm is not None:
        if wm.size + wild < CANASTA:
            return False
        canastas += 1
        wild -= CANASTA - wm.size
        spare = wild
    elif wild > wild_room + 1:
        if wild - CANASTA < 0:
            return False
        canastas += 1
        wild -= CANASTA
        spare = wild
    excess = max(0, wild - wild_room)
    if loose + excess > 1 or loose_bad:
        return False
    need = g.rules.canastas_to_go_out
    best = canastas + _fundable(costs, spare)
    if wm is None and spare == rc[TWO] + rc[JOKER_RANK] and spare >= CANASTA:
        best = max(best, canastas + 1 + _fundable(costs, spare - CANASTA))  # a new meld of wild cards
    return best >= need


def _held(hand: Sequence[int], rank: int) -> Card:
    """A card of ``rank`` in ``hand``."""
    return next(c for c in RANK_CARDS[rank] if hand[c])


def _fundable(costs: list[int], wilds: int) -> int:
    """How many melds of these wild-card costs ``wilds`` wild cards can finish at most."""
    n = 0
    for cost in sorted(costs):
        if cost > wilds:
            break
        wilds -= cost
        n += 1
    return n


def _search(h: Game, seen: set[tuple[object, ...]], budget: list[int]) -> bool:
    seat = h.turn
    side = h.side_of[seat]
    key = (tuple(h.hands[seat]), tuple(sorted((k, m.size, m.wilds) for k, m in h.melds[side].items())))
    if key in seen or budget[0] <= 0:
        return False
    seen.add(key)
    budget[0] -= 1
    searched[0] += 1
    if h.hand_sizes[seat] == 1:
        card = next(c for c in range(NUM_CARDS) if h.hands[seat][c])
        return _legal(h, Move(DISCARD, ((card,),)))
    if not _may_reach(h):
        return False
    for opt in meld_options(h):
        if budget[0] <= 0:  # spent: no move more is tried (each would answer no at once)
            return False
        move = opt if isinstance(opt, Move) else h.materialize(opt)
        h.push(move)
        try:
            if h.is_over() or _search(h, seen, budget):
                return True
        finally:
            h.pop()
    return False
