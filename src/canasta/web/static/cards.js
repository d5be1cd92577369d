// SVG playing cards, drawn from the card code ("8H", "10C", "JK"; "??" is face down).
const SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
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
  if (code === "JK") return "Joker";
  if (code === "??") return "face-down card";
  return rankOf(code) + SUITS[suitOf(code)];
}

export function cardSVG(code) {
  if (code === "??" || code === "back") {
    return `<svg viewBox="0 0 60 84" role="img" aria-label="face-down card"><rect class="face" x="1" y="1" width="58" height="82" rx="6" fill="#24498a" stroke="#fff" stroke-width="2"/><rect x="7" y="7" width="46" height="70" rx="4" fill="none" stroke="#8fb0e8" stroke-dasharray="3 3"/></svg>`;
  }
  const suit = suitOf(code);
  const rank = rankOf(code);
  const red = suit === "H" || suit === "D" || code === "JK";
  const colour = red ? "#c0262d" : "#1b1b1b";
  const sym = code === "JK" ? "\u2605" : SUITS[suit];
  const label = code === "JK" ? "JK" : rank;
  const size = label.length > 1 ? 17 : 20;
  return `<svg viewBox="0 0 60 84" role="img" aria-label="${cardName(code)}"><rect class="face" x="1" y="1" width="58" height="82" rx="6" fill="#fffdf7" stroke="#555" stroke-width="1"/>` +
    `<text x="5" y="21" font-size="${size}" font-weight="700" font-family="Georgia, serif" fill="${colour}">${label}</text>` +
    `<text x="5" y="39" font-size="16" fill="${colour}">${sym}</text>` +
    `<text x="36" y="70" font-size="30" text-anchor="middle" fill="${colour}">${sym}</text></svg>`;
}

export function cardEl(code, extraClass = "") {
  const el = document.createElement("span");
  el.className = "card" + (extraClass ? " " + extraClass : "");
  el.dataset.code = code;
  el.title = cardName(code);
  el.innerHTML = cardSVG(code);
  return el;
}
