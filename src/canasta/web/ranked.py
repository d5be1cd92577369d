"""The ranked queue: finding a rated game at one's level (``docs/web.md``, "Rated play").

A signed-in player joins the queue of a pool (``POST /api/ranked/POOL/join``) and the page asks
how it goes (``GET /api/ranked/POOL``) every few seconds; whoever asks also runs the matching,
so no server needs a job for it.  The queue is a table of the room's database
(``ranked_queue``: one row an account), so every server of a cluster sees the same queue; a
group is claimed in one transaction (the rows still unclaimed, updated only if all are), so two
servers never seat one player twice.

**Matching.** The oldest waiting player is the anchor; the others are taken closest in rating
first (the rating's mean ``mu``), each within the wider of the two players' windows, which start
at :data:`BASE_WINDOW` and widen by :data:`WIDEN` a second of waiting (so after a few minutes
anyone will do).  A group of the pool's players (four, or two) is seated at a new rated table
(:mod:`canasta.web.rated`): in a partnership game the strongest sits with the weakest.  Each
player's seat token waits in their row for their page to pick it up.

**The estimate.** The median wait of the pool's last :data:`RECENT` matched players; none yet:
unknown (the answer says how many are waiting and how many a table needs).
"""

from __future__ import annotations

import secrets
import statistics
import time
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from sqlalchemy import Column, Float, Integer, MetaData, String, Table, delete, select, update
from sqlalchemy.engine import Engine

from canasta.club.rating_store import PLAYER, ratings_t
from canasta.club.ratings import MU
from canasta.engine.rules import PRESETS, RuleSet
from canasta.i18n import N_
from canasta.web import account_seats
from canasta.web.account_session import accounts_of, current
from canasta.web.account_store import Account
from canasta.web.guards import bad
from canasta.web.lobby import Lobby
from canasta.web.rated import POOLS, SIGN_IN, TURN_SECONDS, RatedPlay
from canasta.web.service import TheCardRoom
from canasta.web.store import SeatRow, hash_token

BASE_WINDOW = 3.0  # rating points (mu) apart at first
WIDEN = 0.1  # more a second of waiting (6 a minute)
RECENT = 20  # matched players the estimate is taken from
STALE_CLAIM = 60.0  # seconds a claimed group may wait for its table before it is waiting again

meta = MetaData()
queue_t = Table(
    "ranked_queue", meta,
    Column("account_id", String(64), primary_key=True),
    Column("pool", String(40), nullable=False, index=True),
    Column("name", String(64), nullable=False),
    Column("mu", Float, nullable=False),
    Column("joined", Float, nullable=False),
    Column("claim", String(40)),  # a group being seated (its table not made yet)
    Column("claimed", Float),
    Column("table_id", String(40)),
    Column("seat", Integer),
    Column("token", String(64)),  # the seat's token, until the player joins another queue
    Column("matched", Float),
)


def window(waited: float) -> float:
    """How far apart in rating two players may be matched after ``waited`` seconds."""
    return BASE_WINDOW + WIDEN * max(0.0, waited)


def preset_of(pool: str) -> str:
    """The preset a pool's tables play (``classic-4p`` plays ``classic-4p``)."""
    return pool if pool in PRESETS else next(n for n, r in sorted(PRESETS.items()) if f"{r.family}-{r.players}p" == pool)


@dataclass(frozen=True)
class Waiting:
    account_id: str
    name: str
    mu: float
    joined: float


def choose(waiting: list[Waiting], n: int, now: float) -> list[Waiting] | None:
    """A group of ``n`` close in rating, the oldest waiting player first (None: nobody fits yet)."""
    for anchor in sorted(waiting, key=lambda w: (w.joined, w.account_id)):
        others = sorted((w for w in waiting if w is not anchor), key=lambda w: (abs(w.mu - anchor.mu), w.joined))
        fits = [w for w in others
                if abs(w.mu - anchor.mu) <= max(window(now - anchor.joined), window(now - w.joined))][:n - 1]
        if len(fits) == n - 1:
            return [anchor, *fits]
    return None


