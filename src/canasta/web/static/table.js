// The table page: a thin client.  The server decides; this page proposes moves,
// asks the server whether each button's move is legal now (and why not), and
// draws the seat's own view as a card table: your hand at the bottom, the others
// around it, the stock and the pile (the pozzo in Italian) in the middle, each
// side's melds with their count and canasta status in words.  Every card that
// moves is flown from where it was to where it went, found by comparing each
// state with the one before.
import { _, endReasonTexts, lang, languagePicker, ngettext, number, pgettext, translatePage } from "/static/i18n.js";
import { cardEl, cardName, cardText, isWild, prettyCards, rankIndex, rankOf } from "/static/cards.js";
import { RANK_WORDS, handPhrase, laidOutPhrase, levelName, pileNoteText, pilePhrase, seatName, tableNoteText, tableTitle } from "/static/words.js";
import { me as whoIsSignedIn, post, profileLink } from "/static/account.js";
import { initPause, pauseRefused, renderPause } from "/static/pause.js";

translatePage();
languagePicker($id("lang"));

function $id(id) { return document.getElementById(id); }
const $ = $id;
const tableId = location.pathname.split("/")[2];
const params = new URLSearchParams(location.search);
const storeKey = `canasta:${tableId}`;
const SEED_KEY = "canasta:seed";
const PACE_KEY = "canasta:pace";
const SEED_RE = /^[A-Za-z0-9_-]{1,64}$/;

let saved = JSON.parse(localStorage.getItem(storeKey) || "null"); // {token, seat, invites}
let ws = null;
let lastSeq = -1;
let state = null;
let rules = null;
let title = "";
let selected = new Set(); // indices into the hand
let staged = []; // groups of card codes laid aside for a composite meld
let stagedIdx = new Set(); // their indices in the hand
let target = null; // rank a group of wild cards joins
let handKey = "";
let checkId = 0;
let checked = {}; // button id -> null (legal) or reason
let retry = 500;
let fresh = []; // codes of the cards this seat just drew or took (highlighted)
let sheetShownFor = -1; // the score sheet opened by itself once per finished hand
let sheetTimer = null;
let seedSentFor = null; // the next deal this connection sent its seed for
// a move whose saving the server could not confirm ({move, key, tries}): sent again with the same
// key until the server answers with what it stored ("moved") or why not; it is played at most once
let unsureMove = null;
const SOUND_KEY = "canasta:timer-sound";
let noticeSeen = null; // the newest notice this page has shown (null: none yet since it opened)
let noticeTimer = null;
let beepedFor = null; // the deadline the warning beep was played for

$("rules-link").href = `/t/${tableId}/rules?lang=${encodeURIComponent(lang)}`;

// ------------------------------------------------------------------ words

// what the table's family calls its things (canasta.present.family_words, in the welcome): the
// page words the table by these, never by the family's name
// the family's words and shape, as the server's welcome says them (these until it has spoken)
let words = { pile: "pile", hand: "hand", canastas: ["natural", "mixed"], opened: "melded", pile_fanned: 3, wilds: "wild",
  closes_canastas: false, canasta_size: 7 };
// the discards and the end of a hand in the family's words (words.js: pilePhrase, handPhrase)
const handOverTitle = (hand) => handPhrase(words.hand, "over", hand);
const hasView = () => !!state && !!state.view;
const me = () => (state ? state.seat : -1);



const URGENT = 5; // seconds: the timer flashes (and beeps, if asked) in the last ones

/** The turn timer: seconds left, and the share of the turn left (null: no timer runs). */
function timeLeft() {
  if (!state || !state.deadline) return null;
  const left = Math.max(0, state.deadline - Date.now() / 1000);
  const whole = state.turn_seconds || left || 1;
  return { left, share: Math.min(1, left / whole), urgent: left <= Math.min(URGENT, whole / 3) };
}

/** Draw the timer on the plate of the player to move (and the dock, if it is this seat's turn). */
function updateTimer() {
  const t = timeLeft();
  const plates = [...document.querySelectorAll(".player.to-move"), $("dock")];
  for (const el of plates) {
    const bar = el.querySelector(".timer");
    const on = !!t && (el.id !== "dock" || (state.view && state.view.to_move === state.seat));
    if (bar) { bar.hidden = !on; if (on) bar.firstChild.style.width = `${(t.share * 100).toFixed(1)}%`; }
    el.classList.toggle("urgent", on && t.urgent);
  }
  document.body.dataset.urgent = t && t.urgent ? "true" : "false";
  if (t && t.urgent && state.view && state.view.to_move === state.seat && beepedFor !== state.deadline) {
    beepedFor = state.deadline;
    if ($("timer-sound").checked) beep();
  }
}

function beep() {
  try {
    const ctx = new AudioContext();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.value = 0.08;
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.18);
    osc.onended = () => ctx.close();
  } catch (e) { /* no sound here */ }
}

$("timer-sound").checked = localStorage.getItem(SOUND_KEY) === "1"; // off unless asked for
$("timer-sound").onchange = () => localStorage.setItem(SOUND_KEY, $("timer-sound").checked ? "1" : "0");

/** A new notice of the server ("time ran out: the computer played for Tim"), shown for a while. */
function showNotices() {
  const list = state.notices || [];
  const newest = list.length ? list[list.length - 1] : null;
  if (!newest) return;
  document.body.dataset.notice = newest.id;
  if (noticeSeen !== null && newest.id <= noticeSeen) return;
  const fresh = noticeSeen !== null || state.seq > 0; // one already there on opening the page is shown too
  noticeSeen = newest.id;
  if (!fresh) return;
  const box = $("notice");
  box.textContent = newest.text;
  box.dataset.kind = newest.kind;
  box.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

function timerText() {
  return ngettext("turn timer: {n} second", "turn timer: {n} seconds", Math.max(0, Math.round(state.deadline - Date.now() / 1000)));
}

/** The header's countdown: short ("8 s", the bars on the plates show the rest), its words in the tooltip. */
function showDeadline() {
  const el = $("deadline");
  if (!state.deadline) { el.textContent = ""; el.removeAttribute("title"); el.removeAttribute("aria-label"); return; }
  el.textContent = _("{seconds} s", { seconds: Math.max(0, Math.round(state.deadline - Date.now() / 1000)) });
  el.title = timerText();
  el.setAttribute("aria-label", timerText());
}

function playerName(seat) {
  const p = state && state.players[seat];
  return p ? seatName(p.name, p.kind) : "?";
}

// ------------------------------------------------------------------ joining

async function showJoin() {
  const info = await (await fetch(`/api/tables/${tableId}`)).json();
  $("title").textContent = tableTitle(info.title, info.host) || _("Canasta");
  const invite = params.get("invite");
  const wanted = params.get("seat");
  const sel = $("join-seat");
  sel.innerHTML = "";
  for (const s of info.seats) {
    if (s.kind === "open" || (s.kind === "reserved" && invite && String(s.seat) === wanted)) {
      const o = document.createElement("option");
      o.value = s.seat;
      o.textContent = s.kind === "reserved" ? _("the seat kept for {name}", { name: s.name }) : _("the open seat ({name})", { name: seatName(s.name, s.kind) });
      sel.appendChild(o);
    }
  }
  if (!sel.options.length) return;
  $("join-name").value = localStorage.getItem("canasta:name") || "";
  const account = await whoAmI;
  if (account) { // signed in: the seat is taken under the account's name
    $("join-name").value = account.name;
    $("join-name").readOnly = true;
  }
  $("join").hidden = false;
}

// who you are, lightly, in the header's menu: your name, a link to your profile (a guest: nothing)
const whoAmI = whoIsSignedIn().catch(() => null);
whoAmI.then((account) => {
  if (!account) return;
  const a = $("me-link");
  a.href = profileLink(account.name);
  a.textContent = account.name;
  a.hidden = false;
  document.body.dataset.account = account.name;
});

$("btn-join").onclick = async () => {
  const name = $("join-name").value.trim();
  const body = { name, seat: Number($("join-seat").value) };
  if (params.get("invite")) body.invite = params.get("invite");
  const r = await post(`/api/tables/${tableId}/join`, body); // with the CSRF token: signed in, the account's seat
  const data = await r.json();
  if (!r.ok) { $("join-error").textContent = data.detail || _("could not sit down"); return; }
  if (!$("join-name").readOnly) localStorage.setItem("canasta:name", name);
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
    seedSentFor = null;
    checkSent = null; // a check lost with the old socket: the state after the hello asks again
    ordersSent = 0; // so are orders in flight: the state after the hello has the one the server kept
    // no client seed here: it is sent once the next deal's commitment is on screen (maybeSendSeed)
    const hello = { type: "hello", seq: lastSeq, lang };
    if (saved && saved.token) hello.token = saved.token;
    ws.send(JSON.stringify(hello));
  };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  ws.onclose = () => {
    $("conn").textContent = _("reconnecting…");
    $("conn").className = "down";
    // away once the socket has been closed for a moment: a dropped socket that is back at once
    // (a slow page told to reconnect, a blip) leaves the buttons as they are
    clearTimeout(awayTimer);
    awayTimer = setTimeout(() => setAway(true), AWAY_AFTER_MS);
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

// While the server is away (the socket closed, reconnecting), every button that would send something is
// disabled and says why; once the server answers again each is as it was, and the next state and
// check set them anew.
const AWAY_AFTER_MS = 1000;
let awayTimer = null;
const AWAY_BUTTONS = "#buttons button, #banner button, #sheet-modal button, #ask-modal button, #chat-say button, #pause-bar button";
function setAway(away) {
  if (away === (document.body.dataset.away === "true")) return;
  document.body.dataset.away = String(away);
  for (const b of document.querySelectorAll(AWAY_BUTTONS)) {
    if (away) {
      b.dataset.awayWas = JSON.stringify([b.disabled, b.title]);
      b.disabled = true;
      b.title = _("the server is away: reconnecting…");
    } else if (b.dataset.awayWas) {
      [b.disabled, b.title] = JSON.parse(b.dataset.awayWas);
      delete b.dataset.awayWas;
    }
  }
  $("reason").textContent = away ? _("The server is away, so no move can be made: reconnecting… Your hand is kept.") : "";
}

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}
initPause({ send, playerName, table: tableId, token: () => (saved ? saved.token : null) });

function onMessage(m) {
  if (m.type === "welcome") {
    clearTimeout(awayTimer);
    setAway(false);
    rules = m.rules;
    if (m.words) words = m.words;
    title = m.title || "";
    $("title").textContent = tableTitle(m.title, m.host) || _("Canasta");
    baseTitle = tableTitle(m.title, m.host) || _("Canasta table");
    $("conn").textContent = m.seat >= 0 ? _("connected") : _("watching");
    $("conn").className = "";
    if (m.seat < 0 && saved && saved.token) { saved = null; }
    $("btn-take").textContent = pilePhrase(words.pile, "take");
    $("pile").setAttribute("aria-label", pilePhrase(words.pile, "label"));
    $("btn-open").hidden = !rules.opening_draws_one;
    document.body.dataset.family = rules.family;
  } else if (m.type === "state") {
    if (m.seq < lastSeq) return; // stale
    lastSeq = m.seq;
    const prev = state;
    const before = prev && prev.view && m.view ? snapshot() : null;
    state = m;
    const v = m.view;
    const b = document.body.dataset;
    Object.assign(b, { seq: m.seq, seat: m.seat, handOver: m.hand_over, matchOver: m.match_over,
      dealt: v ? "true" : "false" });
    if (v) Object.assign(b, { toMove: v.to_move, phase: v.phase, hand: v.hand_number, stock: v.stock_size });
    trackFresh(prev, m);
    takeOrder(m.order);
    render();
    if (before) animate(prev, m, before);
    maybeSendSeed();
  } else if (m.type === "check") {
    checkSent = null;
    if (m.id !== checkId) { sendCheck(); return; } // the picked cards or the table changed meanwhile: ask again
    applyChecks(m);
    document.body.dataset.checked = m.id;
  } else if (m.type === "order") {
    ordersSent = Math.max(0, ordersSent - 1);
    takeOrder(m.order);
    document.body.dataset.orderSaved = `${m.order.sort}:${(m.order.cards || []).join(" ")}`;
    if (hasView()) renderHand();
  } else if (m.type === "hint") {
    // the move in words, and in notation (as the command line and the bot protocol write it)
    $("hint").textContent = _("Hint: {text}", { text: prettyCards(m.text || m.move) }) + "  (";
    const code = document.createElement("code");
    code.className = "notation";
    code.textContent = m.move;
    $("hint").append(code, ")");
  } else if (m.type === "moved") {
    if (unsureMove && m.key === unsureMove.key) { unsureMove = null; $("reason").textContent = ""; }
  } else if (m.type === "error") {
    if (m.ref === "move" && m.code === "UNKNOWN" && m.key) {
      const tries = unsureMove && unsureMove.key === m.key ? unsureMove.tries + 1 : 1;
      unsureMove = tries <= 20 ? { move: m.move, key: m.key, tries } : null;
      if (unsureMove) setTimeout(resendUnsure, 2000);
    } else if (m.ref === "move") {
      unsureMove = null;
    }
    if (m.code === "BAD_TOKEN") { saved = null; localStorage.removeItem(storeKey); ws.close(); return; }
    if (m.ref === "seed") { $("fair-error").textContent = m.message; return; }
    if (m.ref === "pace") return; // a server without pace control: the select stays hidden
    if (m.ref === "order") { ordersSent = Math.max(0, ordersSent - 1); return; } // kept on this page
    if (m.ref === "chat") { $("chat-error").textContent = m.message; return; }
    if (m.ref === "pause") { pauseRefused(m.message); return; }
    if (m.ref === "check" && m.code === "TOO_FAST") { checkSent = null; setTimeout(sendCheck, 300); return; }
    $("reason").textContent = m.message;
  }
}

// ------------------------------------------------------------------ fair deals

function randomSeed() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}

