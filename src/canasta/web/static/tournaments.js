// Duplicate tournaments (/tournaments): the list and a director's form; one tournament
// (/tournaments/ID): entering and withdrawing, the director's actions, the player's own table,
// the tables of the round (no cards), the standings as boards finish, the final table with each
// board's record, the proof of the deals and the director's log.  It reads the tournament again
// every second and a half while it runs.
import { _, languagePicker, lang, ngettext, number, translatePage } from "/static/i18n.js";
import { drawBar, me, post, signedIn } from "/static/account.js";
import { drawPlay } from "/static/tournament_play.js";

const $ = (id) => document.getElementById(id);
const tid = (/^\/tournaments\/([A-Za-z0-9]{6,32})$/.exec(location.pathname) || [])[1] || null;
let labels = {};
let shown = null;
let timer = null;

const FORMS = { swiss: () => _("Swiss pairs"), duplicate: () => _("Duplicate pairs") };
const SCORINGS = { matchpoints: () => _("Matchpoints"), vp: () => _("Victory points") };
const STATUS = { registering: () => _("registering"), running: () => _("running"), finished: () => _("finished") };
const ACTIONS = {
  create: () => _("created"), start: () => _("started"), pause: () => _("paused"), resume: () => _("resumed"),
  bots: () => _("added bots"), adjust: () => _("adjusted a score"), withdraw: () => _("withdrew"),
};

function cell(row, text, head = false) {
  const c = document.createElement(head ? "th" : "td");
  if (text instanceof Node) c.appendChild(text); else c.textContent = text;
  row.appendChild(c);
  return c;
}

function fill(table, heads, rows) {
  table.innerHTML = "";
  const h = table.insertRow();
  for (const x of heads) cell(h, x, true);
  for (const r of rows) {
    const tr = table.insertRow();
    for (const x of r) cell(tr, x);
  }
}

function showError(box, text) {
  box.textContent = text || "";
  box.hidden = !text;
}

async function act(path, body = {}) {
  showError($("action-error"), "");
  const r = await post(path, body);
  const data = await r.json().catch(() => ({}));
  if (!r.ok) showError($("action-error"), data.detail || String(r.status));
  await refresh();
  return r.ok;
}

// ------------------------------------------------------------------ the list
async function listView() {
  $("list-view").hidden = false;
  const data = await (await fetch("/api/tournaments")).json();
  const select = $("t-preset");
  for (const name of data.presets) {
    const o = document.createElement("option");
    o.value = name;
    o.textContent = labels[name] || name;
    if (name === "classic-4p") o.selected = true;
    select.appendChild(o);
  }
  const who = signedIn();
  $("make-form").hidden = !who;
  $("make-guest").hidden = Boolean(who);
  const list = $("list");
  list.innerHTML = "";
  for (const t of data.tournaments) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `/tournaments/${t.id}`;
    a.textContent = t.name;
    li.append(a, ` (${(STATUS[t.status] || (() => t.status))()})`);
    list.appendChild(li);
  }
  $("none").hidden = data.tournaments.length > 0;
  $("btn-make").onclick = async () => {
    const body = {
      name: $("t-name").value, form: $("t-form").value, rounds: Number($("t-rounds").value),
      hands: Number($("t-hands").value), preset: select.value, scoring: $("t-scoring").value,
      entry: $("t-entry").value, turn_seconds: Number($("t-turn").value),
      round_minutes: $("t-round-minutes").value ? Number($("t-round-minutes").value) : null,
    };
    const r = await post("/api/tournaments", body);
    const made = await r.json();
    if (!r.ok) { showError($("error"), made.detail); return; }
    location.href = made.link;
  };
}

// ------------------------------------------------------------------ one tournament
function summary(t) {
  const s = t.settings;
  const rounds = ngettext("{n} round", "{n} rounds", s.rounds);
  const hands = ngettext("{n} hand a round", "{n} hands a round", s.hands);
  const text = _("{form}, {rounds}, {hands}, {rules}, {scoring}; director {director}", {
    form: FORMS[s.form](), rounds, hands, rules: labels[s.preset] || s.preset, scoring: SCORINGS[s.scoring](),
    director: t.director,
  });
  return s.round_minutes ? `${text} · ${ngettext("at most {n} minute a round", "at most {n} minutes a round", s.round_minutes)}` : text;
}

