"""Load benchmark: many tables of scripted websocket players acting at a human pace.

    python -m canasta.web.load --tables 500 --duration 60
    python -m canasta.web.load --tables 200 --humans 1      # one person and three bots per table
    python -m canasta.web.load --tables 200 --expert-tables 8   # and 8 tables of expert bots beside them
    python -m canasta.web.load --tables 500 --servers 2 --workers 1 --db postgresql://… --redis redis://…
    python -m canasta.web.load --tables 500 --signed-in   # every person signed in to an account

By default it starts ``canasta serve`` in a child process on a fresh SQLite file
(``--url`` points it at a running server instead).  Every seat is a websocket
client; when its turn comes it waits 1-3 s (``--pace``), then plays the move a
basic bot picks from the seat's own view.  Reported: concurrent tables, moves/s,
p50/p99 move latency (move sent -> every seat's update received) and the
server's resident memory.  ``--expert-tables N`` adds N tables where one
scripted person plays with three expert bots (the server's searching level):
their latency is not counted; they are there to show whether thinking bots slow
the human-pace tables down (they should not: they think in worker processes).

``--signed-in`` makes every scripted person an account: the accounts are written to the
database before the server starts (one argon2id hash shared by all, to keep the setup
short), then each person signs in through ``POST /api/account/login``, makes or joins its
table with its session and CSRF token, and opens its socket with its session cookie.  The
sign-ins are timed as they happen: the server's CPU per sign-in, and the event loop's
responsiveness meanwhile (the worst delay of a ``/healthz`` probe sent every 20 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import http.cookiejar
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from canasta.bots import Bot, make_bot
from canasta.views.seat import SeatView


@dataclass
class Pending:
    sent: float
    seq: int
    waiting: set[int]


@dataclass
class Bench:
    pace: tuple[float, float]
    measuring: bool = False
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    pending: dict[str, Pending] = field(default_factory=dict)
    seats_of: dict[str, set[int]] = field(default_factory=dict)  # connected scripted seats per table
    active: set[str] = field(default_factory=set)
    last_move: dict[str, float] = field(default_factory=dict)
    unmeasured: set[str] = field(default_factory=set)  # the expert-bot tables: there to load the server
    background_events: int = 0  # events seen at the unmeasured tables while measuring
    last_seq: dict[str, int] = field(default_factory=dict)

    def on_state(self, table: str, seat: int, seq: int) -> None:
        if table in self.unmeasured:
            if self.measuring and seq > self.last_seq.get(table, seq):
                self.background_events += seq - self.last_seq[table]
            self.last_seq[table] = max(seq, self.last_seq.get(table, seq))
            return
        p = self.pending.get(table)
        if p is not None and seq >= p.seq:
            p.waiting.discard(seat)
            if not p.waiting:
                if self.measuring:
                    self.latencies.append(time.perf_counter() - p.sent)
                del self.pending[table]

    def sent(self, table: str, seq: int) -> None:
        if table in self.unmeasured:
            return
        self.pending[table] = Pending(time.perf_counter(), seq + 1, set(self.seats_of[table]))
        self.last_move[table] = time.monotonic()
        if self.measuring:
            self.moves += 1


@dataclass
class Person:
    """A signed-in scripted person (``--signed-in``): its browser's cookies and CSRF token."""

    name: str
    opener: urllib.request.OpenerDirector
    jar: http.cookiejar.CookieJar
    csrf: str = ""

    def session_cookie(self) -> str:
        return next((c.value or "" for c in self.jar if c.name == "canasta_session"), "")


LOAD_PASSWORD = "load-benchmark-password"  # the benchmark's own throwaway accounts


def post(url: str, body: dict[str, Any], person: Person | None = None) -> dict[str, Any]:
    headers = {"content-type": "application/json"}
    if person is not None and person.csrf:
        headers["X-CSRF-Token"] = person.csrf
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    opener = person.opener if person is not None else urllib.request.build_opener()
    with opener.open(req, timeout=60) as r:
        data: dict[str, Any] = json.loads(r.read())
        return data