function ownSeed() {
  const s = localStorage.getItem(SEED_KEY) || "";
  return SEED_RE.test(s) ? s : null;
}

function clientSeed() {
  return ownSeed() || randomSeed();
}

// The next deal's commitment, on screen before this page's seed for that deal is sent:
// the server fixed the deal's secret before it could see the seed.
function renderCommit() {
  const nd = state.next_deal;
  const el = $("commit");
  el.hidden = !nd;
  if (!nd) { el.textContent = ""; delete document.body.dataset.commitShown; return; }
  el.textContent = _("hand {hand} committed: {fingerprint}", { hand: nd.hand, fingerprint: nd.commitment.slice(0, 12) + "…" });
  el.title = nd.commitment;
  document.body.dataset.commitShown = `${nd.hand}:${nd.commitment}`;
}

function maybeSendSeed() {
  if (!state || state.seat < 0 || !state.next_deal || state.my_seed) return;
  const key = `${state.next_deal.hand}:${state.next_deal.commitment}`;
  if (seedSentFor === key || document.body.dataset.commitShown !== key) return;
  seedSentFor = key;
  send({ type: "seed", seed: clientSeed() });
}

$("btn-fair").onclick = () => { renderFair(); $("fair-error").textContent = ""; $("fair-modal").hidden = false; };
$("btn-fair-close").onclick = () => { $("fair-modal").hidden = true; };
// once a person opens or closes the notes on the game, their choice stays
$("table-notes-box").querySelector("summary").onclick = () => { tableNotesToggled = true; };
$("fair-seed").value = ownSeed() || "";
$("btn-fair-save").onclick = () => {
  const s = $("fair-seed").value.trim();
  if (s && !SEED_RE.test(s)) { $("fair-error").textContent = _("a seed is 1 to 64 letters, digits, _ or -"); return; }
  if (s) localStorage.setItem(SEED_KEY, s); else localStorage.removeItem(SEED_KEY);
  $("fair-error").textContent = "";
  renderFair();
};

function seedsText(seeds) {
  if (!seeds) return "";
  const entries = Array.isArray(seeds) ? seeds.map((s, i) => [i, s]) : Object.entries(seeds);
  return entries.map(([k, s]) => `${/^\d+$/.test(String(k)) ? playerName(Number(k)) : k}: ${s === null ? _("none") : s}`).join(" · ");
}

function hexLine(label, value) {
  const p = document.createElement("p");
  p.innerHTML = "<span></span> <code class=\"hex\"></code>";
  p.firstChild.textContent = label;
  p.lastChild.textContent = value;
  return p;
}

function renderFair() {
  const cur = $("fair-current");
  cur.innerHTML = "";
  if (!state) return;
  const deal = state.deal || (state.commitment && state.view ? { hand: state.view.hand_number, commitment: state.commitment } : null);
  if (deal) cur.appendChild(hexLine(_("This hand (hand {hand}) was committed to as", { hand: deal.hand }), deal.commitment));
  if (state.next_deal) {
    cur.appendChild(hexLine(_("The next hand (hand {hand}) is committed to as", { hand: state.next_deal.hand }), state.next_deal.commitment));
    cur.appendChild(hexLine(_("Your seed for it:"), state.my_seed || _("not sent yet")));
  }
  if (!cur.childNodes.length) cur.textContent = _("No commitment has been shown yet.");
  const rev = $("fair-revealed");
  const list = state.revealed || [];
  rev.textContent = list.length ? "" : _("none yet");
  for (const r of list) {
    const d = document.createElement("div");
    d.className = "revealed";
    const h = document.createElement("b");
    h.textContent = _("Hand {hand}", { hand: r.hand });
    d.appendChild(h);
    d.appendChild(hexLine(_("commitment"), r.commitment));
    if (r.secret) {
      d.appendChild(hexLine(_("secret"), r.secret));
      d.appendChild(hexLine(_("players' seeds"), seedsText(r.client_seeds)));
    } else {  // a table dealt from a fixed seed (tests, demonstrations)
      d.appendChild(hexLine(_("fixed seed"), String(r.seed)));
    }
    rev.appendChild(d);
  }
}

// ------------------------------------------------------------------ pace

function showPace() {
  const box = $("pace-box");
  const hasBots = state.players.some((p) => p.kind === "bot" || p.bot_playing);
  box.hidden = !(state.seat >= 0 && state.bot_delay !== undefined && state.bot_delay !== null && hasBots);
  if (box.hidden || document.activeElement === $("pace")) return;
  const sel = $("pace");
  const val = String(state.bot_delay);
  if (![...sel.options].some((o) => o.value === val)) {
    const o = document.createElement("option");
    o.value = val;
    o.textContent = _("{seconds} s", { seconds: Number(val) });
    o.dataset.custom = "1";
    sel.appendChild(o);
  }
  sel.value = val;
}

$("pace").onchange = () => {
  const seconds = Number($("pace").value);
  localStorage.setItem(PACE_KEY, String(seconds));
  send({ type: "pace", seconds });
};

// ------------------------------------------------------------------ moves

const groupText = (g) => (g.target ? `${g.target}:` : "") + g.cards.join(" ");

function selectionGroup() {
  const hand = state.view.hand;
  const cards = [...selected].sort((a, b) => a - b).map((i) => hand[i]);
  const wildOnly = cards.length > 0 && cards.every(isWild);
  return { cards, target: wildOnly && target ? target : null };
}

function hasPartner() {
  const v = state.view;
  return state.seat >= 0 && v.side_of.some((s, i) => i !== state.seat && s === v.side_of[state.seat]);
}

// the buttons each action's move goes to; which move the picked cards make is the server's
// answer (canasta.present.candidates), the same as in every other interface
const ACTION_BUTTONS = { draw: "btn-draw", take: "btn-take", meld: "btn-meld", discard: "btn-discard", ask: "btn-ask",
  end: "btn-end", open: "btn-open", yes: "ask-yes", no: "ask-no" };
const CHECKED_BUTTONS = ["btn-draw", "btn-take", "btn-meld", "btn-discard", "btn-ask", "btn-end", "btn-open"];

function selectionMessage() {
  const sel = selectionGroup();
  return { staged: staged.map((g) => ({ cards: g.cards, target: g.target })), cards: sel.cards, target: sel.target };
}

let pending = {};
let pendingText = {};
let checkSent = null; // the id of the check waiting for its answer: one at a time, the latest asked next
function requestChecks() {
  if (!hasView() || state.seat < 0) return;
  checkId += 1;
  document.body.dataset.checking = checkId;
  if (checkSent === null) sendCheck(); // else asked when the answer in flight comes back
}

function sendCheck() {
  if (!hasView() || state.seat < 0) return;
  checkSent = checkId;
  send({ type: "check", id: checkId, selection: selectionMessage() });
}

function setButton(id, reason) {
  checked[id] = reason;
  const b = $(id);
  b.disabled = reason !== null;
  b.title = reason === null ? (pendingText[id] ? prettyCards(pendingText[id]) : "") : reason; // the move in words, or why not
  if (id === "btn-end") b.hidden = reason !== null; // shown only when the rules let you end the hand now
}

function applyChecks(m) {
  pending = {};
  pendingText = {};
  const results = m.results || [];
  (m.actions || []).forEach((action, i) => {
    const id = ACTION_BUTTONS[action];
    if (!id) return;
    pending[id] = m.moves[i];
    pendingText[id] = (m.texts || [])[i] || "";
  });
  (m.actions || []).forEach((action, i) => {
    const id = ACTION_BUTTONS[action];
    if (id) setButton(id, results[i] ? results[i].message : null);
  });
  for (const id of CHECKED_BUTTONS) {
    if (!(id in pending)) setButton(id, id === "btn-discard" ? _("select one card to discard") : _("select cards to meld"));
  }
  // the reason worth showing: why the move the selection is building is not allowed
  let why = "";
  if (selected.size || staged.length) {
    const meld = checked["btn-meld"], disc = checked["btn-discard"], take = checked["btn-take"];
    if (meld && (disc === undefined || disc) && (take === undefined || take)) why = _("Meld: {reason}", { reason: meld });
    if (meld === null || disc === null || take === null) why = "";
    if (selected.size === 1 && disc && meld) why = _("Discard: {reason}", { reason: disc });
  }
  $("reason").textContent = why;
}

