// Rated play: the lobby's rated panel (a rated table made signed in, the leaderboards' link),
// a player's ratings on their profile (the number, its uncertainty, provisional or the place,
// the history plot the server draws), and the leaderboard page (/leaderboard/POOL).
import { _, languagePicker, lang, ngettext, number, translatePage } from "/static/i18n.js";
import { drawBar, me, post, signedIn } from "/static/account.js";

const $ = (id) => document.getElementById(id);
let labels = {};

async function presetLabels() {
  try {
    const data = await (await fetch(`/api/presets?lang=${encodeURIComponent(lang)}`)).json();
    for (const p of data.presets) labels[p.name] = p.label;
  } catch (e) { labels = {}; }
}
const poolName = (pool) => labels[pool] || pool;
const figure = (r) => _("{rating} ± {sigma}", { rating: number(r.shown), sigma: number(r.sigma) });

function cell(row, text, head = false, cls = "") {
  const c = document.createElement(head ? "th" : "td");
  if (text instanceof Node) c.appendChild(text); else c.textContent = text;
  if (cls) c.className = cls;
  row.appendChild(c);
  return c;
}

// ------------------------------------------------------------------ the lobby
async function lobbyPanel() {
  const box = $("rated-panel");
  await Promise.all([presetLabels(), me().catch(() => null)]);
  const board = await (await fetch("/api/leaderboard/classic-4p")).json();
  const select = $("rated-preset");
  for (const name of board.presets) {
    const o = document.createElement("option");
    o.value = name;
    o.textContent = poolName(name);
    if (name === "classic-4p") o.selected = true;
    select.appendChild(o);
  }
  const show = () => {
    const who = signedIn();
    $("rated-make").hidden = !who;
    $("ranked-row").hidden = !who;
    $("rated-guest").hidden = Boolean(who);
  };
  show();
  new MutationObserver(show).observe(document.body, { attributes: true, attributeFilter: ["data-account"] });
  $("btn-rated").onclick = async () => {
    $("rated-error").textContent = "";
    const r = await post("/api/rated/tables", { preset: select.value });
    const data = await r.json();
    if (!r.ok) { $("rated-error").textContent = data.detail; return; }
    localStorage.setItem(`canasta:${data.table}`, JSON.stringify({ token: data.token, seat: data.seat, invites: data.invites }));
    location.href = `/t/${data.table}`;
  };
  $("btn-ranked").onclick = async () => {
    $("rated-error").textContent = "";
    const r = await post(`/api/ranked/${encodeURIComponent(select.value)}/join`, {});
    const data = await r.json();
    if (!r.ok) { $("rated-error").textContent = data.detail; return; }
    queued = select.value;
    waitFor(data);
  };
  $("btn-unranked").onclick = async () => {
    if (queued) await post(`/api/ranked/${encodeURIComponent(queued)}/leave`, {});
    stopWaiting();
  };
  box.dataset.ready = "1";
}

// ------------------------------------------------------------------ the ranked queue
let queued = null;
let poll = null;

function stopWaiting() {
  queued = null;
  clearTimeout(poll);
  $("ranked-status").textContent = "";
  $("btn-unranked").hidden = true;
  $("btn-ranked").hidden = false;
}

function waitFor(data) {
  clearTimeout(poll);
  if (data.status === "matched") {
    $("ranked-status").textContent = _("Your table is ready");
    localStorage.setItem(`canasta:${data.table}`, JSON.stringify({ token: data.token, seat: data.seat }));
    location.href = `/t/${data.table}`;
    return;
  }
  if (data.status !== "waiting") { stopWaiting(); return; }
  $("btn-ranked").hidden = true;
  $("btn-unranked").hidden = false;
  const waited = number(Math.round(data.waited));
  $("ranked-status").textContent = data.estimate === null
    ? _("Waiting {waited} s · {waiting} of {needed} players in the queue", { waited, waiting: number(data.waiting), needed: number(data.needed) })
    : _("Waiting {waited} s · about {estimate} s more", { waited, estimate: number(Math.round(data.estimate)) });
  poll = setTimeout(async () => {
    if (!queued) return;
    const r = await fetch(`/api/ranked/${encodeURIComponent(queued)}`, { cache: "no-store" });
    if (r.ok) waitFor(await r.json()); else stopWaiting();
  }, 2000);
}

