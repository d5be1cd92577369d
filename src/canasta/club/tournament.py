"""A pairs tournament played on duplicate boards: Swiss pairs or duplicate pairs (a Mitchell
movement), scored in matchpoints or victory points (``docs/tournaments.md``).

Each round is a fixed number of boards (hands).  Every table of a round plays the same boards,
dealt from the round's committed secret (:mod:`canasta.club.boards`); each board is a hand of
its own, from a score of 0 and with the board's dealer, so that every table meets it in the
same conditions (the initial-meld minimum depends on the score).  Each table's hand is played at
a :class:`~canasta.play.table.Table` and kept as a game record, so ``canasta verify`` replays it.

Entrants here are bots (``make_bot`` specs), which makes a tournament run in seconds::

    t = Tournament(RuleSet.preset("classic-4p"), bot_partnerships(16, ["basic", "random"]),
                   rounds=4, hands=2, form="swiss", seed=1)
    t.run()
    for row in t.standings():
        print(row.place, row.name, row.score)

A partnership whose player withdraws (:meth:`Tournament.withdraw`) goes on with a house bot in
that seat; its results are marked and it cannot win a prize (its line has no place).
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from canasta.bots import LEVELS, check_bot
from canasta.club.boards import RoundSeed, board_dealer
from canasta.club.movement import BoardGate, Seating, mitchell, swiss, tables_of
from canasta.club.scoring import SCORINGS, BoardResult, Standing, matchpoints, top, victory_points
from canasta.engine.errors import CanastaError
from canasta.engine.rules import RuleSet
from canasta.play.table import Table

FORMATS = ("swiss", "duplicate")
SAVE_FORMAT = "canasta-tournament/1"
#: the most boards a round (a slip beyond it)
MAX_HANDS = 20
#: the most rounds a tournament
MAX_ROUNDS = 50
#: the most partnerships a field
MAX_PAIRS = 1000


class TournamentError(CanastaError):
    """A tournament that cannot be run as asked (a field, format or rule set it cannot take)."""


@dataclass
class Partnership:
    """An entrant: its number (from 1), name, and the bot spec playing each member's seat."""

    number: int
    name: str
    players: tuple[str, ...]
    #: member index -> the round from which the house bot stands in for that member
    stand_in: dict[int, int] = field(default_factory=dict)

    @property
    def eligible(self) -> bool:
        """May it win a prize?  Not once a house bot has stood in for one of its players."""
        return not self.stand_in


@dataclass(frozen=True)
class TableRecord:
    """One table's board: where and who, which seats a house bot played, and the game record."""

    round: int
    table: int
    board: int
    ns: int
    ew: int
    stand_in_seats: tuple[int, ...]
    record: str


def bot_partnerships(pairs: int, bots: Sequence[str], players: int = 2) -> list[Partnership]:
    """``pairs`` partnerships of bots: partnership ``i`` plays ``bots[(i - 1) % len(bots)]`` in
    each of its ``players`` seats."""
    if not bots:
        raise TournamentError("name at least one bot")
    return [Partnership(i, f"{bots[(i - 1) % len(bots)]} {i}", (bots[(i - 1) % len(bots)],) * players)
            for i in range(1, pairs + 1)]


