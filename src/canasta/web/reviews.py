"""The card room's review of a hand (``POST /api/tables/{id}/review``): the expert's marks on
one seat's decisions, as :mod:`canasta.review` computes them, and the position that seat saw
at each decision.

Who may see what:

* a player reviews their own seat, in any hand that is over (never the hand being played);
* another seat's review only once the match is over, and only at a table made with
  ``review_others`` (off by default); a spectator (no seat token) likewise;
* what is sent is that seat's own views (``SeatView``: its hand, never another's) and the
  hand's public log; the review itself judged each decision from that view alone.

The work runs off the event loop: each decision is one :func:`canasta.review.run_task`, so the
page asks again and reads its place in the queue, then the progress (decisions done / total),
until it is done.  A computed review is kept with the table (:meth:`Store.save_review`) and
read back when asked again, by any server.

* One server (:class:`Reviewer`): the reviews wait in this process's fair queue and are
  computed in a small process pool of its own (``Settings.review_workers``; 0: a thread).
* A cluster (:class:`canasta.web.review_queue.ClusterReviewer`): the queue and the shares are
  in Redis, counted over every server; each review is an arq job (queue ``PREFIX:reviews``)
  that any worker runs (``canasta serve --worker``), in its own review processes.

Either way a review's cost is bounded (:func:`budgeted`): at most ``Settings.review_work``
sampled worlds in all, shared among the seat's decisions of that hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import multiprocessing
import secrets
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from canasta.engine.moves import Move
from canasta.i18n import N_, translator
from canasta.play.table import Table
from canasta.present import canasta_size, describe, proposal
from canasta.review import (
    MARK_NAMES,
    MARK_SYMBOLS,
    MARKS,
    NOISE_Z,
    DecisionReview,
    Task,
    run_task,
    tasks_of,
    thresholds_of,
)
from canasta.web.botpool import _start_worker
from canasta.web.guards import bad, client_address, is_int
from canasta.web.language import choose
from canasta.web.room import Settings
from canasta.web.service import TheCardRoom
from canasta.web.store import SeatRow, Store, TableRow, hash_token

REVIEW_SEED = 1  # the review's sampling seed (never the deal's)
#: reviews one client address may have waiting or being computed (a cluster: on every server); more are refused
CLIENT_SHARE = 3
#: reviews of one table waiting or being computed (its seats, its hands; a cluster: on every server); more are
#: refused
TABLE_SHARE = 8
MAX_WAITING = 64  # reviews waiting on one server (in a cluster: in all); more are refused for a moment
#: the fewest worlds a decision is judged on when a long hand shares out the review's work
MIN_WORLDS = 16

HAND_IN_PLAY = N_("this hand is still being played: its review is available when it is over")
NOT_YOURS = N_("another seat's review is shown only once the match is over, and only if the table allows it")
NOT_A_SEAT = N_("this seat token is not one of this table's seats: open the review from your table's page")
NO_HAND = N_("there is no hand {hand} at this table yet")
BUSY = N_("the server is reviewing other hands: try again in a moment")
CLIENT_FULL = N_("you already have your share of reviews waiting or being computed ({n}): ask again when one is done")
TABLE_FULL = N_("this table already has its share of reviews waiting or being computed ({n}): ask again when one "
                "is done")
FAILED = N_("the review could not be computed: try again")


@dataclass
class Job:
    """A review waiting or being computed: who asked for it (a client address), its table, its
    place in arrival order, the decisions done so far and how many there are."""

    total: int
    client: str = ""
    table: str = ""
    arrived: int = 0
    done: int = 0
    results: list[DecisionReview | None] = field(default_factory=list)
    failed: bool = False
    finished: bool = False
    started: bool = False
    task: asyncio.Task[None] | None = None

    @property
    def live(self) -> bool:
        """Waiting or being computed (what the shares count)."""
        return not self.finished and not self.failed


@dataclass
class Look:
    """A review as the queue knows it: ``state`` waiting, running, failed or finished (its
    decisions here), its place in the queue (1: next; 0: being computed), decisions done / total."""

    state: str
    done: int = 0
    total: int = 0
    position: int = 0
    decisions: list[DecisionReview] | None = None


class Queue(Protocol):
    """What the review route asks of the queue: one server's (:class:`Reviewer`) or the
    cluster's (:class:`canasta.web.review_queue.ClusterReviewer`)."""

    async def look(self, key: tuple[str, int, int]) -> Look | None: ...

    async def admit(self, key: tuple[str, int, int], tasks: list[Task], client: str) -> Look: ...

    async def forget(self, key: tuple[str, int, int]) -> None: ...

    async def close(self) -> None: ...