function play(move) {
  $("hint").textContent = "";
  $("reason").textContent = "";
  unsureMove = null;
  send({ type: "move", move, key: randomSeed() }); // the key: this request's own, kept if it is sent again
  clearSelection();
}

function resendUnsure() {
  if (!unsureMove) return;
  if (!ws || ws.readyState !== WebSocket.OPEN) { setTimeout(resendUnsure, 1000); return; }
  send({ type: "move", move: unsureMove.move, key: unsureMove.key });
}

function clearSelection() {
  selected = new Set();
  staged = [];
  stagedIdx = new Set();
  target = null;
  if (hasView()) { renderHand(); renderSides(); requestChecks(); }
}

for (const id of ["btn-draw", "btn-take", "btn-meld", "btn-discard", "btn-ask", "btn-end", "btn-open", "ask-yes", "ask-no"]) {
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
const nextHand = () => { send({ type: "next_hand" }); $("sheet-modal").hidden = true; };
for (const id of ["btn-next", "btn-deal", "btn-deal2"]) $(id).onclick = nextHand;
for (const id of ["btn-rematch", "btn-rematch2"]) $(id).onclick = rematch;
$("btn-sheet-close").onclick = () => { $("sheet-modal").hidden = true; };
for (const id of ["btn-sheet", "btn-sheet2"]) $(id).onclick = () => { if (state) showSheet(); };
$("btn-invite").onclick = showInvite;
$("btn-invite-close").onclick = () => { $("invite-modal").hidden = true; };

function showInvite() {
  const base = `${location.origin}/t/${tableId}`;
  const box = $("invite-body");
  box.innerHTML = "<p></p>";
  box.firstChild.textContent = _("Share this link: anyone can take an open seat or watch.");
  const line = (label, url) => {
    const p = document.createElement("p");
    p.innerHTML = "<span></span><br><input readonly size=\"40\">";
    p.firstChild.textContent = label;
    p.lastChild.value = url;
    box.appendChild(p);
  };
  line(_("The table:"), base);
  const inv = (saved && saved.invites) || {};
  for (const [seat, link] of Object.entries(inv)) line(_("The seat kept for {name}:", { name: playerName(Number(seat)) }), location.origin + link);
  $("invite-modal").hidden = false;
}

async function rematch() {
  const others = state.players.filter((p, i) => i !== state.seat);
  const levels = new Set(others.map((p) => p.level));
  const pace = state.bot_delay ?? (Number(localStorage.getItem(PACE_KEY)) || null);
  if (title === "Quick play" && others.every((p) => p.kind === "bot") && levels.size === 1) {
    const body = { name: localStorage.getItem("canasta:name") || playerName(state.seat), level: [...levels][0],
      preset: rules.name, target: rules.target };
    if (pace !== null) body.bot_delay = pace;
    const r = await post("/api/quick", body);
    const data = await r.json();
    if (r.ok) {
      localStorage.setItem(`canasta:${data.table}`, JSON.stringify({ token: data.token, seat: data.seat, invites: data.invites }));
      location.href = `/t/${data.table}`;
      return;
    }
  }
  if (title !== "Quick play" && saved && saved.token) {
    // a created table: the same seats and rules; each person's seat is kept for them at the
    // rematch, under the seat token this page already holds (the first to ask makes it)
    const r = await post(`/api/tables/${encodeURIComponent(tableId)}/rematch`, { token: saved.token });
    const data = await r.json();
    if (r.ok) {
      localStorage.setItem(`canasta:${data.table}`, JSON.stringify({ token: data.token, seat: data.seat }));
      location.href = `/t/${data.table}`;
      return;
    }
  }
  // back to the lobby, the same table filled in (people are invited again there)
  const q = new URLSearchParams({ preset: rules.name, target: String(rules.target),
    seats: state.players.map((p, i) => (i === state.seat ? "me" : p.kind === "bot" ? `bot:${p.level}` : "open")).join(",") });
  if (pace !== null) q.set("pace", String(pace));
  location.href = `/?${q}#create`;
}

// ------------------------------------------------------------------ seats around the table

/** Where each other seat sits, seen from this seat: play goes to the left, round the top,
 * to the right; with two players the other sits across. */
function layout() {
  const n = state.players.length;
  const base = state.seat >= 0 ? state.seat : 0;
  const ccw = rules && rules.direction === "counter_clockwise";
  const order = []; // the others, in the order they play after this seat
  for (let k = 1; k < n; k++) order.push((base + (ccw ? n - k : k)) % n);
  if (n === 2) return { top: order, left: [], right: [] };
  return { left: [order[0]], top: order.slice(1, -1), right: [order[order.length - 1]] };
}

function sideName(side, short = false) {
  const v = state.view;
  const names = v.side_of.map((s, i) => (s === side && i !== state.seat ? playerName(i) : null)).filter(Boolean);
  if (state.seat >= 0 && v.side_of[state.seat] === side) {
    if (short) return _("Your side");
    return names.length ? _("Your side (you & {names})", { names: names.join(" & ") }) : _("Your side (you)");
  }
  return names.join(" & ");
}

function scoreName(i) {
  if (rules && rules.cutthroat && state.totals.length === state.players.length) {
    return i === state.seat ? _("You") : playerName(i);
  }
  return sideName(i);
}

/** The log as objects {n, seat, move, text}, whichever form the server sends. */
function logEntries() {
  const names = state.players.map((p, i) => [p.name, i]).sort((a, b) => b[0].length - a[0].length);
  return (state.log || []).map((e, k) => {
    if (typeof e === "object" && e !== null && e.kind === "notice") return { n: null, seat: e.seat, move: null, text: e.text, does: null, notice: e.notice };
    if (typeof e === "object" && e !== null) return { n: e.n ?? k + 1, seat: e.seat, move: e.move ?? null, text: e.text ?? String(e.move), does: e.does ?? null };
    const hit = names.find(([name]) => e === name || e.startsWith(name + " ") || e.startsWith(name + ":"));
    return { n: k + 1, seat: hit ? hit[1] : -1, move: null, text: e };
  });
}

/** Each seat's last move of the hand, as the server said it (Table.last_moves), however long ago. */
function lastMoves() {
  const out = {};
  if (state.last_moves) {
    for (const [seat, does] of Object.entries(state.last_moves)) out[Number(seat)] = { seat: Number(seat), does, text: does };
    return out;
  }
  for (const e of logEntries()) if (e.seat >= 0 && !e.notice) out[e.seat] = e;
  return out;
}

/** A move in words, without who played it ("melds 8♥ 8♠ 2♣"), as the server said it. */
function moveWords(e) {
  if (e.does) return prettyCards(e.does);
  const name = playerName(e.seat);
  return prettyCards(e.text.startsWith(name) ? e.text.slice(name.length).replace(/^[:\s]+/, "") : e.text);
}

function renderSeats() {
  const v = state.view;
  const pos = layout();
  const last = lastMoves();
  const mySide = state.seat >= 0 ? v.side_of[state.seat] : -1;
  $("felt").dataset.n = state.players.length;
  for (const [slot, seats] of Object.entries(pos)) {
    const box = $(`slot-${slot}`);
    box.innerHTML = "";
    box.dataset.count = seats.length;
    for (const i of seats) box.appendChild(seatPlate(i, slot, last[i], mySide));
  }
}

function seatPlate(i, slot, last, mySide) {
  const v = state.view;
  const p = state.players[i];
  const d = document.createElement("div");
  const toMove = v.to_move === i && !state.hand_over && state.status === "playing";
  d.className = `player seat-${slot}` + (toMove ? " to-move" : "");
  d.dataset.seat = i;
  const head = document.createElement("div");
  head.className = "plate-head";
  if (p.kind === "human") {
    const dot = document.createElement("span");
    dot.className = "dot" + (p.connected ? " on" : "");
    dot.title = p.connected ? _("connected") : _("away");
    head.appendChild(dot);
  }
  const nm = document.createElement("b");
  nm.className = "name";
  nm.textContent = playerName(i);
  head.appendChild(nm);
  const badge = (text, cls = "") => { const s = document.createElement("span"); s.className = "badge " + cls; s.textContent = text; head.appendChild(s); };
  if (mySide >= 0 && v.side_of[i] === mySide) badge(_("partner"), "partner");
  if (p.kind === "bot") badge(levelName(p.level));
  else if (p.kind === "open") badge(_("open seat"));
  else if (p.kind === "reserved") badge(_("invited"));
  if (p.bot_playing) badge(_("a bot is playing"));
  if (toMove) badge(_("to move"), "turn");
  d.appendChild(head);
  const body = document.createElement("div");
  body.className = "plate-body";
  const backs = document.createElement("div");
  backs.className = "backs";
  const shown = Math.min(v.hand_sizes[i], slot === "top" || state.players.length === 2 ? 8 : 6);
  for (let k = 0; k < shown; k++) backs.appendChild(cardEl("??", "tiny"));
  body.appendChild(backs);
  const count = document.createElement("div");
  count.className = "handcount";
  count.textContent = ngettext("{n} card", "{n} cards", v.hand_sizes[i]);
  body.appendChild(count);
  const known = v.known[i] || [];
  if (known.length) {
    const k = document.createElement("div");
    k.className = "known";
    const cut = new Set(v.cut_cards || []);
    const label = document.createElement("span");
    label.className = "muted";
    label.textContent = known.every((c) => cut.has(c)) ? _("from the cut:") : _("holds:");
    label.title = _("cards known to be in this hand (picked up from the pile, or kept from the cut)");
    k.appendChild(label);
    for (const c of known) k.appendChild(cardEl(c, "small"));
    body.appendChild(k);
  }
  d.appendChild(body);
  const lm = document.createElement("div");
  lm.className = "lastmove";
  lm.dataset.label = _("last:") + " ";
  lm.textContent = last ? moveWords(last) : "";
  d.appendChild(lm);
  if (toMove && state.deadline) {
    const bar = document.createElement("div");
    bar.className = "timer";
    bar.setAttribute("role", "timer");
    bar.appendChild(document.createElement("i"));
    d.appendChild(bar);
  }
  return d;
}

// ------------------------------------------------------------------ centre

function renderCentre() {
  const v = state.view;
  const stock = $("stock");
  stock.innerHTML = "";
  if (v.stock_size) {
    stock.appendChild(cardEl("??"));
    stock.dataset.depth = Math.min(3, Math.ceil(v.stock_size / 20));
  }
  $("stock-count").textContent = ngettext("stock: {n} card", "stock: {n} cards", v.stock_size);
  const pile = $("pile");
  pile.innerHTML = "";
  const down = v.pile.filter((c) => c === "??").length;
  const up = v.pile.filter((c) => c !== "??");
  if (down) {
    // the pozzo's face-down cards, as a squared stack with their number on it
    const stack = document.createElement("div");
    stack.className = "facedown";
    for (let k = 0; k < Math.min(down, 4); k++) stack.appendChild(cardEl("??"));
    const n = document.createElement("span");
    n.className = "count";
    n.textContent = String(down);
    stack.appendChild(n);
    stack.title = ngettext("{n} face-down card", "{n} face-down cards", down);
    pile.appendChild(stack);
  }
  if (up.length) {
    const fan = document.createElement("div");
    fan.className = "fan";
    const show = up.slice(-Math.min(up.length, words.pile_fanned));
    show.forEach((c, k) => fan.appendChild(cardEl(c, k === show.length - 1 ? "top" : "under")));
    pile.appendChild(fan);
  }
  let info = pilePhrase(words.pile, "count", v.pile.length);
  if (down) info += " " + _("({n} face down)", { n: down });
  $("pile-info").innerHTML = "";
  $("pile-info").append(info);
  if (v.pile_frozen) {
    const f = document.createElement("span");
    f.className = "frozen";
    f.textContent = " " + _("FROZEN");
    $("pile-info").appendChild(f);
  }
  const notes = $("pile-notes");
  notes.innerHTML = "";
  // the engine's notes on the pile, by key, in the page's language (English text from an older server)
  const said = state.pile_note_keys ? state.pile_note_keys.filter((n) => n.key !== "empty").map(pileNoteText)
    : (state.pile_notes || []).filter((t) => t !== "empty");
  for (const text of said) {
    const li = document.createElement("li");
    li.textContent = text;
    notes.appendChild(li);
  }
  showTableNotes();
  const cut = $("cut");
  cut.textContent = "";
  if (v.cut_cards && v.cut_cards.length) {
    const holder = v.known.findIndex((k) => v.cut_cards.some((c) => k.includes(c)));
    const mine = holder < 0 && state.seat >= 0 && v.cut_cards.every((c) => v.hand.includes(c));
    const cards = v.cut_cards.map(cardText).join(" ");
    const n = v.cut_cards.length;
    if (holder >= 0) cut.textContent = ngettext("Cut card: {cards}, kept by {name}", "Cut cards: {cards}, kept by {name}", n, { cards, name: playerName(holder) });
    else if (mine) cut.textContent = ngettext("Cut card: {cards}, kept by you", "Cut cards: {cards}, kept by you", n, { cards });
    else cut.textContent = ngettext("Cut card: {cards}", "Cut cards: {cards}", n, { cards });
  }
  let turn = "";
  if (state.status === "open") turn = _("Waiting for players to take the open seats.");
  else if (state.match_over) turn = _("The match is over.");
  else if (state.hand_over) turn = handPhrase(words.hand, "over_now");
  else {
    const mine = v.to_move === state.seat;
    const phase = { draw: pilePhrase(words.pile, "draw"), meld: _("meld, then discard"),
      answer: _("answer the question"), final: _("meld, then the hand ends") }[v.phase] || v.phase;
    turn = mine ? _("Your move: {phase}.", { phase }) : _("{name} to move: {phase}.", { name: playerName(v.to_move), phase });
  }
  $("turn").textContent = turn;
  $("turn").className = v.to_move === state.seat && !state.hand_over && state.status === "playing" ? "mine" : "";
}

// ------------------------------------------------------------------ melds

function natural(cards) {
  return cards.find((c) => !isWild(c)) || cards[0];
}

function wildWords(cards) {
  const twos = cards.filter((c) => rankOf(c) === "2").length;
  const jokers = cards.filter((c) => c === "JK").length;
  if (words.wilds !== "pinelle") {
    const w = twos + jokers;
    return w ? ngettext("{n} wild card", "{n} wild cards", w) : "";
  }
  const parts = [];
  if (twos) parts.push(ngettext("{n} pinella", "{n} pinelle", twos));
  if (jokers) parts.push(ngettext("{n} jolly", "{n} jollies", jokers));
  return parts.join(", ");
}

/** The words a meld's badge shows: its rank, its count and its canasta status. */
function meldWords(cards, closed = false) {
  const n = cards.length;
  const allWild = cards.every(isWild);
  const rank = allWild ? _("wild cards") : RANK_WORDS[rankOf(natural(cards))] || rankOf(natural(cards));
  const wild = wildWords(cards);
  const clean = !cards.some(isWild) || allWild;
  let status = "";
  if (n >= words.canasta_size || closed) {
    const kind = words.canastas[clean ? 0 : 1];
    status = { natural: _("natural canasta"), mixed: _("mixed canasta"), clean: _("clean (pulita)"),
      dirty: _("dirty (sporca)") }[kind] || kind;
  }
  const count = n >= words.canasta_size || closed ? (words.closes_canastas ? _("canasta of {n}", { n }) : ngettext("{n} card", "{n} cards", n)) : `${n}/${words.canasta_size}`;
  return { rank, count, wild, status, clean };
}

// a canasta's kind in one word, for a meld shown as a chip when room is short
const SHORT_STATUS = { natural: pgettext("canasta, short", "natural"), mixed: pgettext("canasta, short", "mixed"),
  clean: pgettext("canasta, short", "clean"), dirty: pgettext("canasta, short", "dirty") };

/** A meld as a chip: its rank, its count (5/7, or the cards of a canasta) and its status, nothing else. */
function meldChip(cards, closed, w) {
  const chip = document.createElement("div");
  chip.className = "meldchip";
  const rank = document.createElement("b");
  rank.textContent = w.rank;
  const count = document.createElement("span");
  count.className = "mcount";
  count.textContent = w.status ? String(cards.length) : `${cards.length}/${words.canasta_size}`;
  chip.append(rank, count);
  if (w.status) {
    const kind = words.canastas[w.clean ? 0 : 1];
    const st = document.createElement("span");
    st.className = "mstatus";
    st.textContent = SHORT_STATUS[kind] || w.status;
    chip.appendChild(st);
  }
  if (closed) { const c = document.createElement("span"); c.className = "mstatus closedword"; c.textContent = _("closed"); chip.appendChild(c); }
  return chip;
}

function meldEl(cards, key, closed = false) {
  const el = document.createElement("div");
  const w = meldWords(cards, closed);
  el.className = "meld" + (w.status ? " canasta " + (w.clean ? "clean" : "dirty") : "") + (closed ? " closed" : "");
  el.dataset.key = key;
  const fan = document.createElement("div");
  fan.className = "meldcards";
  let ordered = cards.slice().sort((a, b) => Number(isWild(a)) - Number(isWild(b)));
  if (closed) ordered = ordered.slice(-3); // a closed canasta is squared up: its last cards show
  for (const c of ordered) fan.appendChild(cardEl(c, "small" + (isWild(c) && !cards.every(isWild) ? " wild" : "")));
  el.appendChild(fan);
  const lab = document.createElement("div");
  lab.className = "meldlabel";
  const line1 = document.createElement("span");
  line1.className = "mrank";
  line1.textContent = `${w.rank} · ${w.count}`;
  lab.appendChild(line1);
  if (w.wild) { const s = document.createElement("span"); s.className = "mwild"; s.textContent = w.wild; lab.appendChild(s); }
  if (w.status) {
    const line = document.createElement("span");
    line.className = "mbadges";
    const s = document.createElement("span");
    s.className = "mstatus";
    s.textContent = w.status;
    line.appendChild(s);
    if (closed) { const c = document.createElement("span"); c.className = "mstatus closedword"; c.textContent = _("closed"); line.appendChild(c); }
    lab.appendChild(line);
  }
  el.appendChild(lab);
  el.appendChild(meldChip(cards, closed, w));
  el.title = [w.rank, w.count, w.wild, w.status, closed ? _("closed") : ""].filter(Boolean).join(", ");
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", el.title);
  return el;
}

function renderSides() {
  const v = state.view;
  const mySide = state.seat >= 0 ? v.side_of[state.seat] : -1;
  const them = $("sides-them");
  const us = $("sides-us");
  them.innerHTML = "";
  us.innerHTML = "";
  const nSides = v.melds.length;
  for (let si = 0; si < nSides; si++) {
    const side = v.melds[si];
    const p = document.createElement("div");
    p.className = "panel sidepanel" + (si === mySide ? " mine" : "");
    p.dataset.side = si;
    const h = document.createElement("h3");
    h.textContent = sideName(si);
    p.appendChild(h);
    const row = document.createElement("div");
    row.className = "melds";
    const reds = [];
    v.side_of.forEach((s, seat) => { if (s === si) reds.push(...v.red_threes[seat]); });
    if (reds.length) {
      const r = document.createElement("div");
      r.className = "meld reds";
      r.dataset.key = `${si}:reds`;
      const fan = document.createElement("div");
      fan.className = "meldcards";
      for (const c of reds) fan.appendChild(cardEl(c, "small"));
      r.appendChild(fan);
      const lab = document.createElement("div");
      lab.className = "meldlabel";
      lab.innerHTML = `<span class="mrank"></span>`;
      lab.firstChild.textContent = laidOutPhrase(words.laid_out, "count", reds.length);
      r.setAttribute("role", "group");
      r.setAttribute("aria-label", laidOutPhrase(words.laid_out, "count", reds.length));
      r.appendChild(lab);
      row.appendChild(r);
    }
    const sorted = side.slice().sort((a, b) => rankIndex(natural(a.cards)) - rankIndex(natural(b.cards)));
    for (const m of sorted) {
      const rank = m.cards.every(isWild) ? "wild" : rankOf(natural(m.cards));
      const el = meldEl(m.cards, `${si}:${rank}`);
      el.dataset.rank = rank;
      if (si === mySide && target === rank) el.classList.add("target");
      if (si === mySide) {
        el.classList.add("own");
        el.onclick = () => { target = target === rank ? null : rank; renderSides(); requestChecks(); };
        // a button for the keyboard: the meld your selected wild cards go to
        el.tabIndex = 0;
        el.setAttribute("role", "button");
        el.setAttribute("aria-pressed", String(target === rank));
        el.setAttribute("aria-label", _("{meld}; your side's meld: press to add your selected wild cards to it", { meld: el.title }));
        el.onkeydown = (e) => {
          if (e.key !== " " && e.key !== "Enter") return;
          e.preventDefault();
          el.click();
          const again = document.querySelector(`.sidepanel.mine .meld[data-rank="${rank}"]`);
          if (again) again.focus({ preventScroll: true });
        };
      }
      row.appendChild(el);
    }
    ((v.closed || [])[si] || []).forEach((cards, k) => row.appendChild(meldEl(cards, `${si}:closed${k}`, true)));
    if (!row.childNodes.length) {
      const e = document.createElement("span");
      e.className = "muted nomelds";
      e.textContent = v.has_melded && v.side_of.some((s, seat) => s === si && v.has_melded[seat]) ? "" : _("no melds yet");
      row.appendChild(e);
    }
    p.appendChild(row);
    (si === mySide ? us : them).appendChild(p);
  }
}

/** Many melds (a long Italian hand): the table is made to fit the room it has, step by step,
 * rather than left with melds out of sight: smaller meld cards (the side with the most melds
 * first), closed canastas as chips, smaller cards again, every meld of a side as a chip (its
 * rank, count and status), then the plates and the centre made smaller.  On a phone the room
 * is what the screen shows above your hand; elsewhere the table's own box. */
const FIT_STEPS = [["side", "dense"], ["side", "dense"], ["both", "closed-chips"], ["side", "denser"], ["side", "denser"],
  ["side", "chips"], ["side", "chips"], ["felt", "tight"], ["felt", "tighter"]];

function fitMelds() {
  const felt = $("felt");
  const boxes = [$("sides-them"), $("sides-us")];
  for (const box of boxes) box.classList.remove("dense", "denser", "closed-chips", "chips");
  felt.classList.remove("tight", "tighter");
  const phone = window.innerWidth <= 760;
  const middle = $("middle");
  const pad = phone ? parseFloat(getComputedStyle(middle).paddingTop) + parseFloat(getComputedStyle(middle).paddingBottom) : 0;
  const fits = () => (phone ? felt.offsetHeight <= middle.clientHeight - pad - 1 : felt.scrollHeight <= felt.clientHeight + 1);
  let steps = 0;
  for (const [where, cls] of FIT_STEPS) {
    if (fits()) break;
    steps += 1;
    if (where === "felt") felt.classList.add(cls);
    else if (where === "both") boxes.forEach((b) => b.classList.add(cls));
    else {
      const left = boxes.filter((b) => !b.classList.contains(cls)).sort((x, y) => y.offsetHeight - x.offsetHeight);
      if (left.length) left[0].classList.add(cls);
    }
  }
  felt.dataset.fit = String(steps);
}

// ------------------------------------------------------------------ your hand

function trackFresh(prev, m) {
  const v = m.view;
  if (!v || m.seat < 0) { fresh = []; return; }
  const pv = prev && prev.view;
  if (!pv || pv.hand_number !== v.hand_number || m.hand_over) { fresh = []; return; }
  if (pv.to_move === m.seat && v.to_move !== m.seat) { fresh = []; return; } // the turn ended
  const gained = multisetMinus(v.hand, pv.hand);
  if (gained.length && v.hand.length > pv.hand.length && pv.to_move === m.seat) fresh = gained;
  else fresh = fresh.filter((c) => v.hand.includes(c));
}

function multisetMinus(a, b) {
  const left = {};
  for (const c of b) left[c] = (left[c] || 0) + 1;
  const out = [];
  for (const c of a) { if (left[c]) left[c] -= 1; else out.push(c); }
  return out;
}

// ------------------------------------------------------------------ the order of your hand

// How this seat arranges its hand: sorted by rank, by suit or for melding, or in its own
// order (cards dragged into place, for this hand only).  The server keeps it for the seat,
// so a reconnect, another page of the seat and a restart find it (the "order" message).
let order = { sort: "rank", cards: null, hand: 0 };
let ordersSent = 0; // orders sent whose answer has not come back: the page's own stands meanwhile
let shown = []; // the hand's indices as they are shown, in order
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 }; // the colours alternate
const byRank = (hand) => (a, b) => rankIndex(hand[a]) - rankIndex(hand[b]) || hand[a].localeCompare(hand[b]);

