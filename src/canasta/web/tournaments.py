"""The card room's duplicate tournaments: what a tournament is between requests, and the steps
that play it (``/tournaments``, ``docs/web.md``, "Tournaments").

A signed-in **director** makes a tournament (Swiss pairs or duplicate pairs, its rounds, the
hands of a round, the preset, matchpoints or victory points, fixed partnerships or individuals
paired by draw).  Players enter while it registers; the director may add bot partnerships (a
tournament of bots, for tests and demonstrations) and starts it.  The field is then made even
(at least four partnerships) with partnerships of house bots, which have no place.

The play is :mod:`canasta.club`'s: every table of a round plays the round's boards, dealt from
the round's secret committed when the tournament was made (:mod:`canasta.club.boards`), in the
same order and **at once**: board ``b + 1`` is dealt to every table only when every table has
finished board ``b``; a round may have a time limit (the director's ``round_minutes``), after
which no board of it is dealt: the boards in play are finished and the round ends with them
(scored over the boards it played).  A seat whose player is away for the turn clock has its move made by the
house bot; a player who withdraws is replaced by it for good (their partnership's results are
marked and it wins no place); a late entrant takes a house bot's seat from the next round.

The tournament is a JSON document in the room's database and each board being played a row of
its own, one a table (:mod:`canasta.web.tournament_store`), each changed by moving its number on.
A person's move reads the document (each process keeps the last it read, and asks only whether
its number is still the newest: :func:`current`) and writes only its table's row; a board's
finish writes the document (the board's scores, the next board or round dealt when it was the
last table) and deletes the row in one transaction, so a finishing move, a step and a job run
twice finish a board once.  The play is a job (``tournament:ID:...``, :func:`job_tournament`), run
on the server's loop or by a cluster's workers like the tables' jobs: each step plays on at one
table until its board is over or a person is to move (then at the next), writing the table's row,
or the document when a board finishes, and asks for the next step.  A restart goes on from the
rows: a board half played by people is resumed from its moves.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

from canasta.bots import make_bot
from canasta.club.boards import RoundSeed, board_dealer
from canasta.club.movement import BoardGate, Seating
from canasta.club.scoring import BoardResult, Standing
from canasta.club.tournament import Partnership, TableRecord, Tournament, TournamentError
from canasta.engine.rules import RuleSet
from canasta.i18n import N_
from canasta.play.table import Table
from canasta.web.tournament_store import Live, Stored, TournamentStore

HOUSE_BOT = "basic"
#: seconds of play a step may take before it writes and hands on to the next step
STEP_BUDGET = 0.5


class Refused(Exception):
    """A tournament action refused: ``message`` is an ``N_`` text with ``{field}`` places."""

    def __init__(self, message: str, status: int = 400, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.fields = fields


class Enqueuer(Protocol):
    """What runs the tournament's steps: a hub (one server's loop, or a cluster's queue)."""

    def enqueue(self, fn: str, job_id: str, args: tuple[Any, ...], when: float) -> None: ...


# ------------------------------------------------------------------ the document

def new_state(name: str, director: dict[str, str], settings: dict[str, Any], seed: int | None) -> dict[str, Any]:
    """A tournament open for entries; its round secrets drawn now, their commitments public."""
    rounds = int(settings["rounds"])
    seeds = [RoundSeed.from_seed(seed, r) if seed is not None else RoundSeed.new(r) for r in range(1, rounds + 1)]
    return {"name": name, "director": director, "status": "registering", "paused": False, "settings": settings,
            "seed": seed if seed is not None else secrets.randbits(31),
            "commitments": [s.commitment for s in seeds], "secrets": [{"secret": s.secret.hex()} for s in seeds],
            "entries": [], "next_entry": 1, "seats": {}, "board": 1, "adjustments": [], "tournament": None}


def tournament_of(state: dict[str, Any]) -> Tournament:
    """The club's tournament of a started document."""
    data = dict(state["tournament"])
    data["round_secrets"] = [s["secret"] for s in state["secrets"]]
    return Tournament.from_dict(data)


#: documents kept parsed by each store (this process's last read of each tournament)
MAX_CACHED = 64