function status(t) {
  if (t.status === "registering") return _("Registering: {n} entries", { n: number(t.entries.length) });
  if (t.status === "finished") return _("Finished");
  let text = _("Round {round} of {rounds}, board {board}", {
    round: number(t.round), rounds: number(t.settings.rounds), board: number(t.board) });
  if (t.round_ends) { // the round's time limit: no board of it dealt after it
    text += " · " + (Date.now() / 1000 < t.round_ends
      ? _("no board dealt after {time}", { time: new Date(t.round_ends * 1000).toLocaleTimeString(document.documentElement.lang) })
      : _("time is up: the round ends with the boards in play"));
  }
  return t.paused ? `${text} · ${_("paused by the director")}` : text;
}

function pairName(t, n) {
  const p = (t.partnerships || []).find((x) => x.pair === n);
  return p ? `${n}. ${p.name}` : String(n);
}

function drawMine(t) {
  const box = $("my-table");
  const m = t.me;
  box.hidden = !m;
  if (!m) return;
  $("my-where").textContent = m.finished
    ? _("Table {table}, board {board}: your table has finished it; the next board is dealt when every table has.", { table: number(m.table), board: number(m.board) })
    : _("Table {table}, board {board}, seat {seat}", { table: number(m.table), board: number(m.board), seat: number(m.seat + 1) });
  drawPlay(m, tid, act); // your hand, your picks and what you may do with them (tournament_play.js)
  const pile = m.view && m.view.pile.length ? m.view.pile[m.view.pile.length - 1] : "—";
  $("my-pile").textContent = m.view ? _("Top of the pile: {card}", { card: pile }) : "";
  const melds = $("my-melds");
  melds.innerHTML = "";
  if (m.view) {
    m.view.melds.forEach((side, i) => {
      const line = document.createElement("p");
      line.className = "muted";
      const who = i === 0 ? _("North–South") : _("East–West");
      line.textContent = `${who} · ${_("Melds")}: ` + (side.length ? side.map((x) => x.cards.join(" ")).join(" | ") : "—");
      melds.appendChild(line);
    });
  }
  $("btn-move").onclick = () => act(`/api/tournaments/${tid}/move`, { move: $("move-text").value });
}

function drawTables(t) {
  $("tables-panel").hidden = !(t.tables && t.tables.length);
  fill($("tables"), [_("Table"), _("North–South"), _("East–West"), _("Boards played"), _("Moves")],
    (t.tables || []).map((x) => [number(x.table), pairName(t, x.ns), pairName(t, x.ew), number(x.boards_done), number(x.moves)]));
}

function drawStandings(t) {
  const rows = t.standings || [];
  $("standings-panel").hidden = rows.length === 0;
  const vp = t.settings.scoring === "vp";
  fill($("standings"), [_("Place"), _("Partnership"), vp ? _("Victory points") : _("Score (%)"), _("Matchpoints"), _("Result"), _("Boards")],
    rows.map((s) => [s.place === null ? "*" : number(s.place), pairName(t, s.pair), number(s.score),
      `${number(s.matchpoints)}/${number(s.tops)}`, number(s.net), number(s.boards)]));
}

function drawFinal(t) {
  const rows = t.final || [];
  $("final-panel").hidden = rows.length === 0;
  fill($("final"), [_("Partnership"), _("Round"), _("Board"), _("Table"), _("Direction"), _("Opponents"), _("Score"), _("Result"), _("Matchpoints"), _("Record")],
    rows.map((x) => {
      const a = document.createElement("span");
      const where = `${x.round}/${x.table}/${x.board}`;
      const replay = document.createElement("a");
      replay.href = `/tournaments/${tid}/replay/${where}`;
      replay.textContent = _("replay");
      const rec = document.createElement("a");
      rec.href = `/api/tournaments/${tid}/boards/${where}/record`;
      rec.textContent = _("record");
      const review = document.createElement("a"); // the partnership's first seat: North (0) or East (1)
      review.href = `/tournaments/${tid}/review/${where}?seat=${x.direction === "NS" ? 0 : 1}`;
      review.textContent = _("review");
      a.append(replay, " · ", review, " · ", rec);
      return [pairName(t, x.pair) + (x.stand_in ? " *" : ""), number(x.round), number(x.board), number(x.table),
        x.direction === "NS" ? _("North–South") : _("East–West"), pairName(t, x.opponents), number(x.score),
        number(x.net), x.matchpoints === null ? "" : number(x.matchpoints), a];
    }));
}