def make_accounts(db: str, names: list[str]) -> None:
    """Accounts named ``names`` (password :data:`LOAD_PASSWORD`) written to the database ``db``."""
    from canasta.web.account_store import AccountStore
    from canasta.web.accounts import hasher
    from canasta.web.store import Store

    store = Store(db)
    accounts = AccountStore(store.engine)
    stored = hasher().hash(LOAD_PASSWORD)
    now = time.time()
    for name in names:
        if accounts.find(name) is None:
            accounts.create(name, stored, "en", now)
    store.engine.dispose()


def sign_in(base: str, name: str) -> Person:
    """``name`` signed in at ``base`` as a browser would: the CSRF cookie first, then the login."""
    jar = http.cookiejar.CookieJar()
    person = Person(name, urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar)), jar)
    with person.opener.open(base + "/api/account/me", timeout=60) as r:
        person.csrf = json.loads(r.read())["csrf"]
    person.csrf = post(base + "/api/account/login", {"name": name, "password": LOAD_PASSWORD}, person)["csrf"]
    return person


def create_table(base: str, humans: int, seed: int, level: str = "basic",
                 people: list[Person] | None = None) -> tuple[str, list[tuple[int, str]]]:
    first = people[0] if people else None
    if humans == 1:
        data = post(base + "/api/quick", {"name": "Load", "seed": seed, "target": 100000, "level": level}, first)
        return data["table"], [(0, data["token"])]
    seats: list[dict[str, Any]] = [{}] + [{"kind": "open"}] * (humans - 1) + \
        [{"kind": "bot", "level": "basic"}] * (4 - humans)
    data = post(base + "/api/tables", {"preset": "classic-4p", "name": "S0", "seat": 0, "seats": seats,
                                       "seed": seed, "target": 100000}, first)
    tokens = [(0, data["token"])]
    for s in range(1, humans):
        j = post(f"{base}/api/tables/{data['table']}/join", {"name": f"S{s}", "seat": s},
                 people[s] if people else None)
        tokens.append((s, j["token"]))
    return data["table"], tokens


def service_pids(names: tuple[str, ...] = ("postgres", "redis-server")) -> dict[str, list[int]]:
    """The processes of the local PostgreSQL and Redis (Linux), to measure their CPU per move."""
    found: dict[str, list[int]] = {n: [] for n in names}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                comm = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if comm in found:
                found[comm].append(int(entry.name))
    return found


def services_cpu(pids: dict[str, list[int]]) -> dict[str, float]:
    return {name: sum(cpu_seconds(p) for p in group) for name, group in pids.items()}


async def seat_client(bench: Bench, ws_base: str, table: str, seat: int, token: str, rng: random.Random,
                      cookie: str = "") -> None:
    from websockets.asyncio.client import connect

    bot: Bot = make_bot("basic", seed=rng.randrange(1 << 30))
    rules: dict[str, Any] = {}
    state: dict[str, Any] = {}
    acting: set[int] = set()

    async def act(ws: Any, seq: int) -> None:
        await asyncio.sleep(rng.uniform(*bench.pace))
        if state.get("seq") != seq:
            return
        if state["hand_over"]:
            if seat != min(bench.seats_of[table]) or state["match_over"]:
                return
            msg = {"type": "next_hand"}
        else:
            view = SeatView.from_dict({**state["view"], "rules": rules})
            msg = {"type": "move", "move": str(bot.choose(view))}
        bench.sent(table, seq)
        try:
            await ws.send(json.dumps(msg))
        except Exception:  # the connection closed (the run is over)
            bench.pending.pop(table, None)

    try:
        headers = {"Cookie": f"canasta_session={cookie}"} if cookie else None
        async with connect(f"{ws_base}/ws/{table}", max_size=1 << 22, open_timeout=60,
                           ping_interval=None, additional_headers=headers) as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            bench.seats_of.setdefault(table, set()).add(seat)
            async for raw in ws:
                msg = json.loads(raw)
                kind = msg["type"]
                if kind == "welcome":
                    rules = msg["rules"]
                elif kind == "state":
                    state = msg
                    bench.on_state(table, seat, msg["seq"])
                    v = msg["view"]
                    mine = (v["to_move"] == seat and not msg["hand_over"]) or msg["hand_over"]
                    if mine and msg["status"] == "playing" and msg["seq"] not in acting:
                        acting.add(msg["seq"])
                        asyncio.get_running_loop().create_task(act(ws, msg["seq"]))
                elif kind == "error":
                    bench.errors += 1
                    if len(bench.error_samples) < 5:
                        bench.error_samples.append(msg.get("message", ""))
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        bench.errors += 1
        if len(bench.error_samples) < 5:
            bench.error_samples.append(f"connection: {exc!r}")