// ------------------------------------------------------------------ a profile
async function profileRatings() {
  const name = decodeURIComponent(location.pathname.split("/")[2] || "");
  const [res] = await Promise.all([fetch(`/api/players/${encodeURIComponent(name)}/ratings`), presetLabels()]);
  if (!res.ok) return;
  const data = await res.json();
  const list = $("ratings");
  $("no-ratings").hidden = data.pools.length > 0;
  for (const p of data.pools) {
    const card = document.createElement("div");
    card.className = "rating-card";
    card.dataset.pool = p.pool;
    const h = document.createElement("h3");
    const a = document.createElement("a");
    a.href = `/leaderboard/${encodeURIComponent(p.pool)}`;
    a.textContent = poolName(p.pool);
    h.appendChild(a);
    const num = document.createElement("p");
    num.className = "figure";
    num.textContent = figure(p);
    const note = document.createElement("p");
    note.className = "muted";
    const games = ngettext("{n} rated game", "{n} rated games", p.games);
    const won = _("{n} won", { n: number(p.wins) });
    const standing = p.provisional
      ? _("provisional until {n} rated games", { n: number(p.provisional_games) })
      : _("place {place} of {count}", { place: number(p.place), count: number(p.of) });
    note.textContent = [games, won, standing].join(" · ");
    if (p.provisional) num.classList.add("provisional");
    const plot = document.createElement("figure");
    plot.innerHTML = p.plot; // drawn by the server from numbers alone
    const svg = plot.querySelector("svg");
    if (svg) svg.setAttribute("aria-label", _("Rating after each rated game"));
    const caption = document.createElement("figcaption");
    caption.className = "muted";
    caption.textContent = _("Rating after each rated game");
    plot.appendChild(caption);
    card.append(h, num, note, plot);
    list.appendChild(card);
  }
  list.dataset.ready = "1";
}

// ------------------------------------------------------------------ a leaderboard
async function leaderboard() {
  translatePage();
  languagePicker($("lang"));
  const pool = decodeURIComponent(location.pathname.split("/")[2] || "classic-4p");
  await Promise.all([presetLabels(), me().catch(() => null)]);
  drawBar($("account-bar"), { onChange: () => { location.reload(); } });
  const res = await fetch(`/api/leaderboard/${encodeURIComponent(pool)}`);
  const data = await res.json();
  if (!res.ok) {
    $("error").textContent = data.detail;
    $("error").hidden = false;
    return;
  }
  const nav = $("pools");
  for (const p of data.pools) {
    const a = document.createElement("a");
    a.href = `/leaderboard/${encodeURIComponent(p)}`;
    a.textContent = poolName(p);
    if (p === pool) a.setAttribute("aria-current", "page");
    nav.appendChild(a);
  }
  $("pool-title").textContent = poolName(pool);
  const heading = _("Leaderboard");
  document.title = `${heading} · ${poolName(pool)}`;
  $("board-note").textContent = _("The rating is the skill the pool is fairly sure of (the mean less three uncertainties); a player is provisional until {n} rated games.", { n: number(data.provisional_games) });
  const table = $("board");
  $("no-rows").hidden = data.rows.length > 0;
  table.hidden = data.rows.length === 0;
  if (data.rows.length) {
    const head = table.insertRow();
    for (const h of ["#", _("Player"), _("Rating"), _("Games"), _("Won")]) cell(head, h, true);
  }
  for (const r of data.rows) {
    const row = table.insertRow();
    row.dataset.player = r.name;
    cell(row, number(r.place));
    const a = document.createElement("a");
    a.href = `/u/${encodeURIComponent(r.name)}`;
    a.textContent = r.name;
    cell(row, a, false, "who");
    const rating = cell(row, figure(r), false, "rating");
    if (r.provisional) {
      const mark = document.createElement("small");
      mark.className = "provisional";
      mark.textContent = _("provisional");
      rating.append(document.createElement("br"), mark);
    }
    cell(row, number(r.games));
    cell(row, number(r.wins));
  }
  document.body.dataset.ready = "1";
}

if ($("rated-panel")) lobbyPanel();
else if ($("ratings")) profileRatings();
else if ($("board")) leaderboard();
