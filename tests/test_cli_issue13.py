"""The command line's rough edges (issue 13): each point through the real entry point."""

from __future__ import annotations

import io
import json
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

import canasta.cliout as cliout
from canasta.cli import main
from canasta.engine.errors import IllegalMoveError
from canasta.engine.rules import RuleSet
from canasta.tools.arena import ArenaReport, Progress, ProgressEstimate, run_arena
from canasta.tools.bench import BENCH_ORDER, COMPARE_MARKDOWN_HEADER

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse exits on bad arguments and after --help
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(code: int, out: str, err: str) -> str:
    assert code != 0
    assert "Traceback" not in out + err
    lines = err.rstrip("\n").splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in lines[0]
    return lines[0]


def _arena_run(tmp_path: Path, seed: int = 3, rules: str = "classic-2p") -> Path:
    save = tmp_path / f"run-{seed}.cgn"
    run_arena(RuleSet.preset(rules), ("basic", "random"), games=2, seed=seed, jobs=1, max_hands=2, save=save)
    return save


# -- point 2: --plot without matplotlib ----------------------------------------------------------


def test_plot_without_matplotlib_is_refused_before_any_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    save = tmp_path / "never.cgn"
    code, out, err = _run(["arena", "--bots", "basic,random", "--games", "2000", "--jobs", "1",
                           "--save", str(save), "--plot", str(tmp_path / "p.png")], capsys)
    line = _one_error_line(code, out, err)
    assert "matplotlib" in line and "[arena]" in line
    assert not save.exists(), "nothing was played"
    code, out, err = _run(["arena", "--tally", str(_arena_run(tmp_path)), "--plot", str(tmp_path / "p.png")],
                          capsys)
    assert "[arena]" in _one_error_line(code, out, err)