def read_available(stream: Any, timeout: float = 2.0) -> str:
    """What a pipe holds, without waiting for its end (a leftover child may hold it open)."""
    import select

    chunks = []
    deadline = time.monotonic() + timeout
    fd = stream.fileno()
    while (left := deadline - time.monotonic()) > 0 and select.select([fd], [], [], left)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    server = None
    servers: list[Any] = []
    workers: list[Any] = []
    if args.servers:  # a cluster: N servers and M workers on one PostgreSQL database and Redis
        from canasta.web.devserver import ServerProcess, WorkerProcess

        if not args.db or not args.redis:
            raise SystemExit("--servers needs --db postgresql://... and --redis redis://...")
        common = ["--bot-delay", str(args.bot_delay), "--grace", "600", "--allow-fixed-seeds",
                  "--redis", args.redis, "--redis-prefix", f"load-{os.getpid()}"]
        if not os.environ.get("CANASTA_SECRET_KEYS"):  # the servers and workers it starts share one key
            from canasta.web.vault import new_key

            os.environ["CANASTA_SECRET_KEYS"] = new_key()
        if args.signed_in:
            make_accounts(args.db, person_names(args))
        workers = [WorkerProcess(args.db, common).start() for _ in range(args.workers)]
        servers = [ServerProcess(args.db, args=[*common, "--tables-per-minute", "0", "--sockets-per-address", "0"])
                   .start() for _ in range(args.servers)]
        bases = [sv.url for sv in servers]
    elif args.url:
        if args.signed_in:
            if not args.db:
                raise SystemExit("--signed-in with --url needs --db: the running server's database, "
                                 "where the benchmark's accounts are written")
            make_accounts(args.db, person_names(args))
        bases = [u.rstrip("/") for u in args.url]
    else:
        from canasta.web.devserver import ServerProcess

        db = args.db or str(Path(tempfile.mkdtemp(prefix="canasta-load-")) / "load.db")
        if args.signed_in:
            make_accounts(db, person_names(args))
        extra = [] if args.bot_workers is None else ["--bot-workers", str(args.bot_workers)]
        # one address (this machine) opens every table and socket: the per-address limits are off
        server = ServerProcess(db, args=["--bot-delay", str(args.bot_delay), "--grace", "600",
                                         "--allow-fixed-seeds", "--tables-per-minute", "0",
                                         "--sockets-per-address", "0", *extra]).start()
        bases = [server.url]
    base = bases[0]
    pace = (args.pace[0], args.pace[1])
    bench = Bench(pace)
    rng = random.Random(args.seed)
    t0 = time.monotonic()
    sem = asyncio.Semaphore(8)

    procs = [p.proc.pid for p in ([server] if server is not None else servers) if p.proc is not None]
    people: list[Person] = []
    signin: dict[str, Any] = {}
    if args.signed_in:
        people, signin = await sign_everyone_in(bases, person_names(args), procs)

    async def make(i: int) -> tuple[str, list[tuple[int, str]]]:
        async with sem:  # tables made on every server in turn
            mine = people[i * args.humans:(i + 1) * args.humans] if people else None
            return await asyncio.to_thread(create_table, bases[i % len(bases)], args.humans,
                                           args.seed * 100003 + i, "basic", mine)

    async def make_expert(i: int) -> tuple[str, list[tuple[int, str]]]:
        async with sem:
            return await asyncio.to_thread(create_table, base, 1, args.seed * 100003 + 50000 + i, "expert")

    async def freezer() -> None:  # as the server does: keep full collections off the clients' states
        while True:
            await asyncio.sleep(5)
            gc.freeze()

    freeze_task = asyncio.create_task(freezer())
    tables = await asyncio.gather(*(make(i) for i in range(args.tables)))
    experts = await asyncio.gather(*(make_expert(i) for i in range(args.expert_tables)))
    bench.unmeasured = {t for t, _ in experts}
    setup = time.monotonic() - t0
    tasks = []
    for table, tokens in experts:
        ws_base = "ws" + base[4:]
        for seat, token in tokens:
            tasks.append(asyncio.create_task(seat_client(bench, ws_base, table, seat, token,
                                                         random.Random(rng.random()))))
    for i, (table, tokens) in enumerate(tables):
        for seat, token in tokens:  # a table's seats on different servers (unless --sticky)
            ws_base = "ws" + bases[(i if args.sticky else i + seat) % len(bases)][4:]
            cookie = people[i * args.humans + seat].session_cookie() if people else ""
            tasks.append(asyncio.create_task(seat_client(bench, ws_base, table, seat, token,
                                                         random.Random(rng.random()), cookie)))
        await asyncio.sleep(args.ramp / max(1, args.tables))
    await asyncio.sleep(args.warmup)
    bench.measuring = True
    start = time.monotonic()
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    worker_pids = [w.proc.pid for w in workers if w.proc is not None]
    svc = service_pids() if servers else {}
    svc0 = services_cpu(svc)
    server_cpu0 = sum(cpu_seconds(p) for p in procs)
    worker_cpu0 = sum(cpu_seconds(p) for p in worker_pids)
    rss_samples = []
    while time.monotonic() - start < args.duration:
        await asyncio.sleep(1)
        if procs:
            rss_samples.append(sum(rss_mb(p) for p in procs))
    elapsed = time.monotonic() - start
    bench.measuring = False
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    server_cpu = sum(cpu_seconds(p) for p in procs) - server_cpu0
    worker_cpu = sum(cpu_seconds(p) for p in worker_pids) - worker_cpu0
    svc_cpu = {k: v - svc0[k] for k, v in services_cpu(svc).items()}
    loadavg = os.getloadavg()[0]
    now = time.monotonic()
    live = sum(1 for t, _ in tables if now - bench.last_move.get(t, 0) < 3 * pace[1] + 5)
    freeze_task.cancel()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    server_rss = max(rss_samples) if rss_samples else 0.0
    pool_report = ""
    if server is not None:
        if server.proc is not None and server.proc.poll() is None:
            server.proc.terminate()  # a clean stop: the server reports its bot pool on the way out
            with contextlib.suppress(Exception):  # the report is optional
                server.proc.wait(10)
                pool_report = " ".join(line for line in server.stderr_text().splitlines() if "bot pool" in line)
        server.stop()
    for sv in servers:
        sv.stop()
    for w in workers:
        w.stop()
    lat = bench.latencies

    def per_move(cpu: float) -> float | None:
        return round(cpu / bench.moves * 1000, 3) if bench.moves else None
    return {
        "tables": args.tables, "humans_per_table": args.humans, "connections": len(tasks),
        "concurrent_tables": live, "setup_s": round(setup, 1), "duration_s": round(elapsed, 1),
        "moves": bench.moves, "moves_per_s": round(bench.moves / elapsed, 1),
        "latency_samples": len(lat),
        "p50_ms": round(percentile(lat, 0.5) * 1000, 1), "p99_ms": round(percentile(lat, 0.99) * 1000, 1),
        "mean_ms": round(statistics.fmean(lat) * 1000, 1) if lat else None,
        "max_ms": round(max(lat) * 1000, 1) if lat else None,
        "server_rss_mb": round(server_rss, 1),
        "server_cpu_s": round(server_cpu, 1),
        "server_cpu_ms_per_move": per_move(server_cpu),
        "machine_load_avg": round(loadavg, 2),
        "loadgen_cpu_s": round(cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime, 1),
        "errors": bench.errors, "error_samples": bench.error_samples,
        "expert_tables": args.expert_tables,
        "expert_table_events_per_s": round(bench.background_events / elapsed, 1),
        "server_bot_pool": pool_report,
        **({"signed_in": True, **signin} if args.signed_in else {}),
        **({"servers": len(servers), "workers": len(workers), "worker_cpu_ms_per_move": per_move(worker_cpu),
            "postgres_cpu_ms_per_move": per_move(svc_cpu.get("postgres", 0.0)),
            "redis_cpu_ms_per_move": per_move(svc_cpu.get("redis-server", 0.0))} if servers else {}),
    }


