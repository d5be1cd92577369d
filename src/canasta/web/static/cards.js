// SVG playing cards, drawn from the card code ("8H", "10C", "JK"; "??" is face down).
// Readable first: a large rank, the suit symbol under it, and the suit's letter in the
// lower corner, so colour is never the only cue.
import { _, pgettext } from "/static/i18n.js";

const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SUIT_NAMES = { S: _("spades"), H: _("hearts"), D: _("diamonds"), C: _("clubs") };
const RANK_NAMES = { J: pgettext("rank", "Jack"), Q: pgettext("rank", "Queen"), K: pgettext("rank", "King"), A: pgettext("rank", "Ace") };
const JOKER = _("Joker");
const JOKER_FACE = pgettext("written on the card", "JOKER");
const RANK_ORDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "JK"];

export function rankOf(code) {
  return code === "JK" ? "JK" : code.slice(0, -1);
}

export function suitOf(code) {
  return code === "JK" ? "" : code.slice(-1);
}

export function isWild(code) {
  return code === "JK" || rankOf(code) === "2";
}

export function rankIndex(code) {
  return RANK_ORDER.indexOf(rankOf(code));
}

export function cardName(code) {
  if (code === "JK") return JOKER;
  if (code === "??" || code === "back") return _("face-down card");
  const r = rankOf(code);
  return _("{rank} of {suit}", { rank: RANK_NAMES[r] || r, suit: SUIT_NAMES[suitOf(code)] });
}

/** Short text for a card: "8♥", "10♣", "Joker". */
export function cardText(code) {
  if (code === "JK") return JOKER;
  if (code === "??") return _("a face-down card");
  return rankOf(code) + SUITS[suitOf(code)];
}

/** Card codes in a line of text ("East melds AD AC JK") written as cards ("A♦ A♣ Joker"). */
export function prettyCards(text) {
  return String(text).replace(/\b(JK|10|[2-9JQKA])([SHDC])?\b/g, (m, r, s) => {
    if (r === "JK" && !s) return JOKER;
    return s ? r + SUITS[s] : m;
  });
}

const BACK = `<svg viewBox="0 0 60 84" role="img" aria-label="${_("face-down card")}"><rect class="face" x="1" y="1" width="58" height="82" rx="6" fill="#24498a" stroke="#fff" stroke-width="2"/><rect x="7" y="7" width="46" height="70" rx="4" fill="none" stroke="#8fb0e8" stroke-width="1.5" stroke-dasharray="3 3"/><path d="M30 22 L42 42 L30 62 L18 42 Z" fill="#8fb0e8" opacity=".55"/></svg>`;

export function cardSVG(code) {
  if (code === "??" || code === "back") return BACK;
  const suit = suitOf(code);
  const rank = rankOf(code);
  const joker = code === "JK";
  const red = suit === "H" || suit === "D" || joker;
  const colour = red ? "#b3161d" : "#111";
  const sym = joker ? "\u2605" : SUITS[suit];
  const label = joker ? "JK" : rank;
  const size = label.length > 1 ? 21 : 25;
  const letter = joker ? "" : `<text x="55" y="79" font-size="11" font-weight="700" text-anchor="end" font-family="Arial, sans-serif" fill="${colour}">${suit}</text>`;
  const centre = joker
    ? `<text x="30" y="66" font-size="11" font-weight="700" text-anchor="middle" font-family="Arial, sans-serif" fill="${colour}">${JOKER_FACE}</text><text x="36" y="52" font-size="22" text-anchor="middle" fill="${colour}">\u2605</text>`
    : `<text x="37" y="70" font-size="30" text-anchor="middle" fill="${colour}">${sym}</text>`;
  return `<svg viewBox="0 0 60 84" role="img" aria-label="${cardName(code)}"><rect class="face" x="1" y="1" width="58" height="82" rx="6" fill="#fffdf7" stroke="#555" stroke-width="1"/>` +
    `<text x="4" y="23" font-size="${size}" font-weight="800" font-family="Arial, Helvetica, sans-serif" letter-spacing="-1" fill="${colour}">${label}</text>` +
    `<text x="5" y="42" font-size="19" fill="${colour}">${sym}</text>` + centre + letter + `</svg>`;
}

export function cardEl(code, extraClass = "") {
  const el = document.createElement("span");
  el.className = "card" + (extraClass ? " " + extraClass : "");
  el.dataset.code = code;
  el.title = cardName(code);
  el.innerHTML = cardSVG(code);
  return el;
}
