// The table page: a thin client.  The server decides; this page proposes moves,
// asks the server whether each button's move is legal now (and why not), and
// draws the seat's own view.
import { cardEl, isWild, rankIndex, rankOf } from "/static/cards.js";

const $ = (id) => document.getElementById(id);
const tableId = location.pathname.split("/")[2];
const params = new URLSearchParams(location.search);
const storeKey = `canasta:${tableId}`;

let saved = JSON.parse(localStorage.getItem(storeKey) || "null"); // {token, seat, invites}
let ws = null;
let lastSeq = -1;
let state = null;
let rules = null;
let selected = new Set(); // indices into the hand
let staged = []; // groups of card codes laid aside for a composite meld
let stagedIdx = new Set(); // their indices in the hand
let target = null; // rank a group of wild cards joins
let handKey = "";
let checkId = 0;
let checked = {}; // button id -> null (legal) or reason
let retry = 500;

$("rules-link").href = `/t/${tableId}/rules`;

// ------------------------------------------------------------------ joining

async function showJoin() {
  const info = await (await fetch(`/api/tables/${tableId}`)).json();
  $("title").textContent = info.title || "Canasta";
  const invite = params.get("invite");
  const wanted = params.get("seat");
  const sel = $("join-seat");
  sel.innerHTML = "";
  for (const s of info.seats) {
    if (s.kind === "open" || (s.kind === "reserved" && invite && String(s.seat) === wanted)) {
      const o = document.createElement("option");
      o.value = s.seat;
      o.textContent = `Seat ${s.seat}: ${s.name}`;
      sel.appendChild(o);
    }
  }
  if (!sel.options.length) return;
  $("join-name").value = localStorage.getItem("canasta:name") || "";
  $("join").hidden = false;
}