function takeOrder(o) {
  if (!o || ordersSent) return;
  order = { sort: ["rank", "suit", "meld"].includes(o.sort) ? o.sort : "rank", cards: o.cards || null, hand: o.hand || 0 };
}

function setOrder(sort, cards) {
  order = { sort, cards, hand: hasView() ? state.view.hand_number : 0 };
  ordersSent += 1;
  send({ type: "order", sort, cards });
  if (hasView()) renderHand();
}

/** The hand's indices (those not laid aside) in the order shown, cut into groups of cards
 * that overlap: [[indices], ...]. */
function arrangement(v) {
  const hand = v.hand;
  const idx = hand.map((c, i) => i).filter((i) => !stagedIdx.has(i)).sort(byRank(hand));
  const runs = (list, key) => {
    const out = [];
    for (const i of list) {
      const k = key(i);
      if (out.length && out[out.length - 1].key === k) out[out.length - 1].cards.push(i);
      else out.push({ key: k, cards: [i] });
    }
    return out.map((g) => g.cards);
  };
  if (order.cards && order.hand === v.hand_number) {
    const left = idx.slice();
    const list = [];
    for (const code of order.cards) {
      const k = left.findIndex((i) => hand[i] === code);
      if (k >= 0) list.push(left.splice(k, 1)[0]);
    }
    return runs(list.concat(left), (i) => rankOf(hand[i])); // cards come since (drawn, taken) go last
  }
  if (order.sort === "suit") {
    const suit = (i) => (isWild(hand[i]) ? 9 : SUIT_ORDER[hand[i].slice(-1)]);
    return runs(idx.slice().sort((a, b) => suit(a) - suit(b)), suit);
  }
  if (order.sort === "meld") {
    // sets first (the most cards first), then pairs (a wild card makes them a meld), the wild
    // cards, single cards, and threes last (they are not melded in play)
    const count = {};
    for (const i of idx) if (!isWild(hand[i])) count[rankOf(hand[i])] = (count[rankOf(hand[i])] || 0) + 1;
    const tier = (i) => {
      const c = hand[i];
      if (isWild(c)) return 2;
      if (rankOf(c) === "3") return 4;
      const n = count[rankOf(c)];
      return n >= 3 ? 0 : n === 2 ? 1 : 3;
    };
    const key = (i) => (isWild(hand[i]) ? "wild" : rankOf(hand[i]));
    const list = idx.slice().sort((a, b) => tier(a) - tier(b) || (tier(a) === 0 ? count[rankOf(hand[b])] - count[rankOf(hand[a])] : 0)
      || rankIndex(hand[a]) - rankIndex(hand[b]) || hand[a].localeCompare(hand[b]));
    return runs(list, key);
  }
  return runs(idx, (i) => rankOf(hand[i]));
}

