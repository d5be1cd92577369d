"""Load benchmark of a tournament round: every seat of a round's tables a signed-in person at a human pace.

    python -m canasta.web.tournament_load --tables 100 --duration 60
    python -m canasta.web.tournament_load --tables 100 --servers 2 --workers 1 \\
        --db postgresql://postgres@127.0.0.1:5432/DB --redis redis://127.0.0.1:6379/0

It starts ``canasta serve`` (or a cluster: ``--servers N --workers M`` on PostgreSQL and Redis,
as :mod:`canasta.web.load` does), writes ``4 x tables`` player accounts and a director's to the
database (one argon2id hash shared by all, as ``load --signed-in`` does), signs every person in
through ``POST /api/account/login``, and then uses the room as its pages do: the director makes a
tournament (``POST /api/tournaments``: duplicate or Swiss pairs, one round, ``--boards`` boards),
one member of each partnership enters it naming the other, the director starts it, and the round's
``tables`` tables play.  Each person then does what ``/tournaments/ID`` does in a browser: reads
``GET /api/tournaments/ID?known=N`` every ``--poll`` seconds after the last answer (the whole
tournament when its document moved on from N, else only the tables' progress and their own seat)
and ``/audit`` when the document moved on, and when the answer says it is their move, waits
``--pace`` seconds and sends a move (``POST /api/tournaments/ID/move``: the one a basic bot
chooses from the person's own view, computed here, as a person's choice is theirs: the server
suggests nothing).  Tournament tables have no socket: a player learns of the others' moves from the
next read.

Reported, over ``--duration`` seconds after ``--warmup``: moves, the move's latency (request sent to
answer, p50/p95/p99), the reads' latency, the servers' (and workers', PostgreSQL's, Redis's) CPU
seconds per move from ``/proc`` (the reads included: a page reads several times a move; with a
``--pace`` longer than the run nobody moves, and ``server_cpu_ms_per_read`` is a read's own cost), the errors (``503``: the tournament busy, a refusal, a time-out)
with samples, the tournament document's size, and the machine's load average.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import shlex
import statistics
import sys
import tempfile
import time
import urllib.error
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from canasta.bots import make_bot
from canasta.engine.rules import RuleSet
from canasta.views.seat import SeatView
from canasta.web.load import (
    Person,
    _letters,
    cpu_seconds,
    make_accounts,
    percentile,
    post,
    rss_mb,
    service_pids,
    services_cpu,
    sign_in,
)


@dataclass
class Round:
    """What the people of the round measured, while ``measuring``."""

    measuring: bool = False
    moves: int = 0
    move_latencies: list[float] = field(default_factory=list)
    read_latencies: list[float] = field(default_factory=list)
    reads: int = 0
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    last_state: dict[str, Any] = field(default_factory=dict)

    def error(self, kind: str, text: str) -> None:
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1
        if len(self.error_samples) < 8:
            self.error_samples.append(f"{kind}: {text}"[:200])


def names_of(seed: int, players: int) -> tuple[str, list[str]]:
    """The director's and the players' account names (letters no two of which look alike)."""
    tag = _letters(seed)
    return f"tload{tag}ddd", [f"tload{tag}p{_letters(i)}" for i in range(players)]


def get(url: str, person: Person) -> dict[str, Any]:
    with person.opener.open(url, timeout=120) as r:
        data: dict[str, Any] = json.loads(r.read())
        return data


def why(exc: BaseException) -> tuple[str, str]:
    """An error's kind (its HTTP status, or its class) and what it said (an answer's body is read once)."""
    if isinstance(exc, urllib.error.HTTPError):
        with contextlib.suppress(Exception):
            return str(exc.code), str(json.loads(exc.read()).get("detail", ""))
        return str(exc.code), ""
    return exc.__class__.__name__, str(exc)


PRESET = "classic-4p"  # the round's preset
RULES = RuleSet.preset(PRESET)


def choice(me: dict[str, Any], seed: int) -> str:
    """The person's move: what a basic bot chooses from their own view (the page's, with the rules)."""
    bot = make_bot("basic", seed=seed)
    try:
        return str(bot.choose(SeatView.from_dict({**me["view"], "rules": RULES.to_dict()})))
    finally:
        bot.close()


async def person_loop(rnd: Round, base: str, tid: str, person: Person, rng: random.Random,
                      pace: tuple[float, float], poll: float, until: asyncio.Event) -> None:
    """One player's browser on the tournament page: read, and play their move when it is theirs."""
    loop = asyncio.get_running_loop()
    url = f"{base}/api/tournaments/{tid}"
    await asyncio.sleep(rng.uniform(0, poll))  # the pages were not all opened in the same instant
    known: Any = None  # the document's number the page has read whole
    while not until.is_set():
        t0 = time.perf_counter()
        try:
            data = await loop.run_in_executor(None, get, url + f"?lang=en&known={known}", person)
            if data.get("doc") != known:
                await loop.run_in_executor(None, get, url + "/audit", person)
                known = data.get("doc")
        except Exception as exc:
            if rnd.measuring:
                kind, text = why(exc)
                rnd.error("read " + kind, text)
            await asyncio.sleep(poll)
            continue
        if rnd.measuring:
            rnd.reads += 1
            rnd.read_latencies.append(time.perf_counter() - t0)
        rnd.last_state = data
        if data.get("status") == "finished":
            return
        me = data.get("me")
        if me and not me.get("finished") and me.get("to_move") == me.get("seat") and me.get("view"):
            await asyncio.sleep(rng.uniform(*pace))
            if until.is_set():
                return
            move = await loop.run_in_executor(None, choice, me, rng.randrange(1 << 30))
            t1 = time.perf_counter()
            try:
                await loop.run_in_executor(None, post, url + "/move", {"move": move}, person)
            except Exception as exc:
                if rnd.measuring:
                    kind, text = why(exc)
                    rnd.error("move " + kind, text)
            else:
                if rnd.measuring:
                    rnd.moves += 1
                    rnd.move_latencies.append(time.perf_counter() - t1)
        await asyncio.sleep(poll)