def test_plot_into_a_missing_folder_is_refused_before_any_game(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    save = tmp_path / "never.cgn"
    code, out, err = _run(["arena", "--bots", "basic,random", "--games", "2000", "--save", str(save),
                           "--plot", str(tmp_path / "no" / "p.png")], capsys)
    assert "does not exist" in _one_error_line(code, out, err)
    assert not save.exists()


# -- point 3: progress in hands and moves ---------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(params=["tqdm", "plain"])
def terminal(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> _Terminal:
    """A terminal for stderr (a test installs it: pytest's capture resumes between setup and the
    test); progress shown at once; with tqdm, and without it (a plain line)."""
    if request.param == "plain":
        monkeypatch.setitem(sys.modules, "tqdm", None)
    else:
        pytest.importorskip("tqdm")
    monkeypatch.setattr(cliout, "PROGRESS_DELAY", 0.0)
    monkeypatch.setattr(cliout, "PROGRESS_EVERY", 0.0)
    return _Terminal()


def test_demo_shows_its_progress_in_moves_on_a_terminal(terminal: _Terminal, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main(["demo", "--rules", "italian-2p", "--seed", "5", "--bot", "advanced"])
    out, _ = capsys.readouterr()
    assert code == 0
    shown = terminal.getvalue()
    assert "stock cards" in shown and "moves" in shown and "left" in shown, shown[-300:]
    assert "stock cards" not in out, "progress never goes to stdout"


def test_arena_shows_its_progress_in_hands_with_a_rate_and_time_left(
        terminal: _Terminal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main(["arena", "--rules", "classic-2p", "--bots", "basic,random", "--games", "4", "--jobs", "1",
                 "--max-hands", "3", "--seed", "2", "--save", str(tmp_path / "r.cgn")])
    capsys.readouterr()
    assert code == 0
    shown = terminal.getvalue()
    assert "hands" in shown and "hands/s" in shown and "left" in shown and "4/4 games" in shown, shown[-300:]


def test_no_progress_with_json_or_when_stderr_is_not_a_terminal(
        terminal: _Terminal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stderr", terminal)
    argv = ["arena", "--rules", "classic-2p", "--bots", "basic,random", "--games", "2", "--jobs", "1",
            "--max-hands", "2", "--seed", "2"]
    assert main([*argv, "--save", str(tmp_path / "a.cgn"), "--json"]) == 0
    assert terminal.getvalue() == ""
    json.loads(capsys.readouterr().out)
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)  # a file or a pipe
    assert main([*argv, "--save", str(tmp_path / "b.cgn")]) == 0
    assert main(["demo", "--seed", "2"]) == 0
    assert piped.getvalue() == ""


def test_the_progress_estimate_counts_hands_and_the_moves_of_hands_under_way() -> None:
    est = ProgressEstimate(games=4, max_hands=10, prior_hands=5, prior_moves=100)
    assert est.total_hands == 20 and est.hands_done == 0
    est.update(Progress((0, 0), hands=0, moves=50))
    assert est.hands_done == pytest.approx(0.5) and est.moves == 50
    est.update(Progress((0, 0), hands=1, moves=0, hand_moves=80, lead=0.25))
    assert est.hands_done == 1 and est.moves == 80
    # the game's leader is a quarter of the way to the target after one hand: about four hands
    assert est.total_hands == pytest.approx(4 + 3 * 4)
    est.update(Progress((0, 0), hands=1, moves=40, lead=0.25))
    assert est.hands_done == pytest.approx(1.5) and est.moves == 120  # 40 of about 80 moves
    est.update(Progress((0, 0), hands=1, moves=20, lead=0.25))  # an older report changes nothing
    assert est.moves == 120
    est.update(Progress((0, 0), hands=3, moves=0, hand_moves=80, lead=1.1, over=True))
    assert est.games_done == 1
    assert est.total_hands == pytest.approx(3 + 3 * 3), "games not started last like the games seen"


def test_arena_reports_progress_per_hand(tmp_path: Path) -> None:
    seen: list[tuple[float, int]] = []
    report = run_arena(RuleSet.preset("classic-2p"), ("basic", "random"), games=2, seed=4, jobs=1, max_hands=3,
                       progress=lambda e: seen.append((e.hands_done, e.games_done)))
    assert len(seen) >= report.hands
    assert seen[-1] == (report.hands, 2)
    assert [h for h, _ in seen] == sorted(h for h, _ in seen)


# -- point 4: tally verifies what it counts --------------------------------------------------------


def test_a_tally_refuses_a_record_with_a_changed_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = _arena_run(tmp_path)
    text = save.read_text()
    score = re.search(r'\[Score "(-?\d+) (-?\d+)"\]', text)
    assert score is not None
    damaged = tmp_path / "damaged.cgn"
    damaged.write_text(text.replace(score.group(0), f'[Score "{int(score.group(1)) + 500} {score.group(2)}"]', 1))
    code, out, err = _run(["arena", "--tally", str(save), str(damaged)], capsys)
    line = _one_error_line(code, out, err)
    assert f"{damaged}, game 1" in line and "damaged" in line and "recorded score" in line, line
    assert out == ""


def test_a_tally_refuses_a_record_with_an_illegal_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = _arena_run(tmp_path)
    lines = save.read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if line.endswith(": draw"))
    lines[i] = lines[i].replace("draw", "discard JK")
    damaged = tmp_path / "illegal.cgn"
    damaged.write_text("\n".join(lines) + "\n")
    code, out, err = _run(["arena", "--tally", str(damaged)], capsys)
    line = _one_error_line(code, out, err)
    assert str(damaged) in line and "illegal move discard JK" in line and f"line {i + 1}" in line, line


def test_a_tally_reports_a_cut_off_game_as_cut_off(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = _arena_run(tmp_path)
    text = save.read_text()
    cut = tmp_path / "stopped.cgn"
    cut.write_text(text[: text.rindex("[Score")])  # stopped while writing the second game
    code, out, err = _run(["arena", "--tally", str(cut)], capsys)
    assert code == 0, err
    assert "1 cut-off game not counted" in out and f"{cut}, game 2" in out
    assert "bot error" not in out
    code, out, err = _run(["arena", "--tally", str(cut), "--json"], capsys)
    data = json.loads(out)
    assert data["games"] == 1 and data["errors"] == [] and data["cut_off_games_not_counted"] == [f"{cut}, game 2"]


# -- point 6 and 7: option ids and rules files at the command line --------------------------------


def test_an_unknown_option_suggests_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["rules", "--set", "C-O99=1"], capsys)
    line = _one_error_line(code, out, err)
    assert "did you mean C-O9" in line and "canasta rules" in line
    assert len(line) < 220 and "I-O39" not in line


def test_rules_file_mistakes_name_the_file_and_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    family = tmp_path / "family.toml"
    family.write_text('preset = "classic-4p"\nfamily = "italian"\n')
    line = _one_error_line(*_run(["rules", str(family)], capsys))
    assert str(family) in line and "family" in line and "classic-4p" in line
    boolean = tmp_path / "boolean.toml"
    boolean.write_text('preset = "classic-4p"\nC-O2 = "yes"\n')
    line = _one_error_line(*_run(["bench", "--rules", str(boolean)], capsys))
    assert str(boolean) in line and "C-O2" in line and "false or true" in line and "False" not in line


# -- point 8: the README's library example shows a refusal that names its rule ---------------------


def test_the_readme_library_example_runs_and_names_a_rule() -> None:
    section = README[README.index("**The library.**"):]
    code = section[section.index("```python") + len("```python"): section.index("```\n", 10)]
    out = io.StringIO()
    namespace: dict[str, object] = {}
    with redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), namespace)  # the README's own example
    err = namespace["err"]
    assert isinstance(err, IllegalMoveError) and err.rule
    assert f"rule {err.rule}" in out.getvalue()


# -- point 9: small things --------------------------------------------------------------------------


def test_demo_prints_canastas_as_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["demo", "--seed", "4"], capsys)
    assert code == 0, err
    assert "canastas mixed" in out
    assert "['" not in out and "_" not in out.split("the hand ended")[1]