function renderSortBox() {
  const own = !!(order.cards && hasView() && order.hand === state.view.hand_number);
  for (const b of document.querySelectorAll("#sort-box button")) b.setAttribute("aria-pressed", String(!own && b.dataset.sort === order.sort));
  document.body.dataset.sort = own ? "own" : order.sort;
}

for (const b of document.querySelectorAll("#sort-box button")) b.onclick = () => setOrder(b.dataset.sort, null);

function renderHand() {
  const v = state.view;
  const box = $("hand");
  const hadFocus = box.contains(document.activeElement); // the keyboard was in the hand: it stays there
  const wasAt = handFocus ? Math.max(0, shown.indexOf(handFocus.i)) : 0;
  box.innerHTML = "";
  const freshLeft = {};
  for (const c of fresh) freshLeft[c] = (freshLeft[c] || 0) + 1;
  shown = [];
  for (const cards of arrangement(v)) {
    const group = document.createElement("div");
    group.className = "rankgroup";
    group.dataset.rank = rankOf(v.hand[cards[0]]);
    box.appendChild(group);
    for (const i of cards) {
      shown.push(i);
      const c = v.hand[i];
      let cls = selected.has(i) ? "selected" : "";
      if (freshLeft[c]) { freshLeft[c] -= 1; cls += " fresh"; }
      const el = cardEl(c, cls.trim());
      el.dataset.index = i;
      if (cls.includes("fresh")) {
        el.title = _("{card} (just drawn)", { card: el.title });
        el.dataset.fresh = _("new"); // the mark under a card just drawn (style.css)
      }
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", el.title);
      el.setAttribute("aria-pressed", String(selected.has(i)));
      el.tabIndex = -1;
      el.onclick = () => {
        if (dragEnded) return; // the end of a drag, not a click
        if (selected.has(i)) selected.delete(i); else selected.add(i);
        el.classList.toggle("selected");
        el.setAttribute("aria-pressed", String(selected.has(i)));
        requestChecks();
      };
      el.onpointerdown = (e) => startDrag(e, i, el);
      group.appendChild(el);
    }
  }
  document.body.dataset.handOrder = shown.map((i) => v.hand[i]).join(" ");
  renderSortBox();
  // the hand is one stop of the Tab key: the card that had it keeps it (the same card, else the same place)
  const els = [...box.querySelectorAll(".card")];
  const same = handFocus && (els.find((el) => Number(el.dataset.index) === handFocus.i && el.dataset.code === handFocus.code)
    || els.find((el) => el.dataset.code === handFocus.code));
  const stop = same || els[Math.min(wasAt, els.length - 1)];
  if (stop) focusCard(stop, hadFocus);
  const st = $("staged");
  st.innerHTML = "";
  for (const g of staged) {
    const d = document.createElement("div");
    d.className = "group";
    d.title = g.target ? _("joins the meld of {rank}", { rank: RANK_WORDS[g.target] || g.target }) : _("a group of the meld you are building");
    for (const c of g.cards) d.appendChild(cardEl(c, "small"));
    st.appendChild(d);
  }
  if (staged.length) {
    const s = document.createElement("span");
    s.className = "muted";
    s.textContent = _("laid aside: press Meld (or Take) to play them all");
    st.appendChild(s);
  }
  fitHand();
  if (document.body.dataset.fitted !== undefined) requestAnimationFrame(fitted); // the dock's height may have changed
}

/** Card size and overlap so the whole hand fits in a few rows of the screen's width: as few
 * rows as the cards allow without becoming too small (one row on a short laptop screen, two on
 * a phone), more rows before smaller cards than that. */
function fitHand() {
  const box = $("hand");
  const W = box.clientWidth;
  if (!W) return;
  const phone = window.innerWidth <= 760;
  const groups = box.children.length;
  const n = box.querySelectorAll(".card").length;
  const gap = phone ? 5 : 10;
  const start = phone ? Math.min(54, Math.floor(W / 7)) : 76;
  const smallest = phone ? 40 : 50; // as small as a card is made before another row is taken
  const rows = phone ? [2, 3] : window.innerHeight < 820 ? [1, 2] : [2, 2];
  const stepFor = (cw, r) => {
    const room = r * W * 0.9 - groups * cw - (groups - 1) * gap;
    const s = n > groups ? room / (n - groups) : cw;
    return s >= cw * 0.36 ? Math.min(s, cw * 0.55) : null;
  };
  let found = null;
  for (const maxRows of rows) {
    for (let cw = start; !found && cw >= (maxRows === rows[rows.length - 1] ? 24 : smallest); cw = Math.floor(cw * 0.9)) {
      for (let r = 1; r <= maxRows && !found; r++) {
        const s = stepFor(cw, r);
        if (s !== null) found = { cw, step: s };
      }
    }
    if (found) break;
  }
  if (!found) found = { cw: 24, step: 24 * 0.36 };
  box.style.setProperty("--cw", `${found.cw}px`);
  box.style.setProperty("--step", `${Math.round(found.step)}px`);
}
window.addEventListener("resize", () => { if (hasView()) { fitHand(); fitted(); } });

/** Fit the table, then say so (what the tests wait on). */
function fitted() {
  fitMelds();
  if (state) document.body.dataset.fitted = String(state.seq);
}

