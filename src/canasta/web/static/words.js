// Ranks, seats and bot levels in words, in the page's language.  Moves are not described
// here: the server sends each in the page's language (canasta.present), the page only draws
// its cards.
import { _, fmt, ngettext, pgettext, pileNoteTexts, tableNoteTexts } from "/static/i18n.js";

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

// the engine's ranks by number (canasta.engine.cards.RANK_NAMES)
const RANK_CODES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "JK"];

/** A note on the pile from the state's pile_note_keys ({key, n, rank}) in the page's language. */
export function pileNoteText(note) {
  const text = pileNoteTexts[note.key];
  if (!text) return note.key;
  return fmt(text, { n: note.n, rank: note.rank >= 0 ? RANK_WORDS[RANK_CODES[note.rank]] : "" });
}

/** A family's note on the table from the state's table_note_keys ({key, n, rank}) in the page's language. */
export function tableNoteText(note) {
  const text = tableNoteTexts[note.key];
  if (!text) return note.key;
  return fmt(text, { n: note.n, rank: note.rank >= 0 ? RANK_WORDS[RANK_CODES[note.rank]] : "" });
}

// the cards a family lays out face up for a side, by the welcome's words.laid_out (FamilyWords.laid_out):
// the red threes (Classic, Italian) or every three (Modern American, C.3.1)
const LAID_OUT = {
  red_threes: { count: (n) => ngettext("{n} red three", "{n} red threes", n), line: () => _("Red threes") },
  threes: { count: (n) => ngettext("{n} three", "{n} threes", n), line: () => _("Threes") },
};

/** What the laid-out cards are called: count (a side's, "2 red threes") or line (the score sheet's). */
export function laidOutPhrase(word, key, ...args) {
  return (LAID_OUT[word] || LAID_OUT.red_threes)[key](...args);
}

// The family's words, by the word the server's welcome names (words.pile, words.hand), as
// canasta.present's PILE_PHRASES and HAND_PHRASES: the page looks a phrase up here and never
// chooses between words itself; a family with a word of its own adds its row, and an unknown
// word reads the usual one.  The family's own word for a hand has a context of its own
// ("smazzata"), so that a language says it where its usual word differs.
const PILE_PHRASES = {
  pile: { take: () => _("Take the pile"), label: () => _("the discard pile"), draw: () => _("draw, or take the pile"),
    count: (n) => ngettext("pile: {n} card", "pile: {n} cards", n) },
  pozzo: { take: () => _("Take the pozzo"), label: () => _("the pozzo"), draw: () => _("draw, or take the pozzo"),
    count: (n) => ngettext("pozzo: {n} card", "pozzo: {n} cards", n) },
};
const HAND_PHRASES = {
  hand: { over: (hand) => _("Hand {hand} is over", { hand }), over_now: () => _("The hand is over.") },
  smazzata: { over: (hand) => pgettext("smazzata", "Hand {hand} is over", { hand }),
    over_now: () => pgettext("smazzata", "The hand is over.") },
};

/** A phrase of the discards (take, label, draw, count) in the family's word for them. */
export function pilePhrase(word, key, ...args) {
  return (PILE_PHRASES[word] || PILE_PHRASES.pile)[key](...args);
}

/** A phrase of a hand's end (over, over_now) in the family's word for a hand. */
export function handPhrase(word, key, ...args) {
  return (HAND_PHRASES[word] || HAND_PHRASES.hand)[key](...args);
}
