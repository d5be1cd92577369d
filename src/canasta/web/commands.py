"""The ``serve`` command's arguments and entry point.

Imported by :mod:`canasta.cli` whatever is installed: the web stack is imported
only when the command runs."""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from canasta import argtypes
from canasta.engine.errors import CanastaError
from canasta.review import DEFAULT_WORLDS
from canasta.web.redact import redact, said

if TYPE_CHECKING:
    from canasta.web.cluster_hub import ClusterConfig


def default_db() -> str:
    """A SQLite file in the user's data directory (``$XDG_DATA_HOME/canasta``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "canasta" / "canasta.db")


def database_path(db: str, explicit: bool) -> str:
    """The database URL to use.  A SQLite file's folder must exist when the user named
    it (a typo must not create folders anywhere); the default folder is created."""
    if "://" in db and not db.startswith("sqlite:///"):
        return db
    path = Path(db.removeprefix("sqlite:///")).expanduser()
    folder = path.parent
    if not folder.is_dir():
        if explicit:
            raise CanastaError(f"--db {db}: the folder {str(folder)!r} does not exist: create it first "
                               "(mkdir -p), or give another path")
        folder.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        raise CanastaError(f"--db {db}: that is a folder; give a file path such as {str(path / 'canasta.db')!r}")
    return db if db.startswith("sqlite:///") else str(path)


def check_port(host: str, port: int) -> None:
    """Refuse, in one line, a port that is taken or an address this machine does not have."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise CanastaError(f"--host {host}: not an address of this machine ({exc.strerror})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise CanastaError(f"port {port} on {host} is already in use (another canasta serve?): "
                                   "stop it, or choose another port with --port") from None
            if exc.errno == errno.EACCES:
                raise CanastaError(f"port {port} needs administrator rights here: choose one above 1023 "
                                   "with --port") from None
            raise CanastaError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def configure_serve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    parser.add_argument("--port", type=argtypes.port, default=8000)
    parser.add_argument("--db", default=None, metavar="URL",
                        help="database: a SQLite file path or sqlite:///PATH (default $CANASTA_DB, else "
                             "$XDG_DATA_HOME/canasta/canasta.db), or postgresql://USER:PASS@HOST/DB (a password "
                             "here shows in ps: give it in $CANASTA_DB, --db-file or libpq's PGPASSWORD/PGPASSFILE)")
    parser.add_argument("--db-file", default=None, metavar="PATH",
                        help="read the database URL from the first line of this file (keep it mode 0600)")
    parser.add_argument("--grace", type=argtypes.seconds, default=30.0, metavar="SECONDS",
                        help="how long a dropped player keeps the seat before a bot plays it (default 30)")
    parser.add_argument("--bot-delay", type=argtypes.seconds, default=0.7, metavar="SECONDS",
                        help="pause before each bot move, so people can follow (default 0.7)")
    parser.add_argument("--allow-fixed-seeds", action="store_true",
                        help="let a table's creator choose the deal by seed (for tests and demos: "
                             "never on a server where people play each other)")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="also accept websockets and lobby requests from pages of ORIGIN "
                             "(scheme://host[:port], e.g. https://cards.example.org behind a proxy); repeatable")
    parser.add_argument("--api-docs", action="store_true",
                        help="serve the API description (/openapi.json, /docs, /redoc); off by default")
    parser.add_argument("--sockets-per-address", type=int, default=20, metavar="N",
                        help="open websockets one client address may hold (default 20; 0: no limit)")
    parser.add_argument("--tables-per-minute", type=int, default=10, metavar="N",
                        help="tables one client address may create per minute (default 10; 0: no limit)")
    parser.add_argument("--listed-per-address", type=int, default=3, metavar="N",
                        help="open tables made from one client address that the lobby lists "
                             "(its most recently active ones; default 3; 0: no limit)")
    parser.add_argument("--idle-hours", type=float, default=24.0, metavar="HOURS",
                        help="close a table nobody is connected to and nobody played at for this long "
                             "(status abandoned; kept in the database; default 24; 0: never)")
    parser.add_argument("--bot-workers", type=int, default=None, metavar="N",
                        help="processes for the advanced and expert bots (default: cores - 1, at least 1; "
                             "0: a thread in the server process)")
    parser.add_argument("--review-worlds", type=int, default=DEFAULT_WORLDS, metavar="N",
                        help=f"deals of the unseen cards the review samples per decision (default {DEFAULT_WORLDS}; "
                             "fewer: faster and noisier)")
    parser.add_argument("--review-workers", type=int, default=1, metavar="N",
                        help="processes that compute the reviews of hands (default 1; 0: a thread in the server); "
                             "with --worker: the reviews this worker computes at once")
    parser.add_argument("--review-work", type=int, default=6144, metavar="WORLDS",
                        help="worlds one review of a hand may sample in all (default 6144: 64 decisions at 96 "
                             "worlds; a longer hand's decisions share them, at least 16 each)")
    parser.add_argument("--bot-timeout", type=argtypes.seconds, default=3.0, metavar="SECONDS",
                        help="time a pooled bot decision may take before a basic bot moves instead (default 3)")
    parser.add_argument("--auto-deal", type=argtypes.seconds, default=15.0, metavar="SECONDS",
                        help="a table where at most one person plays deals the next hand by itself after "
                             "this pause (default 15; 0: only on a click)")
    cluster = parser.add_argument_group(
        "several servers (docs/deploy.md)",
        "with --redis this process is one of several equal servers on one database (PostgreSQL), and the "
        "bots and timers run in workers (--worker)")
    cluster.add_argument("--redis", default=None, metavar="URL",
                         help="Redis for events, presence and the job queue, e.g. redis://127.0.0.1:6379/0 "
                              "(needs the cluster-web extra; default $CANASTA_REDIS)")
    cluster.add_argument("--redis-file", default=None, metavar="PATH",
                         help="read the Redis URL from the first line of this file (keep it mode 0600)")
    cluster.add_argument("--redis-prefix", default="canasta", metavar="TEXT",
                         help="start of every Redis key, channel and job of this card room (default canasta)")
    cluster.add_argument("--worker", action="store_true",
                         help="run a worker (bots, turn timers, grace periods, deals) instead of a web server; "
                              "needs --db and --redis")
    cluster.add_argument("--job-timeout", type=argtypes.seconds, default=5.0, metavar="SECONDS",
                         help="a worker's time limit per job; a dead worker's job runs again this long + 1 s "
                              "after it started (default 5)")
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="a name this server answers to (the Host of its address in the browser), e.g. "
                             "cards.example.org or *.example.org; repeatable. Default: the --host address and "
                             "localhost, and with --host 0.0.0.0 any numeric address and this machine's name; "
                             "other names are refused (DNS rebinding)")
    parser.add_argument("--passkey-rp-id", default=None, metavar="NAME",
                        help="the passkeys' relying party id: the site's domain, e.g. example.org (passkeys made "
                             "under it work on its subdomains); default: the host name the page was opened at")
    parser.add_argument("--passkey-origin", action="append", default=[], metavar="ORIGIN",
                        help="an origin passkeys are used from (scheme://host[:port]); repeatable; default: the "
                             "page's own origin and the --allow-origin ones")
    parser.add_argument("--forwarded-allow-ips", default=None, metavar="ADDRESSES",
                        help="the proxies (comma-separated addresses, or *) whose X-Forwarded-For and "
                             "X-Forwarded-Proto this server believes; default none: a client is its peer's address")
    parser.add_argument("--new-secret-key", action="store_true",
                        help="print a new key for the deal secrets (for CANASTA_SECRET_KEYS) and exit")
    parser.add_argument("--reencrypt-secrets", action="store_true",
                        help="encrypt every stored deal secret again with the first key of CANASTA_SECRET_KEYS "
                             "(after a new key was put first; docs/deploy.md) and exit")
    parser.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"])