// ------------------------------------------------------------------ the keyboard

// Your hand is one stop of the Tab key: the arrow keys go from card to card, Space or Enter
// selects, Shift with an arrow moves the card in your hand.  Letters press the buttons
// (D draw, T take, M meld, X discard, G + group, C or Escape clear, U undo, H hint, A may I go
// out?, E end the hand, O announce opening, N next hand; Y and N answer your partner), and ? shows them.
// J (or the page's first Tab stop, "Skip to your hand") takes the focus to your hand from anywhere.
let handFocus = null; // {i, code}: the hand's card that takes the keyboard's focus

function focusCard(el, now) {
  for (const c of document.querySelectorAll("#hand .card")) c.tabIndex = -1;
  el.tabIndex = 0;
  handFocus = { i: Number(el.dataset.index), code: el.dataset.code };
  if (now) el.focus({ preventScroll: true });
}

$("hand").addEventListener("keydown", (e) => {
  const el = e.target.closest && e.target.closest(".card");
  if (!el || e.ctrlKey || e.metaKey || e.altKey) return;
  const els = [...document.querySelectorAll("#hand .card")];
  const k = els.indexOf(el);
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
  if (step && e.shiftKey) { // the card moves: your own order
    e.preventDefault();
    const i = Number(el.dataset.index);
    const at = shown.indexOf(i) + step;
    if (at >= 0 && at < shown.length) { handFocus = { i, code: el.dataset.code }; moveCard(i, at); }
  } else if (step || e.key === "Home" || e.key === "End") {
    e.preventDefault();
    const to = e.key === "Home" ? 0 : e.key === "End" ? els.length - 1 : Math.max(0, Math.min(els.length - 1, k + step));
    focusCard(els[to], true);
  } else if (e.key === " " || e.key === "Enter") {
    e.preventDefault();
    el.click();
  }
});

/** The keyboard's focus to your hand (its card that takes the focus): the skip link and J. */
function toHand() {
  const el = document.querySelector("#hand .card[tabindex='0']") || document.querySelector("#hand .card");
  if (el) focusCard(el, true);
}
$("skip-hand").onclick = (e) => { e.preventDefault(); toHand(); };

const KEYS = { d: "btn-draw", t: "btn-take", m: "btn-meld", x: "btn-discard", g: "btn-group", c: "btn-clear", u: "btn-undo",
  h: "btn-hint", a: "btn-ask", e: "btn-end", o: "btn-open", n: "btn-deal2" };

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || !e.target || !e.target.closest) return;
  if (e.target.closest("input, textarea, select, [contenteditable]")) return;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  const open = document.querySelector(".modal:not([hidden])");
  if (e.key === "Escape") {
    if (open) for (const id of ["sheet-modal", "invite-modal", "fair-modal", "keys-modal"]) $(id).hidden = true;
    else if (hasView() && (selected.size || staged.length || target)) clearSelection();
    return;
  }
  if (e.key === "?") { $("keys-modal").hidden = !$("keys-modal").hidden; return; }
  if (key === "j" && !open) { e.preventDefault(); toHand(); return; }
  let id = null;
  if (open && open.id === "ask-modal") id = { y: "ask-yes", n: "ask-no" }[key];
  else if (open && open.id === "sheet-modal") id = { n: "btn-next" }[key];
  else if (!open) id = KEYS[key];
  const b = id ? $(id) : null;
  if (!b || b.disabled || b.hidden || b.offsetParent === null) return;
  e.preventDefault();
  b.click();
});

$("btn-keys").onclick = () => { $("keys-modal").hidden = false; };
// on a phone the header is one line: its menu opens the rest
$("btn-menu").onclick = () => {
  const open = $("bar").classList.toggle("open");
  $("btn-menu").setAttribute("aria-expanded", String(open));
  if (hasView()) requestAnimationFrame(fitted);
};
$("btn-keys-close").onclick = () => { $("keys-modal").hidden = true; };

// ------------------------------------------------------------------ dragging a card

// With a mouse, a pen or a finger (pointer events): a card dragged onto the pile is
// discarded; onto one of your side's melds, it joins it (with the other selected cards,
// when it is one of them; wild cards go to that meld); within your hand, it moves there,
// and the hand keeps your order.
const DRAG_FROM = 6; // pixels a pointer moves before a press becomes a drag
let drag = null; // {i, code, el, id, x0, y0, dx, dy, ghost, moved}
let dragEnded = false; // the click that follows a drag is not a click

function startDrag(e, i, el) {
  if (drag || (e.pointerType === "mouse" && e.button !== 0) || !hasView() || state.seat < 0) return;
  drag = { i, code: state.view.hand[i], el, id: e.pointerId, x0: e.clientX, y0: e.clientY, ghost: null, moved: false };
  window.addEventListener("pointermove", moveDrag);
  window.addEventListener("pointerup", endDrag);
  window.addEventListener("pointercancel", cancelDrag);
}

function dropTarget(x, y) {
  const under = document.elementFromPoint(x, y);
  if (!under) return null;
  if (under.closest("#pilebox")) return { kind: "discards", el: $("pile") };
  const meld = under.closest(".sidepanel.mine .meld.own");
  if (meld) return { kind: "meld", rank: meld.dataset.rank, el: meld };
  if (under.closest("#hand, #dock-head")) return { kind: "hand", el: null };
  return null;
}

/** Where in the hand a card let go at (x, y) goes: the index in ``shown`` it goes before. */
function slotAt(x, y) {
  const cards = [...document.querySelectorAll("#hand .card")].filter((el) => Number(el.dataset.index) !== drag.i);
  if (!cards.length) return { at: 0, el: null };
  const rects = cards.map((el) => el.getBoundingClientRect());
  // the row: the cards whose height holds y, else the nearest ones
  let rowTop = rects[0].top, best = Infinity;
  for (const r of rects) {
    const d = y < r.top ? r.top - y : y > r.bottom ? y - r.bottom : 0;
    if (d < best - 1) { best = d; rowTop = r.top; }
  }
  const row = cards.map((el, k) => ({ el, r: rects[k] })).filter((c) => Math.abs(c.r.top - rowTop) < 4);
  row.sort((a, b) => a.r.left - b.r.left);
  // each card shows a strip up to the next one: the middle of that strip divides before from after
  for (let k = 0; k < row.length; k++) {
    const right = k + 1 < row.length ? Math.min(row[k + 1].r.left, row[k].r.right) : row[k].r.right;
    if (x < (row[k].r.left + right) / 2) return { at: shown.indexOf(Number(row[k].el.dataset.index)), el: row[k].el, before: true };
  }
  const last = row[row.length - 1].el;
  return { at: shown.indexOf(Number(last.dataset.index)) + 1, el: last, before: false };
}

function markDrop(t, x, y) {
  for (const el of document.querySelectorAll(".drop-here, .drop-before, .drop-after")) el.classList.remove("drop-here", "drop-before", "drop-after");
  if (!t) return;
  if (t.el) t.el.classList.add("drop-here");
  if (t.kind === "hand") {
    const s = slotAt(x, y);
    if (s.el) s.el.classList.add(s.before ? "drop-before" : "drop-after");
  }
}

function moveDrag(e) {
  if (!drag || e.pointerId !== drag.id) return;
  if (!drag.moved) {
    if (Math.hypot(e.clientX - drag.x0, e.clientY - drag.y0) < DRAG_FROM) return;
    const r = drag.el.getBoundingClientRect();
    drag.moved = true;
    drag.dx = drag.x0 - r.left;
    drag.dy = drag.y0 - r.top;
    drag.ghost = cardEl(drag.code, "dragged");
    Object.assign(drag.ghost.style, { width: `${r.width}px`, height: `${r.height}px` });
    $("fly").appendChild(drag.ghost);
    drag.el.classList.add("lifted");
    document.body.classList.add("dragging");
  }
  e.preventDefault();
  drag.ghost.style.transform = `translate(${e.clientX - drag.dx}px, ${e.clientY - drag.dy}px)`;
  markDrop(dropTarget(e.clientX, e.clientY), e.clientX, e.clientY);
}

function stopDrag() {
  window.removeEventListener("pointermove", moveDrag);
  window.removeEventListener("pointerup", endDrag);
  window.removeEventListener("pointercancel", cancelDrag);
  if (drag && drag.ghost) drag.ghost.remove();
  if (drag) drag.el.classList.remove("lifted");
  document.body.classList.remove("dragging");
  markDrop(null);
  const was = drag;
  drag = null;
  return was;
}

function cancelDrag(e) {
  if (drag && e.pointerId === drag.id) stopDrag();
}

function endDrag(e) {
  if (!drag || e.pointerId !== drag.id) return;
  const t = drag.moved ? dropTarget(e.clientX, e.clientY) : null;
  const slot = t && t.kind === "hand" ? slotAt(e.clientX, e.clientY) : null;
  const d = stopDrag();
  if (!d.moved) return; // a press: the card's click selects it
  dragEnded = true;
  setTimeout(() => { dragEnded = false; }, 0);
  document.body.dataset.draggedBy = e.pointerType; // mouse, pen or touch
  if (!t || !hasView() || state.view.hand[d.i] !== d.code) return; // let go elsewhere, or the hand changed meanwhile
  if (t.kind === "discards") play("discard " + d.code);
  else if (t.kind === "meld") dropOnMeld(d.i, t.rank);
  else if (slot) moveCard(d.i, slot.at);
}

/** Put hand card ``i`` at place ``at`` of the hand as shown: the hand is then in your own order. */
function moveCard(i, at) {
  const rest = shown.filter((k) => k !== i);
  rest.splice(Math.max(0, Math.min(at, rest.length)), 0, i);
  setOrder(order.sort, rest.map((k) => state.view.hand[k]));
}

// a card dropped onto one of your side's melds joins it (with the other selected cards, when
// the dragged card is one of them); wild cards go to that meld
function dropOnMeld(i, rank) {
  const idx = selected.has(i) ? [...selected].sort((a, b) => a - b) : [i];
  const cards = idx.map((k) => state.view.hand[k]);
  play("meld " + groupText({ cards, target: cards.some(isWild) ? rank : null }));
}

// ------------------------------------------------------------------ scores, log, sheet

