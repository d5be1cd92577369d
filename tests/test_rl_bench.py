"""The environment benchmark runs and reports its figures (no timing is asserted)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pettingzoo", reason="the environment benchmark needs the rl extra: pip install 'canasta[rl]'")

from canasta.rl import bench


@pytest.mark.parametrize("env", bench.ENVS)
def test_env_bench_reports(env: str) -> None:
    result = bench.env_bench("classic-4p", env, seconds=0.05, seed=3, engine_seconds=0.05)
    assert result.steps > 0 and result.hands >= 1
    assert result.engine_decisions_per_s > 0 and result.steps_per_s > 0
    assert result.ratio == pytest.approx(result.steps_per_s / result.engine_decisions_per_s)
    assert result.as_dict()["env"] == env


def test_command_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--env", "table", "--seconds", "0.05", "--json", "--rules", "italian-4p"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == "italian-4p" and data["steps_per_s"] > 0 and "ratio_to_engine" in data


def test_unknown_env_is_refused() -> None:
    with pytest.raises(ValueError):
        bench.env_bench("classic-4p", "nope", seconds=0.01)


def test_step_parts_time_every_piece_of_a_step(capsys: pytest.CaptureFixture[str]) -> None:
    parts = bench.step_parts("classic-4p", seconds=0.05, seed=4)
    assert parts.steps > 0 and list(parts.parts) == [name for name, _ in bench.PARTS]
    assert parts.table_us == pytest.approx(sum(parts.parts.values()))
    assert parts.engine_us > 0 and parts.pettingzoo_us > 0
    assert bench.main(["--parts", "--seconds", "0.05", "--json", "--rules", "italian-4p"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == "italian-4p" and set(data["parts"]) == {name for name, _ in bench.PARTS}
    assert bench.main(["--parts", "--seconds", "0.05"]) == 0
    text = capsys.readouterr().out
    assert all(name in text for name, _ in bench.PARTS) and "bare decision" in text
