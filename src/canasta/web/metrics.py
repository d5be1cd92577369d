"""Prometheus-style metrics of a server process (text exposition format 0.0.4),
without a client library: a few counters, gauges and one latency histogram."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable

# seconds: from a move arriving on a socket to its state being queued to this server's sockets
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Histogram:
    def __init__(self, buckets: Iterable[float] = BUCKETS) -> None:
        self.bounds = tuple(buckets)
        self.counts = [0] * (len(self.bounds) + 1)
        self.total = 0.0
        self.n = 0

    def observe(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, seconds)] += 1
        self.total += seconds
        self.n += 1

    def lines(self, name: str) -> list[str]:
        out = []
        running = 0
        for bound, count in zip(self.bounds, self.counts, strict=False):
            running += count
            out.append(f'{name}_bucket{{le="{bound:g}"}} {running}')
        out.append(f'{name}_bucket{{le="+Inf"}} {self.n}')
        out.append(f"{name}_sum {self.total:.6f}")
        out.append(f"{name}_count {self.n}")
        return out


class Metrics:
    """What one process counts.  Rates (moves/s) are the scraper's ``rate()`` of the totals."""

    def __init__(self) -> None:
        self.events: Counter[str] = Counter()  # accepted changes written by this process, by kind
        self.conflicts = 0  # writes lost to another process (optimistic concurrency): re-read, answered
        self.caught_up = 0  # times this process read events it had missed from the database
        self.failed_writes = 0  # changes the database did not take (away or too slow): refused, nothing changed
        self.move_latency = Histogram()

    def render(self, gauges: dict[str, tuple[str, dict[str, float]]]) -> str:
        """``gauges``: name -> (help, {label text or "": value})."""
        lines: list[str] = []

        def block(name: str, kind: str, help_text: str, values: dict[str, float]) -> None:
            lines.append(f"# HELP {name} {help_text}")
            lines.append(f"# TYPE {name} {kind}")
            for labels, value in values.items():
                lines.append(f"{name}{labels} {value:g}")

        for name, (help_text, values) in gauges.items():
            block(name, "gauge", help_text, values)
        block("canasta_events_total", "counter", "accepted changes written by this process, by kind",
              {f'{{kind="{k}"}}': v for k, v in sorted(self.events.items())} or {'{kind="move"}': 0})
        block("canasta_moves_total", "counter", "moves written by this process (rate() gives moves/s)",
              {"": self.events["move"]})
        block("canasta_write_conflicts_total", "counter",
              "writes lost to another process (the loser re-read the table and answered from it)",
              {"": self.conflicts})
        block("canasta_failed_writes_total", "counter",
              "changes the database did not take (the player was told: not saved, try again)",
              {"": self.failed_writes})
        block("canasta_catch_ups_total", "counter", "times missed events were read back from the database",
              {"": self.caught_up})
        lines.append("# HELP canasta_move_seconds a move from its socket message to its state queued to "
                     "this server's sockets (database write included)")
        lines.append("# TYPE canasta_move_seconds histogram")
        lines.extend(self.move_latency.lines("canasta_move_seconds"))
        return "\n".join(lines) + "\n"


__all__ = ["BUCKETS", "Histogram", "Metrics"]