def test_counts_agree_with_their_nouns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save = _arena_run(tmp_path)
    text = save.read_text()
    score = re.search(r'\[Score "(-?\d+) (-?\d+)"\]', text)
    assert score is not None
    damaged = tmp_path / "one.cgn"
    damaged.write_text(text.replace(score.group(0), '[Score "1 2"]', 1))
    code, out, _ = _run(["verify", str(damaged)], capsys)
    assert code == 1
    assert ": 1 problem\n" in out and "1 problems" not in out
    code, out, _ = _run(["selfcheck", "--hands", "1", "--seed", "3"], capsys)
    assert code == 0
    assert "0 problems" in out and not re.search(r"\b1 (hands|problems)\b", out), out


def test_saving_into_a_missing_folder_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no" / "such"
    line = _one_error_line(*_run(["rules", "--save", str(missing / "house.toml")], capsys))
    assert "does not exist" in line and str(missing) in line and "Errno" not in line
    line = _one_error_line(*_run(["arena", "--bots", "basic,random", "--games", "2",
                                  "--save", str(missing / "r.cgn")], capsys))
    assert "does not exist" in line and "Errno" not in line
    assert not missing.exists()


def test_an_arena_refuses_to_overwrite_an_earlier_run_without_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["arena", "--rules", "classic-2p", "--bots", "basic,random", "--games", "2", "--jobs", "1",
            "--max-hands", "2", "--seed", "7", "--json"]
    save = tmp_path / "r.cgn"
    assert _run([*argv, "--save", str(save)], capsys)[0] == 0
    before = save.read_text()
    save.write_text(before + "; a note kept by hand\n")
    line = _one_error_line(*_run([*argv, "--save", str(save)], capsys))
    assert str(save) in line and "--force" in line
    assert save.read_text().endswith("; a note kept by hand\n"), "the earlier run is untouched"
    code, _, err = _run([*argv, "--save", str(save), "--force"], capsys)
    assert code == 0, err

    def played(text: str) -> list[str]:  # the record less its decision times, which differ run to run
        return [line for line in text.splitlines() if not line.startswith("[DecisionMs ")]

    assert played(save.read_text()) == played(before) and "[DecisionMs " in before