def allowed_hosts(host: str, extra: list[str], origins: list[str]) -> tuple[str, ...]:
    """The Host names the server answers to: those given, the names of the allowed
    origins, the bound address and localhost; on every interface, numeric addresses and
    this machine's names too."""
    names = ["localhost", "127.0.0.1", "::1", host]
    if host in ("0.0.0.0", "::", ""):
        names += ["*ip", socket.gethostname(), socket.getfqdn()]
    names += [urlsplit(o).hostname or "" for o in origins]
    for name in extra:
        if not name or any(ch.isspace() or ch in "/@" for ch in name):
            raise CanastaError(f"--allowed-host {name!r}: give a name such as cards.example.org or *.example.org")
        names.append(name)
    return tuple(dict.fromkeys(n.lower() for n in names if n))


def passkey_rp_id(name: str | None) -> str | None:
    """``--passkey-rp-id``, checked: a host name (lower case), or None."""
    if name is None:
        return None
    if not name or not all(ch.isalnum() or ch in "-." for ch in name) or name.startswith((".", "-")):
        raise CanastaError(f"--passkey-rp-id {name!r}: give the site's domain, e.g. cards.example.org")
    return name.lower()


#: where a URL may come from besides its option: (option, its file option, the variable)
URL_SOURCES = (("db", "db_file", "CANASTA_DB"), ("redis", "redis_file", "CANASTA_REDIS"))