$("btn-join").onclick = async () => {
  const name = $("join-name").value.trim();
  const body = { name, seat: Number($("join-seat").value) };
  if (params.get("invite")) body.invite = params.get("invite");
  const r = await fetch(`/api/tables/${tableId}/join`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const data = await r.json();
  if (!r.ok) { $("join-error").textContent = data.detail || "could not sit down"; return; }
  localStorage.setItem("canasta:name", name);
  saved = { token: data.token, seat: data.seat };
  localStorage.setItem(storeKey, JSON.stringify(saved));
  $("join").hidden = true;
  history.replaceState(null, "", `/t/${tableId}`);
  if (ws) ws.close(); // reconnects with the token
};

// ------------------------------------------------------------------ socket

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  ws = new WebSocket(`${proto}://${location.host}/ws/${tableId}`);
  ws.onopen = () => {
    retry = 500;
    const hello = { type: "hello", seq: lastSeq };
    if (saved && saved.token) hello.token = saved.token;
    ws.send(JSON.stringify(hello));
  };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  ws.onclose = () => {
    $("conn").textContent = "reconnecting…";
    $("conn").className = "down";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

function onMessage(m) {
  if (m.type === "welcome") {
    rules = m.rules;
    $("title").textContent = m.title || "Canasta";
    $("conn").textContent = m.seat >= 0 ? "connected" : "watching";
    $("conn").className = "";
    if (m.seat < 0 && saved && saved.token) { saved = null; }
    $("btn-end").hidden = !(rules.family === "italian" || rules.empty_stock);
    $("btn-open").hidden = rules.family !== "italian";
  } else if (m.type === "state") {
    if (m.seq < lastSeq) return; // stale
    lastSeq = m.seq;
    state = m;
    const b = document.body.dataset;
    Object.assign(b, { seq: m.seq, seat: m.seat, toMove: m.view.to_move, phase: m.view.phase,
      handOver: m.hand_over, hand: m.view.hand_number });
    render();
  } else if (m.type === "check") {
    if (m.id !== checkId) return;
    applyChecks(m.results);
    document.body.dataset.checked = m.id;
  } else if (m.type === "hint") {
    $("hint").textContent = `Hint: ${m.text}  (${m.move})`;
  } else if (m.type === "error") {
    if (m.code === "BAD_TOKEN") { saved = null; localStorage.removeItem(storeKey); ws.close(); return; }
    $("reason").textContent = m.message;
  }
}

// ------------------------------------------------------------------ moves

const groupText = (g) => (g.target ? `${g.target}:` : "") + g.cards.join(" ");

function selectionGroup() {
  const hand = state.view.hand;
  const cards = [...selected].sort((a, b) => a - b).map((i) => hand[i]);
  const wildOnly = cards.length > 0 && cards.every(isWild);
  return { cards, target: wildOnly && target ? target : null };
}

function candidates() {
  const sel = selectionGroup();
  const groups = staged.concat(sel.cards.length ? [sel] : []);
  const c = { "btn-draw": "draw", "btn-ask": "ask", "btn-end": "end", "btn-open": "open",
    "ask-yes": "yes", "ask-no": "no" };
  const rest = staged.map(groupText);
  c["btn-take"] = ("take" + (sel.cards.length ? " " + sel.cards.join(" ") : "") + (rest.length ? " + " + rest.join(" + ") : "")).trim();
  if (groups.length) c["btn-meld"] = "meld " + groups.map(groupText).join(" + ");
  if (sel.cards.length === 1 && !staged.length) c["btn-discard"] = "discard " + sel.cards[0];
  return c;
}

let pending = {};
function requestChecks() {
  if (!state || state.seat < 0) return;
  pending = candidates();
  const ids = Object.keys(pending);
  checkId += 1;
  document.body.dataset.checking = checkId;
  send({ type: "check", id: checkId, moves: ids.map((k) => pending[k]) });
  for (const id of ["btn-draw", "btn-take", "btn-meld", "btn-discard", "btn-ask", "btn-end", "btn-open"]) {
    if (!(id in pending)) setButton(id, id === "btn-discard" ? "select one card to discard" : "select cards to meld");
  }
}

function setButton(id, reason) {
  checked[id] = reason;
  const b = $(id);
  b.disabled = reason !== null;
  b.title = reason === null ? pending[id] || "" : reason;
}

function applyChecks(results) {
  const ids = Object.keys(pending);
  ids.forEach((id, i) => setButton(id, results[i] ? results[i].message : null));
  // the reason worth showing: why the move the selection is building is not allowed
  let why = "";
  if (selected.size || staged.length) {
    const meld = checked["btn-meld"], disc = checked["btn-discard"], take = checked["btn-take"];
    if (meld && (disc === undefined || disc) && (take === undefined || take)) why = "Meld: " + meld;
    if (meld === null || disc === null || take === null) why = "";
    if (selected.size === 1 && disc && meld) why = "Discard: " + disc;
  } else if (state.view.to_move === state.seat && checked["btn-draw"] && checked["btn-draw"] !== null) {
    why = "";
  }
  $("reason").textContent = why;
}

function play(move) {
  $("hint").textContent = "";
  $("reason").textContent = "";
  send({ type: "move", move });
  clearSelection();
}

function clearSelection() {
  selected = new Set();
  staged = [];
  stagedIdx = new Set();
  target = null;
  if (state) { renderHand(); renderSides(); requestChecks(); }
}

for (const [id, build] of Object.entries({ "btn-draw": null, "btn-take": null, "btn-meld": null, "btn-discard": null,
  "btn-ask": null, "btn-end": null, "btn-open": null, "ask-yes": null, "ask-no": null })) {
  void build;
  $(id).onclick = () => { if (pending[id]) play(pending[id]); };
}
$("btn-group").onclick = () => {
  const g = selectionGroup();
  if (!g.cards.length) return;
  staged.push(g);
  for (const i of selected) stagedIdx.add(i);
  selected = new Set();
  target = null;
  renderHand(); renderSides(); requestChecks();
};
$("btn-clear").onclick = clearSelection;
$("btn-undo").onclick = () => send({ type: "undo" });
$("btn-hint").onclick = () => send({ type: "hint" });
$("btn-next").onclick = () => { send({ type: "next_hand" }); $("sheet-modal").hidden = true; };
$("btn-sheet-close").onclick = () => { $("sheet-modal").hidden = true; sheetClosedFor = state ? state.sheet.length : 0; };
$("btn-invite").onclick = showInvite;
$("btn-invite-close").onclick = () => { $("invite-modal").hidden = true; };

function showInvite() {
  const base = `${location.origin}/t/${tableId}`;
  let text = `<p>Share this link: anyone can take an open seat or watch.</p><p><input readonly size="40" value="${base}"></p>`;
  const inv = (saved && saved.invites) || {};
  for (const [seat, link] of Object.entries(inv)) {
    text += `<p>Reserved seat ${seat}: <input readonly size="40" value="${location.origin}${link}"></p>`;
  }
  $("invite-body").innerHTML = text;
  $("invite-modal").hidden = false;
}

// ------------------------------------------------------------------ render

let sheetClosedFor = -1;

function render() {
  const v = state.view;
  const me = state.seat;
  const key = v.hand.join(" ");
  if (key !== handKey) { handKey = key; selected = new Set(); staged = []; stagedIdx = new Set(); target = null; }
  renderPlayers();
  renderCentre();
  renderSides();
  renderHand();
  renderScores();
  const log = $("log");
  log.innerHTML = "";
  for (const line of state.log) { const li = document.createElement("li"); li.textContent = line; log.appendChild(li); }
  log.scrollTop = log.scrollHeight;
  const myTurn = me >= 0 && v.to_move === me && !state.hand_over && state.status === "playing";
  $("btn-undo").disabled = !state.undoable;
  $("btn-undo").title = state.undoable ? "take back your last meld of this turn" : "only melds laid in this turn can be taken back";
  $("btn-hint").disabled = !myTurn;
  $("btn-group").disabled = !myTurn;
  $("ask-modal").hidden = !(myTurn && v.phase === "answer");
  if (state.hand_over && state.sheet.length !== sheetClosedFor) showSheet(); else if (!state.hand_over) $("sheet-modal").hidden = true;
  $("deadline").textContent = state.deadline ? `turn timer: ${Math.max(0, Math.round(state.deadline - Date.now() / 1000))} s` : "";
  if (me >= 0) requestChecks();
}

function sideName(side) {
  const v = state.view;
  const names = v.side_of.map((s, i) => (s === side ? state.players[i].name : null)).filter(Boolean);
  const mine = state.seat >= 0 && v.side_of[state.seat] === side;
  return (mine ? "Your side: " : "") + names.join(" & ");
}

function renderPlayers() {
  const v = state.view;
  const box = $("players");
  box.innerHTML = "";
  state.players.forEach((p, i) => {
    const d = document.createElement("div");
    d.className = "player" + (v.to_move === i && !state.hand_over ? " to-move" : "");
    d.dataset.seat = i;
    const kind = p.kind === "bot" ? `<span class="badge">${p.level} bot</span>` : p.kind === "open" ? '<span class="badge">open seat</span>' : p.kind === "reserved" ? '<span class="badge">reserved</span>' : "";
    const dot = p.kind === "human" ? `<span class="dot ${p.connected ? "on" : ""}" title="${p.connected ? "connected" : "away"}"></span>` : "";
    const sub = p.bot_playing ? '<span class="badge">a bot is playing</span>' : "";
    d.innerHTML = `<div>${dot}<b></b>${i === state.seat ? " (you)" : ""}${kind}${sub}</div><div class="muted">${v.hand_sizes[i]} cards · minimum ${p.minimum}</div><div class="reds row"></div>`;
    d.querySelector("b").textContent = p.name;
    const reds = d.querySelector(".reds");
    for (const c of v.red_threes[i]) reds.appendChild(cardEl(c, "small"));
    if (i !== state.seat) for (const c of v.known[i]) { const k = cardEl(c, "small"); k.title = "known: picked up with the pile"; k.style.opacity = ".75"; reds.appendChild(k); }
    box.appendChild(d);
  });
}

function renderCentre() {
  const v = state.view;
  const stock = $("stock");
  stock.innerHTML = "";
  if (v.stock_size) stock.appendChild(cardEl("??"));
  $("stock-count").textContent = `stock ${v.stock_size}`;
  const pile = $("pile");
  pile.innerHTML = "";
  if (v.pile.length) pile.appendChild(cardEl(v.pile[v.pile.length - 1]));
  $("pile-info").innerHTML = `pile ${v.pile.length}` + (v.pile_frozen ? ' · <span class="frozen">frozen</span>' : "");
  const notes = $("pile-notes");
  notes.innerHTML = "";
  for (const text of state.pile_notes || []) {
    const li = document.createElement("li");
    li.textContent = text;
    notes.appendChild(li);
  }
  let turn = "";
  if (state.status === "open") turn = "Waiting for players to take the open seats.";
  else if (state.match_over) turn = "The match is over.";
  else if (state.hand_over) turn = "The hand is over.";
  else {
    const who = v.to_move === state.seat ? "Your" : `${state.players[v.to_move].name}'s`;
    const phase = { draw: "draw or take the pile", meld: "meld, then discard", answer: "answer the question", final: "finish" }[v.phase] || v.phase;
    turn = `${who} move: ${phase}.`;
  }
  $("turn").textContent = turn;
}

function renderSides() {
  const v = state.view;
  const box = $("sides");
  box.innerHTML = "";
  const mySide = state.seat >= 0 ? v.side_of[state.seat] : -1;
  v.melds.forEach((side, si) => {
    const p = document.createElement("div");
    p.className = "panel";
    p.dataset.side = si;
    const h = document.createElement("h3");
    h.textContent = sideName(si);
    p.appendChild(h);
    const row = document.createElement("div");
    row.className = "melds";
    const sorted = side.slice().sort((a, b) => rankIndex(natural(a.cards)) - rankIndex(natural(b.cards)));
    for (const m of sorted) {
      const el = document.createElement("div");
      const rank = rankOf(natural(m.cards));
      el.className = "meld" + (m.cards.length >= 7 ? " canasta" : "") + (si === mySide && target === rank ? " target" : "");
      el.dataset.rank = rank;
      for (const c of m.cards) el.appendChild(cardEl(c, "small"));
      if (m.cards.length >= 7) el.title = m.cards.some(isWild) ? "mixed canasta" : "natural canasta";
      if (si === mySide) {
        el.onclick = () => { target = target === rank ? null : rank; renderSides(); requestChecks(); };
        el.ondragover = (e) => e.preventDefault();
        el.ondrop = (e) => { e.preventDefault(); dropOnMeld(e, rank); };
      }
      row.appendChild(el);
    }
    for (const closed of (v.closed[si] || [])) {
      const el = document.createElement("div");
      el.className = "meld canasta";
      el.title = "closed canasta";
      el.appendChild(cardEl(closed[0], "small"));
      el.appendChild(cardEl("??", "small"));
      row.appendChild(el);
    }
    p.appendChild(row);
    box.appendChild(p);
  });
}

function natural(cards) {
  return cards.find((c) => !isWild(c)) || cards[0];
}

function renderHand() {
  const v = state.view;
  const box = $("hand");
  box.innerHTML = "";
  const idx = v.hand.map((c, i) => i).filter((i) => !stagedIdx.has(i));
  idx.sort((a, b) => rankIndex(v.hand[a]) - rankIndex(v.hand[b]) || v.hand[a].localeCompare(v.hand[b]));
  let group = null;
  let rank = null;
  for (const i of idx) {
    const c = v.hand[i];
    if (rankOf(c) !== rank) {
      rank = rankOf(c);
      group = document.createElement("div");
      group.className = "rankgroup";
      group.dataset.rank = rank;
      box.appendChild(group);
    }
    const el = cardEl(c, selected.has(i) ? "selected" : "");
    el.dataset.index = i;
    el.onclick = () => {
      if (selected.has(i)) selected.delete(i); else selected.add(i);
      el.classList.toggle("selected");
      requestChecks();
    };
    el.draggable = true;
    el.ondragstart = (e) => e.dataTransfer.setData("text/plain", String(i));
    group.appendChild(el);
  }
  const st = $("staged");
  st.innerHTML = "";
  for (const g of staged) {
    const d = document.createElement("div");
    d.className = "group";
    d.title = g.target ? `joins the ${g.target} meld` : "a group of the composite meld";
    for (const c of g.cards) d.appendChild(cardEl(c, "small"));
    st.appendChild(d);
  }
}

// drag a card onto the pile to discard it
$("pile").ondragover = (e) => e.preventDefault();
$("pile").ondrop = (e) => {
  e.preventDefault();
  const i = draggedIndex(e);
  if (i !== null) play("discard " + state.view.hand[i]);
};

// drag a card onto one of your side's melds to add it (with the other selected
// cards, when the dragged card is one of them); wild cards go to that meld
function dropOnMeld(e, rank) {
  const i = draggedIndex(e);
  if (i === null) return;
  const idx = selected.has(i) ? [...selected].sort((a, b) => a - b) : [i];
  const cards = idx.map((k) => state.view.hand[k]);
  play("meld " + groupText({ cards, target: cards.some(isWild) ? rank : null }));
}

function draggedIndex(e) {
  const i = Number(e.dataTransfer.getData("text/plain"));
  return state && Number.isInteger(i) && state.view.hand[i] ? i : null;
}

function renderScores() {
  const v = state.view;
  const rows = state.totals.map((t, side) => `<tr><td>${escapeHtml(sideName(side))}</td><td class="num">${t}</td></tr>`).join("");
  $("scores").innerHTML = `<table class="sheet">${rows}</table><p class="muted">Target ${state.target} · hand ${v.hand_number}` +
    (state.seat >= 0 ? ` · your initial meld needs ${state.players[state.seat].minimum}` : "") + "</p>";
}

function escapeHtml(s) {
  return s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}

function showSheet() {
  const hands = state.sheet;
  const last = hands[hands.length - 1];
  const nSides = state.totals.length;
  const head = [...Array(nSides).keys()].map((s) => `<th class="num">${escapeHtml(sideName(s))}</th>`).join("");
  const items = [["meld_points", "Melds"], ["canasta_bonuses", "Canasta bonuses"], ["red_threes", "Red threes"],
    ["going_out", "Going out"], ["five_canasta_bonus", "Five-canasta bonus"], ["cards_in_hand", "Cards left in hand"],
    ["total", "Hand total"]];
  let body = "";
  if (last) {
    for (const [k, label] of items) if (k !== "five_canasta_bonus" || last.scores.some((x) => x[k])) body += `<tr><td>${label}</td>${last.scores.map((s) => `<td class="num">${s[k]}</td>`).join("")}</tr>`;
  }
  let history = "";
  let run = Array(nSides).fill(0);
  for (const h of hands) {
    run = run.map((t, s) => t + h.scores[s].total);
    history += `<tr><td>Hand ${h.hand}</td>${run.map((t) => `<td class="num">${t}</td>`).join("")}</tr>`;
  }
  $("sheet").innerHTML = `<table class="sheet"><tr><th></th>${head}</tr>${body}</table><h3>Running totals</h3><table class="sheet"><tr><th></th>${head}</tr>${history}</table>` +
    (last ? `<p class="muted">${escapeHtml(last.end_reason || "")}</p>` : "");
  $("sheet-title").textContent = state.match_over ? "The match is over" : `Hand ${last ? last.hand : ""} is over`;
  $("btn-next").hidden = state.match_over || state.seat < 0;
  for (const id of ["record-link", "replay-link"]) $(id).hidden = !state.match_over;
  $("record-link").href = `/api/tables/${tableId}/record`;
  $("replay-link").href = `/replay/${tableId}`;
  $("sheet-modal").hidden = false;
}

setInterval(() => {
  if (state && state.deadline) $("deadline").textContent = `turn timer: ${Math.max(0, Math.round(state.deadline - Date.now() / 1000))} s`;
}, 1000);

if (!saved) showJoin();
connect();
