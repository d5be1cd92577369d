// A hand's review: the hand's moves with the expert's marks on one seat's decisions, and for a
// decision the position as that seat saw it, the choice made and the better one.
import { _, lang, languagePicker, ngettext, number, translatePage } from "/static/i18n.js";
import { cardEl, isWild, prettyCards, rankIndex } from "/static/cards.js";
import { seatName } from "/static/words.js";

translatePage();
languagePicker(document.getElementById("lang"));

const $ = (id) => document.getElementById(id);
// a tournament's board (/tournaments/ID/review/ROUND/TABLE/BOARD: any seat, its one hand) or a room table (/review/ID)
const board = /^\/tournaments\/([A-Za-z0-9]+)\/review\/(\d+)\/(\d+)\/(\d+)$/.exec(location.pathname);
const tableId = board ? null : location.pathname.split("/")[2];
const api = board ? `/api/tournaments/${board[1]}/boards/${board[2]}/${board[3]}/${board[4]}/review`
  : `/api/tables/${encodeURIComponent(tableId)}/review`;
const query = new URLSearchParams(location.search);
const saved = board ? null : JSON.parse(localStorage.getItem(`canasta:${tableId}`) || "null"); // {token, seat}
let hand = Number(query.get("hand")) || 1;
// the seat asked for; none: the seat token's own (the server knows it)
let seat = query.has("seat") ? Number(query.get("seat")) : (saved && Number.isInteger(saved.seat) ? saved.seat : null);
let data = null;
let poll = null;
$("table-link").href = board ? `/tournaments/${board[1]}` : `/t/${tableId}`;
if (board) $("table-link").textContent = _("tournament");
const SYMBOLS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
$("key").textContent = `?! ${_("inaccuracy")} · ? ${_("mistake")} · ?? ${_("blunder")}`;

const nameOf = (s) => seatName(data.names[s], "bot");
const CARD = /\b(?:JK|10|[2-9JQKA])[SHDC]?\b/g;
const cardsOf = (move) => (String(move || "").match(CARD) || []).filter((c) => c === "JK" || /[SHDC]$/.test(c));

function fillSelect(sel, values, label, current) {
  sel.innerHTML = "";
  for (const v of values) {
    const o = document.createElement("option");
    o.value = String(v);
    o.textContent = label(v);
    sel.appendChild(o);
  }
  sel.value = String(current);
}

function go() {
  const url = new URL(location.href);
  url.searchParams.set("hand", String(hand));
  if (seat !== null) url.searchParams.set("seat", String(seat));
  history.replaceState(null, "", url.toString());
  $("timeline").innerHTML = "";
  $("position").hidden = true;
  $("summary").textContent = "";
  ask();
}
$("hand").onchange = () => { hand = Number($("hand").value); go(); };
$("seat").onchange = () => { seat = Number($("seat").value); go(); };