def person_names(args: argparse.Namespace) -> list[str]:
    """The accounts of ``--signed-in``: one a scripted person, named in letters no two of which
    look alike (the room refuses a name that imitates another: ``1`` and ``l``, ``rn`` and ``m``)."""
    return [f"load{_letters(args.seed)}h{_letters(i)}" for i in range(args.tables * args.humans)]


def _letters(n: int, alphabet: str = "bdefgkpqstuxyz") -> str:
    out = ""
    while True:
        n, d = divmod(n, len(alphabet))
        out = alphabet[d] + out
        if n == 0:
            return out


async def sign_everyone_in(bases: list[str], names: list[str], procs: list[int]) -> tuple[list[Person], dict[str, Any]]:
    """Every person signed in (8 at a time), timed: the servers' CPU per sign-in and the worst
    delay of a ``/healthz`` probe sent every 20 ms meanwhile (the event loop's responsiveness)."""
    sem = asyncio.Semaphore(8)
    probes: list[float] = []
    done = asyncio.Event()

    async def one(i: int, name: str) -> Person:
        async with sem:
            return await asyncio.to_thread(sign_in, bases[i % len(bases)], name)

    def probe_once() -> float:
        t = time.perf_counter()
        with urllib.request.urlopen(bases[0] + "/healthz", timeout=30) as r:
            r.read()
        return time.perf_counter() - t

    async def prober() -> None:
        while not done.is_set():
            probes.append(await asyncio.to_thread(probe_once))
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(done.wait(), 0.02)

    cpu0 = sum(cpu_seconds(p) for p in procs)
    t0 = time.monotonic()
    probing = asyncio.create_task(prober())
    people = await asyncio.gather(*(one(i, n) for i, n in enumerate(names)))
    elapsed = time.monotonic() - t0
    done.set()
    await probing
    cpu = sum(cpu_seconds(p) for p in procs) - cpu0
    return list(people), {
        "sign_ins": len(people), "sign_in_s": round(elapsed, 1),
        "server_cpu_ms_per_sign_in": round(cpu / len(people) * 1000, 1) if people and procs else None,
        "healthz_probes_during_sign_ins": len(probes),
        "healthz_p50_ms_during_sign_ins": round(percentile(probes, 0.5) * 1000, 1),
        "healthz_max_ms_during_sign_ins": round(max(probes) * 1000, 1) if probes else None,
    }


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m canasta.web.load", description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--humans", type=int, default=4, choices=[1, 2, 3, 4],
                   help="scripted websocket seats per table; the others are server bots (default 4)")
    p.add_argument("--duration", type=float, default=30.0, help="seconds measured (default 30)")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--ramp", type=float, default=10.0, help="seconds over which the clients connect")
    p.add_argument("--pace", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"),
                   help="seconds a seat waits after its turn begins before each move (default 1 3)")
    p.add_argument("--bot-delay", type=float, default=0.7, help="the server's pause before bot moves")
    p.add_argument("--expert-tables", type=int, default=0, metavar="N",
                   help="also N tables of one scripted person and three expert bots (not measured)")
    p.add_argument("--bot-workers", type=int, default=None, metavar="N",
                   help="the started server's --bot-workers (default: its own; 0: bots think in a thread)")
    p.add_argument("--url", action="append", help="a running server (default: start one); repeat it for "
                   "several servers of one cluster (tables and seats are spread over them)")
    p.add_argument("--db", help="the database of the started server (default: a temporary SQLite file)")
    p.add_argument("--servers", type=int, default=0, metavar="N",
                   help="start N cluster servers and --workers workers on --db (PostgreSQL) and --redis; each "
                        "table's seats are spread over the servers")
    p.add_argument("--workers", type=int, default=1, metavar="M", help="workers started with --servers (default 1)")
    p.add_argument("--redis", help="Redis URL for --servers")
    p.add_argument("--sticky", action="store_true",
                   help="all seats of a table on one server (as a proxy hashing the table id does); default: "
                        "spread, so every move crosses Redis")
    p.add_argument("--signed-in", action="store_true",
                   help="every scripted person signs in to an account first (written to the database)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the server inherits it
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:>20}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
