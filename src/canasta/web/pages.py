"""The pages: the lobby, a table, a replay, a table's rules, and the page texts'
catalog in the reader's language."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse

from canasta.engine.game import family_of
from canasta.engine.rules import RuleSet
from canasta.i18n import Translator, translator
from canasta.web.language import catalog, choose, table_title
from canasta.web.service import TheCardRoom

STATIC = Path(__file__).parent / "static"


def rules_page(rules: RuleSet, title: str, tr: Translator) -> str:
    """A table's rules as a page, in ``tr``'s language: the preset, the initial-meld
    minimums and every option with its value, default, spec section and sources.
    (Texts are looked up outside the f-strings, where the catalog's extractor finds them.)"""
    e = html.escape
    default, house = tr.gettext("default"), tr.gettext("house rule (default {value})")
    rows = []
    for o in rules.options:
        value = rules.get(o.field)
        mark = default if value == o.choices[0] else house.format(value=tr.choice(o.choices[0]))
        rows.append(f"<tr><td>{e(o.id)}</td><td>{e(tr.option(o.id))}</td><td><b>{e(tr.choice(value))}</b> "
                    f"({e(mark)})</td><td>{e(o.rule)}</td><td>{e(tr.sources(o.sources))}</td></tr>")
    below, above = tr.gettext("below 0"), tr.gettext("from {score}")
    mins = []
    for lo, need in rules.minimum_table:
        score = below if lo <= -10**8 else above.format(score=tr.number(lo))
        points = tr.nplural("{n} point", "{n} points", need)
        mins.append(f"<li>{e(score)}: {e(points)}</li>")
    facts = ", ".join((
        tr.nplural("{n} player", "{n} players", rules.players), tr.nplural("{n} pack", "{n} packs", rules.packs),
        tr.nplural("{n} card each", "{n} cards each", rules.hand_size),
        tr.nplural("draw {n} card", "draw {n} cards", rules.draw_count),
        tr.gettext("target {score}").format(score=tr.number(rules.target)),
        tr.nplural("{n} canasta to go out", "{n} canastas to go out", rules.canastas_to_go_out)))
    head = "".join(f"<th>{e(h)}</th>" for h in (tr.gettext("Option"), tr.gettext("Topic"), tr.gettext("Value"),
                                                  tr.gettext("Rule"), tr.gettext("Sources")))
    page_title = tr.gettext("Rules: {title}").format(title=title)
    heading = tr.gettext("Rules of this table")
    minimums = tr.gettext("Initial meld minimums (by your side's score)")
    options = tr.gettext("Options")
    plays = tr.gettext("How this game plays")
    said = "".join(f"<li>{e(tr.table_note(note))}</li>" for note in family_of(rules).rule_notes(rules))
    how = f"<h2>{e(plays)}</h2><ul class=\"rule-notes\">{said}</ul>" if said else ""
    spec = tr.gettext("Rule numbers refer to the Canasta specification shipped with the engine.")
    return f"""<!doctype html><html lang="{e(tr.lang.replace('_', '-'))}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{e(page_title)}</title>
<link rel="stylesheet" href="/static/style.css"></head><body class="page">
<h1>{e(heading)}</h1>
<p><b>{e(tr.preset(rules.name))}</b> ({e(rules.name)}, {e(tr.family(rules.family))}): {e(facts)}.</p>
<h2>{e(minimums)}</h2><ul>{"".join(mins)}</ul>
{how}
<h2>{e(options)}</h2><table class="rules"><tr>{head}</tr>{"".join(rows)}</table>
<p>{e(spec)}</p></body></html>"""


routes = APIRouter(include_in_schema=False)


@routes.api_route("/", methods=["GET", "HEAD"])
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@routes.get("/favicon.ico")
async def favicon() -> FileResponse:
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@routes.get("/t/{table_id}")
async def table_page(table_id: str, card: TheCardRoom) -> FileResponse:
    await card.room(table_id)
    return FileResponse(STATIC / "table.html")


@routes.get("/replay/{table_id}")
async def replay_page(table_id: str) -> FileResponse:
    return FileResponse(STATIC / "replay.html")


@routes.get("/t/{table_id}/rules", response_class=HTMLResponse, include_in_schema=True)
async def table_rules(table_id: str, request: Request, card: TheCardRoom, lang: str | None = None) -> str:
    room = await card.room(table_id)
    tr = translator(choose(lang, request.headers.get("accept-language")))
    return rules_page(room.table.rules, table_title(room.config, tr) or table_id, tr)


@routes.get("/i18n/catalog.json")
async def language_catalog(request: Request, lang: str | None = None) -> dict[str, Any]:
    """The page texts in the language asked for (else the browser's own, else English)."""
    return catalog(choose(lang, request.headers.get("accept-language")))


@routes.get("/review/{table_id}")
async def review_page(table_id: str) -> FileResponse:
    return FileResponse(STATIC / "review.html")
