"""The rules pages, generated from the rule set itself in every language::

    python -m canasta.i18n.rulespage            # writes docs/rules/<lang>/<family>.md
    python -m canasta.i18n.rulespage --check    # nonzero if a page is not current

Each page lists the family's presets and every option: its id, what it decides,
its choices (the sourced default first and marked), the spec section and the
sources (from :mod:`canasta.engine.rules`).  ``canasta rules [PRESET] --lang it`` prints
one rule set the same way."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from canasta.engine.game import family_of
from canasta.engine.rules import FAMILY_OPTIONS, PRESETS, OptionInfo, RuleSet
from canasta.i18n import LANGUAGES, Translator, translator

DOCS = Path(__file__).resolve().parents[3] / "docs" / "rules"


def _value(t: Translator, value: Any) -> str:
    """A choice in words, with its identifier where it is a word (what a rules file holds)."""
    words = t.choice(value)
    if isinstance(value, str) and words != value:
        return f"{words} (`{value}`)"
    return words


def option_choices(t: Translator, o: OptionInfo) -> str:
    return "; ".join(_value(t, v) + (" — " + t.gettext("default") if i == 0 else "")
                     for i, v in enumerate(o.choices))


def _preset_row(t: Translator, name: str, r: RuleSet) -> str:
    needed = family_of(r).canastas_needed(r)
    canastas = t.choice(needed) if isinstance(needed, str) else t.number(needed)
    return (f"| `{name}` | {t.preset(name)} | {t.number(r.packs)} | {t.number(r.hand_size)} | "
            f"{t.number(r.draw_count)} | {canastas} | {t.number(r.target)} |")


def family_markdown(family: str, t: Translator) -> str:
    """The page of a rules family (``classic`` or ``italian``) in ``t``'s language."""
    _ = t.gettext
    lines = [
        f"# {t.family(family)}",
        "",
        _("Generated from the rule set by `python -m canasta.i18n.rulespage`; do not edit by hand. "
          "The spec sections are those of SPEC.md; the sources are the seed documents (SEED-000 … SEED-004) "
          "and the references SPEC.md lists."),
        "",
        "## " + _("Presets"),
        "",
        "| " + " | ".join([_("preset"), _("players"), _("packs"), _("cards dealt"), _("cards drawn"),
                           _("canastas to go out"), _("target")]) + " |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in sorted(PRESETS):
        r = PRESETS[name]
        if r.family == family:
            lines.append(_preset_row(t, name, r))
    lines += ["", "## " + _("Options"), "",
              _("The first choice of each option is the sourced default; the others are house rules. "
                "In a rules file or with `--set`, write the option's id and the choice's identifier."), ""]
    for o in FAMILY_OPTIONS[family]:
        rows = ((_("Choices"), option_choices(t, o)), (_("Default"), _value(t, o.choices[0])),
                (_("Spec section"), o.rule), (_("Sources"), t.sources(o.sources)),
                (_("Field in a rules file"), f"`{o.field}`"))
        lines += [f"### {o.id} — {t.option(o.id)}", "", *(f"- {k}: {v}" for k, v in rows), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def rules_markdown(rules: RuleSet, t: Translator) -> str:
    """One rule set (a preset with any house rules) as a Markdown page."""
    _ = t.gettext
    lines = [f"# {t.preset(rules.name) if rules.name in PRESETS else rules.name} (`{rules.name}`)", "",
             rules_header(rules, t), "",
             "| " + " | ".join([_("option"), _("what it decides"), _("value"), _("choices"), _("spec section"),
                               _("sources")]) + " |",
             "|---|---|---|---|---|---|"]
    for o in rules.options:
        value = rules.get(o.field)
        mark = _value(t, value) + ("" if value == o.choices[0] else " — " + _("house rule"))
        lines.append(f"| {o.id} | {t.option(o.id)} | {mark} | {option_choices(t, o)} | {o.rule} | "
                     f"{t.sources(o.sources)} |")
    return "\n".join(lines) + "\n"


def rules_header(rules: RuleSet, t: Translator) -> str:
    return t.gettext("{players}, {packs}, {cards} each, {draw} per turn, {canastas} to go out, "
                     "target {target}").format(
        players=t.nplural("{n} player", "{n} players", rules.players),
        packs=t.nplural("{n} pack", "{n} packs", rules.packs),
        cards=t.nplural("{n} card", "{n} cards", rules.hand_size),
        draw=t.nplural("draw {n} card", "draw {n} cards", rules.draw_count),
        canastas=(t.choice(needed) if isinstance(needed := family_of(rules).canastas_needed(rules), str)
                  else t.nplural("{n} canasta", "{n} canastas", needed)),
        target=t.number(rules.target))


def rules_summary(rules: RuleSet, t: Translator) -> str:
    """``canasta rules``: the rule set in force, one option a line."""
    _ = t.gettext
    head = t.preset(rules.name) if rules.name in PRESETS else rules.name
    lines = [f"{rules.name}: {head}", "  " + rules_header(rules, t)]
    for o in rules.options:
        value = rules.get(o.field)
        mark = _("default") if value == o.choices[0] else _("house rule (default {value})").format(
            value=t.choice(o.choices[0]))
        lines.append(f"  {o.id:6} {t.option(o.id)}: {t.choice(value)} "
                     f"[{mark}; {o.rule}; {t.sources(o.sources)}]")
    return "\n".join(lines) + "\n"


def pages() -> dict[Path, str]:
    """Every generated page, by path."""
    out: dict[Path, str] = {}
    for lang in LANGUAGES:
        t = translator(lang)
        for family in FAMILY_OPTIONS:
            out[DOCS / lang / f"{family}.md"] = family_markdown(family, t)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m canasta.i18n.rulespage", description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="write nothing; fail if a page is not current")
    args = p.parse_args(argv)
    stale = []
    for path, text in pages().items():
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(("not current: " if args.check else "written: ") + str(path))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
