"""``canasta accounts``: the operator's hand on the accounts of a card room's database.

    canasta accounts [--db URL] create NAME [--role ROLE] [--password-stdin]
    canasta accounts list [--role ROLE] [--json]
    canasta accounts role NAME ROLE
    canasta accounts password NAME [--password-stdin]
    canasta accounts ban NAME [--days N] [--reason TEXT]
    canasta accounts unban NAME
    canasta accounts delete NAME --yes

The database is found as ``canasta serve`` finds it (``--db``, ``--db-file``,
``$CANASTA_DB``, else the default SQLite file).  A password is read from the terminal (twice,
not shown) or, with ``--password-stdin``, as the first line of standard input; never from
the arguments (anyone on the machine could read it in the process list).  Every bad input is
refused in one line and changes nothing.  Imported by :mod:`canasta.cli` whatever is
installed: the web stack is imported only when the command runs."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import time
from typing import TYPE_CHECKING

from canasta.engine.errors import CanastaError

if TYPE_CHECKING:
    from canasta.web.account_store import Account, AccountStore
    from canasta.web.store import Store

ROLE_NAMES = ("player", "moderator", "admin")


def configure_accounts(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=None, metavar="URL",
                        help="the card room's database, as for canasta serve (default $CANASTA_DB, else "
                             "$XDG_DATA_HOME/canasta/canasta.db)")
    parser.add_argument("--db-file", default=None, metavar="PATH",
                        help="read the database URL from the first line of this file")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser), required=True)

    def action(name: str, help: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help, description=help)

    c = action("create", "make an account (the name checked as at sign-up)")
    c.add_argument("name", help="the account's name")
    c.add_argument("--role", choices=ROLE_NAMES, default="player", help="its role (default player)")
    c.add_argument("--language", default="en", help="its language (default en)")
    c.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    ls = action("list", "list the accounts")
    ls.add_argument("--role", choices=ROLE_NAMES, default=None, help="only those of this role")
    ls.add_argument("--json", action="store_true", help="one JSON object per line")
    r = action("role", "set an account's role (player, moderator, admin)")
    r.add_argument("name")
    r.add_argument("role", choices=ROLE_NAMES)
    p = action("password", "set a new password (every session of the account ends)")
    p.add_argument("name")
    p.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    b = action("ban", "ban an account (for good, or --days N); its sessions end at once, its sockets within "
                      "seconds; written in the moderators' audit log")
    b.add_argument("name")
    b.add_argument("--days", type=float, default=None, help="for this many days (default: for good)")
    b.add_argument("--reason", default=None, help="why (kept with the ban)")
    u = action("unban", "lift an account's ban")
    u.add_argument("name")
    d = action("delete", "delete an account (its games stay, with its name replaced)")
    d.add_argument("name")
    d.add_argument("--yes", action="store_true", help="yes, delete it (required)")


def _store(args: argparse.Namespace) -> tuple[Store, AccountStore]:
    try:
        from canasta.web.account_store import AccountStore
        from canasta.web.store import Store
    except ImportError as exc:
        raise CanastaError(f"accounts need the web server's packages ({exc.name} is missing): "
                           "pip install 'canasta[serve]'") from None
    from canasta.web.commands import database_path, default_db, url_sources

    args.redis, args.redis_file = None, None
    url_sources(args)
    db = database_path(args.db or default_db(), explicit=args.db is not None)
    store = Store(db)
    return store, AccountStore(store.engine)


def _password(args: argparse.Namespace, name: str) -> str:
    from canasta.web.accounts import check_password
    from canasta.web.guards import Refusal

    if args.password_stdin:
        line = sys.stdin.readline()
        if not line:
            raise CanastaError("--password-stdin: standard input is empty: write the password on its first line")
        password = line.rstrip("\r\n")
    elif sys.stdin.isatty():
        password = getpass.getpass(f"password for {name}: ")
        if getpass.getpass("the same password again: ") != password:
            raise CanastaError("the two passwords differ: nothing was changed")
    else:
        raise CanastaError("give the password on standard input with --password-stdin (not in the arguments)")
    try:
        return check_password(password, name)
    except Refusal as exc:
        raise CanastaError(str(exc.detail)) from None


def _find(store: AccountStore, name: str) -> Account:
    found = store.find(name)
    if found is None:
        raise CanastaError(f"no account is named {name!r} (canasta accounts list shows them)")
    return found


def _when(at: float | None) -> str:
    from canasta.web.account_store import FOREVER

    if at is None:
        return "-"
    if at >= FOREVER:
        return "for good"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


def _audit(store: AccountStore, action: str, now: float, account: Account, until: float | None,
           reason: str | None) -> None:
    """The operator's ban or unban in the moderators' audit log (:mod:`canasta.web.social_store`);
    the servers close a banned account's sockets at their next sweep (canasta.web.social)."""
    from canasta.web.social_store import SocialStore

    SocialStore(store.engine).audit("operator", action, now, target=account.name, target_id=account.id,
                                    until=until, reason=reason)


