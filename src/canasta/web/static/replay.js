// The replay viewer of a finished match: every position, every hand shown.
import { _, lang, languagePicker, ngettext, number, translatePage } from "/static/i18n.js";
import { cardEl, isWild, prettyCards, rankIndex } from "/static/cards.js";
import { seatName } from "/static/words.js";

translatePage();
languagePicker(document.getElementById("lang"));

const $ = (id) => document.getElementById(id);
const tableId = location.pathname.split("/")[2];
// a tournament's board (/tournaments/ID/replay/ROUND/TABLE/BOARD) or a room table (/replay/ID)
const board = /^\/tournaments\/([A-Za-z0-9]+)\/replay\/(\d+)\/(\d+)\/(\d+)$/.exec(location.pathname);
const api = board ? `/api/tournaments/${board[1]}/boards/${board[2]}/${board[3]}/${board[4]}` : `/api/tables/${tableId}`;
let data = null;
let i = 0;
let timer = null;
$("record").href = `${api}/record`;

// a frame's caption: the deal, or the move in words, as the server said them in the page's language
const frameText = (f) => prettyCards(f.text);

// a player's name; the compass names of bots in the page's language
const nameOf = (seat) => seatName(data.names[seat], "bot");

function show() {
  const f = data.frames[i];
  $("slider").value = i;
  $("pos").textContent = `${i + 1} / ${data.frames.length} · ` + _("hand {hand}", { hand: f.hand }) + " · " +
    _("totals {totals}", { totals: f.totals.map(number).join(" – ") });
  $("text").textContent = frameText(f);
  $("review").href = `/review/${tableId}?hand=${f.hand}`; // the review of the hand shown
  $("review").hidden = Boolean(board); // a tournament's board has no review page yet
  const seats = $("seats");
  seats.innerHTML = "";
  f.hands.forEach((hand, s) => {
    const d = document.createElement("div");
    d.className = "panel";
    d.innerHTML = `<b></b> <span class="muted"></span><div class="row"></div>`;
    d.querySelector("span").textContent = ngettext("{n} card", "{n} cards", hand.length);
    d.querySelector("b").textContent = nameOf(s);
    const row = d.querySelector(".row");
    hand.slice().sort((a, b) => rankIndex(a) - rankIndex(b)).forEach((c) => row.appendChild(cardEl(c, "small")));
    for (const c of f.view.red_threes[s]) row.appendChild(cardEl(c, "small"));
    seats.appendChild(d);
  });
  $("pile").innerHTML = "";
  const pile = f.view.pile;
  if (pile.length) $("pile").appendChild(cardEl(pile[pile.length - 1]));
  $("pile-info").textContent = (f.view.pile_frozen ? _("pile {n} (frozen)", { n: pile.length }) : _("pile {n}", { n: pile.length })) +
    " · " + _("stock {n}", { n: f.view.stock_size });
  const sides = $("sides");
  sides.innerHTML = "";
  f.view.melds.forEach((side, si) => {
    const p = document.createElement("div");
    p.className = "panel";
    p.innerHTML = `<h3></h3><div class="melds"></div>`;
    p.querySelector("h3").textContent = _("Side {side}: {names}", { side: si + 1, names: f.view.side_of.map((x, s) => (x === si ? nameOf(s) : null)).filter(Boolean).join(" & ") });
    const row = p.querySelector(".melds");
    for (const m of side) {
      const el = document.createElement("div");
      el.className = "meld" + (m.cards.length >= data.canasta_size ? " canasta" : "");
      m.cards.slice().sort((a, b) => Number(isWild(a)) - Number(isWild(b))).forEach((c) => el.appendChild(cardEl(c, "small")));
      row.appendChild(el);
    }
    sides.appendChild(p);
  });
}

const go = (k) => { i = Math.max(0, Math.min(data.frames.length - 1, k)); show(); };
$("first").onclick = () => go(0);
$("prev").onclick = () => go(i - 1);
$("next").onclick = () => go(i + 1);
$("last").onclick = () => go(data.frames.length - 1);
$("slider").oninput = () => go(Number($("slider").value));
$("play").onclick = () => {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "▶ " + _("play"); return; }
  $("play").textContent = "❚❚ " + _("pause");
  timer = setInterval(() => { if (i >= data.frames.length - 1) { $("play").click(); } else go(i + 1); }, 700);
};

const r = await fetch(`${api}/replay?lang=${encodeURIComponent(lang)}`);
if (!r.ok) { $("text").textContent = (await r.json()).detail; } else {
  data = await r.json();
  $("slider").max = data.frames.length - 1;
  show();
}
