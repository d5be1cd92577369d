"""The learning environments' speed figures in the docs are what their kept records say
(``docs/speed/``: the output of ``python -m canasta.rl.bench``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPEED = ROOT / "docs" / "speed"


def _lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (SPEED / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def _row(text: str, start: str) -> list[str]:
    rows = [line for line in text.splitlines() if line.startswith(start)]
    assert len(rows) == 1, f"one row starting {start!r}"
    return [cell.strip() for cell in rows[0].strip("|").split("|")]


def test_the_step_pieces_in_speed_md_are_the_kept_run() -> None:
    record = json.loads((SPEED / "rl-step-parts.json").read_text(encoding="utf-8"))
    text = (ROOT / "docs" / "speed.md").read_text(encoding="utf-8")
    parts = record["parts"]
    rows = {
        "| the engine's generating set": parts["generating set"],
        "| the options as action indices": parts["actions and mask"],
        "| the mover's observation": parts["observation"],
        "| the harness:": parts["harness"],
        "| the step:": parts["step"],
        "| a table step, the pieces together": record["table_us"],
        "| a PettingZoo step": record["pettingzoo_us"],
        "| a bare decision": record["engine_us"],
    }
    for start, value in rows.items():
        assert _row(text, start)[-1] == f"{value:.2f}", start
    assert record["engine"] == "compiled" and record["rules"] == "classic-4p"
    # the arithmetic the page draws from them
    without = record["pettingzoo_us"] - parts["observation"]
    assert f"{record['pettingzoo_us']:.2f} - {parts['observation']:.2f} = {without:.1f} µs" in text
    assert f"ratio at {record['engine_us'] / without:.2f}" in text


def test_the_environment_table_in_rl_md_is_the_kept_runs() -> None:
    runs = _lines("rl-bench.jsonl")
    text = (ROOT / "docs" / "rl.md").read_text(encoding="utf-8")
    by = {(r["env"], r["rules"], r["engine"]): r for r in runs}
    assert len(by) == len(runs) == 10
    for env in ("table", "pettingzoo-raw", "pettingzoo", "gymnasium"):
        cells = _row(text, f"| `{env}` |")
        for at, engine in ((2, "compiled"), (5, "pure")):
            r = by[env, "classic-4p", engine]
            assert cells[at] == f"{r['steps_per_cpu_s']:,.0f}", (env, engine)
            assert cells[at + 1] == f"{r['engine_decisions_per_cpu_s']:,.0f}", (env, engine)
            assert cells[at + 2] == f"{r['ratio_to_engine_cpu']:.2f}", (env, engine)
    cells = _row(text, "| `pettingzoo`, italian-4p |")
    for at, engine in ((2, "compiled"), (5, "pure")):
        r = by["pettingzoo", "italian-4p", engine]
        assert cells[at:at + 3] == [f"{r['steps_per_cpu_s']:,.0f}", f"{r['engine_decisions_per_cpu_s']:,.0f}",
                                    f"{r['ratio_to_engine_cpu']:.2f}"]


def test_the_before_and_after_runs_in_speed_md_are_the_kept_runs() -> None:
    runs = _lines("rl-before-after.jsonl")
    assert [r["build"] for r in runs] == ["before", "after"] * 3  # alternated
    text = (ROOT / "docs" / "speed.md").read_text(encoding="utf-8")
    for build in ("before", "after"):
        figures = " / ".join(f"{r['steps_per_cpu_s']:,.0f}" for r in runs if r["build"] == build)
        assert re.search(re.escape(figures) + r"\s+PettingZoo steps per CPU-second before" if build == "before"
                         else re.escape(figures) + r"\s+after", text), build
        ratios = sorted(r["ratio_to_engine_cpu"] for r in runs if r["build"] == build)
        assert f"{ratios[0]:.3f}–{ratios[-1]:.3f} {build}" in text