class Tournament:
    """A pairs tournament on duplicate boards (see the module's docstring)."""

    def __init__(self, rules: RuleSet, entrants: Sequence[Partnership], rounds: int, hands: int,
                 form: str = "swiss", scoring: str = "matchpoints", seed: int = 1,
                 round_seeds: Sequence[RoundSeed] | None = None, house_bot: str = "basic",
                 name: str = "Tournament", date: str | None = None) -> None:
        if len(rules.teams) != 2 or rules.cutthroat:
            raise TournamentError(f"{rules.name} has no two sides: a pairs tournament needs two partnerships "
                                  "(or two players) at a table, such as classic-4p, italian-4p or classic-2p")
        if form not in FORMATS:
            raise TournamentError(f"unknown format {form!r}: choose {' or '.join(FORMATS)}")
        if scoring not in SCORINGS:
            raise TournamentError(f"unknown scoring {scoring!r}: choose {' or '.join(SCORINGS)}")
        if len(entrants) > MAX_PAIRS:
            raise TournamentError(f"at most {MAX_PAIRS} partnerships, not {len(entrants)}")
        tables = tables_of(len(entrants))
        if not 1 <= rounds <= MAX_ROUNDS:
            raise TournamentError(f"rounds are a whole number from 1 to {MAX_ROUNDS}, not {rounds}")
        if form == "duplicate" and rounds > tables:
            raise TournamentError(f"duplicate pairs with {len(entrants)} partnerships plays at most {tables} "
                                  f"rounds (one per table), not {rounds}: fewer rounds, or Swiss pairs")
        if not 1 <= hands <= MAX_HANDS:
            raise TournamentError(f"a round is 1 to {MAX_HANDS} hands, not {hands}")
        side = len(rules.teams[0])
        for p in entrants:
            if len(p.players) != side:
                raise TournamentError(f"partnership {p.number} has {len(p.players)} players; {rules.name} "
                                      f"seats {side} a side")
        if [p.number for p in entrants] != list(range(1, len(entrants) + 1)):
            raise TournamentError("partnerships are numbered 1, 2, 3 ... in order")
        for spec in {s for p in entrants for s in p.players} | {house_bot}:
            check_bot(spec, rules)
        self.rules = rules
        self.entrants = list(entrants)
        self.rounds = rounds
        self.hands = hands
        self.form = form
        self.scoring = scoring
        self.seed = seed
        self.house_bot = house_bot
        self.name = name
        self.date = date or datetime.date.today().strftime("%Y.%m.%d")
        self.tables = tables
        self.round_seeds = list(round_seeds) if round_seeds is not None else [
            RoundSeed.from_seed(seed, r) for r in range(1, rounds + 1)]
        if [s.round for s in self.round_seeds] != list(range(1, rounds + 1)):
            raise TournamentError(f"give one round secret for each of the {rounds} rounds, in order")
        #: published before the first round: each round's commitment
        self.commitments = [s.commitment for s in self.round_seeds]
        #: the round secrets revealed so far (round -> hex), each once its round is over
        self.revealed: dict[int, str] = {}
        self.seatings: dict[int, list[Seating]] = {}
        self.results: list[BoardResult] = []
        self.records: list[TableRecord] = []
        self.gates: dict[int, BoardGate] = {}

    # ------------------------------------------------------------------ running

    @property
    def played(self) -> int:
        """Rounds finished."""
        return len(self.revealed)

    def withdraw(self, pair: int, member: int, from_round: int | None = None) -> None:
        """Member ``member`` (0, 1 ...) of partnership ``pair`` drops out: the house bot plays that
        seat from ``from_round`` (the next round to play by default); the partnership's results
        are marked and it can win no prize."""
        entrant = self._entrant(pair)
        if not 0 <= member < len(entrant.players):
            raise TournamentError(f"partnership {pair} has members 0 to {len(entrant.players) - 1}, not {member}")
        start = self.played + 1 if from_round is None else from_round
        if not self.played < start <= self.rounds:
            raise TournamentError(f"a withdrawal takes effect in a round still to play ({self.played + 1} to "
                                  f"{self.rounds}), not {start}")
        entrant.stand_in[member] = min(start, entrant.stand_in.get(member, start))

    def seat_round(self, round_number: int) -> list[Seating]:
        """Round ``round_number``'s tables (Swiss: from the standings after the rounds before)."""
        if round_number in self.seatings:
            return self.seatings[round_number]
        if round_number != self.played + 1:
            raise TournamentError(f"round {self.played + 1} is next, not {round_number}")
        if self.form == "duplicate":
            seating = mitchell(len(self.entrants), round_number)
        else:
            order = self._swiss_order(round_number)
            met = {frozenset((s.ns, s.ew)) for r in self.seatings.values() for s in r}
            ns_count: dict[int, int] = {}
            for r in self.seatings.values():
                for s in r:
                    ns_count[s.ns] = ns_count.get(s.ns, 0) + 1
            seating = swiss(order, met, ns_count)
        self.seatings[round_number] = seating
        return seating

    def play_round(self, progress: Callable[[int, int, int], None] | None = None) -> list[BoardResult]:
        """Seat and play the next round: every table plays every board of the round, in order;
        then the round's secret is revealed.  ``progress(round, board, table)`` hears each hand."""
        r = self.played + 1
        if r > self.rounds:
            raise TournamentError("the tournament is over")
        seating = self.seat_round(r)
        seed = self.round_seeds[r - 1]
        gate = self.gates.setdefault(r, BoardGate(self.tables, self.hands))
        done = {(res.board, res.table) for res in self.results if res.round == r}  # before a restart
        for board in range(1, self.hands + 1):
            for s in seating:
                if (board, s.table) in done:
                    continue
                result, record = self._play_board(r, board, s, seed)
                self.results.append(result)
                self.records.append(record)
                gate.finish(s.table, board)
                if progress is not None:
                    progress(r, board, s.table)
        self.revealed[r] = seed.secret.hex()
        return [res for res in self.results if res.round == r]

    def run(self, progress: Callable[[int, int, int], None] | None = None) -> list[Standing]:
        """Play every round left; the final standings."""
        while self.played < self.rounds:
            self.play_round(progress)
        return self.standings()

    def _play_board(self, r: int, board: int, s: Seating, seed: RoundSeed) -> tuple[BoardResult, TableRecord]:
        players = self.rules.players
        specs: list[str] = [""] * players
        names: list[str] = [""] * players
        stand_ins: list[int] = []
        for side, pair in enumerate((s.ns, s.ew)):
            entrant = self._entrant(pair)
            for member, seat in enumerate(self.rules.teams[side]):
                if entrant.stand_in.get(member, self.rounds + 1) <= r:
                    specs[seat] = self.house_bot
                    stand_ins.append(seat)
                    names[seat] = f"house bot for {entrant.name}"[:40]
                else:
                    specs[seat] = entrant.players[member]
                    names[seat] = entrant.name[:40]
        table_seed = int.from_bytes(hashlib.sha256(f"canasta-tournament-table:{self.seed}:{r}:{s.table}:{board}"
                                                   .encode()).digest()[:4], "big")
        table = Table(self.rules, specs, seed=table_seed, names=names, first_dealer=board_dealer(board, players),
                      event=f"{self.name}, round {r}, table {s.table}, board {board}", date=self.date,
                      fair=True, deal=False)
        try:
            table.pending = seed.deal(board, players)
            table.next_hand()
            table.play_bots()
            if not table.hand_over:  # pragma: no cover - every seat is a bot
                raise TournamentError("a hand stopped with a person to move")
            scores = [side.total for side in table.match.hands[0].scores]
            game = table.record()
        finally:
            table.close()
        game.headers.update({"Round": str(r), "Table": str(s.table), "Board": str(board), "NS": str(s.ns),
                             "EW": str(s.ew)})
        result = BoardResult(r, board, s.table, s.ns, s.ew, scores[0], scores[1])
        return result, TableRecord(r, s.table, board, s.ns, s.ew, tuple(stand_ins), game.to_text())

    def _entrant(self, pair: int) -> Partnership:
        if not 1 <= pair <= len(self.entrants):
            raise TournamentError(f"there is no partnership {pair}: they are 1 to {len(self.entrants)}")
        return self.entrants[pair - 1]

    def _swiss_order(self, round_number: int) -> list[int]:
        if round_number == 1:  # the draw: a seeded shuffle
            import random

            order = [p.number for p in self.entrants]
            random.Random(f"canasta-tournament-draw:{self.seed}").shuffle(order)
            return order
        return [row.pair for row in self._ranked()]

    # ------------------------------------------------------------------ scoring

    def board_matchpoints(self) -> dict[tuple[int, int, int], int]:
        """Matchpoints of each (round, board, partnership), from the boards every table has finished."""
        out: dict[tuple[int, int, int], int] = {}
        by_board: dict[tuple[int, int], list[BoardResult]] = {}
        for res in self.results:
            by_board.setdefault((res.round, res.board), []).append(res)
        for (r, b), results in by_board.items():
            if not self.gates[r].closed(b):
                continue  # still being played somewhere: nothing of it is published
            for pair, mp in matchpoints(results).items():
                out[(r, b, pair)] = mp
        return out

    def round_vp(self) -> dict[tuple[int, int], float]:
        """Victory points of each (round, partnership), for the rounds finished (over the boards the
        round played: fewer than its hands when a time limit ended it)."""
        out: dict[tuple[int, int], float] = {}
        for r in self.revealed:
            boards = len({res.board for res in self.results if res.round == r}) or self.hands
            for s in self.seatings[r]:
                margin = sum(res.ns_net for res in self.results if res.round == r and res.table == s.table)
                out[(r, s.ns)], out[(r, s.ew)] = victory_points(margin, boards)
        return out

    def _ranked(self) -> list[Standing]:
        mps = self.board_matchpoints()
        vps = self.round_vp()
        board_top = top(self.tables)
        rows = []
        for p in self.entrants:
            mp = sum(v for (_, _, pair), v in mps.items() if pair == p.number)
            boards = sum(1 for (_, _, pair) in mps if pair == p.number)
            vp = round(sum(v for (_, pair), v in vps.items() if pair == p.number), 2)
            net = sum(res.net(p.number) for res in self.results if p.number in (res.ns, res.ew)
                      and self.gates[res.round].closed(res.board))
            tops = boards * board_top
            score = round(100 * mp / tops, 2) if self.scoring == "matchpoints" and tops else (
                vp if self.scoring == "vp" else 0.0)
            rows.append(Standing(None, p.number, p.name, score, mp, tops, vp, net, boards, not p.eligible))
        rows.sort(key=lambda row: (-row.score, -row.net, row.pair))
        return rows

    def standings(self) -> list[Standing]:
        """The standings now, best first: by percentage of matchpoints (or victory points), then by
        the total result; a partnership a house bot stood in for keeps its line but no place."""
        out = []
        place = 0
        for row in self._ranked():
            if not row.stand_in:
                place += 1
            out.append(Standing(None if row.stand_in else place, row.pair, row.name, row.score, row.matchpoints,
                                row.tops, row.vp, row.net, row.boards, row.stand_in))
        return out

    def final_table(self) -> list[dict[str, Any]]:
        """Each partnership's results on each board: round, board, table, direction, opponents,
        score, result (net) and matchpoints, with a mark where a house bot played."""
        mps = self.board_matchpoints()
        stand = {(rec.round, rec.table, rec.board): rec.stand_in_seats for rec in self.records}
        rows = []
        for res in self.results:
            for pair, direction, opp in ((res.ns, "NS", res.ew), (res.ew, "EW", res.ns)):
                seats = self.rules.teams[0 if direction == "NS" else 1]
                marked = any(seat in seats for seat in stand[(res.round, res.table, res.board)])
                rows.append({"pair": pair, "round": res.round, "board": res.board, "table": res.table,
                             "direction": direction, "opponents": opp,
                             "score": res.ns_score if direction == "NS" else res.ew_score,
                             "net": res.net(pair), "matchpoints": mps.get((res.round, res.board, pair)),
                             "stand_in": marked})
        rows.sort(key=lambda row: (row["pair"], row["round"], row["board"]))
        return rows

    def proof(self) -> dict[str, Any]:
        """What proves the deals: each round's commitment (published before the tournament) and,
        for the rounds played, its secret and each board's secret (the records' ``Secret``)."""
        rounds = []
        for seed, commitment in zip(self.round_seeds, self.commitments, strict=True):
            row: dict[str, Any] = {"round": seed.round, "commitment": commitment}
            if seed.round in self.revealed:
                row["secret"] = self.revealed[seed.round]
                row["boards"] = {b: seed.board_secret(b).hex() for b in range(1, self.hands + 1)}
            rounds.append(row)
        return {"scheme": "canasta-board/1", "rules": self.rules.name, "rounds": rounds}

    # ------------------------------------------------------------------ saving

    def to_dict(self) -> dict[str, Any]:
        """Everything the tournament is, to carry it over a restart (``from_dict``): between
        boards, rounds or at the end.  It holds the secrets of the rounds still to play: keep it
        as secret as they are (the card room seals them, as it does deal secrets)."""
        return {"format": SAVE_FORMAT, "rules": self.rules.to_dict(), "rounds": self.rounds, "hands": self.hands,
                "form": self.form, "scoring": self.scoring, "seed": self.seed, "house_bot": self.house_bot,
                "name": self.name, "date": self.date,
                "entrants": [{"number": p.number, "name": p.name, "players": list(p.players),
                              "stand_in": {str(m): r for m, r in p.stand_in.items()}} for p in self.entrants],
                "round_secrets": [s.secret.hex() for s in self.round_seeds],
                "revealed": {str(r): v for r, v in self.revealed.items()},
                "seatings": {str(r): [[s.table, s.ns, s.ew] for s in seating] for r, seating in self.seatings.items()},
                "records": [{"round": rec.round, "table": rec.table, "board": rec.board, "ns": rec.ns, "ew": rec.ew,
                             "stand_in_seats": list(rec.stand_in_seats), "record": rec.record,
                             "ns_score": res.ns_score, "ew_score": res.ew_score}
                            for rec, res in zip(self.records, self.results, strict=True)]}

    @classmethod
    def from_dict(cls, data: Any) -> Tournament:
        """A tournament saved by :meth:`to_dict`, ready to go on where it stopped."""
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise TournamentError(f"not a saved tournament (expected format {SAVE_FORMAT})")
        try:
            entrants = [Partnership(int(e["number"]), str(e["name"]), tuple(str(x) for x in e["players"]),
                                    {int(m): int(r) for m, r in e["stand_in"].items()}) for e in data["entrants"]]
            seeds = [RoundSeed(i + 1, bytes.fromhex(s)) for i, s in enumerate(data["round_secrets"])]
            t = cls(RuleSet.from_dict(data["rules"]), entrants, int(data["rounds"]), int(data["hands"]),
                    str(data["form"]), str(data["scoring"]), int(data["seed"]), seeds, str(data["house_bot"]),
                    str(data["name"]), str(data["date"]))
            t.revealed = {int(r): str(v) for r, v in data["revealed"].items()}
            t.seatings = {int(r): [Seating(int(a), int(b), int(c)) for a, b, c in seating]
                          for r, seating in data["seatings"].items()}
            for row in data["records"]:
                r, table, board = int(row["round"]), int(row["table"]), int(row["board"])
                ns, ew = int(row["ns"]), int(row["ew"])
                t.records.append(TableRecord(r, table, board, ns, ew, tuple(int(x) for x in row["stand_in_seats"]),
                                             str(row["record"])))
                t.results.append(BoardResult(r, board, table, ns, ew, int(row["ns_score"]), int(row["ew_score"])))
                t.gates.setdefault(r, BoardGate(t.tables, t.hands)).finish(table, board)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise TournamentError(f"not a saved tournament: {type(exc).__name__}: {exc}") from None
        return t

    def records_text(self) -> str:
        """Every table's board as game records, one file (``canasta verify`` reads it)."""
        return "\n".join(rec.record for rec in self.records)


def default_bots() -> tuple[str, ...]:
    """The bots a tournament from the command line seats by default: the two cheap levels."""
    return LEVELS[1], LEVELS[0]


__all__ = ["FORMATS", "MAX_HANDS", "MAX_PAIRS", "MAX_ROUNDS", "SAVE_FORMAT", "Partnership", "TableRecord", "Tournament",
           "TournamentError", "bot_partnerships", "default_bots"]
