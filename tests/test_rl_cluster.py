"""The Ray arena gives the process pool's figures for the same seed (a local Ray)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the Ray arena needs the cluster extra: pip install 'canasta[cluster]'")

from canasta.cluster import run_arena_ray
from canasta.engine.rules import RuleSet
from canasta.tools.arena import run_arena

pytestmark = pytest.mark.usefixtures("ray_alone")  # one local Ray at a time (conftest.py)


def _figures(d: dict[str, object]) -> dict[str, object]:
    """Everything but the clock: decision times and seconds differ from run to run."""
    out = {k: v for k, v in d.items() if k != "seconds"}
    for label in ("A", "B"):
        side = dict(out[label])  # type: ignore[call-overload]
        side.pop("mean_decision_ms")
        side.pop("worst_decision_ms")
        out[label] = side
    return out


@pytest.mark.slow
def test_ray_matches_the_process_pool(tmp_path: Path) -> None:
    rules = RuleSet.preset("classic-2p")
    specs = ("basic", "random")
    pool = run_arena(rules, specs, games=6, seed=5, jobs=2, max_hands=3)
    seen: list[tuple[int, int]] = []
    saved = tmp_path / "ray.cgn"
    ray_report = run_arena_ray(rules, specs, games=6, seed=5, max_hands=3, num_cpus=2, save=saved,
                               progress=lambda done, total: seen.append((done, total)))
    assert _figures(ray_report.as_dict()) == _figures(pool.as_dict())
    assert sorted(ray_report.diffs) == sorted(pool.diffs)
    assert ray_report.games == 6 and seen[-1] == (6, 6)
    assert saved.read_text(encoding="utf-8").count("[Event ") == 6