class ReviewProcesses:
    """Where a review's decisions are computed: a pool of ``workers`` processes, made when first
    needed (0: a thread of this process); :meth:`close` ends it, and the next decision makes
    a fresh one (after a process died, say)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None

    async def evaluate(self, task: Task) -> DecisionReview | None:
        if self.workers <= 0:
            return await asyncio.to_thread(run_task, task)
        if self._executor is None:
            self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_start_worker)
        return await asyncio.get_running_loop().run_in_executor(self._executor, run_task, task)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


class Reviewer:
    """The reviews computed on this server, the queue of those waiting, and the processes that
    compute them.

    At most :attr:`slots` reviews are computed at once (one per review process, at least one);
    the others wait in a fair order, round-robin between clients: a waiting review's client
    rank is how many reviews of the same client address were started since the queue was last
    empty or wait ahead of it; its table rank, the same count for its table.  The lowest client
    rank goes first, then the lowest table rank, then the earliest.  So a client with many
    reviews goes in turn with everyone else: a newcomer's first review goes before a busy
    client's next one, even at the same table; among clients' reviews of the same rank, the
    less-reviewed table's goes first.  A client has at most :data:`CLIENT_SHARE` reviews waiting or running, a table
    :data:`TABLE_SHARE`, the server :data:`MAX_WAITING` waiting: beyond, the request is refused
    (429) with the reason.  A waiting review's answer carries its ``position`` (1: next)."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.jobs: dict[tuple[str, int, int], Job] = {}
        self.waiting: list[tuple[str, int, int]] = []  # in arrival order
        self.pending: dict[tuple[str, int, int], list[Task]] = {}  # the waiting reviews' decisions
        self.arrivals = 0
        self.served_clients: Counter[str] = Counter()  # reviews started per client since the queue was empty
        self.served_tables: Counter[str] = Counter()  # and per table
        self.processes = ReviewProcesses(settings.review_workers)

    @property
    def slots(self) -> int:
        return max(1, self.settings.review_workers)

    def order(self) -> list[tuple[str, int, int]]:
        """The waiting reviews in the order they will start (see the class)."""
        by_client, by_table = Counter(self.served_clients), Counter(self.served_tables)
        ranked: list[tuple[int, int, int, tuple[str, int, int]]] = []
        for key in self.waiting:
            job = self.jobs[key]
            ranked.append((by_client[job.client], by_table[job.table], job.arrived, key))
            by_client[job.client] += 1
            by_table[job.table] += 1
        return [key for _client, _table, _arrived, key in sorted(ranked)]

    def position(self, key: tuple[str, int, int]) -> int:
        """1 for the review that starts next, 2 after it ...; 0 for one being computed."""
        order = self.order()
        return order.index(key) + 1 if key in order else 0

    async def look(self, key: tuple[str, int, int]) -> Look | None:
        job = self.jobs.get(key)
        if job is None:
            return None
        if job.failed:
            return Look("failed", job.done, job.total)
        if job.finished:
            return Look("finished", job.done, job.total, 0, [d for d in job.results if d is not None])
        position = self.position(key)
        return Look("waiting" if position else "running", job.done, job.total, position)

    async def admit(self, key: tuple[str, int, int], tasks: list[Task], client: str) -> Look:
        self.start(key, tasks, client)
        look = await self.look(key)
        assert look is not None
        return look

    async def forget(self, key: tuple[str, int, int]) -> None:
        self.jobs.pop(key, None)

    def start(self, key: tuple[str, int, int], tasks: list[Task], client: str = "") -> Job:
        """The review of ``key`` (table, hand, seat), queued if it is not there already; a
        :func:`bad` 429 if the client, the table or the server has its share already."""
        job = self.jobs.get(key)
        if job is not None:
            return job
        live = [j for j in self.jobs.values() if j.live]
        mine = sum(1 for j in live if j.client == client)
        if mine >= CLIENT_SHARE:
            raise bad(CLIENT_FULL, 429, {"Retry-After": "5"}, n=mine)
        theirs = sum(1 for j in live if j.table == key[0])
        if theirs >= TABLE_SHARE:
            raise bad(TABLE_FULL, 429, {"Retry-After": "5"}, n=theirs)
        if len(self.waiting) >= MAX_WAITING:
            raise bad(BUSY, 429, {"Retry-After": "5"})
        self.arrivals += 1
        job = self.jobs[key] = Job(len(tasks), client, key[0], self.arrivals)
        self.waiting.append(key)
        self.pending[key] = tasks
        self._pump()
        return job

    def _pump(self) -> None:
        """Start the first waiting reviews in the fair order while a slot is free."""
        running = sum(1 for j in self.jobs.values() if j.started and j.live)
        if not self.waiting and not running:  # a quiet moment: everyone starts even again
            self.served_clients.clear()
            self.served_tables.clear()
        while self.waiting and running < self.slots:
            key = self.order()[0]
            self.waiting.remove(key)
            job = self.jobs[key]
            job.started = True
            running += 1
            self.served_clients[job.client] += 1
            self.served_tables[job.table] += 1
            job.task = asyncio.create_task(self._run(key, job, self.pending.pop(key, [])))

    async def _run(self, key: tuple[str, int, int], job: Job, tasks: list[Task]) -> None:
        try:
            for t in tasks:
                job.results.append(await self.processes.evaluate(t))
                job.done += 1
        except Exception:  # a worker died or the pool is gone: the next request starts again
            job.failed = True
            self.processes.close()
            self._pump()
            return
        job.finished = True
        self._pump()
        data = {"decisions": [asdict(d) for d in job.results if d is not None]}
        table_id, hand, seat = key
        try:
            await asyncio.to_thread(self.store.save_review, table_id, hand, seat, self.settings.review_worlds, data)
        except Exception:  # not kept: it is still served from here, and computed again elsewhere
            return
        self.jobs.pop(key, None)

    async def close(self) -> None:
        for job in self.jobs.values():
            if job.task is not None:
                job.task.cancel()
        self.processes.close()


