"""The documented RL examples run with what their install commands install: in a fresh
interpreter, the imports of each Python snippet of ``docs/rl.md`` and of
``examples/openspiel_dqn.py`` load only distributions that the extras its install command names
(with what those require) provide; OpenSpiel's DQN needs ``dm-tree``, which open-spiel does not
require.  The DQN example's smoke runs and repeats."""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import json
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rl.md"
DQN = ROOT / "examples" / "openspiel_dqn.py"

pytest.importorskip("pyspiel", reason="the examples need the rl extra: pip install 'canasta[rl]'")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _extras(names: list[str]) -> set[str]:
    """The distributions the extras ``names`` of pyproject.toml pin."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    out: set[str] = set()
    for extra in names:
        for req in data["project"]["optional-dependencies"][extra]:
            m = re.match(r"[A-Za-z0-9._-]+", req)
            assert m is not None
            out.add(_norm(m.group(0)))
    return out


def _closure(names: set[str]) -> set[str]:
    """``names`` and every distribution they require (unconditionally, as installed)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        for req in requires:
            if "extra ==" in req or "extra==" in req:
                continue
            m = re.match(r"[A-Za-z0-9._-]+", req)
            if m is not None:
                todo.append(_norm(m.group(0)))
    return seen


_PROBE = """
import importlib.abc, json, sys
from importlib import metadata

allowed = set(json.loads(sys.argv[2]))
norm = lambda name: name.lower().replace("_", "-").replace(".", "-")
dists = metadata.packages_distributions()

class Block(importlib.abc.MetaPathFinder):
    # a module of installed distributions none of which is allowed cannot be found
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in dists and not any(norm(d) in allowed for d in dists[top]):
            raise ModuleNotFoundError(f"No module named {name!r} (not installed by the extras)", name=name)
        return None

sys.meta_path.insert(0, Block())
before = set(sys.modules)
exec(sys.argv[1])
tops = {m.split(".")[0] for m in set(sys.modules) - before}
print(json.dumps(sorted({d for t in tops for d in dists.get(t, [])})))
"""


def _assert_installed(imports: str, allowed: set[str]) -> set[str]:
    """Run ``imports`` in a fresh interpreter where only the distributions ``allowed`` can be
    imported (the modules of any other installed distribution cannot be found: optional imports,
    such as torch's of tqdm, do without them; needed ones fail).  Returns the distributions
    loaded."""
    run = subprocess.run([sys.executable, "-c", _PROBE, imports, json.dumps(sorted(allowed))],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, f"the documented imports fail:\n{imports}\n{run.stderr[-2000:]}"
    return {_norm(d) for d in json.loads(run.stdout)}


def _imports(source: str) -> list[str]:
    return [ast.unparse(node) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Import | ast.ImportFrom)]


def _snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def _installed_extras(example: str) -> list[str]:
    """The extras of the documented ``pip install -e '.[...]'`` in the shell block that runs
    ``example``."""
    for block in re.findall(r"```sh\n(.*?)```", DOC.read_text(), re.S):
        if example in block:
            m = re.search(r"pip install -e '\.\[([a-z,-]+)\]'", block)
            assert m is not None, f"no install command beside {example}"
            return m.group(1).split(",")
    raise AssertionError(f"docs/rl.md does not run {example}")


def test_the_snippets_need_only_the_rl_extra() -> None:
    imports = sorted({line for snippet in _snippets() for line in _imports(snippet)})
    assert any("pyspiel" in line for line in imports) and any("ismcts" in line for line in imports)
    _assert_installed("\n".join(imports), _closure(_extras(["rl"])) | {"canasta"})


def test_the_dqn_example_needs_only_the_extras_it_names() -> None:
    pytest.importorskip("torch", reason="the DQN example needs torch (the train extra)")
    # where dm-tree is missing the example cannot run at all (an install without the rl extra)
    pytest.importorskip("tree", reason="OpenSpiel's DQN needs dm-tree: pip install -e '.[rl]'")
    extras = _installed_extras("examples/openspiel_dqn.py")
    assert "rl" in extras
    loaded = _assert_installed("\n".join(_imports(DQN.read_text())), _closure(_extras(extras)) | {"canasta"})
    assert "dm-tree" in loaded, "OpenSpiel's DQN imports tree (dm-tree)"


def test_the_dqn_example_smoke_runs_and_repeats() -> None:
    pytest.importorskip("torch", reason="the DQN example needs torch (the train extra)")
    pytest.importorskip("tree", reason="OpenSpiel's DQN needs dm-tree (the rl extra)")
    spec = importlib.util.spec_from_file_location("openspiel_dqn", DQN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outputs = []
    for _ in range(2):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert module.main(["--smoke"]) == 0
        outputs.append(out.getvalue())
    assert re.fullmatch(r"hands 2: mean reward per seat against random [-+]\d+ [-+]\d+ \| loss \S+ \S+\n", outputs[0])
    assert outputs[0] == outputs[1], "seeded, the smoke repeats"
