// Ranks, seats and bot levels in words, in the page's language.  Moves are not described
// here: the server sends each in the page's language (canasta.present), the page only draws
// its cards.
import { _, fmt, ngettext, pileNoteTexts } from "/static/i18n.js";

// a rank in the plural, as a meld's label says it ("kings · 5/7")
export const RANK_WORDS = { 3: _("threes"), 4: _("fours"), 5: _("fives"), 6: _("sixes"), 7: _("sevens"), 8: _("eights"),
  9: _("nines"), 10: _("tens"), J: _("jacks"), Q: _("queens"), K: _("kings"), A: _("aces"), 2: _("twos"),
  JK: _("jokers") };

// the names the server gives seats nobody has named: the compass points (canasta.play.table.seat_names)
const COMPASS = { South: _("South"), West: _("West"), North: _("North"), East: _("East"), "South-west": _("South-west"),
  "North-west": _("North-west"), "North-east": _("North-east"), "South-east": _("South-east") };

/** A seat's name as shown: a person's own name as it is; a bot's or an empty seat's compass name in the language. */
export function seatName(name, kind) {
  return kind !== "human" && COMPASS[name] ? COMPASS[name] : name;
}

/** A table's name as shown: the name its maker gave; a quick game, or a table its maker left
 * unnamed ("Ann's table", stored as the maker's name alone: host), in the language. */
export function tableTitle(title, host) {
  if (title === "Quick play") return _("Quick play");
  if (title) return title;
  return host ? _("{name}'s table", { name: host }) : "";
}

/** A bot level in words ("expert bot", "expert bots" for n > 1). */
export function levelName(level, n = 1) {
  const names = { random: ngettext("random bot", "random bots", n), basic: ngettext("basic bot", "basic bots", n),
    advanced: ngettext("advanced bot", "advanced bots", n), expert: ngettext("expert bot", "expert bots", n) };
  return names[level] || _("{level} bot", { level });
}

// the engine's ranks by number (canasta.cards.RANK_NAMES)
const RANK_CODES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK"];

/** A note on the pile from the state's pile_note_keys ({key, n, rank}) in the page's language. */
export function pileNoteText(note) {
  const text = pileNoteTexts[note.key];
  if (!text) return note.key;
  return fmt(text, { n: note.n, rank: note.rank >= 0 ? RANK_WORDS[RANK_CODES[note.rank]] : "" });
}