def url_sources(args: argparse.Namespace) -> list[str]:
    """Fill ``args.db`` and ``args.redis`` from their file (``--db-file``) or variable
    (``$CANASTA_DB``) when not given as options, so a password need not be in the process's
    arguments; the warnings to print (a password given on the command line)."""
    warnings = []
    for name, file_name, variable in URL_SOURCES:
        value, path = getattr(args, name), getattr(args, file_name, None)
        flag = "--" + name
        if path is not None:
            if value is not None:
                raise CanastaError(f"give {flag} or {flag}-file, not both")
            try:
                lines = Path(path).read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                raise CanastaError(f"{flag}-file {path}: cannot read it ({exc.strerror})") from None
            value = lines[0].strip() if lines else ""
            if not value:
                raise CanastaError(f"{flag}-file {path}: its first line is empty: write the URL there")
        elif value is None and os.environ.get(variable, "").strip():
            value = os.environ[variable].strip()
        elif value is not None and redact(value) != value:
            warnings.append(f"{flag} holds a password, which anyone on this machine can read in the process "
                            f"list: give the URL in ${variable} or {flag}-file PATH instead")
        setattr(args, name, value)
    return warnings


def cluster_config(args: argparse.Namespace) -> ClusterConfig | None:
    """The cluster settings of ``--redis``, checked (None: a single server)."""
    if args.redis is None:
        if args.worker:
            raise CanastaError("--worker needs --redis (and --db): workers take their jobs from Redis")
        return None
    if not args.redis.startswith(("redis://", "rediss://", "unix://")):
        raise CanastaError(f"--redis {redact(args.redis)}: give a Redis URL, e.g. redis://127.0.0.1:6379/0")
    if not args.redis_prefix or not all(ch.isalnum() or ch in "-_." for ch in args.redis_prefix):
        raise CanastaError("--redis-prefix: letters, digits, - _ and . only")
    if not args.job_timeout > 0:
        raise CanastaError("--job-timeout must be more than 0 seconds")
    try:
        import arq  # noqa: F401

        from canasta.web.cluster_hub import ClusterConfig
    except ImportError as exc:
        raise CanastaError(f"several servers need more packages ({exc.name} is missing): "
                           "pip install 'canasta[cluster-web]'") from None
    import redis as redis_sync

    try:  # before anything starts: an unreachable Redis is one clear line
        client = redis_sync.Redis.from_url(args.redis, socket_connect_timeout=3)
        client.ping()
        client.close()
    except (redis_sync.RedisError, OSError, ValueError) as exc:
        raise CanastaError(f"--redis {redact(args.redis)}: cannot reach Redis ({said(exc)})") from None
    return ClusterConfig(args.redis, prefix=args.redis_prefix)


def reencrypt(db: str, cluster: bool) -> int:
    """``--reencrypt-secrets``: every deal secret of ``db`` with the first key."""
    from canasta.web.store import Store

    store = Store(db)  # one record for every deployment
    began = time.monotonic()
    shown = [began]

    def progress(read: int, rewritten: int) -> None:
        if time.monotonic() - shown[0] >= 5:
            shown[0] = time.monotonic()
            print(f"canasta: {read} rows read, {rewritten} rewritten", flush=True)

    try:
        n = store.reseal(progress=progress)  # in batches, each its own short transaction: the room plays on
        from canasta.web.tournament_store import TournamentStore

        n += TournamentStore(store.engine, store.vault).reseal(progress)  # the tournaments' secrets likewise
    finally:
        store.close()
    print(f"canasta: {n} rows of {redact(db)} now hold their deal secrets under the first key of "
          f"CANASTA_SECRET_KEYS ({time.monotonic() - began:.1f} s); the other keys may be dropped", flush=True)
    return 0