def seating(group: list[Waiting], n: int) -> list[Waiting]:
    """Seats 0..n-1: in a four-player game the strongest partners the weakest."""
    ranked = sorted(group, key=lambda w: (-w.mu, w.account_id))
    if n == 4:
        a, b, c, d = ranked
        return [a, b, d, c]  # seats 0 and 2 are partners
    return ranked


class RankedQueue:
    """The queue in the room's database, and the matching."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        meta.create_all(engine)

    def join(self, pool: str, account: Account, mu: float, now: float) -> None:
        with self.engine.begin() as db:
            db.execute(delete(queue_t).where(queue_t.c.account_id == account.id))
            db.execute(queue_t.insert().values(account_id=account.id, pool=pool, name=account.name, mu=mu, joined=now))

    def leave(self, account: Account) -> bool:
        with self.engine.begin() as db:
            gone = db.execute(delete(queue_t).where(queue_t.c.account_id == account.id, queue_t.c.table_id.is_(None),
                                                    queue_t.c.claim.is_(None))).rowcount
        return bool(gone)

    def claim(self, pool: str, n: int, now: float) -> tuple[str, list[Waiting]] | None:
        """Claim a group of ``pool`` (every row or none): its claim id and its seating."""
        with self.engine.begin() as db:
            stale = (queue_t.c.pool == pool) & queue_t.c.table_id.is_(None) & (queue_t.c.claimed < now - STALE_CLAIM)
            if db.execute(select(queue_t.c.account_id).where(stale).limit(1)).first() is not None:
                db.execute(update(queue_t).where(stale).values(claim=None, claimed=None))  # a server died seating them
            query = select(queue_t).where(queue_t.c.pool == pool, queue_t.c.claim.is_(None),
                                          queue_t.c.table_id.is_(None))
            if db.dialect.name == "postgresql":
                query = query.with_for_update(skip_locked=True)
            waiting = [Waiting(r.account_id, r.name, r.mu, r.joined) for r in db.execute(query).all()]
            group = choose(waiting, n, now)
            if group is None:
                return None
            claim = secrets.token_hex(8)
            done = db.execute(update(queue_t).where(queue_t.c.account_id.in_([w.account_id for w in group]),
                                                    queue_t.c.claim.is_(None), queue_t.c.table_id.is_(None))
                              .values(claim=claim, claimed=now)).rowcount
            if done != len(group):
                db.rollback()
                return None
        return claim, seating(group, n)

    def seated(self, claim: str, table_id: str, seats: list[tuple[str, int, str]], now: float) -> None:
        """The claimed group's table is made: each row gets its table, seat and token."""
        with self.engine.begin() as db:
            for account_id, seat, token in seats:
                db.execute(update(queue_t).where(queue_t.c.account_id == account_id, queue_t.c.claim == claim)
                           .values(table_id=table_id, seat=seat, token=token, matched=now))

    def unclaim(self, claim: str) -> None:
        with self.engine.begin() as db:
            db.execute(update(queue_t).where(queue_t.c.claim == claim, queue_t.c.table_id.is_(None))
                       .values(claim=None, claimed=None))

    def status(self, pool: str, account: Account, now: float) -> dict[str, Any]:
        with self.engine.connect() as db:
            mine = db.execute(select(queue_t).where(queue_t.c.account_id == account.id)).first()
            waiting = db.execute(select(queue_t.c.account_id).where(queue_t.c.pool == pool,
                                                                    queue_t.c.table_id.is_(None))).all()
            recent = db.execute(select(queue_t.c.joined, queue_t.c.matched).where(
                queue_t.c.pool == pool, queue_t.c.matched.is_not(None)).order_by(queue_t.c.matched.desc())
                .limit(RECENT)).all()
        estimate = statistics.median(r.matched - r.joined for r in recent) if recent else None
        out: dict[str, Any] = {"pool": pool, "waiting": len(waiting), "needed": PRESETS[preset_of(pool)].players,
                               "estimate": None if estimate is None else round(estimate, 1)}
        if mine is None or mine.pool != pool:
            return out | {"status": "none"}
        if mine.table_id is not None:
            return out | {"status": "matched", "table": mine.table_id, "seat": mine.seat, "token": mine.token,
                          "waited": round(mine.matched - mine.joined, 1)}
        waited = now - mine.joined
        return out | {"status": "waiting", "waited": round(waited, 1), "window": round(window(waited), 1),
                      "estimate": None if estimate is None else round(max(0.0, estimate - waited), 1)}