def current(store: TournamentStore, tid: str, seq: int | None = None) -> tuple[Stored, Tournament | None] | None:
    """The tournament as this process last read it, parsed, if its number (``seq``, or asked now:
    one cheap read) is still the newest, else read and parsed again; None: no such tournament.
    Shared between requests: read it, never change it (a change reads its own copy,
    :meth:`TournamentStore.load`)."""
    seq = store.seq_of(tid) if seq is None else seq
    if seq is None:
        return None
    hit: tuple[Stored, Tournament | None] | None = store.cache.get(tid)
    if hit is not None and hit[0].seq == seq:
        return hit
    got = store.load(tid)
    if got is None:
        return None
    hit = (got, tournament_of(got.state) if got.state["tournament"] is not None else None)
    store.cache.pop(tid, None)
    while len(store.cache) >= MAX_CACHED:
        store.cache.pop(next(iter(store.cache)))
    store.cache[tid] = hit
    return hit


def keep(state: dict[str, Any], t: Tournament) -> None:
    """``t`` back into the document (its secrets kept apart, to be sealed).  The game records of
    boards finished since it was read go to ``state["_boards"]``, which the store writes as rows
    of their own (:meth:`TournamentStore.save`): the document keeps each board's scores only, so
    it stays small however many boards are played."""
    data = t.to_dict()
    data.pop("round_secrets")
    for row in data["records"]:
        if row["record"]:
            state.setdefault("_boards", []).append((row["round"], row["table"], row["board"], row["record"]))
            row["record"] = ""
    state["tournament"] = data


def entered(state: dict[str, Any], account_id: str) -> bool:
    """Is the account in the tournament (an entry before the start; a seat after it, a late one too)?"""
    if state["status"] == "registering":
        return any(m.get("id") == account_id for e in state["entries"] for m in e["members"])
    return any(o is not None and o.get("id") == account_id for seats in state["seats"].values() for o in seats)


def side_size(state: dict[str, Any]) -> int:
    return len(RuleSet.preset(state["settings"]["preset"]).teams[0])


def enter(state: dict[str, Any], members: list[dict[str, str]], name: str | None = None) -> int:
    """A new entry of ``members`` (accounts ``{"id", "name"}`` or bots ``{"bot": level}``); its number."""
    if state["status"] != "registering":
        raise Refused(N_("entries are closed"), 409)
    for m in members:
        if "id" in m and entered(state, m["id"]):
            raise Refused(N_("{name} is entered already"), 409, name=m["name"])
    number = int(state["next_entry"])
    state["next_entry"] = number + 1
    names = [m.get("name") or m.get("bot", "") for m in members]
    state["entries"].append({"id": number, "members": members, "name": (name or " & ".join(names))[:60]})
    return number


def withdraw_entry(state: dict[str, Any], account_id: str) -> None:
    """Before the start: the account's entry is taken out (its partner's with it)."""
    before = len(state["entries"])
    state["entries"] = [e for e in state["entries"] if all(m.get("id") != account_id for m in e["members"])]
    if len(state["entries"]) == before:
        raise Refused(N_("you are not entered"), 409)


def round_ends(state: dict[str, Any], now: float) -> float | None:
    """When a round begun at ``now`` ends, by the director's time limit (None: no limit)."""
    minutes = state["settings"].get("round_minutes")
    return now + 60.0 * float(minutes) if minutes else None


def pause_clock(state: dict[str, Any], paused: bool, now: float) -> None:
    """The round's time limit stopped while the director pauses, and going on from where it was."""
    state["paused"] = paused
    if paused and state.get("round_ends") is not None:
        state["round_left"] = max(0.0, float(state["round_ends"]) - now)
        state["round_ends"] = None
    elif not paused and state.get("round_left") is not None:
        state["round_ends"] = now + float(state.pop("round_left"))