function renderScores() {
  const v = state.view;
  const rows = state.totals.map((t, i) => {
    const mine = rules && rules.cutthroat ? i === state.seat : state.seat >= 0 && v.side_of[state.seat] === i;
    return `<tr${mine ? ' class="mine"' : ""}><td>${escapeHtml(scoreName(i))}</td><td class="num">${number(t)}</td></tr>`;
  }).join("");
  let note = _("Playing to {target} · hand {hand}", { target: state.target, hand: v.hand_number });
  if (state.seat >= 0) note += " · " + ngettext("your first meld needs {n} point", "your first meld needs {n} points", state.players[state.seat].minimum);
  $("scores").innerHTML = `<table class="sheet">${rows}</table><p class="muted">${escapeHtml(note)}</p>`;
  // the same in one line for the header of a phone, where the panel is below the table: your side's
  // total first, then the others', and what your first meld must count
  const line = $("scoreline");
  const mineAt = state.totals.findIndex((_t, i) => (rules && rules.cutthroat ? i === state.seat : state.seat >= 0 && v.side_of[state.seat] === i));
  const order = mineAt >= 0 ? [mineAt, ...state.totals.map((_t, i) => i).filter((i) => i !== mineAt)] : state.totals.map((_t, i) => i);
  line.innerHTML = order.map((i) => `<span${i === mineAt ? ' class="mine"' : ""}>${number(state.totals[i])}</span>`).join(" – ") +
    (state.seat >= 0 ? " · " + escapeHtml(_("first meld {n}", { n: state.players[state.seat].minimum })) : "");
  line.title = order.map((i) => `${scoreName(i)}: ${number(state.totals[i])}`).join(" · ") + " · " + note;
  line.setAttribute("aria-label", line.title);
}

function renderLog() {
  const log = $("log");
  log.innerHTML = "";
  for (const e of logEntries()) {
    const li = document.createElement("li");
    if (e.notice) {
      li.className = "notice";
      li.dataset.notice = e.notice;
      li.textContent = e.text;
      log.appendChild(li);
      continue;
    }
    li.value = e.n;
    li.textContent = prettyCards(e.text);
    if (e.seat === state.seat) li.className = "mine";
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}

function howEnded(h, last) {
  if (h.went_out !== undefined && h.went_out !== null && h.went_out >= 0) {
    const mine = h.went_out === state.seat;
    const name = playerName(h.went_out);
    const concealed = h.concealed_out ?? h.concealed ?? (last && state.hand_over && state.view ? state.view.concealed_out : false);
    if (concealed) return mine ? _("You went out concealed (the whole hand melded in one turn).") : _("{name} went out concealed (the whole hand melded in one turn).", { name });
    return mine ? _("You went out.") : _("{name} went out.", { name });
  }
  const reason = h.end_reason || "";
  return reason ? _("Nobody went out: {reason}.", { reason: endReasonTexts[reason] || reason }) : "";
}

function resultText() {
  if (!state.match_over) return "";
  const w = state.winner;
  const totals = state.totals.map((t, i) => `${scoreName(i)} ${number(t)}`).join(", ");
  if (w === -1 || w === null || w === undefined) return _("The match is drawn. Final scores: {totals}.", { totals });
  const mine = rules && rules.cutthroat ? w === state.seat : state.seat >= 0 && state.view && state.view.side_of[state.seat] === w;
  if (mine) return _("You win! Final scores: {totals}.", { totals });
  return _("{name} won! Final scores: {totals}.", { name: scoreName(w), totals });
}

/** A family's notes on the table (its talons, the turn card, dead ranks, the opening it needs ...:
 * the state's table_note_keys), in a box a person opens and closes; open at first on a wide screen. */
let tableNotesToggled = false;
function showTableNotes() {
  const box = $("table-notes-box");
  const list = $("table-notes");
  const keys = state.table_note_keys || [];
  box.hidden = keys.length === 0;
  list.innerHTML = "";
  for (const note of keys) {
    const li = document.createElement("li");
    li.dataset.key = note.key;
    li.dataset.n = note.n;
    li.dataset.rank = note.rank;
    li.textContent = tableNoteText(note);
    list.appendChild(li);
  }
  if (!tableNotesToggled && keys.length) box.open = window.innerWidth >= 900;
}

function showSheet() {
  const hands = state.sheet || [];
  const last = hands[hands.length - 1];
  const nSides = state.totals.length;
  const head = [...Array(nSides).keys()].map((s) => `<th class="num">${escapeHtml(scoreName(s))}</th>`).join("");
  const labels = {meld_points: _("Melds"), canasta_bonuses: _("Canasta bonuses"), red_threes: laidOutPhrase(words.laid_out, "line"),
    going_out: _("Going out"), five_canasta_bonus: _("Five-canasta bonus"), cards_in_hand: _("Cards left in hand"),
    unfinished_melds: _("Unfinished melds of aces, sevens or wild cards"), aces_sevens_held: _("Three or more aces or sevens held"),
    special_hand: _("Special hand"),
    total: _("Hand total")};
  const shared = ["meld_points", "canasta_bonuses", "red_threes", "going_out", "cards_in_hand"];
  let body = "";
  if (last) {
    // the lines the scores name, in order (a family's own lines only where a side scored one)
    const lines = last.scores[0].lines || ["meld_points", "canasta_bonuses", "red_threes", "going_out", "five_canasta_bonus", "cards_in_hand"];
    for (const k of [...lines, "total"]) {
      if (k === "total" || shared.includes(k) || last.scores.some((x) => x[k])) {
        const label = labels[k] || k.replaceAll("_", " ");
        body += `<tr${k === "total" ? ' class="total"' : ""}><td>${escapeHtml(label)}</td>${last.scores.map((s) => `<td class="num">${typeof s[k] === "number" ? number(s[k]) : ""}</td>`).join("")}</tr>`;
      }
    }
  }
  let history = "";
  let run = Array(nSides).fill(0);
  for (const h of hands) {
    run = run.map((t, s) => t + h.scores[s].total);
    history += `<tr><td>${escapeHtml(_("Hand {hand}", { hand: h.hand }))} <span class="muted how-ended">${escapeHtml(howEnded(h, h === last))}</span></td>${run.map((t) => `<td class="num">${number(t)}</td>`).join("")}</tr>`;
  }
  // texts are looked up outside nested template strings, where the catalog's extractor finds them
  const handWords = last ? _("Hand {hand}", { hand: last.hand }) : "";
  const runningWords = _("Running totals (playing to {target})", { target: state.target });
  // the hand's lines beside the running totals (one above the other on a narrow screen)
  $("sheet").innerHTML = last
    ? `<div class="sheet-cols"><div><table class="sheet"><tr><th>${escapeHtml(handWords)}</th>${head}</tr>${body}</table></div><div><h3>${escapeHtml(runningWords)}</h3><table class="sheet history"><tr><th></th>${head}</tr>${history}</table></div></div>`
    : `<p>${escapeHtml(_("No hand has been scored yet."))}</p>`;
  $("sheet-how").textContent = state.match_over ? resultText() : last && state.hand_over ? howEnded(last, true) : "";
  $("sheet-title").textContent = state.match_over ? _("The match is over") : state.hand_over && last ? handOverTitle(last.hand) : _("Score sheet");
  const seated = state.seat >= 0;
  $("btn-next").hidden = !(state.hand_over && !state.match_over && seated);
  $("btn-rematch2").hidden = !(state.match_over && seated);
  $("btn-rematch2").textContent = state.rematch ? _("Join the rematch") : _("Rematch");
  $("btn-sheet-close").textContent = state.hand_over ? _("Look at the table") : _("Close");
  for (const id of ["record-link", "replay-link"]) $(id).hidden = !state.match_over;
  $("record-link").href = `/api/tables/${tableId}/record`;
  $("replay-link").href = `/replay/${tableId}`;
  reviewLink("review-link2");
  $("sheet-modal").hidden = false;
}

// "Review": the hand just over, for the player's own seat (a spectator's only once the match is
// over, at a table that lets anyone review every seat)
function reviewLink(id) {
  const v = state.view;
  const may = state.hand_over && v && (state.seat >= 0 || (state.match_over && state.review_others));
  $(id).hidden = !may;
  if (may) $(id).href = `/review/${tableId}?hand=${v.hand_number}&seat=${Math.max(0, state.seat)}`;
}

function renderBanner() {
  const over = state.hand_over;
  $("banner").hidden = !over;
  $("felt").classList.toggle("over", over);
  const seated = state.seat >= 0;
  $("btn-deal2").hidden = !(over && !state.match_over && seated);
  for (const b of document.querySelectorAll("#buttons button:not(#btn-deal2)")) b.classList.toggle("gone", over);
  if (!over) return;
  const hands = state.sheet || [];
  const last = hands[hands.length - 1];
  $("banner-title").textContent = state.match_over ? _("The match is over") : handOverTitle(last ? last.hand : state.view.hand_number);
  let text = state.match_over ? resultText() : last ? howEnded(last, true) : "";
  if (!state.match_over && last) {
    text += " " + _("This hand: {scores}.", { scores: last.scores.map((s, i) => `${scoreName(i)} ${number(s.total)}`).join(", ") });
  }
  $("banner-text").textContent = text;
  $("btn-deal").hidden = !(!state.match_over && seated);
  $("btn-rematch").hidden = !(state.match_over && seated);
  $("btn-rematch").textContent = state.rematch ? _("Join the rematch") : _("Rematch");
  document.body.dataset.rematch = state.rematch || "";
  reviewLink("review-link");
  updateCountdown();
}

function updateCountdown() {
  let text = "";
  if (state && state.hand_over && !state.match_over && state.auto_deal_at) {
    const s = Math.max(0, Math.ceil(state.auto_deal_at - Date.now() / 1000));
    text = ngettext("The next hand is dealt in {n} second", "The next hand is dealt in {n} seconds", s);
  }
  $("countdown").textContent = text;
  $("countdown2").textContent = text;
}

// ------------------------------------------------------------------ chat

// quick phrases, by the key the server keeps (room.PHRASES): each page says them in its reader's language
const PHRASES = { hello: _("Hello!"), luck: _("Good luck!"), nice: _("Nice play!"), thanks: _("Thanks!"),
  moment: _("One moment, please."), oops: _("Oops!"), gg: _("Good game!") };

for (const [key, text] of Object.entries(PHRASES)) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "secondary";
  b.textContent = text;
  b.dataset.phrase = key;
  b.onclick = () => { $("chat-error").textContent = ""; send({ type: "chat", phrase: key }); $("phrase-menu").open = false; };
  $("phrases").appendChild(b);
}

$("chat-form").onsubmit = (e) => {
  e.preventDefault();
  const text = $("chat-text").value.trim();
  if (!text) return;
  $("chat-error").textContent = "";
  send({ type: "chat", text });
  $("chat-text").value = "";
};

let chatShown = ""; // the last chat line drawn: the list is drawn again only when it changes