function drawProof(t) {
  const rows = (t.proof ? t.proof.rounds : t.commitments.map((c, i) => ({ round: i + 1, commitment: c })));
  fill($("proof"), [_("Round"), _("Commitment (SHA-256)"), _("Secret")],
    rows.map((r) => [number(r.round), r.commitment, r.secret || _("revealed when the round is over")]));
}

async function drawAudit() {
  const data = await (await fetch(`/api/tournaments/${tid}/audit`)).json();
  const list = $("audit");
  list.innerHTML = "";
  for (const e of data.audit) {
    const li = document.createElement("li");
    const when = new Date(e.at * 1000).toLocaleTimeString(lang.replace("_", "-"));
    let text = `${when} ${e.actor}: ${(ACTIONS[e.action] || (() => e.action))()}`;
    if (e.action === "adjust") text += ` ${pairName(shown, e.detail.pair)} ${number(e.detail.points)} (${e.detail.reason})`;
    li.textContent = text;
    list.appendChild(li);
  }
}

async function refresh() {
  // the whole tournament when its document moved on since the last whole read, else what moves
  // between two of its changes (the tables' progress, your seat) over what was read before
  const known = shown && shown.id === tid ? shown.doc : null;
  const r = await fetch(`/api/tournaments/${tid}?lang=${encodeURIComponent(lang)}&known=${known}`, { cache: "no-store" });
  const got = await r.json();
  if (!r.ok) { showError($("error"), got.detail); return; }
  const moved = !got.same;
  const t = got.same ? { ...shown, ...got } : got;
  shown = t;
  $("title").textContent = t.name;
  document.title = t.name;
  $("summary").textContent = summary(t);
  $("status").textContent = status(t);
  const who = signedIn();
  $("entry-row").hidden = !who || t.status === "finished";
  $("btn-enter").hidden = t.entered;
  $("partner-label").hidden = t.entered || t.status !== "registering" || t.settings.entry !== "pairs" || !t.settings.preset.endsWith("4p");
  $("btn-withdraw").hidden = !t.entered;
  $("director").hidden = !t.is_director || t.status === "finished";
  $("btn-start").hidden = t.status !== "registering";
  $("btn-bots").hidden = t.status !== "registering";
  $("btn-pause").hidden = t.status !== "running" || t.paused;
  $("btn-resume").hidden = t.status !== "running" || !t.paused;
  const list = $("entries");
  list.innerHTML = "";
  for (const e of (t.partnerships || t.entries)) {
    const li = document.createElement("li");
    li.textContent = e.pair ? `${pairName(t, e.pair)}${e.stand_in ? " *" : ""}` : e.name;
    list.appendChild(li);
  }
  drawMine(t);
  drawTables(t);
  drawStandings(t);
  drawFinal(t);
  drawProof(t);
  if (moved) await drawAudit(); // the director's log changes with the document only
  document.body.dataset.status = t.status;
  document.body.dataset.seq = String(t.seq);
  clearTimeout(timer);
  if (t.status !== "finished") timer = setTimeout(refresh, 1500);
}

async function oneView() {
  $("one-view").hidden = false;
  $("btn-enter").onclick = () => act(`/api/tournaments/${tid}/enter`, $("partner-label").hidden ? {} : { partner: $("partner").value });
  $("btn-withdraw").onclick = () => act(`/api/tournaments/${tid}/withdraw`);
  $("btn-bots").onclick = () => act(`/api/tournaments/${tid}/director/bots`, { count: Number($("bot-count").value), level: "basic" });
  $("btn-start").onclick = () => act(`/api/tournaments/${tid}/director/start`);
  $("btn-pause").onclick = () => act(`/api/tournaments/${tid}/director/pause`);
  $("btn-resume").onclick = () => act(`/api/tournaments/${tid}/director/resume`);
  $("btn-adjust").onclick = () => act(`/api/tournaments/${tid}/director/adjust`, {
    pair: Number($("adj-pair").value), points: Number($("adj-points").value), reason: $("adj-reason").value });
  await refresh();
}

async function main() {
  translatePage();
  languagePicker($("lang"));
  await me().catch(() => null);
  drawBar($("account-bar"), { onChange: () => { location.reload(); } });
  try {
    const data = await (await fetch(`/api/presets?lang=${encodeURIComponent(lang)}`)).json();
    for (const p of data.presets) labels[p.name] = p.label;
  } catch (e) { labels = {}; }
  if (tid) await oneView(); else await listView();
  document.body.dataset.ready = "1";
}

main();