def test_the_default_record_file_is_not_overwritten_either(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["arena", "--rules", "classic-2p", "--bots", "basic,random", "--games", "2", "--jobs", "1",
            "--max-hands", "2", "--seed", "7"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    saved = tmp_path / "runs" / "arena-classic-2p-basic-vs-random-7.cgn"
    assert saved.exists() and str(saved.relative_to(tmp_path)) in out
    line = _one_error_line(*_run(argv, capsys))
    assert "arena-classic-2p-basic-vs-random-7.cgn" in line and "--force" in line


def test_the_plot_counts_hands_in_whole_numbers() -> None:
    pytest.importorskip("matplotlib")
    from canasta.tools.arena import figure

    report = ArenaReport("classic-4p", ("a", "b"), diffs=[-40, 10, 10, 35, 120])
    fig = figure(report)
    ticks = fig.axes[0].get_yticks()
    assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks), ticks


def test_the_readme_names_the_lobby_button_the_page_shows() -> None:
    page = (ROOT / "src" / "canasta" / "web" / "static" / "index.html").read_text(encoding="utf-8")
    label = re.search(r'<button id="btn-quick"[^>]*>([^<]+)</button>', page)
    assert label is not None, "the lobby's quick-play button (id btn-quick) is gone: update this test and README"
    quoted = set(re.findall(r'press "([^"]+)"', README)) | set(re.findall(r"press \*([^*]+)\*", README))
    assert quoted == {label.group(1).strip()}, (quoted, label.group(1))


def test_the_readme_speed_table_is_what_bench_markdown_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/speed.md's table (linked from the README) has a column per engine: it is what
    ``bench --all --markdown --compare-pure`` prints in a compiled install; here (pure) the
    columns are checked against the header that command prints and the presets against
    ``bench --all --markdown``."""
    code, out, err = _run(["bench", "--all", "--markdown", "--hands", "1"], capsys)
    assert code == 0, err
    printed = [line for line in out.splitlines() if line.startswith("|")]
    speed = (ROOT / "docs" / "speed.md").read_text(encoding="utf-8")  # the speed table (linked from the README)
    section = speed[speed.index("## Engine speed"):]
    assert "canasta bench --all --markdown --compare-pure" in section
    table = [line for line in section.split("\n\n")[2].splitlines() if line.startswith("|")]
    assert "\n".join(table[:2]) == COMPARE_MARKDOWN_HEADER, "the same columns"
    assert [row.split("|")[1] for row in table[2:]] == [row.split("|")[1] for row in printed[2:]], "the same presets"
    assert [row.split("|")[1].strip() for row in printed[2:]] == list(BENCH_ORDER)
    for row in table[2:]:
        pure, compiled, ratio, per_hand = (float(x) for x in row.split("|")[2:6])
        assert 0 < pure < compiled and compiled / pure == pytest.approx(ratio, abs=0.02), row
        assert per_hand > 0, row


def test_help_shows_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    for command, options in [("arena", ("--games", "--jobs", "--seed", "--max-hands", "--rules")),
                             ("bench", ("--hands", "--seed", "--runs", "--rules")),
                             ("selfcheck", ("--hands", "--seed")), ("demo", ("--seed", "--bot"))]:
        code, out, _ = _run([command, "--help"], capsys)
        assert code == 0
        text = " ".join(out[out.index("options:"):].split())
        for option in options:
            after = text[text.index(f"{option} {option.strip('-').replace('-', '_').upper()}"):]
            nxt = re.search(r" --[a-z]", after[3:])
            assert "(default: " in after[: nxt.start() + 3 if nxt else None], f"{command} {option}: {after[:120]}"
    code, out, _ = _run(["arena", "--help"], capsys)
    assert "(default: 100)" in out and "(default: classic-4p)" in " ".join(out.split())
    assert "(default: False)" not in out


def test_progress_reaches_the_parent_from_worker_processes() -> None:
    seen: list[tuple[float, int]] = []
    report = run_arena(RuleSet.preset("classic-2p"), ("basic", "random"), games=4, seed=4, jobs=2, max_hands=2,
                       progress=lambda e: seen.append((e.hands_done, e.moves)))
    assert seen, "the workers' reports arrived"
    assert all(0 < h <= report.hands for h, _ in seen)
