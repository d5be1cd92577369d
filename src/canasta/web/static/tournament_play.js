// Playing one's own board on the tournament page as at a card table: pick cards from your hand
// (and set groups aside for a meld of several), and each action's button says what it would do
// with them; an action the rules forbid now says why (the server's answer, in your language).
// A thin client: the server decides (POST /api/tournaments/ID/check, then .../move).
import { _, lang } from "/static/i18n.js";
import { cardEl, rankIndex } from "/static/cards.js";
import { post } from "/static/account.js";

const $ = (id) => document.getElementById(id);
// the actions in the order their buttons stand; draw and take first, as a turn goes
const ORDER = ["draw", "take", "open", "meld", "discard", "ask", "yes", "no", "end"];
// the actions the picked cards aim at: a refusal of these is shown (why the meld is not allowed)
const AIMED = new Set(["take", "meld", "discard"]);

let picked = []; // indices into the hand
let staged = []; // groups of card codes set aside for a meld of several groups
let handKey = "";
let askedKey = "";
let answer = null; // the server's last answer: {key, actions: [{action, move, text, why}]}

/** The cards in a stable order (by rank, then suit) with their index in the hand. */
function sorted(hand) {
  return hand.map((c, i) => [c, i]).sort((a, b) => rankIndex(a[0]) - rankIndex(b[0]) || a[0].localeCompare(b[0]));
}

function stagedIndices(hand) {
  const used = new Set();
  for (const group of staged) {
    for (const code of group) {
      const k = hand.findIndex((c, i) => c === code && !used.has(i));
      if (k >= 0) used.add(k);
    }
  }
  return used;
}

/** Your hand, your picks and the actions: drawn again at each refresh of the page, kept while
 * the position is the same (``m``: the tournament's ``me``). */
export function drawPlay(m, tid, act) {
  const box = $("my-hand");
  box.innerHTML = "";
  const view = m.view;
  if (!view) { $("my-play").hidden = true; return; }
  const key = `${m.round}:${m.board}:${view.turn_number}:${view.phase}:${view.hand.join(",")}`;
  if (key !== handKey) { handKey = key; picked = []; staged = []; }
  const mine = m.to_move === m.seat;
  const aside = stagedIndices(view.hand);
  const label = document.createElement("span");
  label.textContent = `${_("Your hand")}: `;
  box.appendChild(label);
  for (const [code, i] of sorted(view.hand)) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "pick";
    b.dataset.code = code;
    b.disabled = !mine || aside.has(i);
    b.setAttribute("aria-pressed", String(picked.includes(i)));
    const c = cardEl(code, "small");
    if (picked.includes(i)) c.classList.add("selected");
    if (aside.has(i)) c.classList.add("aside");
    b.appendChild(c);
    b.onclick = () => {
      picked = picked.includes(i) ? picked.filter((x) => x !== i) : [...picked, i];
      drawPlay(m, tid, act);
    };
    box.appendChild(b);
  }
  $("my-play").hidden = !mine;
  if (!mine) return;
  const groups = $("my-groups");
  groups.textContent = staged.length ? `${_("Set aside")}: ` + staged.map((g) => g.join(" ")).join(" + ") : "";
  $("btn-group").disabled = picked.length === 0;
  $("btn-group").onclick = () => { staged = [...staged, picked.map((i) => view.hand[i])]; picked = []; drawPlay(m, tid, act); };
  $("btn-clear").disabled = picked.length === 0 && staged.length === 0;
  $("btn-clear").onclick = () => { picked = []; staged = []; drawPlay(m, tid, act); };
  const selection = { staged, cards: picked.map((i) => view.hand[i]) };
  const asking = `${key}|${JSON.stringify(selection)}`;
  if (answer && answer.key === asking) { drawActions(answer.actions, tid, act); return; }
  if (askedKey === asking) return; // asked already: its answer draws the buttons
  askedKey = asking;
  ask(asking, selection, tid, act);
}

async function ask(asking, selection, tid, act) {
  const r = await post(`/api/tournaments/${tid}/check?lang=${encodeURIComponent(lang)}`, { selection });
  const data = await r.json().catch(() => ({}));
  if (askedKey !== asking) return; // the picks changed meanwhile
  if (!r.ok) { $("my-why").textContent = data.detail || String(r.status); return; }
  answer = { key: asking, actions: data.actions || [] };
  drawActions(answer.actions, tid, act);
}

function drawActions(actions, tid, act) {
  const row = $("my-actions");
  row.innerHTML = "";
  const why = [];
  const byAction = Object.fromEntries(actions.map((a) => [a.action, a]));
  for (const name of ORDER) {
    const a = byAction[name];
    if (!a) continue;
    if (a.why) {
      if (AIMED.has(name) && (picked.length || staged.length)) why.push(`${a.text}: ${a.why}`);
      continue;
    }
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = name;
    b.dataset.move = a.move;
    b.textContent = a.text;
    b.onclick = async () => {
      if (await act(`/api/tournaments/${tid}/move`, { move: a.move })) { picked = []; staged = []; }
    };
    row.appendChild(b);
  }
  $("my-why").textContent = why.join(" · ");
}
