"""Rated play in the card room: rated tables and their results in the ratings of
:mod:`canasta.club` (``docs/web.md``, "Rated play").

A **rated table** is made from the lobby by a signed-in player (``POST /api/rated/tables``):
the preset's standard rules (no house rules; the target only on a server that allows fixed
seeds, for tests), a turn timer always on, every seat open or reserved (never a bot), and only
signed-in players may take its seats (:func:`may_sit`), one seat an account.  Its table's
``config["rated"]`` names its pool (:func:`canasta.club.ratings.pool_key`: ``classic-4p`` ...).

Its **result** is rated once, in the room's own database (:class:`~canasta.club.rating_store.RatingStore`
on the store's engine, so every server of a cluster reads and writes the same ratings), under
the table's id as the game's key: two servers that both see the end rate it once
(:meth:`RatingStore.rate_game`).  The players are the accounts the seats were taken by
(:meth:`~canasta.web.account_store.AccountStore.owners`), rated by their account id.

**Leaving** a rated game before its end counts as a loss for the leaver's side (the other
sides win; the match is rated at that moment and the table plays on, unrated).  In code terms
a seat has left when, from the first deal on, its table's stored events show:

* a ``presence`` event that puts the seat in ``takeover``: its person was away for the server's
  grace period (``Settings.grace``, the ``grace`` job) and a bot now plays for them;
* its :data:`MAX_TIMEOUTS`-th ``auto_turn`` event: its turn timer ran out that many times in the
  match (each time a stand-in finished the turn);
* or its player said so (``POST /api/rated/TABLE/leave`` with the seat's token).

A table closed as idle (``abandon``, nobody connected) before anyone left or before its first
deal voids the game: nobody is rated, and the void is kept under the game's key too.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from sqlalchemy import select

from canasta.club.rating_store import RatingStore, games_t
from canasta.club.ratings import LeaderRow, Rating, pool_key
from canasta.engine.rules import PRESETS, RuleSet
from canasta.i18n import N_
from canasta.play.table import Table
from canasta.web.account_session import accounts_of
from canasta.web.account_store import Account, AccountStore
from canasta.web.guards import bad
from canasta.web.hub import Hub
from canasta.web.room import Room
from canasta.web.store import Event, Store, apply_to_table, tables_t

#: the presets a rated table may play: fixed sides (two players, or two partnerships of two)
RATED_PRESETS = tuple(sorted(n for n, r in PRESETS.items() if r.players in (2, 4) and not r.cutthroat))
#: the pools those presets are rated in
POOLS = tuple(sorted({pool_key(PRESETS[n]) for n in RATED_PRESETS}))
TURN_SECONDS = 60  # a rated table's turn timer, unless its maker chooses another
TURN_RANGE = (20, 300)
MAX_TIMEOUTS = 3  # a seat whose turn timer runs out this many times in a match has left it
SWEEP_EVERY = 30.0  # seconds between the checks for ended rated tables nobody rated yet
SWEEP_BATCH = 50

# what the rated table's refusals say (translated where they are shown: Refusal.said)
SIGN_IN = N_("rated tables are for signed-in players: sign in first")
NO_BOTS = N_("bots never play rated games: every seat of a rated table is open or reserved")
NO_OPTIONS = N_("a rated table plays the preset's standard rules: no house rules")
ONE_SEAT = N_("you already have a seat at this rated table")
NO_REMATCH = N_("a rated match has no rematch: make a new rated table from the lobby")


@dataclass(frozen=True)
class Outcome:
    """How a rated game ended: ``reason`` is ``finished``, ``left`` or ``void``; ``teams``: the
    sides' account ids; ``scores`` (a finished match: each side's total) or ``ranks`` (1 for the
    winners); ``leaver``: the seat that left."""

    reason: str
    teams: list[list[str]]
    scores: list[float] | None = None
    ranks: list[float] | None = None
    leaver: int | None = None
    why: str = ""

    def to_json(self) -> str:
        return json.dumps({"reason": self.reason, "teams": self.teams, "scores": self.scores, "ranks": self.ranks,
                           "leaver": self.leaver, "why": self.why})


def rated_pool(preset: Any) -> tuple[RuleSet, str]:
    """The rules and pool of a rated table of ``preset`` (refused: not one of :data:`RATED_PRESETS`)."""
    if not isinstance(preset, str) or preset not in RATED_PRESETS:
        raise bad(N_("a rated table plays one of {presets}"), presets=", ".join(RATED_PRESETS))
    rules = RuleSet.preset(preset)
    return rules, pool_key(rules)


def sides(table: Table, players: int) -> list[list[int]] | None:
    """The seats of each side of a dealt table (None before the first deal)."""
    if not table.dealt:
        return None
    out: dict[int, list[int]] = {}
    for seat in range(players):
        out.setdefault(table.side_of(seat), []).append(seat)
    return [out[k] for k in sorted(out)]


def first_leaver(events: list[Event], table: Table) -> tuple[int, str] | None:
    """The first seat that left (a stand-in plays it after the grace period, or its turn timer
    ran out :data:`MAX_TIMEOUTS` times), and which, replaying ``events`` on ``table`` (the table
    as made): (seat, ``takeover`` | ``timeouts``).  Only from the first deal on: a seat taken
    over before it and still away once it is dealt has left.  ``table`` ends as the events made it."""
    timeouts: dict[int, int] = {}
    takeover: list[int] = []
    found: tuple[int, str] | None = None
    for ev in events:
        apply_to_table(table, ev)
        if ev.kind == "presence":
            takeover = sorted(int(s) for s in (ev.data or {}).get("takeover", []))
        elif ev.kind == "auto_turn":
            timeouts[ev.seat] = timeouts.get(ev.seat, 0) + 1
        if found is not None or not table.dealt:
            continue
        if takeover:
            found = (takeover[0], "takeover")
        elif ev.kind == "auto_turn" and timeouts[ev.seat] >= MAX_TIMEOUTS:
            found = (ev.seat, "timeouts")
    return found


def decide(store: Store, accounts: AccountStore, table_id: str, leaver: int | None = None) -> Outcome | None:
    """The outcome of rated table ``table_id`` read from its stored events (None: not ended yet);
    ``leaver``: a seat whose player said they leave, now."""
    got = store.load_base(table_id)
    if got is None:
        return None
    row, events = got
    table = Table.from_dict(row.state)
    try:
        n = table.rules.players
        left = first_leaver(events, table)
        if left is None and leaver is not None:
            left = (leaver, "said")
        over = table.match_over
        abandoned = any(ev.kind == "abandon" for ev in events)
        if left is None and not over and not abandoned:
            return None
        owners = accounts.owners(table_id)
        groups = sides(table, n)
        if groups is None:
            return Outcome("void", [], why="closed before the first deal")
        if any(seat not in owners for seat in range(n)):
            return Outcome("void", [], why="a seat without an account")
        teams = [[owners[s] for s in g] for g in groups]
        if left is not None:
            seat, how = left
            return Outcome("left", teams, ranks=[2.0 if seat in g else 1.0 for g in groups], leaver=seat, why=how)
        if not over:
            return Outcome("void", teams, why="closed as idle")
        totals = list(table.match.totals)
        if len(totals) != len(groups):
            return Outcome("void", teams, why="scores do not match the sides")
        return Outcome("finished", teams, scores=[float(t) for t in totals])
    finally:
        table.close()


class RatedPlay:
    """The rated tables of one server: the ratings in its database, the results rated as tables
    end (the hub's broadcasts, and a sweep for an end no server saw), and what the routes read."""

    def __init__(self, hub: Hub, store: Store, accounts: AccountStore) -> None:
        self.hub = hub
        self.store = store
        self.accounts = accounts
        self.ratings = RatingStore(store.engine)
        self.settled: set[str] = set()  # rated (or voided) tables this server knows of
        self.busy: set[str] = set()
        self.rated_listeners: list[Callable[[str, Outcome | None], None]] = []  # tests wait on these
        self._sweeper: asyncio.Task[None] | None = None
        hub.listeners.append(self.on_broadcast)

    def start(self) -> None:
        self._sweeper = asyncio.create_task(self.sweep_forever())

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()

    # ------------------------------------------------------------ results

    def on_broadcast(self, room: Room) -> None:
        """A table's state was sent: a rated one that may have ended is settled."""
        if not room.config.get("rated") or room.id in self.settled or room.id in self.busy:
            return
        t = room.table
        if t.match_over or room.takeover or room.auto_turn is not None or room.status == "abandoned":
            self.hub.spawn(self.settle(room.id))

    async def settle(self, table_id: str, leaver: int | None = None) -> Outcome | None:
        """Rate ``table_id`` if it has ended (once, whichever server comes first)."""
        self.busy.add(table_id)
        try:
            outcome, done = await self.hub.db(self.settle_now, table_id, leaver, timeout=30.0)
        finally:
            self.busy.discard(table_id)
        if done:
            for f in self.rated_listeners:
                f(table_id, outcome)
        return outcome

    def settle_now(self, table_id: str, leaver: int | None = None) -> tuple[Outcome | None, bool]:
        """(the outcome, whether this call rated it) in a database thread."""
        if self.ratings.rated(table_id) is not None:
            self.settled.add(table_id)
            return None, False
        pool = self.pool_of(table_id)
        if pool is None:
            return None, False
        outcome = decide(self.store, self.accounts, table_id, leaver)
        if outcome is None:
            return None, False
        if outcome.reason == "void":
            done = self.ratings.void_game(pool, table_id, outcome.to_json(), time.time())
        else:
            done = self.ratings.rate_game(pool, table_id, outcome.to_json(), time.time(), outcome.teams,
                                          scores=outcome.scores, ranks=outcome.ranks) is not None
        self.settled.add(table_id)
        return outcome, done

    def pool_of(self, table_id: str) -> str | None:
        with self.store.engine.connect() as db:
            config = db.execute(select(tables_t.c.config).where(tables_t.c.id == table_id)).scalar()
        pool = json.loads(config).get("rated") if config else None
        return pool if isinstance(pool, str) and pool in POOLS else None

    def unsettled(self) -> list[str]:
        """Ended tables (finished or closed) that are rated tables nobody has rated yet."""
        with self.store.engine.connect() as db:
            rows = db.execute(select(tables_t.c.id, tables_t.c.config)
                              .where(tables_t.c.status.in_(("finished", "abandoned")),
                                     tables_t.c.config.like('%"rated"%'),
                                     tables_t.c.id.not_in(select(games_t.c.game)))
                              .limit(SWEEP_BATCH)).all()
        return [r.id for r in rows if r.id not in self.settled and json.loads(r.config).get("rated")]

    async def sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            try:
                for table_id in await self.hub.db(self.unsettled):
                    await self.settle(table_id)
            except Exception as exc:  # the database away: the next sweep tries again
                self.hub.warn(f"rated games: {type(exc).__name__}: {exc}")

    # ------------------------------------------------------------ reading

    def result(self, table_id: str) -> dict[str, Any] | None:
        got = self.ratings.rated(table_id)
        if got is None:
            return None
        data: dict[str, Any] = json.loads(got[1])
        return {"pool": got[0], "reason": data.get("reason"), "leaver": data.get("leaver"), "why": data.get("why"),
                "scores": data.get("scores"), "ranks": data.get("ranks")}

    def names(self, ids: list[str]) -> dict[str, str]:
        """Account ids' names (a deleted account's games stay, under ``deleted-XXXXXX``)."""
        out = {}
        for i in ids:
            account = self.accounts.get(i)
            out[i] = account.name if account is not None else f"deleted-{i[:6]}"
        return out

    def leaderboard(self, pool: str, limit: int = 100) -> list[dict[str, Any]]:
        rows: list[LeaderRow] = self.ratings.leaderboard(pool)[:limit]
        names = self.names([r.name for r in rows])
        return [{"place": r.place, "name": names[r.name], "shown": round(r.shown, 1), "mu": round(r.mu, 2),
                 "sigma": round(r.sigma, 2), "games": r.games, "wins": r.wins, "provisional": r.provisional}
                for r in rows]

    def of_player(self, account: Account) -> list[dict[str, Any]]:
        """An account's rating in every pool it played rated games in, with its history."""
        out = []
        for pool in POOLS:
            whole = self.ratings.pool(pool)
            mine: Rating | None = whole.players.get(account.id)
            if mine is None:
                continue
            board = whole.leaderboard()
            place = next((r.place for r in board if r.name == account.id), None)
            history = self.ratings.history(pool, account.id)
            out.append({"pool": pool, "shown": round(mine.shown, 1), "mu": round(mine.mu, 2),
                        "sigma": round(mine.sigma, 2), "games": mine.games, "wins": mine.wins,
                        "provisional": mine.provisional, "provisional_games": whole.settings.provisional_games,
                        "place": place, "of": len(board),
                        "history": [[p.game, round(p.shown, 2), round(p.mu, 2), round(p.sigma, 2)] for p in history]})
        return out


async def check_seat(request: Request, room: Room, account: Account | None) -> None:
    """A seat of ``room`` taken by ``account`` (None: a guest): refused at a rated table to a
    guest, or to an account seated there already (the lobby's join asks this first)."""
    if not room.config.get("rated"):
        return
    accounts = accounts_of(request)
    owners: dict[int, str] = await accounts.run_db(accounts.store.owners, room.id)
    may_sit(room, account, owners)


def no_rematch(room: Room) -> None:
    """A rated match has no rematch (the lobby's rematch asks this first)."""
    if room.config.get("rated"):
        raise bad(NO_REMATCH, 409)


def may_sit(room: Room, account: Account | None, owners: dict[int, str]) -> None:
    """Refuse a seat of a rated table to a guest, or to an account seated there already."""
    if not room.config.get("rated"):
        return
    if account is None:
        raise bad(SIGN_IN, 401)
    if account.id in owners.values():
        raise bad(ONE_SEAT, 409)


__all__ = ["MAX_TIMEOUTS", "POOLS", "RATED_PRESETS", "Outcome", "RatedPlay", "check_seat", "decide", "first_leaver",
           "may_sit", "no_rematch", "rated_pool"]