def start(state: dict[str, Any], now: float | None = None) -> Tournament:
    """The field made (partnerships drawn, evened with house bots) and the tournament begun (its
    first round's time limit, if it has one, running from ``now``)."""
    if state["status"] != "registering":
        raise Refused(N_("the tournament has started already"), 409)
    cfg = state["settings"]
    rules = RuleSet.preset(cfg["preset"])
    side = len(rules.teams[0])
    fixed = [e for e in state["entries"] if len(e["members"]) == side]
    singles = [e["members"][0] for e in state["entries"] if len(e["members"]) < side]
    secrets.SystemRandom().shuffle(singles)  # the draw of individuals
    groups: list[list[dict[str, str] | None]] = [list(e["members"]) for e in fixed]
    while singles:
        group: list[dict[str, str] | None] = list(singles[:side])
        singles = singles[side:]
        groups.append(group + [None] * (side - len(group)))  # a house bot partners the last one
    while len(groups) < 4 or len(groups) % 2:
        groups.append([None] * side)  # a partnership of house bots evens the field: it has no place
    entrants, seats = [], {}
    for n, members in enumerate(groups, start=1):
        specs = tuple(m["bot"] if m is not None and "bot" in m else HOUSE_BOT for m in members)
        names = [m.get("name") or m.get("bot", "") if m is not None else "house bot" for m in members]
        stand_in = {i: 1 for i, m in enumerate(members) if m is None}
        entrants.append(Partnership(n, " & ".join(names)[:60], specs, stand_in))
        seats[str(n)] = [m if m is not None and "id" in m else None for m in members]
    seeds = [RoundSeed(r + 1, bytes.fromhex(s["secret"])) for r, s in enumerate(state["secrets"])]
    try:
        t = Tournament(rules, entrants, cfg["rounds"], cfg["hands"], cfg["form"], cfg["scoring"], state["seed"],
                       seeds, HOUSE_BOT, state["name"])
    except TournamentError:
        raise Refused(N_("this field cannot play this format: duplicate pairs plays at most one round a table "
                      "({tables} tables); choose fewer rounds or Swiss pairs"), 409,
                      tables=len(entrants) // 2) from None
    state["seats"] = seats
    state["status"] = "running"
    state["board"] = 1
    state["round_ends"] = round_ends(state, time.time() if now is None else now)
    keep(state, t)
    return t


def late_entry(state: dict[str, Any], t: Tournament, who: dict[str, str]) -> int:
    """A late entrant takes the first house bot's seat of a partnership with no place, from the next
    round (the partnership stays marked); the partnership's number."""
    if state["status"] != "running":
        raise Refused(N_("late entry is open while the tournament runs"), 409)
    if entered(state, who["id"]):
        raise Refused(N_("{name} is entered already"), 409, name=who["name"])
    if t.played + 2 > t.rounds:
        raise Refused(N_("the last round is under way: there is no round left to enter"), 409)
    for p in t.entrants:
        occupants = state["seats"][str(p.number)]
        for member, occupant in enumerate(occupants):
            if occupant is None and p.stand_in.get(member) is not None:
                occupants[member] = who
                state.setdefault("late", {})[f"{p.number}:{member}"] = t.played + 2
                return p.number
    raise Refused(N_("there is no house bot's seat to take: ask the director"), 409)


def withdraw(state: dict[str, Any], t: Tournament, account_id: str) -> int:
    """After the start: the house bot plays the account's seat from now on; the partnership's number."""
    for pair, occupants in state["seats"].items():
        for member, occupant in enumerate(occupants):
            if occupant is not None and occupant.get("id") == account_id:
                occupants[member] = None
                state.get("late", {}).pop(f"{pair}:{member}", None)
                entrant = t.entrants[int(pair) - 1]
                now = min(t.played + 1, t.rounds)
                entrant.stand_in[member] = min(now, entrant.stand_in.get(member, now))
                keep(state, t)
                return int(pair)
    raise Refused(N_("you are not entered"), 409)


def occupant(state: dict[str, Any], pair: int, member: int, round_number: int) -> dict[str, str] | None:
    """The account playing ``pair``'s member ``member`` in round ``round_number`` (None: a bot)."""
    who = state["seats"][str(pair)][member]
    if who is None:
        return None
    late = state.get("late", {}).get(f"{pair}:{member}")
    return who if late is None or round_number >= late else None


def seat_of(state: dict[str, Any], t: Tournament, account_id: str) -> tuple[Seating, int] | None:
    """The account's table and seat in the round being played, or None."""
    if state["status"] != "running":
        return None
    r = t.played + 1
    for s in t.seatings.get(r, []):
        for side, pair in enumerate((s.ns, s.ew)):
            for member, seat in enumerate(t.rules.teams[side]):
                who = occupant(state, pair, member, r)
                if who is not None and who["id"] == account_id:
                    return s, seat
    return None


# ------------------------------------------------------------------ playing a board

def table_seed(t: Tournament, r: int, table: int, board: int) -> int:
    """A table's own seed for a board (the bots' randomness; the cards come from the round's secret)."""
    text = f"canasta-tournament-table:{t.seed}:{r}:{table}:{board}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def board_table(state: dict[str, Any], t: Tournament, r: int, s: Seating, board: int) -> tuple[Table, list[int]]:
    """Board ``board``'s table for seating ``s`` of round ``r``, dealt; the seats the house bot plays."""
    players = t.rules.players
    specs: list[str | None] = [None] * players
    names = [""] * players
    stand_ins = []
    for side, pair in enumerate((s.ns, s.ew)):
        entrant = t.entrants[pair - 1]
        for member, seat in enumerate(t.rules.teams[side]):
            who = occupant(state, pair, member, r)
            if who is not None:
                specs[seat], names[seat] = None, who["name"][:40]
            elif entrant.stand_in.get(member, t.rounds + 1) <= r:
                specs[seat], names[seat] = t.house_bot, f"house bot for {entrant.name}"[:40]
                stand_ins.append(seat)
            else:
                specs[seat], names[seat] = entrant.players[member], entrant.name[:40]
    table = Table(t.rules, specs, seed=table_seed(t, r, s.table, board), names=names,
                  first_dealer=board_dealer(board, players),
                  event=f"{t.name}, round {r}, table {s.table}, board {board}", date=t.date, fair=True, deal=False)
    table.pending = t.round_seeds[r - 1].deal(board, players)
    table.next_hand()
    return table, stand_ins


def finish_board(t: Tournament, r: int, s: Seating, board: int, table: Table, stand_ins: list[int]) -> None:
    """A finished board into the tournament's results and records."""
    scores = [side.total for side in table.match.hands[0].scores]
    game = table.record()
    game.headers.update({"Round": str(r), "Table": str(s.table), "Board": str(board), "NS": str(s.ns),
                         "EW": str(s.ew)})
    t.results.append(BoardResult(r, board, s.table, s.ns, s.ew, scores[0], scores[1]))
    t.records.append(TableRecord(r, s.table, board, s.ns, s.ew, tuple(sorted(stand_ins)), game.to_text()))
    t.gates.setdefault(r, BoardGate(t.tables, t.hands)).finish(s.table, board)


def live_table(state: dict[str, Any], t: Tournament, r: int, s: Seating, board: int, row: Live | None
               ) -> tuple[Table, list[int], Live]:
    """The table playing board ``board`` of seating ``s`` (rebuilt from its row's moves, or dealt now:
    its row, if one was read, is that of a board before and is written over)."""
    if row is not None and row.round == r and row.board == board and row.data is not None:
        return Table.from_dict(row.data["table"]), list(row.data["stand_ins"]), row
    table, stand_ins = board_table(state, t, r, s, board)
    live = Live(s.table, r, board, row.seq if row is not None else -1, 0, None, None, 0.0, {"stand_ins": stand_ins})
    return table, stand_ins, live


def kept(live: Live, table: Table, stand_ins: list[int]) -> Live:
    """The table's play into its row (written by :meth:`TournamentStore.save_live`)."""
    data = table.to_dict()
    live.data = {"table": data, "stand_ins": stand_ins}
    live.moves = len(data["hands"][0]) if data["hands"] else 0
    return live


def person_at(state: dict[str, Any], t: Tournament, r: int, s: Seating, seat: int) -> dict[str, str] | None:
    """The account that plays ``seat`` at table ``s`` in round ``r`` now (None: a bot, or withdrawn)."""
    for side, pair in enumerate((s.ns, s.ew)):
        if seat in t.rules.teams[side]:
            return occupant(state, pair, list(t.rules.teams[side]).index(seat), r)
    return None


def advance(state: dict[str, Any], t: Tournament, r: int, board: int, now: float) -> tuple[int, int] | None:
    """When every table has finished board ``board``: the next board dealt to all at once, unless
    the round's time limit has run out (then, or after its last board, the next round seated or
    the tournament over); the round and board now played, or None."""
    seating = t.seatings.get(r, [])
    done = {res.table for res in t.results if res.round == r and res.board == board}
    if not seating or len(done) < len(seating):
        return None
    ends = state.get("round_ends")
    if board < t.hands and (ends is None or now < float(ends)):
        state["board"] = board + 1
        return r, board + 1
    t.revealed[r] = t.round_seeds[r - 1].secret.hex()
    state["board"] = 1
    if board < t.hands:
        state.setdefault("cut", {})[str(r)] = board  # the round's boards played before its time ran out
    if t.played == t.rounds:
        state["status"] = "finished"
        state["round_ends"] = None
        return 0, 0
    t.seat_round(r + 1)
    state["round_ends"] = round_ends(state, now)
    return r + 1, 1


def finish(store: TournamentStore, tid: str, r: int, s: Seating, board: int, table: Table, stand_ins: list[int],
           live: Live, now: float) -> int | None:
    """A finished board written: its scores and record into the document, read afresh (and the next
    board dealt if it was the last table's), its live row deleted, in one transaction; the
    document's new number, or None if another writer finished it, or moved either on, first."""
    got = store.load(tid)
    if got is None or got.status != "running" or got.state["tournament"] is None:
        return None
    t = tournament_of(got.state)
    if t.played + 1 != r or int(got.state["board"]) != board or any(
            res.round == r and res.board == board and res.table == s.table for res in t.results):
        return None
    finish_board(t, r, s, board, table, stand_ins)
    playing = advance(got.state, t, r, board, now)
    keep(got.state, t)
    if not store.save(got, now, finished=(s.table, live.seq if live.seq >= 0 else None), playing=playing):
        return None
    return got.seq


def rewrite(store: TournamentStore, tid: str, now: float, fn: Callable[[dict[str, Any], Tournament], bool]
            ) -> int | None:
    """The document read afresh, changed by ``fn`` (False: nothing to change) and written; its new number."""
    got = store.load(tid)
    if got is None or got.status != "running" or got.state["tournament"] is None:
        return None
    t = tournament_of(got.state)
    if not fn(got.state, t):
        return None
    keep(got.state, t)
    return got.seq if store.save(got, now) else None


def step(store: TournamentStore, tid: str, now: float, budget: float = STEP_BUDGET, first: int | None = None
         ) -> tuple[int, float, bool, str] | None:
    """One step of a running tournament: play on at one table (table ``first`` if it needs it) until
    a person is to move, its board is over or ``budget`` seconds are spent, writing the table's row;
    a board's finish writes the document (:func:`finish`).  ``(the document's number, when the next
    step is due, whether anything was written, what was written: the next step's id)`` (nothing
    written: every table waits for a person), or None when there is nothing to do (paused, over,
    or another writer finished the board first: that writer's job goes on)."""
    found = current(store, tid)
    if found is None:
        return None
    got, t = found
    state = got.state
    if got.status != "running" or state["paused"] or t is None:
        return None
    r = t.played + 1
    board = int(state["board"])
    if r not in t.seatings:  # the round's tables, seated (Swiss: from the standings) and written
        seq = rewrite(store, tid, now, lambda st, tt: tt.seat_round(tt.played + 1) is not None)
        return None if seq is None else (seq, now, True, str(seq))
    seating = t.seatings[r]
    done = {res.table for res in t.results if res.round == r and res.board == board}
    if len(done) == len(seating):  # (a document of before: the next board is dealt with the last finish)
        seq = rewrite(store, tid, now, lambda st, tt: advance(st, tt, tt.played + 1, int(st["board"]), now) is not None)
        return None if seq is None else (seq, now, True, str(seq))
    heads = {h.table: h for h in store.heads(tid)}
    began = time.monotonic()
    waiting: list[float] = []
    wrote = ""
    for s in sorted(seating, key=lambda x: x.table != first):
        if s.table in done:
            continue
        head = heads.get(s.table)
        if head is not None and head.round == r and head.board == board and head.waiting is not None \
                and head.deadline is not None and now < head.deadline \
                and person_at(state, t, r, s, head.waiting) is not None:
            waiting.append(head.deadline)  # a person's move, their clock running: not read
            continue
        if wrote and time.monotonic() - began >= budget:
            break
        row = store.live(tid, s.table) if head is not None else None
        table, stand_ins, live = live_table(state, t, r, s, board, row)
        bots_only = all(table.is_bot(x) for x in range(t.rules.players))  # played through: never half-kept
        try:
            while not table.hand_over and (bots_only or time.monotonic() - began < budget):
                seat = table.to_move
                gone = not table.is_bot(seat) and person_at(state, t, r, s, seat) is None
                live.waiting = None
                if table.is_bot(seat):
                    table.play_bot()
                elif gone or (live.deadline is not None and now >= live.deadline):
                    house = make_bot(t.house_bot, seed=table_seed(t, r, s.table, board) + table.version)
                    try:  # the player withdrew, or the turn clock ran out: the house bot moves
                        table.play(seat, table.bot_move(stand_in=house))
                    finally:
                        house.close()
                    live.deadline = None
                    if gone and seat not in stand_ins:
                        stand_ins.append(seat)
                else:
                    if live.deadline is None:
                        live.deadline = now + float(state["settings"]["turn_seconds"])
                    live.waiting = seat  # the next steps pass this table by until the clock runs out
                    break
            if table.hand_over:
                seq = finish(store, tid, r, s, board, table, stand_ins, live, now)
                return None if seq is None else (seq, now, True, str(seq))  # one board a step
            if not store.save_live(tid, kept(live, table, stand_ins), now):
                continue  # another writer moved this table on: its job goes on
            wrote = f"{got.seq}:{s.table}.{live.seq}"
            if live.waiting is not None and live.deadline is not None:
                waiting.append(live.deadline)
        finally:
            table.close()
    due = now
    if len(done) + len(waiting) == len(seating) and waiting:
        due = min(waiting)  # every table waits for a person: the next step when a clock runs out
    if not wrote:  # nothing to do until a clock runs out: nothing written
        return got.seq, max(due, now + 1.0), False, ""
    return got.seq, due, True, wrote


def play_move(store: TournamentStore, got: Stored, t: Tournament, account_id: str, seat_asked: Any, move: str,
              now: float) -> tuple[str, float | None, int | None] | None:
    """The signed-in player's move at their own seat (refused: not theirs, not their turn, illegal),
    written to their table's row only (the document too when it finishes the board).  What was
    written (the next step's id), when a person is to move next their clock's end (no step is
    needed before it), and the table a step plays on at (None: the board is over); None if another
    writer came first (read again and retry)."""
    state = got.state
    found = seat_of(state, t, account_id)
    if found is None:
        raise Refused(N_("you have no seat in this round"), 403)
    s, seat = found
    if seat_asked is not None and seat_asked != seat:
        raise Refused(N_("you play only your own seat"), 403)
    r, board = t.played + 1, int(state["board"])
    if any(res.round == r and res.board == board and res.table == s.table for res in t.results):
        raise Refused(N_("your table has finished this board: the next is dealt when every table has"), 409)
    tid = got.id
    row = store.live(tid, s.table)
    if row is not None and (row.round, row.board) > (r, board):
        return None  # the document read is older than the table: read again
    table, stand_ins, live = live_table(state, t, r, s, board, row)
    try:
        why = table.why_not(seat, move)
        if why is not None:
            raise Refused("{why}", 409, why=str(why))
        table.play(seat, move)
        live.deadline = live.waiting = None
        if table.hand_over:
            seq = finish(store, tid, r, s, board, table, stand_ins, live, now)
            return None if seq is None else (str(seq), None, None)
        nxt = table.to_move
        if not table.is_bot(nxt) and person_at(state, t, r, s, nxt) is not None:
            live.waiting, live.deadline = nxt, now + float(state["settings"]["turn_seconds"])  # their clock starts
        if not store.save_live(tid, kept(live, table, stand_ins), now):
            return None
        return f"{got.seq}:{s.table}.{live.seq}", live.deadline, s.table
    finally:
        table.close()


#: tables kept built for the players' looks, each for its row's state (a table's seats look at one)
MAX_VIEWS = 1024


def my_view(store: TournamentStore, state: dict[str, Any], t: Tournament, tid: str, account_id: str,
            heads: dict[int, Live] | None = None) -> dict[str, Any] | None:
    """The player's own seat at their table now: their hand and the public play (nobody else's hand).
    ``heads``: the live rows' heads as just read (the table's row is then read only when it has
    moved on since this process last built it: the four seats of a table, looking again and again
    between two moves, share one rebuilt table)."""
    found = seat_of(state, t, account_id)
    if found is None:
        return None
    s, seat = found
    r, board = t.played + 1, int(state["board"])
    finished = any(res.round == r and res.board == board and res.table == s.table for res in t.results)
    out: dict[str, Any] = {"round": r, "board": board, "table": s.table, "seat": seat, "finished": finished}
    if finished:
        return out
    head = heads.get(s.table) if heads is not None else store.live(tid, s.table)
    if head is not None and (head.round, head.board) != (r, board):
        head = None  # a board before's row: this board is dealt afresh
    key = (tid, s.table)
    views: dict[tuple[str, int], tuple[tuple[int, int, int], dict[int, dict[str, Any]]]] = store.views
    hit = views.get(key)
    if hit is None or hit[0] != (r, board, head.seq if head is not None else -1):
        if head is not None and head.data is None:  # its table read now (the newest: perhaps moved on since)
            head = store.live(tid, s.table)
            if head is not None and (head.round, head.board) != (r, board):
                head = None
        table, _, _ = live_table(state, t, r, s, board, head)
        try:
            seen: dict[int, dict[str, Any]] = {}
            for x in range(t.rules.players):
                # no bot's suggestion: in a tournament a hint has no place
                seen[x] = {"view": table.view(x).to_dict(include_rules=False), "to_move": table.to_move}
        finally:
            table.close()
        hit = (r, board, head.seq if head is not None else -1), seen
        views.pop(key, None)
        while len(views) >= MAX_VIEWS:
            views.pop(next(iter(views)))
        views[key] = hit
    out.update(hit[1][seat])
    out["deadline"] = head.deadline if head is not None else None
    return out


# ------------------------------------------------------------------ what is shown

def standings(state: dict[str, Any], t: Tournament) -> list[Standing]:
    """The standings from the boards every table has finished, with the director's adjustments."""
    extra: dict[int, float] = {}
    for a in state["adjustments"]:
        extra[int(a["pair"])] = extra.get(int(a["pair"]), 0.0) + float(a["points"])
    rows = [Standing(None, r.pair, r.name, round(r.score + extra.get(r.pair, 0.0), 2), r.matchpoints, r.tops,
                     r.vp, r.net, r.boards, r.stand_in) for r in t.standings()]
    rows.sort(key=lambda row: (-row.score, -row.net, row.pair))
    out, place = [], 0
    for row in rows:
        if not row.stand_in:
            place += 1
        out.append(Standing(None if row.stand_in else place, row.pair, row.name, row.score, row.matchpoints,
                            row.tops, row.vp, row.net, row.boards, row.stand_in))
    return out


def closed(t: Tournament, r: int, board: int) -> bool:
    gate = t.gates.get(r)
    return gate is not None and gate.closed(board)


def public(state: dict[str, Any], t: Tournament | None, viewer: str | None,
           moves: dict[int, int] | None = None) -> dict[str, Any]:
    """What anyone may read: settings, entries, the commitments (and the secrets of rounds over),
    the tables of the round in play (who, which board, how far: no cards; ``moves``, each table's
    moves of its board, from the live rows' heads), the standings and the final table of closed
    boards."""
    out: dict[str, Any] = {
        "name": state["name"], "director": state["director"]["name"], "status": state["status"],
        "paused": state["paused"], "settings": state["settings"],
        "is_director": viewer is not None and viewer == state["director"]["id"],
        "entered": viewer is not None and entered(state, viewer),
        "entries": [{"id": e["id"], "name": e["name"]} for e in state["entries"]],
        "commitments": state["commitments"], "adjustments": state["adjustments"]}
    if t is None:
        return out
    r = min(t.played + 1, t.rounds)
    out["round"], out["board"], out["played"] = r, state["board"], t.played
    out["round_ends"], out["round_left"] = state.get("round_ends"), state.get("round_left")
    out["cut"] = {int(k): v for k, v in state.get("cut", {}).items()}  # rounds ended by their time limit
    out["partnerships"] = [{"pair": p.number, "name": p.name, "stand_in": not p.eligible,
                            "members": [o["name"] if o is not None else None for o in state["seats"][str(p.number)]]}
                           for p in t.entrants]
    tables = []
    if state["status"] == "running":
        for s in t.seatings.get(r, []):
            finished = sum(1 for res in t.results if res.round == r and res.table == s.table)
            tables.append({"table": s.table, "ns": s.ns, "ew": s.ew, "boards_done": finished,
                           "moves": (moves or {}).get(s.table, 0)})
    out["tables"] = tables
    out["standings"] = [{"place": row.place, "pair": row.pair, "name": row.name, "score": row.score,
                         "matchpoints": row.matchpoints, "tops": row.tops, "vp": row.vp, "net": row.net,
                         "boards": row.boards, "stand_in": row.stand_in} for row in standings(state, t)]
    out["final"] = [row for row in t.final_table() if closed(t, row["round"], row["board"])]
    out["proof"] = t.proof()
    return out


def record_of(store: TournamentStore, tid: str, t: Tournament, r: int, table: int, board: int) -> str | None:
    """A closed board's game record at one table (None: no such board, or still being played somewhere)."""
    if not closed(t, r, board):
        return None
    return store.record(tid, r, table, board)


# ------------------------------------------------------------------ the job

_stores: dict[int, TournamentStore] = {}


def store_for(engine: Any, vault: Any) -> TournamentStore:
    """One tournament store per database engine (its tables made once)."""
    found = _stores.get(id(engine))
    if found is None or found.engine is not engine:
        found = _stores[id(engine)] = TournamentStore(engine, vault)
    return found


#: called with the tournament's id after each step written (tests wait on it)
step_listeners: list[Callable[[str, int], None]] = []


def next_step(hub: Enqueuer, tid: str, seq: int | str, when: float, why: str = "", table: int | None = None
              ) -> None:
    """Ask for the step after what was written, ``seq`` (the document's number, or
    ``N:TABLE.M``: table ``TABLE``'s row ``M`` under document ``N``), one job per write and reason
    (asked twice, run once; ``why``: ``clock…`` for the step a turn clock waits for, ``sweep…``
    for the servers' look); ``table``: the table the step looks at first."""
    args: tuple[Any, ...] = (tid,) if table is None else (tid, table)
    hub.enqueue("tournament", f"tournament:{tid}:{seq}" + (f":{why}" if why else ""), args, when)


async def job_tournament(hub: Any, tid: str, table: int | None = None) -> None:
    """A tournament's step (:func:`step`), in a database thread; then the next, when it is due."""
    store = store_for(hub.store.engine, hub.store.vault)
    pace = float(hub.settings.bot_delay or 0.0)
    done = await asyncio.to_thread(step, store, tid, time.time(), STEP_BUDGET, table)
    if done is None:
        return
    seq, due, changed, wrote = done
    if not changed:
        next_step(hub, tid, seq, due, f"clock{int(due)}")
        return
    for f in list(step_listeners):
        f(tid, seq)
    next_step(hub, tid, wrote, max(due, time.time() + min(pace, 2.0)))


__all__ = ["HOUSE_BOT", "STEP_BUDGET", "Enqueuer", "Refused", "advance", "closed", "current", "enter", "finish",
           "job_tournament", "keep", "late_entry", "my_view", "new_state", "next_step", "pause_clock", "play_move",
           "public", "record_of", "round_ends", "standings", "start", "step", "step_listeners", "store_for",
           "tournament_of", "withdraw", "withdraw_entry"]
