"""docs/rl.md's decoded step is what ``python -m canasta.rl.example`` prints now (recomputed from
its seed), and the observation's feature names fit its layout."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the environments need the rl extra: pip install 'canasta[rl]'")

from canasta.engine.rules import PRESETS, RuleSet
from canasta.rl.encoding import ACTION_INFO, Observer, action_name
from canasta.rl.example import decoded_step, main

DOC = Path(__file__).resolve().parents[1] / "docs" / "rl.md"


def _doc_example() -> tuple[list[str], str]:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"```sh\n(python -m canasta\.rl\.example [^\n]*)\n```\n\n```text\n(.*?)\n```", text, re.S)
    assert found, "docs/rl.md shows the command and its output"
    return shlex.split(found.group(1))[3:], found.group(2)


def test_the_documented_step_is_what_the_command_prints(capsys: pytest.CaptureFixture[str]) -> None:
    args, shown = _doc_example()
    assert main(args) == 0
    assert capsys.readouterr().out.rstrip("\n") == shown


def test_the_decoded_step_is_a_meld_seen_by_both_seats() -> None:
    step = decoded_step("classic-4p", 3)
    assert ACTION_INFO[step.action][0] == "group"
    assert step.move.startswith("meld ")
    assert f"= {action_name(step.action)}" in str(step)
    private = [name for name, _, _ in step.changes if name.startswith(("hand ", "pending "))]
    assert private, "the actor sees its hand change"
    assert not [name for name, _, _ in step.other_changes if name.startswith(("hand ", "pending "))]
    assert any(name.startswith("sides[1] meld ") for name, _, _ in step.other_changes)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_feature_names_fit_the_layout(preset: str) -> None:
    observer = Observer(RuleSet.preset(preset))
    names = observer.feature_names()
    assert len(names) == observer.size == len(set(names))
    for section, start, width in observer.describe():
        assert all(name.startswith(section) for name in names[start:start + width])
