"""Who plays whom, where, and when a board may be shown: the movements of a pairs tournament.

Partnerships are numbered from 1.  At a table the *north–south* partnership holds the rule
set's first side (seats 0 and 2 in a four-player game), *east–west* the second.

* **Duplicate pairs** (:func:`mitchell`): with ``T`` tables, north–south partnership ``t`` stays
  at table ``t``; east–west partnerships ``T + 1 .. 2T`` move up one table each round, so no two
  partnerships meet twice in ``T`` rounds.  Every even round (the second, the fourth ...) the
  partnerships turn round (the *arrow switch*): each plays both directions and the field is one,
  with one winner.
* **Swiss pairs** (:func:`swiss`): each round pairs partnerships of close scores, the leader with
  the best-placed partnership it has not met, searching for a pairing with no repeat; only when
  none exists does it allow the fewest repeats.  The partnership that has sat north–south less
  often sits north–south.

Every table of a round plays the same boards (:mod:`canasta.club.boards`), in the same order:
the round's boards are passed on to every table at once, there being no cards to carry.  The
:class:`BoardGate` keeps what one table shows of a board from reaching a table still to play it:
spectators, results and records of board ``b`` are held back until every table has finished ``b``
(``docs/tournaments.md`` has the argument).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from canasta.engine.errors import CanastaError


class MovementError(CanastaError):
    """A movement that cannot be made (an odd field, more rounds than the movement allows)."""


@dataclass(frozen=True)
class Seating:
    """One table of one round: its number (from 1) and the partnerships in each direction."""

    table: int
    ns: int
    ew: int


def tables_of(pairs: int) -> int:
    """The tables a field of ``pairs`` partnerships fills (an even field of at least 4)."""
    if pairs < 4 or pairs % 2:
        raise MovementError(f"a pairs tournament needs an even number of partnerships, at least 4, not {pairs}")
    return pairs // 2


def mitchell(pairs: int, round_number: int) -> list[Seating]:
    """The duplicate pairs' seating of round ``round_number`` (from 1): north–south stay, east–west
    move up one table a round; arrow switch in even rounds.  At most one round per table."""
    tables = tables_of(pairs)
    if not 1 <= round_number <= tables:
        raise MovementError(f"duplicate pairs with {pairs} partnerships has at most {tables} rounds "
                            f"(one per table), not round {round_number}")
    out = []
    for t in range(1, tables + 1):
        home = t
        visitor = tables + 1 + (t - round_number) % tables
        ns, ew = (visitor, home) if round_number % 2 == 0 else (home, visitor)
        out.append(Seating(t, ns, ew))
    return out


def swiss(order: Sequence[int], met: Iterable[frozenset[int]], ns_count: dict[int, int] | None = None,
          node_limit: int = 200_000) -> list[Seating]:
    """A Swiss round: ``order`` is the partnerships from the best placed down; ``met`` the pairs
    that have already played each other.  Pairs neighbours in ``order`` without a repeat when
    one exists (a search with backtracking, of at most ``node_limit`` steps for each number of
    repeats allowed; a field of 200 in random order over 30 rounds took at most 101), else with as few repeats
    as it finds."""
    tables_of(len(order))
    seen = set(met)
    counts = ns_count or {}
    for allowed in range(len(order) // 2 + 1):
        budget = [node_limit]
        found = _pair(list(order), seen, allowed, budget)
        if found is not None:
            break
    else:  # pragma: no cover - allowed = every table always succeeds
        raise MovementError("no Swiss pairing")
    out = []
    for t, (a, b) in enumerate(found, start=1):
        ns, ew = (b, a) if counts.get(b, 0) < counts.get(a, 0) else (a, b)
        out.append(Seating(t, ns, ew))
    return out


def _pair(rest: list[int], met: set[frozenset[int]], repeats: int,
          budget: list[int]) -> list[tuple[int, int]] | None:
    if not rest:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    first = rest[0]
    for i in range(1, len(rest)):
        other = rest[i]
        repeat = frozenset((first, other)) in met
        if repeat and repeats == 0:
            continue
        tail = _pair(rest[1:i] + rest[i + 1:], met, repeats - repeat, budget)
        if tail is not None:
            return [(first, other), *tail]
    return None


class BoardGate:
    """When a round's board may be shown beyond the tables playing it: a board is *closed* once
    every table of the round has finished it; before that, spectators of any table see nothing of
    it (the room holds their feed back), and no result or record of it is published."""

    def __init__(self, tables: int, boards: int) -> None:
        self.tables = tables
        self.boards = boards
        self._done: dict[int, set[int]] = {b: set() for b in range(1, boards + 1)}

    def finish(self, table: int, board: int) -> None:
        """Table ``table`` has finished board ``board``."""
        if board not in self._done or not 1 <= table <= self.tables:
            raise MovementError(f"no board {board} at table {table}")
        self._done[board].add(table)

    def closed(self, board: int) -> bool:
        """Has every table finished ``board``?"""
        return len(self._done.get(board, ())) == self.tables

    def may_show(self, board: int) -> bool:
        """May spectators (and the standings, and the records) show ``board`` now?"""
        return self.closed(board)


__all__ = ["BoardGate", "MovementError", "Seating", "mitchell", "swiss", "tables_of"]