routes = APIRouter()


def queue_of(request: Request) -> RankedQueue:
    found: RankedQueue = request.app.state.ranked
    return found


async def signed(request: Request, reading: bool = False) -> Account:
    """The signed-in account (a change: with the session's CSRF token; a read: its cookie)."""
    if reading:
        session = await current(request, accounts_of(request))
        account = None if session is None else session.account
    else:
        account = await account_seats.player(request)
    if account is None:
        raise bad(SIGN_IN, 401)
    return account


def pool_asked(pool: str) -> str:
    if pool not in POOLS:
        raise bad(N_("no rating pool is named {pool}: the pools are {pools}"), 404, pool=pool[:40],
                  pools=", ".join(POOLS))
    return pool


async def match(request: Request, card: Any, pool: str) -> None:
    """Seat a group of ``pool`` if one fits now (whoever asks runs it)."""
    queue = queue_of(request)
    rules = RuleSet.preset(preset_of(pool))
    got = await card.hub.db(queue.claim, pool, rules.players, time.time())
    if got is None:
        return
    claim, group = got
    tokens = [secrets.token_urlsafe(24) for _ in group]
    seats = [SeatRow(i, "human", w.name, None, hash_token(tokens[i])) for i, w in enumerate(group)]
    config: dict[str, Any] = {"title": "", "host": group[0].name, "preset": rules.name, "turn_seconds": TURN_SECONDS,
                              "rated": pool, "ranked": True}
    try:
        room = await Lobby(card.hub).open_table(rules, seats, secrets.randbits(63), True, config)
    except BaseException:
        await card.hub.db(queue.unclaim, claim)
        raise
    accounts = accounts_of(request)
    for i, w in enumerate(group):
        await accounts.run_db(accounts.store.link_seat, room.id, i, w.account_id)
    await card.hub.db(queue.seated, claim, room.id, [(w.account_id, i, tokens[i]) for i, w in enumerate(group)],
                      time.time())


def rating_mu(rated: RatedPlay, pool: str, account: Account) -> float:
    """The player's rating in the pool (its mean; a new player's: openskill's 25), one row read."""
    with rated.ratings.engine.connect() as db:
        mu = db.execute(select(ratings_t.c.mu).where(ratings_t.c.pool == pool, ratings_t.c.kind == PLAYER,
                                                     ratings_t.c.name == account.id)).scalar()
    return MU if mu is None else float(mu)


@routes.post("/api/ranked/{pool}/join")
async def join(pool: str, request: Request, card: TheCardRoom) -> dict[str, Any]:
    """Wait for a rated game of ``pool`` at one's level (leaving any other queue)."""
    await card.body(request)
    account = await signed(request)
    pool_asked(pool)
    mu = await card.hub.db(rating_mu, request.app.state.rated, pool, account)
    await card.hub.db(queue_of(request).join, pool, account, mu, time.time())
    await match(request, card, pool)
    found: dict[str, Any] = await card.hub.db(queue_of(request).status, pool, account, time.time())
    return found


@routes.post("/api/ranked/{pool}/leave")
async def leave(pool: str, request: Request, card: TheCardRoom) -> dict[str, Any]:
    await card.body(request)
    account = await signed(request)
    pool_asked(pool)
    return {"left": await card.hub.db(queue_of(request).leave, account)}


@routes.get("/api/ranked/{pool}")
async def status(pool: str, request: Request, card: TheCardRoom) -> dict[str, Any]:
    """How one's wait goes (and the matching, run by whoever asks): ``status`` is ``none``,
    ``waiting`` (``waited``, ``window``, ``estimate`` in seconds or null) or ``matched``
    (``table``, ``seat``, ``token``)."""
    account = await signed(request, reading=True)
    pool_asked(pool)
    await match(request, card, pool)
    found: dict[str, Any] = await card.hub.db(queue_of(request).status, pool, account, time.time())
    return found


__all__ = ["BASE_WINDOW", "WIDEN", "RankedQueue", "Waiting", "choose", "routes", "seating", "window"]
