"""The new-game screen: the language, the preset, the house rules with their
sourced defaults, the target, the seed and the seats' bot levels."""

from __future__ import annotations

import os
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from canasta.bots import LEVELS
from canasta.engine.errors import CanastaError
from canasta.engine.rules import PRESETS, RuleSet
from canasta.i18n import LANGUAGE_NAMES, LANGUAGES, N_, _, current
from canasta.i18n.words import seat_name
from canasta.play.table import seat_names
from canasta.tui.config import PlayConfig, build_table
from canasta.tui.render import level_name
from canasta.tui.screens import KeyBar, Keys, TableHost


class NewGameScreen(Screen[None]):
    """Choose the preset, the house rules, the target and the seats."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", "Start the game", priority=True),
        Binding("escape", "app.quit", "Quit"),
    ]
    KEYS: ClassVar[Keys] = (("^s", N_("Start the game")), ("F2", N_("Language")), ("Esc", N_("Quit")))

    def __init__(self, config: PlayConfig) -> None:
        super().__init__()
        self.config = config
        self.preset = (config.rules.name if config.rules is not None and config.rules.name in PRESETS
                       else "classic-4p")
        self._generation = 0

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="newgame"):
            yield Static(id="ng-title")
            with Horizontal(classes="ng-row"):
                yield Label(id="ng-lang-label", classes="ng-label")
                langs = [*LANGUAGES, *([current().lang] if current().lang not in LANGUAGES else [])]
                yield Select([(LANGUAGE_NAMES.get(code, code), code) for code in langs], value=current().lang,
                             allow_blank=False, id="ng-lang")
            with Horizontal(classes="ng-row"):
                yield Label(id="ng-preset-label", classes="ng-label")
                yield Select(self._preset_choices(), value=self.preset, allow_blank=False, id="ng-preset")
            with Horizontal(classes="ng-row"):
                yield Label(id="ng-name-label", classes="ng-label")
                yield Input(seat_name(self.config.name), id="ng-name")
            with Horizontal(classes="ng-row"):
                yield Label(id="ng-target-label", classes="ng-label")
                yield Input("", id="ng-target", type="integer")
            with Horizontal(classes="ng-row"):
                yield Label(id="ng-seed-label", classes="ng-label")
                yield Input("", id="ng-seed", type="integer")
            yield Static(id="ng-seats-title")
            yield Vertical(id="ng-seats")
            yield Button("", id="ng-start", variant="success")
            yield Static(id="ng-options-title")
            yield Vertical(id="ng-options")
        yield KeyBar(self.KEYS, id="keys")

    @staticmethod
    def _preset_choices() -> list[tuple[str, str]]:
        return [(f"{name} — {current().preset(name)}", name) for name in sorted(PRESETS)]

    def _labels(self) -> None:
        self.query_one("#ng-title", Static).update(Text(_("canasta — a new game"), style="bold"))
        for key, text in (("lang", _("Language")), ("preset", _("Rules preset")), ("name", _("Your name")),
                          ("target", _("Target score")), ("seed", _("Seed"))):
            self.query_one(f"#ng-{key}-label", Label).update(text + " ")
        self.query_one("#ng-seed", Input).placeholder = _("random")
        self.query_one("#ng-seats-title", Static).update(Text(_("Seats"), style="bold underline"))
        self.query_one("#ng-start", Button).label = _("Start the game")
        self.query_one("#ng-options-title", Static).update(Text(
            _("House rules (the sourced default is marked; the rules screen, key r, shows them all during play)"),
            style="bold underline"))

    async def on_mount(self) -> None:
        self._labels()
        await self._fill(self.preset)

    async def retranslate(self) -> None:
        """Write the screen again in the language now in use, keeping what was chosen."""
        kept = self._current_choices()
        self._labels()
        self.query_one("#keys", KeyBar).retranslate()
        self.query_one("#ng-preset", Select).set_options(self._preset_choices())
        self.query_one("#ng-preset", Select).value = self.preset
        await self._fill(self.preset, kept)

    def _current_choices(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for sel in self.query(Select):
            parts = (sel.id or "").split("-", 3)  # ng-seat-GEN-SEAT, ng-opt-GEN-OPTION
            if len(parts) == 4 and parts[1] == "seat":
                out[f"seat{parts[3]}"] = sel.value
            elif len(parts) == 4 and parts[1] == "opt":
                out[parts[3]] = sel.value
        return out

    async def _fill(self, preset: str, kept: dict[str, Any] | None = None) -> None:
        kept = kept or {}
        rules = RuleSet.preset(preset)
        self._generation += 1
        gen = self._generation
        seats = self.query_one("#ng-seats", Vertical)
        options = self.query_one("#ng-options", Vertical)
        await seats.remove_children()
        await options.remove_children()
        names = seat_names(rules.players)
        given = self.config.bots or []
        rows = []
        for s in range(1, rules.players):
            level = given[s - 1] if s - 1 < len(given) else ("advanced" if s % 2 == 0 else "basic")
            level = str(kept.get(f"seat{s}", level))
            row = Horizontal(
                Label(f"{seat_name(names[s]):<12}", classes="ng-label"),
                Select([(level_name(lv), lv) for lv in LEVELS], value=level if level in LEVELS else "basic",
                       allow_blank=False, id=f"ng-seat-{gen}-{s}"),
                classes="ng-row")
            rows.append(row)
        await seats.mount_all(rows)
        t = current()
        opt_rows = []
        for o in rules.options:
            choices = [(t.choice(v) + ("  ← " + _("sourced default") if i == 0 else ""), i)
                       for i, v in enumerate(o.choices)]
            current_index = o.choices.index(rules.get(o.field)) if rules.get(o.field) in o.choices else 0
            value = kept.get(o.id, current_index)
            opt_rows.append(Horizontal(
                Label(f"{o.id:<6} {t.option(o.id)} [{o.rule}; {t.sources(o.sources)}]", classes="ng-opt-label"),
                Select(choices, value=value if isinstance(value, int) else current_index, allow_blank=False,
                       id=f"ng-opt-{gen}-{o.id}"),
                classes="ng-row"))
        await options.mount_all(opt_rows)
        self.query_one("#ng-target", Input).placeholder = _("{target} (preset default)").format(
            target=rules.target)

    async def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "ng-preset" and isinstance(event.value, str) and event.value != self.preset:
            self.preset = event.value
            await self._fill(self.preset)
        elif event.select.id == "ng-lang" and isinstance(event.value, str) and event.value != current().lang:
            app = self.app
            assert isinstance(app, TableHost)
            await app.set_language(event.value)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ng-start":
            self.action_start()

    def on_input_submitted(self, _event: Input.Submitted) -> None:
        self.action_start()

    def chosen(self) -> tuple[RuleSet, list[str], int, str]:
        """The rules, bot levels, seed and name chosen on the screen."""
        rules = RuleSet.preset(self.preset)
        gen = self._generation
        changes: dict[str, Any] = {}
        for o in rules.options:
            sel = self.query_one(f"#ng-opt-{gen}-{o.id}", Select)
            value = o.choices[int(str(sel.value))]
            if value != rules.get(o.field):
                changes[o.id] = value
        target = self.query_one("#ng-target", Input).value.strip()
        if target:
            changes["target"] = int(target)
        if changes:
            rules = rules.with_options(changes)
        bots = [str(self.query_one(f"#ng-seat-{gen}-{s}", Select).value) for s in range(1, rules.players)]
        seed_text = self.query_one("#ng-seed", Input).value.strip()
        seed = int(seed_text) if seed_text else int.from_bytes(os.urandom(4), "big")
        name = self.query_one("#ng-name", Input).value.strip() or "South"
        if name == seat_name("South"):
            name = "South"  # the seat's name, shown in each language
        return rules, bots, seed, name

    def action_start(self) -> None:
        try:
            rules, bots, seed, name = self.chosen()
            table = build_table(rules, bots, seed, name, self.config.hint_level)
        except (CanastaError, ValueError) as exc:
            self.notify(current().gettext(str(exc)), severity="error", timeout=8)
            return
        app = self.app
        assert isinstance(app, TableHost)
        app.start_table(table)
