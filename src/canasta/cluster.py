"""The arena on a Ray cluster: duplicate pairs as Ray tasks (the ``cluster`` extra).

:func:`run_arena_ray` plays what :func:`canasta.tools.arena.run_arena` plays, the same duplicate
pairs with the same seeds, but each pair is a Ray task: on a local Ray started for the run by
default, or on the cluster at ``address`` (``"auto"``: the one this machine belongs to).  The
figures are the same as the process pool's for the same seed (decision times aside); the
records are written as pairs finish, as ``run_arena`` writes them.

Needs ``pip install 'canasta[cluster]'`` (ray); nothing else in the package imports Ray.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from canasta.engine.rules import RuleSet
from canasta.tools.arena import ArenaReport, GameResult, _worker


def _pair(args: tuple[RuleSet, tuple[str, str], int, int, int, int]) -> list[GameResult]:
    """One duplicate pair (both orientations), as the process pool plays it."""
    return _worker(args)


def run_arena_ray(rules: RuleSet, specs: tuple[str, str], games: int, seed: int, address: str | None = None,
                  max_hands: int = 60, save: Path | None = None,
                  progress: Callable[[int, int], None] | None = None, num_cpus: int | None = None,
                  ) -> ArenaReport:
    """Play ``games`` matches (rounded up to whole duplicate pairs) as Ray tasks.

    ``address``: None starts a local Ray for the run (``num_cpus`` of it; all cores by default)
    and stops it afterwards; an address (``"auto"``, ``"ray://host:10001"``) joins that cluster
    and leaves it running.  A Ray already initialised in this process is used as it is."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("the Ray arena needs the cluster extra: pip install 'canasta[cluster]'") from None
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address is not None:
            kwargs["address"] = address
        elif num_cpus is not None:
            kwargs["num_cpus"] = num_cpus
        ray.init(**kwargs)
        started = address is None
    try:
        return _run(ray, rules, specs, games, seed, max_hands, save, progress)
    finally:
        if started:
            ray.shutdown()


def _run(ray: Any, rules: RuleSet, specs: tuple[str, str], games: int, seed: int, max_hands: int,
         save: Path | None, progress: Callable[[int, int], None] | None) -> ArenaReport:
    pairs = max(1, (games + 1) // 2)
    report = ArenaReport(rules.name, specs)
    start = time.perf_counter()
    remote = ray.remote(_pair)
    # the pairs are handed to Ray a few at a time (two a CPU of the cluster ahead): memory stays flat
    # however many games are asked for
    ahead = max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
    todo = iter(range(pairs))
    pending: list[Any] = []

    def top_up() -> None:
        for i in todo:
            pending.append(remote.remote((rules, specs, seed, i, max_hands, 0)))
            if len(pending) >= ahead:
                return

    top_up()
    out = None
    if save is not None:
        save.parent.mkdir(parents=True, exist_ok=True)
        out = save.open("w", encoding="utf-8")
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                for r in ray.get(ref):
                    report.add(r)
                    if out is not None:
                        out.write(r.record + "\n")
                if out is not None:
                    out.flush()  # a stopped run keeps every finished pair, as run_arena does
                if progress is not None:
                    progress(report.games, 2 * pairs)
            top_up()
    finally:
        if out is not None:
            out.close()
    report.seconds = time.perf_counter() - start
    return report