/** The chat as the server keeps it (the last lines), each line as text: never as markup. */
function renderChat() {
  const lines = state.chat;
  $("chat-panel").hidden = !Array.isArray(lines);
  $("chat-say").hidden = state.seat < 0; // a spectator reads, at a table that lets them
  if (!Array.isArray(lines)) return;
  const key = lines.length ? `${lines[lines.length - 1].id}:${lines.length}` : "";
  if (key === chatShown) return;
  chatShown = key;
  const log = $("chat-log");
  log.innerHTML = "";
  for (const line of lines) {
    const li = document.createElement("li");
    li.dataset.id = line.id;
    if (line.seat === state.seat) li.classList.add("mine");
    const who = document.createElement("b");
    who.textContent = _("{name}:", { name: playerName(line.seat) });
    const said = document.createElement("span");
    said.textContent = line.phrase ? PHRASES[line.phrase] || line.phrase : line.text;
    if (line.phrase) li.classList.add("phrase");
    li.append(who, " ", said);
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
  document.body.dataset.chat = lines.length ? lines[lines.length - 1].id : "";
}

// ------------------------------------------------------------------ your turn

// the tab's title says when it is your turn (seen from another tab), and, if asked for
// (off by default, remembered in this browser), a short sound plays when your turn comes
const TURN_SOUND_KEY = "canasta:turn-sound";
let baseTitle = document.title;
let wasMyTurn = null; // null: not known yet (no sound for the turn the page opens on)
$("turn-sound").checked = localStorage.getItem(TURN_SOUND_KEY) === "1";
$("turn-sound").onchange = () => localStorage.setItem(TURN_SOUND_KEY, $("turn-sound").checked ? "1" : "0");

function turnCue(myTurn) {
  document.title = myTurn ? _("● Your turn · {title}", { title: baseTitle }) : baseTitle;
  if (myTurn && wasMyTurn === false && $("turn-sound").checked) {
    document.body.dataset.turnCues = String(Number(document.body.dataset.turnCues || 0) + 1);
    chime();
  }
  wasMyTurn = myTurn;
}

function chime() {
  try {
    const ctx = new AudioContext();
    const gain = ctx.createGain();
    gain.gain.value = 0.06;
    gain.connect(ctx.destination);
    [660, 880].forEach((f, k) => {
      const osc = ctx.createOscillator();
      osc.frequency.value = f;
      osc.connect(gain);
      osc.start(ctx.currentTime + k * 0.14);
      osc.stop(ctx.currentTime + k * 0.14 + 0.12);
      if (k === 1) osc.onended = () => ctx.close();
    });
  } catch (e) { /* no sound here */ }
}

// ------------------------------------------------------------------ render

function render() {
  const v = state.view;
  const waiting = !v;
  renderPause(state);
  renderCommit();
  renderChat();
  $("turn-sound-box").hidden = state.seat < 0;
  $("waiting").hidden = !waiting;
  $("tablewrap").hidden = waiting;
  $("dock").hidden = waiting;
  showPace();
  if (waiting) {
    const open = state.players.filter((p) => p.kind === "open" || (p.kind === "reserved")).map((p) => seatName(p.name, p.kind));
    $("waiting-title").textContent = state.status === "open" ? _("Waiting for players") : _("Waiting for the first deal");
    $("waiting-text").textContent = state.status === "open"
      ? _("The table starts when every seat is taken. Still free: {names}. Use Invite to share the link.", { names: open.join(", ") })
      : _("The cards are dealt as soon as every player's browser has added its share of randomness (see Fair deals). This takes a moment.");
    return;
  }
  const key = v.hand.join(" ");
  if (key !== handKey) { handKey = key; selected = new Set(); staged = []; stagedIdx = new Set(); target = null; }
  document.body.classList.toggle("spectator", state.seat < 0);
  renderSeats();
  renderCentre();
  renderSides();
  renderHand();
  renderScores();
  renderLog();
  renderBanner();
  const seat = state.seat;
  const myTurn = seat >= 0 && v.to_move === seat && !state.hand_over && state.status === "playing";
  $("me-name").textContent = seat >= 0 ? _("{name} (you)", { name: playerName(seat) }) : _("You are watching");
  $("me-info").textContent = seat >= 0 ? ngettext("{n} card", "{n} cards", v.hand.length) + (myTurn ? " · " + _("your move") : "") : "";
  const mine = lastMoves()[seat];
  $("me-last").textContent = mine ? _("your last move: {move}", { move: moveWords(mine) }) : "";
  $("dock").classList.toggle("my-turn", myTurn);
  turnCue(myTurn);
  $("btn-ask").hidden = !hasPartner();
  $("btn-undo").disabled = !state.undoable;
  $("btn-undo").title = state.undoable ? _("take back your last meld of this turn") : _("only melds laid in this turn can be taken back");
  $("btn-hint").disabled = !myTurn;
  $("btn-hint").hidden = Boolean(state.rated); // no hints at a rated table (the server refuses them too)
  document.body.dataset.rated = state.rated || "";
  $("btn-group").disabled = !myTurn;
  $("ask-modal").hidden = !(myTurn && v.phase === "answer");
  const nSheet = (state.sheet || []).length;
  if (state.hand_over && nSheet !== sheetShownFor) {
    sheetShownFor = nSheet;
    clearTimeout(sheetTimer);
    sheetTimer = setTimeout(() => { if (state.hand_over) showSheet(); }, flightMs() + 250); // after the last cards land
  } else if (!state.hand_over) {
    $("sheet-modal").hidden = true;
  }
  if (!$("sheet-modal").hidden) showSheet(); // keep it current
  if (!$("fair-modal").hidden) renderFair();
  showDeadline();
  $("me-timer").hidden = !(myTurn && state.deadline);
  $("sound-box").hidden = !state.turn_seconds || state.seat < 0; // the warning beep is for a timed seat
  updateTimer();
  showNotices();
  if (seat >= 0) requestChecks();
  fitMelds(); // (the room the melds have is known once the banner and the hand are drawn)
  requestAnimationFrame(fitted);
}

// ------------------------------------------------------------------ moving cards

const reduceMotion = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

function flightMs() {
  const pace = state && typeof state.bot_delay === "number" ? state.bot_delay : 0.8;
  return Math.round(Math.min(700, Math.max(260, pace * 600)));
}

const rectOf = (el) => {
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.width && r.height ? r : null;
};

function seatAnchor(seat) {
  if (seat === state.seat) return $("hand");
  const plate = document.querySelector(`.player[data-seat="${seat}"]`);
  return plate ? plate.querySelector(".backs") || plate : null;
}

/** Where things are on the screen now (before the next state is drawn). */
function snapshot() {
  const s = { stock: rectOf($("stock").firstChild) || rectOf($("stock")), pile: rectOf($("pile").querySelector(".fan .card:last-child")) || rectOf($("pile")),
    seats: {}, hand: [], melds: {} };
  state.players.forEach((_, i) => { s.seats[i] = rectOf(seatAnchor(i)); });
  for (const c of document.querySelectorAll("#hand .card, #staged .card")) s.hand.push({ code: c.dataset.code, rect: rectOf(c) });
  for (const m of document.querySelectorAll(".sidepanel .meld")) s.melds[m.dataset.key] = rectOf(m);
  return s;
}

function meldCounts(v) {
  const out = {};
  v.melds.forEach((side, si) => {
    for (const m of side) {
      const rank = m.cards.every(isWild) ? "wild" : rankOf(natural(m.cards));
      out[`${si}:${rank}`] = m.cards;
    }
  });
  return out;
}

const flying = new Set(); // running flights: a new state lands them at once, so none pile up

/** Fly every card that moved between two states, for every seat. */
function animate(prev, cur, before) {
  for (const a of [...flying]) a.finish();
  const pv = prev.view, v = cur.view;
  if (reduceMotion || !pv || !v || pv.hand_number !== v.hand_number || document.hidden) return;
  const entries = logEntries();
  const lastEntry = entries[entries.length - 1];
  const actor = lastEntry && lastEntry.seat >= 0 && (prev.log || []).length !== (cur.log || []).length ? lastEntry.seat : pv.to_move;
  const mine = actor === state.seat;
  const dur = flightMs();
  const flights = [];
  const handRects = before.hand.slice();
  const fromHand = (code) => {
    const k = handRects.findIndex((h) => h.code === code && h.rect);
    if (k < 0) return before.seats[actor];
    return handRects.splice(k, 1)[0].rect;
  };
  const actorNow = () => rectOf(seatAnchor(actor));
  // red threes laid out by the actor
  const redsNew = v.red_threes[actor].length - pv.red_threes[actor].length;
  const redsEl = document.querySelector(`.meld.reds[data-key="${v.side_of[actor]}:reds"]`);
  // drawing from the stock
  const drawn = pv.stock_size - v.stock_size;
  if (drawn > 0) {
    const newReds = v.red_threes[actor].slice(-Math.max(0, redsNew));
    for (const c of newReds) flights.push({ code: c, from: before.stock, to: rectOf(redsEl) });
    const toHand = drawn - newReds.length;
    if (mine) {
      const els = [...document.querySelectorAll("#hand .card.fresh")];
      els.slice(0, toHand).forEach((el) => flights.push({ code: el.dataset.code, from: before.stock, to: rectOf(el), el }));
    } else {
      for (let k = 0; k < toHand; k++) flights.push({ code: "??", from: before.stock, to: actorNow() });
    }
  }
  // taking the pile (the pozzo)
  let took = false;
  if (v.pile.length < pv.pile.length) {
    took = true;
    const gone = pv.pile.slice(v.pile.length).slice(-8);
    for (const c of gone) flights.push({ code: c, from: before.pile, to: actorNow() });
  }
  // melds: every card added to a meld comes from the actor's hand
  const pm = meldCounts(pv), nm = meldCounts(v);
  for (const [key, cards] of Object.entries(nm)) {
    const added = multisetMinus(cards, pm[key] || []);
    const el = document.querySelector(`.sidepanel .meld[data-key="${key}"]`);
    for (const c of added) flights.push({ code: c, from: mine ? fromHand(c) : (took ? before.pile : before.seats[actor]), to: rectOf(el) });
  }
  // closed canastas (Italian) move from the meld row into the closed ones: drawn where they are
  // a discard: the new top card of the pile comes from the actor
  if (!took && v.pile.length === pv.pile.length + 1) {
    const c = v.pile[v.pile.length - 1];
    const top = $("pile").querySelector(".fan .card:last-child");
    flights.push({ code: c, from: mine ? fromHand(c) : before.seats[actor], to: rectOf(top), el: top });
  }
  flights.forEach((f, k) => fly(f, dur, k * 70));
}

function fly(f, dur, delay) {
  if (!f.from || !f.to) return;
  const el = cardEl(f.code, "flying");
  const to = f.to;
  Object.assign(el.style, { left: `${to.left}px`, top: `${to.top}px`, width: `${to.width}px`, height: `${to.height}px` });
  const dx = f.from.left - to.left, dy = f.from.top - to.top;
  const sc = Math.max(0.3, Math.min(3, f.from.width / to.width));
  $("fly").appendChild(el);
  if (f.el) f.el.classList.add("arriving");
  const anim = el.animate([
    { transform: `translate(${dx}px, ${dy}px) scale(${sc})`, offset: 0 },
    { transform: "translate(0, 0) scale(1)", offset: 1 },
  ], { duration: dur, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" });
  flying.add(anim);
  const done = () => { flying.delete(anim); el.remove(); if (f.el) f.el.classList.remove("arriving"); };
  anim.onfinish = done;
  anim.oncancel = done;
  setTimeout(done, dur + delay + 400); // never leave a card in the air
}

// ------------------------------------------------------------------ timers

setInterval(() => {
  if (!state) return;
  showDeadline();
  updateCountdown();
  updateTimer();
}, 250);

if (!saved) showJoin();
connect();