def run_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from canasta.web.app import create_app
        from canasta.web.botpool import default_workers
        from canasta.web.guards import normalise_origin
        from canasta.web.room import Settings
    except ImportError as exc:
        raise CanastaError(f"the web server needs more packages ({exc.name} is missing): "
                           "pip install 'canasta[serve]'") from None
    if args.new_secret_key:
        from canasta.web.vault import new_key

        print(new_key())
        return 0
    for warning in url_sources(args):
        print(f"canasta: warning: {warning}", file=sys.stderr, flush=True)
    db = database_path(args.db or default_db(), explicit=args.db is not None)
    if args.reencrypt_secrets:
        return reencrypt(db, args.redis is not None)
    if args.grace < 0 or args.bot_delay < 0:
        raise CanastaError("--grace and --bot-delay must not be negative")
    for name in ("sockets_per_address", "tables_per_minute", "listed_per_address", "idle_hours"):
        if getattr(args, name) < 0 or getattr(args, name) != getattr(args, name):  # NaN too
            raise CanastaError(f"--{name.replace('_', '-')} must not be negative (0: no limit)")
    if args.bot_workers is not None and not 0 <= args.bot_workers <= 64:
        raise CanastaError("--bot-workers must be from 0 to 64")
    if not 1 <= args.review_worlds <= 10000:
        raise CanastaError("--review-worlds must be from 1 to 10000")
    if not 0 <= args.review_workers <= 64:
        raise CanastaError("--review-workers must be from 0 to 64")
    if not 1 <= args.review_work <= 10_000_000:
        raise CanastaError("--review-work must be from 1 to 10000000 (worlds sampled by one review in all)")
    if not args.bot_timeout > 0:
        raise CanastaError("--bot-timeout must be more than 0 seconds")
    for origin in args.allow_origin:
        if normalise_origin(origin) is None:
            raise CanastaError(f"--allow-origin {origin!r}: give an origin, scheme://host[:port] "
                               "(http or https, no path), e.g. https://cards.example.org")
    for origin in args.passkey_origin:
        if normalise_origin(origin) is None:
            raise CanastaError(f"--passkey-origin {origin!r}: give an origin, scheme://host[:port] "
                               "(http or https, no path), e.g. https://cards.example.org")
    cluster = cluster_config(args)
    hosts = allowed_hosts(args.host, args.allowed_host, args.allow_origin)
    # X-Forwarded-For is believed only from the proxies named (uvicorn's default trusts any loopback peer)
    trusted, forwarded = args.forwarded_allow_ips is not None, args.forwarded_allow_ips or ""
    settings = Settings(
        grace=args.grace, bot_delay=args.bot_delay, fixed_seeds=args.allow_fixed_seeds,
        allow_origins=tuple(args.allow_origin), api_docs=args.api_docs,
        sockets_per_address=args.sockets_per_address, tables_per_minute=args.tables_per_minute,
        listed_per_address=args.listed_per_address, idle_hours=args.idle_hours, bot_timeout=args.bot_timeout,
        auto_deal=args.auto_deal, bot_workers=0,
        allowed_hosts=hosts, review_worlds=args.review_worlds, review_workers=args.review_workers, review_work=args.review_work,
        metrics_token=os.environ.get("CANASTA_METRICS_TOKEN") or None,
        passkey_rp_id=passkey_rp_id(args.passkey_rp_id), passkey_origins=tuple(args.passkey_origin))
    if args.worker:
        if cluster is None or args.db is None:
            raise CanastaError("--worker needs --db (the servers' database) and --redis")
        from canasta.web.worker import main_worker

        return main_worker(db, settings, cluster, args.job_timeout)
    check_port(args.host, args.port)  # before anything is made: a busy port is one clear line
    if cluster is not None:
        app = create_app(db, settings=settings, cluster=cluster)
        print(f"canasta: serving on http://{args.host}:{args.port}/ (database {redact(db)}, "
              f"redis {redact(args.redis)}, server {cluster.server_id})", flush=True)
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws_max_size=65536,
                    ws_per_message_deflate=False, proxy_headers=trusted,
                    forwarded_allow_ips=forwarded)
        return 0
    app = create_app(db, settings=Settings(
        grace=args.grace, bot_delay=args.bot_delay, fixed_seeds=args.allow_fixed_seeds,
        allow_origins=tuple(args.allow_origin), api_docs=args.api_docs,
        sockets_per_address=args.sockets_per_address, tables_per_minute=args.tables_per_minute,
        listed_per_address=args.listed_per_address, idle_hours=args.idle_hours, bot_timeout=args.bot_timeout, auto_deal=args.auto_deal,
        # a number, so the workers start with the server rather than at the first decision
        bot_workers=default_workers() if args.bot_workers is None else args.bot_workers, allowed_hosts=hosts,
        review_worlds=args.review_worlds, review_workers=args.review_workers, review_work=args.review_work,
        metrics_token=os.environ.get("CANASTA_METRICS_TOKEN") or None,
        passkey_rp_id=passkey_rp_id(args.passkey_rp_id), passkey_origins=tuple(args.passkey_origin)))
    print(f"canasta: serving on http://{args.host}:{args.port}/ (database {redact(db)})", flush=True)
    # per-message deflate would cost more CPU than the few kilobytes of a state message save
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws_max_size=65536,
                ws_per_message_deflate=False, proxy_headers=trusted,
                forwarded_allow_ips=forwarded)
    return 0
