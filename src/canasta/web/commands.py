"""The ``serve`` command's arguments and entry point.

Imported by :mod:`canasta.cli` whatever is installed: the web stack is imported
only when the command runs."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from canasta import argtypes
from canasta.errors import CanastaError


def default_db() -> str:
    """A SQLite file in the user's data directory (``$XDG_DATA_HOME/canasta``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "canasta" / "canasta.db")


def configure_serve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    parser.add_argument("--port", type=argtypes.port, default=8000)
    parser.add_argument("--db", default=None, metavar="URL",
                        help="database: a SQLite file path or sqlite:///PATH (default "
                             "$XDG_DATA_HOME/canasta/canasta.db), or postgresql://USER:PASS@HOST/DB")
    parser.add_argument("--grace", type=argtypes.seconds, default=30.0, metavar="SECONDS",
                        help="how long a dropped player keeps the seat before a bot plays it (default 30)")
    parser.add_argument("--bot-delay", type=argtypes.seconds, default=0.7, metavar="SECONDS",
                        help="pause before each bot move, so people can follow (default 0.7)")
    parser.add_argument("--allow-fixed-seeds", action="store_true",
                        help="let a table's creator choose the deal by seed (for tests and demos: "
                             "never on a server where people play each other)")
    parser.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"])


def run_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from canasta.web.app import create_app
        from canasta.web.room import Settings
    except ImportError as exc:
        raise CanastaError(f"the web server needs more packages ({exc.name} is missing): "
                           "pip install 'canasta[serve]'") from None
    db = args.db or default_db()
    if "://" not in db:
        Path(db).expanduser().parent.mkdir(parents=True, exist_ok=True)
        db = str(Path(db).expanduser())
    if args.grace < 0 or args.bot_delay < 0:
        raise CanastaError("--grace and --bot-delay must not be negative")
    app = create_app(db, settings=Settings(grace=args.grace, bot_delay=args.bot_delay,
                                                  fixed_seeds=args.allow_fixed_seeds))
    print(f"canasta: serving on http://{args.host}:{args.port}/ (database {db})", flush=True)
    # per-message deflate would cost more CPU than the few kilobytes of a state message save
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws_max_size=65536,
                ws_per_message_deflate=False)
    return 0