def seat_of(seats: list[SeatRow], token: Any) -> int | None:
    """The seat a token holds at a stored table, or None (as :meth:`Hub.authenticate`)."""
    if not isinstance(token, str) or not token or len(token) > 200:
        return None
    h = hash_token(token)
    for s in seats:
        if s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
            return s.seat
    return None


def others_allowed(row: TableRow) -> bool:
    """May anyone see every seat's review (the match is over and the table allows it)?"""
    return row.status == "finished" and bool(row.config.get("review_others"))


def budgeted(tasks: list[Task], worlds: int, work: int) -> list[Task]:
    """``tasks`` (one seat's decisions in one hand, ``worlds`` each) within ``work`` sampled
    worlds in all: a hand with more decisions than ``work // worlds`` shares the work out, each
    decision judged on fewer worlds (its standard error, and so its mark, says how sure), at
    least :data:`MIN_WORLDS`; a hand longer still has only its first ``work // MIN_WORLDS``
    decisions reviewed.  (A decision's own cost is bounded already: its worlds, the expert's
    few candidates, and rollouts to the end of the hand.)"""
    if not tasks or len(tasks) * worlds <= work:
        return tasks
    floor = min(worlds, MIN_WORLDS)
    each = min(worlds, max(floor, work // len(tasks)))
    kept = tasks[:max(1, work // each)]
    return [dataclasses.replace(t, worlds=each) for t in kept]


def hand_tasks(state: dict[str, Any], hand: int, seat: int, worlds: int,
               work: int | None = None) -> tuple[list[Task], int]:
    """The decisions of ``seat`` in ``hand`` (each with the seat's view then; within ``work``
    worlds in all, :func:`budgeted`), and the number of hands over; refused when the hand is
    not over (or not dealt)."""
    table = Table.from_dict(state)
    try:
        record = table.record()  # the hands over only
        over = len(record.hands)
        if hand > over:
            if hand == table.hand_number:
                raise bad(HAND_IN_PLAY, 409)
            raise bad(NO_HAND, 404, hand=hand)
        tasks = tasks_of(record, 1, [seat], hand, worlds, REVIEW_SEED)
        return (tasks if work is None else budgeted(tasks, worlds, work)), over
    finally:
        table.close()


def review_payload(state: dict[str, Any], hand: int, seat: int, decisions: list[DecisionReview], worlds: int,
                   lang: str) -> dict[str, Any]:
    """What the page shows: the hand's log with the marks of ``seat``'s decisions, and for each
    of its reviewed decisions the position as that seat saw it, in ``lang``."""
    tr = translator(lang)
    table = Table.from_dict(state)
    try:
        record = table.record()
        rules, names = table.rules, list(table.names)
        views = {t.index: t.view for t in tasks_of(record, 1, [seat], hand, worlds, REVIEW_SEED)}
        over = len(record.hands)
        moves = record.hands[hand - 1].moves
    finally:
        table.close()
    judged = {d.index: d for d in decisions}
    timeline: list[dict[str, Any]] = []
    for index, (who, move, _comment, _line) in enumerate(moves):
        entry: dict[str, Any] = {"index": index, "seat": who, "text": describe(move, rules, names[who], tr)}
        d = judged.get(index)
        if who == seat and d is not None:
            best = Move.parse(d.best) if d.best else None
            entry.update({
                "reviewed": True, "mark": d.mark, "symbol": MARK_SYMBOLS.get(d.mark, ""),
                "mark_name": tr.gettext(MARK_NAMES[d.mark]) if d.mark else "",
                "move": d.move, "made": proposal(move, rules, tr),
                "best": d.best, "better": proposal(best, rules, tr) if best is not None else "",
                "loss": d.loss, "stderr": d.stderr, "value": d.value, "best_value": d.best_value,
                # better beyond the noise of the sampled deals (as the marks are): else only another choice
                "significant": best is not None and d.loss > NOISE_Z * d.stderr,
                "worlds": d.worlds, "candidates": d.candidates,
                "view": views[index].to_dict(include_rules=False)})
        timeline.append(entry)
    marks = {m: sum(1 for d in decisions if d.mark == m) for m in MARKS}
    return {"status": "done", "hand": hand, "hands": over, "seat": seat, "names": names, "worlds": worlds,
            "canasta_size": canasta_size(rules),
            "thresholds": dict(thresholds_of(rules)),
            "summary": {"decisions": len(decisions), "lost": round(sum(d.loss for d in decisions), 1),
                        "marks": marks, "marked": sum(marks.values())},
            "timeline": timeline}


def progress(look: Look, hand: int, seat: int) -> dict[str, Any]:
    """A review not computed yet: its position in the queue (0: being computed), decisions done."""
    return {"status": "waiting" if look.position else "running", "position": look.position, "hand": hand,
            "seat": seat, "done": look.done, "total": look.total}


routes = APIRouter()


@routes.post("/api/tables/{table_id}/review")
async def review(table_id: str, request: Request, card: TheCardRoom, lang: str | None = None) -> JSONResponse:
    """Start, follow or read the review of one seat in one hand.  Body: ``{"token": the seat
    token (none: a spectator), "hand": 1, 2, ..., "seat": the seat reviewed (default: the
    token's)}``.  Answers ``{"status": "waiting", "position"}`` while it waits its turn (1: next), ``{"status":
    "running", "done", "total"}`` while it is computed, then
    ``{"status": "done", "timeline": [...], "summary": {...}, ...}``; ``seats``: the seats the
    asker may review."""
    body = await card.body(request)
    said = choose(lang, request.headers.get("accept-language"))
    row = await card.hub.db(card.store.load, table_id)
    if row is None:
        raise bad(N_("no such table"), 404)
    if row.status == "abandoned":
        raise bad(await card.hub.missing(table_id), 410)
    players = len(row.seats)
    token = body.get("token")
    me = seat_of(row.seats, token)
    if me is None and token is not None and "seat" not in body:
        raise bad(NOT_A_SEAT, 403)
    seat = body.get("seat", me)
    if not is_int(seat) or not 0 <= seat < players:
        raise bad(N_("say which seat to review: a seat number from 0 to {last}"), last=players - 1)
    everyone = others_allowed(row)
    if seat != me and not everyone:
        raise bad(NOT_YOURS, 403)
    hand = body.get("hand")
    if not is_int(hand) or hand < 1:
        raise bad(N_("say which hand to review: its number, from 1"))
    seats = list(range(players)) if everyone else [seat]
    return await serve(card, request, table_id, row.state, hand, seat, seats, said)


async def serve(card: Any, request: Request, review_table: str, state: dict[str, Any], hand: int, seat: int,
                seats: list[int], said: str) -> JSONResponse:
    """A review asked for and allowed (``seat`` in ``hand`` of the table saved as ``state``, kept
    under ``review_table``): its place in the queue, its progress, or the review itself.  Shared
    by the room's tables and the tournaments' boards (:mod:`canasta.web.tournament_reviews`)."""
    key = (review_table, hand, seat)
    worlds = card.settings.review_worlds
    reviewer: Queue = request.app.state.reviewer
    look = await reviewer.look(key)  # before the database: a review is stored before it leaves the queue
    if look is not None and look.state == "failed":
        await reviewer.forget(key)
        raise bad(FAILED, 503)
    if look is not None and look.state in ("waiting", "running"):
        return JSONResponse({**progress(look, hand, seat), "seats": seats})
    decisions = look.decisions if look is not None else None
    if decisions is None:
        stored = await card.hub.db(card.store.load_review, review_table, hand, seat, worlds)
        if stored is not None:
            with contextlib.suppress(KeyError, TypeError, ValueError):
                decisions = [DecisionReview.from_dict(d) for d in stored["decisions"]]
    if decisions is None:
        tasks, _over = await asyncio.to_thread(hand_tasks, state, hand, seat, worlds, card.settings.review_work)
        look = await reviewer.admit(key, tasks, client_address(request))
        return JSONResponse({**progress(look, hand, seat), "seats": seats})
    payload = await asyncio.to_thread(review_payload, state, hand, seat, decisions, worlds, said)
    return JSONResponse({**payload, "seats": seats})


__all__ = ["Look", "Queue", "ReviewProcesses", "Reviewer", "budgeted", "hand_tasks", "review_payload", "routes",
           "serve"]
