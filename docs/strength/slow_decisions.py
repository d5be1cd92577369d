"""A bot's CPU time at the slowest decisions of arena records, for docs/strength.md.

    nice -n 10 .venv/bin/python docs/strength/slow_decisions.py expert \
        docs/strength/american/arena-american-4p-expert-vs-advanced-120[12].cgn.gz --worst 12

finds the ``--worst`` decisions that took longest in the records (their ``DecisionMs`` tags, wall
time as the run measured it), rebuilds each table position by replaying the record's moves, and
times the bot given (``expert``, ``expert:i40``...; seeded with ``--seed``) deciding there: CPU
time (``time.process_time``) and the nodes of the Modern American going-out search
(``canasta.families.american.movegen.searched``, a count of work, the same on any machine).
The bot starts fresh at each position: what it had seen before (its refusal memory) is not
replayed, so its choice may differ from the record's.
"""

from __future__ import annotations

import argparse
import os
import time

from canasta.bots import make_bot
from canasta.engine.game import Game
from canasta.families.american import movegen
from canasta.play.record import read_file
from canasta.views.seat import seat_view


def slowest(paths: list[str], worst: int) -> list[tuple[float, str, int, int, int]]:
    """The ``worst`` longest decisions: (milliseconds, record, game, hand, decision), longest first."""
    found = []
    for path in paths:
        games, _ = read_file(path)
        for gi, rec in enumerate(games):
            for hi, hand in enumerate(rec.hands):
                for mi, ms in enumerate(float(x) for x in hand.tags.get("DecisionMs", "").split()):
                    found.append((ms, path, gi, hi, mi))
    found.sort(reverse=True)
    return found[:worst]


def position(path: str, game: int, hand: int, decision: int) -> Game:
    """The table as it stood at ``decision`` (0-based) of ``hand`` of ``game`` in the record."""
    rec = read_file(path)[0][game]
    match = rec.match()
    for h in range(hand + 1):
        g = match.next_hand()
        moves = rec.hands[h].moves
        for _, move, _, _ in moves[:decision if h == hand else len(moves)]:
            g.push(move)
        if h < hand:
            match.record_hand()
    return g


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("bot")
    ap.add_argument("records", nargs="+")
    ap.add_argument("--worst", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    searched: list[int] = getattr(movegen, "searched", [0])  # (0 on a tree older than the count)
    took = []
    for ms, path, gi, hi, mi in slowest(args.records, args.worst):
        g = position(path, gi, hi, mi)
        bot = make_bot(args.bot, seed=args.seed)
        nodes = searched[0]
        t0 = time.process_time()
        move = bot.choose(seat_view(g, g.to_move))
        cpu = time.process_time() - t0
        took.append(cpu)
        bot.close()
        print(f"{os.path.basename(path)} game {gi} hand {hi + 1} decision {mi + 1}: {ms / 1000:.1f} s in the run; "
              f"now {cpu:.2f} s CPU, {searched[0] - nodes} search nodes, {move}", flush=True)
    print(f"{args.bot}: {len(took)} decisions, CPU mean {sum(took) / max(1, len(took)):.2f} s, "
          f"worst {max(took, default=0.0):.2f} s; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
