"""Issue 56: absurd counts, clear refusals where an internal error was, a double count in
``--tally``, and messages that named the wrong thing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from canasta.cli import main
from canasta.tools.arena import MAX_GAMES


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse exits on bad arguments
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_refusal(code: int, err: str) -> str:
    assert code == 2, err
    assert "internal error" not in err and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


# -- item 1: absurd counts are refused, and a run is streamed, never planned up front ----------------

@pytest.mark.parametrize("command", ["arena --bots random,basic", "ladder --bots random,basic"])
def test_an_absurd_games_count_is_refused_in_one_line(command: str, capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for count in ("99999999999999999999", str(MAX_GAMES + 1)):
        line = _one_line_refusal(*_run([*command.split(), "--games", count], capsys)[::2])
        assert f"at most {MAX_GAMES} matches" in line and count in line
    assert not (tmp_path / "runs").exists()  # nothing was started


def test_games_help_says_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("arena", "ladder"):
        code, out, _ = _run([command, "--help"], capsys)
        assert code == 0
        assert f"at most {MAX_GAMES}" in " ".join(out.split())


STREAMED = """
import resource, sys
from canasta.tools.arena import Interrupted, run_arena
size = [int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmSize:")][0] * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + 300 * 2**20, resource.RLIM_INFINITY))

def stop(estimate):
    if estimate.games_done >= 1:
        raise KeyboardInterrupt

try:
    run_arena("classic-2p", ("random", "random"), 10**20, 1, int(sys.argv[1]), max_hands=1, progress=stop)
except Interrupted:
    print("stopped after the first game")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_of_any_length_starts_in_flat_memory(jobs: int, tmp_path: Path) -> None:
    """10**20 games under a 300 MB address-space cap: the first game is played and the run
    stopped (planning every game first ran out of memory before the first)."""
    script = tmp_path / "streamed.py"
    script.write_text(STREAMED)
    done = subprocess.run([sys.executable, str(script), str(jobs)], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-500:]
    assert "stopped after the first game" in done.stdout


# -- item 2: a clear refusal where an internal error was ---------------------------------------------

@pytest.mark.parametrize(("argv", "says"), [
    (["arena", "--bots", "policy:classic-4p,random", "--rules", "classic-2p"],
     "policy:classic-4p was trained for classic-4p (354 features) and cannot play classic-2p"),
    (["ladder", "--bots", "random,policy:classic-4p", "--rules", "classic-2p"], "cannot play classic-2p"),
    (["arena", "--bots", "cmd:,random"], "an external bot needs a command after 'cmd:'"),
    (["ladder", "--bots", "cmd: ,random"], "an external bot needs a command after 'cmd:'"),
    (["demo", "--bot", "cmd:"], "an external bot needs a command after 'cmd:'"),
    (["arena", "--bots", "cmd:python 'x,random"], "cannot read the external bot's command"),
])
def test_a_bot_that_cannot_play_is_refused_before_any_game(argv: list[str], says: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    if any("policy:" in a for a in argv):
        pytest.importorskip("numpy")
    monkeypatch.chdir(tmp_path)
    code, _, err = _run([*argv, "--games", "2"] if argv[0] != "demo" else argv, capsys)
    assert says in _one_line_refusal(code, err)
    assert list(tmp_path.iterdir()) == []  # nothing written


# -- item 3: the same game given twice to --tally is counted once -------------------------------------

@pytest.fixture(scope="module")
def saved_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from canasta.tools.arena import run_arena

    path = tmp_path_factory.mktemp("run") / "run.cgn"
    run_arena("classic-2p", ("random", "basic"), 2, 1, jobs=1, max_hands=1, save=path)
    return path


def test_tally_counts_a_game_given_twice_once(saved_run: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    import json

    code, out, err = _run(["arena", "--tally", str(saved_run), "--json"], capsys)
    assert code == 0, err
    once = json.loads(out)
    assert once["games"] == 2 and once["repeated_games_not_counted"] == []
    copy = tmp_path / "copy.cgn"
    copy.write_text(saved_run.read_text())
    for files in ([str(saved_run), str(saved_run)], [str(saved_run), str(copy)]):
        code, out, err = _run(["arena", "--tally", *files, "--json"], capsys)
        assert code == 0, err
        twice = json.loads(out)
        assert {k: v for k, v in twice.items() if k != "repeated_games_not_counted"} == \
            {k: v for k, v in once.items() if k != "repeated_games_not_counted"}
        assert len(twice["repeated_games_not_counted"]) == 2
    code, out, err = _run(["arena", "--tally", str(saved_run), str(copy)], capsys)
    assert f"2 repeated games not counted (the same game given again, in one file or another): {copy}, game 1 " \
           f"repeats {saved_run}, game 1" in out


def test_tally_counts_a_game_repeated_within_one_file_once(saved_run: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    doubled = tmp_path / "doubled.cgn"
    doubled.write_text(saved_run.read_text() * 2)
    code, out, err = _run(["arena", "--tally", str(doubled)], capsys)
    assert code == 0, err
    assert "arena classic-2p: 2 games" in out
    assert f"{doubled}, game 3 repeats {doubled}, game 1" in out


def test_ladder_tally_counts_a_game_given_twice_once(saved_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    code, out, err = _run(["ladder", "--rules", "classic-2p", "--bots", "random,basic", "--tally", str(saved_run),
                           str(saved_run), "--json"], capsys)
    assert code == 0, err
    pair = json.loads(out)["pairs"][0]
    assert pair["games"] == 2 and "2 repeated games not counted" in pair["source"]


# -- item 4: messages that name the right thing -------------------------------------------------------

@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc, a folder where no file can be made")
def test_save_where_no_file_can_be_made_names_the_file_not_a_temporary_one(capsys: pytest.CaptureFixture[str],
                                                                           tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(["arena", "--bots", "random,random", "--games", "2", "--rules", "classic-2p",
                         "--max-hands", "1", "--save", "/proc/x.cgn"], capsys)
    line = _one_line_refusal(code, err)
    assert line.endswith("'/proc/x.cgn'") and ".tmp" not in line


def test_an_atomic_file_that_cannot_be_made_names_its_own_path(tmp_path: Path) -> None:
    from canasta.engine.files import atomic_file

    target = tmp_path / "missing" / "x.cgn"
    with pytest.raises(OSError) as caught, atomic_file(target) as out:
        out.write("never")
    assert caught.value.filename == str(target)


def test_save_over_a_file_that_is_not_a_record_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch, saved_run: Path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("my notes\n")
    argv = ["arena", "--bots", "random,random", "--games", "2", "--rules", "classic-2p", "--max-hands", "1"]
    line = _one_line_refusal(*_run([*argv, "--save", "notes.txt"], capsys)[::2])
    assert "'notes.txt' exists and holds no game record" in line and "earlier run" not in line
    assert (tmp_path / "notes.txt").read_text() == "my notes\n"
    line = _one_line_refusal(*_run([*argv, "--save", str(saved_run)], capsys)[::2])
    assert "holds the games of an earlier run" in line  # a record file still gets the earlier run's message


def test_demo_says_which_seat_fell_back_when_its_external_bot_failed(capsys: pytest.CaptureFixture[str]) -> None:
    bot = f"cmd:{sys.executable} -c pass"  # exits at once, answering nothing
    code, out, err = _run(["demo", "--rules", "classic-2p", "--seed", "3", "--bot", bot], capsys)
    assert code == 0, err
    for seat in (0, 1):
        assert f"seat {seat} ({bot}) fell back to the first legal move of each turn: the bot" in out


@pytest.mark.parametrize(("name", "text"), [
    ("bom.toml", 'preset = "classic-2p"\ntarget = 3000\n'),
    ("bom.json", '{"preset": "classic-2p", "target": 3000}'),
])
def test_a_rules_file_with_a_byte_order_mark_is_read(name: str, text: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    code, out, err = _run(["rules", str(path)], capsys)
    assert code == 0, err
    assert out.startswith("classic-2p:") and "target 3,000" in out


def test_a_rules_file_with_only_a_name_must_say_its_preset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from canasta.engine.errors import RulesError
    from canasta.engine.rules import RuleSet

    path = tmp_path / "house.toml"
    path.write_text('name = "house"\n')
    line = _one_line_refusal(*_run(["rules", str(path)], capsys)[::2])
    assert 'name = "house" does not say which game it is: add preset = "classic-4p"' in line
    with pytest.raises(RulesError, match="does not say which game"):
        RuleSet.from_dict({"name": "house", "target": 3000})
    assert RuleSet.from_dict({"name": "house", "preset": "classic-2p"}).players == 2
    assert RuleSet.from_dict({"name": "house", "family": "italian"}).family == "italian"


class _FakeRay:
    """Just enough of Ray for ``canasta.cluster._run``: a task is its number, handed back by
    ``wait`` oldest first with no games in it; the most tasks ever in flight are counted, and
    the run is stopped once ``stop_after`` were submitted."""

    def __init__(self, stop_after: int) -> None:
        self.submitted = 0
        self.most_pending = 0
        self.stop_after = stop_after

    def cluster_resources(self) -> dict[str, float]:
        return {"CPU": 2.0}

    def remote(self, fn: object) -> _FakeTask:
        return _FakeTask(self)

    def submit(self, args: object) -> int:
        self.submitted += 1
        assert self.submitted <= self.stop_after + 100, "pairs submitted far ahead of the results"
        return self.submitted

    def wait(self, refs: list[int], num_returns: int = 1) -> tuple[list[int], list[int]]:
        self.most_pending = max(self.most_pending, len(refs))
        if self.submitted > self.stop_after:
            raise KeyboardInterrupt  # seen enough
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref: int) -> list[object]:
        return []


class _FakeTask:
    """A remote function: ``.remote(args)`` submits a task."""

    def __init__(self, ray: _FakeRay) -> None:
        self.ray = ray

    def remote(self, args: object) -> int:
        return self.ray.submit(args)


def test_the_ray_arena_hands_out_a_few_pairs_at_a_time() -> None:
    """10**20 games on (a stand-in for) Ray: the pairs go out two a CPU ahead, not all at once
    (submitting every pair first never reached the first result)."""
    from canasta import cluster
    from canasta.engine.rules import RuleSet

    fake = _FakeRay(stop_after=50)
    with pytest.raises(KeyboardInterrupt):
        cluster._run(fake, RuleSet.preset("classic-2p"), ("random", "random"), 10**20, 1, 1, None, None)
    assert fake.submitted > 50  # the run went on, pair after pair
    assert fake.most_pending <= 4  # two a CPU ahead, never the whole run


@pytest.mark.parametrize("command", ["arena --bots random,basic", "ladder --bots random,basic", "review game.cgn"])
def test_an_absurd_number_of_processes_is_refused(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    line = _one_line_refusal(*_run([*command.split(), "--jobs", "100000000"], capsys)[::2])
    assert "at most 256 processes at once, not 100000000" in line


def test_the_library_arena_refuses_a_policy_for_other_rules_before_any_game(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    from canasta.bots import BotSpecError
    from canasta.tools.arena import run_arena

    save = tmp_path / "run.cgn"
    with pytest.raises(BotSpecError, match="cannot play classic-2p"):
        run_arena("classic-2p", ("policy:classic-4p", "random"), 2, 1, save=save)
    assert not save.exists()