async function ask() {
  clearTimeout(poll);
  const body = { hand };
  if (seat !== null) body.seat = seat;
  if (saved && saved.token) body.token = saved.token;
  let r;
  try {
    r = await fetch(`${api}?lang=${encodeURIComponent(lang)}`,
      { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch (e) {
    poll = setTimeout(ask, 2000); // the server is away for a moment: ask again
    return;
  }
  const m = await r.json();
  if (!r.ok) {
    document.body.dataset.review = "refused";
    $("progress-box").hidden = true;
    $("error").textContent = m.detail;
    return;
  }
  $("error").textContent = "";
  if (Number.isInteger(m.seat)) seat = m.seat;
  if (m.seats && m.seats.length > 1) {
    $("seat-box").hidden = false;
    fillSelect($("seat"), m.seats, (s) => String(s + 1), seat);
  }
  if (m.status === "waiting") { // other reviews are computed first: its place in the queue
    document.body.dataset.review = "waiting";
    document.body.dataset.position = String(m.position);
    $("progress-box").hidden = false;
    $("progress").removeAttribute("value");
    $("progress-text").textContent = m.position === 1
      ? _("Waiting: this review is next in the queue")
      : ngettext("Waiting: {n} review is before this one in the queue",
        "Waiting: {n} reviews are before this one in the queue", m.position - 1, { n: number(m.position - 1) });
    poll = setTimeout(ask, 1000);
    return;
  }
  if (m.status === "running") {
    document.body.dataset.review = "running";
    document.body.dataset.progressSeen = `${m.done}/${m.total}`; // the last progress shown (tests read it)
    $("progress-box").hidden = false;
    $("progress").max = Math.max(1, m.total);
    $("progress").value = m.done;
    $("progress-text").textContent = _("The expert is reviewing the decisions: {done} of {total}", { done: m.done, total: m.total });
    poll = setTimeout(ask, 500);
    return;
  }
  $("progress-box").hidden = true;
  data = m;
  show();
}

function show() {
  fillSelect($("hand"), Array.from({ length: data.hands }, (_x, k) => k + 1), (h) => String(h), data.hand);
  if ($("seat-box").hidden) fillSelect($("seat"), [data.seat], (s) => String(s + 1), data.seat);
  for (const o of $("seat").options) o.textContent = nameOf(Number(o.value));
  const s = data.summary;
  const marks = ["blunder", "mistake", "inaccuracy"].map((k) => `${SYMBOLS[k]} ${number(s.marks[k])}`).join(" · ");
  $("summary").textContent = _("{name}, hand {hand}", { name: nameOf(data.seat), hand: data.hand }) + ": " +
    ngettext("{n} decision reviewed", "{n} decisions reviewed", s.decisions) + " · " +
    ngettext("{n} point lost", "{n} points lost", Math.round(s.lost)) + " · " + marks;
  const ol = $("timeline");
  ol.innerHTML = "";
  data.timeline.forEach((e) => {
    const li = document.createElement("li");
    li.dataset.index = String(e.index);
    if (e.seat === data.seat) li.classList.add("mine");
    const text = document.createElement("span");
    text.textContent = prettyCards(e.text);
    if (e.reviewed) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "decision" + (e.mark ? ` mark-${e.mark}` : "");
      b.appendChild(text);
      if (e.mark) {
        const sym = document.createElement("b");
        sym.className = "symbol";
        sym.textContent = " " + e.symbol;
        sym.title = e.mark_name;
        b.appendChild(sym);
        li.classList.add("marked");
      }
      b.onclick = () => position(e, li);
      li.appendChild(b);
    } else li.appendChild(text);
    ol.appendChild(li);
  });
  document.body.dataset.marked = String(s.marked);
  document.body.dataset.review = "done";
}

function position(e, li) {
  for (const x of $("timeline").querySelectorAll("li.current")) x.classList.remove("current");
  li.classList.add("current");
  const v = e.view;
  $("position").hidden = false;
  $("pos-title").textContent = _("Before move {n}", { n: e.index + 1 }) + (e.mark ? ` · ${e.symbol} ${e.mark_name}` : "");
  $("pos-made").textContent = prettyCards(e.made);
  // "better" only when the gain stands clear of the noise of the sampled deals (as a mark does);
  // else the expert's other choice is shown as no better than the one made
  const better = Boolean(e.better && e.significant);
  $("pos-best-line").hidden = !e.better;
  $("pos-best-line").classList.toggle("best", better);
  $("pos-best-label").textContent = better ? _("Better") : _("Also possible");
  $("pos-best").textContent = prettyCards(e.better);
  const figures = { loss: Math.round(e.loss), stderr: Math.round(e.stderr), worlds: e.worlds };
  $("pos-loss").textContent = !e.better ? _("there was no other choice worth comparing")
    : better ? _("the better choice is worth {loss} points more (± {stderr}), over {worlds} deals of the unseen cards", figures)
      : _("the other choice's {loss} points more (± {stderr}) are within the noise of {worlds} deals of the unseen cards: no better than the move made", figures);
  document.body.dataset.better = String(better);
  // the seat's own hand: the cards the move made used, and the better one's
  const made = cardsOf(e.move), best = better ? cardsOf(e.best) : [];
  const hand = $("pos-hand");
  hand.innerHTML = "";
  v.hand.slice().sort((a, b) => rankIndex(a) - rankIndex(b)).forEach((c) => {
    const cls = [];
    const i = made.indexOf(c);
    if (i >= 0) { cls.push("made"); made.splice(i, 1); }
    const j = best.indexOf(c);
    if (j >= 0) { cls.push("best"); best.splice(j, 1); }
    hand.appendChild(cardEl(c, ["small", ...cls].join(" ")));
  });
  const pile = v.pile;
  $("pos-pile").textContent = (v.pile_frozen ? _("pile {n} (frozen)", { n: pile.length }) : _("pile {n}", { n: pile.length })) +
    " · " + _("stock {n}", { n: v.stock_size });
  $("pos-pile-top").innerHTML = "";
  if (pile.length) $("pos-pile-top").appendChild(cardEl(pile[pile.length - 1], "small"));
  $("pos-others").textContent = v.hand_sizes.map((n, s) => (s === data.seat ? null : `${nameOf(s)}: ${ngettext("{n} card", "{n} cards", n)}`))
    .filter(Boolean).join(" · ");
  const melds = $("pos-melds");
  melds.innerHTML = "";
  v.melds.forEach((side, si) => {
    const p = document.createElement("div");
    p.innerHTML = `<h4></h4><div class="rv-melds"></div>`;
    p.querySelector("h4").textContent = _("Side {side}: {names}", { side: si + 1, names: v.side_of.map((x, s) => (x === si ? nameOf(s) : null)).filter(Boolean).join(" & ") });
    const row = p.querySelector(".rv-melds");
    for (const m of side) {
      const el = document.createElement("div");
      el.className = "rv-meld" + (m.cards.length >= data.canasta_size ? " canasta" : "");
      m.cards.slice().sort((a, b) => Number(isWild(a)) - Number(isWild(b))).forEach((c) => el.appendChild(cardEl(c, "small")));
      row.appendChild(el);
    }
    if (!side.length) row.textContent = _("no melds yet");
    melds.appendChild(p);
  });
  document.body.dataset.position = String(e.index);
  if (window.innerWidth < 700) $("position").scrollIntoView({ block: "start" });
}

go();