def run_accounts(args: argparse.Namespace) -> int:
    room, store = _store(args)
    try:
        return _run(room, store, args)
    finally:
        room.close()


def _run(room: Store, store: AccountStore, args: argparse.Namespace) -> int:
    from canasta.i18n import LANGUAGES
    from canasta.web.account_store import FOREVER, Taken
    from canasta.web.accounts import hasher
    from canasta.web.names import NameRefused, check_name

    now = time.time()
    if args.action == "create":
        try:
            name = check_name(args.name)
        except NameRefused as exc:
            raise CanastaError(f"{args.name!r}: {exc}") from None
        if args.language not in LANGUAGES:
            raise CanastaError(f"--language {args.language}: one of {', '.join(LANGUAGES)}")
        why = store.available(name)
        if why is not None:
            raise CanastaError(str(why))
        hashed = hasher().hash(_password(args, name))
        try:
            account = store.create(name, hashed, args.language, now, args.role)
        except Taken as exc:
            raise CanastaError(str(exc)) from None
        print(f"canasta: account {account.name} made ({account.role})")
    elif args.action == "list":
        everyone = store.everyone(args.role)
        for a in everyone:
            if args.json:
                print(json.dumps({"name": a.name, "role": a.role, "lang": a.lang, "created": a.created,
                                  "banned_until": a.banned_until, "ban_reason": a.ban_reason}))
            else:
                banned = f"  banned until {_when(a.banned_until)}" if a.banned(now) else ""
                print(f"{a.name:<24} {a.role:<9} {a.lang:<5} {_when(a.created)}{banned}")
        if not args.json:
            print(f"canasta: {len(everyone)} account{'s' if len(everyone) != 1 else ''}")
    elif args.action == "role":
        account = _find(store, args.name)
        store.set_role(account.id, args.role)
        print(f"canasta: {account.name} is now {args.role}")
    elif args.action == "password":
        account = _find(store, args.name)
        store.set_password(account.id, hasher().hash(_password(args, account.name)))
        print(f"canasta: {account.name} has a new password; every session of the account ended")
    elif args.action == "ban":
        account = _find(store, args.name)
        if args.days is not None and not 0 < args.days <= 36500:
            raise CanastaError(f"--days {args.days:g}: give a number of days above 0 (at most 36500), or leave "
                               "it out to ban for good")
        if args.reason is not None and not 0 < len(args.reason) <= 400:
            raise CanastaError("--reason: 1 to 400 characters")
        until = FOREVER if args.days is None else now + args.days * 86400
        ended = store.ban(account.id, until, args.reason)
        _audit(store, "ban", now, account, until, args.reason)
        print(f"canasta: {account.name} is banned {_when(until) if until >= FOREVER else 'until ' + _when(until)}; "
              f"{ended} session{'s' if ended != 1 else ''} ended; every server closes their open tables' "
              "sockets within seconds")
    elif args.action == "unban":
        account = _find(store, args.name)
        if not account.banned(now):
            raise CanastaError(f"{account.name} is not banned")
        store.ban(account.id, None, None)
        _audit(store, "unban", now, account, None, None)
        print(f"canasta: {account.name} is no longer banned")
    elif args.action == "delete":
        account = _find(store, args.name)
        if not args.yes:
            raise CanastaError(f"deleting {account.name} cannot be undone: say --yes")
        from canasta.web.profiles import forget

        new, seats = forget(room, store, account)
        print(f"canasta: {account.name} deleted; the seats of their {len(seats)} game{'s' if len(seats) != 1 else ''} "
              f"are {new}'s now")
    return 0


__all__ = ["configure_accounts", "run_accounts"]