@contextlib.contextmanager
def fresh_database(admin: str) -> Iterator[str]:
    """A new database in the PostgreSQL cluster of ``admin`` (dropped afterwards)."""
    import psycopg

    name = f"canasta_tload_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True, connect_timeout=5) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{admin.rsplit('/', 1)[0]}/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def document_bytes(db: str, tid: str) -> int:
    """The stored size of the tournament's document (its JSON, sealed)."""
    from sqlalchemy import func, select

    from canasta.web.store import Store
    from canasta.web.tournament_store import tournaments_t

    store = Store(db)
    try:
        with store.engine.connect() as c:
            size = c.execute(select(func.length(tournaments_t.c.state)).where(tournaments_t.c.id == tid)).scalar()
        return int(size or 0)
    finally:
        store.engine.dispose()


async def sign_all_in(bases: list[str], names: list[str]) -> list[Person]:
    sem = asyncio.Semaphore(8)
    loop = asyncio.get_running_loop()

    async def one(i: int, name: str) -> Person:
        async with sem:
            return await loop.run_in_executor(None, sign_in, bases[i % len(bases)], name)

    return list(await asyncio.gather(*(one(i, n) for i, n in enumerate(names))))


async def make_tournament(args: argparse.Namespace, base: str, director: Person, people: list[Person]) -> str:
    """The director's tournament, a partnership of each two people entered, and started."""
    loop = asyncio.get_running_loop()
    body = {"name": f"Load {args.tables} tables", "form": args.form, "rounds": 1, "hands": args.boards,
            "preset": PRESET, "entry": "pairs", "turn_seconds": args.turn_seconds, "seed": args.seed}
    made = await loop.run_in_executor(None, post, base + "/api/tournaments", body, director)
    tid = str(made["id"])
    sem = asyncio.Semaphore(4)

    async def pair(i: int) -> None:
        async with sem:
            for attempt in range(20):
                try:
                    await loop.run_in_executor(None, post, f"{base}/api/tournaments/{tid}/enter",
                                               {"partner": people[2 * i + 1].name}, people[2 * i])
                    return
                except urllib.error.HTTPError as exc:
                    if exc.code != 503 or attempt == 19:
                        raise
                    await asyncio.sleep(0.2)

    await asyncio.gather(*(pair(i) for i in range(len(people) // 2)))
    await loop.run_in_executor(None, post, f"{base}/api/tournaments/{tid}/director/start", {}, director)
    return tid


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Start the room, make and start the tournament, play its round for a while: the figures."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=max(32, 4 * args.tables + 16)))
    director_name, player_names = names_of(args.seed, 4 * args.tables)
    from canasta.web.devserver import ServerProcess, WorkerProcess

    servers: list[ServerProcess] = []
    workers: list[WorkerProcess] = []
    if args.servers:
        if not args.db or not args.redis:
            raise SystemExit("--servers needs --db postgresql://... and --redis redis://...")
        db = args.db
        common = ["--bot-delay", str(args.bot_delay), "--grace", "600", "--allow-fixed-seeds",
                  "--redis", args.redis, "--redis-prefix", f"tload-{os.getpid()}"]
        if not os.environ.get("CANASTA_SECRET_KEYS"):  # the servers and workers share one key
            from canasta.web.vault import new_key

            os.environ["CANASTA_SECRET_KEYS"] = new_key()
        make_accounts(db, [director_name, *player_names])
        workers = [WorkerProcess(db, common).start() for _ in range(args.workers)]
        servers = [ServerProcess(db, args=[*common, "--tables-per-minute", "0", "--sockets-per-address", "0"]).start()
                   for _ in range(args.servers)]
    else:
        db = args.db or str(Path(tempfile.mkdtemp(prefix="canasta-tload-")) / "tload.db")
        make_accounts(db, [director_name, *player_names])
        servers = [ServerProcess(db, args=["--bot-delay", str(args.bot_delay), "--grace", "600",
                                           "--allow-fixed-seeds", "--tables-per-minute", "0",
                                           "--sockets-per-address", "0"]).start()]
    bases = [sv.url for sv in servers]
    procs = [sv.proc.pid for sv in servers if sv.proc is not None]
    worker_pids = [w.proc.pid for w in workers if w.proc is not None]
    rnd = Round()
    until = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    try:
        t0 = time.monotonic()
        cpu_signin0 = sum(cpu_seconds(p) for p in procs)
        everyone = await sign_all_in(bases, [director_name, *player_names])
        sign_in_s = time.monotonic() - t0
        sign_in_cpu = sum(cpu_seconds(p) for p in procs) - cpu_signin0
        director, people = everyone[0], everyone[1:]
        t1 = time.monotonic()
        tid = await make_tournament(args, bases[0], director, people)
        entry_s = time.monotonic() - t1
        rng = random.Random(args.seed)
        pace = (args.pace[0], args.pace[1])
        tasks = [asyncio.create_task(person_loop(rnd, bases[i % len(bases)], tid, p, random.Random(rng.random()),
                                                 pace, args.poll, until)) for i, p in enumerate(people)]
        await asyncio.sleep(args.warmup)
        rnd.measuring = True
        start = time.monotonic()
        usage0 = resource.getrusage(resource.RUSAGE_SELF)
        svc = service_pids() if args.servers else {}
        svc0 = services_cpu(svc)
        server_cpu0 = sum(cpu_seconds(p) for p in procs)
        worker_cpu0 = sum(cpu_seconds(p) for p in worker_pids)
        rss: list[float] = []
        while time.monotonic() - start < args.duration and not all(t.done() for t in tasks):
            await asyncio.sleep(1)
            rss.append(sum(rss_mb(p) for p in procs))
        elapsed = time.monotonic() - start
        rnd.measuring = False
        server_cpu = sum(cpu_seconds(p) for p in procs) - server_cpu0
        worker_cpu = sum(cpu_seconds(p) for p in worker_pids) - worker_cpu0
        svc_cpu = {k: v - svc0[k] for k, v in services_cpu(svc).items()}
        usage1 = resource.getrusage(resource.RUSAGE_SELF)
        load1, load5, load15 = os.getloadavg()
        until.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        state = rnd.last_state
        doc = document_bytes(db, tid)
    finally:
        until.set()
        for task in tasks:
            task.cancel()
        for sv in servers:
            sv.stop()
        for w in workers:
            w.stop()
    moves = rnd.moves

    def per_move(cpu: float) -> float | None:
        return round(cpu / moves * 1000, 2) if moves else None

    def ms(xs: list[float], q: float) -> float | None:
        return round(percentile(xs, q) * 1000, 1) if xs else None

    tables = state.get("tables") or []
    return {
        "tables": args.tables, "partnerships": 2 * args.tables, "players": len(people), "form": args.form,
        "boards": args.boards, "pace_s": list(pace), "poll_s": args.poll,
        "sign_in_s": round(sign_in_s, 1),
        "server_cpu_ms_per_sign_in": round(sign_in_cpu / len(everyone) * 1000, 1) if everyone else None,
        "entry_and_start_s": round(entry_s, 1), "duration_s": round(elapsed, 1),
        "moves": moves, "moves_per_s": round(moves / elapsed, 2) if elapsed else None,
        "move_p50_ms": ms(rnd.move_latencies, 0.5), "move_p95_ms": ms(rnd.move_latencies, 0.95),
        "move_p99_ms": ms(rnd.move_latencies, 0.99),
        "move_mean_ms": round(statistics.fmean(rnd.move_latencies) * 1000, 1) if rnd.move_latencies else None,
        "move_max_ms": round(max(rnd.move_latencies) * 1000, 1) if rnd.move_latencies else None,
        "reads": rnd.reads, "reads_per_s": round(rnd.reads / elapsed, 1) if elapsed else None,
        "read_p50_ms": ms(rnd.read_latencies, 0.5), "read_p99_ms": ms(rnd.read_latencies, 0.99),
        "server_cpu_s": round(server_cpu, 1), "server_cpu_ms_per_move": per_move(server_cpu),
        "server_cpu_share": round(server_cpu / elapsed, 2) if elapsed else None,
        # the reads' own cost where nobody moves (a --pace longer than the run)
        "server_cpu_ms_per_read": round(server_cpu / rnd.reads * 1000, 2) if rnd.reads else None,
        "server_rss_mb": round(max(rss), 1) if rss else None,
        "loadgen_cpu_s": round(usage1.ru_utime + usage1.ru_stime - usage0.ru_utime - usage0.ru_stime, 1),
        "errors": rnd.errors, "error_kinds": rnd.error_kinds, "error_samples": rnd.error_samples,
        "boards_done_at_end": sum(int(t.get("boards_done", 0)) for t in tables),
        "table_moves_at_end": sum(int(t.get("moves", 0)) for t in tables),
        "tournament_status": state.get("status"), "document_bytes": doc,
        "machine_load_avg": [round(load1, 2), round(load5, 2), round(load15, 2)],
        **({"servers": len(servers), "workers": len(workers), "worker_cpu_ms_per_move": per_move(worker_cpu),
            "postgres_cpu_ms_per_move": per_move(svc_cpu.get("postgres", 0.0)),
            "redis_cpu_ms_per_move": per_move(svc_cpu.get("redis-server", 0.0))} if args.servers else {}),
    }


def calls(tables: int, seed: int = 1, repeat: int = 5) -> dict[str, Any]:
    """What one read, one move and one step cost on a started ``tables``-table round, in this process
    on a temporary SQLite file (medians of ``repeat``, ms): the tournament's document read and opened,
    the page's public part, a player's own seat, a move (read, played, written) and the step after it."""
    from sqlalchemy import select

    from canasta.web.store import Store
    from canasta.web.tournament_store import live_t, tournaments_t
    from canasta.web.tournaments import (
        current,
        my_view,
        new_state,
        play_move,
        public,
        seat_of,
        start,
        step,
        store_for,
    )
    from canasta.web.tournaments import enter as enter_pair
    from canasta.web.tournaments import tournament_of as opened
    from canasta.web.vault import PREFIX

    store = Store(str(Path(tempfile.mkdtemp(prefix="canasta-tcalls-")) / "calls.db"))
    try:
        ts = store_for(store.engine, store.vault)
        settings = {"form": "duplicate", "rounds": 1, "hands": 2, "preset": PRESET, "scoring": "matchpoints",
                    "entry": "pairs", "turn_seconds": 600}
        state = new_state("calls", {"id": "director", "name": "director"}, settings, seed)
        for i in range(2 * tables):
            enter_pair(state, [{"id": f"a{2 * i}", "name": f"p{2 * i}"}, {"id": f"a{2 * i + 1}", "name": f"p{2 * i + 1}"}])
        start(state)
        ts.create("calls", state, time.time())
        for _ in range(tables + 1):  # every table dealt, its clock set (the round seated first)
            step(ts, "calls", time.time(), budget=60.0)

        def median_ms(fn: Any) -> float:
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            return round(statistics.median(times) * 1000, 2)

        got = ts.load("calls")
        assert got is not None
        t = opened(got.state)
        to_move = []  # the player to move at each table
        for i in range(4 * tables):
            found = seat_of(got.state, t, f"a{i}")
            view = my_view(ts, got.state, t, "calls", f"a{i}") if found is not None else None
            if view is not None and view.get("to_move") == view["seat"]:
                to_move.append((f"a{i}", choice(view, i)))
        moves = iter(to_move)

        def one_move() -> None:
            account, move = next(moves)
            g = current(ts, "calls")
            assert g is not None and g[1] is not None
            assert play_move(ts, g[0], g[1], account, None, move, time.time()) is not None

        out: dict[str, Any] = {
            "tables": tables,
            "read_ms": median_ms(lambda: ts.load("calls")),
            "public_ms": median_ms(lambda: public(got.state, opened(got.state), "a0")),
            "own_seat_ms": median_ms(lambda: my_view(ts, got.state, t, "calls", to_move[0][0])),
            "move_ms": median_ms(one_move),
            "step_ms": median_ms(lambda: step(ts, "calls", time.time())),
        }
        with store.engine.connect() as c:
            text = str(c.execute(select(tournaments_t.c.state).where(tournaments_t.c.id == "calls")).scalar())
            rows = [str(x) for x in c.execute(select(live_t.c.data).where(live_t.c.tournament == "calls")).scalars()]
        out.update({"document_bytes": len(text), "sealed_values": text.count(PREFIX),
                    "live_rows": len(rows), "live_row_bytes": max((len(x) for x in rows), default=0),
                    "live_sealed_values": sum(x.count(PREFIX) for x in rows)})
        return out
    finally:
        store.engine.dispose()


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m canasta.web.tournament_load",
                                description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--tables", type=int, default=100, help="tables of the round (two partnerships each; default 100)")
    p.add_argument("--form", choices=["duplicate", "swiss"], default="duplicate")
    p.add_argument("--boards", type=int, default=2, help="boards (hands) of the round (default 2)")
    p.add_argument("--duration", type=float, default=60.0, help="seconds measured (default 60)")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds of play before measuring (default 10)")
    p.add_argument("--pace", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"),
                   help="seconds a person thinks once the page shows their move (default 1 3)")
    p.add_argument("--poll", type=float, default=1.5, help="seconds between a page's reads (the page's 1.5)")
    p.add_argument("--turn-seconds", type=int, default=600, help="the tournament's turn clock (default 600)")
    p.add_argument("--bot-delay", type=float, default=0.7, help="the servers' --bot-delay (paces the steps)")
    p.add_argument("--db", help="the database (default: a temporary SQLite file; with --servers, PostgreSQL)")
    p.add_argument("--pg-admin", metavar="URL",
                   help="with --servers: make a fresh database in this PostgreSQL cluster (dropped after)")
    p.add_argument("--servers", type=int, default=0, metavar="N",
                   help="start N cluster servers and --workers workers on --db and --redis; people spread over them")
    p.add_argument("--workers", type=int, default=1, metavar="M")
    p.add_argument("--redis", help="Redis URL for --servers")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--record", metavar="FILE", help="append the result, with the command, as a JSON line")
    p.add_argument("--note", default="", help="a note kept in the --record line")
    p.add_argument("--calls", action="store_true",
                   help="no servers: time one read, move and step on a --tables round in this process")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    before = os.getloadavg()[0]
    if args.calls:
        result = calls(args.tables, args.seed)
    elif args.servers and not args.db and args.pg_admin:
        with fresh_database(args.pg_admin) as db:
            args.db = db
            result = asyncio.run(run(args))
            args.db = None
    else:
        result = asyncio.run(run(args))
    result["machine_load_avg_before"] = round(before, 2)
    if args.record:
        given = list(argv if argv is not None else sys.argv[1:])
        if "--note" in given:  # the note is kept beside the command
            at = given.index("--note")
            del given[at:at + 2]
        line = {"command": "python -m canasta.web.tournament_load " + shlex.join(given),
                "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **({"note": args.note} if args.note else {}),
                **result}
        with open(args.record, "a") as f:
            f.write(json.dumps(line) + "\n")
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:>26}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
