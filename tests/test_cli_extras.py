"""``canasta bench --env`` and ``canasta arena --ray``: the commands wired to the rl bench and the
Ray arena, through the real entry point (skipped, with the reason, where the extra is missing)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from canasta import cli
from canasta.play.record import read_file, verify
from canasta.tools import commands


def _have(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


@pytest.mark.skipif(not _have("numpy", "pettingzoo", "gymnasium"),
                    reason="bench --env needs the rl extra: pip install -e '.[rl]'")
@pytest.mark.parametrize("env", cli.BENCH_ENVS)
def test_bench_env_prints_the_environment_figures(env: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "--env", env, "--rules", "italian-4p", "--seconds", "0.05", "--seed", "3",
                     "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["env"] == env and data["rules"] == "italian-4p"
    assert data["steps"] > 0 and data["hands"] >= 1 and data["ratio_to_engine"] > 0


@pytest.mark.skipif(not _have("numpy", "pettingzoo"), reason="bench --env needs the rl extra")
def test_bench_env_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "--env", "table", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("table classic-4p:") and "ratio" in out


# the advice names the extra as it installs where canasta runs: from the source checkout it was
# started in, or as an installed package (a compiled build is one)
INSTALLS = [(True, "pip install -e '.[{extra}]'"), (False, "pip install 'canasta[{extra}]'")]


def _installed_as(monkeypatch: pytest.MonkeyPatch, checkout: bool) -> None:
    monkeypatch.setattr(cli, "_checkout", lambda: Path.cwd().resolve() if checkout else None)


@pytest.mark.parametrize(("checkout", "advice"), INSTALLS)
def test_bench_env_without_the_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str],
                                                          checkout: bool, advice: str) -> None:
    _installed_as(monkeypatch, checkout)
    monkeypatch.setattr(cli, "missing", lambda *names: [n for n in names if n == "pettingzoo"])
    assert cli.main(["bench", "--env", "pettingzoo", "--seconds", "0.05"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "canasta: error: bench --env pettingzoo needs pettingzoo: " + advice.format(extra="rl")


def test_bench_env_refuses_a_bad_seconds_value(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["bench", "--env", "table", "--seconds", "0"])
    assert "more than 0 seconds" in capsys.readouterr().err


@pytest.mark.skipif(not _have("ray"), reason="arena --ray needs the cluster extra: pip install -e '.[cluster]'")
@pytest.mark.usefixtures("ray_alone")  # one local Ray at a time (conftest.py)
def test_arena_on_ray_reports_and_saves_like_the_process_pool(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    args = ["arena", "--rules", "classic-2p", "--bots", "basic,random", "--games", "2", "--seed", "4",
            "--max-hands", "2", "--jobs", "1", "--json"]
    assert cli.main(args + ["--ray", "--save", str(tmp_path / "ray.cgn")]) == 0
    on_ray = json.loads(capsys.readouterr().out)
    assert cli.main(args + ["--save", str(tmp_path / "pool.cgn")]) == 0
    pool = json.loads(capsys.readouterr().out)
    for key in ("games", "hands", "mean_score_diff_per_hand_A_minus_B"):
        assert on_ray[key] == pool[key]
    assert on_ray["A"]["hands_won"] == pool["A"]["hands_won"]
    games, errors = read_file(tmp_path / "ray.cgn")
    assert errors == [] and len(games) == 2
    assert all(verify(g) == [] for g in games)


@pytest.mark.parametrize(("checkout", "advice"), INSTALLS)
def test_arena_on_ray_without_ray_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       checkout: bool, advice: str) -> None:
    _installed_as(monkeypatch, checkout)
    monkeypatch.setattr(commands, "missing", lambda *names: list(names))
    assert cli.main(["arena", "--bots", "basic,random", "--games", "2", "--ray", "--save",
                     str(tmp_path / "x.cgn")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "canasta: error: arena --ray needs ray: " + advice.format(extra="cluster")
    assert not (tmp_path / "x.cgn").exists()
