"""The lobby: creating, listing and joining tables (``/api/presets``, ``/api/tables``,
``/api/quick``, ``/api/history``)."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Request

from canasta.engine.errors import CanastaError
from canasta.engine.rules import PRESETS, RuleSet
from canasta.i18n import N_, translator
from canasta.play.table import Table, seat_names
from canasta.web import account_seats, rated, social_routes
from canasta.web.guards import bad, client_address, is_int
from canasta.web.hub import Hub
from canasta.web.language import QUICK_PLAY, choose
from canasta.web.room import BOT_LEVELS, MAX_BOT_DELAY, NOT_SAVED, Room
from canasta.web.service import TheCardRoom
from canasta.web.store import NotSaved, SeatRow, TableRow, hash_token

MAX_NAME = 24
MAX_SEED = 2**63 - 1


def clean_name(value: Any, default: str = "") -> str:
    if not isinstance(value, str):
        return default
    text = " ".join(value.split())[:MAX_NAME]
    return "".join(ch for ch in text if ch.isprintable()) or default


def presets_info(lang: str = "en") -> list[dict[str, Any]]:
    """Every preset and its house rules; ``label``, ``topic`` and ``choice_names`` in ``lang``."""
    tr = translator(lang)
    out = []
    for name, rules in sorted(PRESETS.items()):
        out.append({
            "name": name, "label": tr.preset(name), "players": rules.players, "family": rules.family,
            "target": rules.target,
            "options": [{"id": o.id, "topic": tr.option(o.id), "choices": list(o.choices),
                         "choice_names": [tr.choice(c) for c in o.choices], "value": rules.get(o.field),
                         "rule": o.rule} for o in rules.options],
        })
    return out


def build_rules(preset: Any, options: Any, target: Any) -> RuleSet:
    """The rule set the lobby form describes: a preset, house rules among the preset's
    options (each value one of the option's choices, of the same type), a target."""
    if not isinstance(preset, str):
        raise bad("choose a rules preset")
    try:
        rules = RuleSet.preset(preset)
        changes: dict[str, Any] = {}
        if options is not None:
            if not isinstance(options, dict):
                raise bad("house rules must be an object of option id: value")
            known = {o.id: o for o in rules.options}
            for key, value in options.items():
                opt = known.get(key)
                if opt is None:
                    raise bad(f"unknown house rule {key[:40]!r} for {rules.name}: the options are "
                              f"{', '.join(known)} (the target score has its own field)")
                if not any(type(value) is type(c) and value == c for c in opt.choices):
                    raise bad(f"house rule {opt.id} ({opt.topic}) must be one of "
                              f"{', '.join(json.dumps(c) for c in opt.choices)}")
                changes[key] = value
        if target not in (None, ""):
            if not is_int(target) or not 100 <= target <= 100000:
                raise bad(N_("the target score must be a whole number from {low} to {high}"), low=100, high=100000)
            changes["target"] = target
        return rules.with_options(changes) if changes else rules
    except CanastaError as exc:
        raise bad(str(exc)) from None


def text_field(body: Mapping[str, Any], key: str, what: str) -> Any:
    """``body[key]`` if it is text or absent/null; refused otherwise."""
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise bad(f"{what} must be text")
    return value


class Lobby:
    """Creating and joining tables (the HTTP side of the hub)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def create(self, body: dict[str, Any], lister: str | None = None) -> dict[str, Any]:
        """A table as ``body`` describes it; ``lister``: the tag of the client address that made it
        (:meth:`canasta.web.vault.Vault.tag`), by which the lobby caps the tables it lists."""
        rules = build_rules(body.get("preset", "classic-4p"), body.get("options"), body.get("target"))
        n = rules.players
        specs = body.get("seats")
        if not isinstance(specs, list) or len(specs) != n:
            raise bad(f"give {n} seats (open, bot or reserved) for {rules.name}")
        me = body.get("seat", 0)
        if not is_int(me) or not 0 <= me < n:
            raise bad(f"your seat must be a whole number from 0 to {n - 1}")
        my_name = clean_name(text_field(body, "name", "your name"))
        if not my_name:
            raise bad(N_("pick a name"))
        default_names = seat_names(n)
        seats: list[SeatRow] = []
        invites: dict[int, str] = {}
        token = secrets.token_urlsafe(24)
        for i, spec in enumerate(specs):
            if not isinstance(spec, dict):
                raise bad(f"seat {i}: expected an object like {{\"kind\": \"bot\", \"level\": \"basic\"}}")
            kind = spec.get("kind", "open")
            if not isinstance(kind, str):
                raise bad(f"seat {i}: kind must be open, bot or reserved")
            level = spec.get("level", "basic") if kind == "bot" else None
            name = text_field(spec, "name", f"seat {i}: the name")
            if i == me:
                seats.append(SeatRow(i, "human", my_name, None, hash_token(token)))
            elif kind == "bot":
                if not isinstance(level, str) or level not in BOT_LEVELS:
                    raise bad(f"seat {i}: bot level must be one of {', '.join(BOT_LEVELS)}")
                seats.append(SeatRow(i, "bot", default_names[i], level))
            elif kind == "open":
                seats.append(SeatRow(i, "open", default_names[i]))
            elif kind == "reserved":
                key = secrets.token_urlsafe(12)
                invites[i] = key
                seats.append(SeatRow(i, "reserved", clean_name(name, default_names[i]), None, None, hash_token(key)))
            else:
                raise bad(f"seat {i}: kind must be open, bot or reserved")
        turn_seconds = body.get("turn_seconds")
        if turn_seconds is None:
            turn_seconds = 0
        if not is_int(turn_seconds) or not (turn_seconds == 0 or 10 <= turn_seconds <= 600):
            raise bad("the turn timer is off (0) or a whole number of seconds from 10 to 600")
        seed = body.get("seed")
        if seed is not None and (not is_int(seed) or not 0 <= seed <= MAX_SEED):
            raise bad("the seed is a whole number from 0 to 2**63 - 1")
        bot_delay = body.get("bot_delay")
        if bot_delay is not None and (not isinstance(bot_delay, (int, float)) or isinstance(bot_delay, bool)
                                      or not 0 <= bot_delay <= MAX_BOT_DELAY):
            raise bad(f"the bots' pace (bot_delay) is a number of seconds from 0 to {MAX_BOT_DELAY:g}")
        title = text_field(body, "title", "the table's name")
        # Every deal is provably fair (docs/fair-deals.md): a secret per hand, committed
        # before the players' client seeds arrive.  A fixed seed only where the server
        # allows it (tests, demonstrations).
        fair = not (self.hub.settings.fixed_seeds and seed is not None)
        if fair or seed is None:
            seed = secrets.randbits(63)  # chooses the first dealer and the bots' own randomness, not the deal
        # an unnamed table is named for its maker in each reader's language (language.table_title)
        config = {"title": clean_name(title), "host": my_name, "preset": rules.name, "turn_seconds": turn_seconds}
        if bot_delay is not None:
            config["bot_delay"] = float(bot_delay)
        review_others = body.get("review_others", False)
        if not isinstance(review_others, bool):
            raise bad("review_others is true (once the match is over, anyone may review every seat) or false")
        if review_others:
            config["review_others"] = True
        chat_spectators = body.get("chat_spectators", False)
        if not isinstance(chat_spectators, bool):
            raise bad("chat_spectators is true (spectators read the table's chat) or false")
        if chat_spectators:
            config["chat_spectators"] = True
        if lister is not None:
            config["lister"] = lister
        room = await self.open_table(rules, seats, seed, fair, config)
        table, table_id = room.table, room.id
        return {"table": table_id, "seat": me, "token": token, "next_deal": next_deal(table),
                "invites": {str(i): f"/t/{table_id}?seat={i}&invite={k}" for i, k in invites.items()},
                "link": f"/t/{table_id}"}

    async def open_table(self, rules: RuleSet, seats: list[SeatRow], seed: int, fair: bool, config: dict[str, Any],
                         ) -> Room:
        """A new table of ``seats`` under ``rules``, stored and live."""
        table = Table(rules, [s.level if s.kind == "bot" else None for s in seats], seed,
                      names=[s.name for s in seats], event="canasta serve", fair=fair, deal=not fair)
        table_id = secrets.token_urlsafe(8).replace("-", "x").replace("_", "y")
        status = "playing" if all(s.kind in ("human", "bot") for s in seats) else "open"
        now = time.time()
        try:  # in a database thread: a hung database holds this request, not the server
            await self.hub.db(self.hub.store.create, TableRow(table_id, now, now, status, config, table.to_dict(), 0,
                                                               seats))
        except BaseException:
            table.close()
            raise
        room = self.hub.rooms[table_id] = self.hub.make_room(table_id, config, seats, table, 0, status)
        self.hub.after_create(room)
        return room

    async def rematch(self, room: Room, body: dict[str, Any]) -> dict[str, Any]:
        """A player of a finished match asks for a rematch: the first to ask makes it (the same
        seats, rules, house rules, target, timer and pace; the bots kept; each person's seat
        kept for them, its invite being the seat token they already hold), and every player
        who asks takes their seat there.  Answers as :meth:`join` does."""
        seat = self.hub.authenticate(room, body.get("token"))
        if seat is None:
            raise bad(N_("only a player of this table can ask for a rematch"), 403)
        if not room.table.match_over:
            raise bad(N_("the match is not over yet"), 409)
        made = room.config.get("rematch")
        if not isinstance(made, str):
            fresh = await self.open_table(room.table.rules, [
                SeatRow(s.seat, "bot", s.name, s.level) if s.kind == "bot" else
                SeatRow(s.seat, "reserved", room.table.names[s.seat], None, None, s.token_hash)
                for s in room.seats], *self.next_seed(room.table), {k: v for k, v in room.config.items() if k != "rematch"})
            try:
                made = await room.arematch(fresh.id)
            except NotSaved:
                await fresh.aabandon()
                raise bad(NOT_SAVED, 503) from None
            if made != fresh.id:  # another player's rematch was made first (a cluster's other server)
                await fresh.aabandon()
        again = await self.hub.aget(made)
        if again is None or again.status not in ("open", "playing"):
            raise bad(N_("the rematch is over or was closed"), 410)
        mine = room.seats[seat].token_hash  # the seat keeps its token: the page holds it already
        kept = again.seats[seat]
        if kept.kind == "reserved" and kept.invite_hash == mine and mine is not None:
            refused = await again.atake_seat(seat, room.table.names[seat], mine)
            if refused is not None:
                raise bad(refused, 503 if refused == NOT_SAVED else 409)
        elif not (kept.kind == "human" and kept.token_hash == mine):
            raise bad(N_("this seat is taken"), 409)
        return {"table": again.id, "seat": seat, "token": body["token"], "next_deal": next_deal(again.table)}

    def next_seed(self, table: Table) -> tuple[int, bool]:
        """The seed and fairness of a rematch: fair as the match was; a fixed deal goes on to the next seed."""
        if table.fair or not self.hub.settings.fixed_seeds:
            return secrets.randbits(63), True
        return (table.seed + 1) % (MAX_SEED + 1), False

    async def join(self, room: Room, body: dict[str, Any]) -> dict[str, Any]:
        seat = body.get("seat")
        name = clean_name(text_field(body, "name", "your name"))
        if not name:
            raise bad(N_("pick a name"))
        if not is_int(seat) or not 0 <= seat < room.players:
            raise bad(f"choose a seat: a whole number from 0 to {room.players - 1}")
        invite = text_field(body, "invite", "the invite")
        if room.status not in ("open", "playing"):
            raise bad(N_("the match is over"), 409)
        s = room.seats[seat]
        if s.kind == "reserved":
            if not isinstance(invite, str) or s.invite_hash is None or \
                    not secrets.compare_digest(hash_token(invite), s.invite_hash):
                raise bad(N_("this seat is reserved: use the invite link you were sent"), 403)
        elif s.kind != "open":
            raise bad(N_("this seat is taken"), 409)
        token = secrets.token_urlsafe(24)
        refused = await room.atake_seat(seat, name, hash_token(token))
        if refused is not None:
            raise bad(refused, 503 if refused == NOT_SAVED else 409)
        return {"table": room.id, "seat": seat, "token": token, "next_deal": next_deal(room.table)}

    def info(self, room: Room) -> dict[str, Any]:
        return {"table": room.id, "title": room.config.get("title"), "host": room.config.get("host"),
                "preset": room.table.rules.name,
                "status": room.status, "target": room.table.rules.target,
                "review_others": bool(room.config.get("review_others")),
                "chat_spectators": bool(room.config.get("chat_spectators")),
                "rated": room.config.get("rated"), "turn_seconds": room.config.get("turn_seconds"),
                "seats": [{"seat": s.seat, "name": room.table.names[s.seat], "kind": s.kind, "level": s.level,
                           "connected": room.connected(s.seat)} for s in room.seats]}


def next_deal(table: Table) -> dict[str, Any] | None:
    """The next hand's number and the server's commitment to it (a fair table), so that a
    player sees it before sending the client seed that goes into that deal."""
    shown = table.next_commitment()
    return None if shown is None else {"hand": table.hand_number + 1, "commitment": shown}


routes = APIRouter()
PAGE = 10  # open tables a page of the lobby's list
MAX_HIDDEN = 200  # table ids a reader's page may ask to leave out of the list


@routes.get("/api/presets")
async def presets(request: Request, lang: str | None = None) -> dict[str, Any]:
    return {"presets": presets_info(choose(lang, request.headers.get("accept-language"))),
            "bot_levels": list(BOT_LEVELS)}


@routes.post("/api/tables")
async def create(request: Request, card: TheCardRoom) -> dict[str, Any]:
    body = await card.body(request)
    card.may_create(request)
    account = await account_seats.player(request)  # signed in: the seat is the account's, under its name
    made = await Lobby(card.hub).create(account_seats.named(body, account), card.store.vault.tag(client_address(request)))
    card.hub.count_creation(client_address(request))
    await account_seats.keep(request, account, made)
    return made


@routes.post("/api/quick")
async def quick(request: Request, card: TheCardRoom) -> dict[str, Any]:
    body = await card.body(request)
    level = body.get("level", "basic")
    if not isinstance(level, str) or level not in BOT_LEVELS:
        raise bad(f"the bots' level must be one of {', '.join(BOT_LEVELS)}")
    preset = body.get("preset", "classic-4p")
    card.may_create(request)
    n = PRESETS[preset].players if isinstance(preset, str) and preset in PRESETS else 4
    account = await account_seats.player(request)
    made = await Lobby(card.hub).create(account_seats.named({
        "preset": preset, "name": body.get("name"), "seat": 0, "target": body.get("target"),
        "seats": [{"kind": "bot", "level": level}] * n, "seed": body.get("seed"),
        "bot_delay": body.get("bot_delay"), "title": QUICK_PLAY}, account))
    card.hub.count_creation(client_address(request))
    await account_seats.keep(request, account, made)
    return made


def listed(rooms: list[Room], per_lister: int, hidden: set[str]) -> list[Room]:
    """The open tables the lobby lists, the most recently active first: at most ``per_lister`` made
    from one client address (0: no limit; its most recently active ones), none of ``hidden``."""
    shown: list[Room] = []
    count: dict[str, int] = {}
    for room in sorted(rooms, key=lambda r: (-r.last_active, r.id)):
        if room.id in hidden or not any(s.kind == "open" for s in room.seats):
            continue
        lister = room.config.get("lister")
        if isinstance(lister, str) and per_lister > 0:
            count[lister] = count.get(lister, 0) + 1
            if count[lister] > per_lister:
                continue
        shown.append(room)
    return shown


@routes.get("/api/tables")
async def open_tables(card: TheCardRoom, page: str = "1", hide: str = "") -> dict[str, Any]:
    """The open tables, :data:`PAGE` a page (``page``: 1, 2, ...), the most recently active first;
    ``hide``: table ids the reader hid, comma-separated (at most :data:`MAX_HIDDEN`)."""
    number = int(page) if page.isdigit() and len(page) <= 6 else 0
    if number < 1:
        raise bad(N_("a page of the list is a whole number from 1"))
    hidden = set(hide.split(",")[:MAX_HIDDEN]) if hide else set()
    lobby = Lobby(card.hub)
    tables = listed(await card.hub.open_rooms(), card.settings.listed_per_address, hidden)
    pages = max(1, -(-len(tables) // PAGE))
    here = tables[(number - 1) * PAGE:number * PAGE]
    return {"tables": [lobby.info(r) for r in here], "page": number, "pages": pages, "total": len(tables)}


@routes.get("/api/tables/{table_id}")
async def table_info(table_id: str, card: TheCardRoom) -> dict[str, Any]:
    return Lobby(card.hub).info(await card.room(table_id))


@routes.post("/api/tables/{table_id}/join")
async def join(table_id: str, request: Request, card: TheCardRoom) -> dict[str, Any]:
    room, body = await card.room(table_id), await card.body(request)
    await social_routes.may_join(request, room)  # a player who blocked this one sits here: refused
    account = await account_seats.player(request)
    await rated.check_seat(request, room, account)  # a rated table: signed-in players only
    made = await Lobby(card.hub).join(room, account_seats.named(body, account))
    await account_seats.keep(request, account, made)
    return made


@routes.post("/api/tables/{table_id}/rematch")
async def rematch(table_id: str, request: Request, card: TheCardRoom) -> dict[str, Any]:
    """``{"token": "..."}``: a player of the finished match takes their seat at its rematch
    (made by the first to ask)."""
    room, body = await card.room(table_id), await card.body(request)
    rated.no_rematch(room)
    account = await account_seats.player(request)
    made = await Lobby(card.hub).rematch(room, body)
    await account_seats.keep(request, account, made)
    return made


@routes.get("/api/history")
async def history(card: TheCardRoom) -> dict[str, Any]:
    out = []
    for row in await card.hub.db(card.store.finished):
        st = row.state
        out.append({"table": row.id, "title": row.config.get("title"), "host": row.config.get("host"),
                    "preset": row.config.get("preset"),
                    "names": st.get("names"), "kinds": [s.kind for s in row.seats],
                    "hands": len(st.get("hands", [])), "finished": row.updated})
    return {"tables": out}
