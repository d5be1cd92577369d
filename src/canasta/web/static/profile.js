// A player's profile (/u/NAME): statistics per preset and the games, with their links;
// on one's own profile, the export of everything kept and the deletion of the account.
import { _, languagePicker, number, translatePage } from "/static/i18n.js";
import { tableTitle } from "/static/words.js";
import { drawBar, me, post } from "/static/account.js";

translatePage();
languagePicker(document.getElementById("lang"));
const $ = (id) => document.getElementById(id);
const name = decodeURIComponent(location.pathname.split("/")[2] || "");

function cell(row, text, head = false) {
  const c = document.createElement(head ? "th" : "td");
  c.textContent = text;
  row.appendChild(c);
}

const shown = (v) => (v === null || v === undefined ? "–" : number(v));

// one column a preset, one row a figure: narrow enough for a phone with two or three presets
function showStats(stats) {
  const table = $("stats");
  const presets = Object.keys(stats);
  $("no-stats").hidden = presets.length > 0;
  $("stats-panel").querySelector(".scroll-x").hidden = presets.length === 0;
  const head = table.insertRow();
  cell(head, _("Rules"), true);
  for (const p of presets) cell(head, p, true);
  const rows = [[_("Games"), "games"], [_("Won"), "won"], [_("Hands"), "hands"], [_("Hands won"), "hands_won"],
    [_("Points per hand"), "points_per_hand"], [_("Canastas per hand"), "canastas_per_hand"],
    [_("Going out per hand"), "going_out_per_hand"], [_("Seconds per move"), "seconds_per_move"]];
  for (const [label, key] of rows) {
    const row = table.insertRow();
    cell(row, label, true);
    for (const p of presets) cell(row, shown(stats[p][key]));
  }
}

function link(parent, href, text) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  parent.append(" ", a);
}

function showGames(games) {
  const list = $("games");
  $("no-games").hidden = games.length > 0;
  for (const g of games) {
    const li = document.createElement("li");
    const when = new Date(g.updated * 1000).toLocaleDateString(document.documentElement.lang);
    const title = tableTitle(g.title, g.host);
    li.append(`${when} · ${g.preset} · ${title}`);
    if (g.status === "finished") {
      const result = g.won ? _("won") : _("lost");
      li.append(` · ${result} · ${(g.totals || []).map(number).join(" – ")}`);
      link(li, g.replay, _("replay"));
      link(li, g.record, _("record"));
      link(li, g.review, _("review"));
    } else {
      link(li, g.link, _("open the table"));
    }
    list.appendChild(li);
  }
}

async function load() {
  const who = me().catch(() => null);
  const res = await fetch(`/api/players/${encodeURIComponent(name)}`);
  await who;
  drawBar($("account-bar"), { onChange: () => { location.reload(); } });
  const data = await res.json();
  if (!res.ok) {
    $("error").textContent = data.detail;
    $("error").hidden = false;
    return;
  }
  $("who").textContent = data.name;
  document.title = data.name;
  $("since").textContent = _("Playing since {date}", { date: new Date(data.created * 1000).toLocaleDateString(document.documentElement.lang) });
  showStats(data.stats);
  showGames(data.games);
  const account = await who;
  if (account && account.name === data.name) $("own").hidden = false;
}

$("delete").onclick = async () => {
  const res = await post("/api/account/delete", { password: $("delete-password").value });
  if (res.ok) { location.href = "/"; return; }
  $("error").textContent = (await res.json()).detail;
  $("error").hidden = false;
};

load();
