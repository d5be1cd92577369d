"""What a tournament round costs the room (a measurement, not a test: ``python tests/bench_tournament.py``).

A tournament of bot partnerships (``basic``), one round of one board, played through the room in
this process (SQLite, the server's loop in the test client's thread): the wall time from the
director's start to the last board, and the process's CPU time over it (an upper bound of the
server's: the test client polls the standings meanwhile)."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from test_web_accounts import accounts_of  # tests/ is the script's folder, first on its path
from test_web_tournaments import Steps, api, as_player, room

BOTS_A_CALL = 64


def one_round(pairs: int, hands: int) -> tuple[float, float]:
    """Wall and CPU seconds of one round of ``hands`` boards with ``pairs`` partnerships."""
    with tempfile.TemporaryDirectory() as folder, room(Path(folder)) as client:
        accounts_of(client).limits.signups_per_address = 0
        steps = Steps(client)
        try:
            as_player(client, "Dora")
            tid = api(client, "", {"rounds": 1, "hands": hands, "seed": 1}).json()["id"]
            for left in range(pairs, 0, -BOTS_A_CALL):
                assert api(client, f"/{tid}/director/bots", {"count": min(left, BOTS_A_CALL)}).status_code == 200
            cpu, wall = time.process_time(), time.perf_counter()
            assert api(client, f"/{tid}/director/start").status_code == 200
            steps.until(tid, lambda s: s["status"] == "finished", 900)
            return time.perf_counter() - wall, time.process_time() - cpu
        finally:
            steps.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--pairs", type=int, default=200, help="partnerships (two a table)")
    p.add_argument("--hands", type=int, default=1, help="boards in the round")
    args = p.parse_args()
    wall, cpu = one_round(args.pairs, args.hands)
    boards = args.pairs // 2 * args.hands
    print(f"{args.pairs} partnerships, {args.pairs // 2} tables, {args.hands} board(s): wall {wall:.1f} s, "
          f"CPU {cpu:.1f} s, {1000 * cpu / boards:.0f} ms of CPU a table's board")


if __name__ == "__main__":
    main()
